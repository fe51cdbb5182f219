-- Issue 22: a move changes its game row's seat on move, turn start and deadline, and the two
-- indexes over those columns made every move's update a new row version in every index of the
-- table. Active games are found through indexes over what a move never changes (the seats and
-- the status), kept only for active games, so a move's update changes no indexed column and
-- PostgreSQL can keep it in the row's page without touching an index (a heap-only update);
-- the free space a page keeps for that is the fill factor's.
DROP INDEX games_to_move;
DROP INDEX games_deadline;
CREATE INDEX games_active ON games (status) WHERE status = 'active';
CREATE INDEX games_active_seat1 ON games (seat1_id) WHERE status = 'active';
CREATE INDEX games_active_seat2 ON games (seat2_id) WHERE status = 'active';
ALTER TABLE games SET (fillfactor = 70);
