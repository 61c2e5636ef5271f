"""Plain data of the table layer: seats, settings, and the views handed to Discord."""

from __future__ import annotations

from dataclasses import dataclass

from bot.engine import PublicView, SeatView


class Refused(Exception):
    """A request the table cannot honour now; the message says why and what is possible."""


@dataclass
class SeatState:
    seat: int  # fixed position at the table; clockwise order is seat order
    user_id: int
    name: str
    sitting_out: bool = False
    leaving: bool = False  # leaves when the current hand ends
    timeouts: int = 0  # timeouts in a row


@dataclass(frozen=True)
class TableSettings:
    seat_limit: int
    turn_timeout: float
    auto_deal: bool = False


@dataclass(frozen=True)
class TableView:
    """Everything anyone may see of a table: no hidden card is in here."""

    channel_id: int
    guild_id: int
    variant: str
    settings: TableSettings
    seats: tuple[SeatState, ...]
    button: int | None  # seat number of the last (or current) dealer
    hand_id: int | None
    hand: PublicView | None  # None between hands
    turn: int  # actions applied so far in this hand: stale buttons carry an older number
    deadline: float | None  # unix time the player to act times out
    names: dict[str, str]  # hand player key -> display name
    to_act_user: int | None

    def name(self, player: str) -> str:
        return self.names.get(player, player)


@dataclass(frozen=True)
class TableEvent:
    """Something happened at a table; the Discord layer re-renders from ``view``."""

    kind: str  # opened, seated, left, sitout, back, dealt, action, timeout, finished
    view: TableView
    text: str  # a public one-line summary, never a hidden card
    cards_changed: tuple[int, ...] = ()  # users whose own cards changed (send them their hand)
    result: PublicView | None = None  # the finished hand, when kind == "finished"
    hand_id: int | None = None


@dataclass(frozen=True)
class ActionResult:
    text: str  # what happened, for the acting player
    view: TableView
    seat: SeatView | None  # the actor's own view after the action (private)
