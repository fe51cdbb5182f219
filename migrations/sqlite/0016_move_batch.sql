-- Issue 22: a batch of moves was six statements (BEGIN, the game rows' update, the moves, the
-- events, the answer, COMMIT), and sqlx's SQLite thread hands each statement's outcome to the
-- writer as a message of its own: about seven wake-ups of the writer's thread a batch. Here a
-- batch is one INSERT into this view, its own transaction, and this trigger stores each row:
-- the game row (only if still at the version below the move's, else the whole statement, and so
-- the whole batch, is undone), the move and its `state` event. The view never holds a row.
CREATE VIEW move_batch AS SELECT
    NULL AS set_id, NULL AS game_no, NULL AS board, NULL AS ply, NULL AS to_move_id,
    NULL AS remaining1_ms, NULL AS remaining2_ms, NULL AS first1, NULL AS first2,
    NULL AS turn_started_ms, NULL AS deadline_ms, NULL AS version,
    NULL AS move_ply, NULL AS seat, NULL AS cell_row, NULL AS cell_col, NULL AS swap,
    NULL AS elapsed_ms, NULL AS at_ms, NULL AS info,
    NULL AS event_bot, NULL AS payload, NULL AS event_at_ms
WHERE 0;

CREATE TRIGGER move_batch INSTEAD OF INSERT ON move_batch
BEGIN
    UPDATE games SET board = NEW.board, ply = NEW.ply, to_move_id = NEW.to_move_id,
        remaining1_ms = NEW.remaining1_ms, remaining2_ms = NEW.remaining2_ms,
        first1 = NEW.first1, first2 = NEW.first2, turn_started_ms = NEW.turn_started_ms,
        deadline_ms = NEW.deadline_ms, version = NEW.version
    WHERE set_id = NEW.set_id AND game_no = NEW.game_no AND version = NEW.version - 1;
    -- The writer tells this message apart from every other error: keep the two in step.
    SELECT RAISE(ABORT, 'hexarena: stale game row') WHERE changes() = 0;
    INSERT INTO moves (set_num, game_no, ply, seat, cell_row, cell_col, swap, elapsed_ms,
        at_ms, info)
    VALUES ((SELECT num FROM sets WHERE sets.id = NEW.set_id), NEW.game_no, NEW.move_ply,
        NEW.seat, NEW.cell_row, NEW.cell_col, NEW.swap, NEW.elapsed_ms, NEW.at_ms, NEW.info);
    INSERT INTO events (bot_num, set_num, game_no, kind, payload, at_ms)
    VALUES (CASE WHEN NEW.event_bot = '*' THEN 0
                 ELSE (SELECT num FROM bots WHERE bots.id = NEW.event_bot) END,
        (SELECT num FROM sets WHERE sets.id = NEW.set_id), NEW.game_no, 'state', NEW.payload,
        NEW.event_at_ms);
END;
