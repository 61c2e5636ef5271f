"""One table's in-memory state (seats, the button, the hand in play) and its row mapping."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from bot.engine import VARIANTS, Action, Hand, Variant, public_view
from bot.opponents import LEVELS
from bot.storage.rows import SeatRow, TableRow

from .models import Code, EventKind, Move, Refused, SeatState, TableEvent, TableSettings, TableView

SETTINGS = tuple(f.name for f in fields(TableSettings))


@dataclass
class Table:
    channel_id: int
    guild_id: int
    variant: Variant
    settings: TableSettings
    seats: list[SeatState]
    button: int | None = None  # seat number of the last dealer
    hand: Hand | None = None
    hand_id: int | None = None
    hand_users: dict[str, int] = field(default_factory=dict)  # hand player key -> user id
    hand_names: dict[str, str] = field(default_factory=dict)  # hand player key -> name at deal
    deadline: float | None = None
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    stale: bool = False  # a step failed and reloading did too: reload before the next one
    # server controls (issue 9), stored with the table's settings
    opener: int | None = None  # who opened it: may close it while nobody else is seated
    closing: bool = False  # closes as soon as the hand in play ends
    kicked: set[int] = field(default_factory=set)  # removed by a moderator, still in the hand
    # the last practice hand and the level its review compares with (My hand, after it)
    last_practice: tuple[int, str] | None = None
    last_step: float = 0.0  # clock time of the last step that changed anything (idle expiry)

    def seat_of(self, user_id: int) -> SeatState | None:
        return next((s for s in self.seats if s.user_id == user_id), None)

    def seated(self, user_id: int) -> SeatState:
        """The user's seat; refused (with how to join) if they have none."""
        seat = self.seat_of(user_id)
        if seat is None:
            raise Refused(Code.NOT_SEATED, variant=self.variant.id)
        return seat

    def in_hand(self, user_id: int) -> bool:
        if self.hand is None or self.hand.complete:
            return False
        key = str(user_id)
        return key in self.hand_users and not self.hand.folded[self.hand.seat_of(key)]

    @property
    def practice(self) -> bool:
        """A table with any computer player: its hands move no chips in the ledger."""
        return any(s.bot for s in self.seats)

    def humans(self) -> list[SeatState]:
        return [s for s in self.seats if not s.bot]

    def unseat(self, seat: SeatState) -> None:
        """Remove ``seat``; a table keeps a person, so when the last one goes the computer
        players stand up too."""
        self.seats.remove(seat)
        if not self.humans():
            self.seats = []

    def free_seat(self) -> int | None:
        taken = {s.seat for s in self.seats}
        return next((n for n in range(self.settings.seat_limit) if n not in taken), None)

    def next_dealer(self, dealt: list[SeatState]) -> int:
        """The button moves one seat clockwise (to the next dealt-in seat) per hand."""
        numbers = sorted(s.seat for s in dealt)
        if self.button is None:
            return numbers[0]
        return next((n for n in numbers if n > self.button), numbers[0])

    def names(self) -> dict[str, str]:
        """Hand player keys (user ids as text) to display names: the seat's current name,
        else the name the hand was dealt under (the player may have left since)."""
        return {**self.hand_names, **{str(s.user_id): s.name for s in self.seats}}

    def to_act(self) -> SeatState | None:
        """The seat whose turn it is in the hand in play (None: no decision pending)."""
        hand = self.hand
        if hand is None or hand.complete:
            return None
        decision = hand.decision()
        if decision is None:
            return None
        user = self.hand_users.get(decision.player)
        return self.seat_of(user) if user is not None else None

    def strongest(self) -> str | None:
        """The strongest computer level seated (None: not a practice table)."""
        levels = [s.bot for s in self.seats if s.bot]
        return max(levels, key=LEVELS.index) if levels else None

    def hand_events(self) -> list[TableEvent]:
        """The events of the hand in play, rebuilt from its record (a restart's Recent log)."""
        hand = self.hand
        if hand is None or self.hand_id is None:
            return []
        view = self.view()
        record = hand.record()
        actions, record.actions = record.actions, []
        replay = Hand(record)  # the record holds the reshuffles: no shuffling needed
        players = tuple(view.name(p) for p in hand.players)
        dealt = {"players": players, "skipped": ()}
        events = [TableEvent(EventKind.DEALT, view, dealt, hand_id=self.hand_id)]
        for action in actions:
            replay.apply(action)
            move = describe_action(action, view.names, replay)
            events.append(TableEvent(EventKind.ACTION, view, move=move))
        return events

    def view(self) -> TableView:
        names = self.names()
        hand = public_view(self.hand) if self.hand else None
        to_act = hand.to_act if hand else None
        return TableView(
            channel_id=self.channel_id,
            guild_id=self.guild_id,
            variant=self.variant.id,
            settings=self.settings,
            seats=tuple(replace(s) for s in self.seats),
            button=self.button,
            hand_id=self.hand_id,
            hand=hand,
            turn=len(self.hand.actions) if self.hand else 0,
            deadline=self.deadline if hand and not hand.complete else None,
            names=names,
            to_act_user=self.hand_users.get(to_act) if to_act else None,
            closing=self.closing,
            review_hand_id=self.last_practice[0] if self.last_practice else None,
        )


def describe_action(move: Action, names: dict[str, str], hand: Hand, timeout: bool = False) -> Move:
    """The public facts of an applied action: discards say how many cards, never which."""
    name = names.get(move.player, move.player)
    if move.action == "discard":
        return Move(move.player, name, "discard", count=len(move.cards or ()), timeout=timeout)
    if move.action == "buy":
        bought = hand.holdings[hand.seat_of(move.player)][-1]
        return Move(move.player, name, "buy", source=move.source, card=bought, timeout=timeout)
    return Move(move.player, name, move.action, timeout=timeout)


# ----- row mapping: the table as the store keeps it ------------------------------------


def table_row(table: Table) -> TableRow:
    s = table.settings
    settings = {
        "seat_limit": s.seat_limit,
        "turn_timeout": s.turn_timeout,
        "auto_deal": s.auto_deal,
        **controls_json(table),
    }
    return TableRow(
        table.channel_id, table.guild_id, table.variant.id, settings, table.button, table.deadline
    )


def table_of(row: TableRow, seats: Sequence[SeatRow]) -> Table:
    """A table from its stored row and seats (no hand: see ``Steps.resume``)."""
    settings = TableSettings(**{k: row.settings[k] for k in SETTINGS if k in row.settings})
    table = Table(row.channel_id, row.guild_id, VARIANTS[row.variant], settings, seats_of(seats))
    table.button, table.deadline = row.button, row.turn_deadline
    restore_controls(table, row.settings)
    return table


def seat_rows(seats: Sequence[SeatState]) -> list[SeatRow]:
    return [
        SeatRow(s.seat, s.user_id, s.name, s.sitting_out, s.leaving, s.timeouts, s.bot, s.stack)
        for s in seats
    ]


def seats_of(rows: Sequence[SeatRow]) -> list[SeatState]:
    return [
        SeatState(
            s.seat,
            s.user_id,
            s.display_name,
            s.sitting_out,
            s.leaving,
            s.timeouts_in_row,
            s.bot,
            s.practice_stack,
        )
        for s in rows
    ]


def controls_json(table: Table) -> dict[str, Any]:
    """The server-control state kept with a table's settings (opener, closing, kicked)."""
    return {"opener": table.opener, "closing": table.closing, "kicked": sorted(table.kicked)}


def restore_controls(table: Table, stored: dict[str, Any]) -> None:
    table.opener = stored.get("opener")
    table.closing = bool(stored.get("closing", False))
    table.kicked = set(stored.get("kicked", ()))
