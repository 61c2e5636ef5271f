"""The schema: the versioned migrations, as SQLite runs them.

``MIGRATIONS[i]`` brings the schema from version ``i`` to ``i + 1``. Each backend
runs each in its own transaction together with the version bump, so a crash leaves
the database at a whole version. Never edit a released migration; append a new one.
PostgreSQL runs the same texts with SQLite's types mapped, except those written out
in its own dialect: ``migrations_pg``.
"""

from __future__ import annotations

from bot.storage.migration_mtt import MTT_SCHEDULE, MULTI_TABLE
from bot.storage.migration_people import PEOPLE
from bot.storage.migration_stats import STATS_KINDS
from bot.storage.migration_tournaments import TOURNAMENTS

_V1 = """
CREATE TABLE tables (
    channel_id    INTEGER PRIMARY KEY,
    guild_id      INTEGER NOT NULL,
    variant       TEXT    NOT NULL,
    settings_json TEXT    NOT NULL DEFAULT '{}',
    button        INTEGER,
    turn_deadline REAL,
    open          INTEGER NOT NULL DEFAULT 1 CHECK (open IN (0, 1)),
    updated_at    REAL    NOT NULL
);

CREATE TABLE seats (
    channel_id      INTEGER NOT NULL REFERENCES tables (channel_id) ON DELETE CASCADE,
    seat            INTEGER NOT NULL CHECK (seat >= 0),
    user_id         INTEGER NOT NULL,
    display_name    TEXT    NOT NULL,
    sitting_out     INTEGER NOT NULL DEFAULT 0 CHECK (sitting_out IN (0, 1)),
    leaving         INTEGER NOT NULL DEFAULT 0 CHECK (leaving IN (0, 1)),
    timeouts_in_row INTEGER NOT NULL DEFAULT 0 CHECK (timeouts_in_row >= 0),
    PRIMARY KEY (channel_id, seat),
    UNIQUE (channel_id, user_id)
);

-- balance = granted + refilled + net_won is kept by the Store and checked in tests.
CREATE TABLE accounts (
    guild_id     INTEGER NOT NULL,
    user_id      INTEGER NOT NULL,
    display_name TEXT    NOT NULL,
    balance      INTEGER NOT NULL CHECK (balance >= 0),
    granted      INTEGER NOT NULL CHECK (granted >= 0),
    refilled     INTEGER NOT NULL DEFAULT 0 CHECK (refilled >= 0),
    net_won      INTEGER NOT NULL DEFAULT 0,
    hands_played INTEGER NOT NULL DEFAULT 0 CHECK (hands_played >= 0),
    created_at   REAL    NOT NULL,
    PRIMARY KEY (guild_id, user_id)
);

CREATE TABLE hands (
    hand_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id     INTEGER NOT NULL,
    channel_id   INTEGER NOT NULL,
    variant      TEXT    NOT NULL,
    header_json  TEXT    NOT NULL,
    status       TEXT    NOT NULL DEFAULT 'live' CHECK (status IN ('live', 'complete')),
    started_at   REAL    NOT NULL,
    completed_at REAL
);
CREATE INDEX hands_by_status ON hands (status);

-- One row per player of a hand. A hold counts against the account's
-- available chips while the hand is live; completing the hand releases it.
CREATE TABLE hand_players (
    hand_id  INTEGER NOT NULL REFERENCES hands (hand_id),
    seat     INTEGER NOT NULL CHECK (seat >= 0),
    guild_id INTEGER NOT NULL,
    user_id  INTEGER NOT NULL,
    hold     INTEGER NOT NULL CHECK (hold >= 0),
    net      INTEGER,
    PRIMARY KEY (hand_id, seat),
    UNIQUE (hand_id, user_id),
    FOREIGN KEY (guild_id, user_id) REFERENCES accounts (guild_id, user_id)
);
CREATE INDEX hand_players_by_user ON hand_players (guild_id, user_id);

CREATE TABLE hand_actions (
    hand_id     INTEGER NOT NULL REFERENCES hands (hand_id),
    idx         INTEGER NOT NULL CHECK (idx >= 0),
    action_json TEXT    NOT NULL,
    created_at  REAL    NOT NULL,
    PRIMARY KEY (hand_id, idx)
);

CREATE TABLE hand_reshuffles (
    hand_id    INTEGER NOT NULL REFERENCES hands (hand_id),
    idx        INTEGER NOT NULL CHECK (idx >= 0),
    cards_json TEXT    NOT NULL,
    created_at REAL    NOT NULL,
    PRIMARY KEY (hand_id, idx)
);

CREATE TABLE ledger (
    entry_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id      INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    kind          TEXT    NOT NULL CHECK (kind IN ('grant', 'refill', 'hand')),
    amount        INTEGER NOT NULL,
    hand_id       INTEGER REFERENCES hands (hand_id),
    balance_after INTEGER NOT NULL,
    created_at    REAL    NOT NULL,
    FOREIGN KEY (guild_id, user_id) REFERENCES accounts (guild_id, user_id),
    CHECK ((kind = 'hand') = (hand_id IS NOT NULL))
);
-- Second line of defence for "a hand pays out exactly once".
CREATE UNIQUE INDEX ledger_hand_once ON ledger (hand_id, user_id) WHERE hand_id IS NOT NULL;
CREATE INDEX ledger_by_user ON ledger (guild_id, user_id);
"""

# v2: the Discord message that shows each table, so it is edited in place after a restart.
_V2 = """
CREATE TABLE table_messages (
    channel_id INTEGER PRIMARY KEY,
    message_id INTEGER NOT NULL
);
"""

# v3: the database itself refuses what would break the ledger, whatever the code does:
# a hold beyond the available chips (balance - holds of live hands), a loss beyond
# the hold, a second settlement, an action appended to a finished hand.
LEDGER_GUARDS = """
CREATE TRIGGER hold_within_available BEFORE INSERT ON hand_players
WHEN NEW.hold > (SELECT balance FROM accounts
                 WHERE guild_id = NEW.guild_id AND user_id = NEW.user_id)
     - (SELECT COALESCE(SUM(hp.hold), 0) FROM hand_players hp JOIN hands h USING (hand_id)
        WHERE hp.guild_id = NEW.guild_id AND hp.user_id = NEW.user_id AND h.status = 'live')
BEGIN SELECT RAISE(ABORT, 'hold exceeds available chips'); END;

CREATE TRIGGER loss_within_hold BEFORE UPDATE OF net ON hand_players
WHEN NEW.net < -NEW.hold
BEGIN SELECT RAISE(ABORT, 'a player loses more than the hold'); END;

CREATE TRIGGER settled_once BEFORE UPDATE OF status ON hands
WHEN OLD.status = 'complete'
BEGIN SELECT RAISE(ABORT, 'a completed hand is final'); END;

CREATE TRIGGER action_to_live_hand BEFORE INSERT ON hand_actions
WHEN NOT EXISTS (SELECT 1 FROM hands WHERE hand_id = NEW.hand_id AND status = 'live')
BEGIN SELECT RAISE(ABORT, 'append to a hand that is not live'); END;

CREATE TRIGGER reshuffle_to_live_hand BEFORE INSERT ON hand_reshuffles
WHEN NOT EXISTS (SELECT 1 FROM hands WHERE hand_id = NEW.hand_id AND status = 'live')
BEGIN SELECT RAISE(ABORT, 'append to a hand that is not live'); END;
"""

# v4: per-server settings (issue 9), and hands cancelled by a forced close (every
# player gets back what they put in: nets of 0, shown as cancelled).
SERVER_CONTROLS = """
CREATE TABLE guild_settings (
    guild_id         INTEGER PRIMARY KEY,
    allowed_channels TEXT    NOT NULL DEFAULT '[]',  -- JSON list of channel ids; [] = any
    moderator_role   INTEGER,                        -- NULL: Manage Channels only
    turn_timeout     REAL,                           -- NULL: the bot's default
    auto_deal        INTEGER CHECK (auto_deal IN (0, 1)),  -- NULL: the bot's default
    open_by          TEXT    NOT NULL DEFAULT 'anyone' CHECK (open_by IN ('anyone', 'moderators')),
    language         TEXT    NOT NULL DEFAULT 'auto',
    updated_at       REAL    NOT NULL
);
ALTER TABLE hands ADD COLUMN cancelled INTEGER NOT NULL DEFAULT 0 CHECK (cancelled IN (0, 1));
"""

# v5: on PostgreSQL, writes for a guild whose advisory lock another session holds are
# refused (sharded processes: migrations_pg.DIALECT). A SQLite file has one process: nothing.
GUILD_OWNER_GUARD = """
-- PostgreSQL only: see bot/storage/postgres.py
"""

# v6: each hand keeps its players' display names, so a result or a restarted hand names
# a player who has left the table meanwhile (NULL for hands stored before).
HAND_NAMES = """
ALTER TABLE hand_players ADD COLUMN display_name TEXT;
"""

# v7: practice tables (issue 11): computer players' seats (``bot``: their level), the
# practice stacks everyone plays from there, and hands that move no chips: a practice
# hand's players hold nothing and their results go to ``practice_net``, never the ledger.
PRACTICE = """
ALTER TABLE seats ADD COLUMN bot TEXT;
ALTER TABLE seats ADD COLUMN practice_stack INTEGER;
ALTER TABLE hands ADD COLUMN practice INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hand_players ADD COLUMN practice_net INTEGER;
"""


# v8 (issue 17): per-player work no longer grows with a player's history, and the
# database keeps what the code must not forget.
# * ``accounts.held``: Σ holds of the account's live hands, kept by triggers in the
#   transactions that start (hold_placed) and end (hand_completed) a hand, so the
#   balance check and the hold guard read one row instead of every hand played.
# * ``hand_players.completed_at`` (copied from the hand when it ends) and its index:
#   /history reads a player's last hands without sorting all of them.
# * a cancelled hand is not a played hand: ``hands_played`` no longer counts them.
# * a table with a live hand cannot be closed (close_without_live_hand).
# * ``tables_by_game``: thread numbering counts a server's tables of a game.
PLAYER_WORK = """
ALTER TABLE accounts ADD COLUMN held INTEGER NOT NULL DEFAULT 0 CHECK (held >= 0);
UPDATE accounts SET held = COALESCE((
    SELECT SUM(hp.hold) FROM hand_players hp JOIN hands h ON h.hand_id = hp.hand_id
    WHERE hp.guild_id = accounts.guild_id AND hp.user_id = accounts.user_id
      AND h.status = 'live'), 0);
ALTER TABLE hand_players ADD COLUMN completed_at REAL;
UPDATE hand_players SET completed_at =
    (SELECT h.completed_at FROM hands h WHERE h.hand_id = hand_players.hand_id);
CREATE INDEX hand_players_recent ON hand_players (guild_id, user_id, completed_at);
CREATE INDEX tables_by_game ON tables (guild_id, variant);
UPDATE accounts SET hands_played = hands_played - (
    SELECT COUNT(*) FROM hand_players hp JOIN hands h ON h.hand_id = hp.hand_id
    WHERE hp.guild_id = accounts.guild_id AND hp.user_id = accounts.user_id
      AND h.cancelled = 1 AND h.practice = 0);

DROP TRIGGER hold_within_available;
CREATE TRIGGER hold_within_available BEFORE INSERT ON hand_players
WHEN NEW.hold > (SELECT balance - held FROM accounts
                 WHERE guild_id = NEW.guild_id AND user_id = NEW.user_id)
BEGIN SELECT RAISE(ABORT, 'hold exceeds available chips'); END;

CREATE TRIGGER hold_placed AFTER INSERT ON hand_players
BEGIN
    UPDATE accounts SET held = held + NEW.hold
    WHERE guild_id = NEW.guild_id AND user_id = NEW.user_id;
END;

CREATE TRIGGER hand_completed AFTER UPDATE OF status ON hands
WHEN OLD.status = 'live' AND NEW.status = 'complete'
BEGIN
    UPDATE accounts SET held = held - (
        SELECT hp.hold FROM hand_players hp WHERE hp.hand_id = NEW.hand_id
          AND hp.guild_id = accounts.guild_id AND hp.user_id = accounts.user_id)
    WHERE guild_id = NEW.guild_id
      AND user_id IN (SELECT user_id FROM hand_players WHERE hand_id = NEW.hand_id);
    UPDATE hand_players SET completed_at = NEW.completed_at WHERE hand_id = NEW.hand_id;
END;

CREATE TRIGGER close_without_live_hand BEFORE UPDATE OF open ON tables
WHEN OLD.open = 1 AND NEW.open = 0 AND EXISTS
    (SELECT 1 FROM hands WHERE channel_id = NEW.channel_id AND status = 'live')
BEGIN SELECT RAISE(ABORT, 'a table with a live hand cannot be closed'); END;
"""

# v9 (issue 17): on PostgreSQL the guild-owner guard covers accounts and the ledger too,
# so a process that lost a guild cannot move its chips. A SQLite file: nothing.
OWNER_FENCE = """
-- PostgreSQL only: see _OWNER_FENCE_PG
"""

# v20 (issue 37 item 5): the guild-owner fence covers the tournaments' rows as it covers
# the tables': a process that lost a server cannot register, count a hand, move a player
# or pay a prize in its tournaments either.
TOURNAMENT_FENCE = """
-- PostgreSQL only: see _TOURNAMENT_FENCE_PG
"""

# v10 (issue 21): players' statistics, added to as hands settle (bot/storage/player_stats.py).
PLAYER_STATS = """
CREATE TABLE player_stats (
    guild_id      INTEGER NOT NULL,
    user_id       INTEGER NOT NULL,
    variant       TEXT    NOT NULL,  -- a game id, or '*' for every game together
    practice      INTEGER NOT NULL CHECK (practice IN (0, 1)),
    hands         INTEGER NOT NULL DEFAULT 0,
    net           INTEGER NOT NULL DEFAULT 0,
    vpip          INTEGER NOT NULL DEFAULT 0,
    showdowns     INTEGER NOT NULL DEFAULT 0,
    showdowns_won INTEGER NOT NULL DEFAULT 0,
    draws_json    TEXT    NOT NULL DEFAULT '[]',  -- [[reached, pat, cards taken], ...] per draw
    buys_left     INTEGER NOT NULL DEFAULT 0,
    buys_right    INTEGER NOT NULL DEFAULT 0,
    buys_blind    INTEGER NOT NULL DEFAULT 0,
    won_high      INTEGER NOT NULL DEFAULT 0,
    won_low       INTEGER NOT NULL DEFAULT 0,
    won_both      INTEGER NOT NULL DEFAULT 0,
    series_json   TEXT    NOT NULL DEFAULT '[]',  -- [[hands, net], ...], at most 120 points
    stride        INTEGER NOT NULL DEFAULT 1,
    first_at      REAL,
    last_at       REAL,
    PRIMARY KEY (guild_id, user_id, variant, practice)
);
"""

# v11 (issue 22): each user's DM channel and whether it was found closed.
DM_CHANNELS = """
CREATE TABLE dm_channels (
    user_id    INTEGER PRIMARY KEY,
    channel_id INTEGER NOT NULL,
    closed     INTEGER NOT NULL DEFAULT 0 CHECK (closed IN (0, 1)),
    updated_at REAL    NOT NULL
);
"""

# v12 (issue 17): a server's own idle time before a table with no play closes.
IDLE_CLOSE = """
ALTER TABLE guild_settings ADD COLUMN idle_close_hours REAL;  -- NULL: the bot's default; 0: never
"""

# v14 (issue 34): a table row is written only while it is open, and only by the opening
# of the table that read it. ``tables.generation`` counts the openings of a channel's
# table (a reopen is a new one); a hand keeps the generation it was dealt at. The
# database refuses a seat at a closed table, a hand at a closed or replaced one, and an
# action or reshuffle of a hand whose table was closed or replaced since (NULL: a hand
# stored before, or with no table row: only "closed" is checked). The conditional
# writes in bot/storage/tables.py (hold_open) refuse closes and updates the same way.
TABLE_GENERATIONS = """
ALTER TABLE tables ADD COLUMN generation INTEGER NOT NULL DEFAULT 1;
ALTER TABLE hands ADD COLUMN generation INTEGER;

CREATE TRIGGER table_reopened AFTER UPDATE OF open ON tables
WHEN OLD.open = 0 AND NEW.open = 1
BEGIN
    UPDATE tables SET generation = OLD.generation + 1 WHERE channel_id = NEW.channel_id;
END;

CREATE TRIGGER seat_at_open_table BEFORE INSERT ON seats
WHEN NOT EXISTS (SELECT 1 FROM tables WHERE channel_id = NEW.channel_id AND open = 1)
BEGIN SELECT RAISE(ABORT, 'a seat at a closed table'); END;

CREATE TRIGGER hand_at_open_table BEFORE INSERT ON hands
WHEN EXISTS (SELECT 1 FROM tables WHERE channel_id = NEW.channel_id
             AND (open = 0 OR (NEW.generation IS NOT NULL AND generation <> NEW.generation)))
BEGIN SELECT RAISE(ABORT, 'a hand at a closed or replaced table'); END;

CREATE TRIGGER action_at_open_table BEFORE INSERT ON hand_actions
WHEN EXISTS (SELECT 1 FROM hands h JOIN tables t ON t.channel_id = h.channel_id
             WHERE h.hand_id = NEW.hand_id
               AND (t.open = 0 OR (h.generation IS NOT NULL AND t.generation <> h.generation)))
BEGIN SELECT RAISE(ABORT, 'an action at a closed or replaced table'); END;

CREATE TRIGGER reshuffle_at_open_table BEFORE INSERT ON hand_reshuffles
WHEN EXISTS (SELECT 1 FROM hands h JOIN tables t ON t.channel_id = h.channel_id
             WHERE h.hand_id = NEW.hand_id
               AND (t.open = 0 OR (h.generation IS NOT NULL AND t.generation <> h.generation)))
BEGIN SELECT RAISE(ABORT, 'an action at a closed or replaced table'); END;
"""


# Issue 38 item 4: a mixed tournament's games and rotation, as JSON
# (``bot.tournaments.mixing.Mix``); NULL for a tournament of one game (``variant``; a
# mixed one's ``variant`` is its first game). Each table keeps its own count of hands
# in its settings, as a mixed cash table does.
MIXED_TOURNAMENTS = """
ALTER TABLE tournaments ADD COLUMN mix TEXT;
"""


# PostgreSQL runs this same list (bot/storage/postgres.py maps the column types);
# a migration using SQLite-only syntax needs its PostgreSQL text in migrations_pg.DIALECT.
MIGRATIONS: list[str] = [
    _V1,
    _V2,
    LEDGER_GUARDS,
    SERVER_CONTROLS,
    GUILD_OWNER_GUARD,
    HAND_NAMES,
    PRACTICE,
    PLAYER_WORK,
    OWNER_FENCE,
    PLAYER_STATS,
    DM_CHANNELS,
    IDLE_CLOSE,
    PEOPLE,
    TABLE_GENERATIONS,
    TOURNAMENTS,
    MULTI_TABLE,  # issue 37 (the integrator orders the migrations across branches)
    STATS_KINDS,  # v17, issue 36 item 5: /stats keyed cash, practice or tournament
    MIXED_TOURNAMENTS,  # v18, issue 38 item 4
    MTT_SCHEDULE,  # v19, issue 37: the scheduler's start count and the reminder setting
    TOURNAMENT_FENCE,  # v20, issue 37: the guild-owner fence over the tournaments' rows
]
