"""Multi-table tournaments on the tables: opens a started tournament's tables, deals
the tables its service lets deal, counts each hand, carries out moves and breaks
between hands, and closes the tables at the end; speaks no English and no Discord.

The driver is the table service's ``TournamentHooks`` for every tournament: a
multi-table tournament's calls are its own, a Sit & Go's pass to the Sit & Go driver.
The multi-table service's database is the truth about who sits where with what; after
every counted hand (and after a restart) ``sync`` makes each table's seats match it,
between that table's hands. Before any deal ``header`` checks that the table's players
and stacks are exactly the tournament's for that table (a move not yet carried out
there holds it) and asks ``may_deal``. Tables live in threads the UI opens
(``make_thread``, given at construction); a moved player is told through ``moved`` listeners.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Coroutine, Mapping, Sequence
from typing import Any

from bot.engine import VARIANTS
from bot.engine.cards import Card
from bot.engine.record import HandRecord, new_header
from bot.engine.stakes import Stakes
from bot.storage.tournaments import Final, TournamentRow
from bot.tables import supervise
from bot.tables.manager import TableManager
from bot.tables.models import Code, EventKind, Refused, SeatState, TableEvent
from bot.tables.tournament_mode import LevelView
from bot.tournaments.balancing import ConservationError
from bot.tournaments.driver import CLOCK_TICK, TournamentDriver
from bot.tournaments.multi_table import MultiTableService
from bot.tournaments.service import SngCode, SngRefused, check_stack, checked_mix
from bot.tournaments.structures import Speed

log = logging.getLogger(__name__)
# the UI opens a table's thread: (tournament, table number) -> its channel (None: gone)
ThreadMaker = Callable[[TournamentRow, int], Awaitable[int | None]]
Moved = Callable[[TournamentRow, int, int, int], None]  # row, user, table number, channel


class MttDriver:
    def __init__(
        self,
        manager: TableManager,
        mtt: MultiTableService,
        sng: TournamentDriver,
        *,
        make_thread: ThreadMaker | None = None,
    ) -> None:
        self.manager = manager
        self.mtt = mtt
        self.service = mtt.sng
        self.sng = sng  # Sit & Go tables' hooks
        self.make_thread = make_thread  # (None: no table can open; the UI gives it)
        self._rows: dict[int, TournamentRow] = {}  # running multi-table tournaments
        self._names: dict[int, dict[int, str]] = {}  # tournament -> user -> name
        self._closing: set[int] = set()  # channels this driver closes itself
        self._tournament_of: dict[int, int] = {}  # table channel -> tournament
        self._tasks: set[asyncio.Task[None]] = set()
        self._syncing: dict[int, asyncio.Lock] = {}
        self.moved: list[Moved] = []  # a player seated at another table
        self.started: list[Callable[[TournamentRow], None]] = []
        self.ended: list[Callable[[TournamentRow, Final], None]] = []
        self.cancelled: list[Callable[[TournamentRow], None]] = []  # a table's thread gone
        manager.hooks.serve_tournaments(self)  # its tables' stakes and counted hands
        manager.subscribe(self._saw)

    def running(self, tournament_id: int) -> TournamentRow | None:
        return self._rows.get(tournament_id)

    async def restore(self) -> int:
        """Know the running multi-table tournaments again (before ``TableManager.start``)."""
        for t in await self.service.repo.open_tournaments():
            if t.status != "running" or await self.mtt.repo.state(t.tournament_id) is None:
                continue
            await self.mtt.restore(t.tournament_id)
            self._rows[t.tournament_id] = t
            await self._know_names(t.tournament_id)
        return len(self._rows)

    async def resume(self) -> None:
        """After ``TableManager.start``: tables restored with a hand in play are busy;
        every table's seats are made the tournament's, and the tables deal."""
        for tournament_id in list(self._rows):
            for number, channel in self.manager.tournament_tables(tournament_id).items():
                view = self.manager.find_view(channel)
                if view is not None and view.hand is not None:
                    self.mtt.hand_started(tournament_id, number, resumed=True)
            await self.mtt.replan(tournament_id)  # what a restart cut short, planned again
            await self.sync(tournament_id)

    async def create(
        self,
        guild_id: int,
        channel_id: int,
        creator_id: int,
        variant: str,
        *,
        table_size: int,
        cap: int,
        speed: Speed,
        start_stack: int,
        fee: int,
        starts_at: float | None,
        late_levels: int,
        start_count: int | None = None,
        games: Sequence[str] = (),
        rotation: str = "hands",
        every: int | None = None,
    ) -> TournamentRow:
        """A new multi-table tournament (the service's checks, and the starting stack's
        as a Sit & Go's); ``start_count``: the scheduler starts it once that many have
        registered; ``games``: a mixed one (``rotation``, ``every``: as a Sit & Go's)."""
        mix = checked_mix(games, rotation, every) if games else None
        if variant in VARIANTS or mix is not None:  # an unknown game: the service says so
            check_stack(mix.first if mix else variant, mix, start_stack)
        return await self.mtt.create(
            guild_id, channel_id, creator_id, variant,
            table_size=table_size, cap=cap, speed=speed.value, start_stack=start_stack,
            fee=fee, starts_at=starts_at, late_levels=late_levels, start_count=start_count,
            games=games, rotation=rotation, every=every,
        )  # fmt: skip

    async def mine(self, guild_id: int, tournament_id: int) -> TournamentRow:
        """This server's multi-table tournament ``tournament_id`` (refused ``UNKNOWN``)."""
        row = await self.service.repo.get(tournament_id)
        if row is None or row.guild_id != guild_id:
            raise SngRefused(SngCode.UNKNOWN)
        if await self.mtt.repo.state(tournament_id) is None:
            raise SngRefused(SngCode.UNKNOWN)
        return row

    async def register(
        self, guild_id: int, tournament_id: int, user_id: int, name: str
    ) -> int | None:
        """Register: before the start (it begins once its cap is reached when no start
        time was set), or late into a running one; the table number of a late seat."""
        row = await self.mine(guild_id, tournament_id)
        if row.status == "running" and tournament_id in self._rows:
            return await self.register_late(tournament_id, user_id, name)
        async with self.service.lock(tournament_id):
            row = await self.mine(guild_id, tournament_id)
            if row.status != "registering":
                raise SngRefused(SngCode.NOT_REGISTERING)
            await self.service.store.ledger.ensure_account(
                guild_id, user_id, name, self.service.grant
            )
            entries = await self.service.refusing(
                self.service.repo.register(tournament_id, user_id, name)
            )
        starts_at, _ = await self.mtt.repo.scheduled(tournament_id)
        if starts_at is None and len(entries) >= row.seats:
            await self.begin(tournament_id)
        return None

    async def start(
        self, guild_id: int, tournament_id: int, user_id: int, *, moderator: bool
    ) -> TournamentRow:
        """Start now (its creator or a moderator), with at least two registered."""
        row = await self.mine(guild_id, tournament_id)
        if not moderator and user_id != row.creator_id:
            raise SngRefused(SngCode.NOT_YOURS)
        return await self.begin(tournament_id)

    async def begin(self, tournament_id: int) -> TournamentRow:
        """Start a registering tournament now (the scheduler calls this at its time, the
        UI on ``/mtt start`` or a full field): seats drawn, a thread and a table for each
        table, and every table dealt. Refused (``SngRefused``) as the service refuses."""
        await self.mtt.start(tournament_id)
        row = await self.service.repo.get(tournament_id)
        assert row is not None
        self._rows[tournament_id] = row
        await self._know_names(tournament_id)
        await self.sync(tournament_id)
        if not self.manager.tournament_tables(tournament_id):  # its channel is gone
            self._rows.pop(tournament_id, None)
            await self._cancel_closed(row)
            return row
        for listener in self.started:
            listener(row)
        return row

    async def register_late(self, tournament_id: int, user_id: int, name: str) -> int:
        """Register a player after the start (the service's rules): seated at a table
        with the fewest players, dealt in from its next hand; the table's number."""
        row = self._rows.get(tournament_id)
        if row is None:  # over or cancelled this moment
            raise SngRefused(SngCode.NOT_REGISTERING)
        await self.service.store.ledger.ensure_account(
            row.guild_id, user_id, name, self.service.grant
        )
        move = await self.mtt.register_late(tournament_id, user_id, name)
        self._names.setdefault(tournament_id, {})[user_id] = name
        self._spawn(self.sync(tournament_id))
        return move.to_table

    async def cancel(
        self, guild_id: int, tournament_id: int, user_id: int, *, moderator: bool
    ) -> TournamentRow:
        """Cancel (every fee back, no place awarded) and close its tables, voiding any
        hand in play."""
        await self.mine(guild_id, tournament_id)
        cancelled = await self.mtt.cancel(guild_id, tournament_id, user_id, moderator=moderator)
        self._rows.pop(tournament_id, None)
        await self._close_all(tournament_id, force=True)
        return cancelled

    def channel(self, tournament_id: int, table_no: int) -> int | None:
        return self.manager.tournament_tables(tournament_id).get(table_no)

    # ----- keeping the tables as the tournament says ------------------------

    async def sync(self, tournament_id: int, ending: int | None = None) -> None:
        """Make every table between hands seat what the tournament says, open the
        tables it lacks and close the broken ones; then deal the tables that may.
        ``ending``: the table whose hand's settlement called this (between hands once
        that step is over)."""
        lock = self._syncing.setdefault(tournament_id, asyncio.Lock())
        async with lock:
            row = self._rows.get(tournament_id)
            if row is None:
                return
            await self._seat(row, tournament_id, ending)
        # the pause between hands is not taken under the lock: one table's pause would
        # hold every other table's moves and deals back, one pause after another
        await self._deal_ready(tournament_id)

    async def _seat(self, row: TournamentRow, tournament_id: int, ending: int | None) -> None:
        """Seat every table between hands as the tournament says (the caller holds the
        tournament's sync lock)."""
        field = self.mtt.field(tournament_id)
        names = self._names.get(tournament_id, {})
        channels = self.manager.tournament_tables(tournament_id)
        self._tournament_of.update({c: tournament_id for c in channels.values()})
        where = {  # (seats, not full views: every table's, after each counted hand)
            s.user_id: number
            for number, channel in channels.items()
            if (here := self.manager.seats_of(channel)) is not None
            for s in here[0]
        }
        for table in field.tables:
            seats = [
                SeatState(s.seat, s.player, names.get(s.player, str(s.player)), stack=s.stack)
                for s in table.seats
            ]
            channel = channels.get(table.number)
            if channel is None:
                await self._open(row, table.number, seats)
                continue
            here = self.manager.seats_of(channel)  # as it is now, after the awaits above
            if here is None:
                continue
            seated, in_hand = here
            if in_hand and table.number != ending:
                continue  # in a hand: after it
            as_is = sorted((s.seat, s.user_id, s.stack) for s in seated)
            if not in_hand and as_is == sorted((s.seat, s.user_id, s.stack) for s in seats):
                continue
            try:  # (the hand ending now: once its step is over)
                await self.manager.reseat_tournament(channel, seats)
            except Refused as exc:  # dealt meanwhile: after its hand
                log.debug("tournament %d table %d: %s", tournament_id, table.number, exc)
                continue
            for s in seats:
                if where.get(s.user_id) not in (None, table.number):
                    for listener in self.moved:
                        listener(row, s.user_id, table.number, channel)
        live = {t.number for t in field.tables}
        for number, channel in channels.items():
            if number not in live:  # broken: its players are seated elsewhere now
                await self._close(row, channel)

    async def _open(self, row: TournamentRow, number: int, seats: list[SeatState]) -> None:
        if self.make_thread is None:
            raise RuntimeError("no one opens the tournament's threads")
        channel = await self.make_thread(row, number)
        if channel is None:  # the tournament's channel is gone: nothing to play in
            log.warning("tournament %d: no thread for table %d", row.tournament_id, number)
            return
        button = next((t.button for t in self.mtt.field(row.tournament_id).tables
                       if t.number == number), None)  # fmt: skip
        await self.manager.open_tournament_table(
            row.guild_id, channel, row.variant, row.tournament_id, seats,
            button=button, table_no=number,
            rotation=mix.table_rotation() if (mix := self.service.mix(row)) else None,
        )  # fmt: skip
        self._tournament_of[channel] = row.tournament_id

    async def _deal_ready(self, tournament_id: int) -> None:
        """Deal every table between hands that its tournament lets deal."""
        await self._pause()
        for number, channel in sorted(self.manager.tournament_tables(tournament_id).items()):
            if tournament_id not in self._rows or not self.mtt.may_deal(tournament_id, number):
                continue
            try:  # (one whose hand is ending: once its step is over)
                await self.manager.deal(channel)
            except Refused as exc:  # held, or seats still to carry out: a later sync deals
                log.info("tournament %d table %d deals later: %s", tournament_id, number, exc)

    async def _pause(self) -> None:
        """The tables' pause between hands (0 in tests)."""
        await asyncio.sleep(self.manager.timers.next_hand_delay)

    async def _close(self, row: TournamentRow, channel: int, *, force: bool = False) -> None:
        self._closing.add(channel)
        try:
            await self.manager.close_table(channel, 0, moderator=True, force=force)
        except Refused:
            log.info("tournament %d: table in %d closed already", row.tournament_id, channel)

    async def _close_all(self, tournament_id: int, *, force: bool = False) -> None:
        row = await self.service.repo.get(tournament_id)
        if row is None:
            return
        for channel in self.manager.tournament_tables(tournament_id).values():
            await self._close(row, channel, force=force)

    async def _know_names(self, tournament_id: int) -> None:
        entries = await self.service.repo.entries(tournament_id)
        self._names[tournament_id] = {e.user_id: e.display_name for e in entries}

    def _saw(self, event: TableEvent) -> None:
        """A table closed that this driver did not close (its thread or channel deleted,
        a moderator): the tournament is cancelled, every fee back, its tables closed."""
        if event.kind != EventKind.CLOSED:
            return
        channel = event.view.channel_id
        if channel in self._closing:
            self._closing.discard(channel)
            return
        row = self._rows.pop(self._tournament_of.get(channel, 0), None)
        if row is not None:
            self._spawn(self._cancel_closed(row))

    async def _cancel_closed(self, row: TournamentRow) -> None:
        try:
            await self.mtt.cancel(row.guild_id, row.tournament_id, 0, moderator=True)
        except SngRefused:
            return  # over or cancelled meanwhile
        await self._close_all(row.tournament_id, force=True)
        for listener in self.cancelled:
            listener(row)

    # ----- the tables' hooks ------------------------------------------------

    def level(self, tournament_id: int) -> LevelView | None:
        t = self._rows.get(tournament_id)
        if t is None:
            return self.sng.level(tournament_id)
        return self.service.level_view(t)  # a mixed tournament's too: one place for both

    def header(
        self,
        tournament_id: int,
        variant_id: str,
        seats: Sequence[tuple[str, int]],
        dealer: int,
        deck: Sequence[Card],
    ) -> HandRecord:
        t = self._rows.get(tournament_id)
        if t is None:  # a Sit & Go's (one over or cancelled: the Sit & Go driver refuses)
            return self.sng.header(tournament_id, variant_id, seats, dealer, deck)
        try:
            field = self.mtt.field(tournament_id)
        except SngRefused:  # cancelled or over this moment
            raise Refused(Code.TABLE_BUSY) from None
        number = self._table_of(tournament_id, [int(p) for p, _ in seats])
        if number is None:
            raise Refused(Code.TABLE_BUSY)  # players of several tables: a move to carry out
        table = field.table(number)
        mine = sorted((int(p), chips) for p, chips in seats)
        theirs = sorted((s.player, s.stack) for s in table.seats)
        if [p for p, _ in mine] != [p for p, _ in theirs]:
            raise Refused(Code.TABLE_BUSY)  # a move in or out not yet carried out here
        # asked before the stacks: a table whose last hand is not counted yet (its count
        # waits for another table's) is busy, and its stacks are the count's to come
        if not self.mtt.may_deal(tournament_id, number):
            raise Refused(Code.TABLE_BUSY)  # held for a move or hand-for-hand
        if mine != theirs:  # the same players with other chips: never deal that
            raise ConservationError(
                f"tournament {tournament_id} table {number}: stacks {mine} are not {theirs}"
            )
        game = self.service.game(t, variant_id)  # a mixed tournament's may be the level's
        stakes = Stakes.from_json(game, self.service.stakes(t, game).stakes_json())
        self.mtt.hand_started(tournament_id, number)
        self._spawn(self.service.save_clock(tournament_id))
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
        t = self._rows.get(tournament_id)
        if t is None:  # a Sit & Go's (one over or cancelled: nothing to count)
            await self.sng.settled(
                tournament_id, hand_id, started, after, actions=actions, button=button
            )
            return
        try:
            field = self.mtt.field(tournament_id)
        except SngRefused:  # cancelled or over this moment: nothing to count
            return
        number = self._table_of(tournament_id, list(started))
        counted_at = None if number is not None else await self._counted(tournament_id, hand_id)
        if counted_at is not None:
            # settled again after a restart that came between its count and its
            # settlement: its busts and moves are in the tournament already
            self._spawn(self.sync(tournament_id, counted_at))
            return
        if number is None:
            raise ConservationError(f"hand #{hand_id} is not one table's players")
        # a player seated late while the hand was in play sat it out: their chips stand
        waiting = {s.player: s.stack for s in field.table(number).seats if s.player not in started}
        try:
            counted = await self.mtt.hand_finished(
                tournament_id, number, hand_id, {**started, **waiting}, {**after, **waiting},
                button=button,
            )  # fmt: skip
        except SngRefused:  # cancelled or over meanwhile
            return
        if counted.final is not None:
            del self._rows[tournament_id]
            for listener in self.ended:
                listener(t, counted.final)
            self._spawn(self._close_all(tournament_id))  # after this step
            return
        self._spawn(self.sync(tournament_id, number))  # after this step: moves, breaks, deals

    async def _counted(self, tournament_id: int, hand_id: int) -> int | None:
        """The table that counted this hand already (None: no table did)."""
        state = await self.mtt.repo.state(tournament_id)
        tables = state.tables if state is not None else []
        return next((t.number for t in tables if t.last_hand_id == hand_id), None)

    def _table_of(self, tournament_id: int, players: Sequence[int]) -> int | None:
        field = self.mtt.field(tournament_id)
        numbers = {t.number for p in players if (t := field.table_of(p)) is not None}
        if len(numbers) != 1 or any(field.table_of(p) is None for p in players):
            return None
        return numbers.pop()

    # ----- background work --------------------------------------------------

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[None]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.error("multi-table tournament work failed", exc_info=task.exception())

    async def tick(self) -> None:
        """Keep every running tournament's elapsed time."""
        for tournament_id in list(self._rows):
            try:
                await self.service.save_clock(tournament_id)
            except Exception:  # the next tick tries again
                log.exception("could not keep the clock of tournament %d", tournament_id)

    async def run_clock(self, interval: float = CLOCK_TICK) -> None:
        await supervise.forever("the multi-table level clock", self.tick, every=interval)

    async def wait_idle(self) -> None:
        """Wait for the syncs and closes under way (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
