"""Cards as small integers, and the two text notations of RULES.md §1.

A card is an ``int`` in the Cactus-Kev layout so the rankings can evaluate a
hand with a few bit operations and one table lookup::

    bits 16-28: one bit for the rank      bits 12-15: one bit for the suit
    bits  8-11: rank index (2=0 … A=12)   bits  0-7 : a prime for the rank
"""

from __future__ import annotations

from collections.abc import Iterable

Card = int

RANKS = "23456789TJQKA"
SUITS = "cdhs"
SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
_SUIT_BITS = {"c": 0x8000, "d": 0x4000, "h": 0x2000, "s": 0x1000}
_SYMBOL_TO_SUIT = {v: k for k, v in SUIT_SYMBOLS.items()}


class CardError(ValueError):
    """Raised for card text that names no card; the message names the token.

    ``token`` is the offending text (None when the input was not text at all), so a
    caller can explain the problem in its own words.
    """

    def __init__(self, message: str, token: str | None = None) -> None:
        super().__init__(message)
        self.token = token


def make_card(rank: int, suit: str) -> Card:
    """Build a card from a rank index (2=0 … A=12) and a suit letter."""
    return (1 << (16 + rank)) | _SUIT_BITS[suit] | (rank << 8) | PRIMES[rank]


FULL_DECK: tuple[Card, ...] = tuple(make_card(r, s) for s in SUITS for r in range(13))
_TEXT = {
    c: RANKS[(c >> 8) & 0xF] + next(s for s, b in _SUIT_BITS.items() if c & b) for c in FULL_DECK
}
_BY_TEXT = {t: c for c, t in _TEXT.items()}


def rank_of(card: Card) -> int:
    """Rank index, 2=0 … A=12."""
    return (card >> 8) & 0xF


def suit_of(card: Card) -> str:
    return _TEXT[card][1]


def shown_token(token: str, limit: int = 12) -> str:
    """A token quoted for a message: cut short, and escaped where it is not plain text
    (a lone surrogate or a control character would break the reply or the JSON output)."""
    cut = token if len(token) <= limit else token[:limit] + "…"
    return f"'{cut}'" if cut.isprintable() else ascii(cut)  # surrogates are not printable


def parse_card(token: str) -> Card:
    """Parse ``As``, ``10h``, ``T♦``, ``a♠``; raise CardError naming the token."""
    text = token.strip().replace("\ufe0f", "")
    if len(text) < 2:
        raise CardError(
            f"{shown_token(token)} is not a card (write rank then suit, like As or 10h)", token
        )
    card = _BY_TEXT.get(_rank_text(text[:-1]) + _SYMBOL_TO_SUIT.get(text[-1], text[-1].lower()))
    if card is None:
        raise CardError(
            f"{shown_token(token)} is not a card: "
            "ranks are A 2-9 T(10) J Q K, suits c d h s or ♣ ♦ ♥ ♠",
            token,
        )
    return card


def _rank_text(rank: str) -> str:
    rank = rank.upper()
    return "T" if rank == "10" else rank


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse cards from a string (separated by spaces or commas) or a list of tokens."""
    tokens = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    if not all(isinstance(t, str) for t in tokens):
        raise CardError("cards must be given as text such as 'As' or '10h'")
    return [parse_card(t) for t in tokens]


def format_card(card: Card) -> str:
    """``As`` notation."""
    return _TEXT[card]


def pretty_card(card: Card) -> str:
    """``A♠`` notation (``10`` is kept as ``T`` to stay two characters wide)."""
    text = _TEXT[card]
    return text[0] + SUIT_SYMBOLS[text[1]]


def format_cards(cards: Iterable[Card]) -> list[str]:
    return [_TEXT[c] for c in cards]
