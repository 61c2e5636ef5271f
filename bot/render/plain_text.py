"""Plain-text fallback for the card images (for when images can't be sent).

Cards are written rank + suit symbol, with ten as ``10`` (as in the images):
``A♠ 10♥ 3♦``. ``parse_card`` reads this notation back.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from bot.engine.cards import RANKS, SUIT_SYMBOLS, rank_of, suit_of

__all__ = ["board_text", "card_text", "cards_text", "market_text"]


def card_text(card: int) -> str:
    """``A♠``, ``10♥``."""
    rank = RANKS[rank_of(card)]
    return ("10" if rank == "T" else rank) + SUIT_SYMBOLS[suit_of(card)]


def cards_text(cards: Iterable[int], hidden: int = 0) -> str:
    """``A♠ 10♥ 3♦``; ``hidden`` unknown cards are shown as ``??`` each; ``—`` if none."""
    parts = [card_text(c) for c in cards] + ["??"] * max(0, hidden)
    return " ".join(parts) if parts else "—"


def market_text(market: Sequence[tuple[str, int | None, int | None]]) -> str:
    """One line: ``Market: left 2♣ (2) · right K♦ (1) · blind ??``."""
    slots = []
    for label, card, price in market:
        shown = "empty" if card is None else card_text(card)
        cost = "" if price is None else f" ({price})"
        slots.append(f"{label} {shown}{cost}")
    slots.append("blind ??")
    return "Market: " + " · ".join(slots)


def board_text(
    market: Sequence[tuple[str, int | None, int | None]],
    players: Sequence[tuple[str, Sequence[int], bool]],
    pot: int,
    title: str = "",
) -> str:
    """The same content as ``render_board``, as plain lines."""
    lines = []
    if title:
        lines.append(title)
    lines.append(f"Pot: {pot}")
    lines.append(market_text(market))
    for name, cards, folded in players:
        line = f"{name}: {cards_text(cards)}"
        if folded:
            line += " (folded)"
        lines.append(line)
    return "\n".join(lines)
