-- Rooms are persisted through room_log: game number 0 holds the room's own records (created, seats
-- taken, CPU seats, settings changes, game starts), games 1, 2, … their actions and dice throws; no
-- schema change is needed for that.
--
-- Seats of humans who joined without a player identity are recorded under this fixed guest player.
-- It has no secret (nobody can sign in as it) and games with a guest seat are never rated.
INSERT INTO players (id, secret_hash, display_name, is_cpu, created_at) VALUES
    ('guest', NULL, 'Guest', FALSE, 0);
