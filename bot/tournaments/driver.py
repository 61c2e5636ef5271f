"""Sit & Gos on the tables: opens a started tournament's table, gives each hand the
level's stakes, counts every finished hand for the tournament and closes the table
at the end; speaks no English and no Discord.

The driver is the table service's ``TournamentHooks`` (``bot.tables.tournament_mode``):
the tables call ``header`` when they deal and ``settled`` inside a hand's settlement
step, so a hand is counted before it is settled, and a retried settlement counts it
again as a no-op (the repository keeps the last hand counted). It drives the tables
through ``TableManager``'s public methods only, as the practice driver does.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import replace
from typing import Any

from bot.engine.cards import Card
from bot.engine.record import HandRecord, new_header
from bot.engine.stakes import Stakes
from bot.storage.tournaments import TournamentRow
from bot.tables import supervise
from bot.tables.manager import TableManager
from bot.tables.models import Code, EventKind, Refused, SeatState, TableEvent, TableView
from bot.tables.tournament_mode import LevelView
from bot.tournaments.service import HandCounted, SngRefused, TournamentService

log = logging.getLogger(__name__)
Ended = Callable[[TournamentRow, HandCounted], None]
CLOCK_TICK = 5.0  # seconds between keeps of the level clocks' elapsed time


class TournamentDriver:
    def __init__(self, manager: TableManager, service: TournamentService) -> None:
        self.manager = manager
        self.service = service
        self._running: dict[int, TournamentRow] = {}  # tournament id -> its row at the start
        self._tasks: set[asyncio.Task[None]] = set()
        self.ended: list[Ended] = []  # told when a tournament ends (the UI's summary)
        self.cancelled: list[Callable[[TournamentRow], None]] = []  # its table closed
        manager.hooks.serve_tournaments(self)  # its tables' stakes and counted hands
        manager.subscribe(self._saw)

    async def restore(self) -> int:
        """Know the running tournaments again (call before ``TableManager.start``)."""
        running = [t for t in await self.service.repo.open_tournaments() if t.status == "running"]
        multi = self.service.store.multi_tables  # multi-table ones: the MttDriver's
        self._running = {
            t.tournament_id: t for t in running if await multi.state(t.tournament_id) is None
        }
        return len(running)

    def running(self, tournament_id: int) -> TournamentRow | None:
        return self._running.get(tournament_id)

    async def begin(
        self, t: TournamentRow, channel_id: int, *, turn_timeout: float | None = None
    ) -> TableView:
        """Seat a started tournament's players at its table in ``channel_id``, with the
        seats and button drawn at the start, and deal its first hand. A practice Sit &
        Go's computer players sit as at practice tables (their level on their seat):
        the practice driver moves them."""
        entries = await self.service.repo.entries(t.tournament_id)
        seats = [
            SeatState(e.seat, e.user_id, e.display_name, bot=e.bot, stack=e.stack)
            for e in entries
            if e.place is None and e.seat is not None
        ]
        await self.service.repo.set_table(t.tournament_id, channel_id)
        t = replace(t, table_channel_id=channel_id)
        self._running[t.tournament_id] = t
        # the table moves the button one seat on before each deal: start one seat before
        button = None if t.button is None else t.button - 1
        mix = self.service.mix(t)
        await self.manager.open_tournament_table(
            t.guild_id,
            channel_id,
            t.variant,
            t.tournament_id,
            seats,
            button=button,
            turn_timeout=turn_timeout,
            rotation=mix.table_rotation() if mix else None,  # a mixed one counts its hands
        )
        return await self.manager.deal(channel_id)

    async def cancel(
        self, guild_id: int, tournament_id: int, user_id: int, *, moderator: bool
    ) -> TournamentRow:
        """Cancel (every fee back) and close its table, voiding a hand in play."""
        t = await self.service.cancel(guild_id, tournament_id, user_id, moderator=moderator)
        self._running.pop(tournament_id, None)
        if t.table_channel_id is not None and self.manager.has_table(t.table_channel_id):
            await self.manager.close_table(t.table_channel_id, user_id, moderator=True, force=True)
        return t

    def _saw(self, event: TableEvent) -> None:
        """A running tournament's table closed (a moderator, or its thread gone): the
        tournament is cancelled and every fee comes back."""
        if event.kind != EventKind.CLOSED:
            return
        for t in list(self._running.values()):
            if t.table_channel_id == event.view.channel_id:
                del self._running[t.tournament_id]
                self._spawn(self._cancel_closed(t))

    async def _cancel_closed(self, t: TournamentRow) -> None:
        try:
            await self.service.cancel(t.guild_id, t.tournament_id, 0, moderator=True)
        except SngRefused:
            return  # over or cancelled meanwhile
        for listener in self.cancelled:
            listener(t)

    # ----- the tables' hooks ------------------------------------------------

    def level(self, tournament_id: int) -> LevelView | None:
        t = self._running.get(tournament_id)
        if t is None:
            return None
        return self.service.level_view(t)

    def header(
        self,
        tournament_id: int,
        variant_id: str,
        seats: Sequence[tuple[str, int]],
        dealer: int,
        deck: Sequence[Card],
    ) -> HandRecord:
        t = self._running.get(tournament_id)
        if t is None:  # cancelled or over: the table deals no more
            raise Refused(Code.TABLE_BUSY)
        game = self.service.game(t, variant_id)  # a mixed tournament's may be the level's
        stakes = Stakes.from_json(game, self.service.stakes(t, game).stakes_json())
        self._spawn(self.service.save_clock(tournament_id))  # the clock as the hand is dealt
        return new_header(game, seats, dealer, deck, stakes=stakes, allin=True)

    async def settled(
        self,
        tournament_id: int,
        hand_id: int,
        started: Mapping[int, int],
        after: Mapping[int, int],
        *,
        actions: int,
        button: int | None,
    ) -> None:
        t = self._running.get(tournament_id)
        if t is None:
            return  # cancelled meanwhile: nothing to count
        try:
            counted = await self.service.hand_finished(
                tournament_id, hand_id, started, after, actions=actions, button=button
            )
        except SngRefused:  # cancelled or over meanwhile
            return
        if counted.final is None:
            return
        del self._running[tournament_id]
        for listener in self.ended:
            listener(t, counted)
        if t.table_channel_id is not None:  # after this step: the winner's table closes
            self._spawn(self._close(t.table_channel_id))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def tick(self) -> None:
        """Keep every running tournament's elapsed time (a restart loses at most the
        time since the last tick, the last deal or the last hand's end)."""
        for tournament_id in list(self._running):
            try:
                await self.service.save_clock(tournament_id)
            except Exception:  # the next tick tries again
                log.exception("could not keep the clock of tournament %d", tournament_id)

    async def run_clock(self, interval: float = CLOCK_TICK) -> None:
        """Tick until cancelled (the bot runs it as a task); a failed tick is logged and
        the clock goes on (``supervise.forever``)."""
        await supervise.forever("the Sit & Go level clock", self.tick, every=interval)

    async def _close(self, channel_id: int) -> None:
        try:
            await self.manager.close_table(channel_id, 0, moderator=True)
        except Refused:
            log.info("the table of a finished tournament in %d was closed already", channel_id)

    async def wait_closed(self) -> None:
        """Wait for the tables of finished tournaments to close (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks))
