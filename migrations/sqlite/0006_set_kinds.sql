-- Issue 18: `practice` now means a house practice set (POST /v1/practice) and nothing else;
-- `rated` says whether the set moves ratings. Until now `practice` held "unrated".
ALTER TABLE sets ADD COLUMN rated BIGINT NOT NULL DEFAULT 0;
UPDATE sets SET rated = 1 - practice;
-- Tournament and match sets, and unrated sets without a house bot, were never practice. (An
-- unrated private challenge to a house bot cannot be told from practice and stays so.)
UPDATE sets SET practice = 0 WHERE practice <> 0 AND (
    id IN (SELECT set_id FROM tournament_pairings WHERE set_id IS NOT NULL)
    OR NOT EXISTS (SELECT 1 FROM bots b WHERE b.house <> 0
                   AND (b.id = sets.creator_id OR b.id = sets.acceptor_id)));
-- Records count rated sets and every tournament and match set; the unrated tournament and
-- match sets were left out until now.
UPDATE bots SET
    sets = sets + (SELECT COUNT(*) FROM sets s WHERE s.status = 'finished' AND s.rated = 0
        AND s.id IN (SELECT set_id FROM tournament_pairings WHERE set_id IS NOT NULL) AND (s.creator_id = bots.id OR s.acceptor_id = bots.id)),
    wins = wins + (SELECT COUNT(*) FROM sets s WHERE s.status = 'finished' AND s.rated = 0
        AND s.id IN (SELECT set_id FROM tournament_pairings WHERE set_id IS NOT NULL) AND s.winner_id = bots.id),
    draws = draws + (SELECT COUNT(*) FROM sets s WHERE s.status = 'finished' AND s.rated = 0
        AND s.id IN (SELECT set_id FROM tournament_pairings WHERE set_id IS NOT NULL) AND s.winner_id IS NULL
        AND (s.creator_id = bots.id OR s.acceptor_id = bots.id)),
    losses = losses + (SELECT COUNT(*) FROM sets s WHERE s.status = 'finished' AND s.rated = 0
        AND s.id IN (SELECT set_id FROM tournament_pairings WHERE set_id IS NOT NULL) AND s.winner_id IS NOT NULL AND s.winner_id <> bots.id
        AND (s.creator_id = bots.id OR s.acceptor_id = bots.id));
-- Why a game ended, in more detail than `reason`: the seat that lost on time held no event
-- stream or long-poll (0/1). Refused move attempts per seat (illegal, not your turn, stale ply).
ALTER TABLE games ADD COLUMN offline BIGINT NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN refused1 BIGINT NOT NULL DEFAULT 0;
ALTER TABLE games ADD COLUMN refused2 BIGINT NOT NULL DEFAULT 0;
ALTER TABLE bots ADD COLUMN refused_moves BIGINT NOT NULL DEFAULT 0;
