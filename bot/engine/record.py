"""Hand records (RULES.md §7): parsing and validating the JSON, and writing it back."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .cards import FULL_DECK, Card, CardError, format_cards, parse_card, shown_token
from .record_error import RecordError
from .stakes import Stakes
from .variants import VARIANTS, Variant

__all__ = ["RecordError", "Stakes"]  # re-exported: callers import both from here


class ActionKind(StrEnum):
    """An action's kind, as a hand record writes it (RULES.md §7)."""

    CHECK = "check"
    BET = "bet"
    CALL = "call"
    RAISE = "raise"
    FOLD = "fold"
    DISCARD = "discard"
    BUY = "buy"


class BuySource(StrEnum):
    """Where an Abyssinia buy takes its card from (the record's ``from``)."""

    LEFT = "left"
    RIGHT = "right"
    BLIND = "blind"


ACTION_NAMES: tuple[ActionKind, ...] = tuple(ActionKind)
BUY_SOURCES: tuple[BuySource, ...] = tuple(BuySource)
# A record's strings to the members, so a parsed record holds members, not copies.
_KINDS: dict[str, ActionKind] = {kind.value: kind for kind in ActionKind}
_SOURCES: dict[str, BuySource] = {source.value: source for source in BuySource}
_DISCARD, _BUY = ActionKind.DISCARD, ActionKind.BUY  # read per parsed action: globals
FULL_DECK_SET = frozenset(FULL_DECK)


@dataclass(frozen=True)
class Seat:
    player: str
    stack: int


@dataclass(frozen=True)
class Action:
    player: str
    action: str  # an ActionKind; any other text is an action the hand refuses
    cards: tuple[Card, ...] | None = None  # discard only
    source: str | None = None  # buy only: a BuySource (JSON key "from")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"player": self.player, "action": self.action}
        if self.cards is not None:
            out["cards"] = format_cards(self.cards)
        if self.source is not None:
            out["from"] = self.source
        return out

    @classmethod
    def from_json(cls, obj: Any) -> Action:
        """Parse one action object; raise ValueError with a reason a player can read."""
        if not isinstance(obj, dict):
            raise ValueError("an action must be an object with 'player' and 'action'")
        player, name = obj.get("player"), obj.get("action")
        if not isinstance(player, str) or not player:
            raise ValueError("an action needs a 'player' name")
        kind = _KINDS.get(name) if isinstance(name, str) else None
        if kind is None:
            raise ValueError(f"unknown action {shown(name)}; actions are {', '.join(ACTION_NAMES)}")
        cards = source = None
        if kind is _DISCARD:
            cards = _parse_discards(obj.get("cards"))
        if kind is _BUY:
            raw = obj.get("from")
            source = _SOURCES.get(raw) if isinstance(raw, str) else None
            if source is None:
                raise ValueError(f"buy needs 'from': left, right or blind (got {shown(raw)})")
        return cls(player, kind, cards, source)


def _parse_discards(raw: Any) -> tuple[Card, ...]:
    if not isinstance(raw, list):
        raise ValueError("discard needs 'cards': a list of the cards thrown, possibly empty")
    try:
        cards = tuple(parse_card(t) if isinstance(t, str) else _not_text(t) for t in raw)
    except CardError as exc:
        raise ValueError(str(exc)) from None
    if len(set(cards)) != len(cards):
        raise ValueError("a card is named twice in the discard")
    return cards


def _not_text(token: Any) -> Card:
    raise CardError(f"{shown(token)} is not a card (cards are text such as 'As' or '10h')")


def shown(value: Any) -> str:
    """A JSON value named in a message: short and one line, never a deep or huge repr."""
    if isinstance(value, str):
        return shown_token(value, 24)
    if isinstance(value, list | dict):
        return "a list" if isinstance(value, list) else "an object"
    text = json.dumps(value)  # null, true, a number
    return text if len(text) <= 24 else text[:24] + "…"


@dataclass
class HandRecord:
    variant: str
    seats: list[Seat]
    dealer: int
    deck: list[Card]
    reshuffles: list[list[Card]] = field(default_factory=list)
    actions: list[Action] = field(default_factory=list)
    stakes: Stakes | None = None  # None: the cash table's (RULES.md §8.1)
    allin: bool = False  # a tournament hand (RULES.md §8)

    def header_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "variant": self.variant,
            "seats": [{"player": s.player, "stack": s.stack} for s in self.seats],
            "dealer": self.dealer,
            "deck": format_cards(self.deck),
        }
        # Written only when set, so a cash record stays byte-for-byte what it was.
        if self.allin:
            out["allin"] = True
        if self.stakes is not None:
            out["stakes"] = self.stakes.to_json()
        return out

    @property
    def hand_stakes(self) -> Stakes:
        """The stakes this hand is played at: the header's, or the cash table's."""
        return self.stakes or Stakes.cash(self.variant)

    def to_json(self) -> dict[str, Any]:
        out = self.header_json()
        out["reshuffles"] = [format_cards(r) for r in self.reshuffles]
        out["actions"] = [a.to_json() for a in self.actions]
        return out


def parse_header(obj: Any) -> HandRecord:
    """Validate everything but the actions; raise RecordError(None, …) on a bad header."""
    if not isinstance(obj, dict):
        raise RecordError(None, "a hand record must be a JSON object")
    variant = _variant(obj.get("variant"))
    raw = obj.get("seats")
    raw_seats: list[Any] = raw if isinstance(raw, list) else []
    _check_seat_count(len(raw_seats) if isinstance(raw, list) else None, variant)
    seats = _make_seats(_json_seat(item) for item in raw_seats)
    allin = _parse_allin(obj)
    stakes = Stakes.from_json(variant.id, obj["stakes"]) if "stakes" in obj else None
    dealer = _check_table(variant, seats, obj.get("dealer"), stakes, allin)
    deck = _parse_deck(obj.get("deck"))
    reshuffles = _parse_reshuffles(obj.get("reshuffles", []), variant.draws > 1)
    return HandRecord(variant.id, seats, dealer, deck, reshuffles, stakes=stakes, allin=allin)


def _parse_allin(obj: dict[str, Any]) -> bool:
    if "allin" not in obj:
        return False
    if obj["allin"] is not True:
        raise RecordError(None, f"allin must be true when given, not {shown(obj['allin'])}")
    return True


def new_header(
    variant_id: str,
    seats: Iterable[tuple[str, int]],
    dealer: int,
    deck: Iterable[Card],
    *,
    stakes: Stakes | None = None,
    allin: bool = False,
) -> HandRecord:
    """The header of a new live hand, from card ints, checked exactly as ``parse_header``.

    This skips the text round trip (formatting 52 cards and parsing them back)
    that building the JSON header and parsing it would cost on every hand.
    """
    pairs = [(player, stack) for player, stack in seats]
    variant = _variant(variant_id)
    _check_seat_count(len(pairs), variant)
    checked = _make_seats(pairs)
    if stakes is not None:  # a Stakes built in code is checked as a record's would be
        stakes = Stakes.from_json(variant.id, stakes.to_json())
    dealer = _check_table(variant, checked, dealer, stakes, allin is True)
    cards = list(deck)
    if not FULL_DECK_SET.issuperset(cards):
        unknown = next(c for c in cards if c not in FULL_DECK_SET)
        raise RecordError(None, f"deck: {unknown!r} is not a card")
    _check_deck(cards)
    return HandRecord(variant.id, checked, dealer, cards, [], stakes=stakes, allin=allin is True)


def _variant(name: Any) -> Variant:
    variant = VARIANTS.get(name) if isinstance(name, str) else None  # a list is unhashable
    if variant is None:
        names = ", ".join(VARIANTS)
        raise RecordError(None, f"unknown variant {shown(name)}; variants are {names}")
    return variant


def _check_seat_count(count: int | None, variant: Variant) -> None:
    """Raise unless ``count`` (None: the seats are not even a list) fits the table."""
    low, high = variant.min_seats, variant.max_seats
    if count is None or not low <= count <= high:
        shown = "no" if count is None else count
        raise RecordError(None, f"this table seats {low} to {high} players, not {shown}")


def _json_seat(item: Any) -> tuple[Any, Any]:
    if not isinstance(item, dict):
        raise RecordError(None, "each seat must be an object with 'player' and 'stack'")
    return item.get("player"), item.get("stack")


def _make_seats(pairs: Iterable[tuple[Any, Any]]) -> list[Seat]:
    """Seats from (player, stack) pairs, checked one by one as they come."""
    seats = []
    for player, stack in pairs:
        if not isinstance(player, str) or not player:
            raise RecordError(None, "each seat needs a non-empty 'player' name")
        if type(stack) is not int:
            raise RecordError(None, f"{player}'s stack must be a whole number of chips")
        seats.append(Seat(player, stack))
    names = [s.player for s in seats]
    if len(set(names)) < len(names):
        repeated = sorted({n for n in names if names.count(n) > 1})
        raise RecordError(None, f"player {repeated[0]!r} is seated twice")
    return seats


def _check_table(
    variant: Variant, seats: list[Seat], dealer: Any, stakes: Stakes | None, allin: bool
) -> int:
    """Every stack covers the table minimum, and the dealer is one of the seats; the dealer.

    A tournament hand (``allin``) has no table minimum: any stack of 1 chip or more plays.
    """
    if allin:
        minimum = 1
    elif stakes is None:
        minimum = variant.table_minimum
    else:
        minimum = stakes.table_minimum(variant.id)
    for seat in seats:
        if seat.stack < minimum and allin:
            raise RecordError(None, f"{seat.player}'s stack {seat.stack} is below 1 chip")
        if seat.stack < minimum:
            raise RecordError(
                None, f"{seat.player}'s stack {seat.stack} is below the table minimum {minimum}"
            )
    if type(dealer) is not int or not 0 <= dealer < len(seats):
        raise RecordError(None, f"dealer must be a seat index from 0 to {len(seats) - 1}")
    return int(dealer)


def _parse_deck(raw: Any) -> list[Card]:
    if not isinstance(raw, list) or not all(isinstance(t, str) for t in raw):
        raise RecordError(None, "deck must be a list of the 52 cards as text")
    try:
        deck = [parse_card(t) for t in raw]
    except CardError as exc:
        raise RecordError(None, f"deck: {exc}") from None
    _check_deck(deck)
    return deck


def _check_deck(deck: list[Card]) -> None:
    """Raise unless ``deck`` (valid card ints) holds each of the 52 cards exactly once."""
    if len(deck) != 52 or set(deck) != FULL_DECK_SET:
        seen: set[Card] = set()
        twice = [c for c in deck if c in seen or seen.add(c)]  # type: ignore[func-returns-value]
        detail = f"{format_cards(twice[:1])[0]} appears twice" if twice else f"{len(deck)} cards"
        raise RecordError(None, f"deck must hold each of the 52 cards exactly once ({detail})")


def _parse_reshuffles(raw: Any, allowed: bool) -> list[list[Card]]:
    if not isinstance(raw, list) or not all(isinstance(r, list) for r in raw):
        raise RecordError(None, "reshuffles must be a list of card lists")
    if raw and not allowed:
        raise RecordError(None, "only triple draw reshuffles its stub; reshuffles must be empty")
    out = []
    for number, stub in enumerate(raw, 1):
        try:
            cards = [parse_card(t) if isinstance(t, str) else _not_text(t) for t in stub]
        except CardError as exc:
            raise RecordError(None, f"reshuffle {number}: {exc}") from None
        if len(set(cards)) != len(cards):
            raise RecordError(None, f"reshuffle {number} names a card twice")
        out.append(cards)
    return out


def parse_actions(raw: Any) -> list[Action | RecordError]:
    """Parse each action, keeping a RecordError in place of one that is malformed."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise RecordError(None, "actions must be a list")
    out: list[Action | RecordError] = []
    for index, item in enumerate(raw):
        try:
            out.append(Action.from_json(item))
        except ValueError as exc:
            out.append(RecordError(index, str(exc)))
    return out


def parse_record(obj: Any) -> HandRecord:
    """A whole stored record (header, reshuffles, actions); the first malformed part raises."""
    record = parse_header(obj)
    actions = parse_actions(obj.get("actions", []))
    bad = next((a for a in actions if isinstance(a, RecordError)), None)
    if bad is not None:
        raise bad
    record.actions = actions  # type: ignore[assignment]
    return record
