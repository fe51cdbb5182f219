//! Grey-box input-hygiene tests (issue 17): a refused registration or set is checked to have
//! created nothing by counting the `players` and `sets` tables through `app.arena.store.pool`;
//! no route lists players. Moved here (issue 19) from hygiene.rs.

mod common;

use common::{TestApp, spawn_app};
use reqwest::StatusCode;
use serde_json::json;

async fn players(app: &TestApp) -> i64 {
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM players")
        .fetch_one(&app.arena.store.pool)
        .await
        .expect("count");
    n
}

async fn sets(app: &TestApp) -> i64 {
    let (n,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM sets")
        .fetch_one(&app.arena.store.pool)
        .await
        .expect("count");
    n
}

#[tokio::test]
async fn a_registration_or_set_with_a_key_twice_is_refused_400_naming_it_and_creates_nothing() {
    let app = spawn_app().await;
    let (_, _, a) = app.player_with_bot("dup-c").await;
    let n = players(&app).await;
    for (body, key, at) in [
        (r#"{"name":"Ann","name":"Bob"}"#, "name", ""),
        (
            r#"{"name":{"first":"Ann","first":"Bob"}}"#,
            "first",
            "/name",
        ),
    ] {
        let r = app.create_player_raw(body.as_bytes().to_vec()).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}: {:?}", r.body);
        assert_eq!(r.body["error"]["details"]["key"], key, "{body}");
        assert_eq!(r.body["error"]["details"]["instance_path"], at, "{body}");
    }
    assert_eq!(players(&app).await, n, "no player was registered");

    let s = sets(&app).await;
    let body = r#"{"game":"hex","stake":0,"clock":{"initial_s":60,"initial_s":1}}"#;
    let r = app.create_set_raw(Some(&a), body.as_bytes().to_vec()).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{:?}", r.body);
    assert_eq!(r.body["error"]["details"]["key"], "initial_s");
    assert_eq!(r.body["error"]["details"]["instance_path"], "/clock");
    assert_eq!(sets(&app).await, s, "no set was created");
}

#[tokio::test]
async fn each_invisible_or_bidi_control_character_in_a_player_name_is_refused_naming_the_code_point()
 {
    let app = spawn_app().await;
    let n = players(&app).await;
    let mut refused = vec![
        0x00AD, 0x061C, 0x2028, 0x2029, 0xFEFF, // soft hyphen, ALM, separators, BOM
        0x0007, 0x0085, 0x180E, // controls (Cc) and a format character (Cf)
        0xE000, 0xF0000, // private use (Co)
        0x0378, 0x2065, 0x10FFFF, // unassigned (Cn)
        0xE0000, 0xE0001, 0xE0020, 0xE007F, // tags
    ];
    refused.extend(0x200B..=0x200F);
    refused.extend(0x202A..=0x202E);
    refused.extend(0x2060..=0x2064);
    refused.extend(0x2066..=0x2069);
    refused.extend(0xFFF9..=0xFFFB);
    // Fillers that render as nothing (Hangul fillers, the combining grapheme joiner), and a
    // variation selector after a plain letter, which selects nothing (found by a tester:
    // "ada\u{3164}" showed as "ada").
    refused.extend([
        0x3164, 0x115F, 0x1160, 0xFFA0, 0x034F, 0x2800, 0xFE0F, 0xE0100,
    ]);
    for cp in refused {
        let c = char::from_u32(cp).expect("a scalar value");
        let name = format!("Ann{c}Lee");
        let r = app.create_player(json!({"name": name})).await;
        let expected = format!("U+{cp:04X}");
        assert_eq!(
            r.status,
            StatusCode::BAD_REQUEST,
            "{expected}: {:?}",
            r.body
        );
        assert_eq!(r.code(), "bad_request");
        assert_eq!(r.body["error"]["details"]["field"], "name", "{expected}");
        assert_eq!(r.body["error"]["details"]["code_point"], expected.as_str());
    }
    // A name that starts with a combining mark has nothing for it to combine with.
    let r = app.create_player(json!({"name": "\u{0301}\u{0301}"})).await;
    assert_eq!(r.status, StatusCode::BAD_REQUEST, "{:?}", r.body);
    assert_eq!(r.body["error"]["details"]["code_point"], "U+0301");
    assert_eq!(players(&app).await, n, "no player was registered");
    // Names in any script, accents and emoji (with a variation selector) stay welcome.
    for name in [
        "Zoë",
        "李明",
        "عمر",
        "שרה",
        "Ann 👍🏽",
        "ok\u{2764}\u{FE0F}",
        "Ze\u{0301}lie",
    ] {
        let r = app.create_player(json!({"name": name})).await;
        assert_eq!(r.status, StatusCode::CREATED, "{name}: {:?}", r.body);
    }
}
