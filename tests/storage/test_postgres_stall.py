"""A PostgreSQL connection that goes silent mid-play (issue 34, item 4), against the real
server through a TCP proxy on 127.0.0.1 that stops forwarding without closing either
side (``tests/support/stall_proxy.py``): a half-open connection, no reset.

Before, nothing bounded a statement: the first write on the silent connection waited
until the kernel gave up (minutes to hours), holding the one transaction lock every
server's every step waits for. Now the client gives the session up after
``Timeouts.silence`` seconds, ends the old server session and carries on on a new one:
the guild fence holds (the guild is re-claimed, never free for another process), and
nothing acknowledged is lost. The bounds below are the injected timeouts with a wide
margin: without the fix these calls never return.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable
from typing import TypeVar

import asyncpg
import pytest

from bot.storage import database as database_module
from bot.storage.errors import OutOfSequence
from bot.storage.postgres import PgConnection, Timeouts
from bot.storage.rows import GuildSettings, TableRow
from bot.storage.store import Store
from bot.tables.guild_settings import Defaults, GuildSettingsBook
from bot.tables.manager import TableManager
from tests.support.databases import PG_URL, SKIP_REASON, new_schema, with_settings
from tests.support.manager_helpers import GRANT, play
from tests.support.stall_proxy import stall_proxy
from tests.support.storage_helpers import a_header

T = TypeVar("T")
pytestmark = pytest.mark.skipif(not PG_URL, reason=SKIP_REASON)

# advisory locks are database-wide: guilds no other test claims
G1, G2, G3, G4, G5 = 3_400_001, 3_400_002, 3_400_003, 3_400_004, 3_400_005
CH = 77
SHORT = Timeouts(statement=0.4, connect=2.0)  # silence 0.6 s
BOUND = 20.0  # seconds: many times the injected timeouts; a hang lasts for ever


async def bounded(work: Awaitable[T]) -> T:
    """``work``'s result or its own error; an AssertionError if it is still waiting after
    BOUND seconds (what the old code did: it waited on the silent connection for ever)."""
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=BOUND)
    if not done:
        task.cancel()
        raise AssertionError(f"still waiting after {BOUND} s")
    return task.result()


def session(store: Store) -> PgConnection:
    conn = store.db.conn
    assert isinstance(conn, PgConnection)
    return conn


async def alive(pid: int) -> bool:
    admin = await asyncpg.connect(PG_URL)
    try:
        return bool(
            await admin.fetchval("SELECT count(*) FROM pg_stat_activity WHERE pid = $1", pid)
        )
    finally:
        await admin.close()


async def start_hand(store: Store, guild: int) -> int:
    await store.tables.save_table(TableRow(CH, guild, "a6-draw"))
    for user in (1, 2):
        await store.ledger.ensure_account(guild, user, f"u{user}", 100)
    return await store.hands.start_hand(
        guild, CH, "a6-draw", a_header([1, 2]), {1: 20, 2: 20}, [1, 2]
    )


def check(user: int) -> dict[str, str]:
    return {"player": str(user), "action": "check"}


async def test_the_session_is_bounded_on_both_sides() -> None:
    async with (
        stall_proxy(new_schema()) as (url, _proxy),
        await Store.open(url, timeouts=SHORT) as store,
    ):
        raw = session(store).raw
        sock = raw._transport.get_extra_info("socket")  # the client's keepalives
        assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE) == 1
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_KEEPIDLE) == 1
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_USER_TIMEOUT) == 600
        assert await raw.fetchval("SHOW statement_timeout") == "400ms"
        assert await raw.fetchval("SHOW idle_in_transaction_session_timeout") == "600ms"
        with pytest.raises(asyncpg.QueryCanceledError):  # the server's bound
            await raw.execute("SELECT pg_sleep(5)")
        assert not session(store).lost()  # a cancelled statement leaves a good session
        assert await store.server.guild_settings(G1) is not None


async def test_settings_in_the_url_win_over_the_bounds() -> None:
    url = with_settings(new_schema(), statement_timeout="3000")
    async with await Store.open(url, timeouts=SHORT) as store:
        raw = session(store).raw
        assert await raw.fetchval("SHOW statement_timeout") == "3s"
        assert await raw.fetchval("SHOW idle_in_transaction_session_timeout") == "600ms"


async def test_a_silent_session_is_replaced_and_the_write_carried_on() -> None:
    lost: list[frozenset[int]] = []
    direct = new_schema()
    async with (
        stall_proxy(direct) as (url, proxy),
        await Store.open(url, timeouts=SHORT, on_guilds_lost=lost.append) as store,
        await Store.open(direct) as other,  # another process, on its own network path
    ):
        assert await store.ownership.claim_guild(G1)
        hand = await start_hand(store, G1)
        await store.hands.append_action(hand, 0, check(1))
        old = session(store).raw.get_server_pid()
        proxy.stall()  # the connection goes silent; new connections still pass
        assert not await other.ownership.claim_guild(G1)  # the old session still holds it
        await bounded(store.hands.append_action(hand, 1, check(2)))
        assert session(store).raw.get_server_pid() != old and not await alive(old)
        assert await store.hands.finish_hand(hand, {1: 5, 2: -5})
        record = await store.history.hand_record(hand)
        assert [a["player"] for a in record["actions"]] == ["1", "2"]
        account = await store.ledger.balance(G1, 1)
        assert account is not None and (account.balance, account.held) == (105, 0)
        assert not await other.ownership.claim_guild(G1)  # re-claimed on the new session
        assert lost == []


async def test_a_commit_whose_answer_never_came_is_settled_before_anything_reads() -> None:
    """The COMMIT reaches the server and commits, but its answer is lost: the caller is
    not told "written" (it gets an error), and the write is there exactly once."""
    async with (
        stall_proxy(new_schema()) as (url, proxy),
        await Store.open(url, timeouts=SHORT) as store,
    ):
        assert await store.ownership.claim_guild(G2)
        hand = await start_hand(store, G2)

        def answer_lost(step: str, moment: str) -> None:
            if step == "append_action" and moment == "before":
                proxy.stall(to_server=False)  # the COMMIT goes, its answer does not
                database_module.commit_hook = None  # once

        database_module.commit_hook = answer_lost
        try:
            with pytest.raises(OutOfSequence):  # retried alone: already there
                await bounded(store.hands.append_action(hand, 0, check(1)))
        finally:
            database_module.commit_hook = None
        record = await store.history.hand_record(hand)
        assert [a["player"] for a in record["actions"]] == ["1"]
        await store.hands.append_action(hand, 1, check(2))
        assert await store.hands.finish_hand(hand, {1: 5, 2: -5})


async def test_a_step_whose_commit_answer_was_lost_fails_and_shows_what_landed() -> None:
    """Through the step pipeline: the player's action reached the database but its answer
    never came back. The step fails (the player is not told it went through), the table
    is reloaded from the database and shows the action, and play goes on from there."""
    async with stall_proxy(new_schema()) as (url, proxy):
        store = await Store.open(url, timeouts=SHORT)
        manager = TableManager(store, starting_grant=GRANT, turn_timeout=3600)
        try:
            await manager.start()
            await manager.open_table(G5, CH, "a6-draw")
            for user in (1, 2):
                await manager.join(CH, user, f"u{user}")
            await manager.deal(CH)
            before = manager.view(CH)
            assert before.to_act_user is not None

            def answer_lost(step: str, moment: str) -> None:
                if step == "append_action" and moment == "before":
                    proxy.stall(to_server=False)  # the COMMIT goes, its answer does not
                    database_module.commit_hook = None  # once

            database_module.commit_hook = answer_lost
            try:
                with pytest.raises(OutOfSequence):
                    await bounded(manager.act(CH, before.to_act_user, "check"))
            finally:
                database_module.commit_hook = None
            after = manager.view(CH)
            assert (after.hand_id, after.turn) == (before.hand_id, before.turn + 1)
            record = await store.history.hand_record(before.hand_id)  # type: ignore[arg-type]
            assert [a["action"] for a in record["actions"]] == ["check"]
            assert await bounded(play(manager, CH, seed=2)) > 0
        finally:
            await manager.close()
            await store.close()


async def test_a_settings_change_whose_answer_was_lost_is_read_again() -> None:
    """/settings: the change reached the database but its answer never came back. The
    moderator gets an error, and the server's settings are read again from the database
    (which has the change), not kept from before."""
    async with (
        stall_proxy(new_schema()) as (url, proxy),
        await Store.open(url, timeouts=SHORT) as store,
    ):
        book = GuildSettingsBook(store, Defaults(turn_timeout=60, auto_deal=True))
        assert (await book.get(G5)).turn_timeout is None  # cached

        def answer_lost(step: str, moment: str) -> None:
            if step == "save_guild_settings" and moment == "before":
                proxy.stall(to_server=False)
                database_module.commit_hook = None

        database_module.commit_hook = answer_lost
        try:
            with pytest.raises(TimeoutError):
                await bounded(book.set_turn_timeout(G5, 30))
        finally:
            database_module.commit_hook = None
        assert (await book.get(G5)).turn_timeout == 30  # what landed, read again
        await book.set_language(G5, "vi")  # and the next change starts from it
        assert await store.server.guild_settings(G5) == GuildSettings(
            G5, turn_timeout=30, language="vi"
        )


async def test_a_cut_off_network_fails_steps_in_bounded_time_and_play_resumes() -> None:
    """Nothing gets through, new connections included: each step fails within the
    timeouts (the table shows what the database holds), and once the network is back
    the game goes on with nothing lost."""
    async with stall_proxy(new_schema()) as (url, proxy):
        store = await Store.open(url, timeouts=SHORT)
        manager = TableManager(store, starting_grant=GRANT, turn_timeout=3600)
        try:
            await manager.start()
            await manager.open_table(G3, CH, "a6-draw")
            for user in (1, 2):
                await manager.join(CH, user, f"u{user}")
            await manager.deal(CH)
            before = manager.view(CH)
            assert before.hand is not None and before.to_act_user is not None
            proxy.stall(new=True)
            with pytest.raises((OSError, asyncpg.PostgresError, asyncpg.InterfaceError)):
                await bounded(manager.act(CH, before.to_act_user, "check"))  # unreachable
            after = manager.view(CH)
            assert (after.hand_id, after.turn) == (before.hand_id, before.turn)
            proxy.heal()
            await asyncio.sleep(SHORT.connect)  # the next try of a new session
            assert await bounded(play(manager, CH, seed=1)) > 0
            assert manager.view(CH).hand is None or manager.view(CH).hand.complete
            recent = await store.history.recent_hands(G3, 1)
            assert [h.hand_id for h in recent] == [before.hand_id]
        finally:
            await manager.close()
            await store.close()


async def test_while_the_database_is_unreachable_queued_writes_fail_at_once() -> None:
    """Ten servers' writes queued behind a silent session, nothing getting through: the
    first waits out the silence and one connect timeout, the rest fail at once (before,
    each would wait a connect timeout of its own: ten of them)."""
    async with (
        stall_proxy(new_schema()) as (url, proxy),
        await Store.open(url, timeouts=SHORT) as store,
    ):
        proxy.stall(new=True)
        loop = asyncio.get_running_loop()
        started = loop.time()
        writes = [store.ledger.ensure_account(G4 + g, 1, "u1", 100) for g in range(1, 11)]
        results = await bounded(asyncio.gather(*writes, return_exceptions=True))
        elapsed = loop.time() - started
        assert all(isinstance(r, OSError) for r in results), results
        assert elapsed < 5 * SHORT.connect  # not 10 connect timeouts one after the other
        proxy.heal()
        await asyncio.sleep(SHORT.connect)
        await store.ledger.ensure_account(G4 + 1, 1, "u1", 100)
        assert (await store.ledger.balance(G4 + 1, 1)).balance == 100  # type: ignore[union-attr]


async def test_other_servers_wait_at_most_the_timeouts_behind_a_silent_session() -> None:
    """One lock serialises every server's transactions on the one session: a silent
    session costs every other server's step at most the injected bounds."""
    async with (
        stall_proxy(new_schema()) as (url, proxy),
        await Store.open(url, timeouts=SHORT) as store,
    ):
        await store.ledger.ensure_account(G4, 1, "u1", 100)
        proxy.stall()
        writes = [store.ledger.ensure_account(G4, user, f"u{user}", 100) for user in range(2, 12)]
        await bounded(asyncio.gather(*writes))
        accounts = [await store.ledger.balance(G4, user) for user in range(1, 12)]
        assert all(a is not None and a.balance == 100 for a in accounts)
