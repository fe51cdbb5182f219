-- Issue 20: Glicko-2 beside Elo. Each bot's Glicko-2 rating, deviation (RD) and volatility as
-- of its last rated set or its house seed, and when that was (NULL: neither yet); the
-- deviation served grows from there by one rating period per whole day (src/arena/glicko.rs).
ALTER TABLE bots ADD COLUMN glicko_rating DOUBLE PRECISION NOT NULL DEFAULT 1200;
ALTER TABLE bots ADD COLUMN glicko_deviation DOUBLE PRECISION NOT NULL DEFAULT 350;
ALTER TABLE bots ADD COLUMN glicko_volatility DOUBLE PRECISION NOT NULL DEFAULT 0.06;
ALTER TABLE bots ADD COLUMN glicko_at_ms BIGINT;
-- Each side's Glicko-2 rating and deviation before a rated set (inactivity included) and after.
ALTER TABLE sets ADD COLUMN glicko_creator_before DOUBLE PRECISION;
ALTER TABLE sets ADD COLUMN glicko_creator_after DOUBLE PRECISION;
ALTER TABLE sets ADD COLUMN deviation_creator_before DOUBLE PRECISION;
ALTER TABLE sets ADD COLUMN deviation_creator_after DOUBLE PRECISION;
ALTER TABLE sets ADD COLUMN glicko_acceptor_before DOUBLE PRECISION;
ALTER TABLE sets ADD COLUMN glicko_acceptor_after DOUBLE PRECISION;
ALTER TABLE sets ADD COLUMN deviation_acceptor_before DOUBLE PRECISION;
ALTER TABLE sets ADD COLUMN deviation_acceptor_after DOUBLE PRECISION;
-- Replays of the stored rated sets still owed: the first start of a build with this migration
-- computes every bot's Glicko-2 figures from its rated sets, then sets `done_ms`.
CREATE TABLE rating_replays (
    system   TEXT PRIMARY KEY,
    done_ms  BIGINT
);
INSERT INTO rating_replays (system, done_ms) VALUES ('glicko2', NULL);
