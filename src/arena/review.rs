//! What a bot author reads back about a bot's finished games (issue 21): the positions where
//! its moves lost the most win probability, and its games as one SGF collection. The
//! analyses themselves are made and stored by [`super::analysis`].

use std::collections::HashMap;

use serde_json::{Value, json};

use super::error::ArenaResult;
use super::{Arena, views};
use crate::store::accounts::BotRow;
use crate::store::{analysis, games, sets};

/// Most mistakes one answer lists.
pub const MAX_MISTAKES: i64 = 100;
/// Most games one SGF collection holds (the oldest first from `since`).
pub const MAX_SGF_GAMES: i64 = 1000;

/// A game as the mistakes list needs it: size, opening and move names.
struct GameText {
    size: i64,
    opening: Vec<[u8; 2]>,
    moves: Vec<String>,
}

impl Arena {
    /// The (at most `limit`, clamped to 1..=[`MAX_MISTAKES`]) positions where `b`'s moves
    /// lost the most win probability, worst first: `{"bot", "mistakes": [{"set_id",
    /// "game_no", "ply", "seat", "drop", "played", "best", "size", "opening", "moves"}]}`
    /// with `moves` the names of the moves before the mistake. Errors: database.
    pub async fn bot_mistakes(&self, b: &BotRow, limit: i64) -> ArenaResult<Value> {
        let limit = limit.clamp(1, MAX_MISTAKES);
        let mut c = self.store.conn().await?;
        let rows = analysis::by_bot(&mut c, &b.id, limit).await?;
        let mut texts: HashMap<(String, i64), GameText> = HashMap::new();
        let mut out = Vec::with_capacity(rows.len());
        for m in rows {
            let key = (m.set_id.clone(), m.game_no);
            if !texts.contains_key(&key) {
                let Some(set) = sets::get(&mut c, &m.set_id, "").await? else {
                    continue;
                };
                let moves = games::moves(&mut c, &m.set_id, m.game_no)
                    .await?
                    .iter()
                    .map(|r| views::move_view(r).name)
                    .collect();
                texts.insert(
                    key.clone(),
                    GameText {
                        size: set.size,
                        opening: views::opening_of(&set),
                        moves,
                    },
                );
            }
            let Some(t) = texts.get(&key) else { continue };
            let k = usize::try_from(m.ply - 1).unwrap_or(0).min(t.moves.len());
            out.push(json!({
                "set_id": m.set_id,
                "game_no": m.game_no,
                "ply": m.ply,
                "seat": m.seat,
                // 3 decimals, as the game's analysis gives the same mistake.
                "drop": (m.drop_ppm as f64 / 1e3).round() / 1e3,
                "played": t.moves.get(k),
                "best": m.best,
                "size": t.size,
                "opening": t.opening,
                "moves": &t.moves[..k],
            }));
        }
        Ok(json!({"bot": b.name, "mistakes": out}))
    }

    /// `b`'s finished games that ended at or after `since_ms` (oldest first, at most
    /// [`MAX_SGF_GAMES`]) as one SGF collection, each game as [`Arena::game_sgf`] writes it.
    /// Errors: database.
    pub async fn bot_games_sgf(&self, b: &BotRow, since_ms: i64) -> ArenaResult<String> {
        let list = {
            let mut c = self.store.conn().await?;
            analysis::finished_games_of(&mut c, &b.id, since_ms, MAX_SGF_GAMES).await?
        };
        let mut out = String::new();
        for (set_id, game_no) in list {
            if let Some(sgf) = self.game_sgf(&set_id, game_no, false).await? {
                out.push_str(&sgf);
            }
        }
        Ok(out)
    }
}
