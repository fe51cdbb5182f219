//! One set's page: its facts and both games' sections.

use std::fmt::Write as _;

use serde_json::Value;

use super::game_section;
use super::home::list;
use crate::arena::status::SetStatus;
use crate::web::html::{bot_link, esc, fill, half, isolated, num, pct, s, signed, when};

fn fact(out: &mut String, label: &str, value: &str) {
    let _ = write!(out, "<dt>{label}</dt><dd>{value}</dd>");
}

/// Each bot's own moves in the finished games it won or drew (the tiebreak's count, agents.md
/// section 7), from the set's `games` (their `seats`, `winner` seat and `moves_used`): the
/// creator's and the acceptor's, or `None` while a game is unfinished.
fn tiebreak_moves(set: &Value) -> Option<[i64; 2]> {
    let bots = [s(&set["creator"]), s(&set["acceptor"])];
    let games = list(set, "games");
    if games.len() != 2 {
        return None;
    }
    let mut counts = [0i64; 2];
    for g in games {
        if s(&g["status"]) != "finished" {
            return None;
        }
        for (i, seat) in list(g, "seats").iter().enumerate() {
            let no = seat["seat"].as_i64().unwrap_or(i as i64 + 1);
            let not_lost = g["winner"].is_null() || g["winner"].as_i64() == Some(no);
            let side = bots.iter().position(|b| *b == s(&seat["bot"]))?;
            if not_lost {
                counts[side] += g["moves_used"][i].as_i64()?;
            }
        }
    }
    Some(counts)
}

/// What the tiebreak compared, after a result it decided or left level (": 1 move against
/// Alpha's 10"), or "" for any other result.
fn tiebreak_counts(set: &Value) -> String {
    let result = s(&set["result"]);
    let level = matches!(
        (set["points"][0].as_f64(), set["points"][1].as_f64()),
        (Some(a), Some(b)) if (a - b).abs() < 1e-9
    );
    let Some(counts) = tiebreak_moves(set).filter(|_| level) else {
        return String::new();
    };
    let moves = |n: i64| format!("{n} move{}", if n == 1 { "" } else { "s" });
    // The explanation is for wide screens: on a phone it pushed the first board below the
    // first screen (a browser check).
    let note = "<span class=\"muted wide-only\"> (each bot's own moves in the games it won or \
                drew; fewer wins)</span>";
    if result.ends_with(" wins on the tiebreak") {
        let winner = usize::from(s(&set["winner"]) == s(&set["acceptor"]));
        let loser = 1 - winner;
        let names = [&set["creator"], &set["acceptor"]];
        format!(
            ": {} against {}'s {}{note}",
            moves(counts[winner]),
            isolated(names[loser]),
            counts[loser]
        )
    } else if result == "draw" && counts[0] == counts[1] {
        format!(": the tiebreak is level, {} each{note}", moves(counts[0]))
    } else {
        String::new()
    }
}

/// What a rated set did to both bots' Elo ("Alpha 1200 → 1184 (-16) · Bravo 1200 → 1216
/// (+16)"), from the set's `ratings`; "" for a set not rated.
fn rating_changes(ratings: &Value) -> String {
    let sides: Vec<String> = ratings
        .as_array()
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter_map(|r| {
            let (before, after) = (r["rating_before"].as_f64()?, r["rating_after"].as_f64()?);
            let change = (after.round() - before.round()) as i64;
            // A phone shows the change only (its line is short).
            Some(format!(
                "{} <span class=\"wide-only\">{} → {} </span>({})",
                bot_link(&r["bot"]),
                before.round() as i64,
                after.round() as i64,
                signed(&Value::from(change))
            ))
        })
        .collect();
    sides.join(" · ")
}

fn set_facts(set: &Value, id: &str) -> String {
    let mut dl = String::new();
    let st = s(&set["status"]);
    let mut status = esc(if st.is_empty() { "?" } else { st });
    if st == "open" {
        if set["opponent"].is_string() {
            let _ = write!(
                status,
                " – private challenge for {}",
                bot_link(&set["opponent"])
            );
        } else {
            status.push_str(" – waiting for an opponent");
        }
    } else if st == "finished" && set["result"].is_string() {
        let _ = write!(status, " – {}", esc(s(&set["result"])));
    }
    fact(&mut dl, "Status", &status);
    fact(
        &mut dl,
        "Set",
        &format!("<span class=\"mono\">{}</span>", esc(id)),
    );
    if set["result"].is_string() {
        fact(
            &mut dl,
            "Result",
            &format!(
                "<strong>{}</strong>{}",
                esc(s(&set["result"])),
                tiebreak_counts(set)
            ),
        );
    }
    let ratings = rating_changes(&set["ratings"]);
    if !ratings.is_empty() {
        fact(&mut dl, "Ratings", &ratings);
    }
    let t = &set["tournament"];
    if t.is_object() {
        let name = if t["name"].is_string() {
            &t["name"]
        } else {
            &t["id"]
        };
        fact(
            &mut dl,
            "Tournament",
            &format!(
                "<a href=\"{}\">{}</a> · round {}, board {}",
                esc(s(&t["url"])),
                isolated(name),
                num(&t["round"]),
                num(&t["board"])
            ),
        );
    }
    let m = &set["match"];
    if m.is_object() {
        let name = if m["name"].is_string() {
            &m["name"]
        } else {
            &m["id"]
        };
        // The match's page (`url` is its JSON, `/v1/matches/{id}`).
        fact(
            &mut dl,
            "Match",
            &format!(
                "<a href=\"/matches/{}\">{}</a>",
                pct(s(&m["id"])),
                isolated(name)
            ),
        );
    }
    if set["acceptor"].is_string() {
        fact(
            &mut dl,
            "Points",
            &format!(
                "{} {} – {} {}",
                bot_link(&set["creator"]),
                half(&set["points"][0]),
                half(&set["points"][1]),
                bot_link(&set["acceptor"])
            ),
        );
    }
    let mut stake_text = match set["stake"].as_i64() {
        Some(n) if n > 0 => format!("{n} PTS each"),
        _ => "none".into(),
    };
    if set["practice"].as_bool() == Some(true) {
        stake_text.push_str(" (practice)");
    }
    match set["rated"].as_bool() {
        Some(false) => stake_text.push_str(" · unrated"),
        Some(true) => stake_text.push_str(" · rated"),
        None => {}
    }
    fact(&mut dl, "Stake", &stake_text);
    let sm = &set["settlement"];
    if sm.is_object() {
        let pays: Vec<String> = list(sm, "payouts")
            .iter()
            .map(|p| {
                let who = if p["player_name"].is_string() {
                    &p["player_name"]
                } else {
                    &p["player"]
                };
                format!(
                    "{}: {} PTS ({})",
                    isolated(who),
                    num(&p["amount"]),
                    esc(s(&p["kind"]))
                )
            })
            .collect();
        let fee = if sm["fee"].is_null() {
            "0".into()
        } else {
            num(&sm["fee"])
        };
        let mut text = format!("pot {}, fee {fee}", num(&sm["pot"]));
        if !pays.is_empty() {
            let _ = write!(text, " → {}", pays.join(", "));
        }
        fact(&mut dl, "Settlement", &text);
    }
    let o = &set["options"];
    let stones = o["random_stones"].as_i64();
    fact(
        &mut dl,
        "Board",
        &format!(
            "{0}×{0}, {1} random stones per side{2}",
            num(&o["size"]),
            num(&o["random_stones"]),
            if stones == Some(0) {
                " (swap allowed)"
            } else {
                ""
            }
        ),
    );
    if set["clock"].is_object() {
        fact(
            &mut dl,
            "Clock",
            &format!(
                "{} s + {} s per move",
                num(&set["clock"]["initial_s"]),
                num(&set["clock"]["increment_s"])
            ),
        );
    }
    fact(
        &mut dl,
        "Seed SHA-256",
        &format!(
            "<span class=\"mono\">{}</span>",
            esc(s(&set["seed_sha256"]))
        ),
    );
    let seed = if set["seed"].is_string() {
        format!(
            "<span class=\"mono\">{}</span> <span id=\"seed-check\"></span>",
            esc(s(&set["seed"]))
        )
    } else {
        "<span class=\"muted\">revealed when the set is finished</span>".into()
    };
    fact(&mut dl, "Seed", &seed);
    fact(&mut dl, "Created", &when(&set["created_at"]));
    if set["started_at"].is_string() {
        fact(&mut dl, "Started", &when(&set["started_at"]));
    }
    if set["finished_at"].is_string() {
        fact(&mut dl, "Finished", &when(&set["finished_at"]));
    }
    dl
}

/// The set page from the set (`GET /v1/sets/{id}`) and the states of the games played so far.
pub fn set_page(template: &str, set: &Value, games: &[(i64, Value)]) -> String {
    let id = s(&set["id"]);
    let status = s(&set["status"]);
    let acceptor = if set["acceptor"].is_string() {
        bot_link(&set["acceptor"])
    } else if *status == SetStatus::Open {
        "(open)".into()
    } else {
        "?".into()
    };
    let name = |v: &Value| esc(v.as_str().unwrap_or("?"));
    let plain_acceptor = if set["acceptor"].is_string() {
        name(&set["acceptor"])
    } else if *status == SetStatus::Open {
        "(open)".into()
    } else {
        "?".into()
    };
    let mut body = String::new();
    if games.is_empty() {
        let text = if *status == SetStatus::Open {
            "The games start when a bot accepts this challenge.".to_string()
        } else {
            format!("This set was {}; no games were played.", esc(status))
        };
        let _ = write!(body, "<p class=\"notice\">{text}</p>");
    }
    for (n, st) in games {
        body.push_str(&game_section(id, *n, st));
    }
    fill(
        template,
        &[
            (
                "page-title",
                format!(
                    "{} vs {} – Hex arena",
                    name(&set["creator"]),
                    plain_acceptor
                ),
            ),
            (
                "title",
                format!(
                    "<bdi>{}</bdi> vs <bdi>{plain_acceptor}</bdi>",
                    name(&set["creator"])
                ),
            ),
            (
                "set-title",
                format!("{} vs {acceptor}", bot_link(&set["creator"])),
            ),
            ("facts", set_facts(set, id)),
            ("games", body),
        ],
    )
}
