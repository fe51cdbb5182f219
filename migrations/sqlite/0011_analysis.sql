-- Issue 21: what a bot thought of its move (the `Hexarena-Info` header, compact JSON; NULL, so no
-- byte stored, when it sent none) and the arena's analysis of every finished game.
ALTER TABLE moves ADD COLUMN info TEXT;
-- A finished game's analysis, once done (a finished game without a row is pending): the
-- engine, seat 1's win probability before the first move and after each move (JSON array of
-- numbers) and the mistakes (JSON array of {ply, seat, drop, best}).
CREATE TABLE analyses (
    set_id      TEXT NOT NULL,
    game_no     BIGINT NOT NULL,
    engine      TEXT NOT NULL,
    win_prob    TEXT NOT NULL,
    mistakes    TEXT NOT NULL,
    done_ms     BIGINT NOT NULL,
    PRIMARY KEY (set_id, game_no)
);
-- Each mistake again, by the bot that made it, for `GET /v1/bots/{name}/mistakes` (worst first).
-- `drop_ppm` is the win probability lost, in millionths; `best` the better move's name.
CREATE TABLE mistakes (
    set_id      TEXT NOT NULL,
    game_no     BIGINT NOT NULL,
    ply         BIGINT NOT NULL,
    bot_id      TEXT NOT NULL,
    seat        BIGINT NOT NULL,
    drop_ppm    BIGINT NOT NULL,
    best        TEXT NOT NULL,
    PRIMARY KEY (set_id, game_no, ply)
);
CREATE INDEX mistakes_by_bot ON mistakes (bot_id, drop_ppm);
-- The analyst walks the finished games in the order they ended.
CREATE INDEX games_finished ON games (finished_ms);
