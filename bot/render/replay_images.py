"""Images of a replayed table and of a player's net chips over time, drawn like the cards.

Both use the card images' felt, colours, DejaVu fonts and card tiles, so a replay looks
like the table it replays. They are drawn on their own render thread and cached by what
they show (``render_replay_async``, ``render_chart_async``); every word drawn comes in
from ``bot.ui``, in the reader's language.

Why Pillow for the chart, not a plotting library: one line of at most 120 points needs
an axis, a zero line and a few labels; Pillow is already here for the cards, draws with
the same fonts and palette, and adds no dependency (matplotlib would add tens of MB and
a second font stack to keep in step with the cards).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from babel.numbers import format_decimal
from PIL import Image, ImageDraw

from .board import BoardLabels, MarketSlot, render_board
from .cache import ImageCache
from .captions import header_text, player_name
from .cards import BACK, card_tile
from .lettering import draw_text
from .palette import (
    BLACK,
    FELT,
    FELT_DARK,
    GOLD,
    MARKET_TOP,
    PAD,
    PLAYER_CARD,
    ROW_H,
    ROW_MARGIN,
    SS,
    TEXT,
    TEXT_DIM,
    TEXT_MARGIN,
)
from .png import to_png

ReplayRow = tuple[str, tuple[int, ...], int, bool]
"""(name and stack, face-up cards, face-down cards, folded)."""

_NAME_W = 200  # wider than the board's: the stack is written after the name
_GAP = 6


def render_replay(
    title: str,
    pot: str,
    rows: Sequence[ReplayRow],
    market: Sequence[MarketSlot] | None = None,
    labels: BoardLabels | None = None,
) -> bytes:
    """The table at one step: a header (``title``, ``pot`` already worded), then a row
    per seat. With ``market`` (Abyssinia), the board as the table showed it."""
    if market is not None and labels is not None:
        players = [(name, cards, folded) for name, cards, _, folded in rows]
        return render_board(market, players, 0, title, BoardLabels(**{**vars(labels), "pot": pot}))
    pw, ph = PLAYER_CARD
    width = max(600, 2 * PAD + _NAME_W + 5 * pw + 4 * _GAP)
    height = MARKET_TOP + len(rows) * ROW_H + PAD
    img = Image.new("RGB", (width, height), FELT)
    pot_tile = header_text(pot, GOLD, None, right=True)
    img.paste(pot_tile, (width - PAD + TEXT_MARGIN - pot_tile.width, 0))
    img.paste(
        header_text(title, TEXT, width - 2 * PAD - pot_tile.width - 8), (PAD - TEXT_MARGIN, 0)
    )
    for i, (name, faces, backs, folded) in enumerate(rows):
        y0 = MARKET_TOP + i * ROW_H
        label = player_name(name, "" if folded else None)
        img.paste(
            label.crop((0, 0, min(label.width, _NAME_W), label.height)), (PAD - ROW_MARGIN, y0)
        )
        x = PAD + _NAME_W
        for card in (*faces, *([BACK] * backs)):
            img.paste(card_tile(card, pw, ph, greyed=folded), (x, y0))
            x += pw + _GAP
    return to_png(img)


@dataclass(frozen=True)
class ChartLabels:
    title: str = "Net chips"
    x_axis: str = "hands"
    empty: str = "No hands yet"
    locale: str = "en"  # numbers written the reader's way


_CHART = (800, 420)
_MARGIN = (96, 64, 28, 56)  # left, top, right, bottom


def render_chart(points: Sequence[tuple[int, int]], labels: ChartLabels = ChartLabels()) -> bytes:
    """Net chips (y) after each number of hands (x), as a gold line on the felt."""
    w, h = _CHART
    left, top, right, bottom = _MARGIN
    img = Image.new("RGB", (w * SS, h * SS), FELT)
    d = ImageDraw.Draw(img)
    draw_text(
        d, (left, top / 2), labels.title, 26, TEXT, anchor="lm", bold=True, max_width=w - left
    )
    x0, y0, x1, y1 = left, top, w - right, h - bottom
    d.rounded_rectangle((x0 * SS, y0 * SS, x1 * SS, y1 * SS), radius=8 * SS, fill=FELT_DARK)
    if len(points) < 2:
        draw_text(d, ((x0 + x1) / 2, (y0 + y1) / 2), labels.empty, 22, TEXT_DIM, anchor="mm")
        return to_png(img.reduce(SS))
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    lo, hi = min(0, *ys), max(0, *ys)
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    span = hi - lo
    step = _nice_step(span / 4)
    lo_t, hi_t = math.floor(lo / step) * step, math.ceil(hi / step) * step
    xmax = max(xs) or 1

    def at(x: float, y: float) -> tuple[float, float]:
        px = x0 + 10 + (x1 - x0 - 20) * x / xmax
        py = y1 - 10 - (y1 - y0 - 20) * (y - lo_t) / (hi_t - lo_t)
        return px * SS, py * SS

    tick = lo_t
    while tick <= hi_t + step / 2:
        _, py = at(0, tick)
        colour = TEXT_DIM if tick else TEXT
        d.line(
            (x0 * SS + 6 * SS, py, x1 * SS - 6 * SS, py),
            fill=colour,
            width=(2 if tick == 0 else 1) * SS,
        )
        draw_text(
            d, (x0 - 8, py / SS), _signed(int(tick), labels.locale), 18, TEXT_DIM, anchor="rm"
        )
        tick += step
    draw_text(d, (x0, y1 + 24), "0", 18, TEXT_DIM, anchor="lm")
    end = f"{format_decimal(xmax, locale=labels.locale)} {labels.x_axis}"
    draw_text(d, (x1, y1 + 24), end, 18, TEXT_DIM, anchor="rm")
    line = [at(x, y) for x, y in points]
    d.line(line, fill=BLACK, width=7 * SS, joint="curve")
    d.line(line, fill=GOLD, width=4 * SS, joint="curve")
    ex, ey = line[-1]
    r = 6 * SS
    d.ellipse((ex - r, ey - r, ex + r, ey + r), fill=GOLD, outline=BLACK, width=SS)
    return to_png(img.reduce(SS))


def _signed(n: int, locale: str) -> str:
    text = format_decimal(abs(n), locale=locale)
    return text if n == 0 else ("+" if n > 0 else "-") + text


def _nice_step(raw: float) -> float:
    """1, 2 or 5 times a power of ten, at least ``raw``: gridlines people read at a glance."""
    if raw <= 0:
        return 1
    power = 10 ** math.floor(math.log10(raw))
    return float(next(m * power for m in (1, 2, 5, 10) if m * power >= raw))


# Replays and charts have their own thread, so they never queue behind a table's board.
_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="render-history")
_REPLAYS = ImageCache(256, _POOL)
_CHARTS = ImageCache(64, _POOL)


async def render_replay_async(
    title: str,
    pot: str,
    rows: Sequence[ReplayRow],
    market: Sequence[MarketSlot] | None = None,
    labels: BoardLabels | None = None,
) -> bytes:
    key = (title, pot, tuple(rows), None if market is None else tuple(market), labels)
    return await _REPLAYS.get(key, lambda: render_replay(title, pot, rows, market, labels))


async def render_chart_async(points: Sequence[tuple[int, int]], labels: ChartLabels) -> bytes:
    key = (tuple(points), labels)
    return await _CHARTS.get(key, lambda: render_chart(*key))
