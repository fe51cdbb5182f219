-- Issue 22: a move's row was keyed by its set's 30-character text id, about a sixth of what a
-- move stored. The set's number (0014) keys it instead. A move always belongs to a game of a
-- stored set (the games' foreign key); a row without one could not be shown and is not kept.
CREATE TABLE moves_keyed (
    set_num     INTEGER NOT NULL,
    game_no     BIGINT NOT NULL,
    ply         BIGINT NOT NULL,
    seat        BIGINT NOT NULL,
    cell_row    BIGINT,
    cell_col    BIGINT,
    swap        BIGINT NOT NULL DEFAULT 0,
    elapsed_ms  BIGINT NOT NULL,
    at_ms       BIGINT NOT NULL,
    info        TEXT,
    PRIMARY KEY (set_num, game_no, ply)
) WITHOUT ROWID;
INSERT INTO moves_keyed (set_num, game_no, ply, seat, cell_row, cell_col, swap, elapsed_ms, at_ms, info)
    SELECT s.num, m.game_no, m.ply, m.seat, m.cell_row, m.cell_col, m.swap, m.elapsed_ms, m.at_ms, m.info
    FROM moves AS m JOIN sets AS s ON s.id = m.set_id;
DROP TABLE moves;
ALTER TABLE moves_keyed RENAME TO moves;
