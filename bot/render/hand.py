"""The hand image: a strip of a player's face-up cards and card backs."""

from __future__ import annotations

from collections.abc import Sequence

from PIL import Image

from .cards import BACK, EMPTY, card_tile
from .palette import FELT, HAND_CARD
from .png import to_png


def render_hand(cards: Sequence[int], hidden: int = 0) -> bytes:
    """A horizontal strip of face-up ``cards`` followed by ``hidden`` card backs.

    With no cards at all, one empty dashed slot is drawn so the image is never
    blank.
    """
    cw, ch = HAND_CARD
    pad, gap = 12, 8
    hidden = max(0, int(hidden))
    slots = [*cards, *([BACK] * hidden)] or [EMPTY]
    width = pad * 2 + len(slots) * cw + (len(slots) - 1) * gap
    height = pad * 2 + ch
    strip = Image.new("RGB", (width, height), FELT)
    x = pad
    for card in slots:
        strip.paste(card_tile(card, cw, ch), (x, pad))
        x += cw + gap
    return to_png(strip)
