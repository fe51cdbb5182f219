use super::*;

fn c(r: u8, col: u8) -> Cell {
    Cell::new(r, col)
}

fn place(r: u8, col: u8) -> Move {
    Move::Place(c(r, col))
}

fn play_all(pos: &mut Position, moves: &[Move]) -> Option<Outcome> {
    let mut last = None;
    for &m in moves {
        last = pos.play(m).expect("legal move");
    }
    last
}

fn pairs(cells: &[Cell]) -> Vec<[u8; 2]> {
    cells.iter().map(|&x| x.into()).collect()
}

#[test]
fn sizes() {
    assert_eq!(Position::new(0).err(), Some(SetupError::BadSize(0)));
    assert_eq!(Position::new(27).err(), Some(SetupError::BadSize(27)));
    for size in [1, 2, 9, 11, 19, 26] {
        let pos = Position::new(size).expect("valid size");
        assert_eq!(pos.size(), size);
        assert_eq!(pos.ply(), 0);
        assert_eq!(pos.to_move(), Some(Seat::One));
        assert_eq!(
            pos.cells(),
            vec![vec![0; usize::from(size)]; usize::from(size)]
        );
        assert_eq!(
            pos.empty_cells().len(),
            usize::from(size) * usize::from(size)
        );
        assert_eq!(pos.outcome(), None);
        assert!(!pos.swapped());
        assert_eq!(pos.axis(Seat::One), Axis::TopBottom);
        assert_eq!(pos.axis(Seat::Two), Axis::LeftRight);
    }
}

#[test]
fn one_by_one_board_is_won_by_the_first_stone() {
    let mut pos = Position::new(1).expect("size 1");
    assert_eq!(
        pos.play(place(0, 0)),
        Ok(Some(Outcome::Connection { winner: Seat::One }))
    );
    assert_eq!(pos.to_move(), None);
    assert_eq!(pos.winning_path(), Some(vec![c(0, 0)]));
    assert_eq!(pos.legal_moves(), Vec::new());
    assert_eq!(pos.play(Move::Swap), Err(PlayError::GameOver));
}

#[test]
fn turns_alternate_and_cells_show_owners() {
    let mut pos = Position::new(3).expect("size");
    assert_eq!(pos.play(place(1, 1)), Ok(None));
    assert_eq!(pos.to_move(), Some(Seat::Two));
    assert_eq!(pos.play(place(0, 2)), Ok(None));
    assert_eq!(pos.to_move(), Some(Seat::One));
    assert_eq!(pos.ply(), 2);
    assert_eq!(
        pos.cells(),
        vec![vec![0, 0, 2], vec![0, 1, 0], vec![0, 0, 0]]
    );
    assert_eq!(pos.stone(c(1, 1)), Some(Seat::One));
    assert_eq!(pos.stone(c(0, 2)), Some(Seat::Two));
    assert_eq!(pos.stone(c(0, 0)), None);
    assert_eq!(pos.stone(c(3, 0)), None);
    assert_eq!(pos.stones_of(Seat::One), vec![c(1, 1)]);
    assert_eq!(pos.stone_count(), 2);
}

#[test]
fn error_order_and_no_change_on_error() {
    let mut pos = Position::new(3).expect("size");
    pos.play(place(0, 0)).expect("legal");
    let before = pos.clone();
    let compact = pos.to_compact();
    assert_eq!(pos.play(place(0, 0)), Err(PlayError::Occupied));
    assert_eq!(pos.play(place(3, 0)), Err(PlayError::OffBoard));
    assert_eq!(pos.play(place(0, 200)), Err(PlayError::OffBoard));
    assert_eq!(pos.check(place(0, 0)), Err(PlayError::Occupied));
    assert_eq!(pos, before);
    assert_eq!(pos.to_compact(), compact);
    assert_eq!(pos.to_move(), Some(Seat::Two));

    // finish the game: seat 1 down column 0 ([0,0],[1,0],[2,0]); seat 2 elsewhere
    play_all(&mut pos, &[place(0, 2), place(1, 0), place(1, 2)]);
    assert_eq!(
        pos.play(place(2, 0)),
        Ok(Some(Outcome::Connection { winner: Seat::One }))
    );
    let done = pos.clone();
    // game over is reported before off-board and occupied
    assert_eq!(pos.play(place(9, 9)), Err(PlayError::GameOver));
    assert_eq!(pos.play(place(0, 0)), Err(PlayError::GameOver));
    assert_eq!(pos.play(place(2, 2)), Err(PlayError::GameOver));
    assert_eq!(pos.play(Move::Swap), Err(PlayError::GameOver));
    assert_eq!(pos, done);
    assert!(pos.is_over());
    assert_eq!(pos.winning_path(), Some(vec![c(0, 0), c(1, 0), c(2, 0)]));
}

#[test]
fn swap_semantics() {
    // edge_cases.jsonl: "swap after [2, 7]"
    let mut pos = Position::new(11).expect("size");
    assert_eq!(pos.check(Move::Swap), Err(PlayError::SwapNotAllowed)); // ply 0
    pos.play(place(2, 7)).expect("legal");
    assert!(pos.swap_allowed());
    assert_eq!(pos.legal_moves().last(), Some(&Move::Swap));
    assert_eq!(pos.legal_moves().len(), 121 - 1 + 1);
    assert_eq!(pos.play(Move::Swap), Ok(None));
    assert_eq!(pos.stones_of(Seat::Two), vec![c(2, 7)]);
    assert_eq!(pos.stones_of(Seat::One), vec![]);
    assert_eq!(pos.to_move(), Some(Seat::One));
    assert_eq!(pos.ply(), 2);
    assert!(pos.swapped());
    assert_eq!(pos.axis(Seat::One).name(), "left-right");
    assert_eq!(pos.axis(Seat::Two).name(), "top-bottom");
    // a second swap is never legal
    assert_eq!(pos.play(Move::Swap), Err(PlayError::SwapNotAllowed));
    pos.play(place(0, 0)).expect("legal");
    assert_eq!(pos.play(Move::Swap), Err(PlayError::SwapNotAllowed));
    assert!(!pos.legal_moves().contains(&Move::Swap));
}

#[test]
fn swap_not_allowed_late_or_with_opening() {
    let mut pos = Position::new(5).expect("size");
    play_all(&mut pos, &[place(0, 0), place(1, 1)]);
    assert_eq!(pos.play(Move::Swap), Err(PlayError::SwapNotAllowed));
    let mut pos = Position::with_opening(5, &[c(0, 0), c(4, 4)]).expect("opening");
    pos.play(place(2, 2)).expect("legal");
    assert_eq!(pos.ply(), 1);
    assert_eq!(pos.play(Move::Swap), Err(PlayError::SwapNotAllowed));
    assert!(!pos.legal_moves().contains(&Move::Swap));
}

#[test]
fn after_a_swap_seat_two_wins_top_bottom() {
    let mut pos = Position::new(3).expect("size");
    play_all(&mut pos, &[place(0, 1), Move::Swap]);
    // seat 1 (now left-right) builds row 2 but is one short; seat 2 goes down column 1
    play_all(&mut pos, &[place(2, 0), place(1, 1)]);
    assert_eq!(pos.to_move(), Some(Seat::One));
    play_all(&mut pos, &[place(1, 0)]);
    let end = pos.play(place(2, 1)).expect("legal");
    assert_eq!(end, Some(Outcome::Connection { winner: Seat::Two }));
    assert_eq!(pos.ply(), 6);
    assert_eq!(pos.winning_path(), Some(vec![c(0, 1), c(1, 1), c(2, 1)]));
}

#[test]
fn after_a_swap_seat_one_wins_left_right() {
    let mut pos = Position::new(3).expect("size");
    play_all(&mut pos, &[place(0, 0), Move::Swap]);
    play_all(
        &mut pos,
        &[place(1, 0), place(0, 1), place(1, 1), place(0, 2)],
    );
    assert_eq!(pos.outcome(), None); // seat 2 has the whole top row: not its axis any more
    let end = pos.play(place(1, 2)).expect("legal");
    assert_eq!(end, Some(Outcome::Connection { winner: Seat::One }));
    assert_eq!(pos.winning_path(), Some(vec![c(1, 0), c(1, 1), c(1, 2)]));
}

#[test]
fn legal_moves_row_major_then_swap() {
    let mut pos = Position::new(2).expect("size");
    assert_eq!(
        pos.legal_moves(),
        vec![place(0, 0), place(0, 1), place(1, 0), place(1, 1)]
    );
    pos.play(place(0, 1)).expect("legal");
    assert_eq!(
        pos.legal_moves(),
        vec![place(0, 0), place(1, 0), place(1, 1), Move::Swap]
    );
}

#[test]
fn corners_count_for_both_edges() {
    // seat 2 wins along row 0: [0,0] is top+left, [0,3] is top+right
    let mut pos = Position::new(4).expect("size");
    play_all(
        &mut pos,
        &[
            place(3, 0),
            place(0, 0),
            place(3, 1),
            place(0, 1),
            place(2, 0),
            place(0, 2),
            place(3, 3),
        ],
    );
    assert_eq!(
        pos.play(place(0, 3)),
        Ok(Some(Outcome::Connection { winner: Seat::Two }))
    );
    assert_eq!(
        pairs(&pos.winning_path().expect("won")),
        vec![[0, 0], [0, 1], [0, 2], [0, 3]]
    );
}

#[test]
fn winning_path_is_shortest_and_ordered() {
    // seat 1's group has a loop at the bottom; the path must take the shorter branch.
    //   row0: 1 2 2 2 2
    //   row1: 1 1 1 1 2
    //   row2: 2 2 2 1 2
    //   row3: 1 1 1 0 2
    //   row4: 1 1 0 0 0
    let pos = Position::from_compact("5:0:0:1222211112222121110211000").expect("valid");
    assert_eq!(
        pos.outcome(),
        Some(Outcome::Connection { winner: Seat::One })
    );
    assert_eq!(pos.ply(), 21);
    assert_eq!(
        pairs(&pos.winning_path().expect("won")),
        vec![
            [0, 0],
            [1, 0],
            [1, 1],
            [1, 2],
            [1, 3],
            [2, 3],
            [3, 2],
            [4, 1]
        ]
    );
    assert_eq!(pos.shortest_chain(Seat::Two), None);
}

#[test]
fn move_cap_on_a_huge_board() {
    let (seat1, seat2) = cap_game(false);
    let mut pos = Position::new(26).expect("size");
    let mut last = None;
    for k in 0..181 {
        assert_eq!(pos.outcome(), None);
        assert_eq!(pos.play(Move::Place(seat1[k])), Ok(None));
        last = pos.play(Move::Place(seat2[k])).expect("legal");
    }
    assert_eq!(pos.ply(), MAX_MOVES);
    assert_eq!(last, Some(Outcome::MoveCap));
    assert_eq!(pos.outcome().and_then(Outcome::winner), None);
    assert_eq!(pos.to_move(), None);
    assert_eq!(pos.winning_path(), None);
    assert_eq!(pos.play(place(20, 13)), Err(PlayError::GameOver));
    let back = Position::from_compact(&pos.to_compact()).expect("round trip");
    assert_eq!(back, pos);
    assert_eq!(back.outcome(), Some(Outcome::MoveCap));
}

#[test]
fn a_connection_on_the_last_allowed_move_beats_the_cap() {
    let (seat1, seat2) = cap_game(true);
    let mut pos = Position::new(26).expect("size");
    let mut last = None;
    for k in 0..181 {
        assert_eq!(pos.play(Move::Place(seat1[k])), Ok(None));
        last = pos.play(Move::Place(seat2[k])).expect("legal");
    }
    assert_eq!(last, Some(Outcome::Connection { winner: Seat::Two }));
    assert_eq!(pos.ply(), MAX_MOVES);
    let path = pos.winning_path().expect("won");
    assert_eq!(path.len(), 26);
    assert!(path.contains(&c(25, 13)));
    for (k, cell) in path.iter().enumerate() {
        assert_eq!(usize::from(cell.col), k); // one cell per column, left to right
        assert_eq!(pos.stone(*cell), Some(Seat::Two));
    }
}

/// 181 stones per seat on 26x26 without a connection until the very last (seat 2) stone,
/// which completes row 25 when `connect_last`.
fn cap_game(connect_last: bool) -> (Vec<Cell>, Vec<Cell>) {
    // seat 1: rows 0..=5 and row 6 columns 0..=24 (never reaches the bottom)
    let mut seat1 = Vec::new();
    for r in 0..6 {
        for col in 0..26 {
            seat1.push(c(r, col));
        }
    }
    for col in 0..25 {
        seat1.push(c(6, col));
    }
    // seat 2: rows 19..=25 except column 13, plus a short stub on row 12
    let mut seat2 = Vec::new();
    for r in 19..26 {
        for col in 0..26 {
            if col != 13 {
                seat2.push(c(r, col));
            }
        }
    }
    for col in 0..5 {
        seat2.push(c(12, col));
    }
    seat2.push(if connect_last { c(25, 13) } else { c(12, 5) });
    assert_eq!((seat1.len(), seat2.len()), (181, 181));
    (seat1, seat2)
}

#[test]
fn with_opening_places_alternately_without_moves() {
    let open = [c(0, 0), c(1, 1), c(2, 2), c(3, 3)];
    let pos = Position::with_opening(5, &open).expect("opening");
    assert_eq!(pos.ply(), 0);
    assert_eq!(pos.opening_len(), 4);
    assert_eq!(pos.to_move(), Some(Seat::One));
    assert_eq!(pos.stones_of(Seat::One), vec![c(0, 0), c(2, 2)]);
    assert_eq!(pos.stones_of(Seat::Two), vec![c(1, 1), c(3, 3)]);
    assert!(!pos.swap_allowed());

    assert_eq!(
        Position::with_opening(5, &[c(0, 0)])
            .err()
            .map(|e| matches!(e, SetupError::Malformed(_))),
        Some(true)
    );
    assert_eq!(
        Position::with_opening(5, &[c(0, 0), c(0, 0)]).err(),
        Some(SetupError::Duplicate(c(0, 0)))
    );
    assert_eq!(
        Position::with_opening(5, &[c(0, 0), c(5, 0)]).err(),
        Some(SetupError::OffBoard(c(5, 0)))
    );
    assert_eq!(
        Position::with_opening(0, &[]).err(),
        Some(SetupError::BadSize(0))
    );
    assert_eq!(
        Position::with_opening(1, &[c(0, 0), c(0, 0)]).err(),
        Some(SetupError::TooManyStones)
    );
    // an opening that already connects seat 1 is refused
    let connecting = [c(0, 1), c(0, 0), c(1, 0), c(1, 1)];
    assert!(matches!(
        Position::with_opening(2, &connecting),
        Err(SetupError::Malformed(_))
    ));
}

#[test]
fn would_connect() {
    let mut pos = Position::new(3).expect("size");
    play_all(
        &mut pos,
        &[place(0, 1), place(0, 0), place(1, 1), place(1, 0)],
    );
    assert!(pos.would_connect(c(2, 1), Seat::One));
    assert!(pos.would_connect(c(2, 0), Seat::One));
    assert!(!pos.would_connect(c(2, 2), Seat::One));
    assert!(!pos.would_connect(c(2, 1), Seat::Two));
    assert!(!pos.would_connect(c(0, 0), Seat::One)); // occupied
    assert!(!pos.would_connect(c(7, 0), Seat::One)); // off board
}

#[test]
fn compact_form() {
    let mut pos = Position::new(3).expect("size");
    assert_eq!(pos.to_compact(), "3:0:0:000000000");
    play_all(&mut pos, &[place(1, 1), Move::Swap, place(0, 0)]);
    assert_eq!(pos.to_compact(), "3:0:1:100020000");
    let back = Position::from_compact("3:0:1:100020000").expect("valid");
    assert_eq!(back, pos);
    assert_eq!(back.ply(), 3);
    assert_eq!(back.to_move(), Some(Seat::Two));
    assert_eq!(back.axis(Seat::Two), Axis::TopBottom);
    assert!(!back.swap_allowed());

    let opened = Position::with_opening(4, &[c(0, 0), c(3, 3)]).expect("opening");
    assert_eq!(opened.to_compact(), "4:2:0:1000000000000002");
    assert_eq!(Position::from_compact(&opened.to_compact()), Ok(opened));

    let fresh = Position::from_compact("5:0:0:0000000000000000000000000").expect("valid");
    assert_eq!(fresh, Position::new(5).expect("size"));
    let one = Position::from_compact("5:0:0:0000000000001000000000000").expect("valid");
    assert!(one.swap_allowed());
    assert_eq!(one.ply(), 1);
}

#[test]
fn compact_keeps_playing_identically() {
    let mut pos = Position::new(4).expect("size");
    play_all(
        &mut pos,
        &[place(0, 1), place(1, 1), place(1, 0), place(2, 1)],
    );
    let mut back = Position::from_compact(&pos.to_compact()).expect("valid");
    for m in [place(2, 0), place(3, 3)] {
        assert_eq!(pos.play(m), back.play(m));
    }
    let end = back.play(place(3, 0)).expect("legal");
    assert_eq!(end, Some(Outcome::Connection { winner: Seat::One }));
    assert_eq!(pos.play(place(3, 0)), Ok(end));
    assert_eq!(pos, back);
    assert_eq!(pos.winning_path(), back.winning_path());
    assert_eq!(
        Position::from_compact(&back.to_compact()).map(|p| p.outcome()),
        Ok(end)
    );
}

#[test]
fn compact_rejects_garbage() {
    let bad = [
        "",
        ":",
        "3",
        "3:0:0",
        "3:0:0:00000000",             // short
        "3:0:0:0000000000",           // long
        "3:0:0:000000000:",           // extra field
        "3:0:2:000000000",            // bad flag
        "3:0:00:000000000",           // bad flag
        "3:x:0:000000000",            // bad opening length
        "+3:0:0:000000000",           // sign
        " 3:0:0:000000000",           // space
        "3:-0:0:000000000",           // sign
        "03:0:0:000000000",           // leading zero
        "3:00:0:000000000",           // leading zero
        "0:0:0:",                     // size 0
        "27:0:0:0",                   // size 27
        "300:0:0:0",                  // size > u8
        "99999999999999999999:0:0:0", // huge
        "3:0:0:000030000",            // bad digit
        "3:0:0:00002000a",            // bad digit
        "3:0:0:000020000",            // seat 2 stone first
        "3:0:0:110000000",            // two seat-1 stones, no seat-2 stone
        "3:1:0:100000000",            // odd opening
        "3:4:0:120000000",            // opening longer than the stones
        "3:2:1:120000000",            // swap after an opening
        "3:0:1:000000000",            // swap with no stone
        "3:0:1:100000000",            // swapped stone must be seat 2's
        "2:0:0:2121",                 // full board: seat 1 connected but seat 2 moved last
        "1:0:1:2",                    // the swapped 1x1 stone cannot have won
        "3:0:0:121\u{e9}0000",        // non-ASCII
    ];
    for text in bad {
        let res = Position::from_compact(text);
        assert!(res.is_err(), "{text:?} should be rejected, got {res:?}");
    }
    assert_eq!(
        Position::from_compact("27:0:0:0").err(),
        Some(SetupError::BadSize(27))
    );
    // more than MAX_MOVES moves on the biggest board
    // 364 stones alternating: 182 + 182, ply 364 > 362
    let cells: String = (0..676)
        .map(|k| match k {
            k if k >= 364 => '0',
            k if k % 2 == 0 => '1',
            _ => '2',
        })
        .collect();
    assert!(Position::from_compact(&format!("26:0:0:{cells}")).is_err());
}

#[test]
fn compact_accepts_finished_games() {
    let mut pos = Position::new(2).expect("size");
    play_all(&mut pos, &[place(0, 1), place(0, 0), place(1, 0)]);
    assert_eq!(pos.to_compact(), "2:0:0:2110");
    let back = Position::from_compact("2:0:0:2110").expect("valid");
    assert_eq!(
        back.outcome(),
        Some(Outcome::Connection { winner: Seat::One })
    );
    assert_eq!(back.winning_path(), Some(vec![c(0, 1), c(1, 0)]));
    assert_eq!(back, pos);
}

#[test]
fn the_last_move_is_known_as_a_padded_index_but_is_not_part_of_the_position() {
    let mut pos = Position::with_opening(5, &[c(0, 0), c(4, 4)]).expect("opening");
    assert_eq!(pos.last_index(), None, "opening stones are not moves");
    pos.play(place(2, 1)).expect("legal");
    assert_eq!(pos.last_index(), pos.index(c(2, 1)));
    pos.play(place(3, 3)).expect("legal");
    assert_eq!(pos.last_index(), pos.index(c(3, 3)));

    let mut swapped = Position::new(5).expect("size");
    swapped.play(place(1, 3)).expect("legal");
    swapped.play(Move::Swap).expect("swap allowed at ply 1");
    assert_eq!(
        swapped.last_index(),
        swapped.index(c(1, 3)),
        "a swap's last stone is the one it took over"
    );

    // The same stones reached in another order are the same position.
    let mut a = Position::new(5).expect("size");
    let mut b = Position::new(5).expect("size");
    play_all(
        &mut a,
        &[place(0, 0), place(1, 1), place(2, 2), place(3, 3)],
    );
    play_all(
        &mut b,
        &[place(2, 2), place(3, 3), place(0, 0), place(1, 1)],
    );
    assert_ne!(a.last_index(), b.last_index());
    assert_eq!(a, b);
    let round_trip = Position::from_compact(&a.to_compact()).expect("compact");
    assert_eq!((round_trip == a, round_trip.last_index()), (true, None));
}
