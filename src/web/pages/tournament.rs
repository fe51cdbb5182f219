//! The tournaments list and one tournament's page: standings, crosstable and rounds.

use std::fmt::Write as _;

use serde_json::Value;

use super::home::list;
use crate::arena::status::TournamentStatus;
use crate::web::html::{
    board, bot_link, clock_settings, esc, fill, half, isolated, num, pct, points, rows_and_note, s,
    set_link, stake, starts, td, time,
};

fn format_name(f: &str) -> String {
    match f {
        "round_robin" => "round robin".into(),
        "swiss" => "Swiss".into(),
        "gauntlet" => "gauntlet".into(),
        other => esc(other),
    }
}

fn tournament_row(t: &Value) -> String {
    let id = s(&t["id"]);
    let name = if t["name"].is_string() {
        &t["name"]
    } else {
        &t["id"]
    };
    let mut status = if s(&t["status"]) == "running" {
        "<span class=\"tag live\">running</span>".to_string()
    } else {
        esc(s(&t["status"]))
    };
    if let Some(at) = starts(t) {
        let _ = write!(status, " <span class=\"byline\">{at}</span>");
    }
    let bots = t["participants"]
        .as_array()
        .map_or_else(|| num(&t["participants"]), |p| p.len().to_string());
    let round_of = format!(
        "{}/{}",
        t["current_round"].as_i64().unwrap_or(0),
        if t["rounds"].is_null() {
            "?".into()
        } else {
            num(&t["rounds"])
        }
    );
    format!(
        "<tr><td class=\"wrapok\"><a href=\"/tournaments/{}\">{}</a></td>{}{}{}{}{}{}{}</tr>",
        pct(id),
        isolated(name),
        td(&format_name(s(&t["format"])), ""),
        td(&status, ""),
        td(&round_of, "num"),
        td(&bots, "num"),
        td(&board(&t["options"]), "opt"),
        td(&clock_settings(&t["clock"]), "opt"),
        td(&time(&t["created_at"]), "opt"),
    )
}

/// The list of tournaments (`GET /v1/tournaments`).
/// `/tournaments`: one page of `GET /v1/tournaments` (`all`); `before` is the cursor the page
/// was asked with (None: the newest). Links to the newest page (on an older one) and to the
/// next older page (when `next_before` says there is one).
pub fn tournaments_page(template: &str, all: &Value, before: Option<&str>) -> String {
    let rows: Vec<String> = list(all, "tournaments")
        .iter()
        .map(tournament_row)
        .collect();
    let empty = if before.is_some() {
        "No older tournaments."
    } else {
        "No tournaments yet."
    };
    let (rows, note) = rows_and_note("tournaments", &rows, empty);
    let mut links = vec![];
    if before.is_some() {
        links.push("<a href=\"/tournaments\">Newest tournaments</a>".to_string());
    }
    if let Some(next) = all["next_before"].as_str() {
        links.push(format!(
            "<a href=\"/tournaments?before={}\" rel=\"next\">Older tournaments</a>",
            esc(&pct(next))
        ));
    }
    let pager = if links.is_empty() {
        String::new()
    } else {
        format!("<p class=\"pager\" id=\"pager\">{}</p>", links.join(" · "))
    };
    let title = if before.is_some() {
        "Older tournaments, newest first"
    } else {
        "All tournaments, newest first"
    };
    fill(
        template,
        &[
            ("tournaments", rows),
            ("tournaments-empty", note),
            ("pager", pager),
            ("list-title", title.to_string()),
        ],
    )
}

fn standing_row(r: &Value) -> String {
    let perf = if r["performance"].is_null() {
        "–".to_string()
    } else if r["performance_error"].as_f64().is_some_and(|e| e != 0.0) {
        format!(
            "{} ± {}",
            num(&r["performance"]),
            num(&r["performance_error"])
        )
    } else {
        num(&r["performance"])
    };
    let mut who = bot_link(&r["bot"]);
    if r["refused_moves"].as_i64().unwrap_or(0) > 0 {
        let _ = write!(
            who,
            " <span class=\"tag\" title=\"move attempts refused in this tournament (illegal, out of turn, stale ply)\">{} refused</span>",
            num(&r["refused_moves"])
        );
    }
    let w = &r["withdrawn"];
    if w.is_object() {
        let by = match s(&w["by"]) {
            "absence" => "by the arena after repeated forfeits by absence",
            "retired" => "when its owner retired it",
            _ => "by the operator",
        };
        let when = match w["round"].as_i64() {
            Some(n) if n > 0 => format!("in round {n}"),
            _ => "before round 1".into(),
        };
        let _ = write!(
            who,
            " <span class=\"tag out\" title=\"withdrawn {when} {by}\">withdrawn</span>"
        );
    }
    if r["annulled"].as_bool() == Some(true) {
        who.push_str(" <span class=\"tag out\" title=\"withdrawn before playing half its sets: its results count for nobody (FIDE C.06 art. 5.4)\">not counted</span>");
    }
    let p = |k: &str| {
        if r[k].is_number() {
            half(&r[k])
        } else {
            num(&r[k])
        }
    };
    format!(
        "<tr data-bot=\"{}\">{}{}{}{}{}{}{}{}{}{}{}{}{}{}</tr>",
        esc(s(&r["bot"])),
        td(&num(&r["rank"]), "num"),
        td(&who, "wrapok"),
        td(&p("points"), "num"),
        td(&p("buchholz"), "num"),
        td(&p("sonneborn_berger"), "num"),
        td(&p("game_points"), "num"),
        td(&num(&r["tiebreak_moves"]), "num"),
        td(&num(&r["sets"]), "num opt"),
        td(&num(&r["w"]), "num opt"),
        td(&num(&r["d"]), "num opt"),
        td(&num(&r["l"]), "num opt"),
        td(&num(&r["byes"]), "num opt"),
        td(&perf, "num opt"),
        td(&num(&r["seed"]), "num opt"),
    )
}

/// The rounds tables' points columns: set points (what the standings add up) and game points
/// (what the set, bot and home pages show as a set's score).
const SET_POINTS_TH: &str = "<th class=\"num\" scope=\"col\"><abbr title=\"set points: 1 a set won, ½ a drawn set\">Set pts</abbr></th>";
const GAME_POINTS_TH: &str = "<th class=\"num\" scope=\"col\"><abbr title=\"game points: 1 a game won, ½ a drawn game\">Games</abbr></th>";

/// A crosstable cell for a pairing not played (yet).
const UNPLAYED: &str = "<td class=\"unplayed\" aria-label=\"not played\"></td>";

fn crosstable(ct: &Value) -> (String, String) {
    let bots = list(ct, "bots");
    if bots.is_empty() {
        return (
            String::new(),
            "<p class=\"empty\" id=\"cross-empty\">No participants.</p>".into(),
        );
    }
    let mut out = String::from("<thead><tr><th scope=\"col\">Bot</th>");
    for (i, b) in bots.iter().enumerate() {
        let _ = write!(
            out,
            "<th scope=\"col\" title=\"{}\">{}</th>",
            esc(s(b)),
            i + 1
        );
    }
    out.push_str("</tr></thead><tbody>");
    for (i, r) in list(ct, "rows").iter().enumerate() {
        let _ = write!(
            out,
            "<tr><th scope=\"row\" style=\"text-align:left\">{}. {}</th>",
            i + 1,
            bot_link(&r["bot"])
        );
        for x in list(r, "results") {
            if x.is_null() {
                out.push_str("<td class=\"self\" aria-label=\"same bot\">×</td>");
            } else if s(x).is_empty() {
                // Blank, as on the printable page: "–" reads like a forfeit's "-".
                out.push_str(UNPLAYED);
            } else {
                out.push_str(&td(&num(x), ""));
            }
        }
        out.push_str("</tr>");
    }
    out.push_str("</tbody>");
    (
        out,
        "<p class=\"empty\" id=\"cross-empty\" hidden></p>".into(),
    )
}

fn rounds(t: &Value) -> (String, String) {
    let played = list(t, "rounds_played");
    let swiss = s(&t["format"]) == "swiss";
    let mut out = String::new();
    for r in played.iter().rev() {
        let mut waits = false;
        let _ = write!(
            out,
            "<div class=\"round\"><h3>Round {}</h3><div class=\"wrap\"><table><thead><tr>\
             <th class=\"num opt\" scope=\"col\">Board</th><th scope=\"col\">Bots</th>\
             <th scope=\"col\" class=\"opt\">Status</th>{SET_POINTS_TH}{GAME_POINTS_TH}\
             <th scope=\"col\">Result</th><th scope=\"col\">Set</th></tr></thead><tbody>",
            num(&r["round"])
        );
        for p in list(r, "pairings") {
            let set = if p["set_id"].is_string() {
                set_link(s(&p["set_id"]), Some("set"))
            } else {
                "<span class=\"muted\">–</span>".into()
            };
            let waiting = list(p, "waiting_for");
            // A pairing not decided yet shows its status where its result will be (a phone has
            // no status column), and the bots it waits for.
            let result = if p["result"].is_string() {
                esc(s(&p["result"]))
            } else if waiting.is_empty() {
                esc(s(&p["status"]))
            } else {
                waits = true;
                let names: Vec<String> = waiting.iter().map(bot_link).collect();
                format!("{}: waiting for {}", esc(s(&p["status"])), names.join(", "))
            };
            let _ = write!(
                out,
                "<tr>{}<td class=\"wrapok\">{} – {}</td>{}{}{}{}<td>{set}</td></tr>",
                td(&num(&p["board"]), "num opt"),
                bot_link(&p["bots"][0]),
                bot_link(&p["bots"][1]),
                td(&esc(s(&p["status"])), "opt"),
                td(&points(&p["points"]), "num"),
                td(&points(&p["game_points"]), "num"),
                td(&result, "wrapok"),
            );
        }
        out.push_str("</tbody></table></div>");
        let mut notes = String::new();
        if r["bye"].is_string() {
            let _ = write!(
                notes,
                "<span>{}{}. </span>",
                if swiss {
                    "Bye (1 point): "
                } else {
                    "Sits out: "
                },
                bot_link(&r["bye"])
            );
        }
        let absent = list(r, "absent");
        if !absent.is_empty() {
            let names: Vec<String> = absent.iter().map(bot_link).collect();
            let _ = write!(notes, "<span>Absent: {}.</span>", names.join(", "));
        }
        if waits {
            let _ = write!(notes, "<span>{}</span>", absence_rule(t));
        }
        if !notes.is_empty() {
            let _ = write!(out, "<p class=\"hint\">{notes}</p>");
        }
        out.push_str("</div>");
    }
    let note = if played.is_empty() {
        "<p class=\"empty\" id=\"rounds-empty\">No round paired yet.</p>"
    } else {
        "<p class=\"empty\" id=\"rounds-empty\" hidden></p>"
    };
    (out, note.into())
}

/// What becomes of a pairing that waits for an offline bot, from the tournament's `absent` and
/// `forfeit_after_s` (as `GET /v1/tournaments/{id}` has them).
fn absence_rule(t: &Value) -> String {
    let online = "A set starts once both bots are online (holding their event stream or a \
                  long-poll)";
    match (s(&t["absent"]), t["forfeit_after_s"].as_i64()) {
        ("forfeit", Some(n)) => format!(
            "{online}; a bot still absent {n}\u{a0}s after the round was paired forfeits the set."
        ),
        ("forfeit", None) => format!("{online}; a bot that stays absent forfeits the set."),
        _ => format!("{online}; until then the pairing waits."),
    }
}

/// One tournament's page from its JSON view (`GET /v1/tournaments/{id}`).
pub fn tournament_page(template: &str, t: &Value) -> String {
    let id = s(&t["id"]);
    let name = if t["name"].is_string() {
        &t["name"]
    } else {
        &t["id"]
    };
    let mut title = isolated(name);
    let status = s(&t["status"]);
    if *status == TournamentStatus::Running {
        title.push_str("<span class=\"tag live\">live</span>");
    }
    let subtitle = format!(
        "{} · {}{} · round {} of {} · {} · {} · stake {}{}",
        format_name(s(&t["format"])),
        esc(status),
        starts(t).map(|d| format!(" · {d}")).unwrap_or_default(),
        t["current_round"].as_i64().unwrap_or(0),
        if t["rounds"].is_null() {
            "?".into()
        } else {
            num(&t["rounds"])
        },
        board(&t["options"]),
        clock_settings(&t["clock"]),
        stake(&t["stake"]),
        if t["rated"].as_bool() == Some(true) {
            " · rated"
        } else {
            ""
        }
    );
    let rows: Vec<String> = list(t, "standings").iter().map(standing_row).collect();
    let (rows, note) = rows_and_note("standings", &rows, "No standings yet.");
    let (cross, cross_note) = crosstable(&t["crosstable"]);
    let (rounds_html, rounds_note) = rounds(t);
    let live = !TournamentStatus::is_in(
        status,
        &[TournamentStatus::Finished, TournamentStatus::Cancelled],
    );
    fill(
        template,
        &[
            ("page-title", format!("{} – Hex arena", esc(s(name)))),
            ("title", title),
            ("subtitle", subtitle),
            ("standings", rows),
            ("standings-empty", note),
            ("cross", cross),
            ("cross-empty", cross_note),
            ("rounds", rounds_html),
            ("rounds-empty", rounds_note),
            ("api", format!("/v1/tournaments/{}", pct(id))),
            ("page", format!("/tournaments/{}", pct(id))),
            (
                "footer",
                if live {
                    "Updates live".into()
                } else {
                    "Final".into()
                },
            ),
        ],
    )
}
