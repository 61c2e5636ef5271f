"""The table service's seating: open a table, join, leave, sit out, seat computer players.

Every request is one step (``Steps.step``): refused with a code and changing
nothing, or stored in one transaction and shown by the step's hook. Playing the
hand (deal, act, settle) is ``play.py``'s.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace

from bot.engine import VARIANTS
from bot.opponents import LEVELS

from .models import (
    Code,
    Done,
    EventKind,
    Outcome,
    Refused,
    SeatState,
    TableEvent,
    TableSettings,
    TableView,
)
from .play import SMALLEST_MINIMUM, Play
from .rotation import Rotation
from .steps import Steps
from .table import Table, seat_rows, table_row

TIMEOUT_RANGE = (5, 3600)  # seconds a player may be given to act


class Seating:
    def __init__(
        self,
        steps: Steps,
        play: Play,
        *,
        turn_timeout: float,
        next_hand_delay: float,
        claim: Callable[[int], Awaitable[bool]],
        max_tables: int | None = None,
    ) -> None:
        self.steps = steps
        self.store = steps.store
        self.play = play
        self.turn_timeout = turn_timeout
        self.next_hand_delay = next_hand_delay
        self._claim = claim  # may this process open tables in the guild? (recovery)
        self._opening = asyncio.Lock()  # check-then-insert of open_table is one step
        self.max_tables = max_tables  # per server, open tables at most (None: no cap)

    async def open_table(
        self,
        guild_id: int,
        channel_id: int,
        variant: str,
        seat_limit: int | None,
        turn_timeout: float | None,
        auto_deal: bool | None,
        opener: int | None,
        rotation: Rotation | None = None,
    ) -> TableView:
        """Open a table of ``variant``; with ``rotation``, a mixed table of its games
        (its first game is ``variant``; seats: the smallest maximum among them)."""
        v = VARIANTS.get(variant)
        if v is None:
            raise Refused(Code.UNKNOWN_GAME, game=variant, games=tuple(VARIANTS))
        async with self._opening:  # two opens in one channel: the second is refused
            existing = self.steps.tables.get(channel_id)
            if existing is not None:
                raise Refused(Code.TABLE_EXISTS, variant=existing.variant.id)
            fewest, most_seats = (
                (rotation.min_seats, rotation.seat_limit)
                if rotation
                else (v.min_seats, v.max_seats)
            )
            limit = most_seats if seat_limit is None else seat_limit
            if not fewest <= limit <= most_seats:
                games = rotation.games if rotation else (v.id,)
                raise Refused(
                    Code.BAD_SEATS,
                    variant=v.id,
                    games=games,
                    min=fewest,
                    max=most_seats,
                    given=limit,
                )
            low, high = TIMEOUT_RANGE
            if turn_timeout is not None and not low <= turn_timeout <= high:
                raise Refused(Code.BAD_TIMEOUT, min=low, max=high, given=turn_timeout)
            most = self.max_tables
            if most is not None:
                here = sum(1 for t in self.steps.tables.values() if t.guild_id == guild_id)
                if here >= most:
                    raise Refused(Code.TOO_MANY_TABLES, most=most)
            timeout = self.turn_timeout if turn_timeout is None else turn_timeout
            auto = self.next_hand_delay > 0 if auto_deal is None else auto_deal
            if not await self._claim(guild_id):
                raise Refused(Code.GUILD_ELSEWHERE)
            table = Table(channel_id, guild_id, v, TableSettings(limit, timeout, auto), [])
            table.opener, table.rotation = opener, rotation
            async with self.steps.step(table, opening=True) as step:
                table.generation = await self.store.tables.save_table(table_row(table))
                self.steps.tables[channel_id] = table
                step.emit(TableEvent(EventKind.OPENED, table.view()))
            return table.view()

    async def open_tournament_table(
        self,
        guild_id: int,
        channel_id: int,
        variant: str,
        tournament_id: int,
        seats: list[SeatState],
        button: int | None,
        turn_timeout: float | None,
        rotation: Rotation | None = None,
        table_no: int | None = None,
    ) -> TableView:
        """Open a tournament's table with its players seated and their stacks (one step);
        it deals by itself (auto-deal) and takes nobody else. With ``rotation``, a mixed
        tournament's: the table counts its hands of each game as a mixed table does.
        ``table_no``: its number in a multi-table tournament."""
        v = VARIANTS[variant]
        async with self._opening:
            if channel_id in self.steps.tables:
                raise Refused(Code.TABLE_EXISTS, variant=self.steps.tables[channel_id].variant.id)
            if not await self._claim(guild_id):
                raise Refused(Code.GUILD_ELSEWHERE)
            timeout = self.turn_timeout if turn_timeout is None else turn_timeout
            most = rotation.seat_limit if rotation else v.max_seats
            settings = TableSettings(most, timeout, True)
            table = Table(channel_id, guild_id, v, settings, sorted(seats, key=lambda s: s.seat))
            table.tournament_id, table.button = tournament_id, button
            table.rotation = rotation
            table.tournament_table = table_no
            async with self.steps.step(table, opening=True) as step:
                table.generation = await self.store.tables.save_table(table_row(table))
                await self._save_seats(table)
                self.steps.tables[channel_id] = table
                step.emit(TableEvent(EventKind.OPENED, table.view()))
            return table.view()

    async def reseat_tournament(self, channel_id: int, seats: list[SeatState]) -> TableView:
        """Between hands, give a tournament table the seats its tournament says (players
        moved in or out, with their stacks; one step, written for this opening of the
        table only). A player who stays keeps their away state. Refused while a hand is in
        play, and at a table that is not a tournament's."""
        table = self.steps.table(channel_id)
        async with self.steps.step(table) as step:
            if table.tournament_id is None:  # a caller's bug, not a request
                raise ValueError(f"{channel_id} is not a tournament's table")
            if table.hand is not None:
                raise Refused(Code.HAND_RUNNING)
            if len({s.seat for s in seats}) != len(seats):
                raise ValueError(f"seats taken twice at {channel_id}: {seats}")
            if _places(seats) == _places(table.seats):
                return table.view()  # as it is: nothing to write
            kept = {s.user_id: s for s in table.seats}
            table.seats = sorted(
                (
                    replace(s, sitting_out=kept[s.user_id].sitting_out,
                            timeouts=kept[s.user_id].timeouts)
                    if s.user_id in kept else s
                    for s in seats
                ),
                key=lambda s: s.seat,
            )  # fmt: skip
            await self._save_seats(table)
            step.emit(TableEvent(EventKind.REFRESHED, table.view()))
            return table.view()

    async def join(self, channel_id: int, user_id: int, name: str) -> Outcome:
        table = self.steps.table(channel_id)
        async with self.steps.step(table) as step:
            if table.closing:
                raise Refused(Code.TABLE_CLOSING)
            if table.tournament_id is not None:
                raise Refused(Code.TOURNAMENT_TABLE)
            if user_id in table.kicked:
                raise Refused(Code.KICKED_WAIT)
            seat = table.seat_of(user_id)
            if seat is not None:
                if seat.leaving:
                    seat.leaving = False
                    await self._save_seats(table)
                    return Outcome(Done.STAYING)
                raise Refused(Code.ALREADY_SEATED)
            number = table.free_seat()
            if number is None:
                raise Refused(Code.TABLE_FULL, seats=table.settings.seat_limit)
            account = await self.store.ledger.ensure_account(
                table.guild_id, user_id, name, self.play.starting_grant
            )
            table.seats.append(SeatState(number, user_id, name))
            table.seats.sort(key=lambda s: s.seat)
            await self._save_seats(table)
            seated = {"user_id": user_id, "name": name, "seat": number + 1}
            step.emit(TableEvent(EventKind.SEATED, table.view(), seated))
        return Outcome(
            Done.SEATED,
            {
                "seat": number + 1,
                "available": account.available,
                "minimum": table.minimum,
                "refill_below": SMALLEST_MINIMUM,
            },
        )

    async def leave(self, channel_id: int, user_id: int) -> Outcome:
        table = self.steps.table(channel_id)
        async with self.steps.step(table) as step:
            seat = table.seated(user_id)
            if table.tournament_id is not None:  # a tournament's player is away, never gone
                seat.sitting_out = True
                await self._save_seats(table)
                step.emit(TableEvent(EventKind.SITOUT, table.view(), _who(seat)))
                return Outcome(Done.SITTING_OUT, {"after_hand": False})
            if table.in_hand(user_id):
                seat.leaving = True
                await self._save_seats(table)
                return Outcome(Done.LEAVING)
            table.unseat(seat)
            _stand_bots_if_no_person(table)
            await self._save_seats(table)
            step.emit(TableEvent(EventKind.LEFT, table.view(), _who(seat)))
        return Outcome(Done.LEFT)

    async def sit_out(self, channel_id: int, user_id: int) -> Outcome:
        """Toggle sitting out: a player sitting out is not dealt into the next hands."""
        table = self.steps.table(channel_id)
        async with self.steps.step(table) as step:
            seat = table.seated(user_id)
            seat.sitting_out = not seat.sitting_out
            seat.timeouts = 0
            if table.hand is None:
                _stand_bots_if_no_person(table)  # else when the hand ends
            await self._save_seats(table)
            kind = EventKind.SITOUT if seat.sitting_out else EventKind.BACK
            step.emit(TableEvent(kind, table.view(), _who(seat)))
        if seat.sitting_out:
            return Outcome(Done.SITTING_OUT, {"after_hand": table.in_hand(user_id)})
        return Outcome(Done.BACK)

    # ----- computer players (practice tables) -------------------------------

    async def add_bot(self, channel_id: int, user_id: int, level: str, name: str) -> Outcome:
        """Seat a computer player of ``level`` named ``name`` (the UI's words), between
        hands, for a seated person (a table keeps at least one)."""
        if level not in LEVELS:
            raise Refused(Code.UNKNOWN_LEVEL, level=level, levels=LEVELS)
        table = self.steps.table(channel_id)
        async with self.steps.step(table) as step:
            table.seated(user_id)
            if table.closing:
                raise Refused(Code.TABLE_CLOSING)
            if table.hand is not None:
                raise Refused(Code.HAND_RUNNING)
            number = table.free_seat()
            if number is None:
                raise Refused(Code.TABLE_FULL, seats=table.settings.seat_limit)
            bot_id = min([0, *(s.user_id for s in table.seats)]) - 1  # ids below 1: no account
            stack = max(self.play.starting_grant, table.minimum)
            table.seats.append(SeatState(number, bot_id, name, bot=level, stack=stack))
            table.seats.sort(key=lambda s: s.seat)
            await self._save_seats(table)
            seated = {"user_id": bot_id, "name": name, "seat": number + 1}
            step.emit(TableEvent(EventKind.SEATED, table.view(), seated))
        return Outcome(Done.BOT_SEATED, {"name": name, "seat": number + 1, "level": level})

    async def remove_bot(self, channel_id: int, user_id: int) -> Outcome:
        """Stand up the last computer player seated, between hands."""
        table = self.steps.table(channel_id)
        async with self.steps.step(table) as step:
            table.seated(user_id)
            if table.hand is not None:
                raise Refused(Code.HAND_RUNNING)
            bots = [s for s in table.seats if s.bot]
            if not bots:
                raise Refused(Code.NO_BOT)
            bot = max(bots, key=lambda s: -s.user_id)  # the latest: ids count down
            table.seats.remove(bot)
            await self._save_seats(table)
            step.emit(TableEvent(EventKind.LEFT, table.view(), _who(bot)))
        return Outcome(Done.BOT_LEFT, {"name": bot.name})

    # ----- helpers ------------------------------------------------------------

    async def _save_seats(self, table: Table) -> None:
        await self.store.tables.save_seats(
            table.channel_id, seat_rows(table.seats), generation=table.generation
        )


def _places(seats: list[SeatState]) -> list[tuple[int, int, int | None]]:
    return sorted((s.seat, s.user_id, s.stack) for s in seats)


def _stand_bots_if_no_person(table: Table) -> None:
    """Between hands, computer players stand up once no person is playing on."""
    if (
        table.practice
        and table.tournament_id is None  # a practice Sit & Go's play on to its end
        and not any(not s.bot and not s.sitting_out for s in table.seats)
    ):
        table.seats = [s for s in table.seats if not s.bot]


def _who(seat: SeatState) -> dict[str, object]:
    return {"user_id": seat.user_id, "name": seat.name}
