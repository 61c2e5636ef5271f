"""The v13 migration (issue 17): a player's history keyed by a surrogate person.

SQLite's text, and the parts PostgreSQL's dialect (``migrations_pg``) shares with it;
``migrations.MIGRATIONS`` lists it in its place.
"""

from __future__ import annotations

# v13 (issue 17): a player's history names a surrogate person, not the Discord id, so
# erasing a player is one row of ``people`` (its user id becomes the anonymous id, its
# name "deleted player"), however many hands they played. ``hand_players`` and the
# ledger reference ``people``; stored records name players by a person token ("#17"),
# mapped back to the id as they are read (bot/storage/people.py). The name a hand shows
# is the person's, kept at each deal (no longer a copy per hand).
PEOPLE_TABLE = """
CREATE TABLE people (
    person_id    INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id     INTEGER NOT NULL,
    user_id      INTEGER NOT NULL,
    display_name TEXT,
    UNIQUE (guild_id, user_id)
);
CREATE INDEX people_by_user ON people (user_id);
INSERT INTO people (guild_id, user_id, display_name)
    SELECT guild_id, user_id, display_name FROM accounts ORDER BY guild_id, user_id;
INSERT INTO people (guild_id, user_id, display_name)
    SELECT hp.guild_id, hp.user_id, (SELECT n.display_name FROM hand_players n
        WHERE n.guild_id = hp.guild_id AND n.user_id = hp.user_id
          AND n.display_name IS NOT NULL ORDER BY n.hand_id DESC LIMIT 1)
    FROM hand_players hp WHERE true GROUP BY hp.guild_id, hp.user_id
    ON CONFLICT (guild_id, user_id) DO NOTHING;
INSERT INTO people (guild_id, user_id)
    SELECT DISTINCT guild_id, user_id FROM ledger WHERE true
    ON CONFLICT (guild_id, user_id) DO NOTHING;
"""


def records_to_tokens(max_seats: int = 10) -> str:
    """Each stored record's player ids (JSON text "123") become person tokens ("#17"),
    one statement per seat: no card, variant or number is a quoted run of digits."""
    out = []
    for table, column in (("hands", "header_json"), ("hand_actions", "action_json")):
        for seat in range(max_seats):
            out.append(
                f"UPDATE {table} SET {column} = REPLACE({column}, "
                "'\"' || p.user_id || '\"', '\"#' || p.person_id || '\"') "
                "FROM hand_players hp JOIN people p ON p.person_id = hp.person_id "
                f"WHERE hp.hand_id = {table}.hand_id AND hp.seat = {seat};"
            )
    return "\n".join(out) + "\n"


PEOPLE_SQLITE = (
    PEOPLE_TABLE
    + """
DROP TRIGGER hold_within_available;
DROP TRIGGER hold_placed;
DROP TRIGGER hand_completed;
DROP TRIGGER loss_within_hold;

CREATE TABLE hand_players_v13 (
    hand_id      INTEGER NOT NULL REFERENCES hands (hand_id),
    seat         INTEGER NOT NULL CHECK (seat >= 0),
    guild_id     INTEGER NOT NULL,
    person_id    INTEGER NOT NULL REFERENCES people (person_id),
    hold         INTEGER NOT NULL CHECK (hold >= 0),
    net          INTEGER,
    practice_net INTEGER,
    completed_at REAL,
    PRIMARY KEY (hand_id, seat),
    UNIQUE (hand_id, person_id)
);
INSERT INTO hand_players_v13 (hand_id, seat, guild_id, person_id, hold, net, practice_net,
        completed_at)
    SELECT hp.hand_id, hp.seat, hp.guild_id, p.person_id, hp.hold, hp.net, hp.practice_net,
        hp.completed_at
    FROM hand_players hp JOIN people p ON p.guild_id = hp.guild_id AND p.user_id = hp.user_id;
DROP TABLE hand_players;
ALTER TABLE hand_players_v13 RENAME TO hand_players;
CREATE INDEX hand_players_recent ON hand_players (person_id, completed_at);

CREATE TABLE ledger_v13 (
    entry_id      INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id      INTEGER NOT NULL,
    person_id     INTEGER NOT NULL REFERENCES people (person_id),
    kind          TEXT    NOT NULL CHECK (kind IN ('grant', 'refill', 'hand')),
    amount        INTEGER NOT NULL,
    hand_id       INTEGER REFERENCES hands (hand_id),
    balance_after INTEGER NOT NULL,
    created_at    REAL    NOT NULL,
    CHECK ((kind = 'hand') = (hand_id IS NOT NULL))
);
INSERT INTO ledger_v13 (entry_id, guild_id, person_id, kind, amount, hand_id, balance_after,
        created_at)
    SELECT l.entry_id, l.guild_id, p.person_id, l.kind, l.amount, l.hand_id, l.balance_after,
        l.created_at
    FROM ledger l JOIN people p ON p.guild_id = l.guild_id AND p.user_id = l.user_id;
DROP TABLE ledger;
ALTER TABLE ledger_v13 RENAME TO ledger;
CREATE UNIQUE INDEX ledger_hand_once ON ledger (hand_id, person_id) WHERE hand_id IS NOT NULL;
CREATE INDEX ledger_by_person ON ledger (person_id);

CREATE TRIGGER loss_within_hold BEFORE UPDATE OF net ON hand_players
WHEN NEW.net < -NEW.hold
BEGIN SELECT RAISE(ABORT, 'a player loses more than the hold'); END;

CREATE TRIGGER hold_within_available BEFORE INSERT ON hand_players
WHEN NEW.hold > (SELECT a.balance - a.held FROM accounts a JOIN people p
                 ON a.guild_id = p.guild_id AND a.user_id = p.user_id
                 WHERE p.person_id = NEW.person_id)
BEGIN SELECT RAISE(ABORT, 'hold exceeds available chips'); END;

CREATE TRIGGER hold_placed AFTER INSERT ON hand_players
BEGIN
    UPDATE accounts SET held = held + NEW.hold
    WHERE guild_id = NEW.guild_id
      AND user_id = (SELECT user_id FROM people WHERE person_id = NEW.person_id);
END;

CREATE TRIGGER hand_completed AFTER UPDATE OF status ON hands
WHEN OLD.status = 'live' AND NEW.status = 'complete'
BEGIN
    UPDATE accounts SET held = held - (
        SELECT hp.hold FROM hand_players hp JOIN people p ON p.person_id = hp.person_id
        WHERE hp.hand_id = NEW.hand_id
          AND p.guild_id = accounts.guild_id AND p.user_id = accounts.user_id)
    WHERE guild_id = NEW.guild_id AND user_id IN (
        SELECT p.user_id FROM hand_players hp JOIN people p ON p.person_id = hp.person_id
        WHERE hp.hand_id = NEW.hand_id);
    UPDATE hand_players SET completed_at = NEW.completed_at WHERE hand_id = NEW.hand_id;
END;
"""
    + records_to_tokens()
)
PEOPLE = PEOPLE_SQLITE
