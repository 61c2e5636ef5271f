"""One table's in-memory state: seats, the button, the hand in play."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field, replace

from bot.engine import Action, Hand, Variant, public_view

from .models import Move, SeatState, TableSettings, TableView


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

    def seat_of(self, user_id: int) -> SeatState | None:
        return next((s for s in self.seats if s.user_id == user_id), None)

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
