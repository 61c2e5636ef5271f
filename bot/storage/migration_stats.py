"""The v17 migration (issue 36 item 5): /stats counts tournament hands apart.

One text for both backends (``migrations_pg`` maps its column types).
"""

from __future__ import annotations

# v17: ``player_stats`` is keyed by a ``kind`` (cash, practice, tournament) instead of
# the ``practice`` flag, so a Sit & Go's hands (stored with ``practice = 1``) no longer
# add to the practice figures. A primary key cannot be altered in SQLite: the table is
# copied into one keyed by kind. Rows are totals, not hands, so a practice row can move
# to ``tournament`` only when every practice hand of that player (of that game, or of
# every game for the '*' row) on that server was a tournament hand; a row that mixes
# both stays practice (its tournament hands cannot be taken out of a total).
_COLUMNS = (
    "hands, net, vpip, showdowns, showdowns_won, draws_json, buys_left, buys_right, "
    "buys_blind, won_high, won_low, won_both, series_json, stride, first_at, last_at"
)
_PRACTICE_HANDS = """EXISTS (
        SELECT 1 FROM hand_players hp JOIN hands h ON h.hand_id = hp.hand_id
        JOIN people p ON p.person_id = hp.person_id
        WHERE p.guild_id = s.guild_id AND p.user_id = s.user_id AND h.practice = 1
          AND h.status = 'complete' AND h.cancelled = 0
          AND (s.variant = '*' OR h.variant = s.variant) AND h.tournament_id IS {} NULL)"""

STATS_KINDS = f"""
CREATE TABLE player_stats_by_kind (
    guild_id      INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    variant       TEXT    NOT NULL,  -- a game id, or '*' for every game together
    kind          TEXT    NOT NULL CHECK (kind IN ('cash', 'practice', 'tournament')),
    hands         INTEGER NOT NULL DEFAULT 0,
    net           INTEGER NOT NULL DEFAULT 0,
    vpip          INTEGER NOT NULL DEFAULT 0,
    showdowns     INTEGER NOT NULL DEFAULT 0,
    showdowns_won INTEGER NOT NULL DEFAULT 0,
    draws_json    TEXT    NOT NULL DEFAULT '[]',
    buys_left     INTEGER NOT NULL DEFAULT 0,
    buys_right    INTEGER NOT NULL DEFAULT 0,
    buys_blind    INTEGER NOT NULL DEFAULT 0,
    won_high      INTEGER NOT NULL DEFAULT 0,
    won_low       INTEGER NOT NULL DEFAULT 0,
    won_both      INTEGER NOT NULL DEFAULT 0,
    series_json   TEXT    NOT NULL DEFAULT '[]',
    stride        INTEGER NOT NULL DEFAULT 1,
    first_at      REAL,
    last_at       REAL,
    PRIMARY KEY (guild_id, user_id, variant, kind)
);
INSERT INTO player_stats_by_kind (guild_id, user_id, variant, kind, {_COLUMNS})
SELECT s.guild_id, s.user_id, s.variant,
       CASE WHEN s.practice = 0 THEN 'cash'
            WHEN {_PRACTICE_HANDS.format("NOT")} AND NOT {_PRACTICE_HANDS.format("")}
            THEN 'tournament'
            ELSE 'practice' END,
       {_COLUMNS}
FROM player_stats s;
DROP TABLE player_stats;
ALTER TABLE player_stats_by_kind RENAME TO player_stats;
"""
