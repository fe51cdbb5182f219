//! GTP conformance of `hexarena gtp` (issue 10): the real binary is driven over stdin/stdout
//! with a script of commands, and every answer is compared with the expected one.

use std::io::Write;
use std::process::{Command, Stdio};

/// Runs `hexarena gtp ARGS` on `script` and returns its answers (split on the blank lines).
fn run(args: &[&str], script: &str) -> Vec<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_hexarena"))
        .arg("gtp")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start hexarena gtp");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(script.as_bytes())
        .expect("write script");
    let out = child.wait_with_output().expect("engine ends");
    assert!(out.status.success(), "exit status {:?}", out.status);
    let text = String::from_utf8(out.stdout).expect("utf-8 answers");
    assert!(text.ends_with("\n\n"), "{text:?}");
    text.trim_end_matches('\n')
        .split("\n\n")
        .map(str::to_string)
        .collect()
}

#[test]
fn a_scripted_session_gets_the_expected_answers() {
    let script = "\
protocol_version
1 name
2 version
known_command genmove
known_command frobnicate
boardsize 5
play b c3
play w swap-pieces
play b a1
play white a1
showboard
3 undo
undo
play w swap
play w e5
time_left b 12.5 0
time_left b
# a comment line

frobnicate
play b pass
play b c3
play black resign
boardsize 30
boardsize 4
param strategy random
param
param budget 200
param budget
param strategy house-club
param_strategy
param strategy house-nobody
param move_time_ms 300
param
param move_time_ms soon
clear_board
quit
name
";
    let answers = run(&["--seed", "1"], script);
    let expected = [
        "= 2".to_string(),
        "=1 hexarena".to_string(),
        format!("=2 {}", env!("CARGO_PKG_VERSION")),
        "= true".into(),
        "= false".into(),
        "=".into(),
        "=".into(),
        "=".into(),
        "? illegal move: w is on move".into(),
        "=".into(),
        // after the swap the stone on c3 stays black (its owner plays top-bottom now) and the
        // opener, now White, played a1
        "= \n    a b c d e\n 1  W . . . .\n 2   . . . . .\n 3    . . B . .\n 4     . . . . .\n 5      . . . . .\nB to move".into(),
        "=3".into(),
        "=".into(),
        "=".into(),
        "=".into(),
        "=".into(),
        "= 12.5".into(),
        "? unknown command".into(),
        "? illegal move: Hex has no pass".into(),
        "? illegal move: the cell already holds a stone".into(),
        "=".into(),
        "? unacceptable size".into(),
        "=".into(),
        "=".into(),
        "= [list/random/strong/house-random/house-novice/house-club/house-bridge/house-master] strategy random\n[string] budget auto\n[string] move_time_ms off".into(),
        "=".into(),
        "= 200".into(),
        "=".into(),
        "= house-club".into(),
        "? strategy must be one of random/strong/house-random/house-novice/house-club/house-bridge/house-master".into(),
        "=".into(),
        "= [list/random/strong/house-random/house-novice/house-club/house-bridge/house-master] strategy house-club\n[string] budget 200\n[string] move_time_ms 300".into(),
        "? move_time_ms must be 0..=60000 ms or off".into(),
        "=".into(),
        "=".into(),
    ];
    assert_eq!(answers, expected);
}

#[test]
fn genmove_answers_legal_moves_for_both_colours_until_the_game_ends() {
    let mut script = String::from("boardsize 3\nlist_commands\n");
    for _ in 0..6 {
        script.push_str("genmove b\ngenmove w\n");
    }
    script.push_str("final_score\nquit\n");
    let answers = run(
        &["--strategy", "strong", "--budget", "100", "--seed", "3"],
        &script,
    );
    assert_eq!(answers[0], "=");
    let commands: Vec<&str> = answers[1].trim_start_matches("= ").lines().collect();
    for c in [
        "protocol_version",
        "name",
        "version",
        "known_command",
        "list_commands",
        "boardsize",
        "clear_board",
        "play",
        "genmove",
        "undo",
        "showboard",
        "time_left",
        "quit",
        "param",
    ] {
        assert!(commands.contains(&c), "{c} not listed");
    }
    let cell = regex::Regex::new(r"^= ([a-c][1-3]|swap-pieces|resign)$").expect("regex");
    let moves: Vec<&String> = answers[2..14].iter().collect();
    let mut seen = std::collections::HashSet::new();
    let mut resigned = false;
    for a in moves {
        if a.starts_with('?') {
            // a genmove for the colour not on move (after a swap the same colour moves again)
            assert!(a.ends_with("is on move"), "{a}");
            continue;
        }
        assert!(cell.is_match(a), "{a}");
        if a == "= resign" {
            resigned = true;
        } else if a != "= swap-pieces" {
            assert!(!resigned, "a move after the end: {a}");
            assert!(seen.insert(a.clone()), "{a} twice");
        }
    }
    assert!(resigned, "a 3x3 game ends within 12 genmoves");
    assert!(
        answers[14] == "= B+" || answers[14] == "= W+",
        "{}",
        answers[14]
    );
    assert_eq!(answers[15], "=");
}

#[test]
fn an_over_long_line_is_refused_and_the_next_line_is_answered() {
    let script = format!("{}\n2 name\n", "x".repeat(10_000));
    let answers = run(&[], &script);
    assert_eq!(answers, ["? line too long", "=2 hexarena"]);
}

#[test]
fn the_clock_bound_rung_thinks_from_time_left_and_from_a_fixed_time_per_move() {
    // 2 s left: house-master affords about 45 ms a move (think_time_ms), not its 2 s cap
    let script = "\
boardsize 11
param strategy house-master
play b f6
play w e5
time_left b 2
genmove b
time_left w 2
genmove w
quit
";
    let started = std::time::Instant::now();
    let answers = run(&["--seed", "5"], script);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let cell = regex::Regex::new(r"^= [a-k]([1-9]|1[01])$").expect("regex");
    assert!(cell.is_match(&answers[5]), "{}", answers[5]);
    assert!(cell.is_match(&answers[7]), "{}", answers[7]);
    assert_ne!(answers[5], answers[7]);

    // the same with a fixed time per move from the command line, every rung by name
    let mut script = String::from("boardsize 7\nplay b d4\nplay w c3\n");
    for (k, name) in [
        "house-random",
        "house-novice",
        "house-club",
        "house-bridge",
        "house-master",
    ]
    .iter()
    .enumerate()
    {
        let colour = if k % 2 == 0 { "b" } else { "w" };
        script.push_str(&format!("param strategy {name}\ngenmove {colour}\n"));
    }
    script.push_str("param move_time_ms\nquit\n");
    let answers = run(&["--move-time-ms", "30", "--seed", "6"], &script);
    let cell = regex::Regex::new(r"^= [a-g][1-7]$").expect("regex");
    let moves: Vec<&String> = answers[3..13].iter().skip(1).step_by(2).collect();
    assert_eq!(moves.len(), 5);
    let mut seen = std::collections::HashSet::new();
    for m in moves {
        assert!(cell.is_match(m), "{m}");
        assert!(seen.insert(m.clone()), "{m} twice");
    }
    assert_eq!(answers[13], "= 30");
}

#[test]
fn the_search_tuning_is_chosen_by_flag_or_param_and_an_unknown_one_is_refused() {
    // the default is the house bots' own search; `--search` and `param search` pick another
    let answers = run(
        &[
            "--strategy",
            "house-master",
            "--move-time-ms",
            "30",
            "--seed",
            "4",
        ],
        "param search\nparam search knowledge\nparam search\nparam search best\nparam search\nboardsize 5\nplay b c3\ngenmove w\n",
    );
    assert_eq!(answers[0], "= house");
    assert_eq!(answers[1], "=");
    assert_eq!(answers[2], "= knowledge");
    assert!(
        answers[3].starts_with("? search must be one of house/plain/"),
        "{}",
        answers[3]
    );
    assert_eq!(answers[4], "= knowledge", "a refused value changes nothing");
    let moved = answers[7].strip_prefix("= ").expect("a move");
    assert!(moved == "swap-pieces" || moved.len() == 2, "{moved}");
    let answers = run(&["--search", "learned"], "param search\n");
    assert_eq!(answers, ["= learned"]);
    // an unknown tuning on the command line: a clear message and a failing exit status
    let out = Command::new(env!("CARGO_BIN_EXE_hexarena"))
        .args(["gtp", "--search", "best"])
        .stdin(Stdio::null())
        .output()
        .expect("run hexarena gtp");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("search must be one of"), "{err}");
}
