"""A multi-table tournament played to a winner through the fake Discord (issue 37 item 6).

The production bot (``bot.client.PokerBot`` on a SQLite file in a temp directory) talks
real HTTP to the fake Discord's REST side in its own process (``fakediscord.remote``, with
Discord's rate limits), as ``bench/discord.py`` does and with its machinery; ``--in-process``
runs the fake on the bot's loop instead. One user creates a six-handed ``a5-triple``
tournament with ``/mtt create`` (turbo, the smallest stack), ``--entrants`` users (1,000 by
default) register with the registration message's button: no latency, not measured. Then
every REST call takes ``--latency`` (default 100-300 ms), the tournament starts (the last
registration reaches the cap, or ``/mtt start``), and the driver deals the tables, each a
thread. A scripted player to act at each table thinks (exponential, mean ``--think``
seconds, default 0.1: fast) and moves: by the table message's button when "Discord" shows
it for this turn, else by slash command (a draw with cards always by command), a random
legal move (``bench.tables.choose``). Levels last ``--level`` seconds of the bot's clock
(default 20: fast levels), so the stakes rise and the field shrinks. Printed:

* wall time from the start to the winner, hands, actions;
* the event loop's longest stall (``LagMonitor``: a 5 ms sleep's overshoot), and split by
  what happened within a second before it: a table broken, a level's first hands, a
  player moved, or plain play (target under 50 ms);
* X, the global-limited (channel-route) requests per action (target <= 0.3), and all
  requests per action by route;
* interaction initial-response p50 / p99 (the bot's first answer to each click/command);
* the process's peak memory (max RSS);
* chips conserved: after every counted hand, move and break a checker reads the entries'
  stacks through the store (``store.tournaments.entries``): their sum must be entrants x
  stack, every time; at the end the prizes must add up to the pool.

    nice -n 10 .venv/bin/python bench/mtt_discord.py [--entrants 1000] [--seed 1]
        [--latency 0.1 0.3] [--think 0.1] [--level 20] [--in-process]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import resource
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if not __package__:  # run as `python bench/mtt_discord.py`: as bench/discord.py does
    here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != here]
    sys.path.insert(0, str(here.parent))

import discord  # noqa: E402

from bench.discord import (  # noqa: E402
    STUCK,
    TARGET_P99,
    TARGET_STALL,
    TARGET_X,
    LagMonitor,
    _finished,
    _progress,
    _stored,
    kind,
)
from bench.loop_sampler import LoopSampler  # noqa: E402
from bench.tables import choose  # noqa: E402
from bot.client import PokerBot  # noqa: E402
from bot.heap import freeze_heap, stop_freezing  # noqa: E402
from bot.settings import Settings  # noqa: E402
from bot.tables.models import EventKind, TableEvent  # noqa: E402
from bot.tables.table import Table  # noqa: E402
from bot.tournaments import structures  # noqa: E402
from bot.tournaments.multi_table import PAYABLE  # noqa: E402
from bot.tournaments.structures import Speed  # noqa: E402
from fakediscord.harness import DiscordHarness, make_member, users  # noqa: E402
from fakediscord.poker import GUILD, TABLE, uid  # noqa: E402
from fakediscord.remote import RemoteHarness  # noqa: E402

VARIANT = "a5-triple"
SEATS = 6
FEE = 10
#: a stall within this long after something happened is filed under it (s)
NEAR = 1.0
#: the benchmark's own coroutines (``--attribute`` counts their callbacks apart)
BENCH_CODE = frozenset({"_play_table", "run_once", "run_once.<locals>.check_chips", "StallLog.run"})
#: how long a player waits for the table message to show their turn's buttons (s)
LOOK = 2.0
CREATOR_PERMISSIONS = discord.Permissions(
    view_channel=True, send_messages=True, use_application_commands=True, manage_channels=True
)


@dataclass
class Tally:
    """What the players did, and what happened around them (loop times)."""

    actions: int = 0
    clicks: int = 0
    refused: int = 0
    refusals: Counter[str] = field(default_factory=Counter)  # the refusals' texts
    tokens: list[str] = field(default_factory=list)
    happened: list[tuple[float, str]] = field(default_factory=list)  # (loop time, what)
    checks: int = 0  # conservation checks made
    hands: int = 0  # hands finished at the tournament's tables
    tables_seen: set[int] = field(default_factory=set)


class StallLog(LagMonitor):
    """``LagMonitor`` that also keeps each overshoot over 10 ms with its loop time, and
    notes the first moment of each new level."""

    def __init__(self, level_of: Any, tally: Tally, sampler: LoopSampler | None = None) -> None:
        super().__init__()
        self.stalls: list[tuple[float, float]] = []  # (loop time at its end, overshoot)
        self._level_of, self._tally, self._level = level_of, tally, 0
        # with --attribute: the players' callbacks are left out of each overshoot
        # (``longest_bot``), and ``stalls`` and ``by_cause`` are the bot's part
        self._sampler = sampler

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while not self._stop:
            start = loop.time()
            players = self._sampler.players_part if self._sampler else 0.0
            await asyncio.sleep(self.interval)
            now = loop.time()
            overshoot = now - start - self.interval
            self.longest = max(self.longest, overshoot)
            if self._sampler is not None:
                overshoot = max(0.0, overshoot - (self._sampler.players_part - players))
                self.longest_bot = max(self.longest_bot, overshoot)
            if overshoot > 0.010:
                self.stalls.append((now, overshoot))
            level = self._level_of()
            if level is not None and level != self._level:
                self._level = level
                self._tally.happened.append((now, "a new level"))

    def by_cause(self) -> dict[str, float]:
        """The longest stall by what happened within ``NEAR`` s before it (the rarest cause
        first: a break over a move over a new level over plain play)."""
        order = ("a table broken", "a player moved", "a new level")
        worst: dict[str, float] = dict.fromkeys((*order, "plain play"), 0.0)
        times = sorted(self._tally.happened)
        for at, stall in self.stalls:
            near = {what for t, what in times if at - stall - NEAR <= t <= at}
            cause = next((c for c in order if c in near), "plain play")
            worst[cause] = max(worst[cause], stall)
        return worst


@dataclass
class Figures:
    entrants: int
    tables: int
    seconds: float
    tally: Tally
    ack: list[float]
    stall: float
    stall_bot: float  # with --attribute: the players' callbacks left out (else = stall)
    stall_by: dict[str, float]
    routes: dict[str, int]
    requests: int
    peak_mb: float
    winner: str
    in_process: bool
    global_429: int = 0
    sampler: LoopSampler | None = None  # with --attribute

    @property
    def limited(self) -> int:
        return sum(n for k, n in self.routes.items() if k.startswith("channel"))

    @property
    def x(self) -> float:
        return self.limited / max(1, self.tally.actions)

    def percentile(self, q: float) -> float:
        ordered = sorted(self.ack) or [0.0]
        return ordered[min(len(ordered) - 1, int(len(ordered) * q))]


class FastClock:
    """The bot's clock, running ``rate`` times faster than the wall clock: levels, and the
    per-user rate limits (20 table moves per 15 s), pass that much faster."""

    def __init__(self, rate: float) -> None:
        self.rate, self.start = rate, time.time()

    def __call__(self) -> float:
        return self.start + (time.time() - self.start) * self.rate


def mtt_bot(path: Path, seed: int, level: float, rate: float) -> PokerBot:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_path=path, turn_timeout=3600, next_hand_delay=0
    )
    return PokerBot(
        settings,
        rng=random.Random(seed),
        clock=FastClock(rate),
        level_seconds={s: level for s in Speed},
    )


async def _move(
    h: DiscordHarness, channel: int, by_id: dict[int, dict[str, Any]], rng: random.Random,
    stored: asyncio.Event, tally: Tally,
) -> None:  # fmt: skip
    """The player to act's random legal move at ``channel``, until it is stored (a refused
    one is made again by command)."""
    manager = h.bot.manager  # type: ignore[attr-defined]
    table: Table = manager.table(channel)
    loop = asyncio.get_running_loop()
    by_command = False
    while True:
        stored.clear()
        before = _progress(table)
        view = manager.view(channel)
        if view.hand is None or view.to_act_user is None:
            return  # between hands: the driver deals
        player = by_id[view.to_act_user]
        mine = manager.my_hand(channel, view.to_act_user)
        move = choose(mine.decision, rng)
        suffix, action = f"{view.hand_id}:{view.turn}", move["action"]
        options: dict[str, Any] = {}
        if action == "discard":
            cards = " ".join(move["cards"])
            button = "" if cards else f"pk:{channel}:pat:{suffix}"
            options = {"cards": cards} if cards else {}
        else:
            button = f"pk:{channel}:{action}:{suffix}"
        message_id = h.bot.presenter.message_id(channel)  # type: ignore[attr-defined]
        shown, component = None, None
        look_until = loop.time() + LOOK
        while message_id and button and not by_command:  # people click what they see
            shown = await h.fetch_message(message_id)
            component = shown.component(button)
            if component is not None or loop.time() > look_until or _progress(table) != before:
                break
            await asyncio.sleep(0.1)
        if _progress(table) != before:
            continue  # the turn timer or a refusal's retry moved the table meanwhile
        if shown is not None and component is not None and not component.get("disabled"):
            reply = h.send_click(player, shown, button)
            tally.clicks += 1
        else:
            reply = h.send_slash(player, channel, f"{VARIANT} {action}", **options)
        tally.tokens.append(reply.token)
        if await _stored(h, table, before, reply.token, stored, loop.time() + STUCK):
            tally.actions += 1
            return
        tally.refused += 1
        tally.refusals[str((await h.fetch_reply(reply.token)).content)[:80]] += 1
        by_command = True
        if not manager.has_table(channel):
            return


async def _play_table(
    h: DiscordHarness, channel: int, by_id: dict[int, dict[str, Any]], rng: random.Random,
    stored: asyncio.Event, tally: Tally, think: float,
) -> None:  # fmt: skip
    """Play every turn at one table until it closes (broken, or the tournament over)."""
    manager = h.bot.manager  # type: ignore[attr-defined]
    while manager.has_table(channel):
        view = manager.view(channel)
        if view.closed:
            return
        if view.hand is None or view.to_act_user is None:
            stored.clear()
            try:
                async with asyncio.timeout(1.0):
                    await stored.wait()  # the next deal, or the close
            except TimeoutError:
                pass
            continue
        if think:
            await asyncio.sleep(rng.expovariate(1 / think))
        if manager.has_table(channel):
            await _move(h, channel, by_id, rng, stored, tally)


async def run_once(*args: Any, **kwargs: Any) -> Figures:
    """``_run_once``, with the bot's garbage-collector policy undone after it (the suite
    runs it among other tests)."""
    try:
        return await _run_once(*args, **kwargs)
    finally:
        stop_freezing()
        gc.unfreeze()


async def _run_once(
    entrants: int,
    seed: int,
    latency: float | tuple[float, float],
    directory: Path,
    think: float = 0.1,
    level: float = 60.0,
    in_process: bool = False,
    rate: float = 10.0,
    attribute: bool = False,
    progress: float = 0.0,
) -> Figures:
    """Create, fill, start and play one tournament to a winner; check and measure."""
    people = users(entrants + 1)
    creator, players = people[0], people[1:]
    by_id = {uid(p): p for p in people}
    members = [make_member(creator, permissions=CREATOR_PERMISSIONS), *players]
    bot = mtt_bot(directory / f"mtt-{seed}.db", seed, level, rate)
    harness = DiscordHarness if in_process else RemoteHarness
    async with harness(bot, latency_seed=seed, settle_timeout=STUCK, keep_payloads=False) as h:
        await h.connect(GUILD, {TABLE: "poker"}, members)
        freeze_heap()  # the bot's garbage-collector policy, as `python -m bot` sets it
        stack = structures.smallest_stack(VARIANT)
        cap = entrants if entrants >= PAYABLE else entrants + 1
        created = await h.slash(
            creator, TABLE, "mtt create", game=VARIANT, table_size=SEATS, cap=cap,
            speed="turbo", stack=stack, fee=FEE,
        )  # fmt: skip
        assert "is open for registration" in created.content, created.content
        number = int(created.content.split("#")[1].split(" ")[0])
        store = bot.store
        registration = next(
            m
            for m in h.messages(TABLE, include_ephemeral=False)
            if f"Tournament #{number}:" in m.text
        )
        for p in players[:-1]:
            clicked = await h.click(p, registration, f"mtt:{number}:reg")
            assert "You are registered" in clicked.content, clicked.content

        tally = Tally()
        stored: dict[int, asyncio.Event] = {}
        loop = asyncio.get_running_loop()
        dirty = asyncio.Event()
        rngs = random.Random(seed)
        tasks: dict[int, asyncio.Task[None]] = {}
        broken: list[str] = []  # what went wrong: the run stops at the next look

        def on_event(event: TableEvent) -> None:  # called as each step is stored
            channel = event.view.channel_id
            if channel == TABLE:
                return
            stored.setdefault(channel, asyncio.Event()).set()
            if event.kind is EventKind.FINISHED:
                tally.hands += 1
                dirty.set()
            elif event.kind is EventKind.CLOSED and tasks:
                tally.happened.append((loop.time(), "a table broken"))
                dirty.set()
            if channel not in tasks and not event.view.closed:
                tally.tables_seen.add(channel)
                tasks[channel] = asyncio.create_task(
                    _play_table(
                        h,
                        channel,
                        by_id,
                        random.Random(rngs.random()),
                        stored[channel],
                        tally,
                        think,
                    ),  # fmt: skip
                    name=f"table-{channel}",
                )
                tasks[channel].add_done_callback(failed)

        def failed(task: asyncio.Task[None]) -> None:  # a player's error stops the run
            if not task.cancelled() and task.exception() is not None:
                broken.append(f"{task.get_name()}: {task.exception()!r}")

        def on_moved(row: Any, user: int, table_no: int, channel: int) -> None:
            tally.happened.append((loop.time(), "a player moved"))
            dirty.set()

        bot.manager.subscribe(on_event)
        bot.mtt_driver.moved.append(on_moved)
        total = entrants * stack
        done = False

        async def check_chips() -> None:
            """After each hand, move or break (those that came meanwhile read together)."""
            while not done:
                await dirty.wait()
                dirty.clear()
                stacks = sum(e.stack for e in await store.tournaments.entries(number))
                tally.checks += 1
                if stacks != total:
                    broken.append(f"chips {stacks:,} != {total:,} after {tally.hands} hands")

        checker = asyncio.create_task(check_chips())
        h.latency = latency
        first_request = (await h.limits())["log"]
        limits_before = (await h.limits())["counts"]
        sampler = LoopSampler(players=BENCH_CODE) if attribute else None
        monitor = StallLog(
            lambda: v.number if (v := bot.mtt_driver.level(number)) else None, tally, sampler
        )
        if sampler is not None:
            sampler.install()
        watching = asyncio.create_task(monitor.run())
        start = time.perf_counter()
        if cap == entrants:  # the last registration fills it: it starts
            last = h.send_click(players[-1], registration, f"mtt:{number}:reg")
        else:
            h.send_click(players[-1], registration, f"mtt:{number}:reg")
            await asyncio.sleep(0.5)
            last = h.send_slash(creator, TABLE, "mtt start")
        tally.tokens.append(last.token)
        shown_at = start
        while True:
            row = await store.tournaments.get(number)
            assert row is not None
            if row.status not in ("registering", "running"):
                break
            if time.perf_counter() - start > 3 * 3600:
                raise AssertionError("the tournament did not finish in 3 hours")
            assert not broken, broken
            if progress and time.perf_counter() - shown_at >= progress:
                shown_at = time.perf_counter()
                left = sum(1 for e in await store.tournaments.entries(number) if e.stack)
                bots = f" ({_ms(monitor.longest_bot)} the bot's)" if sampler else ""
                print(
                    f"{shown_at - start:7.0f} s: {tally.hands:,} hands, {tally.actions:,} "
                    f"actions, {left:,} players left on {len(bot.manager.channels(GUILD))} "
                    f"tables, longest stall {_ms(monitor.longest)}{bots}",
                    file=sys.stderr,
                    flush=True,
                )
            await asyncio.sleep(0.5)
        seconds = time.perf_counter() - start
        await bot.mtt_driver.wait_idle()
        await asyncio.gather(*tasks.values())
        assert await bot.presenter.drain(STUCK), "the presenters did not catch up"
        monitor.stop()
        await watching
        if sampler is not None:
            sampler.remove()
        done = True  # one last check, of the state the tournament ended in
        dirty.set()
        await checker
        await h.settle()
        h.assert_no_errors()
        assert row.status == "finished", row.status
        assert not broken, broken
        entries = await store.tournaments.entries(number)
        assert len(entries) == entrants and sum(e.stack for e in entries) == total
        places = [e.place for e in entries]
        assert places.count(1) == 1 and all(p is not None for p in places)
        assert sum(e.prize for e in entries) == entrants * FEE
        assert await store.tournaments.ledger_sums(number) == {
            "sng_fee": -entrants * FEE,
            "sng_prize": entrants * FEE,
        }
        assert not bot.manager.channels(GUILD), "a table is still open"
        replies = await h.fetch_replies(tally.tokens)
        assert all(_finished(r) for r in replies), "an interaction was never answered"
        sent = await h.fetch_log(first_request)
        counts = (await h.limits())["counts"]
        threads = {str(c) for c in tally.tables_seen}
        winner = next(e.display_name for e in entries if e.place == 1)
        return Figures(
            entrants=entrants,
            tables=len(tally.tables_seen),
            seconds=seconds,
            tally=tally,
            ack=[r.ack_latency for r in replies if r.ack_latency is not None],
            stall=monitor.longest,
            stall_bot=monitor.longest_bot if sampler else monitor.longest,
            stall_by=monitor.by_cause(),
            routes=dict(Counter(kind(tr, m, p, threads) for tr, m, p, _, _ in sent)),
            requests=len(sent),
            peak_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
            winner=winner,
            in_process=in_process,
            global_429=counts.get("global 429", 0) - limits_before.get("global 429", 0),
            sampler=sampler,
        )


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def report(f: Figures, latency: tuple[float, float], think: float, level: float) -> None:
    t = f.tally
    actions = max(1, t.actions)
    print(
        f"{f.entrants:,} entrants, six-handed {VARIANT}, {f.tables} tables; levels of "
        f"{level:g} s, REST latency {latency[0] * 1000:.0f}-{latency[1] * 1000:.0f} ms, "
        f"players think {think:g} s on average; fake Discord "
        + ("on the bot's loop" if f.in_process else "in its own process")
    )
    print(
        f"won by {f.winner} after {t.hands:,} hands, {t.actions:,} actions ({t.clicks:,} by "
        f"button, {t.refused} refused and made again), {f.seconds:.1f} s wall"
    )
    for text, n in t.refusals.most_common(5):
        print(f"  refused {n}x: {text}")
    rows = [
        ("wall time, start to winner", f"{f.seconds:.1f} s", "", ""),
        (
            "longest event-loop stall",
            _ms(f.stall),
            f"< {TARGET_STALL * 1000:.0f} ms",
            "yes" if f.stall < TARGET_STALL else "NO",
        ),
        *(
            [
                (
                    "  ... the benchmark's players left out",
                    _ms(f.stall_bot),
                    f"< {TARGET_STALL * 1000:.0f} ms",
                    "yes" if f.stall_bot < TARGET_STALL else "NO",
                )
            ]
            if f.sampler
            else []
        ),
        *(
            (f"  ... within {NEAR:g} s after {cause}", _ms(v), "", "")
            for cause, v in f.stall_by.items()
        ),
        (
            "X: global-limited requests per action",
            f"{f.x:.2f}",
            f"<= {TARGET_X}",
            "yes" if f.x <= TARGET_X else "NO",
        ),
        ("requests per action", f"{f.requests / actions:.2f}", "", ""),
        ("initial response p50", _ms(f.percentile(0.5)), "", ""),
        (
            "initial response p99",
            _ms(f.percentile(0.99)),
            f"< {TARGET_P99 * 1000:.0f} ms",
            "yes" if f.percentile(0.99) < TARGET_P99 else "NO",
        ),
        ("peak memory (max RSS)", f"{f.peak_mb:.0f} MB", "", ""),
        ("chips conserved (checks)", f"yes ({t.checks:,})", "every check", "yes"),
    ]
    if not f.in_process:
        after_x = next(i for i, r in enumerate(rows) if r[0].startswith("X:")) + 1
        rows.insert(after_x, ("429s of the global limit", f"{f.global_429:,}", "", ""))
    widths = [
        max(len(r[i]) for r in [("metric", "value", "target", "met?"), *rows]) for i in range(4)
    ]
    line = "| " + " | ".join(f"{{:<{w}}}" for w in widths) + " |"
    print(line.format("metric", "value", "target", "met?"))
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for row in rows:
        print(line.format(*row))
    if f.sampler is not None:
        print("\n" + "\n".join(f.sampler.report()))
    print("\nrequests per action by route (channel = under the global limit)")
    for k in sorted(f.routes):
        print(f"  {k:<32} {f.routes[k] / actions:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--entrants", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--latency", type=float, nargs=2, default=(0.1, 0.3), metavar=("LOW", "HIGH"),
        help="seconds each REST call takes (uniform between LOW and HIGH)",
    )  # fmt: skip
    parser.add_argument(
        "--think", type=float, default=0.1,
        help="mean seconds a player thinks before each move (default 0.1: fast)",
    )  # fmt: skip
    parser.add_argument(
        "--level", type=float, default=60.0,
        help="seconds of the bot's clock a level lasts (default 60)",
    )  # fmt: skip
    parser.add_argument(
        "--clock-rate", type=float, default=10.0,
        help="the bot's clock runs this many times faster than the wall clock (default 10)",
    )  # fmt: skip
    parser.add_argument("--in-process", action="store_true", help="the fake on the bot's loop")
    parser.add_argument(
        "--progress", type=float, default=0.0, metavar="SECONDS",
        help="print how far the tournament is every SECONDS of wall time (to stderr)",
    )  # fmt: skip
    parser.add_argument(
        "--attribute", action="store_true",
        help="time every loop callback and sample the long ones' stacks (bench/loop_sampler.py)",
    )  # fmt: skip
    args = parser.parse_args()
    latency = (args.latency[0], args.latency[1])
    with tempfile.TemporaryDirectory() as directory:
        figures = asyncio.run(
            run_once(
                args.entrants,
                args.seed,
                latency,
                Path(directory),
                args.think,
                args.level,
                args.in_process,
                args.clock_rate,
                args.attribute,
                args.progress,
            )  # fmt: skip
        )
    report(figures, latency, args.think, args.level / args.clock_rate)


if __name__ == "__main__":
    main()
