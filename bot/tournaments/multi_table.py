"""Multi-table tournaments: create, start on tables, count each table's hands, move,
break, hand-for-hand, finish and resume; speaks no English and no Discord.

It builds on the Sit & Go service (``TournamentService``: its per-tournament lock and
level clock, one for all of a tournament's tables, so a level changes at the same
moment at every table and a hand in play finishes at its stakes) and on the pure
planner (``bot.tournaments.balancing``). After every hand a table counts, the planner
says what moves now; the hand's count, its eliminations and the moves are written in one
transaction (``bot.storage.multi_table``), whose chip check runs in the database beside
the planner's own (``apply_plan``). The table layer asks :meth:`may_deal` before each
deal: a table held by a pending move or by hand-for-hand deals nothing until the
next plan frees it. Players out in one hand-for-hand round, on any table, are placed
together when the round ends (equal chips share their places).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from dataclasses import field as dc_field
from enum import StrEnum
from typing import Any

from bot.engine import VARIANTS
from bot.storage.multi_table import MttState, SeatMove
from bot.storage.store import Store
from bot.storage.tournaments import Final, TournamentRefused, TournamentRow
from bot.tournaments import balancing, payouts
from bot.tournaments.balancing import Field, Move, Seat, TableState
from bot.tournaments.mixing import MixKind
from bot.tournaments.service import (
    MAX_FEE,
    SngCode,
    SngRefused,
    TournamentService,
    checked_mix,
)

MAX_ENTRANTS = 1000  # the cap on entrants
# The payout table (bot.tournaments.payouts) has rows up to this field size: a cap it
# could not pay is refused rather than failing at the end.
PAYABLE = min(MAX_ENTRANTS, payouts.LARGEST)
REMINDERS = (30, 5)  # minutes before a scheduled start


class MttCode(StrEnum):
    """Why a multi-table request was refused (beside the Sit & Go codes)."""

    PAST_START = "mtt_past_start"  # now: a scheduled start must be ahead
    CHANNEL_BUSY = "mtt_channel_busy"  # tournament_id: the channel's open tournament
    LATE_CLOSED = "mtt_late_closed"  # levels: late registration ran through that many
    BAD_START_COUNT = "mtt_bad_start_count"  # min, max, given: start when that many register


class MttRefused(Exception):
    def __init__(self, code: MttCode, **params: Any) -> None:
        super().__init__(code.value)
        self.code = code
        self.params = params


@dataclass(frozen=True)
class MttHand:
    """What a counted hand led to: places given, moves made, tables broken and held."""

    places: dict[int, int] = dc_field(default_factory=dict)
    moves: tuple[Move, ...] = ()
    broken: tuple[int, ...] = ()
    hold: frozenset[int] = frozenset()
    hand_for_hand: bool = False
    final: Final | None = None
    counted: bool = True  # False: this table had counted the hand already


@dataclass
class _Running:
    field: Field
    entrants: int
    pool: int
    busy: set[int] = dc_field(default_factory=set)  # tables with a hand in play
    hold: frozenset[int] = frozenset()
    hand_for_hand: bool = False
    pending: list[payouts.Bust] = dc_field(default_factory=list)  # out, place to come
    # a count's moves are being written: the field above is the old one until they are,
    # so no table may deal meanwhile (it would deal a player the plan moves away)
    writing: bool = False
    _counts: tuple[Field, dict[int, int]] | None = None  # players per table of that field

    def count(self, table_no: int) -> int:
        """Players at a live table (0: none or broken); asked before each table's deal, so
        kept per field rather than found among 167 tables each time."""
        if self._counts is None or self._counts[0] is not self.field:
            self._counts = (self.field, {t.number: t.count for t in self.field.tables})
        return self._counts[1].get(table_no, 0)


class MultiTableService:
    """Multi-table tournaments of every server."""

    def __init__(self, store: Store, sng: TournamentService, rng: random.Random) -> None:
        self.store = store
        self.repo = store.multi_tables
        self.sng = sng
        self.rng = rng
        self._running: dict[int, _Running] = {}

    async def create(
        self,
        guild_id: int,
        channel_id: int,
        creator_id: int,
        variant: str,
        *,
        table_size: int,
        cap: int,
        speed: str,
        start_stack: int,
        fee: int = 0,
        starts_at: float | None = None,
        reminders: tuple[int, ...] = REMINDERS,
        late_levels: int = 0,
        games: Sequence[str] = (),
        rotation: str = MixKind.HANDS.value,
        every: int | None = None,
        start_count: int | None = None,
    ) -> TournamentRow:
        """A new multi-table tournament, registering (``starts_at``: scheduled, with its
        reminders; ``games``: a mixed one, as ``TournamentService.create``;
        ``start_count``: it starts as soon as that many have registered, 2 to the cap);
        bad settings are refused with the allowed range and change nothing, as are a
        start in the past and a channel that has an open tournament."""
        mix = checked_mix(games, rotation, every) if games else None
        if mix is not None:
            variant = mix.first
        game = VARIANTS.get(variant)
        if game is None:
            raise SngRefused(SngCode.UNKNOWN_GAME, games=sorted(VARIANTS))
        if mix is not None and not 2 <= table_size <= mix.seat_limit:
            raise SngRefused(
                SngCode.MIX_SEATS, games=mix.games, min=2, max=mix.seat_limit, given=table_size
            )
        if not 2 <= table_size <= game.max_seats:
            raise SngRefused(SngCode.BAD_SEATS, min=2, max=game.max_seats, given=table_size)
        if not 2 <= cap <= PAYABLE:
            raise SngRefused(SngCode.BAD_SEATS, min=2, max=PAYABLE, given=cap)
        if not 0 <= fee <= MAX_FEE:
            raise SngRefused(SngCode.BAD_FEE, max=MAX_FEE, given=fee)
        if start_count is not None and not 2 <= start_count <= cap:
            raise MttRefused(MttCode.BAD_START_COUNT, min=2, max=cap, given=start_count)
        now = self.sng.clock()
        if starts_at is not None and starts_at <= now:
            raise MttRefused(MttCode.PAST_START, now=now)
        try:
            return await self.repo.create(
                guild_id, channel_id, creator_id, variant,
                table_size=table_size, cap=cap, speed=speed, start_stack=start_stack, fee=fee,
                starts_at=starts_at, reminders=reminders, late_levels=max(0, late_levels),
                mix=mix.dumps() if mix else None,
                start_count=start_count,
            )  # fmt: skip
        except TournamentRefused as exc:
            if exc.code != "channel_busy":
                raise
            raise MttRefused(MttCode.CHANNEL_BUSY, **exc.params) from None

    async def start(self, tournament_id: int) -> Field:
        """Draw the seats across the tables and start (at least two registered)."""
        async with self.sng.lock(tournament_id):
            state = await self._state(tournament_id)
            if state.tournament.status != "registering":
                raise SngRefused(SngCode.NOT_REGISTERING)
            entries = await self.store.tournaments.entries(tournament_id)
            if len(entries) < 2:
                raise SngRefused(SngCode.TOO_FEW, count=len(entries))
            stacks = {e.user_id: state.tournament.start_stack for e in entries}
            drawn = balancing.draw_seats(stacks, state.table_size, self.rng)
            seating = {s.player: (t.number, s.seat) for t in drawn.tables for s in t.seats}
            started = await self.sng.refusing(
                self.repo.start(tournament_id, seating, drawn.break_order)
            )
            self.sng.level(started)  # the level clock runs from the start, for every table
            t = state.tournament
            self._running[tournament_id] = _Running(drawn, len(entries), t.fee * len(entries))
            return drawn

    async def register_late(self, tournament_id: int, user_id: int, name: str) -> Move:
        """Register a player after the start, during the first ``late_levels`` levels: a
        seat at a table with the fewest players (a new table when all are full); at a
        table in a hand they sit out until its next deal. Refused ``LATE_CLOSED`` after
        those levels, and as any registration is; a refusal changes nothing."""
        async with self.sng.lock(tournament_id):
            run = self._run(tournament_id)
            state = await self._state(tournament_id)
            _, clock = self.sng.level(state.tournament)
            if clock.number > state.late_levels:
                raise MttRefused(MttCode.LATE_CLOSED, levels=state.late_levels)
            stack = state.tournament.start_stack
            seated, move = balancing.late_seat(run.field, user_id, stack, self.rng)
            await self.sng.refusing(
                self.repo.register_late(tournament_id, user_id, name, move.to_table, move.to_seat)
            )
            run.field = seated
            run.entrants += 1
            run.pool += state.tournament.fee
            return move

    async def cancel(
        self, guild_id: int, tournament_id: int, user_id: int, *, moderator: bool
    ) -> TournamentRow:
        """Cancel before or during play (its creator or a moderator): every fee comes
        back, no place or prize is awarded, and its tables deal no more."""
        cancelled = await self.sng.cancel(guild_id, tournament_id, user_id, moderator=moderator)
        self._running.pop(tournament_id, None)
        return cancelled

    async def restore(self, tournament_id: int) -> Field:
        """Know a running tournament again after a restart: its tables, seats, buttons,
        breaking order and hand-for-hand as written; players out whose place was still
        to come (a hand-for-hand round cut by the restart) share it."""
        state = await self._state(tournament_id)
        if state.tournament.status != "running":
            raise SngRefused(SngCode.NOT_RUNNING)
        live = [t for t in state.tables if not t.broken]
        tables = tuple(
            TableState(
                t.number,
                tuple(
                    sorted(
                        (
                            Seat(s.seat, s.user_id, s.stack)
                            for s in state.seats
                            if s.table_no == t.number and s.seat is not None
                        ),
                        key=lambda seat: seat.seat,
                    )
                ),  # fmt: skip
                t.button,
            )
            for t in live
        )
        order = tuple(t.number for t in sorted(live, key=lambda t: t.break_rank))
        run = _Running(
            Field(state.table_size, tables, order),
            len(state.seats),
            state.tournament.fee * len(state.seats),
            hand_for_hand=state.hand_for_hand,
            pending=[
                payouts.Bust(s.user_id, 0)
                for s in state.seats
                if s.stack == 0 and s.place is None and s.table_no is None
            ],
        )
        self._running[tournament_id] = run
        return run.field

    def field(self, tournament_id: int) -> Field:
        return self._run(tournament_id).field

    def may_deal(self, tournament_id: int, table_no: int) -> bool:
        """Whether a table may deal its next hand now: live, between hands, not held."""
        run = self._running.get(tournament_id)
        if run is None or run.writing or table_no in run.busy or table_no in run.hold:
            return False
        if run.count(table_no) < 2:
            return False
        return not run.pending or not run.hand_for_hand or not run.busy

    def hand_started(self, tournament_id: int, table_no: int, *, resumed: bool = False) -> None:
        """A table deals (``resumed``: a hand restored in play after a restart)."""
        if not resumed and not self.may_deal(tournament_id, table_no):
            raise SngRefused(SngCode.BUSY)
        self._run(tournament_id).busy.add(table_no)

    async def hand_finished(
        self,
        tournament_id: int,
        table_no: int,
        hand_id: int,
        started: Mapping[int, int],
        after: Mapping[int, int],
        *,
        button: int | None,
    ) -> MttHand:
        """Count table ``table_no``'s finished hand (``started``/``after``: its players'
        stacks before and after it), place the players it put out, and make the moves
        and breaks the planner asks for now; all written at once."""
        async with self.sng.lock(tournament_id):
            run = self._run(tournament_id)
            table = next((t for t in run.field.tables if t.number == table_no), None)
            if table is None:
                raise SngRefused(SngCode.NOT_IN_PLAY)
            if set(started) != set(after) or set(after) != set(table.players()):
                raise ValueError(f"hand #{hand_id} is not table {table_no}'s players")
            if sum(started.values()) != sum(after.values()):
                raise ValueError(f"hand #{hand_id} does not conserve the chips in play")
            busy = run.busy - {table_no}
            seats = tuple(replace(s, stack=after[s.player]) for s in table.seats)
            played = replace(table, seats=seats, button=button)
            tables = tuple(played if t.number == table_no else t for t in run.field.tables)
            out = [u for u in table.players() if after[u] == 0]
            current = balancing.eliminate(replace(run.field, tables=tables), out)
            busts = [payouts.Bust(u, started[u]) for u in out]
            pending = [*run.pending, *busts] if run.hand_for_hand else list(busts)
            places: dict[int, int] = {}
            if pending and (not run.hand_for_hand or not busy):
                places = payouts.places_for_busts(pending, current.players_left)
                pending = []
            final: Final | None = None
            step = balancing.Plan()
            if current.players_left <= 1 and not busy:
                final = await self._final(tournament_id, run, places, current)
            else:
                paid = payouts.paid_places(run.entrants)
                marked = _marked(current, busy)
                step = balancing.plan(marked, self.rng, paid_places=paid)
                current = balancing.apply_plan(marked, step)
            run.writing = True
            try:
                counted = await self._record(
                    tournament_id, table_no, hand_id, after, out, places, button, step, final
                )
            finally:
                run.writing = False
            if not counted:  # counted before a restart: this table's hand is over all the same
                run.busy.discard(table_no)
                return MttHand(counted=False)
            run.field = _marked(current, set())
            run.busy, run.hold, run.pending = run.busy - {table_no}, step.hold, pending
            run.hand_for_hand = step.hand_for_hand
            if final is not None:
                self._running.pop(tournament_id, None)
            return MttHand(places, step.moves, step.broken, step.hold, step.hand_for_hand, final)

    async def _record(
        self, tournament_id: int, table_no: int, hand_id: int, after: Mapping[int, int],
        out: list[int], places: dict[int, int], button: int | None, step: balancing.Plan,
        final: Final | None,
    ) -> bool:  # fmt: skip
        """Write a hand's count with its plan; False: counted already (before a restart)."""
        return bool(
            await self.sng.refusing(
                self.repo.record_hand(
                    tournament_id,
                    table_no,
                    hand_id,
                    dict(after),
                    out=out,
                    places=places,
                    button=button,
                    moves=[
                        SeatMove(m.player, m.from_table, m.from_seat, m.to_table, m.to_seat)
                        for m in step.moves
                    ],
                    broken=step.broken,
                    hand_for_hand=step.hand_for_hand,
                    final=final,
                )
            )  # fmt: skip
        )

    async def replan(self, tournament_id: int) -> balancing.Plan:
        """Plan with no hand to count (after a restart, before any table deals)."""
        async with self.sng.lock(tournament_id):
            run = self._run(tournament_id)
            marked = _marked(run.field, run.busy)
            paid = payouts.paid_places(run.entrants)
            step = balancing.plan(marked, self.rng, paid_places=paid)
            current = balancing.apply_plan(marked, step)
            moves = [SeatMove(m.player, m.from_table, m.from_seat, m.to_table, m.to_seat)
                     for m in step.moves]  # fmt: skip
            run.writing = True  # as in ``hand_finished``: no deal with the old seats
            try:
                await self.sng.refusing(
                    self.repo.move(tournament_id, moves, step.broken, step.hand_for_hand)
                )
            finally:
                run.writing = False
            run.field = _marked(current, set())
            run.hold, run.hand_for_hand = step.hold, step.hand_for_hand
            return step

    # ----- inside a step ----------------------------------------------------

    def _run(self, tournament_id: int) -> _Running:
        run = self._running.get(tournament_id)
        if run is None:
            raise SngRefused(SngCode.NOT_RUNNING)
        return run

    async def _state(self, tournament_id: int) -> MttState:
        state = await self.repo.state(tournament_id)
        if state is None:
            raise SngRefused(SngCode.UNKNOWN)
        return state

    async def _final(
        self, tournament_id: int, run: _Running, places: Mapping[int, int], last: Field
    ) -> Final:
        """Every entrant's place, prize and points: the one left wins."""
        entries = await self.store.tournaments.entries(tournament_id)
        all_places = {e.user_id: e.place for e in entries if e.place is not None}
        all_places.update(places)
        for seat in (s for t in last.tables for s in t.seats):
            all_places[seat.player] = 1
        order = [e.user_id for e in entries]
        if sorted(all_places) != sorted(order):
            raise ValueError(f"tournament #{tournament_id} ends with players unplaced")
        return Final(
            places=all_places,
            prizes=payouts.prizes(run.pool, all_places, order),
            points=payouts.points(all_places, order),
        )


def _marked(field: Field, busy: set[int]) -> Field:
    """``field`` with exactly the tables of ``busy`` marked in a hand; the tables whose mark
    stays are kept as they are (167 tables at the start of a 1,000-player field)."""
    tables = tuple(
        t if t.in_hand == (t.number in busy) else replace(t, in_hand=t.number in busy)
        for t in field.tables
    )
    return replace(field, tables=tables)
