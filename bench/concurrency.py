"""A seeded storm of concurrent table requests, legal and illegal, then an audit of what it left.

Several servers, about 30 tables of all four games (every fifth a practice table with
computer players), about 60 people at up to three tables each, short turn timers and the
automatic deal. Bursts of requests of every kind run at once through ``TableManager``'s
public methods (as the cogs and the practice driver call them): joins, leaves, sitting
out, deals (two people at once), actions (double clicks, stale buttons, the wrong
player, illegal moves, bad cards), refills during a deal, forgetting a player mid-hand,
closes and forced closes while a hand settles, kicks, computer players, hints, and
``/settings`` changes at once. Then the audit:

* chips are conserved per server and no balance is negative;
* a live hand's holds are its table minimum (0 at practice), and every account's
  ``held`` is the sum of its live holds;
* every finished hand's record replays (``python -m bot.engine replay`` in a
  subprocess for a sample, the same code in-process for the rest) to its ledger nets;
* no live hand without an open table, and no table stuck: every live hand moves on
  within its turn timers;
* every refused request changed nothing at its table (checked when nothing else
  happened at that table meanwhile), and every settings change of a burst is kept;
* no exception but the documented refusals, no error logged, and the event loop's
  longest stall (the loop thread's CPU time in its longest gap; the wall time is
  printed too).

    python bench/concurrency.py [--seed 1] [--bursts 400] [--without KIND,...]
                                [--database-url URL]

prints its figures and exits 1 if the audit found anything. ``tests/tables/
test_concurrency_random.py`` runs a short storm on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import logging
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field, replace
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any

if not __package__:  # run as `python bench/concurrency.py`: make the repo importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import asyncpg  # noqa: E402

from bot.engine import VARIANTS  # noqa: E402
from bot.engine.replay import replay_bytes  # noqa: E402
from bot.engine.simulate import weighted_move  # noqa: E402
from bot.heap import freeze_heap, stop_freezing  # noqa: E402
from bot.practice.driver import PracticeDriver  # noqa: E402
from bot.storage.errors import PlayerInHand, UnknownAccount  # noqa: E402
from bot.storage.postgres import translate  # noqa: E402
from bot.storage.store import Store  # noqa: E402
from bot.tables.guild_settings import BadSetting, Defaults, GuildSettingsBook  # noqa: E402
from bot.tables.manager import TableManager  # noqa: E402
from bot.tables.models import Refused, TableEvent  # noqa: E402

GAMES = ("a6-draw", "a5-draw", "a5-triple", "abyssinia")
GRANT = 200
FIRST_GUILD = 7_000
FIRST_CHANNEL = 70_000
FIRST_USER = 700_000
# The kinds of request a burst draws from (each a method ``_<kind>`` of the Storm), and how
# often: mostly play, so that hands finish; the rest now and then.
KINDS = {
    "open": 2,
    "join": 4,
    "leave": 1,
    "sit_out": 2,
    "deal_twice": 2,
    "act": 12,
    "double_click": 3,
    "act_illegal": 2,
    "refill_during_deal": 1,
    "forget": 1,
    "close": 1,
    "close_while_settling": 1,
    "close_racing": 1,
    "kick": 1,
    "practice": 2,
    "settings": 1,
    "reads": 1,
}


@dataclass(frozen=True)
class Plan:
    seed: int = 1
    guilds: int = 3
    tables: int = 30
    spare_channels: int = 6  # channels with no table at first: opens and re-opens
    users: int = 60
    per_user: int = 3  # tables a person sits at, at most
    bursts: int = 40
    burst_size: int = 10
    turn_timeout: float = 0.4  # seconds: the timers act often
    next_hand_delay: float = 0.05
    practice_every: int = 5  # every fifth table has computer players
    kinds: tuple[str, ...] = tuple(KINDS)  # a run may leave some out
    cli_sample: int = 4  # finished records replayed through the CLI in a subprocess


@dataclass
class Report:
    requests: Counter[str] = field(default_factory=Counter)
    refusals: Counter[str] = field(default_factory=Counter)
    refusals_checked: int = 0  # refused with nothing else happening there: state compared
    violations: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # unexpected exceptions, logged errors
    hands_finished: int = 0
    replayed: int = 0
    replayed_cli: int = 0
    settings_checked: int = 0
    live_hands_audited: int = 0
    stall: float = 0.0  # longest gap of the event loop, wall seconds
    stall_cpu: float = 0.0  # the loop thread's CPU seconds within its longest gap
    gc_pause: float = 0.0  # the garbage collector's longest pass, seconds
    elapsed: float = 0.0

    def figures(self) -> str:
        lines = [
            f"requests {sum(self.requests.values())} in {self.elapsed:.1f} s "
            f"({', '.join(f'{k} {n}' for k, n in sorted(self.requests.items()))})",
            f"refused {sum(self.refusals.values())} "
            f"({', '.join(f'{k} {n}' for k, n in self.refusals.most_common())}); "
            f"{self.refusals_checked} compared unchanged",
            f"hands finished {self.hands_finished}, replayed {self.replayed} "
            f"({self.replayed_cli} through the CLI); live hands audited {self.live_hands_audited}; "
            f"settings bursts checked {self.settings_checked}",
            f"longest loop stall {self.stall * 1000:.0f} ms wall, "
            f"{self.stall_cpu * 1000:.0f} ms of the loop thread's CPU; "
            f"longest garbage collection {self.gc_pause * 1000:.0f} ms",
            f"violations {len(self.violations)}, errors {len(self.errors)}",
        ]
        lines += [f"  violation: {v}" for v in self.violations[:20]]
        lines += [f"  error: {e}" for e in self.errors[:20]]
        return "\n".join(lines)


class StormClock:
    """Unix time, which the audit can stop so that no deadline fires while it reads."""

    def __init__(self) -> None:
        self.stopped: float | None = None

    def __call__(self) -> float:
        return time.time() if self.stopped is None else self.stopped


class _Errors(logging.Handler):
    def __init__(self, report: Report) -> None:
        super().__init__(level=logging.ERROR)
        self.report = report

    def emit(self, record: logging.LogRecord) -> None:
        self.report.errors.append(f"logged by {record.name}: {record.getMessage()}")


@contextlib.contextmanager
def errors_logged(report: Report) -> Iterator[None]:
    handler = _Errors(report)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)


class Reader:
    """The audit's own reads of the stored rows (``?`` placeholders), on either backend."""

    def __init__(self, target: Path | str) -> None:
        self.target = target
        self.pg: asyncpg.Connection | None = None
        self.lite: sqlite3.Connection | None = None

    async def __aenter__(self) -> Reader:
        if isinstance(self.target, str):
            self.pg = await asyncpg.connect(self.target)
        else:
            # read off the event loop (the stall monitor runs meanwhile): from a thread
            uri = f"file:{self.target}?mode=ro"
            self.lite = sqlite3.connect(uri, uri=True, check_same_thread=False)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.pg is not None:
            await self.pg.close()
        if self.lite is not None:
            self.lite.close()

    async def rows(self, sql: str, *args: Any) -> list[tuple[Any, ...]]:
        if self.pg is not None:
            records = await self.pg.fetch(translate(sql), *args)
            return [tuple(_plain(v) for v in r.values()) for r in records]
        lite = self.lite
        assert lite is not None
        return await asyncio.to_thread(lambda: lite.execute(sql, args).fetchall())


def _plain(value: Any) -> Any:
    return int(value) if isinstance(value, Decimal) else value  # PostgreSQL's SUM


class Storm:
    def __init__(self, manager: TableManager, book: GuildSettingsBook, plan: Plan) -> None:
        self.m = manager
        self.book = book
        self.plan = plan
        self.rng = random.Random(plan.seed)
        self.report = Report()
        self.guilds = [FIRST_GUILD + g for g in range(plan.guilds)]
        count = plan.tables + plan.spare_channels
        self.channel_guild = {FIRST_CHANNEL + c: self.guilds[c % plan.guilds] for c in range(count)}
        self.user_guild = {FIRST_USER + u: self.guilds[u % plan.guilds] for u in range(plan.users)}
        self.openers: dict[int, int] = {}  # channel -> who opened the table there
        self.events: Counter[int] = Counter()  # channel -> events seen
        self.finished: set[int] = set()
        self.settings_expected: dict[int, dict[str, Any]] = {g: {} for g in self.guilds}
        self.busy_users: set[int] = set()  # refills in flight: one per person at a time
        # requests started and in flight per channel: a refusal is compared only when it
        # was alone at its table (another request may change the table meanwhile)
        self.started: Counter[int] = Counter()
        self.in_flight: Counter[int] = Counter()
        # one settings burst per server at a time, so each burst's outcome is known
        self.settings_lock = {g: asyncio.Lock() for g in self.guilds}
        manager.subscribe(self.saw)

    # ----- what happened ----------------------------------------------------

    def saw(self, event: TableEvent) -> None:
        self.events[event.view.channel_id] += 1
        if event.kind == "finished" and event.hand_id is not None:
            self.finished.add(event.hand_id)

    def _state(self, channel: int | None) -> tuple[int, str]:
        if channel is None:
            return (0, "")
        return self.events[channel], repr(self.m.find_view(channel))

    async def call(
        self,
        kind: str,
        channel: int | None,
        make: Callable[[], Awaitable[Any]],
        touches: tuple[int, ...] = (),
        probe: Callable[[], Awaitable[Any]] | None = None,
    ) -> Any:
        """Run one request; count it; a refusal must leave its table as it was (and what
        ``probe`` reads, when given: a request with no table, e.g. a refill)."""
        self.report.requests[kind] += 1
        mine = (channel, *touches) if channel is not None else touches
        for c in mine:
            self.started[c] += 1
            self.in_flight[c] += 1
        alone = channel is not None and self.in_flight[channel] == 1
        started = self.started[channel] if channel is not None else 0
        before = self._state(channel)
        probed = await probe() if probe is not None else None
        try:
            return await make()
        except Refused as exc:
            self.report.refusals[exc.code.value] += 1
            if probe is not None:
                self.report.refusals_checked += 1
                if (now := await probe()) != probed:
                    self.report.violations.append(
                        f"{kind} was refused ({exc}) but changed {probed} to {now}"
                    )
            after = self._state(channel)
            alone = alone and channel is not None and self.started[channel] == started
            if alone and after[0] == before[0]:  # nothing else happened there meanwhile
                self.report.refusals_checked += 1
                if after[1] != before[1]:
                    self.report.violations.append(
                        f"{kind} at {channel} was refused ({exc}) but changed the table:\n"
                        f"  before {before[1]}\n  after  {after[1]}"
                    )
        except (PlayerInHand, UnknownAccount, BadSetting) as exc:  # documented refusals
            self.report.refusals[type(exc).__name__] += 1
        except Exception as exc:  # noqa: BLE001 (what the audit is looking for)
            tb = "".join(traceback.format_exception(exc)[-3:])
            self.report.errors.append(f"{kind} at {channel}: {exc!r}\n{tb}")
        finally:
            for c in mine:
                self.in_flight[c] -= 1
        return None

    # ----- choosing ------------------------------------------------------------

    def open_channels(self) -> list[int]:
        return [c for c in self.channel_guild if self.m.has_table(c)]

    def seats_of(self, user: int) -> list[int]:
        return [
            c for c in self.open_channels() if any(s.user_id == user for s in self.m.view(c).seats)
        ]

    def people_at(self, channel: int) -> list[int]:
        view = self.m.find_view(channel)
        return [] if view is None else [s.user_id for s in view.seats if s.bot is None]

    def guild_users(self, guild: int) -> list[int]:
        return [u for u, g in self.user_guild.items() if g == guild]

    def a_table(self, practice: bool | None = None) -> int | None:
        channels = self.open_channels()
        if practice is not None:
            channels = [c for c in channels if any(s.bot for s in self.m.view(c).seats) == practice]
        return self.rng.choice(channels) if channels else None

    def a_hand(self) -> int | None:
        live = [c for c in self.open_channels() if self.m.view(c).to_act_user is not None]
        return self.rng.choice(live) if live else None

    def move_for(self, channel: int) -> tuple[int, dict[str, Any], int, int] | None:
        view = self.m.view(channel)
        user = view.to_act_user
        if user is None or view.hand_id is None or user < 0:  # no hand, or a computer's turn
            return None
        mine = self.m.my_hand(channel, user)
        if mine is None or mine.decision is None:
            return None
        move = weighted_move(mine.decision, self.rng, fold=0.2, max_discard=3)
        return user, move, view.turn, view.hand_id

    # ----- set-up -----------------------------------------------------------------

    async def setup(self) -> None:
        channels = list(self.channel_guild)[: self.plan.tables]
        for i, channel in enumerate(channels):
            await self.open_one(
                channel, GAMES[i % len(GAMES)], practice=i % self.plan.practice_every == 0
            )
        for user, guild in self.user_guild.items():
            here = [c for c in channels if self.channel_guild[c] == guild]
            for channel in self.rng.sample(
                here, min(len(here), self.rng.randint(1, self.plan.per_user))
            ):
                await self.call(
                    "join", channel, lambda c=channel, u=user: self.m.join(c, u, f"p{u}")
                )

    async def open_one(self, channel: int, game: str, practice: bool) -> None:
        guild = self.channel_guild[channel]
        opener = self.rng.choice(self.guild_users(guild))
        view = await self.call(
            "open",
            channel,
            lambda: self.m.open_table(guild, channel, game, auto_deal=True, opener=opener),
        )
        if view is None:
            return
        self.openers[channel] = opener
        if practice:
            await self.call("join", channel, lambda: self.m.join(channel, opener, f"p{opener}"))
            for n in range(2):
                level = ("easy", "normal", "hard")[n % 3]
                await self.call(
                    "practice",
                    channel,
                    lambda n=n, lv=level: self.m.add_bot(channel, opener, lv, f"bot{n}"),
                )

    # ----- the requests ----------------------------------------------------------------

    async def _open(self) -> None:
        free = [c for c in self.channel_guild if not self.m.has_table(c)]
        wanted = len(self.channel_guild) - len(free) < self.plan.tables
        if free and (wanted or self.rng.random() < 0.3):
            channel = self.rng.choice(free)
            practice = self.rng.random() < 0.2
            await self.open_one(channel, self.rng.choice(GAMES), practice=practice)
            if practice:
                return
            # people come to a new table: a few of the server's, at once
            guild = self.channel_guild[channel]
            free_people = [
                u for u in self.guild_users(guild) if len(self.seats_of(u)) < self.plan.per_user
            ]
            comers = self.rng.sample(free_people, min(len(free_people), self.rng.randint(2, 4)))
            await asyncio.gather(
                *(
                    self.call("join", channel, partial(self.m.join, channel, u, f"p{u}"))
                    for u in comers
                )
            )
            return
        channel = self.rng.choice(list(self.channel_guild))  # a table there, a bad game or size
        guild = self.channel_guild[channel]
        bad = self.rng.choice([{"variant": "omaha"}, {"seat_limit": 99}, {"turn_timeout": 1.0}, {}])
        args: dict[str, Any] = {"variant": self.rng.choice(GAMES), **bad}
        await self.call("open", channel, lambda: self.m.open_table(guild, channel, **args))

    async def _join(self) -> None:
        user = self.rng.choice(list(self.user_guild))
        seated = self.seats_of(user)
        if len(seated) >= self.plan.per_user:  # at three already: again where they sit
            channel = self.rng.choice(seated)
        else:
            here = [
                c for c in self.open_channels() if self.channel_guild[c] == self.user_guild[user]
            ]
            if not here:
                return
            channel = self.rng.choice(here)
        await self.call("join", channel, lambda: self.m.join(channel, user, f"p{user}"))

    async def _leave(self) -> None:
        channel = self.a_table()
        if channel is None:
            return
        people = self.people_at(channel) or [self.rng.choice(list(self.user_guild))]
        user = self.rng.choice(people)
        await self.call("leave", channel, lambda: self.m.leave(channel, user))

    async def _sit_out(self) -> None:
        channel = self.a_table()
        people = self.people_at(channel) if channel is not None else []
        if channel is None or not people:
            return
        view = self.m.view(channel)
        out = [s.user_id for s in view.seats if s.sitting_out and s.bot is None]
        # the timers sit out whoever times out twice: mostly, someone comes back
        user = self.rng.choice(out if out and self.rng.random() < 0.8 else people)
        await self.call("sit_out", channel, lambda: self.m.sit_out(channel, user))

    async def _deal_twice(self) -> None:
        channel = self.a_table()
        if channel is None:
            return
        people = self.people_at(channel) or [None]
        a, b = self.rng.choice(people), self.rng.choice(people)
        await asyncio.gather(
            self.call("deal", channel, lambda: self.m.deal(channel, a)),
            self.call("deal", channel, lambda: self.m.deal(channel, b)),
        )

    async def _act(self) -> None:
        channel = self.a_hand()
        chosen = self.move_for(channel) if channel is not None else None
        if channel is None or chosen is None:
            return
        user, move, turn, hand_id = chosen
        await self.call(
            "act", channel, lambda: self.m.act(channel, user, turn=turn, hand_id=hand_id, **move)
        )

    async def _double_click(self) -> None:
        channel = self.a_hand()
        chosen = self.move_for(channel) if channel is not None else None
        if channel is None or chosen is None:
            return
        user, move, turn, hand_id = chosen

        def click() -> Awaitable[Any]:
            return self.m.act(channel, user, turn=turn, hand_id=hand_id, **move)

        await asyncio.gather(self.call("act", channel, click), self.call("act", channel, click))

    async def _act_illegal(self) -> None:
        channel = self.a_hand()
        if channel is None:
            return
        view = self.m.view(channel)
        to_act = view.to_act_user
        others = [u for u in self.people_at(channel) if u != to_act] or [FIRST_USER - 1]
        kind = self.rng.randrange(5)
        if kind == 0:  # not their turn
            user = self.rng.choice(others)
            make = partial(self.m.act, channel, user, "check")
        elif kind == 1 and to_act is not None:  # a button of an earlier turn
            make = partial(
                self.m.act,
                channel,
                to_act,
                "call",
                turn=max(0, view.turn - 1),
                hand_id=view.hand_id,
            )
        elif kind == 2 and to_act is not None:  # a move the rules do not allow now
            make = partial(self.m.act, channel, to_act, self.rng.choice(["shove", "buy", "raise"]))
        elif kind == 3 and to_act is not None:  # cards that are not cards
            make = partial(self.m.act, channel, to_act, "discard", cards="Zz 1x")
        else:  # a turn's timer that is no longer the turn's
            make = partial(self.m.expire, channel, view.hand_id, view.turn + 5)
        await self.call("act_illegal", channel, make)

    async def _refill_during_deal(self) -> None:
        channel = self.a_table(practice=False)
        people = [u for u in self.people_at(channel) if u not in self.busy_users] if channel else []
        if channel is None or not people:
            return
        user = self.rng.choice(people)
        guild = self.channel_guild[channel]
        self.busy_users.add(user)
        try:
            await asyncio.gather(
                self.call("deal", channel, lambda: self.m.deal(channel, user)),
                self.call(
                    "refill",
                    None,
                    partial(self.m.refill, guild, user, f"p{user}"),
                    probe=partial(self.refilled, guild, user),
                ),
            )
        finally:
            self.busy_users.discard(user)

    async def refilled(self, guild: int, user: int) -> tuple[int, int] | None:
        """What only a refill changes: the account's refills and its grant."""
        account = await self.m.store.ledger.balance(guild, user)
        return None if account is None else (account.refilled, account.granted)

    async def _forget(self) -> None:
        guild = self.rng.choice(self.guilds)
        users = self.guild_users(guild)
        in_hand = [u for u in users if self.m.in_live_hand(guild, u)]
        # mostly someone dealt in (refused: PlayerInHand); now and then anyone
        user = self.rng.choice(in_hand if in_hand and self.rng.random() < 0.8 else users)
        channel = self.rng.choice(self.seats_of(user) or [None])
        tables = tuple(c for c in self.open_channels() if self.channel_guild[c] == guild)
        await self.call(
            "forget", channel, lambda: self.m.forget_player(guild, user), touches=tables
        )

    async def _close(self) -> None:
        channel = self.a_table()
        if channel is None:
            return
        people = self.people_at(channel)
        who = self.rng.random()
        if who < 0.4:  # the opener: closes if alone, else refused, or at the hand's end
            user = self.openers.get(channel, 0)
            make = partial(self.m.close_table, channel, user)
        elif who < 0.7 and people:  # someone else at the table: not theirs
            user = self.rng.choice(people)
            make = partial(self.m.close_table, channel, user, force=True)
        else:  # a moderator, forced now and then
            force = self.rng.random() < 0.5
            make = partial(self.m.close_table, channel, 0, moderator=True, force=force)
        await self.call("close", channel, make)

    async def _close_while_settling(self) -> None:
        """The move that may end the hand and a close, at once (forced, or at its end)."""
        channel = self.a_hand()
        chosen = self.move_for(channel) if channel is not None else None
        if channel is None or chosen is None:
            return
        user, move, turn, hand_id = chosen
        force = self.rng.random() < 0.5
        await asyncio.gather(
            self.call(
                "act",
                channel,
                lambda: self.m.act(channel, user, turn=turn, hand_id=hand_id, **move),
            ),
            self.call(
                "close",
                channel,
                lambda: self.m.close_table(channel, 0, moderator=True, force=force),
            ),
        )

    async def _close_racing(self) -> None:
        """A forced close, and at the same table at once: a join, a deal, the move, a kick,
        sitting out and leaving (each either happens before the close or is refused)."""
        channel = self.a_table()
        if channel is None:
            return
        guild = self.channel_guild[channel]
        people = self.people_at(channel) or [FIRST_USER - 1]
        newcomer = self.rng.choice(self.guild_users(guild))
        m = self.m
        requests = [
            self.call(
                "close", channel, partial(m.close_table, channel, 0, moderator=True, force=True)
            ),
            self.call("join", channel, partial(m.join, channel, newcomer, f"p{newcomer}")),
            self.call("deal", channel, partial(m.deal, channel, self.rng.choice(people))),
            self.call("kick", channel, partial(m.kick, channel, self.rng.choice(people))),
            self.call("sit_out", channel, partial(m.sit_out, channel, self.rng.choice(people))),
            self.call("leave", channel, partial(m.leave, channel, self.rng.choice(people))),
        ]
        chosen = self.move_for(channel)
        if chosen is not None:
            mover, move, turn, hand_id = chosen
            act = partial(m.act, channel, mover, turn=turn, hand_id=hand_id, **move)
            requests.append(self.call("act", channel, act))
        self.rng.shuffle(requests)
        await asyncio.gather(*requests)

    async def _kick(self) -> None:
        channel = self.a_hand() if self.rng.random() < 0.7 else self.a_table()
        if channel is None:
            return
        people = self.people_at(channel) or [FIRST_USER - 1]
        user = self.rng.choice(people)
        chosen = self.move_for(channel)
        requests = [self.call("kick", channel, lambda: self.m.kick(channel, user))]
        if chosen is not None:  # the kicked player, or another, acts meanwhile
            mover, move, turn, hand_id = chosen
            requests.append(
                self.call(
                    "act",
                    channel,
                    lambda: self.m.act(channel, mover, turn=turn, hand_id=hand_id, **move),
                )
            )
        await asyncio.gather(*requests)

    async def _practice(self) -> None:
        channel = self.a_table(practice=True)
        if channel is None:
            return
        people = self.people_at(channel) or [FIRST_USER - 1]
        user = self.rng.choice(people)
        what = self.rng.randrange(4)
        if what == 0:
            level = self.rng.choice(["easy", "normal", "hard", "godlike"])
            make: Callable[[], Awaitable[Any]] = partial(
                self.m.add_bot, channel, user, level, "late"
            )
        elif what == 1:
            make = partial(self.m.remove_bot, channel, user)
        elif what == 2:
            make = partial(self.m.hint, channel, user)
        else:
            make = partial(self.m.review_last, channel, user)
        await self.call("practice", channel, make)

    async def _settings(self) -> None:
        """One change of each kind at once on one server: every one must be kept."""
        guild = self.rng.choice(self.guilds)
        async with self.settings_lock[guild]:
            await self._settings_at(guild)

    async def _settings_at(self, guild: int) -> None:
        expected = self.settings_expected[guild]
        channels = [c for c, g in self.channel_guild.items() if g == guild]
        a, b = self.rng.sample(channels, 2)
        turn = self.rng.choice([5, 30, 60, 120])
        language = self.rng.choice(["auto", "en-US", "pt-BR", "vi"])
        auto = self.rng.random() < 0.5
        changes: list[tuple[str, Callable[[], Awaitable[Any]]]] = [
            ("turn_timeout", lambda: self.book.set_turn_timeout(guild, turn)),
            ("language", lambda: self.book.set_language(guild, language)),
            ("auto_deal", lambda: self.book.set_auto_deal(guild, auto)),
            ("allow", lambda: self.book.allow_channel(guild, a)),
            ("allow", lambda: self.book.allow_channel(guild, b)),
            ("bad", lambda: self.book.set_turn_timeout(guild, 1)),  # refused: BadSetting
        ]
        await asyncio.gather(*(self.call("settings", None, make) for _, make in changes))
        expected.update(turn_timeout=turn, language=language, auto_deal=auto)
        expected.setdefault("allowed", set()).update({a, b})
        stored = await self.m.store.server.guild_settings(guild)
        self.report.settings_checked += 1
        got = {
            "turn_timeout": stored.turn_timeout,
            "language": stored.language,
            "auto_deal": stored.auto_deal,
            "allowed": set(stored.allowed_channels),
        }
        if got != expected:
            self.report.violations.append(f"settings of {guild}: stored {got}, expected {expected}")

    async def _reads(self) -> None:
        guild = self.rng.choice(self.guilds)
        user = self.rng.choice(self.guild_users(guild))
        which = self.rng.randrange(3)
        if which == 0:
            await self.call("reads", None, lambda: self.m.balance(guild, user, f"p{user}"))
        elif which == 1:
            await self.call("reads", None, lambda: self.m.store.ledger.leaderboard(guild, 1))
        else:
            await self.call("reads", None, lambda: self.m.store.history.recent_hands(guild, user))

    # ----- running ---------------------------------------------------------------------

    async def deal_everywhere(self) -> None:
        """A deal at every table at once (most are refused: a hand is running)."""
        await asyncio.gather(
            *(self.call("deal", c, partial(self.m.deal, c)) for c in self.open_channels())
        )

    async def bursts(self) -> None:
        kinds = list(self.plan.kinds)
        weights = [KINDS[k] for k in kinds]
        for _ in range(self.plan.bursts):
            chosen = self.rng.choices(kinds, weights, k=self.plan.burst_size)
            await asyncio.gather(*(getattr(self, f"_{k}")() for k in chosen))
            await asyncio.sleep(self.rng.choice([0, 0.005, 0.02]))


async def stall_monitor(report: Report, stop: asyncio.Event) -> None:
    """The longest gap between two wake-ups of a 5 ms sleep, and the loop thread's CPU
    time within it (a blocking call shows as CPU; another process's load does not)."""
    loop = asyncio.get_running_loop()
    began: list[float] = []

    def collected(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            began[:] = [time.perf_counter()]
        elif began:
            report.gc_pause = max(report.gc_pause, time.perf_counter() - began[0])

    gc.callbacks.append(collected)
    try:
        await _watch(report, stop, loop)
    finally:
        gc.callbacks.remove(collected)


async def _watch(report: Report, stop: asyncio.Event, loop: asyncio.AbstractEventLoop) -> None:
    while not stop.is_set():
        start, cpu = loop.time(), time.thread_time()
        await asyncio.sleep(0.005)
        gap = loop.time() - start - 0.005
        if gap > report.stall:
            report.stall = gap
        report.stall_cpu = max(report.stall_cpu, time.thread_time() - cpu)


# ----- the audit -----------------------------------------------------------------------


async def audit_live(reader: Reader, report: Report) -> None:
    """With the clock stopped (no deadline fires): holds against the live hands."""
    live = await reader.rows(
        "SELECT h.hand_id, h.variant, h.practice, hp.hold FROM hands h "
        "JOIN hand_players hp ON hp.hand_id = h.hand_id WHERE h.status = 'live'"
    )
    hands = set()
    for hand_id, variant, practice, hold in live:
        hands.add(hand_id)
        want = 0 if practice else VARIANTS[variant].table_minimum
        if hold != want:
            report.violations.append(f"live hand {hand_id} holds {hold}, not {want}")
    report.live_hands_audited += len(hands)
    for guild, user, held, holds in await reader.rows(
        "SELECT a.guild_id, a.user_id, a.held, COALESCE((SELECT SUM(hp.hold) FROM hand_players hp "
        "JOIN hands h ON h.hand_id = hp.hand_id JOIN people p ON p.person_id = hp.person_id "
        "WHERE h.status = 'live' AND p.guild_id = a.guild_id AND p.user_id = a.user_id), 0) "
        "FROM accounts a"
    ):
        if held != holds:
            report.violations.append(f"account {guild}/{user} holds {held}, live hands {holds}")
    await audit_seats(reader, report)
    orphans = await reader.rows(
        "SELECT h.hand_id, h.channel_id FROM hands h WHERE h.status = 'live' AND NOT EXISTS "
        "(SELECT 1 FROM tables t WHERE t.channel_id = h.channel_id AND t.open = 1)"
    )
    for hand_id, channel in orphans:
        report.violations.append(f"live hand {hand_id} at {channel}, where no table is open")


async def audit_seats(reader: Reader, report: Report) -> None:
    """A closed table has no seats: a seat there was written by a step after the close."""
    for channel, user in await reader.rows(
        "SELECT s.channel_id, s.user_id FROM seats s JOIN tables t ON t.channel_id = s.channel_id "
        "WHERE t.open = 0"
    ):
        report.violations.append(f"{user} is seated at {channel}, a closed table")


async def audit_final(
    reader: Reader, store: Store, report: Report, plan: Plan, rng: random.Random
) -> None:
    """Everything closed: conserved chips, no hold left, every record replays to its nets."""
    for guild, total in await reader.rows(
        "SELECT guild_id, SUM(net_won) FROM accounts GROUP BY guild_id"
    ):
        if total != 0:
            report.violations.append(f"server {guild}: nets sum to {total}, not 0")
    for guild, user, balance, granted, refilled, net_won, held in await reader.rows(
        "SELECT guild_id, user_id, balance, granted, refilled, net_won, held FROM accounts"
    ):
        if balance < 0 or balance != granted + refilled + net_won or held != 0:
            report.violations.append(
                f"account {guild}/{user}: balance {balance} = {granted}+{refilled}+{net_won}?"
                f" held {held}"
            )
    await audit_seats(reader, report)
    for (hand_id,) in await reader.rows("SELECT hand_id FROM hands WHERE status = 'live'"):
        report.violations.append(f"hand {hand_id} is live after every table closed")
    for channel, open_ in await reader.rows("SELECT channel_id, open FROM tables WHERE open = 1"):
        report.violations.append(f"table {channel} is open after every table closed ({open_})")
    nets: dict[int, dict[str, int]] = {}
    for hand_id, user, amount in await reader.rows(
        "SELECT l.hand_id, p.user_id, l.amount FROM ledger l "
        "JOIN people p ON p.person_id = l.person_id WHERE l.kind = 'hand'"
    ):
        nets.setdefault(hand_id, {})[str(user)] = amount
    finished = await reader.rows(
        "SELECT hand_id, practice, cancelled FROM hands WHERE status = 'complete' ORDER BY hand_id"
    )
    played = [(h, p) for h, p, cancelled in finished if not cancelled]
    report.hands_finished = len(played)
    sample = set(rng.sample([h for h, _ in played], min(plan.cli_sample, len(played))))
    for hand_id, practice in played:
        record = await store.history.hand_record(hand_id)
        data = json.dumps(record).encode()
        if hand_id in sample:
            state = replay_cli(data)
            report.replayed_cli += 1
        else:
            state = replay_bytes(data)
        report.replayed += 1
        if state["error"] is not None or not state["complete"]:
            report.violations.append(f"hand {hand_id} does not replay: {state['error']}")
            continue
        if practice:
            continue  # a practice hand moves no chips: nothing in the ledger to match
        people = {k: v for k, v in state["net"].items()}
        if people != nets.get(hand_id, {}):
            report.violations.append(
                f"hand {hand_id} replays to {people}, the ledger says {nets.get(hand_id)}"
            )


def replay_cli(data: bytes) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "bot.engine", "replay", "-"],
        input=data,
        capture_output=True,
        timeout=120,
        check=False,
    )
    state: dict[str, Any] = json.loads(proc.stdout)
    return state


# ----- one run ---------------------------------------------------------------------------


async def no_table_stuck(m: TableManager, report: Report, turn_timeout: float) -> None:
    """Every hand in play moves on within its turn timers (the timers play it out)."""
    waiting = {c: m.progress(c) for c in m.channels() if m.progress(c)[1] >= 0}
    loop = asyncio.get_running_loop()
    end = loop.time() + 6 * turn_timeout + 2.0  # a retried deadline's first back-off is 1 s
    while waiting and loop.time() < end:
        await asyncio.sleep(0.05)
        waiting = {c: p for c, p in waiting.items() if m.has_table(c) and m.progress(c) == p}
    for channel, (hand_id, turn) in waiting.items():
        report.violations.append(f"table {channel} stuck at hand {hand_id}, turn {turn}")


async def run(target: Path | str, plan: Plan) -> Report:
    started = time.monotonic()
    clock = StormClock()
    store = await Store.open(target)
    manager = TableManager(
        store,
        starting_grant=GRANT,
        turn_timeout=plan.turn_timeout,
        next_hand_delay=plan.next_hand_delay,
        clock=clock,
        rng=random.Random(plan.seed),
    )
    await manager.start()
    manager.timers.bot_rng = random.Random(plan.seed + 1)
    driver = PracticeDriver(manager, pause=0, rng=random.Random(plan.seed + 2))
    book = GuildSettingsBook(store, Defaults(turn_timeout=plan.turn_timeout, auto_deal=True))
    storm = Storm(manager, book, plan)
    report = storm.report
    stop = asyncio.Event()
    # the bot's own heap policy (bot/run.py does this after start-up): what is alive now
    # (in a test process, every earlier test's leftovers too) is never walked again
    freeze_heap()
    with errors_logged(report), contextlib.ExitStack() as heap:
        heap.callback(gc.unfreeze)
        heap.callback(stop_freezing)
        monitor = asyncio.create_task(stall_monitor(report, stop))
        try:
            await storm.setup()
            await storm.bursts()
            await storm.deal_everywhere()
            # the audit of live hands: no deadline fires, the automatic deals are made
            clock.stopped = time.time()
            await asyncio.sleep(plan.next_hand_delay * 4 + 0.1)
            async with Reader(target) as reader:
                await audit_live(reader, report)
            clock.stopped = None
            await no_table_stuck(manager, report, plan.turn_timeout)
            for channel in manager.channels():
                await storm.call(
                    "close",
                    channel,
                    lambda c=channel: manager.close_table(c, 0, moderator=True, force=True),
                )
        finally:
            stop.set()
            await monitor
            await driver.close()
            await manager.close()
        async with Reader(target) as reader:
            await audit_final(reader, store, report, plan, random.Random(plan.seed))
        await store.close()
    report.elapsed = time.monotonic() - started
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--bursts", type=int, default=400)
    parser.add_argument("--burst-size", type=int, default=12)
    parser.add_argument("--database-url", help="a PostgreSQL URL (default: a SQLite file)")
    parser.add_argument(
        "--without",
        default="",
        help=f"kinds of request left out, comma-separated: {','.join(KINDS)}",
    )
    args = parser.parse_args(argv)
    left_out = set(filter(None, args.without.split(",")))
    if left_out - set(KINDS):
        parser.error(f"unknown kinds: {', '.join(sorted(left_out - set(KINDS)))}")
    kinds = tuple(k for k in KINDS if k not in left_out)
    plan = replace(
        Plan(), seed=args.seed, bursts=args.bursts, burst_size=args.burst_size, kinds=kinds
    )
    logging.basicConfig(level=logging.WARNING)
    with tempfile.TemporaryDirectory() as tmp:
        target: Path | str = args.database_url or Path(tmp) / "storm.db"
        report = asyncio.run(run(target, plan))
    print(report.figures())
    return 1 if report.violations or report.errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
