-- Ratings that mean something: every finished game says why it moved no rating, CPU levels are fixed
-- anchors (computed by the rating crate, never stored), and each history line keeps the player's game
-- count after it (what the provisional rule and the profile chart read).

ALTER TABLE games ADD COLUMN unrated_reason TEXT
    CHECK (unrated_reason IN ('casual', 'guest', 'same_identity', 'too_short'));
UPDATE games SET unrated_reason = CASE
        WHEN EXISTS (SELECT 1 FROM game_seats s WHERE s.game_id = games.id AND s.player_id = 'guest')
            THEN 'guest'
        ELSE 'casual'
    END
    WHERE NOT rated;

-- The CPU identities' ratings were moved by games (and shared by every seat of a level): gone.
DELETE FROM rating_history WHERE player_id LIKE 'cpu:%';
DELETE FROM ratings WHERE player_id LIKE 'cpu:%';

ALTER TABLE rating_history ADD COLUMN games BIGINT NOT NULL DEFAULT 0;
UPDATE rating_history SET games = (
    SELECT COUNT(*) FROM rating_history h
    WHERE h.player_id = rating_history.player_id AND h.pool = rating_history.pool
      AND (h.at < rating_history.at OR (h.at = rating_history.at AND h.game_id <= rating_history.game_id))
);
CREATE INDEX rating_history_by_player ON rating_history (player_id, pool, at);
