"""Shared helpers for the table-manager tests (and the table benchmark).

Everything runs against real databases (a SQLite file or a PostgreSQL schema:
see tests/conftest.py): a real ``Store`` and a real ``TableManager``; nothing of
ours is mocked. Agents are plain functions of the
table state plus a seed, so a hand can be replayed exactly, even across a
restart of the manager.
"""

from __future__ import annotations

import asyncio
import functools
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from bot.engine import Decision
from bot.engine.simulate import weighted_move
from bot.storage.store import Store
from bot.tables.manager import TableManager
from bot.tables.models import Refused, TableEvent
from tests.support.databases import Target, open_reader

GUILD = 1
GRANT = 200
VARIANT_IDS = ("a6-draw", "a5-draw", "a5-triple", "abyssinia")


class Clock:
    """A settable clock for deadlines (unix seconds)."""

    def __init__(self, now: float = 1_700_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


async def open_manager(
    path: Target,
    *,
    seed: int = 0,
    turn_timeout: float = 3600,
    clock: Callable[[], float] | None = None,
    start: bool = True,
    **options: Any,
) -> tuple[Store, TableManager]:
    """A store and a manager on ``path`` (``options``: more of the manager's settings)."""
    store = await Store.open(path)
    kwargs: dict[str, Any] = {"turn_timeout": turn_timeout, "rng": random.Random(seed), **options}
    if clock is not None:
        kwargs["clock"] = clock
    manager = TableManager(store, starting_grant=GRANT, **kwargs)
    if start:
        await manager.start()
    return store, manager


async def close_manager(store: Store, manager: TableManager) -> None:
    await manager.close()
    await store.close()


async def seat_players(
    manager: TableManager, channel: int, variant: str, users: list[int], guild: int = GUILD
) -> None:
    await manager.open_table(guild, channel, variant)
    for user in users:
        await manager.join(channel, user, f"user{user}")


# ----------------------------------------------------------------- agents

Agent = Callable[[Decision, random.Random], dict[str, Any]]


# Never folds (so every hand reaches its showdown and every phase is played) and
# draws at most two cards (so triple draw never needs a reshuffle).
scripted_agent: Agent = functools.partial(weighted_move, fold=0, max_discard=2)
# Any legal action, folds included; draws of any size.
random_agent: Agent = weighted_move


async def wait_for(predicate: Callable[[], bool], timeout: float = 3.0) -> None:
    """Wait (polling) until ``predicate()`` holds; fail after ``timeout`` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        assert loop.time() < end, "condition not reached in time"
        await asyncio.sleep(0.005)


async def step(
    manager: TableManager, channel: int, seed: int | str, agent: Agent = scripted_agent
) -> dict[str, Any] | None:
    """Play one action for whoever is to act; None when no hand is running.

    The agent's randomness depends only on ``seed`` and the turn number, so the
    same hand gets the same actions whatever happened to the process meanwhile.
    """
    view = manager.view(channel)
    if view.hand is None or view.hand.complete or view.to_act_user is None:
        return None
    user = view.to_act_user
    mine = manager.my_hand(channel, user)
    assert mine is not None and mine.decision is not None
    move = agent(mine.decision, random.Random(f"{seed}:{view.hand_id}:{view.turn}"))
    await manager.act(channel, user, turn=view.turn, hand_id=view.hand_id, **move)
    return {"user": user, **move}


async def play(
    manager: TableManager,
    channel: int,
    seed: int | str,
    agent: Agent = scripted_agent,
    limit: int | None = None,
) -> int:
    """Play until the hand ends (or ``limit`` actions); return actions played."""
    done = 0
    while limit is None or done < limit:
        if await step(manager, channel, seed, agent) is None:
            break
        done += 1
    return done


@dataclass
class Recorder:
    """A table listener that keeps every event."""

    events: list[TableEvent] = field(default_factory=list)

    def __call__(self, event: TableEvent) -> None:
        self.events.append(event)

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    def finished(self) -> list[TableEvent]:
        return [e for e in self.events if e.kind == "finished"]


async def refused(coro: Any) -> Refused:
    """Await ``coro``, which must be refused; return the refusal (its code and params)."""
    try:
        await coro
    except Refused as exc:
        return exc
    raise AssertionError("expected a refusal")


# ----------------------------------------------------------------- ledger


def ledger_snapshot(path: Target) -> dict[str, Any]:
    """Balances, ledger rows and hand results, read straight from the database."""
    conn = open_reader(path)
    try:
        accounts = conn.execute(
            "SELECT guild_id, user_id, balance, granted, refilled, net_won, hands_played "
            "FROM accounts ORDER BY guild_id, user_id"
        ).fetchall()
        ledger = conn.execute(
            "SELECT l.guild_id, p.user_id, l.kind, l.amount, l.hand_id, l.balance_after "
            "FROM ledger l JOIN people p ON p.person_id = l.person_id ORDER BY l.entry_id"
        ).fetchall()
        players = conn.execute(
            "SELECT hp.hand_id, p.user_id, hp.hold, hp.net FROM hand_players hp "
            "JOIN people p ON p.person_id = hp.person_id ORDER BY hp.hand_id, hp.seat"
        ).fetchall()
        hands = conn.execute("SELECT hand_id, status FROM hands ORDER BY hand_id").fetchall()
        cancelled = {r[0] for r in conn.execute("SELECT hand_id FROM hands WHERE cancelled = 1")}
    finally:
        conn.close()
    return {
        "accounts": accounts,
        "ledger": ledger,
        "players": players,
        "hands": hands,
        "cancelled": cancelled,
    }


def check_ledger(path: Target, allow_live: bool = False) -> dict[str, Any]:
    """Assert the chip invariants on the database; return the snapshot."""
    snap = ledger_snapshot(path)
    per_guild: dict[int, int] = {}
    by_user: dict[tuple[int, int], list[tuple[str, int, int | None, int]]] = {}
    for guild, user, kind, amount, hand_id, after in snap["ledger"]:
        by_user.setdefault((guild, user), []).append((kind, amount, hand_id, after))
        if kind == "hand":
            per_guild[guild] = per_guild.get(guild, 0) + amount
    assert all(total == 0 for total in per_guild.values()), per_guild
    for guild, user, balance, granted, refilled, net_won, played in snap["accounts"]:
        assert balance >= 0
        assert balance == granted + refilled + net_won, (user, balance, granted, refilled)
        rows = by_user[(guild, user)]
        assert sum(r[1] for r in rows) == balance
        running = 0
        for _kind, amount, _hand, after in rows:
            running += amount
            assert after == running >= 0
        # a cancelled hand has its (0) ledger entry but is not a played hand
        assert sum(1 for r in rows if r[0] == "hand" and r[2] not in snap["cancelled"]) == played
    hand_rows = [r for r in snap["ledger"] if r[2] == "hand"]
    assert len({(r[4], r[1]) for r in hand_rows}) == len(hand_rows)  # once per hand and player
    status = dict(snap["hands"])
    for hand_id, _user, hold, net in snap["players"]:
        if status[hand_id] == "complete":
            assert net is not None and -net <= hold
        else:
            assert allow_live, f"hand {hand_id} is still live"
            assert net is None
    return snap
