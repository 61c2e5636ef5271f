"""The computer players' hands at practice tables: they act through the manager's door.

The table service's post-step hook tells the driver (``schedule``) whenever a
computer player is to act, after every kind of step: a deal, an action, a reload,
a restore or a take-over. The driver waits a human-like pause, takes that seat's
observation (its own view and the public history only: ``bot.opponents.observe``),
asks its strategy off the event loop, and submits the move with
``TableManager.act`` exactly as a click would, with the turn and hand it saw, so
the move is checked, written ahead and replayable like any other; a stale one is
refused like a stale button. Should the move never come, the turn's deadline makes
it (``bot.tables.timers``): a computer player's turn never hangs.

The driver also watches each table's public events (every action as the table shows
it, and what a showdown showed) and keeps, per table and in memory, what each player
has shown in earlier hands (``bot.opponents.profiles``); ``normal`` and ``hard`` adapt
to it, and so does a move their turn's deadline makes (``bot.tables.hooks``).
The profiles start over whenever the seats change, and go with the table.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import random
import secrets
from typing import TYPE_CHECKING

from bot.engine import ActionKind
from bot.engine.cards import format_cards
from bot.metrics import METRICS
from bot.opponents import Profile, PublicAction, Strategy, record
from bot.tables import supervise
from bot.tables.models import EventKind, Refused, TableEvent
from bot.tables.steps import BotTurn

if TYPE_CHECKING:
    from bot.tables.manager import TableManager

log = logging.getLogger(__name__)
_MAX_BACKOFF = 60.0  # seconds between tries of a move that failed


class PracticeDriver:
    def __init__(
        self, manager: TableManager, *, pause: float = 1.5, rng: random.Random | None = None
    ) -> None:
        self.manager = manager
        self.pause = pause  # seconds before a computer player acts (0 in tests)
        self.rng = rng or secrets.SystemRandom()
        self._tasks: set[asyncio.Task[None]] = set()
        self._pending: set[tuple[int, int, int]] = set()  # (channel, hand, turn) scheduled
        self._profiles: dict[int, dict[str, Profile]] = {}  # channel -> player -> profile
        self._moves: dict[int, list[PublicAction]] = {}  # channel -> this hand's actions
        manager.hooks.serve_bots(self.schedule, self.profiles)  # the manager's calls out
        manager.subscribe(self.saw)

    def profiles(self, channel_id: int) -> dict[str, Profile]:
        """What the players at this table have shown in its earlier hands."""
        return self._profiles.get(channel_id, {})

    def saw(self, event: TableEvent) -> None:
        """Count a table's public event into its profiles (a listener: never waits)."""
        channel = event.view.channel_id
        move = event.move
        if event.kind in (EventKind.ACTION, EventKind.TIMEOUT) and move is not None:
            drew = move.count if move.action == ActionKind.DISCARD else None
            action = PublicAction(move.player, move.action, drew=drew, source=move.source)
            self._moves.setdefault(channel, []).append(action)
        elif event.kind == EventKind.DEALT:
            self._moves[channel] = []
        elif event.kind == EventKind.FINISHED:
            shown = event.result.shown if event.result is not None else None
            moves = self._moves.pop(channel, [])
            self._profiles[channel] = record(self.profiles(channel), moves, shown)
        elif event.kind in (
            EventKind.SEATED,
            EventKind.LEFT,
            EventKind.KICKED,
            EventKind.CLOSED,
            EventKind.REFRESHED,
        ):
            # New faces, or a reload that may have missed actions: start over.
            self._profiles.pop(channel, None)
            self._moves.pop(channel, None)

    def schedule(self, turn: BotTurn) -> None:
        """A computer player is to act (called by the post-step hook; never waits)."""
        key = (turn.channel_id, turn.hand_id, turn.turn)
        if key in self._pending:
            return  # already on its way (a join or a refresh during its pause)
        self._pending.add(key)
        supervise.spawn(self._play(turn), f"computer player's move at {key}", self._tasks)

    def resume(self) -> None:
        """Start every computer player whose turn it is (the hook does this already after
        a restore; kept for callers that attach a driver to a running manager)."""
        self.manager.wake_bots()

    async def _play(self, turn: BotTurn) -> None:
        try:
            await self._move(turn)
        finally:
            self._pending.discard((turn.channel_id, turn.hand_id, turn.turn))

    async def _move(self, turn: BotTurn) -> None:
        delay = self.pause
        backoff = supervise.Backoff(max(self.pause, 0.05) * 2, _MAX_BACKOFF)
        while True:  # until the move is made, refused, or its turn has passed
            if delay > 0:
                await asyncio.sleep(delay)
            try:
                await self._try_move(turn)
                return
            except Refused as exc:  # a race with a close or its deadline
                log.info("computer player at %s could not act: %s", turn.channel_id, exc)
                return
            except Exception:
                # A failed move (the database busy or away, or deciding it failed) is
                # tried again; its turn's deadline makes it if it never succeeds.
                METRICS.computer_failures.inc()
                delay = backoff.failed()
                log.exception(
                    "ALERT computer player at %s failed (try %d); again in %.3g s",
                    turn.channel_id,
                    backoff.failures,
                    delay,
                )

    async def _try_move(self, turn: BotTurn) -> None:
        """Decide and submit the move, unless its turn has passed (its deadline, a
        restart, a closed table)."""
        seen = self.manager.observation(turn.channel_id, turn.user_id, turn.hand_id, turn.turn)
        if seen is None:
            return
        seen = dataclasses.replace(seen, profiles=self.profiles(turn.channel_id))
        strategy = Strategy(turn.level, self.rng)
        move = await asyncio.to_thread(strategy.decide, seen)  # pure: off the loop
        await self.manager.act(
            turn.channel_id,
            turn.user_id,
            move.action,
            cards=format_cards(move.cards) if move.cards is not None else None,
            source=move.source,
            turn=turn.turn,
            hand_id=turn.hand_id,
        )

    async def settle(self) -> None:
        """Wait until no computer player's move is pending (tests, with no pause)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
