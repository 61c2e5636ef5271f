"""Storage tests' shared pieces: a guild, the grant, a clock, accounts, and the ledger audit."""

from __future__ import annotations

from typing import Any

from bot.storage.store import Store
from tests.support.databases import Target, open_reader

G = 1000  # guild id
GRANT = 200


class FakeClock:
    """Deterministic time: each call advances one second."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start

    def __call__(self) -> float:
        self.now += 1
        return self.now


def a_header(players: list[int]) -> dict[str, Any]:
    """A hand record's header naming ``players`` by id, as the manager writes it."""
    seats = [{"player": str(p), "stack": GRANT} for p in players]
    return {"variant": "a6-draw", "seats": seats, "dealer": 0, "deck": ["As", "2d"]}


async def seat_players(store: Store, users: list[int], guild: int = G) -> None:
    for user in users:
        await store.ledger.ensure_account(guild, user, f"user{user}", GRANT)


def audit(path: Target) -> None:
    """Check the ledger invariants straight from the database, independently of Store."""
    db = open_reader(path)
    try:
        accounts = db.execute(
            "SELECT guild_id, user_id, balance, granted, refilled, net_won, hands_played, held, "
            "tournament_net FROM accounts"
        ).fetchall()
        for guild, user, balance, granted, refilled, net_won, played, kept, sng in accounts:
            sums = dict(
                db.execute(
                    "SELECT kind, SUM(amount) FROM ledger l JOIN people p USING (person_id) "
                    "WHERE p.guild_id=? AND p.user_id=? GROUP BY kind",
                    (guild, user),
                ).fetchall()
            )
            hands = db.execute(  # a cancelled hand is not a played hand
                "SELECT COUNT(*) FROM ledger l JOIN hands h ON h.hand_id = l.hand_id "
                "JOIN people p ON p.person_id = l.person_id "
                "WHERE p.guild_id=? AND p.user_id=? AND l.kind='hand' AND h.cancelled = 0",
                (guild, user),
            ).fetchone()[0]
            held = db.execute(
                "SELECT COALESCE(SUM(hold), 0) FROM hand_players hp JOIN hands h USING (hand_id) "
                "JOIN people p ON p.person_id = hp.person_id "
                "WHERE p.guild_id=? AND p.user_id=? AND h.status='live'",
                (guild, user),
            ).fetchone()[0]
            assert balance == granted + refilled + net_won + sng  # sng: Sit & Go fees, prizes
            assert sng == sum(sums.get(k, 0) for k in ("sng_fee", "sng_refund", "sng_prize"))
            assert granted == sums.get("grant", 0)
            assert refilled == sums.get("refill", 0)
            assert net_won == sums.get("hand", 0)
            assert played == hands
            assert 0 <= held <= balance
            assert kept == held  # the account row's held agrees with the live hands
        for guild, total in db.execute("SELECT guild_id, SUM(net_won) FROM accounts GROUP BY 1"):
            assert total == 0, f"guild {guild} nets sum to {total}"
        for hand_id, status, entries, total in db.execute(
            "SELECT h.hand_id, h.status, COUNT(l.entry_id), COALESCE(SUM(l.amount), 0) "
            "FROM hands h LEFT JOIN ledger l ON l.hand_id = h.hand_id GROUP BY h.hand_id"
        ):
            players = db.execute(
                "SELECT COUNT(*) FROM hand_players WHERE hand_id=?", (hand_id,)
            ).fetchone()[0]
            assert entries == (players if status == "complete" else 0)
            assert total == 0
    finally:
        db.close()
