"""The bot under Discord's conditions: many tables at once through the real discord.py.

The production bot (``bot.client.PokerBot`` with its presenter, the SQLite store on a
file in a temp directory, the render threads) talks real HTTP to the fake Discord's REST
side in its own process (``fakediscord.server``, started by ``fakediscord.remote``, with
Discord's rate-limit headers, per-route buckets and global limit); the gateway payloads
are fed to it in-process. Every REST call and interaction response takes a random
``--latency`` (default 100–300 ms, seeded) before "Discord" answers it. ``--in-process``
runs the fake on the bot's own event loop instead (``fakediscord/harness.py``, no rate
limits), to compare. ``--tables`` tables (default 200: the four games in turn, 2 or 3
players each) are opened and joined without latency (not measured); then every table
plays ``--hands`` hands at once. Each player to act thinks for a random time
(exponential, mean ``--think`` seconds, default 1: people's pace, with many quick
successions of clicks, about one move in five under 0.2 s) and then moves: by the table
message's button when the message on "Discord" already shows it for this turn, otherwise
by slash command (discards with cards always by command; the picker would be two
interactions). The hand ends, a player deals again. The tables' first moves are spread
over the first ``--stagger`` seconds (default 1). ``--think 0`` is the stress case:
everyone moves the instant the previous move is stored, so the 200 tables ask for more
than one event loop can do, and the loop runs saturated. Printed, per run and as the
run-to-run spread over ``--runs``:

* initial-response latency p50 / p99 of every interaction (actions and deals): from the
  driver handing the INTERACTION_CREATE payload to discord.py, to the moment the bot's
  first response call reached Discord (``Reply.ack_latency``);
* the event loop's longest stall: a monitor task sleeps 5 ms in a loop and records the
  largest overshoot, from the first action until the presenters have shown everything;
  and how busy the loop was (the CPU time of its thread over the same span), and that
  CPU time per action (with ``--attribute``, the players' part left out too: a figure
  of the bot's own work that varies far less from run to run than the stall);
* requests per action (REST and interaction responses and followups, everything the bot
  sent to "Discord" from the first action until all was shown, 429s included, divided by
  the game actions: check, call, bet, raise, fold, discard, buy; deals are not actions
  but their requests count), by route, and table-message edits per action;
* X, the global-limited (channel-route) requests per action, the tables one token serves
  (3 x 0.7 x 50 / X), and the 429s Discord's limits answered;
* hands per minute (hands completed ÷ time until the last action of all was stored).

What the numbers include: discord.py's real request path (its aiohttp session over the
loopback, rate-limit buckets, JSON, response parsing), the bot's handlers, the table
manager with durable SQLite commits, the presenters and the render threads; and, on the
bot's loop, the driver: building each interaction payload, the player coroutines
deciding the moves and reading the table message from the fake's control API. Excluded:
the network beyond the loopback (latency is a sleep in the fake), TLS, gateway
decompression, and other processes' load on the machine (2 cores here, shared; the fake
Discord's process takes its part of them).

    python -m bench.discord [--tables 200] [--hands 2] [--runs 3] [--seed 1] [--think 1]
"""

from __future__ import annotations

import argparse
import asyncio
import collections.abc
import gc
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if not __package__:  # run as `python bench/discord.py`: make the repo importable, and keep
    here = Path(__file__).resolve().parent  # this file from shadowing the discord package
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    sys.path.insert(0, str(here.parent))

import random  # noqa: E402

from bench.tables import GAMES, choose  # noqa: E402
from bot.engine.record import parse_record  # noqa: E402
from bot.heap import freeze_heap, stop_freezing  # noqa: E402
from bot.tables.models import TableEvent  # noqa: E402
from bot.tables.table import Table  # noqa: E402
from fakediscord.harness import DiscordHarness, Reply, users  # noqa: E402
from fakediscord.poker import (  # noqa: E402
    GUILD,
    assert_table_shows_latest,
    make_bot,
    open_table,
    uid,
)
from fakediscord.remote import RemoteHarness  # noqa: E402

FIRST_CHANNEL = 1320000000000000001
#: a move not stored this long after its interaction: something is stuck
STUCK = 120.0
TARGET_P99 = 0.100
TARGET_STALL = 0.050
TARGET_EDITS = 1.5
TARGET_X = 0.3


@dataclass(frozen=True)
class Seat:
    """One table of the benchmark: its channel, game and players."""

    channel: int
    variant: str
    players: tuple[dict[str, Any], ...]


def plan(tables: int) -> list[Seat]:
    """The four games in turn; 2 or 3 players (alternating every four tables)."""
    people = users(3 * tables)
    return [
        Seat(
            FIRST_CHANNEL + i,
            GAMES[i % len(GAMES)],
            tuple(people[3 * i : 3 * i + 2 + (i // len(GAMES)) % 2]),
        )
        for i in range(tables)
    ]


@dataclass
class Tally:
    """What the agents did during the burst."""

    actions: int = 0
    deals: int = 0
    clicks: int = 0  # actions and deals by button (the rest by slash command)
    refused: list[str] = field(default_factory=list)  # refusal texts (then tried again)
    refused_tokens: list[str] = field(default_factory=list)  # read into ``refused`` after
    tokens: list[str] = field(default_factory=list)  # of every interaction (h.reply_for)
    hand_ids: list[int] = field(default_factory=list)


@dataclass
class Figures:
    """One run's results."""

    tables: int
    hands: int
    seconds: float  # from the first interaction until the last action was stored
    tally: Tally
    ack: list[float]  # initial-response latency of every interaction of the burst (s)
    answer: list[float]  # dispatch to the private answer (the followup with the cards) (s)
    stall: float  # the longest event-loop stall (s)
    loop_busy: float  # CPU time of the event loop's thread / wall time, over the same span
    loop_cpu: float  # CPU time of the event loop's thread over that span (s)
    gc_pause: float  # the longest garbage-collector pause during the burst (s)
    requests: int  # everything sent to "Discord" during the burst and until all was shown
    webhook: int  # of which interaction responses and followups
    edits: int  # table-message edits (PATCH of a table message, channel or @original)
    presenter_edits: int  # the presenter's own count of table edits and posts
    stored_actions: int  # actions in the stored records of the hands played
    routes: dict[str, int] = field(default_factory=dict)  # requests by kind (see ``kind``)
    global_429: int = 0  # answers of the global limit (out-of-process fake only)
    route_429: int = 0  # answers of a route's bucket (out-of-process fake only)
    in_process: bool = False  # the fake Discord ran on the bot's loop
    sweep: float = 0.0  # a sweep's full pass over the heap the run left (bot/heap.py) (s)
    passes: Passes | None = None  # with --attribute: the loop's passes, the bot's own part
    stall_bot: float = 0.0  # with --attribute: the longest stall, the players' part left out
    pinned: str = ""  # the CPUs of the bot and of the fake Discord, when they were pinned

    @property
    def limited(self) -> int:
        """Requests under Discord's global limit (everything but the interaction endpoints)."""
        return sum(n for k, n in self.routes.items() if k.startswith("channel"))

    @property
    def x(self) -> float:
        """X: global-limited requests per action."""
        return self.limited / self.actions

    @property
    def capacity(self) -> float:
        """Tables one token serves at one action per 3 s, with 30 % headroom: 3 x 0.7 x 50 / X."""
        return 3 * 0.7 * 50 / self.x if self.x else float("inf")

    @property
    def actions(self) -> int:
        return self.tally.actions

    def percentile(self, q: float, of: str = "ack") -> float:
        ordered = sorted(getattr(self, of))
        return ordered[min(len(ordered) - 1, int(len(ordered) * q))]

    @property
    def hands_per_minute(self) -> float:
        return self.hands / self.seconds * 60


class LagMonitor:
    """Sleeps ``interval`` over and over; the overshoot of each sleep is how long the
    event loop was busy with something else. Also times the garbage collector's pauses
    (they stop the loop too, and walk the harness's records as well as the bot's heap)."""

    def __init__(self, interval: float = 0.005, passes: Passes | None = None) -> None:
        self.interval = interval
        # with --attribute: the players' part of each overshoot is left out too (what
        # they ran during the sleep itself, at most ``interval`` of it, is left out as well)
        self.passes = passes
        self.longest = 0.0
        self.longest_bot = 0.0  # the longest overshoot, the players' part left out
        self.longest_gc = 0.0
        self._gc_start = 0.0
        self._stop = False

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        gc.callbacks.append(self._on_gc)
        try:
            while not self._stop:
                start = loop.time()
                players = self.passes.players_part if self.passes else 0.0
                await asyncio.sleep(self.interval)
                overshoot = loop.time() - start - self.interval
                self.longest = max(self.longest, overshoot)
                if self.passes is not None:
                    players = self.passes.players_part - players
                    self.longest_bot = max(self.longest_bot, overshoot - players)
        finally:
            gc.callbacks.remove(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter()
        else:
            self.longest_gc = max(self.longest_gc, time.perf_counter() - self._gc_start)

    def stop(self) -> None:
        self._stop = True


class Passes:
    """``--attribute``: the players' part of the loop's work, and (on asyncio's own loop)
    each pass of the event loop. The players' tasks run their coroutines through
    ``steps``, which times each step (deciding the moves and reading what Discord shows),
    on any event loop. Handing each interaction to discord.py (building its payload, which
    a gateway would have sent, and discord.py's parse of it, the bot's own work) stays
    counted with the bot (``handed``); ``LagMonitor`` leaves the rest out of each overshoot
    of its sleep. On asyncio's own loop it also times each pass (one ``_run_once``: the
    callbacks that were ready) by wrapping that asyncio internal while installed: the
    longest pass without the players' part is the longest stretch the bot's own callbacks
    held the loop, and of that pass the loop thread's own CPU time (``time.thread_time``)
    says how long it ran: the rest it was off its core or waiting for the GIL. uvloop's
    passes are its own C code and are not timed."""

    def __init__(self) -> None:
        self.timed = False  # the passes were timed (asyncio's own loop)
        self.longest = 0.0  # the longest pass, every callback counted (s)
        self.longest_bot = 0.0  # the longest pass, the players' steps left out (s)
        self.longest_bot_cpu = 0.0  # the loop thread's CPU time in that pass (s)
        self.driver = 0.0  # the players' steps in all (s)
        self.handed = 0.0  # of which handing interactions to discord.py (the bot's) (s)
        self.total = 0.0  # every timed pass in all (s), on asyncio's own loop
        self._pass_driver = 0.0
        self._pass_handed = 0.0
        self._saved: Any = None

    def steps(self, coro: Coroutine[Any, Any, None]) -> Coroutine[Any, Any, None]:
        """A players' coroutine whose every step is timed as the players' part."""
        return _TimedSteps(coro, self)

    def _stepped(self, spent: float) -> None:
        self.driver += spent
        self._pass_driver += spent

    def install(self) -> None:
        import asyncio.base_events as base

        if not isinstance(asyncio.get_running_loop(), base.BaseEventLoop):
            return  # uvloop: no pass of its own to time
        run_once = base.BaseEventLoop._run_once  # type: ignore[attr-defined]
        self._saved = run_once
        self.timed = True
        passes = self

        def timed_run_once(loop: Any) -> None:
            passes._pass_driver = passes._pass_handed = 0.0
            start, cpu = time.perf_counter(), time.thread_time()
            run_once(loop)
            spent = time.perf_counter() - start
            passes.total += spent
            passes.longest = max(passes.longest, spent)
            players = passes._pass_driver - passes._pass_handed
            if spent - players > passes.longest_bot:
                # a pass that took far longer than its CPU was the thread kept off its core
                passes.longest_bot = spent - players
                passes.longest_bot_cpu = time.thread_time() - cpu - players

        base.BaseEventLoop._run_once = timed_run_once  # type: ignore[attr-defined]

    @property
    def players_part(self) -> float:
        """The players' own steps so far, handing interactions to discord.py left out (s)."""
        return self.driver - self.handed

    def hand(self, started: float) -> None:
        """Count the time since ``started`` (``perf_counter``) as handing an interaction to
        discord.py: the bot's work, though a player's task did it."""
        spent = time.perf_counter() - started
        self.handed += spent
        self._pass_handed += spent

    def remove(self) -> None:
        import asyncio.base_events as base

        if self._saved is not None:
            base.BaseEventLoop._run_once = self._saved  # type: ignore[attr-defined]
            self._saved = None


class _TimedSteps(collections.abc.Coroutine[Any, Any, None]):
    """A coroutine run by its task step by step, each step's time given to ``Passes``. It
    shows the wrapped coroutine's frame, so the harness reads where it waits as before."""

    def __init__(self, coro: Coroutine[Any, Any, None], passes: Passes) -> None:
        self._coro = coro
        self._passes = passes
        self.__qualname__ = getattr(coro, "__qualname__", "players")

    def send(self, value: Any) -> Any:
        start = time.perf_counter()
        try:
            return self._coro.send(value)
        finally:
            self._passes._stepped(time.perf_counter() - start)

    def throw(self, *args: Any) -> Any:
        start = time.perf_counter()
        try:
            return self._coro.throw(*args)
        finally:
            self._passes._stepped(time.perf_counter() - start)

    def close(self) -> None:
        self._coro.close()

    def __await__(self) -> Any:
        return self._coro.__await__()

    @property
    def cr_frame(self) -> Any:
        return getattr(self._coro, "cr_frame", None)

    @property
    def cr_code(self) -> Any:
        return getattr(self._coro, "cr_code", None)

    @property
    def cr_await(self) -> Any:
        return getattr(self._coro, "cr_await", None)


def kind(transport: str, method: str, path: str, tables: set[str]) -> str:
    """A request's kind: ``interaction ...`` (exempt from the global limit) or ``channel ...``."""
    if "/interactions/" in path:
        return "interaction callback"
    if path.startswith("/webhooks/"):
        if path.endswith("/@original"):
            return f"interaction original {method}"
        return "interaction followup" if method == "POST" else f"interaction {method}"
    if path == "/users/@me/channels":
        return "channel create DM"
    parts = path.split("/")
    if len(parts) > 2 and parts[1] == "channels":
        where = "table" if parts[2] in tables else "DM"
        if method == "PATCH":
            return f"channel {where} edit"
        if method == "POST":
            return f"channel {where} post"
    return f"channel other {method}"


def _progress(table: Table) -> tuple[int | None, int]:
    """Where the table stands: it moves exactly when an action or a deal is stored."""
    return table.hand_id, -1 if table.hand is None else len(table.hand.actions)


def _next_move(
    h: DiscordHarness, seat: Seat, rng: random.Random
) -> tuple[dict[str, Any], str, str, dict[str, Any]]:
    """(player, button custom_id, slash command, its options) for the next step: a deal
    between hands, else the player to act's random legal move."""
    manager = h.bot.manager  # type: ignore[attr-defined]
    ch, variant = seat.channel, seat.variant
    view = manager.view(ch)
    if view.hand is None:
        return seat.players[0], f"pk:{ch}:deal", f"{variant} deal", {}
    player = next(p for p in seat.players if uid(p) == view.to_act_user)
    mine = manager.my_hand(ch, view.to_act_user)
    move = choose(mine.decision, rng)
    suffix = f"{view.hand_id}:{view.turn}"
    action = move["action"]
    if action == "discard":
        cards = " ".join(move["cards"])
        button = f"pk:{ch}:pat:{suffix}" if not cards else ""  # a draw needs the picker
        return player, button, f"{variant} discard", {"cards": cards} if cards else {}
    if action == "buy":
        source = move["source"]
        return player, f"pk:{ch}:{source}:{suffix}", f"{variant} buy", {"from": source}
    return player, f"pk:{ch}:{action}:{suffix}", f"{variant} {action}", {}


async def _answered(h: DiscordHarness, reply: Reply) -> bool:
    """``_finished``, reading the answer without blocking the loop. A click deferred
    without a message of its own (type 6: its step was not done by its deadline) is
    answered once a followup came (its private answer, or the refusal)."""
    if reply.callback_type is None:
        return False
    if reply.callback_type == 6:
        return reply.first_followup_at is not None
    return reply.original_id is None or not (await h.fetch_message(reply.original_id)).loading


def _finished(reply: Reply) -> bool:
    """The bot has answered and its private answer is shown (not "thinking" any more)."""
    message = reply.message
    return reply.callback_type is not None and not (message is not None and message.loading)


async def _step(
    h: DiscordHarness, seat: Seat, rng: random.Random, stored: asyncio.Event, tally: Tally,
    passes: Passes | None = None,
) -> None:  # fmt: skip
    """Make the next move at once and wait until it is stored. A refused move (say, a click
    past the click rate) is made again, by command."""
    table: Table = h.bot.manager.table(seat.channel)  # type: ignore[attr-defined]
    loop = asyncio.get_running_loop()
    by_command = False
    while True:
        # Cleared before reading where the table stands: a step stored from now on (the
        # automatic deal, say, while the table message is fetched) sets it again, and
        # ``_stored`` sees the table moved (cleared after, it waited for a step that had
        # been and gone, and the run stopped "stuck" on the refusal of its own deal).
        stored.clear()
        before = _progress(table)
        player, button, command, options = _next_move(h, seat, rng)
        presenter = h.bot.presenter  # type: ignore[attr-defined]
        # what "Discord" shows now
        shown = await h.fetch_message(presenter.message_id(seat.channel))
        component = shown.component(button) if button and not by_command else None
        handing = time.perf_counter()
        if component is not None and not component.get("disabled"):
            reply = h.send_click(player, shown, button)
            tally.clicks += 1
        else:
            reply = h.send_slash(player, seat.channel, command, **options)
        if passes is not None:
            passes.hand(handing)
        tally.tokens.append(reply.token)
        if await _stored(h, table, before, reply.token, stored, loop.time() + STUCK):
            # counted by the move sent: a saturated run once counted 3 of 200 deals as
            # actions by the table's progress read before it
            if command.endswith(" deal"):
                tally.deals += 1
                tally.hand_ids.append(table.hand_id or 0)
            else:
                tally.actions += 1
            return
        tally.refused_tokens.append(reply.token)  # its text is read after the run
        by_command = True


async def _stored(
    h: DiscordHarness, table: Table, before: tuple[int | None, int], token: str,
    stored: asyncio.Event, give_up: float,
) -> bool:  # fmt: skip
    """True once the table has stored the move (its event was emitted), False if the bot
    answered without storing it (refused)."""
    while True:
        if stored.is_set():
            stored.clear()
            if _progress(table) != before:
                return True
        try:
            async with asyncio.timeout(1.0):
                await stored.wait()
        except TimeoutError:
            reply = await h.fetch_reply(token)  # Discord's record of it, as it is now
            if _progress(table) == before and await _answered(h, reply):
                return False
            if asyncio.get_running_loop().time() > give_up:
                raise AssertionError(f"{reply!r} at {table.channel_id} stuck") from None


async def _play(
    h: DiscordHarness, seat: Seat, hands: int, rng: random.Random, stored: asyncio.Event,
    tally: Tally, think: float, start: float = 0.0, passes: Passes | None = None,
) -> None:  # fmt: skip
    table: Table = h.bot.manager.table(seat.channel)  # type: ignore[attr-defined]
    if start:
        await asyncio.sleep(start)  # this table's first move: see ``--stagger``
    for _ in range(hands):
        while True:
            if think:
                await asyncio.sleep(rng.expovariate(1 / think))  # the player thinks first
            await _step(h, seat, rng, stored, tally, passes)  # the deal, then each action
            if table.hand is None:
                break


async def run_once(
    tables: int,
    hands: int,
    seed: int,
    latency: float | tuple[float, float],
    directory: Path,
    think: float = 0.0,
    in_process: bool = False,
    server_cpus: set[int] | None = None,
    passes: Passes | None = None,
    stagger: float = 0.0,
) -> Figures:
    """Set up ``tables`` tables, play ``hands`` hands at each at once, check what Discord
    shows against the stored state, and measure."""
    seats = plan(tables)
    channels = {s.channel: f"table-{i}" for i, s in enumerate(seats)}
    people = [p for s in seats for p in s.players]
    bot = make_bot(directory / f"discord-{seed}.db", seed=seed, max_tables=max(25, tables))
    try:
        options: dict[str, Any] = {} if in_process else {"server_cpus": server_cpus}
        harness = DiscordHarness if in_process else RemoteHarness
        async with harness(
            bot, latency_seed=seed, settle_timeout=STUCK, keep_payloads=False, **options
        ) as h:
            await h.connect(GUILD, channels, people)
            freeze_heap()  # as `python -m bot` does between the login and the gateway
            for seat in seats:  # one at a time: the fastest way through the harness's settling
                await open_table(h, seat.variant, list(seat.players), seat.channel)
            stored = {s.channel: asyncio.Event() for s in seats}

            def on_event(event: TableEvent) -> None:  # called as each step is stored
                stored[event.view.channel_id].set()

            bot.manager.subscribe(on_event)
            h.latency = latency
            tally = Tally()
            first_request = (await h.limits())["log"]
            limits_before = (await h.limits())["counts"]
            first_edits = bot.presenter.edits + bot.presenter.carried_late
            monitor = LagMonitor(passes=passes)
            watching = asyncio.create_task(monitor.run())
            start, start_cpu = time.perf_counter(), time.thread_time()
            if passes is not None:
                passes.install()
            starts = random.Random(seed * 31 + 1)  # not the players' own: their moves stay
            plays = [
                _play(
                    h,
                    s,
                    hands,
                    random.Random(seed * 7919 + s.channel),
                    stored[s.channel],
                    tally,
                    think,
                    starts.uniform(0, stagger),
                    passes,
                )
                for s in seats
            ]
            players = [
                asyncio.create_task(passes.steps(play) if passes else play, name=f"player-{i}")
                for i, play in enumerate(plays)
            ]
            try:
                await asyncio.gather(*players)
                seconds = time.perf_counter() - start
                assert await bot.presenter.drain(STUCK), "the presenters did not catch up"
                shown = time.perf_counter() - start
                loop_cpu = time.thread_time() - start_cpu
                loop_busy = loop_cpu / shown
            finally:
                if passes is not None:
                    passes.remove()
            monitor.stop()
            await watching
            await h.settle()
            h.assert_no_errors()
            for seat in seats:  # what Discord shows is the stored state
                assert_table_shows_latest(h, seat.channel)
            replies = await h.fetch_replies(tally.tokens)
            assert all(_finished(r) for r in replies), "an interaction was never answered"
            tally.refused = [str(h.reply_for(t).content) for t in tally.refused_tokens]
            sent = await h.fetch_log(first_request)  # (transport, method, path, at, status)
            counts = (await h.limits())["counts"]
            tables_ = {str(s.channel) for s in seats}
            edits = [  # of a table message: through its channel, or an interaction's token
                path
                for transport, method, path, _, _ in sent
                if method == "PATCH"
                and (
                    (transport == "http" and path.split("/")[2] in tables_)
                    or path.endswith("/messages/@original")
                )
            ]
            stored_actions = 0
            for hand_id in tally.hand_ids:
                stored_actions += len(
                    parse_record(await bot.store.history.hand_record(hand_id)).actions
                )
            # a sweep of bot/heap.py: everything given back to the collector, one full
            # pass over it (the loop stopped meanwhile), with the heap the run left
            swept = time.perf_counter()
            gc.unfreeze()
            gc.collect()
            sweep = time.perf_counter() - swept
            return Figures(
                tables=tables,
                hands=len(tally.hand_ids),
                seconds=seconds,
                tally=tally,
                ack=[r.ack_latency for r in replies if r.ack_latency is not None],
                answer=[
                    r.first_followup_at - r.dispatched_at
                    for r in replies
                    if r.first_followup_at is not None
                ],
                stall=monitor.longest,
                loop_busy=loop_busy,
                loop_cpu=loop_cpu,
                gc_pause=monitor.longest_gc,
                requests=len(sent),
                webhook=sum(transport == "webhook" for transport, *_ in sent),
                edits=len(edits),
                presenter_edits=bot.presenter.edits + bot.presenter.carried_late - first_edits,
                stored_actions=stored_actions,
                routes=dict(Counter(kind(tr, m, p, tables_) for tr, m, p, _, _ in sent)),
                global_429=counts.get("global 429", 0) - limits_before.get("global 429", 0),
                route_429=counts.get("route 429", 0) - limits_before.get("route 429", 0),
                in_process=in_process,
                sweep=sweep,
                passes=passes,
                stall_bot=monitor.longest_bot,
                pinned=_pinned(server_cpus) if server_cpus and not in_process else "",
            )
    finally:
        stop_freezing()  # the next run starts from a clean heap, as the bot does
        gc.unfreeze()


def pin(enabled: bool) -> set[int] | None:
    """The fake Discord's CPUs when it gets one of its own (the last of ours; this process,
    and every thread it starts from now on, keeps the others), else None. With fewer than
    two CPUs, or not ``enabled``, nothing is pinned."""
    cpus = sorted(os.sched_getaffinity(0))
    if not enabled or len(cpus) < 2:
        return None
    os.sched_setaffinity(0, set(cpus[:-1]))  # before the bot starts any thread
    return {cpus[-1]}


def _pinned(server_cpus: set[int]) -> str:
    bot = ",".join(map(str, sorted(os.sched_getaffinity(0))))
    return f"bot on CPU {bot}, fake Discord on CPU {','.join(map(str, sorted(server_cpus)))}"


# ----- printing ---------------------------------------------------------------------------


def _under_stall_target(label: str, values: list[float]) -> tuple[str, list[float], Any, str, Any]:
    """A report row of durations held to the stall target."""
    return (label, values, _ms, f"< {TARGET_STALL * 1000:.0f} ms", lambda v: v < TARGET_STALL)


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def _count(value: float) -> str:
    return f"{value:,.0f}"


def _met(values: list[float], ok: Any) -> str:
    hits = sum(bool(ok(v)) for v in values)
    if hits == len(values):
        return "yes"
    return "NO" if hits == 0 else f"in {hits} of {len(values)} runs"


def report(runs: list[Figures], latency: float | tuple[float, float], think: float = 0.0) -> None:
    first = runs[0]
    low, high = latency if isinstance(latency, tuple) else (latency, latency)
    for i, f in enumerate(runs, 1):
        t = f.tally
        print(
            f"run {i}: {f.tables} tables, {f.hands} hands, {t.actions:,} actions "
            f"({t.clicks:,} of {t.actions + t.deals:,} interactions by button), {t.deals} deals, "
            f"{len(t.refused)} refused and tried again, {f.seconds:.1f} s; "
            f"{f.requests:,} requests ({f.webhook:,} interaction responses/followups), "
            f"{f.edits:,} table edits; stored actions {f.stored_actions:,}"
        )
    rows: list[tuple[str, list[float], Any, str, Any]] = [
        ("initial response p50", [f.percentile(0.5) for f in runs], _ms, "", None),
        (
            "initial response p99",
            [f.percentile(0.99) for f in runs],
            _ms,
            f"< {TARGET_P99 * 1000:.0f} ms",
            lambda v: v < TARGET_P99,
        ),
        _under_stall_target("longest event-loop stall", [f.stall for f in runs]),
        (
            "event loop busy (its thread's CPU)",
            [f.loop_busy for f in runs],
            lambda v: f"{v:.0%}",
            "",
            None,
        ),
        ("private answer p50", [f.percentile(0.5, "answer") for f in runs], _ms, "", None),
        ("private answer p99", [f.percentile(0.99, "answer") for f in runs], _ms, "", None),
        ("longest garbage-collector pause", [f.gc_pause for f in runs], _ms, "", None),
        ("a sweep's full pass (bot/heap.py)", [f.sweep for f in runs], _ms, "", None),
    ]
    if first.passes is not None:
        passes = [f.passes for f in runs if f.passes is not None]
        rows += [
            _under_stall_target(
                "longest stall, the players' part left out", [f.stall_bot for f in runs]
            ),
            (
                "the players' share of the loop's CPU",
                [p.players_part / f.loop_cpu for f in runs if (p := f.passes)],
                lambda v: f"{v:.0%}",
                "",
                None,
            ),
        ]
        if all(p.timed for p in passes):  # asyncio's own loop: its passes were timed
            rows += [
                ("longest loop pass", [p.longest for p in passes], _ms, "", None),
                _under_stall_target(
                    "longest loop pass, the players' part left out",
                    [p.longest_bot for p in passes],
                ),
                (
                    "  of which the loop's thread was on the CPU",
                    [p.longest_bot_cpu for p in passes],
                    _ms,
                    "",
                    None,
                ),
            ]
    rows.append(
        (
            "the loop's CPU per action (deals included)",
            [f.loop_cpu / f.actions for f in runs],
            _ms,
            "",
            None,
        )
    )
    if first.passes is not None:
        rows.append(
            (
                "the loop's CPU per action, the players' part left out",
                [(f.loop_cpu - p.players_part) / f.actions for f in runs if (p := f.passes)],
                _ms,
                "",
                None,
            )
        )
    rows += [
        (
            "requests per action",
            [f.requests / f.actions for f in runs],
            lambda v: f"{v:.2f}",
            "",
            None,
        ),
        (
            "X: global-limited requests per action",
            [f.x for f in runs],
            lambda v: f"{v:.2f}",
            f"<= {TARGET_X}",
            lambda v: v <= TARGET_X,
        ),
        (
            "tables per token (3 x 0.7 x 50 / X)",
            [f.capacity for f in runs],
            lambda v: f"{v:,.0f}",
            "",
            None,
        ),
        (
            "table edits per action",
            [f.edits / f.actions for f in runs],
            lambda v: f"{v:.2f}",
            f"<= {TARGET_EDITS}",
            lambda v: v <= TARGET_EDITS,
        ),
        ("hands per minute", [f.hands_per_minute for f in runs], lambda v: f"{v:,.0f}", "", None),
    ]
    if not first.in_process:
        rows[-1:-1] = [
            ("429s of the global limit", [f.global_429 for f in runs], _count, "", None),
            ("429s of a route's bucket", [f.route_429 for f in runs], _count, "", None),
        ]
    print(
        f"\n{first.tables} tables, {first.hands // first.tables} hands each, REST latency "
        f"{low * 1000:.0f}-{high * 1000:.0f} ms per call; "
        + (
            f"players think {think:g} s on average first; "
            if think
            else "no thinking at all (the loop saturated); "
        )
        + f"{len(runs)} run(s)"
    )
    table = [("metric", "median", "min-max over runs", "target", "met?")]
    for name, values, fmt, target, ok in rows:
        spread = f"{fmt(min(values))} - {fmt(max(values))}"
        table.append(
            (name, fmt(statistics.median(values)), spread, target, _met(values, ok) if ok else "")
        )
    widths = [max(len(r[i]) for r in table) for i in range(5)]
    line = "| " + " | ".join(f"{{:<{w}}}" for w in widths) + " |"
    print(line.format(*table[0]))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in table[1:]:
        print(line.format(*row))
    print("\nrequests per action by route (median over runs; channel = under the global limit)")
    kinds = sorted({k for f in runs for k in f.routes})
    for k in kinds:
        per = [f.routes.get(k, 0) / f.actions for f in runs]
        print(f"  {k:<32} {statistics.median(per):.3f}  ({min(per):.3f} - {max(per):.3f})")
    if first.in_process:
        print(
            "The harness (fake Discord) and the players run on the bot's event loop: the "
            "stall and initial-response figures include their work."
        )
    else:
        print(
            "The fake Discord's REST side ran in its own process (real HTTP, Discord's rate "
            "limits); the gateway payloads and the players still run on the bot's loop."
            + (f" Pinned: {first.pinned}." if first.pinned else " Not pinned to CPUs.")
        )


async def main_async(
    args: argparse.Namespace, directory: Path, server_cpus: set[int] | None = None
) -> list[Figures]:
    latency = (args.latency[0], args.latency[1])
    runs = []
    for i in range(args.runs):
        runs.append(
            await run_once(
                args.tables,
                args.hands,
                args.seed + i,
                latency,
                directory,
                args.think,
                args.in_process,
                server_cpus,
                Passes() if args.attribute else None,
                args.stagger,
            )  # fmt: skip
        )
    report(runs, latency, args.think)
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--tables", type=int, default=200, help="concurrent tables")
    parser.add_argument("--hands", type=int, default=2, help="hands played at each table")
    parser.add_argument("--runs", type=int, default=3, help="runs, for the spread")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--think", type=float, default=1.0,
        help="mean seconds a player thinks before each move (default 1; 0: no thinking at "
        "all, the loop saturated)",
    )  # fmt: skip
    parser.add_argument(
        "--latency", type=float, nargs=2, default=(0.1, 0.3), metavar=("LOW", "HIGH"),
        help="seconds each REST call takes (uniform between LOW and HIGH)",
    )  # fmt: skip
    parser.add_argument(
        "--in-process", action="store_true",
        help="the fake Discord on the bot's event loop (as before), to compare",
    )  # fmt: skip
    parser.add_argument(
        "--no-pin", action="store_true",
        help="let the bot and the out-of-process fake Discord share every CPU (by default "
        "the fake gets the last CPU to itself and the bot the others, as Discord runs on "
        "other machines)",
    )  # fmt: skip
    parser.add_argument(
        "--stagger", type=float, default=1.0,
        help="seconds over which the tables' first moves are spread (uniformly; default 1): "
        "with 0 every table moves in the same instant at the start, a burst no server sees",
    )  # fmt: skip
    parser.add_argument(
        "--attribute", action="store_true",
        help="also time each pass of the event loop and leave out the players' part: the "
        "longest pass of the bot's own callbacks (see Passes)",
    )  # fmt: skip
    parser.add_argument(
        "--loop", choices=("asyncio", "uvloop"), default="asyncio",
        help="the bot's event loop",
    )  # fmt: skip
    args = parser.parse_args()
    server_cpus = None if args.in_process else pin(not args.no_pin)
    with tempfile.TemporaryDirectory() as directory:
        if args.loop == "uvloop":
            import uvloop

            uvloop.run(main_async(args, Path(directory), server_cpus))
        else:
            asyncio.run(main_async(args, Path(directory), server_cpus))


if __name__ == "__main__":
    main()
