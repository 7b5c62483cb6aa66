-- The action log in two parts (crates/store/src/tail.rs). Appends go to room_log_tail, a table in
-- arrival order: a commit of entries of many rooms writes one page or two at its end. room_log, keyed
-- by (room, game, seq), puts every room's entries on a page of their own; appending there directly
-- wrote one page per room per commit, the largest part of the CPU an action cost (docs/benchmarks.md,
-- session 31). The server moves each room's entries from the tail into room_log in the background,
-- many at a time. Readers see both through room_log_all; a tail row already moved but not yet deleted
-- (the tail is deleted from its start only) is hidden there by the NOT EXISTS.
CREATE TABLE room_log_tail (
    id      INTEGER PRIMARY KEY,
    room_id TEXT NOT NULL REFERENCES rooms (id),
    game_no INTEGER NOT NULL,
    seq     BIGINT NOT NULL,
    kind    TEXT NOT NULL CHECK (kind IN ('action', 'dice')),
    payload TEXT NOT NULL,
    at      BIGINT NOT NULL
);

CREATE VIEW room_log_all AS
    SELECT room_id, game_no, seq, kind, payload, at FROM room_log
    UNION ALL
    SELECT t.room_id, t.game_no, t.seq, t.kind, t.payload, t.at FROM room_log_tail t
    WHERE NOT EXISTS (SELECT 1 FROM room_log l
                      WHERE l.room_id = t.room_id AND l.game_no = t.game_no AND l.seq = t.seq);
