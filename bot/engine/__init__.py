"""The rules engine: pure, synchronous and deterministic (no I/O, clock or global random)."""

from .cards import Card, CardError, format_card, parse_card, parse_cards, pretty_card
from .hand import Award, AwardLabel, Decision, Hand, IllegalAction, MarketOffer, Pot, Refusal
from .rankings import Category, Ranking
from .record import Action, ActionKind, BuySource, HandRecord, RecordError, Seat, parse_header
from .stakes import Stakes
from .variants import VARIANTS, Phase, Variant
from .views import PublicView, SeatInfo, SeatView, public_view, seat_view

__all__ = [
    "VARIANTS",
    "Action",
    "ActionKind",
    "Award",
    "AwardLabel",
    "BuySource",
    "Card",
    "CardError",
    "Category",
    "Decision",
    "Hand",
    "HandRecord",
    "IllegalAction",
    "MarketOffer",
    "Phase",
    "Pot",
    "PublicView",
    "Ranking",
    "RecordError",
    "Refusal",
    "Seat",
    "SeatInfo",
    "SeatView",
    "Stakes",
    "Variant",
    "format_card",
    "parse_card",
    "parse_cards",
    "parse_header",
    "pretty_card",
    "public_view",
    "seat_view",
]
