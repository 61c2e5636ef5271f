"""Hand and card names as players say them, in the reader's language.

The engine says which category five cards make (``bot.engine.rankings.category``);
this module picks the ranks that name the hand and asks the catalog for the words:
"seven-five low", "the wheel", "pair of kings", "the number one" in English, "par de
reis", "o wheel" in Portuguese, "đôi K", "thú K và 4" in Vietnamese.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from bot.engine.cards import RANKS, Card, rank_of, suit_of
from bot.engine.rankings import Category, Ranking, category

from .catalog import t

_ACE = 12
_WHEEL = {12, 0, 1, 2, 3}  # A 2 3 4 5
_NUMBER_ONE = {12, 0, 1, 2, 4}  # A 2 3 4 6: the best ace-to-six hand


def rank_name(rank: int, form: str = "rank") -> str:
    """``form``: ``rank`` (a king), ``ranks`` (kings) or ``rank.the`` (the king)."""
    return t(f"{form}.{RANKS[rank]}")


def card_name(card: Card) -> str:
    """A card spelled out: "ace of spades", "ás de espadas", "Át bích"."""
    return t("card.name", rank=rank_name(rank_of(card)), suit=t(f"suit.{suit_of(card)}"))


def _low_order(rank: int) -> int:
    """Ace below the deuce, for reading a low hand from the top down."""
    return -1 if rank == _ACE else rank


def _digits(ranks: Sequence[int]) -> str:
    return "-".join("10" if RANKS[r] == "T" else RANKS[r] for r in ranks)


def hand_name(ranking: str, cards: Sequence[Card]) -> str:
    """The name of five cards under ``ranking`` (``high``, ``a5`` or ``a6``)."""
    cat = category(ranking, cards)
    ranks = [rank_of(c) for c in cards]
    low = ranking != Ranking.HIGH
    counts = Counter(ranks)
    groups = sorted(counts, key=lambda r: -counts[r])  # trips before the pair of a full house
    if cat == Category.NO_PAIR:
        if not low:
            return t("handname.high_card", rank=rank_name(max(ranks)))
        top = sorted(ranks, key=_low_order, reverse=True)
        if set(ranks) == _WHEEL and ranking == Ranking.A5:
            return t("handname.low.wheel", cards=_digits(top))
        if set(ranks) == _NUMBER_ONE and ranking == Ranking.A6:
            return t("handname.low.number_one", cards=_digits(top))
        return t(
            "handname.low", cards=_digits(top), top=rank_name(top[0]), second=rank_name(top[1])
        )
    if cat == Category.PAIR:
        return t("handname.pair", ranks=rank_name(groups[0], "ranks"))
    if cat == Category.TWO_PAIR:
        pairs = sorted(groups[:2], key=_low_order if low else int, reverse=True)
        return t(
            "handname.two_pair",
            high=rank_name(pairs[0], "ranks"),
            low=rank_name(pairs[1], "ranks"),
        )
    if cat == Category.TRIPS:
        return t("handname.trips", ranks=rank_name(groups[0], "ranks"))
    if cat == Category.FULL_HOUSE:
        return t(
            "handname.full_house",
            trips=rank_name(groups[0], "ranks"),
            pair=rank_name(groups[1], "ranks"),
        )
    if cat == Category.QUADS:
        return t("handname.quads", ranks=rank_name(groups[0], "ranks"))
    if cat == Category.FLUSH:
        top_card = max(ranks, key=_low_order if low else int)  # in ace-to-six the ace is low
        return t("handname.flush", rank=rank_name(top_card, "rank.the"))
    # a straight or straight flush: named by its top card; the wheel's top is the five
    top_rank = 3 if set(ranks) == _WHEEL else max(ranks)
    if cat == Category.STRAIGHT_FLUSH:
        if top_rank == _ACE and ranking == Ranking.HIGH:
            return t("handname.royal_flush")
        return t("handname.straight_flush", rank=rank_name(top_rank, "rank.the"))
    if set(ranks) == _WHEEL:
        return t("handname.straight.wheel")
    return t("handname.straight", rank=rank_name(top_rank, "rank.the"))


def split_name(cards: Sequence[Card]) -> str:
    """Abyssinia: the same five cards read high and read low."""
    return t("hand.split", high=hand_name(Ranking.HIGH, cards), low=hand_name(Ranking.A5, cards))
