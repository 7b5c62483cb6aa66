-- Cluster mode: several server nodes on one PostgreSQL. Each node *incarnation* (a fresh id at every
-- start) holds a lease measured on the database clock; a room is owned by one node under a fencing
-- epoch (rooms.owner_node / owner_epoch / last_seq, created in 0001). Every log row remembers which
-- incarnation and epoch wrote it, so a checker can prove that no epoch was written by two nodes.

CREATE TABLE nodes (
    id          TEXT PRIMARY KEY,
    public_url  TEXT NOT NULL,
    started_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    lease_until TIMESTAMPTZ NOT NULL
);

CREATE INDEX rooms_by_owner ON rooms (owner_node);

ALTER TABLE room_log ADD COLUMN writer_node TEXT;
ALTER TABLE room_log ADD COLUMN writer_epoch BIGINT;
