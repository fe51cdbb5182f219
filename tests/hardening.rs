//! Faults found by trying to break the arena, kept as tests: each refused request gets the
//! right code and changes nothing; each accepted oddity is really accepted.

mod common;
use common::paths;

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use common::spawn_app;
use reqwest::StatusCode;
use serde_json::json;

#[tokio::test]
async fn integers_written_as_floats_pass_the_schemas_and_are_played() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("FloatA").await;
    let (_, _, bravo) = app.player_with_bot("FloatB").await;
    let set = app
        .start_set(
            &alpha,
            &bravo,
            json!({"options": {"size": 9.0, "random_stones": 0e0}}),
        )
        .await;
    let s = app.state(&set, 1).await;
    assert_eq!(s["options"], json!({"size": 9, "random_stones": 0}));
    let r = app
        .play(&bravo, &set, 1, json!({"cell": [1.0, 2.0]}), Some(1))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["moves"][0]["cell"], json!([1, 2]));
    // A real fraction is still a schema error with its path.
    let r = app
        .play(&alpha, &set, 1, json!({"cell": [1.5, 2]}), Some(2))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    assert_eq!(r.code(), "invalid_move");
    assert_eq!(r.body["error"]["details"]["instance_path"], "/cell/0");
}

#[tokio::test]
async fn the_bearer_scheme_is_case_insensitive() {
    let app = spawn_app().await;
    let (_, player) = app.player("casey").await;
    for scheme in ["Bearer", "bearer", "BEARER", "bEaReR"] {
        let r = app
            .http
            .get(format!("{}{}", app.url, paths::player_me()))
            .header("Authorization", format!("{scheme} {player}"))
            .send()
            .await
            .expect("request");
        assert_eq!(r.status(), StatusCode::OK, "scheme {scheme}");
    }
    let r = app
        .http
        .get(format!("{}{}", app.url, paths::player_me()))
        .header("Authorization", format!("Basic {player}"))
        .send()
        .await
        .expect("request");
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn list_parameters_out_of_range_are_bad_requests() {
    let app = spawn_app().await;
    let (_, player) = app.player("lister").await;
    for path in [
        &paths::with_query(paths::sets(), "limit=0"),
        &paths::with_query(paths::sets(), "limit=-5"),
        &paths::with_query(paths::leaderboard(), "limit=0"),
        &paths::with_query(paths::sets(), "before=garbage"),
    ] {
        let r = app.get(path).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{path}: {:?}", r.body);
        assert_eq!(r.code(), "bad_request");
    }
    let r = app.ledger(Some(&player), "limit=0").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST);
    // Large limits are capped, not refused.
    let r = app.leaderboard("limit=1000000").await;
    assert_eq!(r.status, StatusCode::OK);
}

#[tokio::test]
async fn a_non_object_body_is_a_bad_request_where_an_object_is_expected() {
    let app = spawn_app().await;
    for body in ["[1, 2]", "\"ada\"", "5", "null"] {
        let r = app.create_player_raw(body.as_bytes().to_vec()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}");
        assert_eq!(r.code(), "bad_request");
    }
}

#[tokio::test]
async fn a_body_that_stalls_is_cut_off_with_a_timeout_error() {
    let app = spawn_app().await;
    let addr = app.url.trim_start_matches("http://").to_string();
    let t0 = Instant::now();
    let answer = tokio::task::spawn_blocking(move || {
        let mut s = std::net::TcpStream::connect(addr).expect("connect");
        s.set_read_timeout(Some(Duration::from_secs(30))).expect("timeout");
        let head = format!(
            "POST {} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"name\":",
            paths::players()
        );
        s.write_all(head.as_bytes())
            .expect("write");
        let mut buf = vec![0u8; 4096];
        let n = s.read(&mut buf).unwrap_or(0);
        String::from_utf8_lossy(&buf[..n]).to_string()
    })
    .await
    .expect("join");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("\"request_timeout\""), "{answer}");
    assert!(t0.elapsed() < Duration::from_secs(20), "{:?}", t0.elapsed());
}

/// Issue 10 / SPEC 14: an accept retried by the bot whose accept already took effect (the
/// first answer lost) answers 200 with the set and escrows nothing more.
#[tokio::test]
async fn a_retried_accept_by_the_acceptor_is_the_same_success_and_changes_nothing() {
    let app = spawn_app().await;
    let (_, alpha_owner, alpha) = app.player_with_bot("RetryAlpha").await;
    let (_, bravo_owner, bravo) = app.player_with_bot("RetryBravo").await;
    let set = app.start_set(&alpha, &bravo, json!({"stake": 30})).await;
    let before = (
        app.balance(&alpha_owner).await,
        app.balance(&bravo_owner).await,
    );
    assert_eq!(before, (970, 970));
    let first = app.get_set(&set).await.body;
    let r = app.accept_set(Some(&bravo), &set, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["id"], set.as_str());
    assert_eq!(r.body["status"], "active");
    assert_eq!(r.body["acceptor"], "RetryBravo");
    assert_eq!(r.body, first, "the set as it is");
    assert_eq!(
        (
            app.balance(&alpha_owner).await,
            app.balance(&bravo_owner).await
        ),
        before
    );
    // Anyone else still gets set_not_open, the creator included.
    let (_, _, charlie) = app.player_with_bot("RetryCharlie").await;
    for token in [&charlie, &alpha] {
        let r = app.accept_set(Some(token), &set, json!({})).await;
        assert_eq!(r.status, StatusCode::CONFLICT, "{:?}", r.body);
        assert_eq!(r.code(), "set_not_open");
    }
}

/// Issue 10 / SPEC 14: cancel and decline repeated by the caller whose call closed the set
/// answer 200 with the closed set; the other closing call stays a conflict.
#[tokio::test]
async fn a_retried_cancel_or_decline_is_the_same_success() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("CloseAlpha").await;
    let (_, _, bravo) = app.player_with_bot("CloseBravo").await;
    let mut ids = Vec::new();
    for _ in 0..2 {
        let r = app
            .create_set(
                Some(&alpha),
                json!({"game": "hex", "opponent": "CloseBravo"}),
            )
            .await;
        assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
        ids.push(r.body["id"].as_str().expect("id").to_string());
    }
    for (id, verb, token, status) in [
        (&ids[0], "cancel", &alpha, "cancelled"),
        (&ids[1], "decline", &bravo, "declined"),
    ] {
        let path = if verb == "cancel" {
            paths::cancel(id)
        } else {
            paths::decline(id)
        };
        let first = app.post(&path, Some(token), json!({})).await;
        assert_eq!(first.status, StatusCode::OK, "{:?}", first.body);
        assert_eq!(first.body["status"], status);
        let again = app.post(&path, Some(token), json!({})).await;
        assert_eq!(
            again.status,
            StatusCode::OK,
            "{verb} retried: {:?}",
            again.body
        );
        assert_eq!(again.body, first.body, "{verb} retried");
    }
    // The other way of closing is not a retry: it stays a conflict.
    let r = app.decline_set(Some(&bravo), &ids[0], json!({})).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{:?}", r.body);
    assert_eq!(r.code(), "set_not_open");
    let r = app.cancel_set(Some(&alpha), &ids[1], json!({})).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{:?}", r.body);
    assert_eq!(r.code(), "set_not_open");
}

/// Issue 10 / SPEC 14: a resignation retried by the seat that resigned (its first answer lost)
/// answers 200 with the finished state, not 409 `game_over`.
#[tokio::test]
async fn a_retried_resignation_by_the_resigning_seat_is_the_same_success() {
    let app = spawn_app().await;
    let (_, _, alpha) = app.player_with_bot("ResignAlpha").await;
    let (_, _, bravo) = app.player_with_bot("ResignBravo").await;
    let set = app.start_set(&alpha, &bravo, json!({})).await;
    let path = paths::resign(&set, 1);
    // game 1 seats the acceptor (bravo) as seat 1
    let first = app.post(&path, Some(&bravo), json!({})).await;
    assert_eq!(first.status, StatusCode::OK, "{:?}", first.body);
    assert_eq!(first.body["result"]["reason"], "resignation");
    assert_eq!(first.body["result"]["winner_bot"], "ResignAlpha");
    let again = app.post(&path, Some(&bravo), json!({})).await;
    assert_eq!(again.status, StatusCode::OK, "{:?}", again.body);
    assert_eq!(again.body["status"], "finished");
    assert_eq!(again.body["result"], first.body["result"]);
    // The winner resigning a game it already won is no retry: still game_over.
    let r = app.post(&path, Some(&alpha), json!({})).await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{:?}", r.body);
    assert_eq!(r.code(), "game_over");
}

/// Issue 10: HEAD wherever GET works (same status and headers, no body), also on an event
/// stream, which answers at once instead of streaming.
#[tokio::test]
async fn head_works_wherever_get_does() {
    let app = spawn_app().await;
    let (_, player, alpha) = app.player_with_bot("HeadAlpha").await;
    let (_, _, bravo) = app.player_with_bot("HeadBravo").await;
    let set = app.start_set(&alpha, &bravo, json!({})).await;
    for (path, token) in [
        ("/healthz".to_string(), None),
        (paths::game_contract("hex"), None),
        (paths::sets(), None),
        (paths::set(&set), None),
        (paths::game(&set, 1), None),
        (paths::game_sgf(&set, 1), None),
        (paths::player_me(), Some(player.as_str())),
        (paths::bot_me(), Some(alpha.as_str())),
        ("/".to_string(), None),
    ] {
        let send = |method: reqwest::Method| {
            let mut rb = app.http.request(method, format!("{}{path}", app.url));
            if let Some(t) = token {
                rb = rb.bearer_auth(t);
            }
            rb.send()
        };
        let get = send(reqwest::Method::GET).await.expect("GET");
        let head = send(reqwest::Method::HEAD).await.expect("HEAD");
        assert_eq!(head.status(), get.status(), "{path}");
        assert_eq!(head.status(), StatusCode::OK, "{path}");
        assert_eq!(
            head.headers().get("content-type"),
            get.headers().get("content-type"),
            "{path}"
        );
        let get_len = get.bytes().await.expect("GET body").len();
        assert_eq!(
            head.headers()
                .get("content-length")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<usize>().ok()),
            Some(get_len),
            "{path}"
        );
        assert!(head.bytes().await.expect("HEAD body").is_empty(), "{path}");
    }
    let t0 = Instant::now();
    let r = app
        .http
        .head(format!("{}{}", app.url, paths::game_events(&set, 1)))
        .timeout(Duration::from_secs(5))
        .send()
        .await
        .expect("HEAD on a stream answers");
    assert_eq!(r.status(), StatusCode::OK);
    assert!(
        r.headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream")),
        "{:?}",
        r.headers()
    );
    assert!(t0.elapsed() < Duration::from_secs(3), "{:?}", t0.elapsed());
}

/// Issue 10: an unknown method on a known path is 405 with `Allow` and the JSON envelope; an
/// unknown path stays 404.
#[tokio::test]
async fn an_unknown_method_on_a_known_path_is_405_with_allow() {
    let app = spawn_app().await;
    for (method, path, allow) in [
        (
            reqwest::Method::DELETE,
            paths::game_contract("hex"),
            "GET, HEAD",
        ),
        (reqwest::Method::PUT, paths::sets(), "POST, GET, HEAD"),
        (reqwest::Method::POST, "/healthz".to_string(), "GET, HEAD"),
        (reqwest::Method::GET, paths::accept("set_X"), "POST"),
        (reqwest::Method::PATCH, paths::moves("set_X", 1), "POST"),
    ] {
        let r = app
            .http
            .request(method.clone(), format!("{}{path}", app.url))
            .send()
            .await
            .expect("request");
        assert_eq!(
            r.status(),
            StatusCode::METHOD_NOT_ALLOWED,
            "{method} {path}"
        );
        assert_eq!(
            r.headers().get("allow").and_then(|v| v.to_str().ok()),
            Some(allow),
            "{method} {path}"
        );
        let body: serde_json::Value = r.json().await.expect("json envelope");
        assert_eq!(body["error"]["code"], "method_not_allowed");
    }
    let r = app
        .http
        .delete(format!("{}{}", app.url, paths::not_a_route()))
        .send()
        .await
        .expect("request");
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let body: serde_json::Value = r.json().await.expect("json envelope");
    assert_eq!(body["error"]["code"], "not_found");
}

/// Issue 10: a name made only of characters that render as nothing is refused like a blank one.
#[tokio::test]
async fn names_made_only_of_invisible_characters_are_refused() {
    let app = spawn_app().await;
    for name in [
        "\u{3164}",
        "\u{2800}\u{2800}",
        "\u{00AD}",
        "\u{115F}\u{1160}",
        "\u{FE0F}",
        "\u{E0041}\u{E0042}",
        "\u{3000}",
    ] {
        let r = app.create_player(json!({"name": name})).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "name {name:?}");
        assert_eq!(r.body["error"]["details"]["field"], "name");
    }
    // Issue 17: next to a visible character a filler is still refused (a tester's
    // "ada\u{3164}" showed as "ada"); without them the name is welcome.
    let r = app.create_player(json!({"name": "\u{3164}x"})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{:?}", r.body);
    assert_eq!(r.body["error"]["details"]["code_point"], "U+3164");
    let r = app.create_player(json!({"name": "x"})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
}

/// Issue 11: names starting with `house-` are kept for the house bots, in any case, whether
/// or not a rung of that name exists (yet); names merely containing it are free.
#[tokio::test]
async fn a_player_cannot_name_a_bot_like_a_house_bot() {
    let app = spawn_app().await;
    let (_, player) = app.player("Mimic").await;
    for name in [
        "house-master",
        "House-Master",
        "HOUSE-grandmaster",
        "house-x",
    ] {
        let r = app.create_bot(Some(&player), json!({"name": name})).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{name}: {:?}", r.body);
        assert_eq!(r.body["error"]["details"]["field"], "name");
        assert_eq!(app.get_bot(&name).await.status, StatusCode::NOT_FOUND);
    }
    for name in ["my-house-bot", "housemaster", "house"] {
        let r = app.create_bot(Some(&player), json!({"name": name})).await;
        assert_eq!(r.status, StatusCode::CREATED, "{name}: {:?}", r.body);
    }
}

/// Issue 10: requests refused for their content are not counted by the rate limiter.
#[tokio::test]
async fn refused_registrations_do_not_use_up_the_rate_limit() {
    let app = common::spawn_with(common::Spawn {
        register_per_min: 2,
        ..common::Spawn::default()
    })
    .await;
    for _ in 0..5 {
        let r = app.create_player(json!({"name": "   "})).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{:?}", r.body);
    }
    for name in ["one", "two"] {
        let r = app.create_player(json!({"name": name})).await;
        assert_eq!(r.status, StatusCode::CREATED, "{name}: {:?}", r.body);
    }
    let r = app.create_player(json!({"name": "three"})).await;
    assert_eq!(r.status, StatusCode::TOO_MANY_REQUESTS, "{:?}", r.body);
    assert_eq!(r.code(), "rate_limited");
}

/// Issue 10: an operator pairing whose `bots` list holds a non-string is a 400, not a pairing
/// of the string entries.
#[tokio::test]
async fn non_string_entries_in_an_operator_bots_list_are_refused() {
    let app = common::spawn_with(common::Spawn {
        operator_token: Some("op-secret".into()),
        ..common::Spawn::default()
    })
    .await;
    app.player_with_bot("OpAlpha").await;
    app.player_with_bot("OpBravo").await;
    for bots in [
        json!(["OpAlpha", 5, "OpBravo"]),
        json!(["OpAlpha", null, "OpBravo"]),
        json!([["OpAlpha"], "OpBravo"]),
    ] {
        let r = app
            .create_operator_set(Some("op-secret"), json!({"bots": bots, "stake": 10}))
            .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bots}: {:?}", r.body);
        assert_eq!(r.code(), "bad_request");
    }
    assert_eq!(app.list_sets("").await.body["sets"], json!([]));
    let r = app
        .create_operator_set(
            Some("op-secret"),
            json!({"bots": ["OpAlpha", "OpBravo"], "stake": 10}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
}

/// A missing required field is named in `details.field`, as agents.md promises.
#[tokio::test]
async fn a_missing_required_field_is_named_in_the_details() {
    let app = spawn_app().await;
    let (_, player, bot) = app.player_with_bot("FieldBot").await;
    let r = app.create_set(Some(&bot), json!({"stake": 10})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{:?}", r.body);
    assert_eq!(r.body["error"]["details"]["field"], "game");
    let r = app.create_bot(Some(&player), json!({})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{:?}", r.body);
    assert_eq!(r.body["error"]["details"]["field"], "name");
    let r = app.get_turn(Some(&bot), "wait_s=-1").await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{:?}", r.body);
    assert!(
        r.body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("wait_s")),
        "{:?}",
        r.body
    );
}

/// Issue 10 (schemathesis): a query integer too long for 64 bits was a 400 although the spec
/// allows any integer. Now it saturates: a clamped `limit` or `wait_s` is clamped, a `ply` or
/// `after_ply` compares as the largest (or smallest) value there is.
#[tokio::test]
async fn query_integers_beyond_64_bits_saturate_instead_of_being_refused() {
    const HUGE: &str = "52279391431076983787624150859776";
    let app = spawn_app().await;
    let (_, player, alpha) = app.player_with_bot("HugeA").await;
    let (_, _, bravo) = app.player_with_bot("HugeB").await;
    let set = app.start_set(&alpha, &bravo, json!({})).await;
    let s = app.state(&set, 1).await;
    let seats = common::seat_tokens(&s, &[("HugeA", &alpha), ("HugeB", &bravo)]);
    let to_move = s["to_move"].as_u64().expect("someone on move") as usize;
    let on_move = seats[to_move - 1];
    let ply = s["ply"].as_i64().expect("ply");

    for path in [
        paths::with_query(paths::leaderboard(), &format!("limit={HUGE}")),
        paths::with_query(paths::sets(), &format!("limit={HUGE}")),
        paths::with_query(paths::matches(), &format!("limit={HUGE}")),
        paths::with_query(paths::tournaments(), &format!("limit={HUGE}")),
    ] {
        let r = app.get(&path).await;
        assert_eq!(r.status, StatusCode::OK, "{path}: {:?}", r.body);
    }
    let r = app.list_sets("limit=99999999999999999999999").await;
    assert_eq!(r.body["sets"][0]["id"], set.as_str());
    let r = app
        .ledger(Some(&player), &format!("limit={HUGE}&before={HUGE}"))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert!(r.body["postings"].is_array(), "{:?}", r.body);

    // A bot on move is answered at once, whatever the (clamped) wait.
    let started = Instant::now();
    let r = app.get_turn(Some(on_move), &format!("wait_s={HUGE}")).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["set_id"], set.as_str());
    let r = app
        .poll_game(&set, 1, &format!("after_ply=-{HUGE}&wait_s={HUGE}"))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(r.body["ply"], ply);
    assert!(started.elapsed() < Duration::from_secs(5));

    // A ply beyond 64 bits is a stale ply like any other wrong ply, and plays nothing.
    let r = app
        .post_move(
            Some(on_move),
            &set,
            1,
            &format!("ply={HUGE}"),
            json!({"cell": [4, 4]}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CONFLICT, "{:?}", r.body);
    assert_eq!(r.code(), "stale_ply");
    assert_eq!(app.state(&set, 1).await["ply"], ply);

    // Still refused: below the minimum, a sign on an unsigned value, a fraction.
    for path in [
        paths::with_query(paths::leaderboard(), &format!("limit=-{HUGE}")),
        paths::with_query(paths::game(&set, 1), "after_ply=1.5"),
        paths::with_query(paths::game(&set, 1), &format!("wait_s=-{HUGE}")),
        paths::with_query(paths::sets(), "limit="),
    ] {
        let r = app.get(&path).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{path}: {:?}", r.body);
        assert_eq!(r.code(), "bad_request");
    }
}

/// Issue 10 (schemathesis): a match's `bots` list silently dropped entries that were not
/// strings, so `["A", 5, "B"]` made a match of A and B. It is a 400 now and creates nothing.
#[tokio::test]
async fn non_string_entries_in_a_match_bots_list_are_refused() {
    let app = spawn_app().await;
    let (_, player) = app.player("matcher").await;
    app.bot(&player, "MatchA").await;
    app.bot(&player, "MatchB").await;
    for bots in [
        json!(["MatchA", 5, "MatchB"]),
        json!(["MatchA", null, "MatchB"]),
        json!([["MatchA"], "MatchB"]),
    ] {
        let r = app
            .create_match(Some(&player), json!({"bots": bots, "sets": 2}))
            .await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{bots}: {:?}", r.body);
        assert_eq!(r.code(), "bad_request");
        assert_eq!(r.body["error"]["details"]["field"], "bots");
    }
    assert_eq!(app.list_matches("").await.body["matches"], json!([]));
    let r = app
        .create_match(
            Some(&player),
            json!({"bots": ["MatchA", "MatchB"], "sets": 2}),
        )
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    assert_eq!(r.body["bots"], json!(["MatchA", "MatchB"]));
}
