//! The viewers' pages carry their content in the HTML the server sends (issue 21): the home
//! page's tables, a set's boards, moves, result and seed, a bot's record and sets, and the
//! tournaments' standings; names users chose are escaped; unknown sets, bots and tournaments
//! are 404 pages.

mod common;
use common::paths;

use common::{TestApp, seat_tokens, spawn_app};
use reqwest::StatusCode;
use serde_json::json;

/// GET a page: its status, content type and text.
async fn page(app: &TestApp, path: &str) -> (StatusCode, String, String) {
    let r = app
        .http
        .get(format!("{}{path}", app.url))
        .send()
        .await
        .expect("page answers");
    let status = r.status();
    let kind = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    (status, kind, r.text().await.expect("page text"))
}

/// The part of `html` from `start` to the next `end` after it.
fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    let from = html
        .find(start)
        .unwrap_or_else(|| panic!("{start} not in the page"));
    let rest = &html[from..];
    &rest[..rest.find(end).unwrap_or(rest.len())]
}

/// A player whose name is full of HTML, with two bots that have played one staked set: the
/// set's id, with `evil-bot` winning both games (game 1 after some moves).
async fn played_set(app: &TestApp) -> (String, Vec<String>) {
    let (_, pt) = app.player("<b>Eve & \"Co\"</b>").await;
    let evil = app.bot(&pt, "evil-bot").await;
    let (_, _, good) = app.player_with_bot("good-bot").await;
    let set = app.start_set(&evil, &good, json!({"stake": 10})).await;
    // Four moves in game 1 (whatever is legal), then good-bot resigns both games.
    let st = app.state(&set, 1).await;
    let seats = seat_tokens(&st, &[("evil-bot", &evil), ("good-bot", &good)]);
    let mut names = vec![];
    for _ in 0..4 {
        let st = app.state(&set, 1).await;
        let mv = st["legal_moves"][0].clone();
        let to_move = st["to_move"].as_u64().expect("someone on move") as usize;
        let r = app
            .play(
                seats[to_move - 1],
                &set,
                1,
                mv,
                st["ply"].as_i64().map(|p| p + 1),
            )
            .await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    }
    for m in app.state(&set, 1).await["moves"].as_array().expect("moves") {
        names.push(m["name"].as_str().expect("a1 name").to_string());
    }
    app.lose_set(&good, &evil, &set).await;
    (set, names)
}

#[tokio::test]
async fn the_home_page_carries_the_leaderboard_and_the_recent_sets_with_names_escaped() {
    let app = spawn_app().await;
    let (set, _) = played_set(&app).await;
    let (status, kind, html) = page(&app, "/").await;
    assert_eq!(status, StatusCode::OK);
    assert!(kind.starts_with("text/html"), "{kind}");
    let board = between(&html, "<tbody id=\"leaderboard\">", "</tbody>");
    let row = between(board, "<tr data-bot=\"evil-bot\">", "</tr>");
    assert!(row.contains("href=\"/bots/evil-bot\""), "{row}");
    assert!(
        row.contains("<bdi>&lt;b&gt;Eve &amp; &quot;Co&quot;&lt;/b&gt;</bdi>"),
        "the owner's name is escaped: {row}"
    );
    assert!(
        !html.contains("<b>Eve"),
        "no name reaches the page unescaped"
    );
    assert!(board.contains("<tr data-bot=\"good-bot\">"), "{board}");
    let finished = between(&html, "<tbody id=\"finished\">", "</tbody>");
    assert!(
        finished.contains(&format!("href=\"/sets/{set}\"")),
        "{finished}"
    );
    assert!(finished.contains("2 – 0"), "{finished}");
    // The lists that have rows say nothing is missing; the lobby is empty and says so.
    assert!(html.contains("<p class=\"empty\" id=\"finished-empty\" hidden></p>"));
    assert!(html.contains("<p class=\"empty\" id=\"lobby-empty\">No open challenges."));
    assert!(
        !html.contains("loading…") && !html.contains("{{"),
        "every slot is filled"
    );
}

#[tokio::test]
async fn a_set_page_carries_both_boards_the_moves_the_result_and_the_revealed_seed() {
    let app = spawn_app().await;
    let (set, names) = played_set(&app).await;
    let view = app.get_set(&set).await.body;
    let g1 = app.state(&set, 1).await;
    let size = g1["board"]["size"].as_u64().expect("size") as usize;
    let (status, _, html) = page(&app, &format!("/sets/{set}")).await;
    assert_eq!(status, StatusCode::OK);

    let game1 = between(&html, "data-game=\"1\"", "</section>");
    assert_eq!(game1.matches("class=\"cell\"").count(), size * size);
    let stones: usize = g1["board"]["cells"]
        .as_array()
        .expect("cells")
        .iter()
        .flat_map(|row| row.as_array().expect("row").iter())
        .filter(|c| c.as_u64() != Some(0))
        .count();
    let drawn = game1
        .matches("<polygon")
        .count()
        .saturating_sub(game1.matches("fill=\"#efe6cf\"").count());
    assert_eq!(
        drawn, stones,
        "a stone on the board for each one in the state"
    );
    assert_eq!(stones, g1["opening"].as_array().map_or(0, Vec::len) + 4);
    for (i, name) in names.iter().enumerate() {
        let item = format!("<span class=\"n\">{}. </span>{name}</li>", i + 1);
        assert!(game1.contains(&item), "move {} ({name}) in the list", i + 1);
    }
    assert!(
        game1.contains("evil-bot</bdi> wins by resignation."),
        "{game1}"
    );
    assert_eq!(game1.matches("class=\"coord\"").count(), 4 * size);
    assert!(html.contains("data-game=\"2\""));
    let seed = view["seed"].as_str().expect("the seed is revealed");
    assert!(html.contains(seed), "the revealed seed is on the page");
    // What the rated set did to both ratings (a bot author looked for it here), as its JSON
    // says: the winner, evil-bot, from 1200 to 1216.
    assert_eq!(view["ratings"][0]["rating_after"], json!(1216.0));
    let ratings = between(&html, "<dt>Ratings</dt><dd>", "</dd>");
    assert!(
        ratings.contains("evil-bot</a> <span class=\"wide-only\">1200 → 1216 </span>(+16)")
            && ratings.contains("good-bot</a> <span class=\"wide-only\">1200 → 1184 </span>(-16)"),
        "{ratings}"
    );
    // The replay needs the script, so its controls come hidden.
    assert!(game1.contains("<div class=\"controls\" hidden>"));
    // On a phone the summary stays before the boards and a touch screen gets no keyboard hint
    // (report #25); the move list scrolls by whole rows (#9).
    assert!(!html.contains("#set-facts { order: 2; }"));
    assert!(html.contains("@media (hover: none) { .keys { display: none; } }"));
    assert!(html.contains("scroll-snap-type: y mandatory"));
    // A finished game links its analysis beside its exports.
    let links = between(game1, "<div class=\"links\">", "</div>");
    for href in [
        paths::game_sgf(&set, 1),
        paths::game(&set, 1),
        paths::analysis(&set, 1),
    ] {
        assert!(links.contains(&format!("href=\"{href}\"")), "{links}");
    }

    let (status, kind, html) = page(&app, "/sets/set_nope").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(kind.starts_with("text/html"), "{kind}");
    assert!(html.contains("No set &#39;set_nope&#39;."), "{html}");
}

#[tokio::test]
async fn a_bot_page_carries_its_record_chart_and_sets_and_an_unknown_bot_is_a_404_page() {
    let app = spawn_app().await;
    let (set, _) = played_set(&app).await;
    let (status, _, html) = page(&app, "/bots/evil-bot").await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains("<title>evil-bot – Hex arena</title>"));
    assert!(
        html.contains("<strong class=\"owner\"><bdi>&lt;b&gt;Eve &amp; &quot;Co&quot;&lt;/b&gt;</bdi></strong>"),
        "the owner, escaped"
    );
    let stats = between(&html, "<dl class=\"stats\"", "</dl>");
    assert!(stats.contains("<dt>Wins</dt><dd>1</dd>"), "{stats}");
    // The Glicko-2 tile is two wide, "provisional" on a line of its own (report #11), and
    // says its "±" is one deviation; the header says the date is the registration, in UTC
    // (#24).
    assert!(
        stats.contains("<div class=\"wide\"><dt><abbr title=\"one deviation either side; the 95% range is two\">Glicko-2 ± deviation</abbr></dt>")
            && stats.contains("<small>provisional</small></dd>"),
        "{stats}"
    );
    let sub = between(&html, "<p id=\"subtitle\">", "</p>");
    assert!(
        sub.contains(" · registered 20") && sub.contains(" UTC"),
        "{sub}"
    );
    assert!(!sub.contains("since"), "{sub}");
    assert_eq!(
        html.matches("<circle").count(),
        2,
        "the chart has the start and one rated set"
    );
    let sets = between(&html, "<tbody id=\"sets\">", "</tbody>");
    assert!(sets.contains(&format!("href=\"/sets/{set}\"")), "{sets}");
    let versus = between(&html, "<tbody id=\"versus\">", "</tbody>");
    assert!(versus.contains("href=\"/bots/good-bot\""), "{versus}");
    // What a bot author learns from: the bot's games, its worst moves and its ratings.
    let exports = between(&html, "<p class=\"links\" id=\"exports\">", "</p>");
    for href in [
        paths::bot_games_sgf("evil-bot"),
        paths::bot_mistakes("evil-bot"),
        paths::bot_ratings("evil-bot"),
    ] {
        assert!(exports.contains(&format!("href=\"{href}\"")), "{exports}");
    }

    let (status, kind, html) = page(&app, "/bots/<i>nobody").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(kind.starts_with("text/html"));
    assert!(html.contains("No bot &#39;&lt;i&gt;nobody&#39;."), "{html}");
}

#[tokio::test]
async fn the_tournament_pages_carry_the_standings_and_escape_the_tournament_name() {
    let app = spawn_app().await;
    for name in ["alpha-bot", "bravo-bot", "charlie-bot"] {
        app.player_with_bot(name).await;
    }
    let r = app
        .create_tournament(
            Some("op-secret"),
            json!({"name": "<script>x</script> & \"Cup\"", "format": "round_robin",
                   "participants": ["alpha-bot", "bravo-bot", "charlie-bot"],
                   "start_at": "2099-01-02T12:34:56Z"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    let escaped = "&lt;script&gt;x&lt;/script&gt; &amp; &quot;Cup&quot;";

    let (status, _, html) = page(&app, "/tournaments").await;
    assert_eq!(status, StatusCode::OK);
    let rows = between(&html, "<tbody id=\"tournaments\">", "</tbody>");
    assert!(
        rows.contains(&format!(
            "<a href=\"/tournaments/{id}\"><bdi>{escaped}</bdi></a>"
        )),
        "{rows}"
    );
    assert!(!html.contains("<script>x"), "the name is never markup");
    // The scheduled start is on the list, in UTC like the standings pages (report #4).
    assert!(rows.contains("starts 2099-01-02 12:34 UTC"), "{rows}");

    let (status, _, html) = page(&app, &format!("/tournaments/{id}")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(html.contains(&format!("<h1 id=\"title\"><bdi>{escaped}</bdi></h1>")));
    let standings = between(&html, "<tbody id=\"standings\">", "</tbody>");
    let mut bots: Vec<&str> = standings
        .split("<tr data-bot=\"")
        .skip(1)
        .filter_map(|r| r.split('"').next())
        .collect();
    bots.sort_unstable();
    assert_eq!(bots, ["alpha-bot", "bravo-bot", "charlie-bot"]);
    assert!(html.contains(&format!("href=\"{}\"", paths::standings_csv(&id))));
    assert!(!html.contains("<script>x"));
    let subtitle = between(&html, "<p id=\"subtitle\">", "</p>");
    assert!(
        subtitle.contains("created · starts 2099-01-02 12:34 UTC"),
        "{subtitle}"
    );
    // Pairings not played are blank, as on the printable page; "–" looked like a forfeit's
    // "-" (report #2).
    let cross = between(&html, "<table class=\"cross\" id=\"cross\">", "</table>");
    assert_eq!(
        cross
            .matches("<td class=\"unplayed\" aria-label=\"not played\"></td>")
            .count(),
        6,
        "{cross}"
    );
    assert!(!cross.contains('–'), "{cross}");
    assert!(html.contains("blank: not played"), "the legend says so");

    for path in ["/tournaments/tour_nope", "/tournaments/tour_nope/standings"] {
        let (status, kind, html) = page(&app, path).await;
        assert_eq!(status, StatusCode::NOT_FOUND, "{path}");
        assert!(kind.starts_with("text/html"), "{path}: {kind}");
        assert!(
            html.contains("No tournament &#39;tour_nope&#39;."),
            "{html}"
        );
    }
}

#[tokio::test]
async fn a_tournament_set_in_the_lobby_lists_is_tagged_with_a_link_to_its_event() {
    let app = spawn_app().await;
    for name in ["tag-a", "tag-b"] {
        let (_, _, t) = app.player_with_bot(name).await;
        // A long-poll of 0 s: the bot is online, so its pairing starts.
        app.get_turn(Some(&t), "wait_s=0").await;
    }
    let r = app
        .create_tournament(
            Some("op-secret"),
            json!({"name": "Tag Cup", "format": "round_robin", "participants": ["tag-a", "tag-b"],
                   "options": {"size": 9}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    app.start_tournament(Some("op-secret"), &id, json!({}))
        .await;
    let until = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let t = app.get_tournament(&id).await.body;
        if t["rounds_played"][0]["pairings"][0]["status"] == "playing" {
            break;
        }
        assert!(std::time::Instant::now() < until, "never started: {t}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let (_, _, html) = page(&app, "/").await;
    let active = between(&html, "<tbody id=\"active\">", "</tbody>");
    assert!(
        active.contains(&format!(
            "<a class=\"tag\" href=\"/tournaments/{id}\"><bdi>Tag Cup</bdi> r1</a>"
        )),
        "{active}"
    );
}

#[tokio::test]
async fn the_tournaments_page_links_to_older_pages_as_the_api_pages() {
    let app = spawn_app().await;
    for name in ["alpha-bot", "bravo-bot"] {
        app.player_with_bot(name).await;
    }
    // One more than a page holds (100).
    for i in 0..101 {
        let r = app
            .create_tournament(
                Some("op-secret"),
                json!({"name": format!("Cup {i}"), "format": "round_robin",
                       "participants": ["alpha-bot", "bravo-bot"],
                       "start_at": "2099-01-02T12:34:56Z"}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    }
    let names = |html: &str| -> Vec<String> {
        between(html, "<tbody id=\"tournaments\">", "</tbody>")
            .split("<bdi>")
            .skip(1)
            .filter_map(|r| r.split("</bdi>").next())
            .map(str::to_string)
            .collect()
    };

    let (status, _, html) = page(&app, "/tournaments").await;
    assert_eq!(status, StatusCode::OK);
    let mut seen = names(&html);
    assert_eq!(seen.len(), 100);
    let pager = between(&html, "<p class=\"pager\" id=\"pager\">", "</p>");
    assert!(!pager.contains("Newest"), "{pager}");
    let older = between(
        pager,
        "/tournaments?before=",
        "\" rel=\"next\">Older tournaments</a>",
    );
    assert!(older.starts_with("/tournaments?before=tour_"), "{older}");

    let (status, _, html) = page(&app, older).await;
    assert_eq!(status, StatusCode::OK);
    // The older page holds the one left: both pages together hold each tournament once
    // (tournaments made in the same millisecond have no creation order between them).
    let rest = names(&html);
    assert_eq!(rest.len(), 1);
    seen.extend(rest);
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), 101);
    assert!(html.contains("<h2 id=\"list-title\">Older tournaments, newest first</h2>"));
    let pager = between(&html, "<p class=\"pager\" id=\"pager\">", "</p>");
    assert!(
        pager.ends_with("<a href=\"/tournaments\">Newest tournaments</a>"),
        "{pager}"
    );
    assert!(!pager.contains("Older"), "{pager}");

    // A cursor that is not a tournament id is a 404 page, as an unknown tournament is.
    let (status, kind, html) = page(&app, "/tournaments?before=%3Cb%3E").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(kind.starts_with("text/html"), "{kind}");
    assert!(
        html.contains("No tournament &#39;&lt;b&gt;&#39;."),
        "{html}"
    );
}

/// A set of Alpha (`alpha`) and Bravo (`bravo`) on 9x9 without opening stones that ends 1 – 1:
/// game 1 won by connection in 10 moves, game 2 by its other bot with one move and a
/// resignation (so that bot wins on the tiebreak). Returns the set id.
async fn tiebreak_set(app: &TestApp, alpha: &str, bravo: &str) -> String {
    let cell = |r: u8, c: u8| json!({"cell": [r, c]});
    let bots = [("Alpha", alpha), ("Bravo", bravo)];
    let set = app
        .start_set(
            alpha,
            bravo,
            json!({"options": {"size": 9, "random_stones": 0}}),
        )
        .await;
    let seats = seat_tokens(&app.state(&set, 1).await, &bots);
    let mut moves = vec![cell(4, 4), json!({"swap": true})];
    for c in 0..9u8 {
        moves.push(cell(0, c)); // seat 1, now left-right after the swap
        if c < 8 {
            moves.push(cell(8, c)); // seat 2
        }
    }
    let last = app.play_moves(seats, &set, 1, &moves).await;
    assert_eq!(last.body["result"]["reason"], "connection");
    let st = app.state(&set, 2).await;
    let seats = seat_tokens(&st, &bots);
    let r = app
        .play(seats[0], &set, 2, st["legal_moves"][0].clone(), Some(1))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let r = app.resign(Some(seats[1]), &set, 2, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    set
}

#[tokio::test]
async fn a_finished_set_on_the_home_page_says_who_won_on_a_phone_too() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let set = tiebreak_set(&app, &alpha, &bravo).await;
    let view = app.get_set(&set).await.body;
    let result = view["result"]
        .as_str()
        .expect("a finished set has a result");
    assert_eq!(view["points"], json!([1, 1]), "{view}");
    assert!(result.ends_with(" wins on the tiebreak"), "{result}");
    let (_, _, html) = page(&app, "/").await;
    let finished = between(&html, "<tbody id=\"finished\">", "</tbody>");
    // A phone has no Result column: "1 – 1" alone reads as a draw, so the result goes under
    // the bots there (report: phone view of "Recently finished sets").
    let bots = between(finished, "<td class=\"wrapok\">", "</td>");
    assert!(
        bots.contains(&format!(
            "<span class=\"byline narrow-only\">{result}</span>"
        )),
        "{bots}"
    );
    assert!(
        finished.contains(&format!("<td class=\"opt\">{result}</td>")),
        "a wide screen keeps its column: {finished}"
    );
}

/// A running round robin of three online bots and `Ghost`, which never connects, with
/// `absent: forfeit` after 600 s: its id and the online bots' tokens by name.
async fn tournament_with_a_ghost(app: &TestApp) -> (String, Vec<(String, String)>) {
    let mut online = vec![];
    for name in ["Here1", "Here2", "Here3"] {
        let (_, _, t) = app.player_with_bot(name).await;
        // A long-poll of 0 s: the bot is online, so its pairing starts.
        app.get_turn(Some(&t), "wait_s=0").await;
        online.push((name.to_string(), t));
    }
    app.player_with_bot("Ghost").await;
    let r = app
        .create_tournament(
            Some("op-secret"),
            json!({"name": "Ghost Cup", "format": "round_robin",
                   "participants": ["Here1", "Here2", "Here3", "Ghost"],
                   "options": {"size": 9, "random_stones": 0},
                   "absent": "forfeit", "forfeit_after_s": 600}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    let r = app
        .start_tournament(Some("op-secret"), &id, json!({}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    (id, online)
}

/// Polls tournament `id` until `pred` holds for one of round 1's pairings, and returns it.
async fn round1_pairing(
    app: &TestApp,
    id: &str,
    pred: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let t = app.get_tournament(id).await.body;
        if let Some(p) = t["rounds_played"][0]["pairings"]
            .as_array()
            .and_then(|ps| ps.iter().find(|p| pred(p)))
        {
            return p.clone();
        }
        assert!(std::time::Instant::now() < until, "never got there: {t}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn a_pending_pairing_says_which_bot_it_waits_for_and_when_an_absent_one_forfeits() {
    let app = spawn_app().await;
    let (id, _) = tournament_with_a_ghost(&app).await;
    let p = round1_pairing(&app, &id, |p| p["waiting_for"] == json!(["Ghost"])).await;
    assert_eq!(p["status"], "pending", "{p}");
    let (_, _, html) = page(&app, &format!("/tournaments/{id}")).await;
    let round = between(&html, "<div class=\"round\"><h3>Round 1</h3>", "</table>");
    let row = round
        .split("<tr>")
        .find(|r| r.contains("href=\"/bots/Ghost\""))
        .expect("Ghost's pairing has a row");
    assert!(
        row.contains(
            "<td class=\"wrapok\">pending: waiting for <a href=\"/bots/Ghost\" class=\"bot\" dir=\"auto\">Ghost</a></td>"
        ),
        "{row}"
    );
    let notes = between(&html, "<div class=\"round\"><h3>Round 1</h3>", "</p></div>");
    assert!(
        notes
            .contains("a bot still absent 600\u{a0}s after the round was paired forfeits the set."),
        "{notes}"
    );
}

#[tokio::test]
async fn a_rounds_table_says_its_points_are_set_points_and_shows_the_game_points_too() {
    let app = spawn_app().await;
    let (id, online) = tournament_with_a_ghost(&app).await;
    let p = round1_pairing(&app, &id, |p| p["status"] == "playing").await;
    let set = p["set_id"].as_str().expect("a set in play").to_string();
    // Seat 1 of game 2 wins: the loser resigns both games.
    let g2 = app.state(&set, 2).await;
    let token = |name: &serde_json::Value| {
        online
            .iter()
            .find(|(n, _)| name == n.as_str())
            .map(|(_, t)| t.clone())
            .expect("an online bot")
    };
    let winner = token(&g2["seats"][0]["bot"]);
    let loser = token(&g2["seats"][1]["bot"]);
    app.lose_set(&loser, &winner, &set).await;
    let p = round1_pairing(&app, &id, |p| {
        p["set_id"] == json!(set) && p["status"] == "finished"
    })
    .await;
    let (set_points, games) = if p["points"] == json!([1.0, 0.0]) {
        ("1 – 0", "2 – 0")
    } else {
        ("0 – 1", "0 – 2")
    };
    let (_, _, html) = page(&app, &format!("/tournaments/{id}")).await;
    let round = between(&html, "<div class=\"round\"><h3>Round 1</h3>", "</table>");
    assert!(
        round.contains("<abbr title=\"set points: 1 a set won, ½ a drawn set\">Set pts</abbr>")
            && round
                .contains("<abbr title=\"game points: 1 a game won, ½ a drawn game\">Games</abbr>"),
        "{round}"
    );
    let row = round
        .split("<tr>")
        .find(|r| r.contains(&format!("href=\"/sets/{set}\"")))
        .expect("the set's row");
    // The set page, the bot page and the home page show the games (2 – 0): here both.
    assert!(
        row.contains(&format!(
            "<td class=\"num\">{set_points}</td><td class=\"num\">{games}</td>"
        )),
        "{row}"
    );
    let legend = between(&html, "<p class=\"hint\" id=\"points-legend\">", "</p>");
    assert!(
        legend.contains("Set pts: 1 a set won, ½ a drawn set"),
        "{legend}"
    );
}

/// A round robin of three bots, created and not started: its id.
async fn created_tournament(app: &TestApp) -> String {
    for name in ["alpha-bot", "bravo-bot", "charlie-bot"] {
        app.player_with_bot(name).await;
    }
    let r = app
        .create_tournament(
            Some("op-secret"),
            json!({"name": "Cup", "format": "round_robin",
                   "participants": ["alpha-bot", "bravo-bot", "charlie-bot"],
                   "start_at": "2099-01-02T12:34:56Z"}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    r.body["id"].as_str().expect("id").to_string()
}

#[tokio::test]
async fn the_phone_note_on_left_out_columns_points_where_they_are_shown() {
    let app = spawn_app().await;
    let id = created_tournament(&app).await;
    let (_, _, html) = page(&app, &format!("/tournaments/{id}")).await;
    let note = between(&html, "<p class=\"hint narrow\">", "</p>");
    // The printable page leaves the same columns out at a phone's width, so "the printable
    // standings have them" was untrue there: turning the phone shows them on either page.
    assert!(
        !note.contains("the printable standings have them"),
        "{note}"
    );
    assert!(note.contains("turn the phone sideways"), "{note}");
    let (_, _, print) = page(&app, &format!("/tournaments/{id}/standings")).await;
    if print.contains(".o, .long { display: none; }") {
        assert!(
            print.contains("turn the phone or print the page for them"),
            "{print}"
        );
    }
}

#[tokio::test]
async fn the_standings_say_what_perf_is_and_when_it_has_a_plus_minus() {
    let app = spawn_app().await;
    let id = created_tournament(&app).await;
    let (_, _, html) = page(&app, &format!("/tournaments/{id}")).await;
    let legend = between(&html, "id=\"perf-legend\">", "</p>")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    for words in [
        "forfeits and byes left out",
        "opponents' mean rating when the tournament was created",
        "Elo difference of its game score",
        "The ± is the 95% interval",
        "0 or 100% score",
    ] {
        assert!(legend.contains(words), "{words}: {legend}");
    }
    let (_, _, print) = page(&app, &format!("/tournaments/{id}/standings")).await;
    assert!(
        print.contains("<p class=\"legend\" id=\"perf-legend\">"),
        "the printable page says it too: {print}"
    );
}

#[tokio::test]
async fn a_match_has_a_page_with_its_record_elo_sprt_and_sets_and_its_sets_link_to_it() {
    let app = spawn_app().await;
    let (_, owner, bravo) = app.player_with_bot("Bravo").await;
    let echo = app.bot(&owner, "Echo").await;
    for t in [&bravo, &echo] {
        app.get_turn(Some(t), "wait_s=0").await;
    }
    let r = app
        .create_match(
            Some(&owner),
            json!({"bots": ["Bravo", "Echo"], "sets": 4,
                   "sprt": {"elo0": 0, "elo1": 50, "alpha": 0.05, "beta": 0.05},
                   "options": {"size": 9, "random_stones": 0}}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let id = r.body["id"].as_str().expect("id").to_string();
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    let set = loop {
        let m = app.get_match(&id).await.body;
        if let Some(s) = m["set_list"][0]["set_id"].as_str() {
            break s.to_string();
        }
        assert!(std::time::Instant::now() < until, "no set started: {m}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    };
    let (status, kind, html) = page(&app, &format!("/matches/{id}")).await;
    assert_eq!(status, StatusCode::OK);
    assert!(kind.starts_with("text/html"), "{kind}");
    assert!(
        html.contains("<title>Bravo vs Echo – match – Hex arena</title>"),
        "{html}"
    );
    let facts = between(&html, "<dl class=\"facts\" id=\"facts\">", "</dl>");
    for words in [
        "<dt>Sets played</dt><dd>0 of 4</dd>",
        "<dt>W / D / L</dt><dd>0 / 0 / 0 <span class=\"muted\">for <a href=\"/bots/Bravo\"",
        "<dt>Elo difference</dt><dd>– (no set played yet)</dd>",
        "<dt>SPRT</dt><dd>elo0 0, elo1 50, α 0.05, β 0.05 · LLR 0.00 (bounds -2.94 and +2.94) · undecided</dd>",
    ] {
        assert!(facts.contains(words), "{words}: {facts}");
    }
    let sets = between(&html, "<tbody id=\"sets\">", "</tbody>");
    assert!(sets.contains(&format!("href=\"/sets/{set}\"")), "{sets}");
    assert!(html.contains("<meta http-equiv=\"refresh\" content=\"30\">"));
    // The set's page links the match's page, not its JSON.
    let (_, _, html) = page(&app, &format!("/sets/{set}")).await;
    assert!(
        html.contains(&format!("<dt>Match</dt><dd><a href=\"/matches/{id}\">")),
        "{html}"
    );

    // Once a set is over its row says who won, and the set's page the same (report: the list
    // showed only "finished" and a truncated id).
    app.lose_set(&echo, &bravo, &set).await;
    let view = app.get_set(&set).await.body;
    assert_eq!(view["result"], "Bravo wins", "{view}");
    // The match learns of the result a moment later.
    let until = std::time::Instant::now() + std::time::Duration::from_secs(20);
    loop {
        let m = app.get_match(&id).await.body;
        if m["set_list"][0]["status"] == "finished" {
            break;
        }
        assert!(std::time::Instant::now() < until, "never finished: {m}");
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    let (_, _, html) = page(&app, &format!("/matches/{id}")).await;
    assert!(
        html.contains("<th scope=\"col\">Result</th>"),
        "the sets table has a Result column"
    );
    let sets = between(&html, "<tbody id=\"sets\">", "</tbody>");
    let row = sets
        .split("<tr>")
        .find(|r| r.contains(&format!("href=\"/sets/{set}\"")))
        .expect("the set's row");
    assert!(
        row.contains("<td>finished</td><td class=\"wrapok\">Bravo wins</td>"),
        "{row}"
    );

    let (status, kind, html) = page(&app, "/matches/match_nope").await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    assert!(kind.starts_with("text/html"), "{kind}");
    assert!(html.contains("No match &#39;match_nope&#39;."), "{html}");
}

/// The WCAG contrast ratio of two `#rrggbb` colours.
fn contrast(a: &str, b: &str) -> f64 {
    let luminance = |hex: &str| {
        let hex = hex.trim_start_matches('#');
        let channel = |i: usize| {
            let c =
                f64::from(u8::from_str_radix(&hex[i..i + 2], 16).expect("a hex colour")) / 255.0;
            if c <= 0.039_28 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * channel(0) + 0.7152 * channel(2) + 0.0722 * channel(4)
    };
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

#[tokio::test]
async fn links_in_a_dark_title_bar_are_light_enough_to_read() {
    let app = spawn_app().await;
    let (_, kind, css) = page(&app, "/assets/site.css").await;
    assert!(kind.starts_with("text/css"), "{kind}");
    // The bar's background is the ink colour; a match's title is made of links to its bots,
    // and they were the accent blue on it (a contrast of about 2).
    let ink = between(&css, "--ink: ", ";").trim_start_matches("--ink: ");
    let bar = between(&css, "header.site {", "}");
    assert!(bar.contains("background: var(--ink)"), "{bar}");
    let rule = between(&css, "\nheader.site a {", "}");
    let colour = between(rule, "color: #", ";").trim_start_matches("color: ");
    let ratio = contrast(colour, ink);
    assert!(
        ratio >= 7.0,
        "links on the bar are {colour} on {ink}: contrast {ratio:.1}"
    );
}

#[tokio::test]
async fn the_leaderboard_and_the_head_to_head_show_how_sure_a_rating_is_on_a_phone_too() {
    let app = spawn_app().await;
    played_set(&app).await;
    let rows = app.leaderboard("game=hex").await.body;
    let evil = rows["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["bot"] == "evil-bot")
        .expect("evil-bot is on the leaderboard")
        .clone();
    let glicko = format!(
        "{} ± {}",
        evil["glicko_rating"]
            .as_f64()
            .expect("a Glicko-2 rating")
            .round(),
        evil["rating_deviation"]
            .as_f64()
            .expect("a deviation")
            .round()
    );
    let (_, _, html) = page(&app, "/").await;
    let board = between(&html, "<tbody id=\"leaderboard\">", "</tbody>");
    let row = between(board, "<tr data-bot=\"evil-bot\">", "</tr>");
    // A phone leaves the Glicko-2 column out: the rating ± deviation goes under the name.
    assert!(
        row.contains(&format!(
            "<span class=\"byline narrow-only glicko\">Glicko-2 {glicko}</span>"
        )),
        "{row}"
    );
    assert!(
        row.contains(&format!("<td class=\"num opt\">{glicko}</td>")),
        "a wide screen keeps its column: {row}"
    );
    let note = between(&html, "<p class=\"hint\" id=\"leaderboard-note\">", "</p>");
    assert!(
        note.contains("rating ± deviation\n      (on a phone, under each bot's name)"),
        "{note}"
    );

    // The head-to-head's header promises the 95% interval: a phone shows it too.
    let versus = app.get_bot_opponents("evil-bot", "limit=5").await.body;
    let v = &versus["opponents"][0];
    assert_eq!(v["opponent"], "good-bot", "{versus}");
    let bound = |x: &serde_json::Value, inf: &str| {
        x.as_f64().map_or_else(
            || inf.to_string(),
            |f| format!("{}{}", if f > 0.0 { "+" } else { "" }, f.round()),
        )
    };
    let interval = format!(
        " ({} to {})",
        bound(&v["elo_low"], "−∞"),
        bound(&v["elo_high"], "+∞")
    );
    let (_, _, html) = page(&app, "/bots/evil-bot").await;
    // Short enough that the table fits a phone (a browser check saw "(95% interval)" push
    // the LOS column 37 px out).
    assert!(html.contains(">Elo (95%)</th>"), "the header");
    let rows = between(&html, "<tbody id=\"versus\">", "</tbody>");
    assert!(
        rows.contains(&format!("<span class=\"ci\">{interval}</span>")),
        "{interval}: {rows}"
    );
    assert!(
        html.contains("@media (max-width: 640px) { #versus .ci { display: block;"),
        "a phone puts the interval under the difference"
    );
}

#[tokio::test]
async fn a_set_won_on_the_tiebreak_shows_the_move_counts_it_compared() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("Alpha").await;
    let (_, _, bravo) = app.player_with_bot("Bravo").await;
    let set = tiebreak_set(&app, &alpha, &bravo).await;
    let view = app.get_set(&set).await.body;
    let winner = view["winner"].as_str().expect("a winner").to_string();
    let loser = if winner == "Alpha" { "Bravo" } else { "Alpha" };
    // The winner won game 2 with one move; the loser won game 1 with 10 (19 plies).
    let used = |n: usize| view["games"][n]["moves_used"].clone();
    assert_eq!(used(0), json!([10, 9]), "{view}");
    assert_eq!(used(1), json!([1, 0]), "{view}");
    let (_, _, html) = page(&app, &format!("/sets/{set}")).await;
    let facts = between(&html, "<dl class=\"facts\" id=\"facts\">", "</dl>");
    assert!(
        facts.contains(&format!(
            "<dt>Result</dt><dd><strong>{winner} wins on the tiebreak</strong>: 1 move against <bdi>{loser}</bdi>'s 10"
        )),
        "{facts}"
    );
    // The script redraws the facts the same way.
    assert!(html.contains("function tiebreakCounts(set)"));
}

#[tokio::test]
async fn the_win_probability_graph_has_a_legend_naming_the_bots() {
    let app = spawn_app().await;
    let (set, _) = played_set(&app).await;
    let g1 = app.state(&set, 1).await;
    let bot = |i: usize| g1["seats"][i]["bot"].as_str().expect("a bot").to_string();
    let colour = |i: usize| match g1["seats"][i]["color"].as_str() {
        Some("blue") => "#2b62c4",
        _ => "#c8313c",
    };
    let (_, _, html) = page(&app, &format!("/sets/{set}")).await;
    let game1 = between(&html, "data-game=\"1\"", "</section>");
    // Hidden until the script draws the graph from the game's analysis.
    let legend = between(game1, "<p class=\"graph-legend\" hidden>", "</p>");
    assert!(
        legend.contains(&format!(
            "Line: the chance that <bdi>{}</bdi> (seat 1) wins, after each move",
            bot(0)
        )),
        "{legend}"
    );
    assert!(
        legend.contains(&format!(
            "Dots: mistakes, by <span class=\"dot\" style=\"--c:{}\"></span><bdi>{}</bdi> or \
             <span class=\"dot\" style=\"--c:{}\"></span><bdi>{}</bdi>.",
            colour(0),
            bot(0),
            colour(1),
            bot(1)
        )),
        "{legend}"
    );
}
