-- Issue 18, part C: withdrawals. A withdrawn participant keeps its seed and its results and is
-- paired no more; `withdrawn_round` is the round that was current when it withdrew, and
-- `withdrawn_by` says who withdrew it: `operator`, or `absence` (the arena, after consecutive
-- forfeits by absence).
ALTER TABLE tournament_entries ADD COLUMN withdrawn_ms BIGINT;
ALTER TABLE tournament_entries ADD COLUMN withdrawn_round BIGINT;
ALTER TABLE tournament_entries ADD COLUMN withdrawn_by TEXT;
-- The seed whose withdrawal decided a pairing: a forfeit made for it, or its set forfeited in play.
ALTER TABLE tournament_pairings ADD COLUMN withdrawn_seed BIGINT;
-- A game ended because its bot was withdrawn from its tournament (`result.forfeit`, 0/1).
ALTER TABLE games ADD COLUMN forfeit BIGINT NOT NULL DEFAULT 0;
