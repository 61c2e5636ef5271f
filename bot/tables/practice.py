"""The computer players' hands at practice tables: they act through the manager's door.

``PracticeDriver`` listens to table events; when a computer player is to act it waits
a human-like pause, builds that seat's observation (its own view and the public
history only: ``bot.opponents.observe``), asks its strategy, and submits the move
with ``TableManager.act`` exactly as a click would, with the turn and hand it saw,
so the move is checked, written ahead and replayable like any other; a stale one is
refused like a stale button. Computer players never time out (the manager skips
them); after a restart ``resume`` picks up any table where one is to act.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets

from bot.engine.cards import format_cards
from bot.opponents import Strategy, observe

from .manager import TableManager
from .models import Refused, TableEvent

log = logging.getLogger(__name__)
_TURN_EVENTS = ("dealt", "action", "timeout", "kicked")
_MAX_BACKOFF = 60.0  # seconds between tries of a move that failed


class PracticeDriver:
    def __init__(
        self, manager: TableManager, *, pause: float = 1.5, rng: random.Random | None = None
    ) -> None:
        self.manager = manager
        self.pause = pause  # seconds before a computer player acts (0 in tests)
        self.rng = rng or secrets.SystemRandom()
        self._tasks: set[asyncio.Task[None]] = set()
        manager.subscribe(self.on_event)

    def on_event(self, event: TableEvent) -> None:
        if event.kind in _TURN_EVENTS:
            self.kick(event.view.channel_id)

    def resume(self) -> None:
        """Start every computer player whose turn it is (after a restart)."""
        for channel_id in list(self.manager.tables):
            self.kick(channel_id)

    def kick(self, channel_id: int) -> None:
        table = self.manager.tables.get(channel_id)
        if table is None or table.hand is None or table.hand.complete:
            return
        view = table.view()
        user = view.to_act_user
        seat = table.seat_of(user) if user is not None else None
        if seat is None or seat.bot is None or table.hand_id is None:
            return
        task = asyncio.get_running_loop().create_task(
            self._play(channel_id, seat.user_id, seat.bot, table.hand_id, view.turn)
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _play(
        self, channel_id: int, user_id: int, level: str, hand_id: int, turn: int
    ) -> None:
        delay = self.pause
        attempt = 0
        while True:  # until the move is made, refused, or its turn has passed
            attempt += 1
            if delay > 0:
                await asyncio.sleep(delay)
            table = self.manager.tables.get(channel_id)
            hand = table.hand if table else None
            if (
                table is None
                or hand is None
                or table.hand_id != hand_id
                or len(hand.actions) != turn
            ):
                return  # the turn has passed (a restart, a closed table)
            move = Strategy(level, self.rng).decide(observe(hand, str(user_id)))
            try:
                await self.manager.act(
                    channel_id,
                    user_id,
                    move.action,
                    cards=format_cards(move.cards) if move.cards is not None else None,
                    source=move.source,
                    turn=turn,
                    hand_id=hand_id,
                )
                return
            except Refused as exc:  # a race with a forced close or a restart: nothing to do
                log.info("computer player at %s could not act: %s", channel_id, exc)
                return
            except Exception:
                # Computer players never time out, so a failed move (the database busy or
                # away) is tried again: nobody's hand may wait on it for ever.
                log.exception("ALERT computer player at %s failed (try %d)", channel_id, attempt)
                delay = min(_MAX_BACKOFF, max(self.pause, 0.05) * 2**attempt)

    async def settle(self) -> None:
        """Wait until no computer player's move is pending (tests, with no pause)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
