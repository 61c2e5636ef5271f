"""The seasons migration (issue 37): a server's seasons, monthly or run by moderators.

One text for both backends (``migrations_pg`` maps its column types). A season is a
window of time; a finished tournament belongs to the season whose window holds its
``ended_at``, so standings are derived from the dated tournament rows and past seasons
stay as they were (nothing is copied or wiped).
"""

from __future__ import annotations

# * ``seasons``: ``number`` counts a server's seasons from 1; ``kind`` ``monthly`` ends
#   at the next calendar month (UTC) and the next one opens by itself, ``manual`` ends
#   when a moderator ends it; ``ended_at`` NULL while it runs. At most one runs per
#   server; windows are half-open [started_at, ended_at).
SEASONS = """
CREATE TABLE seasons (
    season_id  INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id   INTEGER NOT NULL,
    number     INTEGER NOT NULL CHECK (number >= 1),
    kind       TEXT    NOT NULL CHECK (kind IN ('monthly', 'manual')),
    name       TEXT,
    started_at REAL    NOT NULL,
    ended_at   REAL,
    CHECK (ended_at IS NULL OR ended_at >= started_at),
    UNIQUE (guild_id, number)
);
CREATE UNIQUE INDEX seasons_one_running ON seasons (guild_id) WHERE ended_at IS NULL;
CREATE INDEX tournaments_by_end ON tournaments (guild_id, ended_at);
"""
