-- Rating history (issue 14): each side's Elo before and after a rated set, written when the
-- set is settled. NULL for sets that were not rated or finished before this migration.
ALTER TABLE sets ADD COLUMN rating_creator_before DOUBLE PRECISION;
ALTER TABLE sets ADD COLUMN rating_creator_after DOUBLE PRECISION;
ALTER TABLE sets ADD COLUMN rating_acceptor_before DOUBLE PRECISION;
ALTER TABLE sets ADD COLUMN rating_acceptor_after DOUBLE PRECISION;
