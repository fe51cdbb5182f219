//! One game's section of a set page: the board as SVG, clocks, status and move list.

use std::f64::consts::PI;
use std::fmt::Write as _;

use serde_json::Value;

use super::{BLUE, EMPTY_CELL, RED};
use crate::web::html::{bot_link, esc, isolated, num, pct, s};

/// A seat's colour as drawn.
fn seat_color(st: &Value, seat: u64) -> &'static str {
    let named = st["seats"][usize::try_from(seat).unwrap_or(1).saturating_sub(1)]["color"].as_str();
    match named {
        Some("red") => RED,
        Some("blue") => BLUE,
        _ if seat == 1 => RED,
        _ => BLUE,
    }
}

/// A cell's `a1` name from `[row, col]`.
fn cell_name(cell: &Value) -> String {
    let r = cell[0].as_u64().unwrap_or(0);
    let c = cell[1].as_u64().unwrap_or(0);
    let letter = char::from_u32(97 + u32::try_from(c).unwrap_or(0)).unwrap_or('?');
    format!("{letter}{}", r + 1)
}

fn fmt_clock(ms: f64) -> String {
    let s = ms.max(0.0) / 1000.0;
    if s < 10.0 {
        format!("{s:.1} s")
    } else {
        let m = (s / 60.0).floor();
        format!("{m}:{:02}", (s % 60.0).floor() as i64)
    }
}

const REASONS: [(&str, &str); 5] = [
    ("connection", "connection"),
    ("resignation", "resignation"),
    ("timeout", "time"),
    ("first_move_timeout", "first-move timeout"),
    ("move_cap", "move cap (draw)"),
];

fn reason(v: &Value) -> String {
    let r = s(v);
    REASONS
        .iter()
        .find(|(k, _)| *k == r)
        .map_or_else(|| esc(r), |(_, t)| (*t).to_string())
}

/// The status line of a game's latest position.
fn game_status(st: &Value) -> String {
    let bot = |seat: u64| -> String {
        let b = &st["seats"][usize::try_from(seat).unwrap_or(1).saturating_sub(1)]["bot"];
        b.as_str().map_or_else(
            || format!("seat {seat}"),
            |n| format!("<bdi>{}</bdi>", esc(n)),
        )
    };
    match s(&st["status"]) {
        "pending" => "Waiting for game 1 to finish.".into(),
        "active" => {
            let to_move = st["to_move"].as_u64().unwrap_or(1);
            format!(
                "In play – ply {}, {} to move.",
                num(&st["ply"]),
                bot(to_move)
            )
        }
        _ => {
            let r = &st["result"];
            if !r.is_object() {
                return "Finished.".into();
            }
            let mut out = if let Some(w) = r["winner"].as_u64() {
                let who = r["winner_bot"]
                    .as_str()
                    .map_or_else(|| format!("Seat {w}"), |n| format!("<bdi>{}</bdi>", esc(n)));
                if r["forfeit"].as_bool() == Some(true) {
                    format!(
                        "{who} wins by forfeit: the other bot was withdrawn from the tournament."
                    )
                } else {
                    format!("{who} wins by {}.", reason(&r["reason"]))
                }
            } else {
                let why = if r["reason"].is_string() {
                    reason(&r["reason"])
                } else {
                    "no winner".into()
                };
                format!("Draw ({why}).")
            };
            if r["offline"].as_bool() == Some(true) {
                out.push_str(" The loser had gone away (no event stream or long-poll for 60 s).");
            }
            out
        }
    }
}

/// The cell changed by the last move (for a swap, the swapped stone), or the last opening
/// stone before any move.
fn last_cell(st: &Value) -> Option<Value> {
    let moves = st["moves"].as_array()?;
    for m in moves.iter().rev() {
        if m["cell"].is_array() {
            return Some(m["cell"].clone());
        }
        if m["swap"].as_bool() != Some(true) {
            return None;
        }
    }
    if moves.is_empty() {
        return st["opening"].as_array()?.last().cloned();
    }
    None
}

pub(super) fn pts(list: &[(f64, f64)]) -> String {
    list.iter()
        .map(|(x, y)| format!("{x:.1},{y:.1}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The board of a game's latest position as SVG: a rhombus of pointy-top hexagons (row `r`
/// shifted right by `r/2` cells), the edges in their seats' colours, the stones (opening
/// stones ringed), the winning path, the last stone, and the coordinates on all four sides.
/// The same drawing as the set page's script, which redraws it during a replay.
pub fn board_svg(st: &Value) -> String {
    let n = st["board"]["size"].as_u64().unwrap_or(11).clamp(1, 26) as usize;
    let nf = n as f64;
    let r_ = 20.0_f64;
    let w = 3.0_f64.sqrt() * r_;
    let font = (nf * 1.65).round().max(18.0);
    let pad = (font * 1.9).round();
    let gap = r_ * 0.35 + font * 0.45;
    // Room on the right for the widest row number (the last rows stick out furthest).
    let digits = n.to_string().len() as f64;
    let pad_right = pad.max((gap + font * 0.62 * digits + 6.0).round());
    let cx = |r: usize, c: usize| pad + w / 2.0 + w * (c as f64 + r as f64 / 2.0);
    let cy = |r: usize| pad + r_ + 1.5 * r_ * r as f64;
    let corner = |r: usize, c: usize, k: u32| {
        let a = PI / 180.0 * (60.0 * f64::from(k) - 90.0);
        (cx(r, c) + r_ * a.cos(), cy(r) + r_ * a.sin())
    };
    let width = pad + w * (nf + (nf - 1.0) / 2.0) + pad_right;
    let height = 2.0 * pad + r_ * (2.0 + 1.5 * (nf - 1.0));
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {width:.1} {height:.1}\" role=\"img\" \
         aria-label=\"Hex board {n} by {n}; the move list below describes the position\">"
    );

    // Edge bars, under the cells so only their outer half shows.
    let mut edges = ["top-bottom", "left-right"];
    for (i, seat) in st["seats"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .enumerate()
        .take(2)
    {
        if let Some(e) = seat["edges"].as_str() {
            edges[i] = if e == "top-bottom" {
                "top-bottom"
            } else {
                "left-right"
            };
        }
    }
    let seat_of = |e: &str| if edges[0] == e { 1 } else { 2 };
    let (mut top, mut bottom, mut left, mut right) = (vec![], vec![], vec![], vec![]);
    for i in 0..n {
        top.extend([corner(0, i, 5), corner(0, i, 0)]);
        bottom.extend([corner(n - 1, i, 4), corner(n - 1, i, 3)]);
        left.extend([corner(i, 0, 5), corner(i, 0, 4)]);
        right.extend([
            corner(i, n - 1, 0),
            corner(i, n - 1, 1),
            corner(i, n - 1, 2),
        ]);
    }
    top.push(corner(0, n - 1, 1));
    bottom.push(corner(n - 1, n - 1, 2));
    left.push(corner(n - 1, 0, 3));
    for (line, edge) in [
        (&top, "top-bottom"),
        (&bottom, "top-bottom"),
        (&left, "left-right"),
        (&right, "left-right"),
    ] {
        let _ = write!(
            out,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" \
             stroke-linejoin=\"round\" stroke-linecap=\"round\"/>",
            pts(line),
            seat_color(st, seat_of(edge)),
            r_ * 0.7
        );
    }

    // Cells and stones.
    let opening: Vec<(u64, u64)> = st["opening"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter_map(|c| Some((c[0].as_u64()?, c[1].as_u64()?)))
        .collect();
    for r in 0..n {
        for c in 0..n {
            let hex: Vec<_> = (0..6).map(|k| corner(r, c, k)).collect();
            let owner = st["board"]["cells"][r][c].as_u64().unwrap_or(0);
            let fill_color = if owner == 0 {
                EMPTY_CELL
            } else {
                seat_color(st, owner)
            };
            let name = cell_name(&serde_json::json!([r, c]));
            let whose = if owner == 0 {
                String::new()
            } else {
                format!(" – seat {owner}")
            };
            let _ = write!(
                out,
                "<polygon points=\"{}\" fill=\"{fill_color}\" stroke=\"#8d8572\" stroke-width=\"1\" \
                 class=\"cell\"><title>{name}{whose}</title></polygon>",
                pts(&hex)
            );
            if owner != 0 && opening.contains(&(r as u64, c as u64)) {
                let _ = write!(
                    out,
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{}\" fill=\"none\" stroke=\"rgba(255,255,255,.55)\" stroke-width=\"2\"/>",
                    cx(r, c),
                    cy(r),
                    r_ * 0.3
                );
            }
        }
    }

    // The winning path.
    let path: Vec<(f64, f64)> = st["board"]["winning_path"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter_map(|p| {
            let (r, c) = (p[0].as_u64()? as usize, p[1].as_u64()? as usize);
            Some((cx(r, c), cy(r)))
        })
        .collect();
    if !path.is_empty() {
        let _ = write!(
            out,
            "<polyline class=\"winning-path\" points=\"{}\" fill=\"none\" stroke=\"#ffd34d\" stroke-width=\"{:.1}\" \
             stroke-linejoin=\"round\" stroke-linecap=\"round\" opacity=\"0.95\"/>",
            pts(&path),
            r_ * 0.28
        );
        for (x, y) in &path {
            let _ = write!(
                out,
                "<circle cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"{:.1}\" fill=\"#ffd34d\"/>",
                r_ * 0.22
            );
        }
    }

    // The last stone placed (or swapped).
    let last = last_cell(st).and_then(|l| Some((l[0].as_u64()? as usize, l[1].as_u64()? as usize)));
    if let Some((r, c)) = last {
        let _ = write!(
            out,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{:.1}\" fill=\"none\" stroke=\"#fff\" stroke-width=\"2.5\"/>",
            cx(r, c),
            cy(r),
            r_ * 0.42
        );
    }

    // Coordinates: letters above and below, numbers left and right.
    let mut label = |x: f64, y: f64, anchor: &str, text: &str| {
        let _ = write!(
            out,
            "<text x=\"{x:.1}\" y=\"{y:.1}\" text-anchor=\"{anchor}\" font-size=\"{font}\" fill=\"#454d57\" \
             class=\"coord\" aria-hidden=\"true\">{text}</text>"
        );
    };
    for c in 0..n {
        let letter = char::from_u32(97 + c as u32).unwrap_or('?').to_string();
        label(cx(0, c), cy(0) - r_ - gap, "middle", &letter);
        label(
            cx(n - 1, c),
            cy(n - 1) + r_ + gap + font * 0.75,
            "middle",
            &letter,
        );
    }
    for r in 0..n {
        let number = (r + 1).to_string();
        label(
            cx(r, 0) - w / 2.0 - gap,
            cy(r) + font * 0.35,
            "end",
            &number,
        );
        label(
            cx(r, n - 1) + w / 2.0 + gap,
            cy(r) + font * 0.35,
            "start",
            &number,
        );
    }
    out.push_str("</svg>");
    out
}

const EDGE_TEXT: [(&str, &str); 2] = [
    ("top-bottom", "connects top ↔ bottom"),
    ("left-right", "connects left ↔ right"),
];

/// What the win-probability graph's line, dots and dashed line are, naming the bots (hidden: the
/// set page's script draws the graph from the game's analysis, and shows this with it).
fn graph_legend(st: &Value) -> String {
    let bot = |seat: u64| {
        let name = &st["seats"][usize::try_from(seat).unwrap_or(1).saturating_sub(1)]["bot"];
        if name.is_string() {
            isolated(name)
        } else {
            format!("seat {seat}")
        }
    };
    let who = |seat: u64| {
        format!(
            "<span class=\"dot\" style=\"--c:{}\"></span>{}",
            seat_color(st, seat),
            bot(seat)
        )
    };
    format!(
        "<p class=\"graph-legend\" hidden>Line: the chance that {} (seat 1) wins, after each move \
         (the arena's analysis). Dots: mistakes, by {} or {}. Dashed line: the move on the board.</p>",
        bot(1),
        who(1),
        who(2)
    )
}

/// One game's section, in the markup the set page's script fills (it takes the section over
/// and adds the replay controls, hidden here because they need the script).
pub fn game_section(set_id: &str, n: i64, st: &Value) -> String {
    let mut out = format!(
        "<section class=\"game\" aria-label=\"Game {n}\" data-game=\"{n}\">\n<h2 class=\"game-title\">Game {n}</h2>\n<div class=\"seats\">"
    );
    let active = s(&st["status"]) == "active";
    let to_move = st["to_move"].as_u64();
    for seat in [1_u64, 2] {
        let info = &st["seats"][(seat - 1) as usize];
        let color = if info["color"].is_string() {
            esc(s(&info["color"]))
        } else if seat == 1 {
            "red".into()
        } else {
            "blue".into()
        };
        let edges = s(&info["edges"]);
        let edges = EDGE_TEXT
            .iter()
            .find(|(k, _)| *k == edges)
            .map_or_else(|| esc(edges), |(_, t)| (*t).to_string());
        let ms = st["clock"]["remaining_ms"][(seat - 1) as usize].as_f64();
        let (clock, data) = ms.map_or_else(
            || ("–".to_string(), String::new()),
            |m| (fmt_clock(m), format!("{}", m.round() as i64)),
        );
        let on = active && to_move == Some(seat);
        let _ = write!(
            out,
            "<div class=\"seat{}\" data-seat=\"{seat}\" style=\"--c:{}\"><div class=\"name\">Seat {seat}: {}</div>\
             <div class=\"edges\">{color}, {edges}</div>\
             <div class=\"clock{}\" role=\"timer\" aria-label=\"clock of seat {seat}\" data-ms=\"{data}\">{clock}</div>\
             <div class=\"note\"></div></div>",
            if on { " on-move" } else { "" },
            seat_color(st, seat),
            bot_link(&info["bot"]),
            if on && ms.is_some_and(|m| m < 10_000.0) {
                " low"
            } else {
                ""
            },
        );
    }
    out.push_str("</div>\n");
    let _ = write!(
        out,
        "<div class=\"status\" role=\"status\" aria-live=\"polite\" data-final=\"1\">{}</div>\n\
         <div class=\"board\">{}</div>\n<div class=\"graph\"></div>\n{}\n",
        game_status(st),
        board_svg(st),
        graph_legend(st)
    );
    // The replay needs the script: its controls stay hidden until the script shows them.
    out.push_str(
        "<div class=\"controls\" hidden>\
         <button type=\"button\" data-go=\"first\" aria-label=\"Start (Home)\">«</button>\
         <button type=\"button\" data-go=\"prev\" aria-label=\"Previous move (left arrow)\">‹</button>\
         <input type=\"range\" min=\"0\" max=\"0\" value=\"0\" aria-label=\"Replay position\">\
         <button type=\"button\" data-go=\"next\" aria-label=\"Next move (right arrow)\">›</button>\
         <button type=\"button\" data-go=\"last\" aria-label=\"Latest position (End)\">»</button></div>\n\
         <div class=\"posline\" hidden><span class=\"pos\"></span>\
         <label><input type=\"checkbox\" class=\"numbers\"> Move numbers</label></div>\n\
         <p class=\"keys\" hidden>Keys: ← → step, Home / End jump (anywhere on the page).</p>\n\
         <h3 class=\"muted moves-title\" style=\"font-size:13px;margin:8px 0 0\">Moves</h3>\n",
    );
    let _ = write!(
        out,
        "<ol class=\"moves\" aria-label=\"Moves of game {n} (the board as text)\">"
    );
    let mut items = 0;
    for (i, c) in st["opening"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .enumerate()
    {
        let seat = if i % 2 == 0 { 1 } else { 2 };
        let _ = write!(
            out,
            "<li><span class=\"dot\" style=\"--c:{}\"></span><span class=\"n\">op </span>{}</li>",
            seat_color(st, seat),
            cell_name(c)
        );
        items += 1;
    }
    for (i, m) in st["moves"]
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .enumerate()
    {
        let name = if m["name"].is_string() {
            esc(s(&m["name"]))
        } else if m["swap"].as_bool() == Some(true) {
            "swap".into()
        } else {
            "?".into()
        };
        let ply = m["ply"].as_i64().unwrap_or(i as i64 + 1);
        let _ = write!(
            out,
            "<li data-ply=\"{ply}\"><span class=\"dot\" style=\"--c:{}\"></span><span class=\"n\">{ply}. </span>{name}</li>",
            seat_color(st, m["seat"].as_u64().unwrap_or(1))
        );
        items += 1;
    }
    if items == 0 {
        out.push_str("<li class=\"muted\">no moves yet</li>");
    }
    let url = format!("/v1/sets/{}/games/{n}", pct(set_id));
    // A game is analysed once it is finished (409 before).
    let analysis = if st["status"] == "finished" {
        format!(" · <a href=\"{url}/analysis\">Analysis (JSON)</a>")
    } else {
        String::new()
    };
    let _ = write!(
        out,
        "</ol>\n<div class=\"links\"><a href=\"{url}/sgf\">SGF</a> · <a href=\"{url}\">JSON</a>{analysis}</div>\n</section>\n"
    );
    out
}
