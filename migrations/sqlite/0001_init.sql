-- fourkings schema, SQLite flavour. Times are unix milliseconds (BIGINT) in both backends so that the
-- two stores behave identically; JSON is TEXT here and JSONB in PostgreSQL.

CREATE TABLE players (
    id           TEXT PRIMARY KEY,
    -- sha256 of the device secret, hex; NULL for the fixed CPU identities, which never sign in.
    secret_hash  TEXT,
    display_name TEXT NOT NULL,
    is_cpu       BOOLEAN NOT NULL DEFAULT FALSE,
    created_at   BIGINT NOT NULL
);

-- CPU seats are rated under one fixed identity per bot level.
INSERT INTO players (id, secret_hash, display_name, is_cpu, created_at) VALUES
    ('cpu:easy',   NULL, 'CPU (easy)',   TRUE, 0),
    ('cpu:medium', NULL, 'CPU (medium)', TRUE, 0),
    ('cpu:hard',   NULL, 'CPU (hard)',   TRUE, 0),
    ('cpu:greedy', NULL, 'CPU (greedy)', TRUE, 0);

CREATE TABLE rooms (
    id              TEXT PRIMARY KEY,
    game_kind       TEXT NOT NULL,
    options         TEXT NOT NULL,
    host_token_hash TEXT NOT NULL,
    settings        TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('lobby', 'playing', 'finished', 'closed')),
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL,
    -- Cluster mode (lease + fencing token); unused by a single node.
    owner_node      TEXT,
    owner_epoch     BIGINT,
    last_seq        BIGINT
);
CREATE INDEX rooms_by_state ON rooms (state);

-- The append-only log of every accepted action and dice throw; the primary key makes a duplicate
-- append detectable (same key: identical payload is a harmless retry, a different one a conflict).
CREATE TABLE room_log (
    room_id TEXT NOT NULL REFERENCES rooms (id),
    game_no INTEGER NOT NULL,
    seq     BIGINT NOT NULL,
    kind    TEXT NOT NULL CHECK (kind IN ('action', 'dice')),
    payload TEXT NOT NULL,
    at      BIGINT NOT NULL,
    PRIMARY KEY (room_id, game_no, seq)
) WITHOUT ROWID;

CREATE TABLE games (
    id            TEXT PRIMARY KEY,
    room_id       TEXT NOT NULL REFERENCES rooms (id),
    game_no       INTEGER NOT NULL,
    pool          TEXT NOT NULL,
    rated         BOOLEAN NOT NULL,
    options       TEXT NOT NULL,
    first_seat    TEXT NOT NULL,
    dice_commit   TEXT,
    revealed_seed TEXT,
    result        TEXT NOT NULL,
    standings     TEXT NOT NULL,
    record        TEXT NOT NULL,
    finished_at   BIGINT NOT NULL,
    UNIQUE (room_id, game_no)
);

CREATE TABLE game_seats (
    game_id      TEXT NOT NULL REFERENCES games (id),
    seat         TEXT NOT NULL CHECK (seat IN ('red', 'blue', 'yellow', 'green')),
    player_id    TEXT NOT NULL REFERENCES players (id),
    cpu_finished BOOLEAN NOT NULL,
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX game_seats_by_player ON game_seats (player_id);

CREATE TABLE ratings (
    player_id  TEXT NOT NULL REFERENCES players (id),
    pool       TEXT NOT NULL,
    mu         DOUBLE PRECISION NOT NULL,
    sigma      DOUBLE PRECISION NOT NULL,
    games      BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (player_id, pool)
);
CREATE INDEX ratings_board ON ratings (pool, (mu - 3 * sigma));

CREATE TABLE rating_history (
    player_id    TEXT NOT NULL REFERENCES players (id),
    pool         TEXT NOT NULL,
    game_id      TEXT NOT NULL REFERENCES games (id),
    mu_before    DOUBLE PRECISION NOT NULL,
    sigma_before DOUBLE PRECISION NOT NULL,
    mu_after     DOUBLE PRECISION NOT NULL,
    sigma_after  DOUBLE PRECISION NOT NULL,
    at           BIGINT NOT NULL,
    PRIMARY KEY (player_id, game_id)
);
CREATE INDEX rating_history_by_game ON rating_history (game_id);
