"""The Abyssinia board image: the header, the market and the blind stub, a row per player.

It is pasted together at the final size from tiles: each independent region (a
card with its shadow, a player's name, a market slot, a line of text) is drawn
supersampled once, scaled down on its background colour and cached by what it
shows. A tile sits on whole pixels of a plain background and never overlaps
another, and everything it draws (shadows, overhanging glyphs) stays inside it,
so the result is the image drawn whole, at a fraction of the cost: an action
changes one row and the header, and only their bands of rows are pasted and deflated
again (``bands.Layout``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from babel.numbers import format_decimal
from PIL import Image, ImageDraw

from .bands import BandCache, Layout
from .captions import header_text, player_name
from .cards import EMPTY, card_back, card_face, card_tile, empty_slot, place
from .lettering import draw_text, font_at, safe_text, text_width
from .palette import (
    BAND_OUT,
    FELT,
    FELT_DARK,
    GOLD,
    MARKET_CARD,
    MARKET_TOP,
    MAX_WIDTH,
    NAME_W,
    PAD,
    PLAYER_CARD,
    ROW_H,
    ROW_MARGIN,
    SS,
    TEXT,
    TEXT_DIM,
    TEXT_MARGIN,
    canvas,
    reduced,
)

MarketSlot = tuple[str, int | None, int | None]
"""(label such as ``"left"``, card or ``None`` when empty, price or ``None``)."""
PlayerRow = tuple[str, Sequence[int], bool]
"""(name, bought open cards, folded)."""


@dataclass(frozen=True)
class BoardLabels:
    """The words drawn on the board, in the table's language.

    ``pot`` and ``costs`` are templates with a ``{pot}`` / ``{price}`` placeholder;
    ``locale`` formats those numbers (Babel's locale names: ``en``, ``pt_BR``, ``vi``).
    """

    title: str = "Abyssinia"
    pot: str = "Pot {pot}"
    blind: str = "blind"
    empty: str = "empty"
    costs: str = "costs {price}"
    costs_unknown: str = "costs ?"
    folded: str = "folded"
    locale: str = "en"

    def number(self, n: int) -> str:
        return format_decimal(n, locale=self.locale)


ENGLISH_LABELS = BoardLabels()


# The market's geometry, in logical pixels (the rows' in bot/render/palette.py).
_SLOT_GAP = 18
_STUB_SHIFT = 7  # each card of the blind stub sits this far right of the one below
_LABEL_H, _PRICE_H = 22, 24
_MARKET_H = _LABEL_H + MARKET_CARD[1] + _PRICE_H
_PLAYER_GAP = 6
_COLUMN_GAP = PAD + 10
# Margins of the slot tiles around what they draw: a market label (up to a card and
# 14 px wide) or price is centred on its card and may reach into half the gap to the
# next slot, and slots stay inside the band's straight part (its corners are rounded
# with a radius of 10).
_SLOT_MARGIN = _SLOT_GAP // 2
_SLOT_TOP = 4  # a slot tile starts this far above the market (the band 6)
_SLOT_BOTTOM = 2  # and ends this far below it (the band 4)

# The boards' bands of rows (the header, the market, each row of players) already
# deflated: about 10 kB each, so some 1,600 of them, the unchanged rows of a few hundred
# tables' boards (the figures: docs/benchmarks.md, "Card images").
_BANDS = BandCache(16 * 2**20)


def _tile(draw: Callable[..., Image.Image], *args: Hashable) -> tuple[Image.Image, Hashable]:
    """A tile and what it shows: the tile function (pure, cached by its arguments) and its
    arguments, by which a band of the board is known (``bands.Layout``)."""
    return draw(*args), (draw.__name__, *args)


@lru_cache(maxsize=16)
def _market_band(w: int, h: int) -> Image.Image:
    """The darker band behind the market, ``w`` x ``h`` (plus the rectangle's closing
    edge), on the felt, at the final size. Callers must not modify the result."""
    tile = canvas(w + 1, h + 1)
    ImageDraw.Draw(tile).rounded_rectangle((0, 0, w * SS, h * SS), radius=10 * SS, fill=FELT_DARK)
    return reduced(tile)


def _slot_canvas(card_w: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """A market slot's supersampled tile: ``_SLOT_MARGIN`` either side of ``card_w``."""
    tile = canvas(card_w + 2 * _SLOT_MARGIN, _SLOT_TOP + _MARKET_H + _SLOT_BOTTOM, FELT_DARK)
    return tile, ImageDraw.Draw(tile)


@lru_cache(maxsize=128)
def _market_slot(label: str, card: int | None, price: str | None, empty: str) -> Image.Image:
    """One market slot: its label, its card or an empty outline reading ``empty``, its
    ``price`` text, on the band, at the final size. Callers must not modify the result."""
    mw, mh = MARKET_CARD
    tile, d = _slot_canvas(mw)
    x, top = _SLOT_MARGIN, _SLOT_TOP
    cx = x + mw / 2
    draw_text(d, (cx, top + _LABEL_H / 2), label, 16, TEXT_DIM, anchor="mm", max_width=mw + 14)
    if card is None:
        place(tile, x, top + _LABEL_H, empty_slot(mw, mh), shadow=False)
        draw_text(d, (cx, top + _LABEL_H + mh / 2), empty, 14, TEXT_DIM, anchor="mm")
    else:
        place(tile, x, top + _LABEL_H, card_face(card, mw, mh))
    if price is not None:
        price_y = top + _LABEL_H + mh + _PRICE_H / 2 + 2
        draw_text(d, (cx, price_y), price, 16, GOLD, anchor="mm", bold=True)
    return reduced(tile)


@lru_cache(maxsize=16)
def _blind_stub(label: str, price: str) -> Image.Image:
    """The blind stub: a small stack of backs between its label and ``price``, on the
    band, at the final size. Callers must not modify the result."""
    mw, mh = MARKET_CARD
    tile, d = _slot_canvas(mw + 2 * _STUB_SHIFT)
    x, top = _SLOT_MARGIN, _SLOT_TOP
    cx = x + _STUB_SHIFT + mw / 2
    draw_text(d, (cx, top + _LABEL_H / 2), label, 16, TEXT_DIM, anchor="mm", max_width=mw + 14)
    for k in (2, 1, 0):
        y = top + _LABEL_H - 3 * k + 6
        place(tile, x + _STUB_SHIFT * k, y, card_back(mw, mh), shadow=k == 2)
    price_y = top + _LABEL_H + mh + _PRICE_H / 2 + 2
    draw_text(d, (cx, price_y), price, 16, TEXT_DIM, anchor="mm", bold=True)
    return reduced(tile)


def render_board(
    market: Sequence[MarketSlot],
    players: Sequence[PlayerRow],
    pot: int,
    title: str = "",
    labels: BoardLabels = ENGLISH_LABELS,
) -> bytes:
    """The Abyssinia board: market slots and the blind stub, then one row per player.

    ``market`` holds ``(label, card or None, price or None)`` per slot, left to
    right; ``players`` holds ``(name, open cards, folded)`` in seat order.
    ``labels`` are the words drawn, in the table's language (``bot.ui`` fills
    them from the catalog); the market slot labels come with ``market``.
    Folded players are drawn grey with their name struck through. Up to four
    players go in one column; more go in two columns (width stays ≤ 1000 px).
    """
    pad = PAD
    mw, _ = MARKET_CARD
    pw, ph = PLAYER_CARD

    max_cards = max([5, *(len(c) for _, c, _ in players)])
    row_w = NAME_W + max_cards * pw + (max_cards - 1) * _PLAYER_GAP
    n_players = len(players)
    columns = 2 if n_players > 4 and 2 * row_w + 3 * pad + 10 <= MAX_WIDTH else 1
    rows = math.ceil(n_players / columns) if n_players else 0

    # market: each slot is a card with its label above and price below
    n_slots = len(market) + 1  # + the blind stub
    market_w = n_slots * mw + (n_slots - 1) * _SLOT_GAP + 2 * _STUB_SHIFT

    width = max(columns * row_w + (columns + 1) * pad + (columns - 1) * 10, market_w + 2 * pad)
    width = max(width, 600)
    players_top = MARKET_TOP + _MARKET_H + 18
    height = players_top + rows * ROW_H + pad - 4 if rows else players_top
    board = Layout(width, height, FELT)

    # header: title on the left, pot on the right
    pot_label = labels.pot.format(pot=labels.number(pot))
    pot_tile, pot_key = _tile(header_text, pot_label, GOLD, None, True)
    pot_w = text_width(safe_text(pot_label), font_at(24 * SS, bold=True)) / SS
    board.paste(pot_tile, pot_key, (width - pad + TEXT_MARGIN - pot_tile.width, 0))
    title_w = width - 2 * pad - pot_w - 24
    board.paste(*_tile(header_text, title or labels.title, TEXT, title_w), (pad - TEXT_MARGIN, 0))

    # market row, on a darker band
    top = MARKET_TOP
    mx = round((width - market_w) / 2)
    left_out, above, below = BAND_OUT
    band = _tile(_market_band, market_w + 2 * left_out, above + _MARKET_H + below)
    board.paste(*band, (mx - left_out, top - above))
    x = mx
    for label, card, price in market:
        cost = None if price is None else labels.costs.format(price=labels.number(price))
        slot = _tile(_market_slot, label, card, cost, labels.empty if card is None else "")
        board.paste(*slot, (x - _SLOT_MARGIN, top - _SLOT_TOP))
        x += mw + _SLOT_GAP
    stub = _tile(_blind_stub, labels.blind, labels.costs_unknown)
    board.paste(*stub, (x - _SLOT_MARGIN, top - _SLOT_TOP))

    # player rows, filled column by column, the block centred
    block_w = columns * row_w + (columns - 1) * _COLUMN_GAP
    left = round((width - block_w) / 2)
    for i, (name, cards, folded) in enumerate(players):
        col, row = divmod(i, rows) if rows else (0, 0)
        x0 = left + col * (row_w + _COLUMN_GAP)
        y0 = players_top + row * ROW_H
        name_tile = _tile(player_name, name, labels.folded if folded else None)
        board.paste(*name_tile, (x0 - ROW_MARGIN, y0))
        x = x0 + NAME_W
        for card in cards or [EMPTY]:
            board.paste(*_tile(card_tile, card, pw, ph, bool(folded)), (x, y0))
            x += pw + _PLAYER_GAP
    # Each band holds whole tiles: the header's above the market band, each row of players
    # its own (so an action re-encodes the pot's band and one row).
    cuts = [MARKET_TOP - above, players_top, *(players_top + r * ROW_H for r in range(1, rows))]
    return board.png(cuts, _BANDS)
