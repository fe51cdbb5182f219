-- Issue 20: the matchmaking pool. One row per bot waiting for the arena to pair it: the stake
-- and rating choice it plays for, and the options and clock it asked for (NULL: any that both
-- bots of a pairing accept, the contract's default when it fits). `version` grows with every
-- change and every pairing, so a pairing made from an older read of the row is not stored
-- (several instances pair from one database). `sets.pool` marks the sets the pool made.
CREATE TABLE pool_entries (
    bot_id TEXT PRIMARY KEY REFERENCES bots(id),
    stake BIGINT NOT NULL,
    rated BIGINT NOT NULL,
    size BIGINT,
    random_stones BIGINT,
    initial_ms BIGINT,
    increment_ms BIGINT,
    joined_ms BIGINT NOT NULL,
    version BIGINT NOT NULL DEFAULT 0
);
ALTER TABLE sets ADD COLUMN pool BIGINT NOT NULL DEFAULT 0;
CREATE INDEX sets_pool_created ON sets (pool, created_ms);
