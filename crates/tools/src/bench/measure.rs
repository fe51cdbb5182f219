//! What the bench measures besides its own calls: the servers' `/metrics` (memory, CPU), the
//! database's size, and percentiles.

use super::Http;

/// The servers' `process_resident_memory_bytes` from `/metrics`, in KiB, summed over the
/// instances that expose it.
pub(super) async fn server_rss_kib(http: &Http) -> Option<u64> {
    let mut total = None;
    for at in 0..http.bases.len() {
        if let Some(k) = instance_rss_kib(http, at).await {
            total = Some(total.unwrap_or(0) + k);
        }
    }
    total
}

pub(super) async fn instance_rss_kib(http: &Http, at: usize) -> Option<u64> {
    let bytes = instance_metric(http, at, "process_resident_memory_bytes").await?;
    Some((bytes / 1024.0) as u64)
}

/// The servers' CPU seconds from `/metrics`, summed over the instances that expose them (None
/// when none does): the whole process (`process_cpu_seconds_total`), and its analyst's part
/// (`hexarena_analysis_cpu_seconds_total`; None when an instance does not expose it, as a
/// server older than issue 22 does not).
pub(super) async fn server_cpu_s(http: &Http) -> Option<(f64, Option<f64>)> {
    let mut total: Option<(f64, Option<f64>)> = None;
    for at in 0..http.bases.len() {
        if let Some(s) = instance_metric(http, at, "process_cpu_seconds_total").await {
            let analysis = instance_metric(http, at, "hexarena_analysis_cpu_seconds_total").await;
            total = Some(match total {
                None => (s, analysis),
                Some((p, a)) => (p + s, a.zip(analysis).map(|(a, b)| a + b)),
            });
        }
    }
    total
}

/// One unlabelled sample of `/metrics` on instance `at`.
pub(super) async fn instance_metric(http: &Http, at: usize, name: &str) -> Option<f64> {
    let (_, text) = http.base(at).get_text("/metrics").await.ok()?;
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' '))?
        .trim()
        .parse()
        .ok()
}

/// The data in the servers' database, bytes: `hexarena_database_bytes` of the first instance
/// (every instance shares one database). None from a server older than the gauge.
pub(super) async fn database_bytes(http: &Http) -> Option<f64> {
    instance_metric(http, 0, "hexarena_database_bytes").await
}

/// Bytes of a SQLite database file and its write-ahead log (0 for a missing file).
pub(super) fn db_bytes(path: &std::path::Path) -> u64 {
    let wal = std::path::PathBuf::from(format!("{}-wal", path.display()));
    [path, wal.as_path()]
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| m.len()))
        .sum()
}

/// Nearest-rank percentile of sorted microseconds, in milliseconds.
pub(super) fn percentile_ms(sorted_us: &[u64], p: f64) -> f64 {
    if sorted_us.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted_us.len() as f64).ceil() as usize;
    let i = rank.clamp(1, sorted_us.len()) - 1;
    sorted_us[i] as f64 / 1000.0
}
