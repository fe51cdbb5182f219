-- Presence, tournaments and matches (issue 12, SPEC 14). Times are integer ms since the epoch;
-- booleans are 0/1 integers, as in 0001.

-- When the bot last held an event stream or a long-poll (written at most every ~10 s per bot).
ALTER TABLE bots ADD COLUMN last_seen_ms BIGINT;

CREATE TABLE tournaments (
    id               TEXT PRIMARY KEY,          -- tour_<ULID>
    name             TEXT NOT NULL,
    format           TEXT NOT NULL,             -- round_robin | swiss | gauntlet | match
    rounds           BIGINT NOT NULL,           -- rounds planned
    status           TEXT NOT NULL,             -- created | running | paused | finished | cancelled
    size             BIGINT NOT NULL,
    random_stones    BIGINT NOT NULL,
    initial_ms       BIGINT NOT NULL,
    increment_ms     BIGINT NOT NULL,
    stake            BIGINT NOT NULL,
    rated            BIGINT NOT NULL,
    max_concurrent   BIGINT NOT NULL,
    absent           TEXT NOT NULL,             -- wait | forfeit | skip
    forfeit_after_ms BIGINT NOT NULL,
    start_ms         BIGINT,                    -- optional scheduled start
    current_round    BIGINT NOT NULL DEFAULT 0,
    created_ms       BIGINT NOT NULL,
    started_ms       BIGINT,
    finished_ms      BIGINT,
    owner_id         TEXT REFERENCES players(id), -- matches: the player who runs it
    match_sets       BIGINT,                    -- matches: most sets to play
    sprt             TEXT                       -- matches: {"elo0","elo1","alpha","beta"} JSON
);

CREATE TABLE tournament_entries (
    tournament_id    TEXT NOT NULL REFERENCES tournaments(id),
    seed             BIGINT NOT NULL,           -- 0 = top seed
    bot_id           TEXT NOT NULL REFERENCES bots(id),
    rating           DOUBLE PRECISION NOT NULL, -- at creation: seeds and performance ratings
    PRIMARY KEY (tournament_id, seed),
    UNIQUE (tournament_id, bot_id)
);

-- One row per paired round: the primary key is what makes a round impossible to pair twice.
CREATE TABLE tournament_rounds (
    tournament_id    TEXT NOT NULL REFERENCES tournaments(id),
    round            BIGINT NOT NULL,
    paired_ms        BIGINT NOT NULL,
    PRIMARY KEY (tournament_id, round)
);

CREATE TABLE tournament_pairings (
    tournament_id    TEXT NOT NULL REFERENCES tournaments(id),
    round            BIGINT NOT NULL,
    board            BIGINT NOT NULL,
    seed1            BIGINT NOT NULL,           -- the set's creator
    seed2            BIGINT,                    -- NULL: a bye for seed1
    status           TEXT NOT NULL,             -- pending | playing | finished | bye | forfeit | absent | cancelled
    set_id           TEXT UNIQUE REFERENCES sets(id),
    points2_1        BIGINT NOT NULL DEFAULT 0, -- set points, doubled
    points2_2        BIGINT NOT NULL DEFAULT 0,
    games2_1         BIGINT NOT NULL DEFAULT 0, -- game points, doubled
    games2_2         BIGINT NOT NULL DEFAULT 0,
    moves_1          BIGINT NOT NULL DEFAULT 0, -- own moves in games not lost (the tiebreak count)
    moves_2          BIGINT NOT NULL DEFAULT 0,
    games_json       TEXT,                      -- per game: winner 1|2 (by seed column) or 0 draw
    created_ms       BIGINT NOT NULL,
    finished_ms      BIGINT,
    PRIMARY KEY (tournament_id, round, board),
    FOREIGN KEY (tournament_id, round) REFERENCES tournament_rounds(tournament_id, round)
);
CREATE INDEX tournament_pairings_status ON tournament_pairings (status);
