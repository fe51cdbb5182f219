//! Issue 18, part C, over HTTP: before a tournament starts the operator adds and removes
//! participants, changes its settings with `PATCH` (validated as creation is) and deletes it
//! without a trace; once it started each of these is 409. And the printable standings page.

mod common;
use common::paths;

use common::{TestApp, spawn_app};
use reqwest::StatusCode;
use serde_json::{Value, json};

const OP: &str = "op-secret";

async fn create(app: &TestApp, body: Value) -> Value {
    let r = app.create_tournament(Some(OP), body).await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    r.body
}

fn seeds(t: &Value) -> Vec<(i64, String)> {
    t["participants"]
        .as_array()
        .expect("participants")
        .iter()
        .map(|p| {
            (
                p["seed"].as_i64().expect("seed"),
                p["bot"].as_str().expect("bot").to_string(),
            )
        })
        .collect()
}

fn seeded(names: &[&str]) -> Vec<(i64, String)> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| (i as i64 + 1, n.to_string()))
        .collect()
}

#[tokio::test]
async fn participants_are_added_and_removed_before_the_start_with_the_checks_of_creation() {
    let app = spawn_app().await;
    for n in ["PtA", "PtB", "PtC", "PtD", "PtE", "PtF"] {
        app.player_with_bot(n).await;
    }
    let t = create(
        &app,
        json!({"name": "Field", "format": "round_robin", "participants": ["PtA", "PtB", "PtC"]}),
    )
    .await;
    let id = t["id"].as_str().expect("id").to_string();
    assert_eq!(t["rounds"], 3);
    let add = |bot: &str, seed: Option<i64>| {
        let mut body = json!({"bot": bot});
        if let Some(s) = seed {
            body["seed"] = json!(s);
        }
        let path = paths::participants(&id);
        let app = &app;
        async move { app.post(&path, Some(OP), body).await }
    };
    let r = add("PtD", None).await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    assert_eq!(seeds(&r.body), seeded(&["PtA", "PtB", "PtC", "PtD"]));
    assert_eq!(r.body["rounds"], 3, "an even field of 4: 3 rounds");
    let r = add("PtE", Some(1)).await;
    assert_eq!(seeds(&r.body), seeded(&["PtE", "PtA", "PtB", "PtC", "PtD"]));
    assert_eq!(
        r.body["rounds"], 5,
        "an odd field of 5: 5 rounds, one sits out each"
    );
    for (bot, seed, status, code) in [
        ("PtA", None, StatusCode::CONFLICT, "already_participant"),
        ("Nobody", None, StatusCode::NOT_FOUND, "not_found"),
        ("PtF", Some(9), StatusCode::BAD_REQUEST, "bad_request"),
    ] {
        let r = add(bot, seed).await;
        assert_eq!((r.status, r.code()), (status, code), "{bot}: {:?}", r.body);
    }
    let r = app.add_participant(Some(OP), &id, json!({"seed": 1})).await;
    assert_eq!(r.body["error"]["details"]["field"], "bot");
    let r = app.add_participant(None, &id, json!({"bot": "PtA"})).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    let r = app.remove_participant(Some(OP), &id, "PtB").await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(seeds(&r.body), seeded(&["PtE", "PtA", "PtC", "PtD"]));
    assert_eq!(r.body["rounds"], 3);
    let r = app.remove_participant(Some(OP), &id, "PtB").await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "not_participant")
    );
    let r = app.remove_participant(Some(OP), &id, "Nobody").await;
    assert_eq!((r.status, r.code()), (StatusCode::NOT_FOUND, "not_found"));
    for b in ["PtE", "PtA"] {
        let r = app.remove_participant(Some(OP), &id, &b).await;
        assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    }
    let r = app.remove_participant(Some(OP), &id, "PtC").await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "too_few_participants")
    );
    let t = app.get_tournament(&id).await.body;
    assert_eq!(seeds(&t), seeded(&["PtC", "PtD"]));
    // Started: the field is fixed.
    app.start_tournament(Some(OP), &id, json!({})).await;
    let r = add("PtA", None).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "tournament_state")
    );
    assert_eq!(r.body["error"]["details"]["status"], "running");
    let r = app.remove_participant(Some(OP), &id, "PtC").await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "tournament_state")
    );
    let r = app
        .add_participant(Some(OP), &id, json!({"bot": "PtA"}))
        .await;
    assert_eq!(r.status, StatusCode::CONFLICT);
}

#[tokio::test]
async fn a_staked_tournament_refuses_a_second_bot_of_an_owner_or_one_whose_max_stake_is_lower() {
    let app = spawn_app().await;
    let (_, owner, _) = app.player_with_bot("StA").await;
    app.bot(&owner, "StA2").await;
    app.player_with_bot("StB").await;
    let (_, low) = app.player("owner of StLow").await;
    let r = app
        .create_bot(Some(&low), json!({"name": "StLow", "max_stake": 20}))
        .await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    let t = create(
        &app,
        json!({"name": "Staked", "format": "swiss", "rounds": 1, "stake": 50,
               "participants": ["StA", "StB"]}),
    )
    .await;
    let id = t["id"].as_str().expect("id");
    let path = paths::participants(id);
    let r = app.post(&path, Some(OP), json!({"bot": "StA2"})).await;
    assert_eq!((r.status, r.code()), (StatusCode::FORBIDDEN, "same_owner"));
    // The refusal names the two bots of one owner, as other refusals name theirs.
    assert_eq!(r.body["error"]["details"]["bots"], json!(["StA", "StA2"]));
    assert!(
        r.body["error"]["message"]
            .as_str()
            .expect("message")
            .contains("StA2")
    );
    let r = app
        .create_tournament(
            Some(OP),
            json!({"name": "Twins", "format": "gauntlet", "stake": 20,
                   "participants": ["StB", "StA", "StA2"]}),
        )
        .await;
    assert_eq!((r.status, r.code()), (StatusCode::FORBIDDEN, "same_owner"));
    assert_eq!(r.body["error"]["details"]["bots"], json!(["StA", "StA2"]));
    assert_eq!(r.body["error"]["details"]["allowed_stake"], 0);
    let r = app.post(&path, Some(OP), json!({"bot": "StLow"})).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::BAD_REQUEST, "bad_request")
    );
    assert_eq!(r.body["error"]["details"]["field"], "stake");
    // Nothing changed; and a PATCH to a stake StLow could play makes room for it.
    let t = app.get_tournament(&id).await.body;
    assert_eq!(seeds(&t), seeded(&["StA", "StB"]));
    let r = app
        .patch_tournament(Some(OP), &id, json!({"stake": 20}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let r = app.post(&path, Some(OP), json!({"bot": "StLow"})).await;
    assert_eq!(r.status, StatusCode::CREATED, "{:?}", r.body);
    // ...after which a stake above its max_stake is refused by PATCH too.
    let r = app
        .patch_tournament(Some(OP), &id, json!({"stake": 50}))
        .await;
    assert_eq!(r.body["error"]["details"]["field"], "stake", "{:?}", r.body);
    assert_eq!(app.get_tournament(&id).await.body["stake"], 20);
}

#[tokio::test]
async fn patch_changes_name_and_times_before_the_start_validated_as_creation_is() {
    let app = spawn_app().await;
    for n in ["PaA", "PaB", "PaC"] {
        app.player_with_bot(n).await;
    }
    let t = create(
        &app,
        json!({"name": "Draft", "format": "swiss", "rounds": 1,
               "participants": ["PaA", "PaB", "PaC"],
               "clock": {"initial_s": 60, "increment_s": 2}, "start_at": "2099-01-01T00:00:00Z"}),
    )
    .await;
    let id = t["id"].as_str().expect("id").to_string();
    let r = app
        .post(
            &paths::tournaments(),
            Some(OP),
            json!({"name": "Cycled", "format": "swiss", "rounds": 1, "cycles": 2,
                   "participants": ["PaA", "PaB", "PaC"]}),
        )
        .await;
    assert_eq!(
        (r.status, r.body["error"]["details"]["field"].clone()),
        (StatusCode::BAD_REQUEST, json!("cycles")),
        "{:?}",
        r.body
    );
    let path = paths::tournament(&id);
    let r = app
        .patch(
            &path,
            Some(OP),
            json!({"name": "  Final  ", "clock": {"increment_s": 5}, "forfeit_after_s": 30,
                   "absent": "forfeit", "rounds": 2, "options": {"size": 9}, "max_concurrent": 2}),
        )
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let t = &r.body;
    assert_eq!(t["name"], "Final");
    assert_eq!(t["clock"], json!({"initial_s": 60, "increment_s": 5}));
    assert_eq!(t["options"], json!({"size": 9, "random_stones": 4}));
    assert_eq!(
        (
            t["forfeit_after_s"].clone(),
            t["absent"].clone(),
            t["rounds"].clone()
        ),
        (json!(30), json!("forfeit"), json!(2))
    );
    assert_eq!(t["max_concurrent"], 2);
    assert_eq!(t["start_at"], "2099-01-01T00:00:00.000Z");
    // `null` puts a field back to its default: no scheduled start.
    let r = app.patch(&path, Some(OP), json!({"start_at": null})).await;
    assert_eq!(r.body["start_at"], Value::Null, "{:?}", r.body);
    let before = app.get(&path).await.body;
    for (body, field) in [
        (json!({"name": "a\u{200B}b"}), "name"),
        (json!({"name": ""}), "name"),
        (json!({"name": null}), "name"),
        (json!({"clock": {"initial_s": 5}}), "clock.initial_s"),
        (json!({"forfeit_after_s": -1}), "forfeit_after_s"),
        (json!({"rounds": 3}), "rounds"),
        // A swiss has no cycles: refused, not silently dropped (an outside tester's F7).
        (json!({"cycles": 2}), "cycles"),
        (json!({"absent": "maybe"}), "absent"),
        (json!({"start_at": "tomorrow"}), "start_at"),
        (json!({"stake": 5}), "stake"),
        (json!({"format": "gauntlet"}), "format"),
        (json!({"participants": ["PaA", "PaB"]}), "participants"),
        (json!({"colour": "red"}), "colour"),
    ] {
        let r = app.patch(&path, Some(OP), body.clone()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}: {:?}", r.body);
        assert_eq!(
            r.body["error"]["details"]["field"], field,
            "{body}: {:?}",
            r.body
        );
    }
    let r = app
        .patch(&path, Some(OP), json!({"options": {"size": 4}}))
        .await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::BAD_REQUEST, "invalid_options")
    );
    let r = app.patch(&path, None, json!({"name": "X"})).await;
    assert_eq!(r.status, StatusCode::UNAUTHORIZED);
    assert_eq!(
        app.get(&path).await.body,
        before,
        "refused patches change nothing"
    );
    let r = app
        .patch_tournament(Some(OP), "tour_nope", json!({"name": "X"}))
        .await;
    assert_eq!((r.status, r.code()), (StatusCode::NOT_FOUND, "not_found"));
    app.post(&format!("{path}/start"), Some(OP), json!({}))
        .await;
    let r = app.patch(&path, Some(OP), json!({"name": "Later"})).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "tournament_state")
    );
    assert_eq!(app.get(&path).await.body["name"], "Final");
}

#[tokio::test]
async fn the_printable_standings_page_is_served_as_html_with_the_tables_and_no_script() {
    let app = spawn_app().await;
    for n in ["PrA", "PrB"] {
        app.player_with_bot(n).await;
    }
    let t = create(
        &app,
        json!({"name": "Print <&> project", "format": "round_robin", "participants": ["PrA", "PrB"]}),
    )
    .await;
    let id = t["id"].as_str().expect("id");
    let r = app
        .http
        .get(format!("{}/tournaments/{id}/standings", app.url))
        .send()
        .await
        .expect("page");
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(
        r.headers()["content-type"].to_str().expect("type"),
        "text/html; charset=utf-8"
    );
    let page = r.text().await.expect("text");
    assert!(
        page.contains("<h1><bdi>Print &lt;&amp;&gt; project</bdi></h1>"),
        "{page}"
    );
    assert!(page.contains("<bdi>PrA</bdi>") && page.contains("<bdi>PrB</bdi>"));
    assert!(page.contains("<h2>Standings</h2>") && page.contains("<h2>Crosstable</h2>"));
    assert!(page.contains("@media print"));
    assert!(
        page.contains("http-equiv=\"refresh\""),
        "not started: it reloads"
    );
    assert!(!page.contains("<script"));
    // An unknown one is the HTML 404 page, as the other pages answer (operator report #23).
    let r = app
        .http
        .get(format!("{}/tournaments/tour_nope/standings", app.url))
        .send()
        .await
        .expect("page answers");
    assert_eq!(r.status(), StatusCode::NOT_FOUND);
    let kind = r
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_string();
    assert!(kind.starts_with("text/html"), "{kind}");
    let body = r.text().await.expect("page text");
    assert!(
        body.contains("No tournament &#39;tour_nope&#39;."),
        "{body}"
    );
}

#[tokio::test]
async fn a_patched_stake_brings_its_rating_unless_rated_is_given_too() {
    let app = spawn_app().await;
    for n in ["RsA", "RsB"] {
        app.player_with_bot(n).await;
    }
    let t = create(
        &app,
        json!({"name": "Unstaked", "format": "round_robin", "stake": 0,
               "participants": ["RsA", "RsB"]}),
    )
    .await;
    let id = t["id"].as_str().expect("id");
    assert_eq!(t["rated"], false);
    // A name alone changes neither.
    let r = app
        .patch_tournament(Some(OP), id, json!({"name": "Renamed"}))
        .await;
    assert_eq!(
        (r.status, &r.body["rated"]),
        (StatusCode::OK, &json!(false))
    );
    // A stake without `rated`: rated, as a staked tournament is at creation.
    let r = app
        .patch_tournament(Some(OP), id, json!({"stake": 10}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    assert_eq!(
        (&r.body["stake"], &r.body["rated"]),
        (&json!(10), &json!(true))
    );
    // A stake with `rated: false` is refused as at creation, and changes nothing.
    let r = app
        .patch_tournament(Some(OP), id, json!({"stake": 20, "rated": false}))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{:?}", r.body);
    assert_eq!(app.get_tournament(id).await.body["stake"], 10);
}

#[tokio::test]
async fn a_start_at_in_the_past_is_refused_on_create_and_patch_and_changes_nothing() {
    let app = spawn_app().await;
    for n in ["PsA", "PsB"] {
        app.player_with_bot(n).await;
    }
    let body = |start: &str| {
        json!({"name": "Past", "format": "round_robin", "participants": ["PsA", "PsB"],
               "start_at": start})
    };
    let r = app
        .create_tournament(Some(OP), body("2020-01-01T00:00:00Z"))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{:?}", r.body);
    assert_eq!(r.code(), "bad_request");
    assert_eq!(r.body["error"]["details"]["field"], "start_at");
    let listed = app.list_tournaments("").await.body;
    assert_eq!(listed["tournaments"], json!([]), "nothing was created");
    // A start time in the future stays accepted, and a past one by PATCH changes nothing.
    let t = create(&app, body("2099-01-01T00:00:00Z")).await;
    let id = t["id"].as_str().expect("id");
    let r = app
        .patch_tournament(Some(OP), id, json!({"start_at": "2020-01-01T00:00:00Z"}))
        .await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{:?}", r.body);
    assert_eq!(r.body["error"]["details"]["field"], "start_at");
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let t = app.get_tournament(id).await.body;
    assert_eq!(
        (&t["status"], &t["start_at"]),
        (&json!("created"), &json!("2099-01-01T00:00:00.000Z"))
    );
    // A PATCH of other fields keeps a future start time.
    let r = app
        .patch_tournament(Some(OP), id, json!({"name": "Later"}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
}

#[tokio::test]
async fn a_bot_whose_accepts_changed_since_it_was_entered_is_refused_at_the_start() {
    let app = spawn_app().await;
    app.player_with_bot("AcA").await;
    let (_, _, token) = app.player_with_bot("AcB").await;
    let t = create(
        &app,
        json!({"name": "Nine", "format": "round_robin", "participants": ["AcA", "AcB"],
               "options": {"size": 9}}),
    )
    .await;
    let id = t["id"].as_str().expect("id");
    let r = app
        .declare_bot(Some(&token), json!({"accepts": {"sizes": [11, 13]}}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let r = app.start_tournament(Some(OP), id, json!({})).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::UNPROCESSABLE_ENTITY, "not_accepted"),
        "{:?}",
        r.body
    );
    assert_eq!(r.body["error"]["details"]["bot"], "AcB");
    assert_eq!(r.body["error"]["details"]["option"], "sizes");
    assert_eq!(app.get_tournament(id).await.body["status"], "created");
    // Once the bot accepts the board again, the start goes through.
    app.declare_bot(Some(&token), json!({"accepts": {"sizes": [9, 13]}}))
        .await;
    let r = app.start_tournament(Some(OP), id, json!({})).await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
}

#[tokio::test]
async fn refusals_say_what_was_wrong_and_what_to_do_instead() {
    let app = spawn_app().await;
    for n in ["MsA", "MsB"] {
        app.player_with_bot(n).await;
    }
    let body =
        |name: &str| json!({"name": name, "format": "round_robin", "participants": ["MsA", "MsB"]});
    let message = |r: &common::Resp| {
        r.body["error"]["message"]
            .as_str()
            .unwrap_or("")
            .to_string()
    };
    // A name given but too long is not "required".
    let r = app.create_tournament(Some(OP), body(&"n".repeat(85))).await;
    assert_eq!(r.body["error"]["details"]["field"], "name");
    assert!(
        message(&r).contains("too long") && message(&r).contains("80"),
        "{:?}",
        r.body
    );
    assert!(!message(&r).contains("required"), "{:?}", r.body);
    // An unknown PATCH field lists only the fields PATCH takes.
    let t = create(&app, body("Msgs")).await;
    let id = t["id"].as_str().expect("id");
    let r = app
        .patch_tournament(Some(OP), id, json!({"colour": "red"}))
        .await;
    let allowed = r.body["error"]["details"]["allowed"]
        .as_array()
        .expect("allowed");
    assert!(allowed.contains(&json!("name")) && allowed.contains(&json!("start_at")));
    assert!(
        !allowed.contains(&json!("format")) && !allowed.contains(&json!("participants")),
        "{allowed:?}"
    );
    // Start on a paused tournament points at resume.
    app.start_tournament(Some(OP), id, json!({})).await;
    let r = app
        .post(&paths::pause_tournament(id), Some(OP), json!({}))
        .await;
    assert_eq!(r.status, StatusCode::OK, "{:?}", r.body);
    let r = app.start_tournament(Some(OP), id, json!({})).await;
    assert_eq!(r.code(), "tournament_state");
    assert!(message(&r).contains("/resume"), "{:?}", r.body);
    // Delete after a cancel: only a tournament that never started can be deleted.
    app.post(&paths::cancel_tournament(id), Some(OP), json!({}))
        .await;
    let r = app.delete_tournament(Some(OP), id).await;
    assert_eq!(
        (r.status, r.code()),
        (StatusCode::CONFLICT, "tournament_state")
    );
    assert!(message(&r).contains("never started"), "{:?}", r.body);
}
