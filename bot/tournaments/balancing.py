"""The multi-table planner: seat draw, balancing, breaking and hand-for-hand, pure.

It follows real tournament software (docs/tournaments.md; FinalTable's director, mb2,
BARGE's rules):
- the seat draw shuffles the entrants and deals them round-robin across
  ``ceil(n / size)`` tables; the order in which tables break is fixed then, the
  highest-numbered table first (a table opened later for late registration goes first);
- balancing keeps every table within one player of every other. The player who moves
  is the one about to post the big blind (the seat two left of the next button, the
  other player heads-up; ante games use the same position, counted from the button),
  into the destination's worst position: the empty seat that posts the big blind
  soonest;
- a table breaks as soon as the players left fit on one fewer; its players are seated
  at random into the seats left, the tables with the fewest players first;
- hand-for-hand from the bubble on: when the next two eliminations reach a paid place,
  tables wait for each other between hands;
- a table in a hand is never touched, as source or destination: the planner holds the
  tables a pending move needs (they deal no hand) until the others finish theirs.
Chips travel with their player: :func:`apply_plan` checks that every player is seated
exactly once and the chips on all tables are the same before and after, and raises
:class:`ConservationError` otherwise. The RNG is injected (``secrets.SystemRandom`` in
play, a seeded ``random.Random`` in tests).
"""

from __future__ import annotations

import heapq
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum


class ConservationError(RuntimeError):
    """A plan would lose, create or duplicate a player or chips (a bug: never applied)."""


class MoveReason(StrEnum):
    """Why a player changes tables."""

    BALANCE = "balance"
    BREAK = "break"
    LATE = "late"  # a late registration's first seat


@dataclass(frozen=True)
class Seat:
    """One occupied seat: its number at the table, the player and their chips."""

    seat: int
    player: int
    stack: int


@dataclass(frozen=True)
class TableState:
    """One live table as the planner sees it.

    ``button`` is the seat of the last dealer (None before the first hand), as
    ``bot.tables.table.Table.button``; ``in_hand`` says a hand is in play there."""

    number: int
    seats: tuple[Seat, ...]
    button: int | None = None
    in_hand: bool = False

    @property
    def count(self) -> int:
        return len(self.seats)

    def players(self) -> list[int]:
        return [s.player for s in self.seats]

    def chips(self) -> int:
        return sum(s.stack for s in self.seats)

    def free_seats(self, size: int) -> list[int]:
        taken = {s.seat for s in self.seats}
        return [n for n in range(size) if n not in taken]


@dataclass(frozen=True)
class Field:
    """Every live table of a tournament, the seats per table and the breaking order."""

    size: int
    tables: tuple[TableState, ...]
    break_order: tuple[int, ...]  # table numbers, the next to break first

    @property
    def players_left(self) -> int:
        return sum(t.count for t in self.tables)

    def chips(self) -> int:
        return sum(t.chips() for t in self.tables)

    def table(self, number: int) -> TableState:
        return next(t for t in self.tables if t.number == number)

    def table_of(self, player: int) -> TableState | None:
        return next((t for t in self.tables if player in t.players()), None)


@dataclass(frozen=True)
class Move:
    """One player changing seats: from a table and seat to another."""

    player: int
    from_table: int
    from_seat: int
    to_table: int
    to_seat: int
    reason: MoveReason


@dataclass(frozen=True)
class Plan:
    """What to do now between hands.

    ``moves`` in order (a break's moves first), ``broken`` the tables they empty,
    ``hold`` the tables that deal no hand until the next plan (a pending move needs
    them, or hand-for-hand waits for the others)."""

    moves: tuple[Move, ...] = ()
    broken: tuple[int, ...] = ()
    hold: frozenset[int] = field(default_factory=frozenset)
    hand_for_hand: bool = False


def table_count(players: int, size: int) -> int:
    """How many tables ``players`` need at ``size`` seats each."""
    return -(-players // size)


def draw_seats(stacks: Mapping[int, int], size: int, rng: random.Random) -> Field:
    """The seat draw: players (id -> starting stack) shuffled, dealt round-robin across
    ``ceil(n / size)`` tables numbered from 1; the highest number breaks first."""
    if size < 2:
        raise ValueError(f"a table has at least 2 seats, got {size}")
    if len(stacks) < 2:
        raise ValueError("a tournament starts with at least 2 players")
    players = sorted(stacks)
    rng.shuffle(players)
    count = table_count(len(players), size)
    dealt: list[list[int]] = [[] for _ in range(count)]
    for i, player in enumerate(players):
        dealt[i % count].append(player)
    tables = []
    for index, group in enumerate(dealt):
        numbers = rng.sample(range(size), len(group))
        seats = tuple(sorted((Seat(n, p, stacks[p]) for n, p in zip(numbers, group, strict=True)),
                             key=lambda s: s.seat))  # fmt: skip
        tables.append(TableState(index + 1, seats))
    order = tuple(range(count, 0, -1))
    return Field(size, tuple(tables), order)


def dealer_order(table: TableState, extra: Iterable[int] = ()) -> list[int]:
    """Occupied seats (and ``extra`` seats, as if taken) in dealing order for the next
    hand: the next dealer first (the next seat clockwise after the button, as
    ``Table.next_dealer``)."""
    numbers = sorted({*(s.seat for s in table.seats), *extra})
    if not numbers:
        return []
    if table.button is None:
        start = 0
    else:
        start = next((i for i, n in enumerate(numbers) if n > table.button), 0)
    return numbers[start:] + numbers[:start]


def _big_blind(order: Sequence[int]) -> int:
    """The seat that posts the big blind in the hand ``order`` deals (dealer first)."""
    if len(order) >= 3:
        return order[2]
    return order[1] if len(order) == 2 else order[0]


def next_big_blind(table: TableState) -> Seat:
    """The player about to post the big blind: the one balancing moves."""
    seat = _big_blind(dealer_order(table))
    return next(s for s in table.seats if s.seat == seat)


def worst_seat(table: TableState, size: int) -> int:
    """The destination's worst position: the empty seat whose newcomer posts the big
    blind soonest (in the next hand if it can be), the lowest number on a tie."""
    best: tuple[int, int] | None = None
    for empty in table.free_seats(size):
        order = dealer_order(table, (empty,))
        hands = _hands_until_big_blind(order, empty)
        if best is None or hands < best[0]:
            best = (hands, empty)
    if best is None:
        raise ValueError(f"table {table.number} has no free seat")
    return best[1]


def _hands_until_big_blind(order: list[int], seat: int) -> int:
    for hands in range(len(order) + 1):
        rotated = order[hands % len(order) :] + order[: hands % len(order)]
        if _big_blind(rotated) == seat:
            return hands
    return len(order)  # unreachable: every seat posts the big blind within one orbit


def hand_for_hand(players_left: int, paid_places: int, tables: int) -> bool:
    """Tables wait for each other when the next two eliminations reach a paid place
    (the bubble and after), while more than one table plays."""
    return tables > 1 and players_left - 1 <= paid_places


def late_seat(field: Field, player: int, stack: int, rng: random.Random) -> tuple[Field, Move]:
    """Seat a late registration at a table with the fewest players (the lowest number on
    a tie), in a random free seat; with every table full, a new table opens and breaks
    first. The table may be in a hand: the newcomer sits out until its next deal."""
    if field.table_of(player) is not None:
        raise ValueError(f"player {player} is already seated")
    candidates = [t for t in field.tables if t.count < field.size]
    before = field.chips()
    if candidates:
        table = min(candidates, key=lambda t: (t.count, t.number))
        order = field.break_order
    else:
        number = max((t.number for t in field.tables), default=0) + 1
        table = TableState(number, ())
        order = (number, *field.break_order)
    seat = rng.choice(table.free_seats(field.size))
    placed = replace(table, seats=_sorted((*table.seats, Seat(seat, player, stack))))
    others = tuple(t for t in field.tables if t.number != table.number)
    result = Field(field.size, tuple(sorted((*others, placed), key=lambda t: t.number)), order)
    if result.chips() != before + stack:
        raise ConservationError("a late seat changed the chips in play")
    return result, Move(player, 0, 0, table.number, seat, MoveReason.LATE)


def eliminate(field: Field, players: Iterable[int]) -> Field:
    """The field without ``players`` (out with no chips: their stacks must be 0)."""
    gone = set(players)
    if not gone:
        return field
    tables = []
    for table in field.tables:
        if not any(s.player in gone for s in table.seats):
            tables.append(table)  # untouched: kept as it is
            continue
        for seat in table.seats:
            if seat.player in gone and seat.stack != 0:
                raise ConservationError(f"player {seat.player} is out with {seat.stack} chips")
        tables.append(replace(table, seats=tuple(s for s in table.seats if s.player not in gone)))
    return replace(field, tables=tuple(tables))


def plan(field: Field, rng: random.Random, *, paid_places: int = 0) -> Plan:
    """What to do now: break a table when the players fit on one fewer, else balance
    to within one player; hold what a pending move needs; hand-for-hand near the money."""
    work = {t.number: t for t in field.tables}
    moves: list[Move] = []
    broken: list[int] = []
    hold: set[int] = set()
    live = len(work)
    if live > 1 and field.players_left <= field.size * (live - 1):
        target = next(n for n in field.break_order if n in work)
        outcome = _break(field, work, target, rng)
        if isinstance(outcome, set):
            hold |= outcome
        else:
            moves += outcome
            broken.append(target)
            del work[target]
    if not hold:
        hold |= _balance(field.size, work, moves)
    h4h = hand_for_hand(field.players_left, paid_places, len(work))
    if h4h and any(t.in_hand for t in work.values()):
        hold |= {n for n, t in work.items() if not t.in_hand}
    return Plan(tuple(moves), tuple(broken), frozenset(hold), h4h)


def _prefer_idle(table: TableState) -> tuple[int, int]:
    return (1 if table.in_hand else 0, table.number)


def _break(
    field: Field, work: dict[int, TableState], target: int, rng: random.Random
) -> list[Move] | set[int]:
    """Moves that empty ``target`` into the seats left, or the tables to hold while a
    table it needs is in a hand."""
    broken = work[target]
    # the tables with a free seat, the fewest players first, idle tables first on a tie
    # (a heap: 166 tables left at the first break of a 1,000-player field)
    open_tables = [
        (t.count, *_prefer_idle(t)) for n, t in work.items() if n != target and t.count < field.size
    ]
    heapq.heapify(open_tables)
    leaving = list(broken.seats)
    rng.shuffle(leaving)
    chosen: list[tuple[Seat, int]] = []
    for seat in leaving:
        count, idle, number = heapq.heappop(open_tables)  # the planner breaks only if they fit
        if count + 1 < field.size:
            heapq.heappush(open_tables, (count + 1, idle, number))
        chosen.append((seat, number))
    needed = {target, *(n for _, n in chosen)}
    if any(work[n].in_hand for n in needed):
        return {n for n in needed if not work[n].in_hand}
    moves = []
    for seat, number in chosen:
        table = work[number]
        to = rng.choice(table.free_seats(field.size))
        work[number] = replace(table, seats=_sorted((*table.seats, replace(seat, seat=to))))
        moves.append(Move(seat.player, target, seat.seat, number, to, MoveReason.BREAK))
    work[target] = replace(broken, seats=())
    return moves


def _balance(size: int, work: dict[int, TableState], moves: list[Move]) -> set[int]:
    """Append the moves that bring the tables within one player; return the tables to
    hold for a move whose source or destination is in a hand."""
    hold: set[int] = set()
    reserved: set[int] = set()
    while len(work) > 1:
        free = [t for n, t in work.items() if n not in reserved]
        if len(free) < 2:
            break
        high = max(t.count for t in work.values())
        low = min(t.count for t in work.values())
        if high - low <= 1:
            break
        sources = [t for t in free if t.count == high]
        targets = [t for t in free if t.count == low]
        if not sources or not targets:
            break
        source = min(sources, key=_prefer_idle)
        target = min(targets, key=_prefer_idle)
        if source.in_hand or target.in_hand:
            hold |= {t.number for t in (source, target) if not t.in_hand}
            reserved |= {source.number, target.number}
            continue
        mover = next_big_blind(source)
        to = worst_seat(target, size)
        work[source.number] = replace(
            source, seats=tuple(s for s in source.seats if s.player != mover.player)
        )
        work[target.number] = replace(
            target, seats=_sorted((*target.seats, replace(mover, seat=to)))
        )
        moves.append(
            Move(mover.player, source.number, mover.seat, target.number, to, MoveReason.BALANCE)
        )
    return hold


def _sorted(seats: Iterable[Seat]) -> tuple[Seat, ...]:
    return tuple(sorted(seats, key=lambda s: s.seat))


def apply_plan(field: Field, plan: Plan) -> Field:
    """The field after ``plan``'s moves and breaks, checked: every player seated once,
    no seat taken twice, the chips unchanged, no table in a hand touched."""
    tables = {t.number: t for t in field.tables}
    for move in plan.moves:
        source, target = tables.get(move.from_table), tables.get(move.to_table)
        if source is None or target is None:
            raise ConservationError(f"a move names a table not in play: {move}")
        if source.in_hand or target.in_hand:
            raise ConservationError(f"a move touches a table in a hand: {move}")
        seat = next((s for s in source.seats if s.player == move.player), None)
        if seat is None or seat.seat != move.from_seat:
            raise ConservationError(f"a move names a player not in that seat: {move}")
        if any(s.seat == move.to_seat for s in target.seats) or not 0 <= move.to_seat < field.size:
            raise ConservationError(f"a move names a seat not free: {move}")
        tables[source.number] = replace(
            source, seats=tuple(s for s in source.seats if s.player != move.player)
        )
        target = tables[move.to_table]
        tables[target.number] = replace(
            target, seats=_sorted((*target.seats, replace(seat, seat=move.to_seat)))
        )
    for number in plan.broken:
        if tables[number].seats:
            raise ConservationError(f"table {number} breaks with players still seated")
        del tables[number]
    result = Field(
        field.size,
        tuple(sorted(tables.values(), key=lambda t: t.number)),
        tuple(n for n in field.break_order if n in tables),
    )
    # Only the tables the plan names can change (the others are the same objects): the
    # check looks at those, so a hand at one of 167 tables does not sort 1,000 players.
    touched = {n for m in plan.moves for n in (m.from_table, m.to_table)} | set(plan.broken)
    check_conserved(_only(field, touched), _only(result, touched))
    before = {t.number: t for t in field.tables}
    if any(t is not before[t.number] for t in result.tables if t.number not in touched):
        raise ConservationError("a plan changed a table it does not name")
    return result


def _only(field: Field, numbers: set[int]) -> Field:
    return replace(field, tables=tuple(t for t in field.tables if t.number in numbers))


def check_conserved(before: Field, after: Field) -> None:
    """Raise :class:`ConservationError` unless ``after`` seats the same players with the
    same stacks, each once, as ``before``."""
    old = sorted((s.player, s.stack) for t in before.tables for s in t.seats)
    new = sorted((s.player, s.stack) for t in after.tables for s in t.seats)
    if old != new:
        raise ConservationError("players or chips changed in a move")
    for table in after.tables:
        if len({s.seat for s in table.seats}) != table.count or table.count > after.size:
            raise ConservationError(f"table {table.number} has a seat taken twice")
