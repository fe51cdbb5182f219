//! Caps on the connections one client may hold open (SPEC sections 10 and 14, issue 17): event
//! streams and long-polls per bot token and per client address, and a total for the process
//! tied to its file-descriptor limit. A refused open is 429 `rate_limited` with `Retry-After`,
//! `details.limit` naming the cap and `details.max` its size. A [`Slot`] is an RAII guard: the
//! response (a long-poll's handler, a stream's body) owns it, so the slot is free again the
//! moment the response is dropped, when it finished or the client went away.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, PoisonError};

use actix_web::HttpRequest;
use serde_json::json;

use crate::error::ApiError;

/// Seconds a refused client is told to wait (`Retry-After`): a slot frees when any of its
/// connections closes, so there is no refill time to report; this is the SSE retry delay.
pub const RETRY_AFTER_S: u64 = 2;

/// What a slot holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A server-sent-event stream (`GET .../events`).
    Stream,
    /// A long-poll (`wait_s` > 0).
    LongPoll,
}

/// The sizes of the caps; every one is at least 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HoldLimits {
    /// Event streams per bot token (`streams_per_bot`).
    pub streams_per_bot: usize,
    /// Long-polls per bot token (`long_polls_per_bot`).
    pub long_polls_per_bot: usize,
    /// Event streams per client address (`streams_per_address`).
    pub streams_per_address: usize,
    /// Long-polls per client address (`long_polls_per_address`).
    pub long_polls_per_address: usize,
    /// Streams and long-polls in the whole process (`held_connections`).
    pub total: usize,
}

impl Default for HoldLimits {
    fn default() -> Self {
        HoldLimits {
            streams_per_bot: 8,
            long_polls_per_bot: 16,
            streams_per_address: 128,
            long_polls_per_address: 256,
            total: 4096,
        }
    }
}

/// Open slots by (limit name, key).
type Counts = HashMap<(&'static str, String), usize>;

/// The counts of open slots, by cap and key.
pub struct Holds {
    limits: HoldLimits,
    /// Open slots by (limit name, key); a key at zero is removed, so the map holds only
    /// clients with something open.
    counts: Mutex<(Counts, usize)>,
}

/// One open stream or long-poll; dropping it frees the slot in every cap it counted in.
pub struct Slot {
    holds: Arc<Holds>,
    keys: Vec<(&'static str, String)>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut g = self
            .holds
            .counts
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (map, total) = &mut *g;
        for k in self.keys.drain(..) {
            if let Some(n) = map.get_mut(&k) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    map.remove(&k);
                }
            }
        }
        *total = total.saturating_sub(1);
    }
}

impl Holds {
    /// Caps of these sizes (each raised to at least 1).
    pub fn new(limits: HoldLimits) -> Arc<Holds> {
        let at_least_1 = |n: usize| n.max(1);
        Arc::new(Holds {
            limits: HoldLimits {
                streams_per_bot: at_least_1(limits.streams_per_bot),
                long_polls_per_bot: at_least_1(limits.long_polls_per_bot),
                streams_per_address: at_least_1(limits.streams_per_address),
                long_polls_per_address: at_least_1(limits.long_polls_per_address),
                total: at_least_1(limits.total),
            },
            counts: Mutex::new((HashMap::new(), 0)),
        })
    }

    /// The caps in force.
    pub fn limits(&self) -> HoldLimits {
        self.limits
    }

    /// Slots open in the whole process.
    pub fn open(&self) -> usize {
        self.counts.lock().unwrap_or_else(PoisonError::into_inner).1
    }

    /// Takes a slot of `kind` for `bot` (a bot id, when the route is a bot's) at `address`.
    /// Errors: 429 `rate_limited` naming the first full cap (per bot, per address, total),
    /// with `details.max`; nothing is counted then.
    pub fn acquire(
        self: &Arc<Self>,
        kind: Kind,
        bot: Option<&str>,
        address: &str,
    ) -> Result<Slot, ApiError> {
        let l = &self.limits;
        let (per_bot, per_address) = match kind {
            Kind::Stream => (
                ("streams_per_bot", l.streams_per_bot),
                ("streams_per_address", l.streams_per_address),
            ),
            Kind::LongPoll => (
                ("long_polls_per_bot", l.long_polls_per_bot),
                ("long_polls_per_address", l.long_polls_per_address),
            ),
        };
        let mut wanted = Vec::with_capacity(2);
        if let Some(b) = bot {
            wanted.push((per_bot, b.to_string()));
        }
        wanted.push((per_address, address.to_string()));
        let mut g = self.counts.lock().unwrap_or_else(PoisonError::into_inner);
        let (map, total) = &mut *g;
        for ((name, max), key) in &wanted {
            if map.get(&(*name, key.clone())).copied().unwrap_or(0) >= *max {
                return Err(refused(name, *max, kind));
            }
        }
        if *total >= l.total {
            return Err(refused("held_connections", l.total, kind));
        }
        let keys: Vec<(&'static str, String)> = wanted
            .into_iter()
            .map(|((name, _), key)| (name, key))
            .collect();
        for k in &keys {
            *map.entry(k.clone()).or_insert(0) += 1;
        }
        *total += 1;
        drop(g);
        Ok(Slot {
            holds: self.clone(),
            keys,
        })
    }
}

fn refused(limit: &'static str, max: usize, kind: Kind) -> ApiError {
    let what = match kind {
        Kind::Stream => "event streams",
        Kind::LongPoll => "long-polls",
    };
    let mut e = ApiError::rate_limited(limit, RETRY_AFTER_S);
    e.message = format!(
        "at most {max} {what} may be open at once ({limit}); close one, or retry in \
         {RETRY_AFTER_S} s"
    );
    if let Some(d) = e.details.as_object_mut() {
        d.insert("max".into(), json!(max));
    }
    e
}

/// The client address a cap counts against: the TCP peer, or with `trust_forwarded_for` the
/// last `X-Forwarded-For` entry (the one the trusted proxy in front appended; earlier entries
/// are the client's own say). An IPv6 address counts by its /64, which one host usually owns
/// whole. "unknown" when there is no peer (never over TCP).
pub fn client_address(req: &HttpRequest, trust_forwarded_for: bool) -> String {
    let forwarded = trust_forwarded_for
        .then(|| {
            req.headers()
                .get_all("x-forwarded-for")
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .next_back()
                .and_then(|s| s.trim().parse::<IpAddr>().ok())
        })
        .flatten();
    match forwarded.or_else(|| req.peer_addr().map(|a| a.ip())) {
        Some(ip) => address_key(ip),
        None => "unknown".into(),
    }
}

/// The key an address counts under: an IPv4 address as it is (also when IPv4-mapped), an
/// IPv6 address by its /64 (one host usually holds a whole /64).
pub fn address_key(ip: IpAddr) -> String {
    match ip {
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => v4.to_string(),
            None => {
                let s = v6.segments();
                format!("{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
        ip => ip.to_string(),
    }
}

/// The process's open-file limit after raising the soft limit to the hard one (where the
/// platform has one; cheap, and a no-op when already there). None when it cannot be read.
pub fn raise_fd_limit() -> Option<u64> {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(n) => Some(n),
        Err(e) => {
            tracing::warn!(error = %e, "could not raise the open-file limit");
            rlimit::getrlimit(rlimit::Resource::NOFILE)
                .ok()
                .map(|(soft, _)| soft)
        }
    }
}

/// File descriptors kept back from connections for the database, logs and house engines.
pub const FD_RESERVE: u64 = 128;

/// The default caps on connections for an open-file limit of `fd_limit`: (accepted
/// connections in total, held streams and long-polls in total). Connections get all but
/// [`FD_RESERVE`] descriptors; held ones at most three quarters of that, so a full hold table
/// still leaves room for ordinary requests such as `/healthz`.
pub fn fd_budget(fd_limit: Option<u64>) -> (usize, usize) {
    let fds = fd_limit.unwrap_or(1024).min(1 << 20);
    let connections = fds.saturating_sub(FD_RESERVE).max(64);
    let held = (connections * 3 / 4).max(16);
    (
        usize::try_from(connections).unwrap_or(usize::MAX),
        usize::try_from(held).unwrap_or(usize::MAX),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_cap_refuses_and_a_dropped_slot_frees_it_in_every_cap() {
        let h = Holds::new(HoldLimits {
            streams_per_bot: 2,
            streams_per_address: 3,
            total: 10,
            ..HoldLimits::default()
        });
        let a = h
            .acquire(Kind::Stream, Some("b1"), "1.2.3.4")
            .expect("admitted");
        let _b = h
            .acquire(Kind::Stream, Some("b1"), "1.2.3.4")
            .expect("admitted");
        let e = h
            .acquire(Kind::Stream, Some("b1"), "1.2.3.4")
            .err()
            .expect("refused");
        assert_eq!(e.details["limit"], "streams_per_bot");
        assert_eq!(e.details["max"], 2);
        let _c = h
            .acquire(Kind::Stream, Some("b2"), "1.2.3.4")
            .expect("admitted");
        let e = h
            .acquire(Kind::Stream, None, "1.2.3.4")
            .err()
            .expect("refused");
        assert_eq!(e.details["limit"], "streams_per_address");
        assert_eq!(e.retry_after_s, Some(RETRY_AFTER_S));
        // Long-polls count apart from streams.
        let _p = h
            .acquire(Kind::LongPoll, Some("b1"), "1.2.3.4")
            .expect("admitted");
        assert_eq!(h.open(), 4);
        drop(a);
        assert_eq!(h.open(), 3);
        let _d = h
            .acquire(Kind::Stream, Some("b1"), "1.2.3.4")
            .expect("admitted");
    }

    #[test]
    fn the_total_cap_refuses_whoever_asks_once_the_process_is_full() {
        let h = Holds::new(HoldLimits {
            total: 2,
            ..HoldLimits::default()
        });
        let _a = h.acquire(Kind::Stream, None, "a").expect("admitted");
        let _b = h.acquire(Kind::LongPoll, None, "b").expect("admitted");
        let e = h.acquire(Kind::Stream, None, "c").err().expect("refused");
        assert_eq!(e.details["limit"], "held_connections");
        assert_eq!(e.details["max"], 2);
    }

    #[test]
    fn the_fd_budget_keeps_a_reserve_and_a_quarter_for_ordinary_requests() {
        assert_eq!(fd_budget(Some(1024)), (896, 672));
        assert_eq!(fd_budget(Some(20_000)), (19_872, 14_904));
        assert_eq!(fd_budget(Some(10)), (64, 48));
    }

    #[test]
    fn the_address_is_the_peer_unless_a_proxy_is_trusted_and_then_its_last_forwarded_entry() {
        use actix_web::test::TestRequest;
        let req = TestRequest::default()
            .peer_addr("10.0.0.9:5000".parse().expect("addr"))
            .insert_header(("x-forwarded-for", "6.6.6.6, 203.0.113.7"))
            .to_http_request();
        assert_eq!(client_address(&req, false), "10.0.0.9");
        assert_eq!(client_address(&req, true), "203.0.113.7");
        let v6 = TestRequest::default()
            .peer_addr("[2001:db8:1:2:aaaa::1]:5000".parse().expect("addr"))
            .to_http_request();
        assert_eq!(client_address(&v6, false), "2001:db8:1:2::/64");
        let mapped = TestRequest::default()
            .peer_addr("[::ffff:192.0.2.4]:5000".parse().expect("addr"))
            .to_http_request();
        assert_eq!(client_address(&mapped, false), "192.0.2.4");
    }
}
