//! The home page: leaderboard, lobby, sets in play and finished sets.

use std::fmt::Write as _;

use serde_json::Value;

use crate::web::html::{
    board, bot_link, clock_settings, esc, fill, isolated, num, pairing, points, round,
    rows_and_note, s, set_link, signed, stake, td, time,
};

pub(super) fn practice_tag(row: &Value) -> &'static str {
    if row["practice"].as_bool() == Some(true) {
        "<span class=\"tag\">practice</span>"
    } else {
        ""
    }
}

/// A set's tournament as a tag linking to the event (` Cup r3`), or "".
pub(super) fn tournament_tag(row: &Value) -> String {
    let t = &row["tournament"];
    if !t.is_object() {
        return String::new();
    }
    format!(
        " <a class=\"tag\" href=\"{}\"><bdi>{}</bdi> r{}</a>",
        esc(s(&t["url"])),
        esc(s(&t["name"])),
        num(&t["round"])
    )
}

fn leaderboard_row(r: &Value) -> String {
    let owner = if r["owner_name"].is_string() {
        &r["owner_name"]
    } else {
        &r["owner"]
    };
    let mut name = bot_link(&r["bot"]);
    if r["house"].as_bool() == Some(true) {
        name.push_str("<span class=\"tag\">house</span>");
    }
    if r["provisional"].as_bool() == Some(true) {
        name.push_str(
            "<span class=\"tag\" title=\"Glicko-2 deviation above 110\">provisional</span>",
        );
    }
    // On a phone the owner goes under the name instead of in a column of its own.
    let _ = write!(
        name,
        "<span class=\"byline narrow-only\">by {}</span>",
        isolated(owner)
    );
    let glicko = if r["glicko_rating"].is_null() {
        String::new()
    } else {
        format!(
            "{} ± {}",
            round(&r["glicko_rating"]),
            round(&r["rating_deviation"])
        )
    };
    // The Glicko-2 column is left out on a phone, but not how sure the rating is: it goes
    // under the name too, as the footnote says.
    if !glicko.is_empty() {
        let _ = write!(
            name,
            "<span class=\"byline narrow-only glicko\">Glicko-2 {glicko}</span>"
        );
    }
    let net = r["net"].as_f64().unwrap_or(0.0);
    let net_class = if net > 0.0 {
        "num opt pos"
    } else if net < 0.0 {
        "num opt neg"
    } else {
        "num opt "
    };
    format!(
        "<tr data-bot=\"{}\">{}{}{}{}{}{}{}{}{}{}{}</tr>",
        esc(s(&r["bot"])),
        td(&num(&r["rank"]), "num"),
        td(&name, "wrapok"),
        td(&round(&r["rating"]), "num"),
        td(&glicko, "num opt"),
        td(&num(&r["sets"]), "num opt"),
        td(&num(&r["w"]), "num"),
        td(&num(&r["d"]), "num"),
        td(&num(&r["l"]), "num"),
        td(&num(&r["won"]), "num opt"),
        td(&signed(&r["net"]), net_class),
        td(&isolated(owner), "owner wrapok wide-only"),
    )
}

fn lobby_row(row: &Value) -> String {
    let id = s(&row["id"]);
    let mut who = format!(
        "{} {}",
        bot_link(&row["creator"]),
        set_link(id, Some("challenge"))
    );
    if row["opponent"].is_string() {
        let _ = write!(
            who,
            "<span class=\"tag\">for {}</span>",
            bot_link(&row["opponent"])
        );
    }
    format!(
        "<tr>{}{}{}{}{}<td><span class=\"muted\">–</span></td></tr>",
        td(&who, "wrapok"),
        td(&board(&row["options"]), ""),
        td(&clock_settings(&row["clock"]), "opt"),
        td(&stake(&row["stake"]), "num"),
        td(&time(&row["created_at"]), "opt"),
    )
}

/// The set's bots and tags; `below` is HTML added after them (a line shown on a phone only).
fn pairing_cell(row: &Value, below: &str) -> String {
    let id = s(&row["id"]);
    td(
        &format!(
            "{}{}{}{below}",
            pairing(id, &row["creator"], &row["acceptor"]),
            practice_tag(row),
            tournament_tag(row)
        ),
        "wrapok",
    )
}

fn active_row(row: &Value) -> String {
    format!(
        "<tr>{}{}{}{}{}</tr>",
        pairing_cell(row, ""),
        td(&points(&row["points"]), "num"),
        td(&board(&row["options"]), "opt"),
        td(&stake(&row["stake"]), "num"),
        td(&time(&row["started_at"]), ""),
    )
}

fn finished_row(row: &Value) -> String {
    let at = if row["finished_at"].is_string() {
        &row["finished_at"]
    } else {
        &row["started_at"]
    };
    // On a phone the result goes under the bots instead of in a column of its own: "1 – 1"
    // alone does not say who won on the tiebreak.
    let result = esc(s(&row["result"]));
    let below = if result.is_empty() {
        String::new()
    } else {
        format!("<span class=\"byline narrow-only\">{result}</span>")
    };
    format!(
        "<tr>{}{}{}{}{}</tr>",
        pairing_cell(row, &below),
        td(&points(&row["points"]), "num"),
        td(&result, "opt"),
        td(&stake(&row["stake"]), "num"),
        td(&time(at), ""),
    )
}

pub(super) fn list<'a>(v: &'a Value, key: &str) -> &'a [Value] {
    v[key].as_array().map_or(&[], Vec::as_slice)
}

/// The home page from the leaderboard rows and the open, active and finished set lists (each
/// the body of `GET /v1/sets?status=...`).
pub fn home(
    template: &str,
    leaders: &[Value],
    open: &Value,
    active: &Value,
    finished: &Value,
) -> String {
    let mut parts = vec![];
    // (table, the slot of its note, rows, what the note says when there are none)
    let tables: [(&str, &str, Vec<String>, &str); 4] = [
        (
            "leaderboard",
            "leaderboard-empty",
            leaders.iter().map(leaderboard_row).collect(),
            "No rated sets yet.",
        ),
        (
            "lobby",
            "lobby-empty",
            list(open, "sets").iter().map(lobby_row).collect(),
            "No open challenges. Create one below.",
        ),
        (
            "active",
            "active-empty",
            list(active, "sets").iter().map(active_row).collect(),
            "No set is being played right now.",
        ),
        (
            "finished",
            "finished-empty",
            list(finished, "sets").iter().map(finished_row).collect(),
            "No finished sets yet.",
        ),
    ];
    for (id, note_slot, rows, empty) in &tables {
        let (rows, note) = rows_and_note(id, rows, empty);
        parts.push((*id, rows));
        parts.push((*note_slot, note));
    }
    fill(template, &parts)
}
