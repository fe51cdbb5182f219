-- Issue 22: a move changes its game row's seat on move, turn start and deadline, and the two
-- indexes over those columns changed with every move (four b-tree writes a move). Active games
-- are few and a bot's fewer: they are found through indexes over what a move never changes
-- (the seats and the status), kept only for active games, and the seat on move, the turn's
-- start and the deadline are read from the rows.
DROP INDEX games_to_move;
DROP INDEX games_deadline;
CREATE INDEX games_active ON games (status) WHERE status = 'active';
CREATE INDEX games_active_seat1 ON games (seat1_id) WHERE status = 'active';
CREATE INDEX games_active_seat2 ON games (seat2_id) WHERE status = 'active';
