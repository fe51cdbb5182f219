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
        "= [list/random/strong] strategy random\n[string] budget auto".into(),
        "=".into(),
        "= 200".into(),
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
