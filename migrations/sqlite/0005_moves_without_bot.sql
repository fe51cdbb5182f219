-- The bot of a move is its game's seat, so it is not stored again.
ALTER TABLE moves DROP COLUMN bot_id;

-- Old events are pruned by id (ids grow with time), so `at_ms` needs no index of its own.
DROP INDEX events_at;
