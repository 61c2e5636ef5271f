"""The Sit & Go migration (issue 36): tournaments, their entries, and their ledger kinds.

SQLite's text (``TOURNAMENTS``) and PostgreSQL's (``TOURNAMENTS_PG``);
``migrations.MIGRATIONS`` lists the first in its place, ``migrations_pg.DIALECT`` maps
it to the second.
"""

from __future__ import annotations

# * ``tournaments``: one Sit & Go, its structure, where it stands, its level clock
#   (``clock_elapsed``: seconds of play counted so far, kept across restarts) and the
#   last hand it counted (``last_hand_id``: a hand's result is counted exactly once).
# * ``tournament_entries``: one registered player (a person), their seat and stack in
#   play, their place and prize once out; computer players (``bot``: their level,
#   practice events only) have no person.
# * the ledger gains three kinds, each naming its tournament: ``sng_fee`` (the entry
#   fee, taken at registration), ``sng_refund`` (given back at unregister or cancel),
#   ``sng_prize``; ``accounts.tournament_net`` is their sum, so
#   balance = granted + refilled + net_won + tournament_net. The database refuses a
#   refund or prize beyond what the tournament still holds, and a second prize.
# * ``hands.tournament_id``: the tournament a hand was played in (set as it is counted;
#   its level's stakes are in its record header).
TOURNAMENTS_TABLES = """
CREATE TABLE tournaments (
    tournament_id    INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id         INTEGER NOT NULL,
    channel_id       INTEGER NOT NULL,
    creator_id       INTEGER NOT NULL,
    variant          TEXT    NOT NULL,
    seats            INTEGER NOT NULL CHECK (seats >= 2),
    speed            TEXT    NOT NULL,
    start_stack      INTEGER NOT NULL CHECK (start_stack >= 1),
    fee              INTEGER NOT NULL DEFAULT 0 CHECK (fee >= 0),
    practice         INTEGER NOT NULL DEFAULT 0 CHECK (practice IN (0, 1)),
    status           TEXT    NOT NULL DEFAULT 'registering'
                     CHECK (status IN ('registering', 'running', 'finished', 'cancelled')),
    message_id       INTEGER,
    table_channel_id INTEGER,
    button           INTEGER,
    clock_elapsed    REAL    NOT NULL DEFAULT 0 CHECK (clock_elapsed >= 0),
    hands            INTEGER NOT NULL DEFAULT 0,
    last_hand_id     INTEGER,
    longest_hand_id  INTEGER,
    longest_actions  INTEGER NOT NULL DEFAULT 0,
    created_at       REAL    NOT NULL,
    started_at       REAL,
    ended_at         REAL
);
CREATE INDEX tournaments_by_guild ON tournaments (guild_id, status);

CREATE TABLE tournament_entries (
    tournament_id INTEGER NOT NULL REFERENCES tournaments (tournament_id),
    entry         INTEGER NOT NULL CHECK (entry >= 0),
    guild_id      INTEGER NOT NULL,
    person_id     INTEGER REFERENCES people (person_id),
    bot           TEXT,
    display_name  TEXT    NOT NULL,
    seat          INTEGER,
    stack         INTEGER NOT NULL DEFAULT 0 CHECK (stack >= 0),
    place         INTEGER CHECK (place >= 1),
    prize         INTEGER NOT NULL DEFAULT 0 CHECK (prize >= 0),
    points        INTEGER NOT NULL DEFAULT 0 CHECK (points >= 0),
    registered_at REAL    NOT NULL,
    PRIMARY KEY (tournament_id, entry),
    UNIQUE (tournament_id, person_id),
    CHECK ((person_id IS NULL) = (bot IS NOT NULL))
);
CREATE INDEX tournament_entries_by_person ON tournament_entries (person_id);

ALTER TABLE accounts ADD COLUMN tournament_net INTEGER NOT NULL DEFAULT 0;
ALTER TABLE hands ADD COLUMN tournament_id INTEGER REFERENCES tournaments (tournament_id);
"""

TOURNAMENTS = (
    TOURNAMENTS_TABLES
    + """
CREATE TABLE ledger_v14 (
    entry_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id      INTEGER NOT NULL,
    person_id     INTEGER NOT NULL REFERENCES people (person_id),
    kind          TEXT    NOT NULL CHECK (kind IN ('grant', 'refill', 'hand',
                                                   'sng_fee', 'sng_refund', 'sng_prize')),
    amount        INTEGER NOT NULL,
    hand_id       INTEGER REFERENCES hands (hand_id),
    balance_after INTEGER NOT NULL,
    created_at    REAL    NOT NULL,
    tournament_id INTEGER REFERENCES tournaments (tournament_id),
    CHECK ((kind = 'hand') = (hand_id IS NOT NULL)),
    CHECK ((kind IN ('sng_fee', 'sng_refund', 'sng_prize')) = (tournament_id IS NOT NULL))
);
INSERT INTO ledger_v14 (entry_id, guild_id, person_id, kind, amount, hand_id, balance_after,
        created_at)
    SELECT entry_id, guild_id, person_id, kind, amount, hand_id, balance_after, created_at
    FROM ledger;
DROP TABLE ledger;
ALTER TABLE ledger_v14 RENAME TO ledger;
CREATE UNIQUE INDEX ledger_hand_once ON ledger (hand_id, person_id) WHERE hand_id IS NOT NULL;
CREATE INDEX ledger_by_person ON ledger (person_id);
CREATE UNIQUE INDEX ledger_prize_once ON ledger (tournament_id, person_id)
    WHERE kind = 'sng_prize';
CREATE INDEX ledger_by_tournament ON ledger (tournament_id) WHERE tournament_id IS NOT NULL;

CREATE TRIGGER tournament_pays_what_it_holds BEFORE INSERT ON ledger
WHEN NEW.kind IN ('sng_refund', 'sng_prize') AND NEW.amount >
    -(SELECT COALESCE(SUM(amount), 0) FROM ledger WHERE tournament_id = NEW.tournament_id)
BEGIN SELECT RAISE(ABORT, 'a tournament pays out more than it holds'); END;
"""
)


def postgres_text(types: str) -> str:
    """The PostgreSQL migration, given the tables' text with PostgreSQL's types."""
    return (
        types
        + """
ALTER TABLE ledger DROP CONSTRAINT ledger_kind_check;
ALTER TABLE ledger ADD CONSTRAINT ledger_kind_check CHECK (kind IN ('grant', 'refill', 'hand',
    'sng_fee', 'sng_refund', 'sng_prize'));
ALTER TABLE ledger ADD COLUMN tournament_id BIGINT REFERENCES tournaments (tournament_id);
ALTER TABLE ledger ADD CONSTRAINT ledger_tournament_kind CHECK (
    (kind IN ('sng_fee', 'sng_refund', 'sng_prize')) = (tournament_id IS NOT NULL));
CREATE UNIQUE INDEX ledger_prize_once ON ledger (tournament_id, person_id)
    WHERE kind = 'sng_prize';
CREATE INDEX ledger_by_tournament ON ledger (tournament_id) WHERE tournament_id IS NOT NULL;

-- The tournament's row is locked first, so two payouts of one tournament take turns.
CREATE FUNCTION ledger_tournament_pays() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    held BIGINT;
BEGIN
    IF NEW.kind NOT IN ('sng_refund', 'sng_prize') THEN
        RETURN NEW;
    END IF;
    PERFORM 1 FROM tournaments WHERE tournament_id = NEW.tournament_id FOR UPDATE;
    SELECT -COALESCE(SUM(amount), 0) INTO held FROM ledger
        WHERE tournament_id = NEW.tournament_id;
    IF NEW.amount > held THEN
        RAISE EXCEPTION 'a tournament pays out more than it holds'
            USING ERRCODE = 'check_violation';
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER tournament_pays_what_it_holds BEFORE INSERT ON ledger
    FOR EACH ROW EXECUTE FUNCTION ledger_tournament_pays();
"""
    )
