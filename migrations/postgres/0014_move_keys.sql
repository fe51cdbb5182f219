-- Issue 22: a move's row was keyed by its set's 30-character text id, about a sixth of what a
-- move stored. The set's number (0013) keys it instead. A move always belongs to a game of a
-- stored set (the games' foreign key); a row without one could not be shown and is not kept.
ALTER TABLE moves ADD COLUMN set_num BIGINT;
UPDATE moves SET set_num = s.num FROM sets AS s WHERE s.id = moves.set_id;
DELETE FROM moves WHERE set_num IS NULL;
-- Dropping the column drops the primary key that holds it.
ALTER TABLE moves DROP COLUMN set_id;
ALTER TABLE moves ALTER COLUMN set_num SET NOT NULL;
ALTER TABLE moves ADD PRIMARY KEY (set_num, game_no, ply);
