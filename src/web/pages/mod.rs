//! The viewers' pages rendered on the server with their content (issue 21), from the same JSON
//! values the API answers: the home page's tables, a set's facts and both games (the board as
//! SVG, clocks, result, move list), a bot's record, chart and sets, and the tournaments. The
//! pages' script then only adds live updates and the replay; without it, or before it runs,
//! a page is complete (it prints, screenshots and previews).

use super::html::esc;

mod bot;
mod game;
mod home;
mod matches;
mod set;
mod tournament;

pub use self::bot::bot_page;
pub use self::bot::rating_chart;
pub use self::game::board_svg;
pub use self::game::game_section;
pub use self::home::home;
pub use self::matches::match_page;
pub use self::set::set_page;
pub use self::tournament::tournament_page;
pub use self::tournament::tournaments_page;

const RED: &str = "#c8313c";
const BLUE: &str = "#2b62c4";
const EMPTY_CELL: &str = "#efe6cf";

/// A page saying that `what` does not exist (served with 404).
pub fn not_found(what: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Not found – Hex arena</title>\n<link rel=\"icon\" href=\"/favicon.svg\" type=\"image/svg+xml\">\n\
         <link rel=\"stylesheet\" href=\"/assets/site.css\">\n</head>\n<body>\n<header class=\"site\">\n\
         <nav aria-label=\"Site\"><a href=\"/\">Arena</a><a href=\"/tournaments\">Tournaments</a></nav>\n\
         <h1>Not found</h1>\n</header>\n<main>\n<section><h2>Nothing here</h2><p>{}</p>\
         <p><a href=\"/\">Back to the arena</a></p></section>\n</main>\n</body>\n</html>\n",
        esc(what)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    fn game() -> Value {
        json!({"status": "finished", "to_move": null, "ply": 3,
               "seats": [{"seat": 1, "bot": "a<b", "color": "red", "edges": "top-bottom"},
                         {"seat": 2, "bot": "c", "color": "blue", "edges": "left-right"}],
               "opening": [[0, 0]],
               "moves": [{"ply": 1, "seat": 2, "cell": [1, 1], "name": "b2"},
                         {"ply": 2, "seat": 1, "cell": [1, 0], "name": "a2"}],
               "board": {"size": 2, "cells": [[1, 0], [1, 2]], "winning_path": [[0, 0], [1, 0]]},
               "clock": {"remaining_ms": [59000, 61500]},
               "result": {"winner": 1, "winner_bot": "a<b", "reason": "connection"}})
    }

    #[test]
    fn a_game_section_has_the_board_the_moves_the_clocks_and_the_result() {
        let html = game_section("set_1", 1, &game());
        assert_eq!(html.matches("class=\"cell\"").count(), 4);
        let stones = html.matches("fill=\"#c8313c\" stroke=\"#8d8572\"").count()
            + html.matches("fill=\"#2b62c4\" stroke=\"#8d8572\"").count();
        assert_eq!(stones, 3);
        assert!(
            html.contains("<span class=\"n\">1. </span>b2</li>"),
            "{html}"
        );
        assert!(
            html.contains("<span class=\"n\">op </span>a1</li>"),
            "{html}"
        );
        assert!(html.contains("&lt;b</bdi> wins by connection."), "{html}");
        assert!(
            html.contains(">59.0 s<") || html.contains(">0:59<"),
            "{html}"
        );
        assert!(html.contains(">1:01<"), "{html}");
        assert!(html.contains("class=\"winning-path\""));
        assert!(!html.contains("a<b"), "every name is escaped: {html}");
    }

    #[test]
    fn the_right_hand_row_labels_fit_inside_the_board() {
        let mut st = game();
        st["board"] = json!({"size": 11, "cells": vec![vec![0; 11]; 11], "winning_path": null});
        let svg = board_svg(&st);
        let width: f64 = svg
            .split("viewBox=\"0 0 ")
            .nth(1)
            .and_then(|v| v.split(' ').next())
            .and_then(|w| w.parse().ok())
            .unwrap_or(0.0);
        // The rightmost label ("11", start-anchored) at about 0.6 em per digit.
        let right = svg.split("text-anchor=\"start\"").count().saturating_sub(1);
        assert_eq!(right, 11);
        let xs: Vec<f64> = svg
            .match_indices("text-anchor=\"start\"")
            .filter_map(|(i, _)| {
                let before = &svg[..i];
                let x = before.rsplit("<text x=\"").next()?;
                x.split('"').next()?.parse().ok()
            })
            .collect();
        let max_x = xs.iter().copied().fold(0.0, f64::max);
        assert!(
            max_x + 2.0 * 0.62 * 18.0 <= width,
            "{max_x} + label > {width}"
        );
    }
}
