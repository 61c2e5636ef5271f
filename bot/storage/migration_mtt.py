"""The multi-table migration (issue 37): seasons, and multi-table tournaments' tables.

One text for both backends (``migrations_pg`` maps its column types).
"""

from __future__ import annotations

# * ``seasons``: a window of time; a finished tournament belongs to the season whose
#   window holds its ``ended_at``, so standings are derived from the dated tournament
#   rows and past seasons stay as they were (nothing is copied or wiped). ``number``
#   counts a server's seasons from 1; ``kind`` ``monthly`` ends at the next calendar
#   month (UTC) and the next one opens by itself, ``manual`` ends when a moderator ends
#   it; ``ended_at`` NULL while it runs. At most one runs per server; windows are
#   half-open [started_at, ended_at).
# * ``mtt_tournaments``: a tournament played on several tables: its table size (its
#   ``tournaments.seats`` is then the cap on entrants) and whether hand-for-hand is on.
#   ``late_levels``: registration stays open through that many levels;
#   ``starts_at``: a scheduled start (NULL: started by hand); ``event_id``: its Discord
#   Scheduled Event, when the bot may make one.
# * ``mtt_reminders``: the reminders of a scheduled tournament, minutes before its start;
#   ``sent_at`` is set when one is claimed for sending, so it goes out once, across
#   restarts too.
# * ``mtt_tables``: one table of it: its place in the breaking order (the lowest breaks
#   first; fixed at the start, a table opened for a late player goes before them all),
#   its button, the last hand it counted (hand ids of different
#   tables interleave, so each table keeps its own) and whether it has broken.
# * ``tournament_entries.table_no``: the table a player sits at (with ``seat``); one
#   player per seat among those still in.
MULTI_TABLE = """
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

CREATE TABLE mtt_tournaments (
    tournament_id INTEGER PRIMARY KEY REFERENCES tournaments (tournament_id),
    table_size    INTEGER NOT NULL CHECK (table_size >= 2),
    hand_for_hand INTEGER NOT NULL DEFAULT 0 CHECK (hand_for_hand IN (0, 1)),
    late_levels   INTEGER NOT NULL DEFAULT 0 CHECK (late_levels >= 0),
    starts_at     REAL,
    event_id      INTEGER
);
CREATE TABLE mtt_reminders (
    tournament_id INTEGER NOT NULL REFERENCES mtt_tournaments (tournament_id),
    minutes       INTEGER NOT NULL CHECK (minutes >= 1),
    due_at        REAL    NOT NULL,
    sent_at       REAL,
    PRIMARY KEY (tournament_id, minutes)
);
CREATE INDEX mtt_reminders_due ON mtt_reminders (due_at) WHERE sent_at IS NULL;
CREATE TABLE mtt_tables (
    tournament_id INTEGER NOT NULL REFERENCES mtt_tournaments (tournament_id),
    number        INTEGER NOT NULL CHECK (number >= 1),
    break_rank    INTEGER NOT NULL,
    button        INTEGER,
    last_hand_id  INTEGER,
    broken        INTEGER NOT NULL DEFAULT 0 CHECK (broken IN (0, 1)),
    PRIMARY KEY (tournament_id, number)
);
ALTER TABLE tournament_entries ADD COLUMN table_no INTEGER;
CREATE UNIQUE INDEX mtt_one_per_seat ON tournament_entries (tournament_id, table_no, seat)
    WHERE table_no IS NOT NULL AND place IS NULL;
"""

# v17 (issue 37, the scheduler): * ``mtt_tournaments.start_count``: start as soon as that
# many have registered (NULL: at ``starts_at`` or by hand); * ``guild_settings.mtt_remind``:
# how a server's tournament reminders go out, ``post`` (a post in the tournament's
# channel that mentions the registered players) or ``dm`` (a direct message to each).
MTT_SCHEDULE = """
ALTER TABLE mtt_tournaments ADD COLUMN start_count INTEGER CHECK (start_count >= 2);
ALTER TABLE guild_settings ADD COLUMN mtt_remind TEXT NOT NULL DEFAULT 'post'
    CHECK (mtt_remind IN ('post', 'dm'));
"""
