//! Human cell names such as `e3` (SPEC section 2): column letter(s), then the 1-based row.

use crate::Cell;

/// The human name of a cell: the column as a letter (`a` = column 0 ... `z` = column 25), then
/// the row counted from 1. `[0,0]` -> `"a1"`, `[2,4]` -> `"e3"`, `[10,10]` -> `"k11"`.
///
/// Every board the engine accepts (up to 26 columns) needs one letter. For completeness, columns
/// from 26 on continue as `aa`, `ab`, ... (spreadsheet style), so the function never fails and
/// [`parse_cell_name`] reads every name back.
pub fn cell_name(cell: Cell) -> String {
    let mut letters = Vec::with_capacity(2);
    let mut n = u16::from(cell.col) + 1; // bijective base 26
    while n > 0 {
        n -= 1;
        letters.push(b'a' + (n % 26) as u8);
        n /= 26;
    }
    letters.reverse();
    let mut out: String = letters.into_iter().map(char::from).collect();
    out.push_str(&(u16::from(cell.row) + 1).to_string());
    out
}

/// Reads a human cell name back: letters (case-insensitive) then a row number from 1 without
/// leading zeros, nothing else (no spaces, signs or separators). `"E3"` and `"e3"` give `[2,4]`.
///
/// Returns `None` for junk or for a name whose row or column does not fit a [`Cell`]. It does
/// not check a board size: compare with the position's size (or let `play` answer `OffBoard`).
pub fn parse_cell_name(name: &str) -> Option<Cell> {
    let bytes = name.as_bytes();
    let split = bytes.iter().position(|b| !b.is_ascii_alphabetic())?;
    let (letters, digits) = bytes.split_at(split);
    if letters.is_empty() || letters.len() > 2 || digits.is_empty() || digits.len() > 3 {
        return None;
    }
    if digits[0] == b'0' || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut col: u32 = 0;
    for &l in letters {
        col = col * 26 + u32::from(l.to_ascii_lowercase() - b'a') + 1;
    }
    let mut row: u32 = 0;
    for &d in digits {
        row = row * 10 + u32::from(d - b'0');
    }
    let col = u8::try_from(col - 1).ok()?;
    let row = u8::try_from(row - 1).ok()?;
    Some(Cell::new(row, col))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(cell_name(Cell::new(0, 0)), "a1");
        assert_eq!(cell_name(Cell::new(2, 4)), "e3");
        assert_eq!(cell_name(Cell::new(10, 10)), "k11");
        assert_eq!(cell_name(Cell::new(18, 18)), "s19");
        assert_eq!(cell_name(Cell::new(25, 25)), "z26");
        assert_eq!(cell_name(Cell::new(0, 26)), "aa1");
        assert_eq!(cell_name(Cell::new(255, 255)), "iv256");
    }

    #[test]
    fn parses() {
        assert_eq!(parse_cell_name("a1"), Some(Cell::new(0, 0)));
        assert_eq!(parse_cell_name("e3"), Some(Cell::new(2, 4)));
        assert_eq!(parse_cell_name("E3"), Some(Cell::new(2, 4)));
        assert_eq!(parse_cell_name("K11"), Some(Cell::new(10, 10)));
        assert_eq!(parse_cell_name("s19"), Some(Cell::new(18, 18)));
        assert_eq!(parse_cell_name("z26"), Some(Cell::new(25, 25)));
        assert_eq!(parse_cell_name("aa1"), Some(Cell::new(0, 26)));
        assert_eq!(parse_cell_name("iv256"), Some(Cell::new(255, 255)));
    }

    #[test]
    fn display_and_from_str() {
        assert_eq!(Cell::new(2, 4).to_string(), "e3");
        assert_eq!("K11".parse::<Cell>(), Ok(Cell::new(10, 10)));
        assert!(matches!(
            "k 11".parse::<Cell>(),
            Err(crate::SetupError::Malformed(_))
        ));
    }

    #[test]
    fn rejects_junk() {
        for junk in [
            "", "a", "1", "11", "a0", "a01", "1a", " a1", "a1 ", "a-1", "a+1", "a1b", "é1", "a1.0",
            "iw1", "a257", "abc1", "a1000", "ä1", "_1", "a\u{0}",
        ] {
            assert_eq!(parse_cell_name(junk), None, "{junk:?}");
        }
    }

    #[test]
    fn round_trip_every_cell() {
        for r in 0..=255u8 {
            for c in 0..=255u8 {
                let cell = Cell::new(r, c);
                assert_eq!(parse_cell_name(&cell_name(cell)), Some(cell));
                assert_eq!(parse_cell_name(&cell_name(cell).to_uppercase()), Some(cell));
            }
        }
    }
}
