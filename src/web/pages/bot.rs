//! One bot's page: its record, rating chart, opponents and sets.

use std::fmt::Write as _;

use serde_json::Value;

use super::game::pts;
use super::home::list;
use super::home::{practice_tag, tournament_tag};
use crate::web::html::{
    bot_link, esc, fill, half, isolated, num, pairing, pct, points, round, rows_and_note, s,
    set_link, signed, stake, td, time, utc_minute, when,
};

fn stat(label: &str, value: &str, class: &str) -> String {
    let class = if class.is_empty() {
        String::new()
    } else {
        format!(" class=\"{class}\"")
    };
    format!("<div><dt>{label}</dt><dd{class}>{value}</dd></div>")
}

/// The rating after each rated set, from the rating before the first, as an SVG line chart
/// 640 units wide (the page's script redraws it at the width of the screen).
pub fn rating_chart(history: &[Value]) -> String {
    let mut values: Vec<f64> = vec![];
    if let Some(first) = history.first() {
        values.push(first["rating_before"].as_f64().unwrap_or(0.0));
    }
    values.extend(
        history
            .iter()
            .map(|h| h["rating_after"].as_f64().unwrap_or(0.0)),
    );
    if values.is_empty() {
        return String::new();
    }
    let (w, h, l, r, t, b) = (640.0, 240.0, 52.0, 12.0, 14.0, 30.0);
    let mut lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let mut hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if hi - lo < 20.0 {
        lo -= 10.0;
        hi += 10.0;
    }
    let count = values.len();
    let x = |i: usize| {
        if count == 1 {
            l
        } else {
            l + (w - l - r) * i as f64 / (count - 1) as f64
        }
    };
    let y = |v: f64| t + (h - t - b) * (hi - v) / (hi - lo);
    let first = values[0].round();
    let last = values[count - 1].round();
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" role=\"img\" class=\"rating-chart\" \
         aria-label=\"Rating over {} rated sets: from {first} to {last}, lowest {}, highest {}\">\
         <rect x=\"{l}\" y=\"{t}\" width=\"{}\" height=\"{}\" fill=\"#fbfbf9\" stroke=\"#dcdfe3\"/>",
        history.len(),
        lo.round(),
        hi.round(),
        w - l - r,
        h - t - b
    );
    for v in [hi, (hi + lo) / 2.0, lo] {
        let (x2, yv, tx) = (w - r, y(v), l - 6.0);
        let _ = write!(
            out,
            "<line x1=\"{l}\" x2=\"{x2}\" y1=\"{yv:.1}\" y2=\"{yv:.1}\" stroke=\"#e3e6ea\"/>\
             <text x=\"{tx}\" y=\"{:.1}\" text-anchor=\"end\" font-size=\"12\" fill=\"#454d57\">{}</text>",
            yv + 4.0,
            v.round()
        );
    }
    let sets = history.len();
    let _ = write!(
        out,
        "<text x=\"{l}\" y=\"{}\" font-size=\"12\" fill=\"#454d57\">start</text>\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\" font-size=\"12\" fill=\"#454d57\">after {sets} set{}</text>",
        h - 8.0,
        w - r,
        h - 8.0,
        if sets == 1 { "" } else { "s" }
    );
    let line: Vec<(f64, f64)> = values
        .iter()
        .enumerate()
        .map(|(i, v)| (x(i), y(*v)))
        .collect();
    let _ = write!(
        out,
        "<polyline points=\"{}\" fill=\"none\" stroke=\"#235d87\" stroke-width=\"2.5\" stroke-linejoin=\"round\" class=\"rating-line\"/>",
        pts(&line)
    );
    for (i, v) in values.iter().enumerate() {
        let title = if i == 0 {
            format!("start: {}", v.round())
        } else {
            let hh = &history[i - 1];
            let delta = (v - hh["rating_before"].as_f64().unwrap_or(*v)).round();
            let mut t = format!(
                "{} ({}{delta}) after set {}",
                v.round(),
                if delta > 0.0 { "+" } else { "" },
                esc(s(&hh["set_id"]))
            );
            if hh["opponent"].is_string() {
                let _ = write!(
                    t,
                    ": {} against {}",
                    esc(s(&hh["result"])),
                    esc(s(&hh["opponent"]))
                );
            }
            t
        };
        let _ = write!(
            out,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3.5\" fill=\"#235d87\"><title>{title}</title></circle>",
            x(i),
            y(*v)
        );
    }
    out.push_str("</svg>");
    out
}

fn versus_row(v: &Value) -> String {
    let elo = if v["elo_diff"].is_null() {
        "–".into()
    } else {
        signed(&serde_json::json!(
            v["elo_diff"].as_f64().unwrap_or(0.0).round() as i64
        ))
    };
    let bound = |x: &Value, inf: &str| {
        x.as_f64().map_or_else(
            || inf.to_string(),
            |f| signed(&serde_json::json!(f.round() as i64)),
        )
    };
    // `games` is a float (`2.0`, the sum of both sides' game points): `as_i64` never read it.
    let range = if v["games"].as_f64().unwrap_or(0.0) > 0.0 {
        format!(
            " ({} to {})",
            bound(&v["elo_low"], "−∞"),
            bound(&v["elo_high"], "+∞")
        )
    } else {
        String::new()
    };
    let los = v["los"]
        .as_f64()
        .map_or_else(|| "–".into(), |l| format!("{}%", (l * 100.0).round()));
    format!(
        "<tr><td>{}</td>{}{}{}{}{}</tr>",
        bot_link(&v["opponent"]),
        td(&num(&v["sets"]), "num"),
        td(
            &format!("{}–{}–{}", num(&v["w"]), num(&v["d"]), num(&v["l"])),
            "num"
        ),
        td(
            &format!(
                "{}–{}",
                half(&v["game_points"]),
                half(&v["opponent_game_points"])
            ),
            "num opt"
        ),
        // A phone shows the interval too, on a line of its own under the difference: the
        // header promises it.
        td(
            &if range.is_empty() {
                elo
            } else {
                format!("{elo}<span class=\"ci\">{range}</span>")
            },
            "num"
        ),
        td(&los, "num"),
    )
}

fn bot_set_row(row: &Value) -> String {
    let id = s(&row["id"]);
    let acceptor = if row["acceptor"].is_string() {
        row["acceptor"].clone()
    } else {
        Value::from("(open)")
    };
    let mut cell = format!(
        "{}{}",
        pairing(id, &row["creator"], &acceptor),
        practice_tag(row)
    );
    cell.push_str(&tournament_tag(row));
    if row["match"].is_object() {
        cell.push_str(" <span class=\"tag\">match</span>");
    }
    let status = match s(&row["status"]) {
        "finished" => {
            if row["result"].is_string() {
                esc(s(&row["result"]))
            } else if row["winner"].is_string() {
                format!("{} wins", esc(s(&row["winner"])))
            } else {
                "draw".into()
            }
        }
        other => esc(other),
    };
    let at = ["finished_at", "started_at", "created_at"]
        .iter()
        .map(|k| &row[*k])
        .find(|v| v.is_string())
        .unwrap_or(&Value::Null);
    format!(
        "<tr>{}{}{}{}{}</tr>",
        td(&cell, "wrapok"),
        td(&points(&row["points"]), "num"),
        td(&status, "wrapok"),
        td(&stake(&row["stake"]), "num opt"),
        td(&time(at), "")
    )
}

/// The bot page from its profile (`GET /v1/bots/{name}`), rating history, recent sets and
/// head-to-head rows.
pub fn bot_page(
    template: &str,
    b: &Value,
    ratings: &Value,
    sets: &Value,
    versus: &[Value],
) -> String {
    let name = esc(s(&b["name"]));
    let mut title = name.clone();
    if b["house"].as_bool() == Some(true) {
        title.push_str("<span class=\"tag\">house bot</span>");
    }
    if b["retired"].as_bool() == Some(true) {
        title.push_str("<span class=\"tag\">retired</span>");
    }
    let owner = if b["owner_name"].is_string() {
        &b["owner_name"]
    } else {
        &b["owner"]
    };
    let online = b["online"].as_bool() == Some(true);
    // "registered", not "since": it is the creation date, not how long it is online (#24).
    let mut sub = format!(
        "Owner <strong class=\"owner\">{}</strong> · <span class=\"{}\" id=\"online\">{}</span> · registered {}",
        isolated(owner),
        if online { "online" } else { "offline" },
        if online { "● online" } else { "○ offline" },
        utc_minute(&b["created_at"]).unwrap_or_else(|| "–".into())
    );
    if b["retired"].as_bool() == Some(true) {
        let _ = write!(
            sub,
            " · retired {} (plays no new sets)",
            utc_minute(&b["retired_at"]).unwrap_or_else(|| "–".into())
        );
    }
    let a = &b["accepts"];
    if a.is_object() {
        let range = |x: &Value| match (x[0].as_i64(), x[1].as_i64()) {
            (Some(p), Some(q)) if p == q => p.to_string(),
            (Some(p), Some(q)) => format!("{p}–{q}"),
            _ => "–".into(),
        };
        let _ = write!(
            sub,
            "<br>Accepts boards {}, {} opening stones, clock {} s + {} s, stake {}",
            range(&a["sizes"]),
            range(&a["random_stones"]),
            range(&a["initial_s"]),
            range(&a["increment_s"]),
            range(&a["stake"])
        );
        if let Some(m) = b["max_concurrent_sets"].as_i64() {
            let _ = write!(sub, "; at most {m} sets at once");
        }
    }
    let l = &b["ladder"];
    if l.is_object() {
        let _ = write!(
            sub,
            "<br>Rung {} of {} of the house ladder: {}",
            num(&l["rung"]),
            num(&l["rungs"]),
            esc(s(&l["summary"]))
        );
    }
    let glicko = if b["glicko_rating"].is_null() {
        "–".into()
    } else {
        format!(
            "{} ± {}{}",
            round(&b["glicko_rating"]),
            round(&b["rating_deviation"]),
            if b["provisional"].as_bool() == Some(true) {
                "<small>provisional</small>"
            } else {
                ""
            }
        )
    };
    let net = b["net"].as_f64().unwrap_or(0.0);
    let refused = if b["refused_moves"].is_null() {
        "0".into()
    } else {
        num(&b["refused_moves"])
    };
    let rank = if b["rank"].is_null() {
        "–".into()
    } else {
        num(&b["rank"])
    };
    let stats = [
        stat("Rating", &num(&b["rating"]), "rating"),
        // Two tiles wide: "1200 ± 350" overflowed one (report #11).
        // "±" is one deviation, not a 95% range (a bot author read it as one).
        format!(
            "<div class=\"wide\"><dt><abbr title=\"one deviation either side; the 95% range \
             is two\">Glicko-2 ± deviation</abbr></dt><dd>{glicko}</dd></div>"
        ),
        stat("Rank", &rank, ""),
        stat("Sets", &num(&b["sets"]), ""),
        stat("Wins", &num(&b["w"]), ""),
        stat("Draws", &num(&b["d"]), ""),
        stat("Losses", &num(&b["l"]), ""),
        stat("Won (PTS)", &num(&b["won"]), ""),
        stat(
            "Net (PTS)",
            &signed(&b["net"]),
            if net > 0.0 {
                "pos"
            } else if net < 0.0 {
                "neg"
            } else {
                ""
            },
        ),
        stat("Max stake", &num(&b["max_stake"]), ""),
        stat("Refused moves", &refused, ""),
    ]
    .concat();
    let mut strikes = String::new();
    for st in list(b, "strikes") {
        let id = s(&st["set_id"]);
        let tail: String = id
            .chars()
            .rev()
            .take(8)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        let _ = write!(
            strikes,
            "<li>{} game {}: {} – expires {}</li>",
            set_link(id, Some(&format!("set {}", esc(&tail)))),
            num(&st["game_no"]),
            when(&st["at"]),
            when(&st["expires_at"])
        );
    }
    let mut strikes_empty = strikes.is_empty();
    if b["suspended_until"].is_string() {
        let _ = write!(
            strikes,
            "<li class=\"err\">Suspended until {}</li>",
            when(&b["suspended_until"])
        );
        strikes_empty = false;
    }
    let history = list(ratings, "history");
    let chart = rating_chart(history);
    let chart_note = if history.is_empty() {
        "<p class=\"empty\" id=\"chart-empty\">No rated sets yet.</p>"
    } else {
        "<p class=\"empty\" id=\"chart-empty\" hidden></p>"
    };
    let (versus_rows, versus_note) = rows_and_note(
        "versus",
        &versus.iter().map(versus_row).collect::<Vec<_>>(),
        "No finished sets yet.",
    );
    let (set_rows, sets_note) = rows_and_note(
        "sets",
        &list(sets, "sets")
            .iter()
            .map(bot_set_row)
            .collect::<Vec<_>>(),
        "No sets yet.",
    );
    fill(
        template,
        &[
            ("page-title", format!("{name} – Hex arena")),
            ("title", title),
            ("subtitle", sub),
            ("stats", stats),
            ("strikes", strikes),
            (
                "strikes-empty",
                if strikes_empty {
                    "<p class=\"empty\" id=\"strikes-empty\">No strikes.</p>".into()
                } else {
                    "<p class=\"empty\" id=\"strikes-empty\" hidden></p>".into()
                },
            ),
            ("chart", chart),
            ("chart-empty", chart_note.into()),
            ("versus", versus_rows),
            ("versus-empty", versus_note),
            ("sets", set_rows),
            ("sets-empty", sets_note),
            ("api", format!("/v1/bots/{}", pct(s(&b["name"])))),
        ],
    )
}
