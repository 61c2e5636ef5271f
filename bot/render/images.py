"""Playing-card images drawn with Pillow at run time.

Text uses DejaVu Sans (regular and bold), shipped in ``bot/render/fonts`` with
its licence: it covers Vietnamese and Portuguese diacritics and the suit
symbols, so labels in every supported language draw without missing-glyph
boxes. The card pips are still drawn as shapes (they scale better). Everything
is drawn at ``_SS`` times the final size and scaled down once, which
anti-aliases the shapes. Every public function is a pure function of its
arguments and returns PNG bytes (the same input gives the same bytes).
"""

from __future__ import annotations

import asyncio
import io
import math
import unicodedata
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from babel.numbers import format_decimal
from PIL import Image, ImageDraw, ImageFont

from bot.engine.cards import RANKS, rank_of, suit_of

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

_SS = 3  # supersampling factor

FELT = (22, 94, 58)
FELT_DARK = (16, 72, 44)
CARD_WHITE = (252, 252, 248)
CARD_EDGE = (120, 120, 120)
RED = (204, 24, 36)
BLACK = (22, 22, 26)
BACK = (32, 62, 150)
BACK_LINE = (92, 128, 214)
TEXT = (240, 240, 232)
TEXT_DIM = (170, 190, 176)
GOLD = (246, 206, 92)

HAND_CARD = (100, 140)
MARKET_CARD = (84, 118)
PLAYER_CARD = (60, 84)
MAX_WIDTH = 1000


# --------------------------------------------------------------------------- fonts and text


FONT_DIR = resources.files(__package__) / "fonts"
FONT_FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}
# Code points no font maps: drawing one gives the font's missing-glyph (.notdef) box.
_UNMAPPED = "\U0010fffd"


@lru_cache(maxsize=2)
def _font_bytes(bold: bool) -> bytes:
    return (FONT_DIR / FONT_FILES[bold]).read_bytes()


@lru_cache(maxsize=64)
def _font(px: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The bundled DejaVu Sans at ``px`` (already supersampled) pixels."""
    return ImageFont.truetype(io.BytesIO(_font_bytes(bold)), px)


def _mask_key(font: ImageFont.FreeTypeFont, ch: str) -> bytes:
    """The pixels of ``ch`` alone, to tell a real glyph from the missing-glyph box."""
    img = Image.new("L", (64, 64), 0)
    ImageDraw.Draw(img).text((8, 4), ch, font=font, fill=255)
    return img.tobytes()


@lru_cache(maxsize=4096)
def has_glyph(ch: str, bold: bool = False) -> bool:
    """Whether the bundled font draws ``ch`` as itself, not as the missing-glyph box."""
    if ch.isspace():
        return True
    font = _font(40, bold)
    return _mask_key(font, ch) != _mask_key(font, _UNMAPPED)


def _safe_text(text: str) -> str:
    """Replace characters the bundled font cannot draw (emoji in a name, say) by their base."""
    out = []
    for ch in unicodedata.normalize("NFC", text):
        if has_glyph(ch):
            out.append(ch)
            continue
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if has_glyph(c))
        out.append(base or "?")
    return "".join(out)


def _text_width(text: str, font) -> float:
    return font.getlength(text)


def _fit_text(text: str, font, max_width: float) -> str:
    """Shorten ``text`` with an ellipsis until it fits ``max_width``."""
    if _text_width(text, font) <= max_width:
        return text
    while text and _text_width(text + "…", font) > max_width:
        text = text[:-1]
    return text.rstrip() + "…"


def _draw_text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    px: int,
    fill,
    anchor: str = "la",
    bold: bool = False,
    max_width: float | None = None,
) -> None:
    """Draw at logical coordinates/sizes (multiplied by ``_SS`` here)."""
    font = _font(px * _SS, bold)
    text = _safe_text(text)
    if max_width is not None:
        text = _fit_text(text, font, max_width * _SS)
    draw.text((xy[0] * _SS, xy[1] * _SS), text, font=font, fill=fill, anchor=anchor)


def _draw_squeezed(
    img: Image.Image, cx: float, top: float, text: str, px: int, fill, max_width: float
) -> None:
    """Bold text centred on ``cx`` below ``top``, squeezed sideways to ``max_width``."""
    font = _font(px * _SS, bold=True)
    left, upper, right, lower = font.getbbox(text)
    mask = Image.new("L", (int(right - left), int(lower - upper)), 0)
    ImageDraw.Draw(mask).text((-left, -upper), text, font=font, fill=255)
    limit = round(max_width * _SS)
    if mask.width > limit:
        mask = mask.resize((limit, mask.height), Image.Resampling.LANCZOS)
    x = round(cx * _SS - mask.width / 2)
    img.paste(Image.new("RGBA", mask.size, fill + (255,)), (x, round(top * _SS)), mask)


# --------------------------------------------------------------------------- suit shapes


def _unit_heart(n: int = 96) -> list[tuple[float, float]]:
    pts = []
    for i in range(n):
        t = 2 * math.pi * i / n
        x = 16 * math.sin(t) ** 3
        y = -(13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t))
        pts.append((x, y))
    return _normalise(pts)


def _normalise(pts: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """Scale to fit a unit square and centre on (0, 0)."""
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    h = max(max(ys) - min(ys), max(xs) - min(xs))
    cx = (max(xs) + min(xs)) / 2
    cy = (max(ys) + min(ys)) / 2
    return [((x - cx) / h, (y - cy) / h) for x, y in pts]


_HEART = _unit_heart()


def _diamond(n: int = 12) -> list[tuple[float, float]]:
    """A diamond with slightly concave sides."""
    corners = [(0.0, -0.5), (0.38, 0.0), (0.0, 0.5), (-0.38, 0.0)]
    pts = []
    for i in range(4):
        (x0, y0), (x1, y1) = corners[i], corners[(i + 1) % 4]
        for k in range(n):
            t = k / n
            bow = 0.025 * math.sin(math.pi * t)  # pull the middle of the side inwards
            x = x0 + (x1 - x0) * t
            y = y0 + (y1 - y0) * t
            x -= math.copysign(bow, x) if x else 0.0
            y -= math.copysign(bow, y) if y else 0.0
            pts.append((x, y))
    return pts


_DIAMOND = _diamond()


def _stem(cx: float, top: float, bottom: float, s: float) -> list[tuple[float, float]]:
    """A flared stem from ``top`` to ``bottom`` with curved sides."""
    pts = []
    n = 10
    for k in range(n + 1):  # right side, going down
        t = k / n
        half = 0.035 + 0.18 * t**2.2
        pts.append((cx + half * s, top + (bottom - top) * t))
    for k in range(n, -1, -1):  # left side, going up
        t = k / n
        half = 0.035 + 0.18 * t**2.2
        pts.append((cx - half * s, top + (bottom - top) * t))
    return pts


def _draw_suit(
    draw: ImageDraw.ImageDraw, suit: str, cx: float, cy: float, size: float, fill
) -> None:
    """Draw a suit pip of height ``size`` centred on (cx, cy), in canvas pixels."""
    s = size
    if suit == "h":
        draw.polygon([(cx + x * s, cy + y * s) for x, y in _HEART], fill=fill)
    elif suit == "d":
        draw.polygon([(cx + x * s, cy + y * s) for x, y in _DIAMOND], fill=fill)
    elif suit == "s":
        # an upside-down heart in the top 78 %, then a stem
        hs = 0.78 * s
        hy = cy - 0.5 * s + hs / 2
        draw.polygon([(cx + x * hs, hy - y * hs) for x, y in _HEART], fill=fill)
        draw.polygon(_stem(cx, hy + 0.1 * s, cy + 0.5 * s, s), fill=fill)
    elif suit == "c":
        r = 0.21 * s
        top = cy - 0.5 * s + r
        for x, y in ((cx, top), (cx - 0.235 * s, top + 0.34 * s), (cx + 0.235 * s, top + 0.34 * s)):
            draw.ellipse((x - r, y - r, x + r, y + r), fill=fill)
        draw.ellipse((cx - 0.12 * s, top + 0.14 * s, cx + 0.12 * s, top + 0.4 * s), fill=fill)
        draw.polygon(_stem(cx, top + 0.3 * s, cy + 0.5 * s, s), fill=fill)
    else:  # pragma: no cover - suits come from suit_of
        raise ValueError(f"unknown suit {suit!r}")


# --------------------------------------------------------------------------- cards


def _rank_text(card: int) -> str:
    r = RANKS[rank_of(card)]
    return "10" if r == "T" else r


def _suit_colour(suit: str) -> tuple[int, int, int]:
    return RED if suit in "hd" else BLACK


def _blank_card(w: int, h: int, fill, outline) -> Image.Image:
    img = Image.new("RGBA", (w * _SS, h * _SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle(
        (0, 0, w * _SS - 1, h * _SS - 1),
        radius=max(4, w // 10) * _SS,
        fill=fill,
        outline=outline,
        width=max(1, _SS),
    )
    return img


@lru_cache(maxsize=256)
def _card_face(card: int, w: int, h: int) -> Image.Image:
    """A face-up card (supersampled RGBA). Callers must not modify the result."""
    suit = suit_of(card)
    colour = _suit_colour(suit)
    img = _blank_card(w, h, CARD_WHITE, CARD_EDGE)
    rank = _rank_text(card)

    def corner(im: Image.Image) -> None:
        col = w * 0.14
        _draw_squeezed(im, col, h * 0.035, rank, round(h * 0.2), colour, w * 0.24)
        d = ImageDraw.Draw(im)
        _draw_suit(d, suit, col * _SS, h * 0.3 * _SS, h * 0.13 * _SS, colour)

    corner(img)
    img = img.rotate(180)
    corner(img)
    img = img.rotate(180)

    d = ImageDraw.Draw(img)
    if rank in ("J", "Q", "K"):
        # a frame marks a court card; its letter sits above the pip
        inset_x, inset_y = w * 0.29, h * 0.13
        d.rounded_rectangle(
            (inset_x * _SS, inset_y * _SS, (w - inset_x) * _SS, (h - inset_y) * _SS),
            radius=w * 0.05 * _SS,
            outline=colour,
            width=max(1, round(w * 0.02 * _SS)),
        )
        _draw_suit(d, suit, w / 2 * _SS, h * 0.6 * _SS, h * 0.3 * _SS, colour)
        _draw_text(d, (w / 2, h * 0.33), rank, round(h * 0.2), colour, anchor="mm", bold=True)
    else:
        _draw_suit(d, suit, w / 2 * _SS, h / 2 * _SS, h * 0.38 * _SS, colour)
    return img


@lru_cache(maxsize=16)
def _card_back(w: int, h: int) -> Image.Image:
    """A face-down card (supersampled RGBA). Callers must not modify the result."""
    img = _blank_card(w, h, CARD_WHITE, CARD_EDGE)
    d = ImageDraw.Draw(img)
    m = round(w * 0.07) * _SS
    inner = (m, m, w * _SS - 1 - m, h * _SS - 1 - m)
    d.rounded_rectangle(inner, radius=max(2, w // 16) * _SS, fill=BACK)
    # diagonal lattice, clipped to the inner panel through a mask
    lattice = Image.new("L", img.size, 0)
    ld = ImageDraw.Draw(lattice)
    step = max(6, w // 8) * _SS
    lw = max(1, _SS)
    for x in range(-h * _SS, w * _SS + h * _SS, step):
        ld.line((x, 0, x + h * _SS, h * _SS), fill=255, width=lw)
        ld.line((x, h * _SS, x + h * _SS, 0), fill=255, width=lw)
    panel = Image.new("L", img.size, 0)
    ImageDraw.Draw(panel).rounded_rectangle(
        (inner[0] + 2 * _SS, inner[1] + 2 * _SS, inner[2] - 2 * _SS, inner[3] - 2 * _SS),
        radius=max(2, w // 20) * _SS,
        fill=255,
    )
    lattice = Image.composite(lattice, Image.new("L", img.size, 0), panel)
    img.paste(Image.new("RGBA", img.size, BACK_LINE + (255,)), (0, 0), lattice)
    return img


def _empty_slot(w: int, h: int) -> Image.Image:
    """A dashed outline where a card would be."""
    img = Image.new("RGBA", (w * _SS, h * _SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle(
        (0, 0, w * _SS - 1, h * _SS - 1),
        radius=max(4, w // 10) * _SS,
        fill=FELT_DARK,
        outline=TEXT_DIM,
        width=_SS,
    )
    return img


def _greyed(img: Image.Image) -> Image.Image:
    """A washed-out grey copy of a card, for folded players."""
    alpha = img.getchannel("A")
    grey = img.convert("L").point(lambda v: 110 + v * 90 // 255)
    out = Image.merge("RGBA", (grey, grey, grey, alpha.point(lambda a: a * 3 // 4)))
    return out


def _shadow(canvas: Image.Image, x: float, y: float, card: Image.Image) -> None:
    """Paste a soft offset shadow under a card at logical (x, y)."""
    off = _SHADOW * _SS
    alpha = card.getchannel("A").point(lambda a: a * 70 // 255)
    shadow = Image.new("RGBA", card.size, (0, 0, 0, 255))
    shadow.putalpha(alpha)
    canvas.alpha_composite(shadow, (round(x * _SS) + off, round(y * _SS) + off))


def _place(canvas: Image.Image, x: float, y: float, card: Image.Image, shadow=True) -> None:
    if shadow:
        _shadow(canvas, x, y, card)
    canvas.alpha_composite(card, (round(x * _SS), round(y * _SS)))


def _canvas(w: int, h: int) -> Image.Image:
    return Image.new("RGBA", (w * _SS, h * _SS), FELT + (255,))


def _to_png(canvas: Image.Image) -> bytes:
    # The supersampled canvas is drawn at _SS times the size: averaging each _SS x _SS block
    # (a box filter) smooths the edges as well as Lanczos at a sixth of its cost.
    out = canvas.convert("RGB").reduce(_SS)
    buf = io.BytesIO()
    out.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


# --------------------------------------------------------------------------- public API


def render_hand(cards: Sequence[int], hidden: int = 0) -> bytes:
    """A horizontal strip of face-up ``cards`` followed by ``hidden`` card backs.

    With no cards at all, one empty dashed slot is drawn so the image is never
    blank.
    """
    cw, ch = HAND_CARD
    pad, gap = 12, 8
    hidden = max(0, int(hidden))
    n = len(cards) + hidden
    slots = max(1, n)
    width = pad * 2 + slots * cw + (slots - 1) * gap
    height = pad * 2 + ch
    if n == 0:
        canvas = _canvas(width, height)
        _place(canvas, pad, pad, _empty_slot(cw, ch), shadow=False)
        return _to_png(canvas)
    # Each card with its shadow is drawn once and scaled down; the strip is pasted together
    # at the final size. The same pixels as drawing the whole strip supersampled (the slots
    # sit on whole pixels of the plain felt, and never overlap), at a fraction of the cost.
    strip = Image.new("RGB", (width, height), FELT)
    x = pad
    for card in [*cards, *([None] * hidden)]:
        strip.paste(_hand_slot(card), (x, pad))
        x += cw + gap
    buf = io.BytesIO()
    strip.save(buf, format="PNG", optimize=False)
    return buf.getvalue()


_SHADOW = 2  # logical pixels a card's shadow reaches right of and below it (see _shadow)


@lru_cache(maxsize=64)
def _hand_slot(card: int | None) -> Image.Image:
    """One card of a hand strip (None: a card back) with its shadow, on the felt, at the
    final size. Callers must not modify the result."""
    cw, ch = HAND_CARD
    tile = _canvas(cw + _SHADOW, ch + _SHADOW)
    _place(tile, 0, 0, _card_face(card, cw, ch) if card is not None else _card_back(cw, ch))
    return tile.convert("RGB").reduce(_SS)


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
    pad = 16
    mw, mh = MARKET_CARD
    pw, ph = PLAYER_CARD
    pgap = 6
    name_w = 140
    header_h = 40

    max_cards = max([5, *(len(c) for _, c, _ in players)])
    row_w = name_w + max_cards * pw + (max_cards - 1) * pgap
    row_h = ph + 14
    n_players = len(players)
    columns = 2 if n_players > 4 and 2 * row_w + 3 * pad + 10 <= MAX_WIDTH else 1
    rows = math.ceil(n_players / columns) if n_players else 0

    # market: each slot is a card with its label above and price below
    slot_gap = 18
    n_slots = len(market) + 1  # + the blind stub
    market_w = n_slots * mw + (n_slots - 1) * slot_gap + 14  # stack offset of the stub
    label_h, price_h = 22, 24
    market_h = label_h + mh + price_h

    width = max(columns * row_w + (columns + 1) * pad + (columns - 1) * 10, market_w + 2 * pad)
    width = max(width, 600)
    players_top = pad + header_h + market_h + 18
    height = players_top + rows * row_h + pad - 4 if rows else players_top
    canvas = _canvas(width, height)
    d = ImageDraw.Draw(canvas)

    # header: title on the left, pot on the right
    pot_label = labels.pot.format(pot=labels.number(pot))
    pot_w = _font(24 * _SS, bold=True).getlength(_safe_text(pot_label)) / _SS
    _draw_text(d, (width - pad, pad + 14), pot_label, 24, GOLD, anchor="rm", bold=True)
    _draw_text(
        d,
        (pad, pad + 14),
        title or labels.title,
        24,
        TEXT,
        anchor="lm",
        bold=True,
        max_width=width - 2 * pad - pot_w - 24,
    )

    # market row
    top = pad + header_h
    mx = (width - market_w) / 2
    # a darker band behind the market
    d.rounded_rectangle(
        ((mx - 14) * _SS, (top - 6) * _SS, (mx + market_w + 14) * _SS, (top + market_h + 4) * _SS),
        radius=10 * _SS,
        fill=FELT_DARK,
    )
    x = mx
    for label, card, price in market:
        cx = x + mw / 2
        _draw_text(d, (cx, top + label_h / 2), label, 16, TEXT_DIM, anchor="mm", max_width=mw + 14)
        if card is None:
            _place(canvas, x, top + label_h, _empty_slot(mw, mh), shadow=False)
            _draw_text(d, (cx, top + label_h + mh / 2), labels.empty, 14, TEXT_DIM, anchor="mm")
        else:
            _place(canvas, x, top + label_h, _card_face(card, mw, mh))
        if price is not None:
            _draw_text(
                d,
                (cx, top + label_h + mh + price_h / 2 + 2),
                labels.costs.format(price=labels.number(price)),
                16,
                GOLD,
                anchor="mm",
                bold=True,
            )
        x += mw + slot_gap
    # the blind stub: a small stack of backs
    cx = x + 7 + mw / 2
    _draw_text(
        d, (cx, top + label_h / 2), labels.blind, 16, TEXT_DIM, anchor="mm", max_width=mw + 14
    )
    for k in (2, 1, 0):
        _place(canvas, x + 7 * k, top + label_h - 3 * k + 6, _card_back(mw, mh), shadow=k == 2)
    _draw_text(
        d,
        (cx, top + label_h + mh + price_h / 2 + 2),
        labels.costs_unknown,
        16,
        TEXT_DIM,
        anchor="mm",
        bold=True,
    )

    # player rows, filled column by column, the block centred
    block_w = columns * row_w + (columns - 1) * (pad + 10)
    left = (width - block_w) / 2
    for i, (name, cards, folded) in enumerate(players):
        col, row = divmod(i, rows) if rows else (0, 0)
        x0 = left + col * (row_w + pad + 10)
        y0 = players_top + row * row_h
        ymid = y0 + ph / 2
        colour = TEXT_DIM if folded else TEXT
        label = _safe_text(name)
        font = _font(20 * _SS, bold=not folded)
        label = _fit_text(label, font, (name_w - 14) * _SS)
        _draw_text(
            d, (x0, ymid - (8 if folded else 0)), label, 20, colour, anchor="lm", bold=not folded
        )
        if folded:
            lw = font.getlength(label) / _SS
            y = (ymid - 8) * _SS
            d.line((x0 * _SS, y, (x0 + lw) * _SS, y), fill=colour, width=2 * _SS)
            _draw_text(
                d, (x0, ymid + 14), labels.folded, 14, TEXT_DIM, anchor="lm", max_width=name_w - 14
            )
        x = x0 + name_w
        if not cards:
            _place(canvas, x, y0, _empty_slot(pw, ph), shadow=False)
        for card in cards:
            face = _card_face(card, pw, ph)
            if folded:
                _place(canvas, x, y0, _greyed(face), shadow=False)
            else:
                _place(canvas, x, y0, face)
            x += pw + pgap
    return _to_png(canvas)


# --------------------------------------------------------------------------- off the event loop

# One thread: FreeType faces are not safe to share between threads, and one thread
# is enough once finished images are cached.
_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="render")


class _ImageCache:
    """Finished PNGs by their inputs, least recently used out first; used on the loop only.

    An image being drawn is shared too: when the render thread is behind, many replies
    ask for the same unchanged hand, and each would otherwise queue its own drawing."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[Hashable, bytes] = OrderedDict()
        self.drawing: dict[Hashable, asyncio.Future[bytes]] = {}

    async def get(self, key: Hashable, draw: Callable[[], bytes]) -> bytes:
        png = self.items.get(key)
        if png is None:
            pending = self.drawing.get(key)
            if pending is None:
                pending = asyncio.get_running_loop().run_in_executor(_POOL, draw)
                self.drawing[key] = pending
                try:
                    png = await asyncio.shield(pending)  # a cancelled reply stops no other
                finally:
                    del self.drawing[key]
                self.items[key] = png
                if len(self.items) > self.size:
                    self.items.popitem(last=False)
            else:
                png = await asyncio.shield(pending)
                if key not in self.items:
                    return png  # dropped again meanwhile: nothing to refresh
        self.items.move_to_end(key)
        return png


_HANDS = _ImageCache(1024)
_BOARDS = _ImageCache(512)


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
