"""A lost PostgreSQL session (issue 17, defect 5), against the real server: the store opens a
new one and re-claims its guilds with nothing lost; a guild another process took meanwhile
is reported lost and fenced (tables, hands, accounts and the ledger); and two processes'
refills of one account cannot both pass."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from bot.storage.backend import GUILD_TAKEN
from bot.storage.errors import RefillRefused
from bot.storage.rows import TableRow
from bot.storage.store import Store
from tests.support.databases import PG_URL, SKIP_REASON, new_schema
from tests.support.storage_helpers import a_header

pytestmark = pytest.mark.skipif(not PG_URL, reason=SKIP_REASON)

G, CH = 4242, 77


async def _terminate(store: Store) -> None:
    """pg_terminate_backend on the store's own session, from another session."""
    pid = store.db.conn.raw.get_server_pid()  # type: ignore[attr-defined]
    admin = await asyncpg.connect(PG_URL)
    try:
        assert await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
        while await admin.fetchval("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid):
            await asyncio.sleep(0.01)
    finally:
        await admin.close()


async def _start(store: Store) -> int:
    await store.tables.save_table(TableRow(CH, G, "a6-draw"))
    for user in (1, 2):
        await store.ledger.ensure_account(G, user, f"u{user}", 100)
    return await store.hands.start_hand(G, CH, "a6-draw", a_header([1, 2]), {1: 20, 2: 20}, [1, 2])


async def test_a_terminated_session_is_replaced_and_the_guild_reclaimed() -> None:
    url = new_schema()
    lost: list[frozenset[int]] = []
    async with (
        await Store.open(url, on_guilds_lost=lost.append) as store,
        await Store.open(url) as other,
    ):
        assert await store.ownership.claim_guild(G)
        hand = await _start(store)
        await store.hands.append_action(hand, 0, {"player": "1", "action": "check"})
        await _terminate(store)  # mid-play: the old code failed every step from here on
        await store.hands.append_action(hand, 1, {"player": "2", "action": "check"})
        assert await store.hands.finish_hand(hand, {1: 5, 2: -5})
        record = await store.history.hand_record(hand)
        assert [a["player"] for a in record["actions"]] == ["1", "2"]
        account = await store.ledger.balance(G, 1)
        assert account is not None and (account.balance, account.held) == (105, 0)
        assert not await other.ownership.claim_guild(G)  # re-claimed on the new session
        assert lost == []


async def test_a_guild_taken_meanwhile_is_lost_and_fenced() -> None:
    url = new_schema()
    lost: list[frozenset[int]] = []
    async with (
        await Store.open(url, on_guilds_lost=lost.append) as store,
        await Store.open(url) as other,
    ):
        assert await store.ownership.claim_guild(G)
        hand = await _start(store)
        await store.ledger.ensure_account(G, 5, "low", 10)
        await _terminate(store)
        assert await other.ownership.claim_guild(G)  # the lock lapsed with the session: taken
        with pytest.raises(GUILD_TAKEN):
            await store.hands.append_action(hand, 0, {"player": "1", "action": "check"})
        assert lost == [frozenset({G})]
        with pytest.raises(GUILD_TAKEN):  # accounts and the ledger are fenced too
            await store.ledger.ensure_account(G, 3, "new", 100)
        with pytest.raises(GUILD_TAKEN):
            await store.ledger.refill(G, 5, 200, 150)
        with pytest.raises(GUILD_TAKEN):
            await store.hands.finish_hand(hand, {1: 20, 2: -20})
        # the new owner carries on with nothing lost
        await other.hands.append_action(hand, 0, {"player": "1", "action": "check"})
        assert await other.hands.finish_hand(hand, {1: 5, 2: -5})
        assert (await other.ledger.balance(G, 1)).balance == 105  # type: ignore[union-attr]


async def test_two_processes_cannot_both_refill() -> None:
    """Both read the low balance before either writes (the row lock held elsewhere makes
    the race certain): one refill passes, the other is refused with the new balance."""
    url = new_schema()
    async with await Store.open(url) as first, await Store.open(url) as second:
        await first.ledger.ensure_account(G, 1, "ann", 10)
        admin = await asyncpg.connect(url)
        try:
            tx = admin.transaction()
            await tx.start()
            await admin.execute("SELECT 1 FROM accounts WHERE user_id = 1 FOR UPDATE")
            both = asyncio.gather(
                first.ledger.refill(G, 1, 100, 50),
                second.ledger.refill(G, 1, 100, 50),
                return_exceptions=True,
            )
            await asyncio.sleep(0.3)  # both have read 10 and wait on the row
            await tx.rollback()
            results = await both
        finally:
            await admin.close()
        assert sorted(type(r).__name__ for r in results) == ["RefillRefused", "int"]
        refused = next(r for r in results if isinstance(r, RefillRefused))
        assert refused.code == "not_low"
        account = await first.ledger.balance(G, 1)
        assert account is not None and (account.balance, account.refilled) == (100, 90)
