//! The seeded random opening (SPEC section 2, "Random opening").

use rand_core::{Rng, SeedableRng};
use rand_pcg::Pcg64;

use crate::{Cell, MAX_SIZE, Position, SetupError};

/// Redraws of a whole opening before giving up on a (tiny, crowded) board where almost every
/// opening connects. Never reached for the API's sizes 9..=19 with at most 10 stones per seat.
const MAX_REDRAWS: u32 = 100_000;

/// The random opening of a set: `stones_per_seat` stones for each seat, in placement order
/// (even indices seat 1's, odd indices seat 2's), derived from the 32-byte `seed` exactly as in
/// SPEC section 2:
///
/// 1. `rng = rand_pcg::Pcg64::from_seed(seed)`; `N = size * size`.
/// 2. Draw `x = rng.next_u64()`; reject and redraw while `x >= floor(2^64 / N) * N`;
///    `i = x % N`; if cell `[i / size, i % size]` is already taken draw again, else place it.
/// 3. Repeat until `2 * stones_per_seat` cells are placed. If the finished opening already joins
///    seat 1's top and bottom or seat 2's left and right, discard it and draw a whole new
///    opening from the same RNG stream.
///
/// Test vector: seed bytes `00 01 .. 1f`, size 11, 4 stones per seat ->
/// `[[7,2],[5,3],[6,2],[7,1],[7,6],[9,8],[6,3],[4,7]]`.
///
/// # Errors
/// [`SetupError::BadSize`] for a size outside 1..=26; [`SetupError::TooManyStones`] when
/// `2 * stones_per_seat > size * size`, when the stones would fill the board (a full board
/// always connects), or when no non-connecting opening turned up in 100 000 redraws.
pub fn opening(seed: &[u8; 32], size: u8, stones_per_seat: u8) -> Result<Vec<Cell>, SetupError> {
    if size == 0 || size > MAX_SIZE {
        return Err(SetupError::BadSize(size));
    }
    let n = u64::from(size) * u64::from(size);
    let stones = 2 * u64::from(stones_per_seat);
    if stones > n {
        return Err(SetupError::TooManyStones);
    }
    if stones == 0 {
        return Ok(Vec::new());
    }
    if stones == n {
        return Err(SetupError::TooManyStones);
    }
    // floor(2^64 / N) * N, which is 2^64 itself (no rejection) when N is a power of two
    let limit: u128 = ((1u128 << 64) / u128::from(n)) * u128::from(n);
    let mut rng = Pcg64::from_seed(*seed);
    let mut cells = Vec::with_capacity(stones as usize);
    for _ in 0..MAX_REDRAWS {
        cells.clear();
        let mut taken = [false; (MAX_SIZE as usize) * (MAX_SIZE as usize)];
        while (cells.len() as u64) < stones {
            let x = rng.next_u64();
            if u128::from(x) >= limit {
                continue;
            }
            let i = x % n;
            if taken[i as usize] {
                continue;
            }
            taken[i as usize] = true;
            cells.push(Cell::new(
                (i / u64::from(size)) as u8,
                (i % u64::from(size)) as u8,
            ));
        }
        if let (_, None) = Position::place_opening(size, &cells)? {
            return Ok(cells);
        }
        // the opening connects a seat's edges: draw a whole new one from the same stream
    }
    Err(SetupError::TooManyStones)
}

/// Parses a seed shown as exactly 64 hex digits (either case) into its 32 bytes.
/// `None` for any other length or a non-hex character.
pub fn parse_seed_hex(text: &str) -> Option<[u8; 32]> {
    let b = text.as_bytes();
    if b.len() != 64 {
        return None;
    }
    let mut seed = [0u8; 32];
    for (k, pair) in b.chunks_exact(2).enumerate() {
        let hi = char::from(pair[0]).to_digit(16)?;
        let lo = char::from(pair[1]).to_digit(16)?;
        seed[k] = (hi * 16 + lo) as u8;
    }
    Some(seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counting_seed() -> [u8; 32] {
        std::array::from_fn(|i| i as u8)
    }

    fn pairs(cells: &[Cell]) -> Vec<[u8; 2]> {
        cells.iter().map(|&c| c.into()).collect()
    }

    #[test]
    fn spec_test_vector() {
        let cells = opening(&counting_seed(), 11, 4).expect("opening");
        assert_eq!(
            pairs(&cells),
            vec![
                [7, 2],
                [5, 3],
                [6, 2],
                [7, 1],
                [7, 6],
                [9, 8],
                [6, 3],
                [4, 7]
            ]
        );
    }

    fn hex_seed(text: &str) -> [u8; 32] {
        parse_seed_hex(text).expect("64 hex digits")
    }

    /// Vectors pinned by this crate (cross-checked with an independent Python PCG64 XSL-RR).
    #[test]
    fn pinned_vectors() {
        let zero = hex_seed(&"00".repeat(32));
        assert_eq!(
            pairs(&opening(&zero, 9, 4).expect("opening")),
            vec![
                [4, 5],
                [8, 3],
                [5, 2],
                [2, 3],
                [4, 3],
                [5, 3],
                [6, 7],
                [3, 7]
            ]
        );
        let desc = hex_seed(&"ffeeddccbbaa99887766554433221100".repeat(2));
        assert_eq!(
            pairs(&opening(&desc, 19, 10).expect("opening")),
            vec![
                [2, 1],
                [7, 0],
                [0, 14],
                [8, 16],
                [9, 18],
                [7, 9],
                [11, 2],
                [8, 1],
                [3, 2],
                [2, 15],
                [4, 13],
                [2, 4],
                [12, 16],
                [10, 1],
                [18, 9],
                [0, 8],
                [1, 4],
                [14, 18],
                [14, 9],
                [10, 9]
            ]
        );
        assert_eq!(
            pairs(&opening(&counting_seed(), 13, 6).expect("opening")),
            vec![
                [3, 10],
                [4, 1],
                [5, 1],
                [5, 11],
                [0, 1],
                [11, 6],
                [9, 6],
                [0, 11],
                [8, 8],
                [12, 2],
                [5, 6],
                [5, 12]
            ]
        );
    }

    /// Seed 60 00 .. 00 on 5x5 with 6 stones per seat: the first drawn opening
    /// `[[0,3],[3,0],[3,2],[2,2],[2,3],[4,3],[1,2],[4,1],[4,2],[0,2],[1,3],[0,0]]` joins seat 1's
    /// edges ([0,3]-[1,2]-[1,3]-[2,3]-[3,2]-[4,2]), so it is discarded and the stream goes on.
    #[test]
    fn pinned_vector_with_a_redraw() {
        let first = [
            [0, 3],
            [3, 0],
            [3, 2],
            [2, 2],
            [2, 3],
            [4, 3],
            [1, 2],
            [4, 1],
            [4, 2],
            [0, 2],
            [1, 3],
            [0, 0],
        ];
        let first: Vec<Cell> = first.iter().map(|&p| Cell::from(p)).collect();
        assert!(matches!(
            Position::with_opening(5, &first),
            Err(SetupError::Malformed(_))
        ));
        let seed = hex_seed(&format!("60{}", "00".repeat(31)));
        assert_eq!(
            pairs(&opening(&seed, 5, 6).expect("opening")),
            vec![
                [2, 3],
                [0, 2],
                [3, 0],
                [0, 3],
                [4, 0],
                [1, 0],
                [2, 2],
                [4, 2],
                [1, 4],
                [3, 3],
                [2, 0],
                [0, 4]
            ]
        );
    }

    #[test]
    fn seed_hex() {
        let s = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
        assert_eq!(parse_seed_hex(s), Some(counting_seed()));
        assert_eq!(parse_seed_hex(&s.to_uppercase()), Some(counting_seed()));
        assert_eq!(parse_seed_hex(&s[..62]), None);
        assert_eq!(parse_seed_hex(&format!("{s}00")), None);
        assert_eq!(parse_seed_hex(&format!("g{}", &s[1..])), None);
        assert_eq!(parse_seed_hex(&format!("+{}", &s[1..])), None);
        assert_eq!(parse_seed_hex(&format!("é{}", &s[2..])), None);
        assert_eq!(parse_seed_hex(""), None);
    }

    #[test]
    fn errors_and_trivial_cases() {
        let seed = counting_seed();
        assert_eq!(opening(&seed, 0, 1), Err(SetupError::BadSize(0)));
        assert_eq!(opening(&seed, 27, 1), Err(SetupError::BadSize(27)));
        assert_eq!(opening(&seed, 3, 5), Err(SetupError::TooManyStones));
        assert_eq!(opening(&seed, 2, 2), Err(SetupError::TooManyStones)); // would fill the board
        assert_eq!(opening(&seed, 11, 0), Ok(Vec::new()));
        assert_eq!(opening(&seed, 1, 0), Ok(Vec::new()));
    }

    #[test]
    fn openings_are_distinct_on_board_and_never_connect() {
        for size in 2..=13u8 {
            for k in 0..=6u8 {
                if 2 * u16::from(k) >= u16::from(size) * u16::from(size) {
                    continue;
                }
                let mut seed = counting_seed();
                seed[0] = size;
                seed[1] = k;
                let cells = opening(&seed, size, k).expect("opening");
                assert_eq!(cells.len(), 2 * usize::from(k));
                let pos = Position::with_opening(size, &cells).expect("valid opening");
                assert!(!pos.is_over());
                // deterministic
                assert_eq!(opening(&seed, size, k).expect("again"), cells);
            }
        }
    }
}
