//! One match's page (`/matches/{id}`): its bots, W/D/L, the Elo difference with its interval,
//! the SPRT if it has one, and its sets.

use std::fmt::Write as _;

use serde_json::Value;

use super::home::list;
use crate::arena::status::TournamentStatus;
use crate::web::html::{
    board, bot_link, clock_settings, esc, fill, num, pct, rows_and_note, s, set_link, td, when,
};

/// Seconds between reloads of the page while the match is under way.
pub const MATCH_REFRESH_S: u32 = 30;

fn fact(out: &mut String, label: &str, value: &str) {
    let _ = write!(out, "<dt>{label}</dt><dd>{value}</dd>");
}

/// `x` with a sign and `digits` decimals (`+12.3`, `-4.0`); "–" when absent.
fn signed_fixed(v: &Value, digits: usize) -> String {
    match v.as_f64() {
        Some(x) if x > 0.0 => format!("+{x:.digits$}"),
        Some(x) => format!("{x:.digits$}"),
        None => "–".into(),
    }
}

/// The Elo difference and its 95% interval, or why there is none.
fn elo(m: &Value) -> String {
    match (m["elo"].as_f64(), m["elo_error"].as_f64()) {
        (Some(_), Some(e)) => format!("{} ± {e:.1}", signed_fixed(&m["elo"], 1)),
        (Some(_), None) => format!(
            "{} (its interval reaches a score of 0 or 100%)",
            signed_fixed(&m["elo"], 1)
        ),
        (None, _) => match m["score"].as_f64() {
            Some(x) if x >= 1.0 => "+∞ (every set won)".into(),
            Some(x) if x <= 0.0 => "−∞ (every set lost)".into(),
            _ => "– (no set played yet)".into(),
        },
    }
}

/// The SPRT's hypotheses, LLR and bounds, and its decision.
fn sprt(p: &Value, first: &str) -> String {
    let decision = match s(&p["decision"]) {
        "H1" => format!(
            "H1 accepted: {} is at least {} Elo stronger",
            esc(first),
            num(&p["elo1"])
        ),
        "H0" => format!(
            "H0 accepted: {} is at most {} Elo stronger",
            esc(first),
            num(&p["elo0"])
        ),
        _ => "undecided".into(),
    };
    format!(
        "elo0 {}, elo1 {}, α {}, β {} · LLR {} (bounds {} and {}) · {decision}",
        num(&p["elo0"]),
        num(&p["elo1"]),
        num(&p["alpha"]),
        num(&p["beta"]),
        signed_fixed(&p["llr"], 2),
        signed_fixed(&p["lower_bound"], 2),
        signed_fixed(&p["upper_bound"], 2),
    )
}

fn facts(m: &Value) -> String {
    let mut dl = String::new();
    let bots = list(m, "bots");
    let (a, b) = (
        bots.first().unwrap_or(&Value::Null),
        bots.get(1).unwrap_or(&Value::Null),
    );
    fact(
        &mut dl,
        "Bots",
        &format!("{} vs {}", bot_link(a), bot_link(b)),
    );
    fact(&mut dl, "Status", &esc(s(&m["status"])));
    fact(
        &mut dl,
        "Sets played",
        &format!("{} of {}", num(&m["sets_played"]), num(&m["sets"])),
    );
    fact(
        &mut dl,
        "W / D / L",
        &format!(
            "{} / {} / {} <span class=\"muted\">for {}</span>",
            num(&m["w"]),
            num(&m["d"]),
            num(&m["l"]),
            bot_link(a)
        ),
    );
    let score = m["score"]
        .as_f64()
        .map_or_else(|| "–".into(), |x| format!("{:.1}%", x * 100.0));
    fact(&mut dl, "Score", &score);
    fact(&mut dl, "Elo difference", &elo(m));
    if m["sprt"].is_object() {
        fact(&mut dl, "SPRT", &sprt(&m["sprt"], s(a)));
    }
    fact(&mut dl, "Created", &when(&m["created_at"]));
    if m["finished_at"].is_string() {
        fact(&mut dl, "Finished", &when(&m["finished_at"]));
    }
    dl
}

/// A set of the match: its number, status, result (its `result` in the match's JSON; "–"
/// while it has none) and link.
fn set_row(p: &Value) -> String {
    let set = match p["set_id"].as_str() {
        Some(id) => set_link(id, None),
        None => "<span class=\"muted\">–</span>".into(),
    };
    let result = match p["result"].as_str() {
        Some(r) => esc(r),
        None => "<span class=\"muted\">–</span>".into(),
    };
    format!(
        "<tr>{}{}{}<td>{set}</td></tr>",
        td(&num(&p["n"]), "num"),
        td(&esc(s(&p["status"])), ""),
        td(&result, "wrapok"),
    )
}

/// One match's page from its JSON view (`GET /v1/matches/{id}`). While the match is under
/// way the page reloads every [`MATCH_REFRESH_S`] seconds.
pub fn match_page(template: &str, m: &Value) -> String {
    let id = s(&m["id"]);
    let bots = list(m, "bots");
    let name = |i: usize| bots.get(i).map_or("?", s);
    let live = !TournamentStatus::is_in(
        s(&m["status"]),
        &[TournamentStatus::Finished, TournamentStatus::Cancelled],
    );
    let subtitle = format!(
        "match · {} · {} of {} sets · {} · {} · {} at once",
        esc(s(&m["status"])),
        num(&m["sets_played"]),
        num(&m["sets"]),
        board(&m["options"]),
        clock_settings(&m["clock"]),
        num(&m["concurrency"]),
    );
    let rows: Vec<String> = list(m, "set_list").iter().map(set_row).collect();
    let (rows, note) = rows_and_note("sets", &rows, "No set started yet.");
    fill(
        template,
        &[
            (
                "page-title",
                format!("{} vs {} – match – Hex arena", esc(name(0)), esc(name(1))),
            ),
            (
                "title",
                format!(
                    "{} vs {}",
                    bot_link(bots.first().unwrap_or(&Value::Null)),
                    bot_link(bots.get(1).unwrap_or(&Value::Null))
                ),
            ),
            ("subtitle", subtitle),
            ("facts", facts(m)),
            ("sets", rows),
            ("sets-empty", note),
            ("api", format!("/v1/matches/{}", pct(id))),
            (
                "refresh",
                if live {
                    format!("<meta http-equiv=\"refresh\" content=\"{MATCH_REFRESH_S}\">\n")
                } else {
                    String::new()
                },
            ),
            (
                "footer",
                if live {
                    format!("Reloads every {MATCH_REFRESH_S} s while the match is under way")
                } else {
                    "Final".into()
                },
            ),
        ],
    )
}
