//! The printable standings of a tournament (issue 18), rendered on the server from the
//! tournament's JSON (`GET /v1/tournaments/{id}`): one HTML page with no script and no live
//! stream, for a printer, a PDF or a projector. Standings with every tiebreak, withdrawn and
//! annulled marks and refused-move counts, the crosstable, and each round's results. While
//! the tournament runs the page asks the browser to reload it every [`REFRESH_S`] seconds.

use std::fmt::Write as _;

use crate::arena::status::TournamentStatus;
use serde_json::Value;

/// Seconds between reloads of the page while the tournament is under way.
pub const REFRESH_S: u32 = 30;

/// Text made safe for HTML content and attribute values.
pub(crate) fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A name users chose: escaped and isolated, so right-to-left text cannot reorder the row; a
/// long one may break after `_` or `-` on a narrow screen rather than anywhere.
fn name(v: &Value) -> String {
    let mut out = String::from("<bdi>");
    for c in v.as_str().unwrap_or("?").chars() {
        out.push_str(&esc(c.encode_utf8(&mut [0; 4])));
        if c == '_' || c == '-' {
            out.push_str("<wbr>");
        }
    }
    out.push_str("</bdi>");
    out
}

/// An RFC 3339 time as printed: `2026-12-01 18:00 UTC`.
fn when(v: &Value) -> Option<String> {
    let s = v.as_str()?;
    Some(match (s.get(..10), s.get(11..16)) {
        (Some(d), Some(t)) if s.ends_with('Z') => format!("{d} {t} UTC"),
        _ => esc(s),
    })
}

/// A point count: `3½`, `½`, `2`; `–` when absent.
pub(crate) fn half(v: &Value) -> String {
    let Some(x) = v.as_f64() else {
        return "–".into();
    };
    let whole = x.trunc();
    if (x - whole).abs() == 0.5 {
        if whole == 0.0 {
            "½".into()
        } else {
            format!("{whole}½")
        }
    } else {
        format!("{x}")
    }
}

fn int(v: &Value) -> String {
    v.as_i64().map_or_else(|| "–".into(), |n| n.to_string())
}

const FORMATS: [(&str, &str); 3] = [
    ("round_robin", "Round robin"),
    ("swiss", "Swiss"),
    ("gauntlet", "Gauntlet"),
];

/// Who withdrew a bot and when, as a footnote says it.
fn withdrawn_note(w: &Value) -> String {
    let round = w["round"].as_i64().unwrap_or(0);
    let when = if round == 0 {
        "before round 1".to_string()
    } else {
        format!("in round {round}")
    };
    match w["by"].as_str() {
        Some("absence") => {
            format!("withdrawn {when} by the arena after repeated forfeits by absence")
        }
        Some("retired") => format!("withdrawn {when}: its owner retired it"),
        _ => format!("withdrawn {when} by the operator"),
    }
}

const STYLE: &str = r#"
:root { --ink: #111; --muted: #4a525c; --line: #b8bec6; --head: #eef0f3; --accent: #1f4f75; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1100px; padding: 16px 20px 28px; background: #fff; color: var(--ink);
  font: 15px/1.4 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 24px; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 18px; margin: 22px 0 8px; }
h3 { font-size: 15px; margin: 12px 0 4px; }
p { margin: 4px 0; }
.meta { color: var(--muted); }
a { color: var(--accent); }
bdi { unicode-bidi: isolate; }
.wrap { overflow-x: auto; }
table { border-collapse: collapse; font-size: 14px; }
th, td { border: 1px solid var(--line); padding: 4px 7px; text-align: left; white-space: nowrap; }
thead th { background: var(--head); font-size: 12.5px; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
td.c, th.c { text-align: center; }
td.self { background: var(--head); }
td.bot { white-space: normal; overflow-wrap: anywhere; min-width: 8em; }
tr.out td { color: var(--muted); }
.mark { font-size: 12px; font-weight: 600; color: #7c1d25; white-space: nowrap; }
.mark sup { font-size: 10px; }
.short, .phone { display: none; }
ol.notes, ul.rounds { margin: 6px 0; padding-left: 22px; }
ul.rounds li { margin: 2px 0; }
.legend { font-size: 13px; color: var(--muted); }
footer { margin-top: 22px; font-size: 12px; color: var(--muted); }
@media (max-width: 640px) {
  body { padding: 10px 8px 20px; font-size: 14px; }
  h1 { font-size: 20px; }
  table { font-size: 12.5px; }
  th, td { padding: 3px 4px; }
  .o, .long { display: none; }
  .short { display: inline; }
  p.phone { display: block; }
  td.bot { min-width: 6em; }
}
@media print {
  body { max-width: none; padding: 0; font-size: 10.5pt; }
  .noprint, p.phone { display: none; }
  .o { display: table-cell; }
  .long { display: inline; }
  .short { display: none; }
  tr.out td, .mark { color: #000; }
  .wrap { overflow: visible; }
  a { color: inherit; text-decoration: none; }
  table { font-size: 9pt; }
  th, td { padding: 2px 4px; }
  thead { display: table-header-group; }
  tr, li { break-inside: avoid; }
  h2 { break-after: avoid; }
  @page { margin: 12mm; }
}
"#;

/// The page for tournament `t` (its JSON view) as of `now` (RFC 3339, printed in the footer).
#[must_use]
pub fn render(t: &Value, now: &str) -> String {
    let mut h = String::with_capacity(16 * 1024);
    let id = t["id"].as_str().unwrap_or_default();
    let title = t["name"].as_str().unwrap_or(id);
    let status = t["status"].as_str().unwrap_or("?");
    let live = TournamentStatus::is_in(
        status,
        &[
            TournamentStatus::Created,
            TournamentStatus::Running,
            TournamentStatus::Paused,
        ],
    );
    let format = t["format"].as_str().unwrap_or("?");
    let format_name = FORMATS
        .iter()
        .find(|(k, _)| *k == format)
        .map_or(format, |(_, v)| v);
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    );
    if live {
        let _ = writeln!(h, "<meta http-equiv=\"refresh\" content=\"{REFRESH_S}\">");
    }
    let _ = write!(
        h,
        "<title>{} – standings – Hex arena</title>\n\
         <link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">\n\
         <style>{STYLE}</style>\n</head>\n<body>\n<header>\n<h1><bdi>{}</bdi></h1>\n",
        esc(title),
        esc(title)
    );
    let size = t["options"]["size"].as_i64().unwrap_or(11);
    let stones = t["options"]["random_stones"].as_i64().unwrap_or(0);
    let stake = t["stake"].as_i64().unwrap_or(0);
    let _ = writeln!(
        h,
        "<p class=\"meta\">{format_name} · {} · round {} of {} · {size}×{size}, {} · clock {} s + {} s \
         · {}{}</p>",
        esc(status),
        int(&t["current_round"]),
        int(&t["rounds"]),
        if stones == 0 {
            "swap".to_string()
        } else {
            format!("{stones} random stones")
        },
        int(&t["clock"]["initial_s"]),
        int(&t["clock"]["increment_s"]),
        if stake == 0 {
            "unstaked".to_string()
        } else {
            format!("stake {stake} PTS")
        },
        if t["rated"] == Value::Bool(true) {
            " · rated"
        } else {
            ""
        },
    );
    let dates: Vec<String> = [
        ("starts", "start_at"),
        ("started", "started_at"),
        ("finished", "finished_at"),
    ]
    .iter()
    .filter(|(label, _)| *label != "starts" || t["started_at"].is_null())
    .filter_map(|(label, k)| when(&t[*k]).map(|d| format!("{label} {d}")))
    .collect();
    if !dates.is_empty() {
        let _ = writeln!(h, "<p class=\"meta\">{}</p>", dates.join(" · "));
    }
    let enc = id.replace(|c: char| !c.is_ascii_alphanumeric() && c != '_', "");
    let _ = writeln!(
        h,
        "<p class=\"noprint\"><a href=\"/tournaments/{enc}\">Live page</a> · \
         <a href=\"/v1/tournaments/{enc}/standings.csv\">Standings CSV</a> · \
         <a href=\"/v1/tournaments/{enc}/crosstable.csv\">Crosstable CSV</a> · \
         <a href=\"/v1/tournaments/{enc}/games.sgf\">All games (SGF)</a></p>\n</header>"
    );
    standings_table(&mut h, t);
    crosstable(&mut h, t);
    rounds(&mut h, t);
    let _ = writeln!(
        h,
        "<footer>Hex arena · tournament {} · as of {}{}</footer>\n</body>\n</html>",
        esc(id),
        when(&Value::String(now.to_string())).unwrap_or_default(),
        if live {
            format!(" · this page reloads every {REFRESH_S} s while the tournament is under way")
        } else {
            String::new()
        }
    );
    h
}

fn standings_table(h: &mut String, t: &Value) {
    let rows = t["standings"].as_array().cloned().unwrap_or_default();
    h.push_str("<section>\n<h2>Standings</h2>\n");
    if rows.is_empty() {
        h.push_str("<p class=\"meta\">No participants.</p>\n</section>\n");
        return;
    }
    // `o`: columns a phone leaves out (the printout and a wide screen have them all).
    h.push_str(
        "<div class=\"wrap\"><table>\n<thead><tr><th class=\"n\">#</th><th>Bot</th>\
         <th class=\"n\" title=\"set points\">Pts</th>\
         <th class=\"n\"><span class=\"long\">Buchholz</span><span class=\"short\">Buch</span></th>\
         <th class=\"n\" title=\"Sonneborn-Berger\">SB</th><th class=\"n\" title=\"game points\">Games</th>\
         <th class=\"n\" title=\"own moves in games not lost (fewer is better)\">Moves</th>\
         <th class=\"n o\">Sets</th><th class=\"n o\">W</th><th class=\"n o\">D</th><th class=\"n o\">L</th>\
         <th class=\"n o\">Byes</th><th class=\"n o\" title=\"performance rating\">Perf</th>\
         <th class=\"n\" title=\"move attempts refused (illegal, out of turn, stale ply)\">\
         <span class=\"long\">Refused</span><span class=\"short\">Ref</span></th>\
         <th class=\"n o\">Seed</th></tr></thead>\n<tbody>\n",
    );
    let mut notes: Vec<String> = vec![];
    for r in &rows {
        let mut marks = String::new();
        if !r["withdrawn"].is_null() {
            notes.push(format!(
                "{}: {}.",
                name(&r["bot"]),
                withdrawn_note(&r["withdrawn"])
            ));
            let _ = write!(
                marks,
                " <span class=\"mark\">withdrawn<sup>{}</sup></span>",
                notes.len()
            );
        }
        if r["annulled"] == Value::Bool(true) {
            notes.push(format!(
                "{}: withdrawn before playing half its sets, so its results count in nobody \
                 else's row and it ranks last (FIDE Tournament Rules C.06 art. 5.4); the \
                 crosstable keeps them.",
                name(&r["bot"])
            ));
            let _ = write!(
                marks,
                " <span class=\"mark\">not counted<sup>{}</sup></span>",
                notes.len()
            );
        }
        let perf = match (r["performance"].as_i64(), r["performance_error"].as_i64()) {
            (None, _) => "–".to_string(),
            (Some(p), Some(e)) => format!("{p} ± {e}"),
            (Some(p), None) => p.to_string(),
        };
        let _ = writeln!(
            h,
            "<tr{}><td class=\"n\">{}</td><td class=\"bot\">{}{marks}</td><td class=\"n\"><b>{}</b></td>\
             <td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td>\
             <td class=\"n o\">{}</td><td class=\"n o\">{}</td><td class=\"n o\">{}</td><td class=\"n o\">{}</td>\
             <td class=\"n o\">{}</td><td class=\"n o\">{perf}</td><td class=\"n\">{}</td><td class=\"n o\">{}</td></tr>",
            if r["withdrawn"].is_null() {
                ""
            } else {
                " class=\"out\""
            },
            int(&r["rank"]),
            name(&r["bot"]),
            half(&r["points"]),
            half(&r["buchholz"]),
            half(&r["sonneborn_berger"]),
            half(&r["game_points"]),
            int(&r["tiebreak_moves"]),
            int(&r["sets"]),
            int(&r["w"]),
            int(&r["d"]),
            int(&r["l"]),
            int(&r["byes"]),
            int(&r["refused_moves"]),
            int(&r["seed"]),
        );
    }
    h.push_str(
        "</tbody>\n</table></div>\n<p class=\"legend phone\">On a narrow screen sets, W/D/L, byes, \
         performance and seed are left out; turn the phone or print the page for them.</p>\n",
    );
    if !notes.is_empty() {
        h.push_str("<ol class=\"notes legend\">\n");
        for n in &notes {
            let _ = writeln!(h, "<li>{n}</li>");
        }
        h.push_str("</ol>\n");
    }
    h.push_str(
        "<p class=\"legend\">Ranked by points, then Buchholz, Sonneborn-Berger, game points, fewer \
         own moves in games not lost, seed. A forfeit or bye counts in the tiebreaks as FIDE's \
         rules for unplayed rounds say (C.07 art. 16).</p>\n<p class=\"legend\" id=\"perf-legend\">\
         Perf is the rating the bot's games here imply (forfeits and byes left out): its \
         opponents' mean rating when the tournament was created plus the Elo difference of its \
         game score; – while it has won or lost every game. The ± is the 95% interval, shown \
         only once that interval stays clear of a 0 or 100% score.</p>\n</section>\n",
    );
}

fn crosstable(h: &mut String, t: &Value) {
    let bots = t["crosstable"]["bots"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if bots.is_empty() {
        return;
    }
    h.push_str(
        "<section>\n<h2>Crosstable</h2>\n<div class=\"wrap\"><table>\n<thead><tr><th>Bot</th>",
    );
    for (i, b) in bots.iter().enumerate() {
        let _ = write!(
            h,
            "<th class=\"c\" title=\"{}\">{}</th>",
            esc(b.as_str().unwrap_or("")),
            i + 1
        );
    }
    h.push_str("</tr></thead>\n<tbody>\n");
    for (i, r) in t["crosstable"]["rows"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        let _ = write!(
            h,
            "<tr><td class=\"bot\">{}. {}</td>",
            i + 1,
            name(&r["bot"])
        );
        for x in r["results"].as_array().into_iter().flatten() {
            match x.as_str() {
                None => h.push_str("<td class=\"c self\">×</td>"),
                Some(s) => {
                    let _ = write!(h, "<td class=\"c\">{}</td>", esc(s));
                }
            }
        }
        h.push_str("</tr>\n");
    }
    h.push_str(
        "</tbody>\n</table></div>\n<p class=\"legend\">Row against column: 1 win, ½ draw, 0 loss; \
         + / - a forfeit won / lost; blank: not played (yet).</p>\n</section>\n",
    );
}

fn rounds(h: &mut String, t: &Value) {
    let rounds = t["rounds_played"].as_array().cloned().unwrap_or_default();
    if rounds.is_empty() {
        return;
    }
    let swiss = t["format"] == "swiss";
    h.push_str("<section>\n<h2>Rounds</h2>\n");
    for r in &rounds {
        let _ = writeln!(
            h,
            "<h3>Round {}</h3>\n<ul class=\"rounds\">",
            int(&r["round"])
        );
        for p in r["pairings"].as_array().into_iter().flatten() {
            let pts = match p["points"].as_array() {
                Some(a) if a.len() == 2 => format!("{}–{}", half(&a[0]), half(&a[1])),
                _ => esc(p["status"].as_str().unwrap_or("")),
            };
            let result = p["result"]
                .as_str()
                .map(|s| format!(" ({})", esc(s)))
                .unwrap_or_default();
            let _ = writeln!(
                h,
                "<li>{}. {} – {}: <b>{pts}</b>{result}</li>",
                int(&p["board"]),
                name(&p["bots"][0]),
                name(&p["bots"][1]),
            );
        }
        if !r["bye"].is_null() {
            let _ = writeln!(
                h,
                "<li>{}: {}</li>",
                if swiss { "Bye (1 point)" } else { "Sits out" },
                name(&r["bye"])
            );
        }
        let absent: Vec<String> = r["absent"]
            .as_array()
            .into_iter()
            .flatten()
            .map(name)
            .collect();
        if !absent.is_empty() {
            let _ = writeln!(h, "<li>Absent when paired: {}</li>", absent.join(", "));
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_escaped_and_withdrawn_and_annulled_bots_are_footnoted() {
        let t = json!({
            "id": "tour_X", "name": "<Spring> & \"co\"", "format": "round_robin",
            "status": "finished", "current_round": 3, "rounds": 3,
            "options": {"size": 9, "random_stones": 0}, "clock": {"initial_s": 60, "increment_s": 2},
            "stake": 0, "rated": false, "finished_at": "2026-01-01T00:00:00Z",
            "standings": [
                {"rank": 1, "bot": "A<b>", "points": 2.5, "buchholz": 1.0, "sonneborn_berger": 6.5,
                 "game_points": 5.0, "tiebreak_moves": 12, "sets": 3, "w": 2, "d": 1, "l": 0,
                 "byes": 0, "performance": 1400, "performance_error": 200, "refused_moves": 3,
                 "seed": 1, "withdrawn": null, "annulled": false},
                {"rank": 2, "bot": "Gone", "points": 0.5, "buchholz": 0.0, "sonneborn_berger": 0.0,
                 "game_points": 1.0, "tiebreak_moves": 4, "sets": 1, "w": 0, "d": 1, "l": 0,
                 "byes": 0, "performance": null, "performance_error": null, "refused_moves": 0,
                 "seed": 2, "withdrawn": {"round": 1, "at": "x", "by": "absence"}, "annulled": true}
            ],
            "crosstable": {"bots": ["A<b>", "Gone"], "rows": [
                {"bot": "A<b>", "results": [null, "½"]}, {"bot": "Gone", "results": ["½", null]}]},
            "rounds_played": [{"round": 1, "bye": null, "absent": [], "pairings": [
                {"board": 1, "bots": ["A<b>", "Gone"], "points": [0.5, 0.5], "status": "finished",
                 "result": "draw"}]}]
        });
        let page = render(&t, "2026-01-02T00:00:00Z");
        assert!(page.contains("<h1><bdi>&lt;Spring&gt; &amp; &quot;co&quot;</bdi></h1>"));
        assert!(!page.contains("A<b>"), "a name is never markup");
        assert!(page.contains("<bdi>A&lt;b&gt;</bdi>"));
        assert!(page.contains("finished 2026-01-01 00:00 UTC"));
        assert!(page.contains("<td class=\"n\"><b>2½</b></td>"));
        assert!(page.contains("<td class=\"n\">6½</td>"), "SB as ½ too");
        assert!(page.contains("blank: not played"));
        assert!(page.contains("withdrawn<sup>1</sup>") && page.contains("not counted<sup>2</sup>"));
        assert!(
            page.contains("withdrawn in round 1 by the arena after repeated forfeits by absence")
        );
        assert!(page.contains("C.06 art. 5.4"));
        assert!(page.contains("<b>½–½</b> (draw)"));
        assert!(page.contains("1400 ± 200"));
        assert!(
            !page.contains("http-equiv=\"refresh\""),
            "a finished tournament stays put"
        );
        assert!(!page.contains("<script"), "no script: it prints as served");
    }

    #[test]
    fn a_running_tournament_reloads_itself_and_half_points_print_as_fractions() {
        let t = json!({"id": "tour_Y", "name": "Y", "status": "running", "format": "swiss"});
        assert!(render(&t, "now").contains("<meta http-equiv=\"refresh\" content=\"30\">"));
        assert_eq!(half(&json!(0.5)), "½");
        assert_eq!(half(&json!(3.5)), "3½");
        assert_eq!(half(&json!(2.0)), "2");
        assert_eq!(half(&Value::Null), "–");
        assert_eq!(
            name(&json!("Foxtrot_never-came")),
            "<bdi>Foxtrot_<wbr>never-<wbr>came</bdi>"
        );
    }
}
