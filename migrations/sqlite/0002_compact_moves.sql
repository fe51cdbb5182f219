-- Moves live in their primary key's b-tree (WITHOUT ROWID): one b-tree instead of a rowid table
-- plus a separate index on (set_id, game_no, ply). The bot of a move is its game's seat, so it is
-- not stored again. Together this about halves the bytes stored per move.
CREATE TABLE moves_compact (
    set_id      TEXT NOT NULL,
    game_no     BIGINT NOT NULL,
    ply         BIGINT NOT NULL,
    seat        BIGINT NOT NULL,
    cell_row    BIGINT,
    cell_col    BIGINT,
    swap        BIGINT NOT NULL DEFAULT 0,
    elapsed_ms  BIGINT NOT NULL,
    at_ms       BIGINT NOT NULL,
    PRIMARY KEY (set_id, game_no, ply)
) WITHOUT ROWID;
INSERT INTO moves_compact (set_id, game_no, ply, seat, cell_row, cell_col, swap, elapsed_ms, at_ms)
    SELECT set_id, game_no, ply, seat, cell_row, cell_col, swap, elapsed_ms, at_ms FROM moves;
DROP TABLE moves;
ALTER TABLE moves_compact RENAME TO moves;

-- Old events are pruned by id (ids grow with time), so `at_ms` needs no index of its own.
DROP INDEX events_at;
