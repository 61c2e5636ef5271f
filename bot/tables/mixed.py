"""Mixed tables' service: open one with its rotation, and the dealer's choice with its time.

The rotation itself is ``rotation.py``'s pure value; the deal moves it (``play.py``).
Here: opening a mixed table, the chooser's pick, and the choice's time limit. When
a hand ends a block of a dealer's-choice table, the player the button goes to next
has the table's turn time to pick the next game; when it runs out, the next game in
the list is taken (as Poker Mavens does) and the automatic deal, if on, goes on.
A restart gives the chooser a fresh turn time.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Sequence

from .models import Code, EventKind, Refused, TableEvent, TableView
from .rotation import Rotation
from .seating import Seating
from .steps import Steps
from .table import Table, table_row

log = logging.getLogger(__name__)
POLL = 1.0  # seconds between looks at the clock while a choice is awaited (a jump too)


class Mixing:
    def __init__(self, steps: Steps, seating: Seating, then: Callable[[Table], None]) -> None:
        self.steps = steps
        self.store = steps.store
        self.seating = seating
        # what happens after a hand otherwise (the automatic deal): after the choice here
        self._then = then
        self._chosen_now: dict[int, asyncio.Event] = {}  # channel -> its timer's wake-up

    async def open_mixed(
        self,
        guild_id: int,
        channel_id: int,
        games: Sequence[str],
        kind: str,
        every: int | None = None,
        seat_limit: int | None = None,
        turn_timeout: float | None = None,
        auto_deal: bool | None = None,
        opener: int | None = None,
    ) -> TableView:
        """Open a table rotating ``games`` (refused, changing nothing, for an unknown
        game or kind, a one-game mix or ``every`` out of range)."""
        rotation = Rotation.make(kind, games, every)
        return await self.seating.open_table(
            guild_id,
            channel_id,
            rotation.games[0],
            seat_limit,
            turn_timeout,
            auto_deal,
            opener,
            rotation=rotation,
        )

    async def choose(self, channel_id: int, user_id: int, game: str) -> TableView:
        """The chooser picks the game of the next block (dealer's choice)."""
        table = self.steps.table(channel_id)
        async with self.steps.step(table) as step:
            rotation = table.rotation
            if rotation is None:
                raise Refused(Code.NOT_MIXED)
            if table.hand is not None or not rotation.awaiting_choice:
                raise Refused(Code.NO_CHOICE_NOW)
            deadline = table.choice_deadline
            if deadline is not None and self.steps.clock() >= deadline:
                raise Refused(Code.NO_CHOICE_NOW, late=True)  # the default is being taken
            chooser = table.chooser()
            if chooser is None or chooser.user_id != user_id:
                raise Refused(
                    Code.NOT_CHOOSER,
                    chooser=chooser.user_id if chooser else None,
                    name=chooser.name if chooser else None,
                )
            await self._take(table, rotation.choose(game, chooser.seat))
            step.emit(self._chosen(table, chooser.user_id, chooser.name, game))
        self._after_choice(table)
        return table.view()

    # ----- the choice's time ----------------------------------------------------

    def hand_over(self, table: Table) -> None:
        """A step finished a hand: a dealer's choice first, then what follows otherwise."""
        if self.open_window(table):
            return  # the deal waits for the choice
        self._then(table)

    def open_window(self, table: Table) -> bool:
        """If the table awaits a person's choice, give them the turn time to make it
        (a timer takes the default then); False if no choice is awaited."""
        chooser = table.chooser()
        if chooser is None or chooser.bot:
            return False
        deadline = table.choice_deadline = self.steps.clock() + table.settings.turn_timeout
        self.steps.spawn(self._time_out(table, deadline), "the dealer's choice time limit")
        return True

    def open_windows(self) -> None:
        """Open the choice windows of restored tables (a restart gives a fresh one)."""
        for table in list(self.steps.tables.values()):
            if table.choice_deadline is None:
                self.open_window(table)

    async def _time_out(self, table: Table, deadline: float) -> None:
        # by the table's clock, looked at again at least every POLL seconds; a choice
        # made meanwhile ends the wait at once
        chosen = self._chosen_now[table.channel_id] = asyncio.Event()
        while (wait := deadline - self.steps.clock()) > 0:
            with contextlib.suppress(TimeoutError):  # (not wait_for: it can swallow a cancel)
                async with asyncio.timeout(min(wait, POLL)):
                    await chosen.wait()
            if chosen.is_set():
                return
        if self.steps.tables.get(table.channel_id) is not table:
            return  # closed meanwhile
        try:
            async with self.steps.step(table) as step:
                rotation = table.rotation
                if (
                    rotation is None
                    or table.hand is not None
                    or not rotation.awaiting_choice
                    or table.choice_deadline != deadline
                ):
                    return  # chosen, or dealt with the default already
                chooser = table.chooser()
                game = rotation.upcoming
                await self._take(table, rotation.choose(game, chooser.seat if chooser else None))
                who = (chooser.user_id, chooser.name) if chooser else (None, None)
                step.emit(self._chosen(table, who[0], who[1], game, timeout=True))
        except Exception:
            log.exception("dealer's choice at %s not timed out", table.channel_id)
            return
        self._after_choice(table)

    async def _take(self, table: Table, rotation: Rotation) -> None:
        """Store the rotation with its choice, then make the table that game."""
        table.rotation, before = rotation, table.rotation
        try:
            await self.store.tables.save_table(table_row(table))
        except BaseException:
            table.rotation = before
            raise
        table.choice_deadline = None
        table.show_next_game()
        if (waiting := self._chosen_now.pop(table.channel_id, None)) is not None:
            waiting.set()

    def _chosen(
        self,
        table: Table,
        user_id: int | None,
        name: str | None,
        game: str,
        timeout: bool = False,
    ) -> TableEvent:
        params = {"user_id": user_id, "name": name, "game": game, "timeout": timeout}
        return TableEvent(EventKind.CHOSEN, table.view(), params)

    def _after_choice(self, table: Table) -> None:
        if self.steps.tables.get(table.channel_id) is table:
            self._then(table)  # the automatic deal, if the table has it
