-- hexarena schema (SPEC sections 3, 5, 6, 7, 8, 12). Times are integer milliseconds since the
-- Unix epoch (UTC) so one SQL text serves SQLite and PostgreSQL through sqlx's Any driver.
-- Booleans are integers 0/1 for the same reason.

CREATE TABLE players (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    token_hash  TEXT NOT NULL UNIQUE,
    balance     BIGINT NOT NULL CHECK (balance >= 0),
    house       BIGINT NOT NULL DEFAULT 0,
    created_ms  BIGINT NOT NULL
);

CREATE TABLE bots (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    name_key    TEXT NOT NULL UNIQUE,
    owner_id    TEXT NOT NULL REFERENCES players(id),
    max_stake   BIGINT NOT NULL,
    token_hash  TEXT NOT NULL UNIQUE,
    house       BIGINT NOT NULL DEFAULT 0,
    rating      DOUBLE PRECISION NOT NULL DEFAULT 1200,
    sets        BIGINT NOT NULL DEFAULT 0,
    wins        BIGINT NOT NULL DEFAULT 0,
    draws       BIGINT NOT NULL DEFAULT 0,
    losses      BIGINT NOT NULL DEFAULT 0,
    won         BIGINT NOT NULL DEFAULT 0,
    net         BIGINT NOT NULL DEFAULT 0,
    created_ms  BIGINT NOT NULL
);
CREATE INDEX bots_rating ON bots (rating DESC);

CREATE TABLE strikes (
    bot_id      TEXT NOT NULL REFERENCES bots(id),
    set_id      TEXT NOT NULL,
    game_no     BIGINT NOT NULL,
    at_ms       BIGINT NOT NULL,
    PRIMARY KEY (bot_id, set_id, game_no)
);

CREATE TABLE sets (
    id              TEXT PRIMARY KEY,
    creator_id      TEXT NOT NULL REFERENCES bots(id),
    acceptor_id     TEXT REFERENCES bots(id),
    opponent_id     TEXT REFERENCES bots(id),
    status          TEXT NOT NULL,
    practice        BIGINT NOT NULL DEFAULT 0,
    size            BIGINT NOT NULL,
    random_stones   BIGINT NOT NULL,
    initial_ms      BIGINT NOT NULL,
    increment_ms    BIGINT NOT NULL,
    stake           BIGINT NOT NULL,
    seed_hex        TEXT NOT NULL,
    seed_sha256     TEXT NOT NULL,
    opening         TEXT,
    points2_creator  BIGINT NOT NULL DEFAULT 0,
    points2_acceptor BIGINT NOT NULL DEFAULT 0,
    winner_id       TEXT,
    result          TEXT,
    tiebreak        BIGINT NOT NULL DEFAULT 0,
    created_ms      BIGINT NOT NULL,
    started_ms      BIGINT,
    finished_ms     BIGINT
);
CREATE INDEX sets_status ON sets (status, id);
CREATE INDEX sets_creator ON sets (creator_id, id);
CREATE INDEX sets_acceptor ON sets (acceptor_id, id);

CREATE TABLE games (
    set_id          TEXT NOT NULL REFERENCES sets(id),
    game_no         BIGINT NOT NULL,
    seat1_id        TEXT NOT NULL REFERENCES bots(id),
    seat2_id        TEXT NOT NULL REFERENCES bots(id),
    status          TEXT NOT NULL,
    board           TEXT NOT NULL,
    ply             BIGINT NOT NULL DEFAULT 0,
    to_move_id      TEXT,
    remaining1_ms   BIGINT NOT NULL,
    remaining2_ms   BIGINT NOT NULL,
    first1          BIGINT NOT NULL DEFAULT 1,
    first2          BIGINT NOT NULL DEFAULT 1,
    turn_started_ms BIGINT,
    deadline_ms     BIGINT,
    winner_seat     BIGINT,
    reason          TEXT,
    started_ms      BIGINT,
    finished_ms     BIGINT,
    version         BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (set_id, game_no)
);
CREATE INDEX games_to_move ON games (to_move_id, turn_started_ms);
CREATE INDEX games_deadline ON games (deadline_ms);

CREATE TABLE moves (
    set_id      TEXT NOT NULL,
    game_no     BIGINT NOT NULL,
    ply         BIGINT NOT NULL,
    seat        BIGINT NOT NULL,
    bot_id      TEXT NOT NULL,
    cell_row    BIGINT,
    cell_col    BIGINT,
    swap        BIGINT NOT NULL DEFAULT 0,
    elapsed_ms  BIGINT NOT NULL,
    at_ms       BIGINT NOT NULL,
    PRIMARY KEY (set_id, game_no, ply)
);

-- Ledger of postings (SPEC section 8): every transfer is a group of rows with the same
-- transfer_key whose amounts sum to zero. Accounts: 'player:<id>', 'escrow:<set_id>', 'mint'
-- (source of grants), 'fees'. The unique key makes every transfer idempotent.
CREATE TABLE ledger (
    id            BIGSERIAL PRIMARY KEY,
    transfer_key  TEXT NOT NULL,
    account       TEXT NOT NULL,
    player_id     TEXT,
    set_id        TEXT,
    kind          TEXT NOT NULL,
    amount        BIGINT NOT NULL,
    at_ms         BIGINT NOT NULL,
    UNIQUE (transfer_key, account)
);
CREATE INDEX ledger_player ON ledger (player_id, id);

-- Events for server-sent-event streams and Last-Event-ID resume (SPEC section 6).
-- bot_id NULL: a public event of one game's stream; otherwise an event for that bot's stream.
CREATE TABLE events (
    id        BIGSERIAL PRIMARY KEY,
    bot_id    TEXT,
    set_id    TEXT,
    game_no   BIGINT,
    kind      TEXT NOT NULL,
    payload   TEXT NOT NULL,
    at_ms     BIGINT NOT NULL
);
CREATE INDEX events_bot ON events (bot_id, id);
CREATE INDEX events_game ON events (set_id, game_no, id);
CREATE INDEX events_at ON events (at_ms);

-- Liveness of server instances: the whole arena's downtime is not charged to clocks (SPEC 7).
CREATE TABLE instances (
    id            TEXT PRIMARY KEY,
    heartbeat_ms  BIGINT NOT NULL
);
