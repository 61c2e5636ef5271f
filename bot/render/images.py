"""The card images the UI sends: the hand and the Abyssinia board, drawn off the event loop.

``render_hand`` (``bot/render/hand.py``) and ``render_board`` (``bot/render/board.py``)
are pure functions of their arguments that return PNG bytes (the same input gives the
same bytes); their ``_async`` forms here draw them on a render thread and cache them.
The pieces: ``palette`` (colours, sizes, the supersampled canvas), ``lettering`` (the
bundled fonts and text), ``cards`` (card tiles), ``captions`` (header and name tiles),
``png`` (the encoder), ``bands`` (a board's rows encoded band by band, an unchanged
band not again), ``cache`` (finished images by their inputs).
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor

from .board import ENGLISH_LABELS, BoardLabels, MarketSlot, PlayerRow, render_board
from .cache import ImageCache
from .hand import render_hand

__all__ = [
    "ENGLISH_LABELS",
    "BoardLabels",
    "MarketSlot",
    "PlayerRow",
    "render_board",
    "render_board_async",
    "render_hand",
    "render_hand_async",
]

# Hands and boards each have their own thread (with its own FreeType faces, see
# lettering.font_at), so a player's private answer, waiting for a hand, never queues behind
# table boards. Idle workers end at interpreter exit: concurrent.futures joins them then.
# Public so a test can keep a thread busy, as other tables' images do under load.
HAND_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="render-hand")
BOARD_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="render-board")
_HANDS = ImageCache(1024, HAND_POOL)
_BOARDS = ImageCache(512, BOARD_POOL)


async def render_hand_async(cards: Sequence[int], hidden: int = 0) -> bytes:
    """``render_hand`` drawn off the event loop; the same cards are drawn once."""
    key = (tuple(cards), int(hidden))
    return await _HANDS.get(key, lambda: render_hand(*key))


async def render_board_async(
    market: Sequence[MarketSlot],
    players: Sequence[PlayerRow],
    pot: int,
    title: str = "",
    labels: BoardLabels = ENGLISH_LABELS,
) -> bytes:
    """``render_board`` drawn off the event loop; an unchanged board is not drawn again."""
    rows = tuple((name, tuple(cards), folded) for name, cards, folded in players)
    key = (tuple(market), rows, pot, title, labels)
    return await _BOARDS.get(key, lambda: render_board(*key))
