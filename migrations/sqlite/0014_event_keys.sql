-- Issue 22: every move stores one event, and its bot and set were two 30-character ids written
-- three times over (the row and the two stream indexes), half the bytes a move stored. Bots and
-- sets get a small integer key for the event store alone; ids stay what the API shows. Key 0
-- is the lobby (every bot's stream), NULL a game's public stream.
ALTER TABLE bots ADD COLUMN num INTEGER;
UPDATE bots SET num = rowid;
CREATE UNIQUE INDEX bots_num ON bots (num);
-- SQLite has no sequences; one writer at a time makes MAX + 1 safe.
CREATE TRIGGER bots_num AFTER INSERT ON bots WHEN NEW.num IS NULL
BEGIN
    UPDATE bots SET num = (SELECT COALESCE(MAX(num), 0) + 1 FROM bots) WHERE rowid = NEW.rowid;
END;

ALTER TABLE sets ADD COLUMN num INTEGER;
UPDATE sets SET num = rowid;
CREATE UNIQUE INDEX sets_num ON sets (num);
CREATE TRIGGER sets_num AFTER INSERT ON sets WHEN NEW.num IS NULL
BEGIN
    UPDATE sets SET num = (SELECT COALESCE(MAX(num), 0) + 1 FROM sets) WHERE rowid = NEW.rowid;
END;

ALTER TABLE events ADD COLUMN bot_num INTEGER;
ALTER TABLE events ADD COLUMN set_num INTEGER;
UPDATE events SET
    bot_num = CASE WHEN bot_id = '*' THEN 0
                   ELSE (SELECT num FROM bots WHERE bots.id = events.bot_id) END,
    set_num = (SELECT num FROM sets WHERE sets.id = events.set_id);
DROP INDEX events_bot;
DROP INDEX events_game;
ALTER TABLE events DROP COLUMN bot_id;
ALTER TABLE events DROP COLUMN set_id;
CREATE INDEX events_bot ON events (bot_num, id);
CREATE INDEX events_game ON events (set_num, game_no, id);
