"""One table's in-memory state (seats, the button, the hand in play) and its row mapping."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any

from bot.engine import VARIANTS, Action, ActionKind, Hand, Variant, public_view
from bot.opponents import LEVELS
from bot.storage.rows import SeatRow, TableRow

from .models import (
    Code,
    EventKind,
    MixedView,
    Move,
    Refused,
    SeatState,
    TableEvent,
    TableSettings,
    TableView,
)
from .rotation import Rotation, RotationKind

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
    # which opening of the channel's table this is (the database counts them; None until
    # stored): every write for the table names it, and is refused once it is closed or
    # replaced
    generation: int | None = None
    # server controls (issue 9), stored with the table's settings
    opener: int | None = None  # who opened it: may close it while nobody else is seated
    closing: bool = False  # closes as soon as the hand in play ends
    kicked: set[int] = field(default_factory=set)  # removed by a moderator, still in the hand
    # the last practice hand and the level its review compares with (My hand, after it)
    last_practice: tuple[int, str] | None = None
    last_step: float = 0.0  # clock time of the last step that changed anything (idle expiry)
    # a mixed table (issue 38): its rotation, stored with the table's settings, and the
    # time an awaited dealer's choice runs out (memory only: a restart gives a fresh one)
    rotation: Rotation | None = None
    choice_deadline: float | None = None
    tournament_id: int | None = None  # a tournament's table: its chips (tournament_mode.py)
    tournament_table: int | None = None  # its number in a multi-table tournament

    @property
    def minimum(self) -> int:
        """Chips a player needs to be dealt in (a mixed table: the largest of its games')."""
        return self.rotation.minimum if self.rotation else self.variant.table_minimum

    def show_next_game(self) -> None:
        """Between hands a mixed table is the game its next hand will be dealt in."""
        if self.rotation is not None and self.hand is None:
            self.variant = VARIANTS[self.rotation.between_hands]

    def chooser(self) -> SeatState | None:
        """Dealer's choice: who picks the next game now, or None if no choice is awaited:
        the first time the seat the button goes to next, then the next seat clockwise
        from the last chooser, among those playing on (one who left is passed over)."""
        rotation = self.rotation
        if rotation is None or not rotation.awaiting_choice or self.hand is not None:
            return None
        playing = [s for s in self.seats if not s.sitting_out]
        if not playing:
            return None
        if rotation.chooser is None:
            seat = self.next_dealer(playing)
        else:
            numbers = sorted(s.seat for s in playing)
            seat = next((n for n in numbers if n > rotation.chooser), numbers[0])
        return next(s for s in playing if s.seat == seat)

    def rotation_for_deal(self, players: int, now: float) -> Rotation | None:
        """The rotation after dealing the next hand to ``players`` (None: not mixed).
        An awaited choice refuses the deal until its time runs out; a computer player
        or a chooser out of time gets the default game."""
        rotation = self.rotation
        if rotation is None:
            return None
        if rotation.awaiting_choice:
            chooser = self.chooser()
            waiting = self.choice_deadline is not None and now < self.choice_deadline
            if chooser is not None and not chooser.bot and waiting:
                raise Refused(
                    Code.CHOICE_PENDING,
                    chooser=chooser.user_id,
                    name=chooser.name,
                    deadline=self.choice_deadline,
                )
            rotation = rotation.choose(rotation.upcoming, chooser.seat if chooser else None)
        return rotation.dealt(players)

    def mixed_view(self) -> MixedView | None:
        rotation = self.rotation
        if rotation is None:
            return None
        kind, games = rotation.kind.value, rotation.games
        if self.hand is not None:
            now = self.variant.id
            following = rotation.following(now)
            return MixedView(kind, games, now, rotation.left, following, every=rotation.every)
        if rotation.awaiting_choice:
            chooser = self.chooser()
            now = rotation.games[rotation.current]
            return MixedView(
                kind,
                games,
                now,
                0,
                None,
                chooser.user_id if chooser else None,
                chooser.name if chooser else None,
                self.choice_deadline,
                rotation.every,
            )
        now = rotation.upcoming
        left = rotation.left
        if left == 0:  # a new block starts with the next hand
            playing = sum(1 for s in self.seats if not s.sitting_out)
            left = rotation.every if rotation.kind is RotationKind.HANDS else max(playing, 2)
        return MixedView(kind, games, now, left, rotation.following(now), every=rotation.every)

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
        """A table with any computer player, or a tournament's: its hands move no chips in
        the ledger (the seats' stacks are the table's own)."""
        return self.tournament_id is not None or any(s.bot for s in self.seats)

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
            mixed=self.mixed_view(),
            tournament_id=self.tournament_id,
        )


def describe_action(move: Action, names: dict[str, str], hand: Hand, timeout: bool = False) -> Move:
    """The public facts of an applied action: discards say how many cards, never which."""
    name = names.get(move.player, move.player)
    if move.action == ActionKind.DISCARD:
        count = len(move.cards or ())
        return Move(move.player, name, ActionKind.DISCARD, count=count, timeout=timeout)
    if move.action == ActionKind.BUY:
        bought = hand.holdings[hand.seat_of(move.player)][-1]
        source, card = move.source, bought
        return Move(move.player, name, ActionKind.BUY, source=source, card=card, timeout=timeout)
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
        table.channel_id,
        table.guild_id,
        table.variant.id,
        settings,
        table.button,
        table.deadline,
        generation=table.generation,
    )


def rotated_settings(table: Table, rotation: Rotation) -> dict[str, Any]:
    """The table's stored settings with ``rotation`` in place of its own."""
    return {**table_row(table).settings, "rotation": rotation.to_json()}


def table_of(row: TableRow, seats: Sequence[SeatRow]) -> Table:
    """A table from its stored row and seats (no hand: see ``Steps.resume``)."""
    settings = TableSettings(**{k: row.settings[k] for k in SETTINGS if k in row.settings})
    table = Table(row.channel_id, row.guild_id, VARIANTS[row.variant], settings, seats_of(seats))
    table.button, table.deadline = row.button, row.turn_deadline
    table.generation = row.generation
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
    """The server-control state kept with a table's settings (opener, closing, kicked),
    and a mixed table's rotation."""
    controls: dict[str, Any] = {
        "opener": table.opener,
        "closing": table.closing,
        "kicked": sorted(table.kicked),
        "tournament": table.tournament_id,
    }
    if table.tournament_table is not None:
        controls["tournament_table"] = table.tournament_table
    if table.rotation is not None:
        controls["rotation"] = table.rotation.to_json()
    return controls


def restore_controls(table: Table, stored: dict[str, Any]) -> None:
    table.opener = stored.get("opener")
    table.closing = bool(stored.get("closing", False))
    table.kicked = set(stored.get("kicked", ()))
    rotation = stored.get("rotation")
    table.rotation = Rotation.from_json(rotation) if rotation else None
    table.show_next_game()  # a live hand resumed later is its own game (``Steps.resume``)
    table.tournament_id = stored.get("tournament")
    table.tournament_table = stored.get("tournament_table")
