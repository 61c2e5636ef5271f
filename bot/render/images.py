"""Playing-card images drawn with Pillow at run time.

Text uses DejaVu Sans (regular and bold), shipped in ``bot/render/fonts`` with
its licence: it covers Vietnamese and Portuguese diacritics and the suit
symbols, so labels in every supported language draw without missing-glyph
boxes. The card pips are still drawn as shapes (they scale better). Each region
is drawn at ``_SS`` times the final size and scaled down once, which
anti-aliases the shapes, then cached as a tile; images are pasted together from
tiles at the final size. Every public function is a pure function of its
arguments and returns PNG bytes (the same input gives the same bytes).
"""

from __future__ import annotations

import asyncio
import io
import math
import struct
import threading
import unicodedata
import zlib
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


# FreeType faces are not safe to share between threads: each render thread loads its own.
_THREAD = threading.local()


def _font(px: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """The bundled DejaVu Sans at ``px`` (already supersampled) pixels, this thread's face."""
    fonts: dict[tuple[int, bool], ImageFont.FreeTypeFont] | None = getattr(_THREAD, "fonts", None)
    if fonts is None:
        fonts = _THREAD.fonts = {}
    font = fonts.get((px, bold))
    if font is None:  # a handful of sizes are used, so the dict stays small
        font = fonts[(px, bold)] = ImageFont.truetype(io.BytesIO(_font_bytes(bold)), px)
    return font


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


def _canvas(w: int, h: int, colour: tuple[int, int, int] = FELT) -> Image.Image:
    return Image.new("RGBA", (w * _SS, h * _SS), colour + (255,))


def _reduced(canvas: Image.Image) -> Image.Image:
    # The supersampled canvas is drawn at _SS times the size: averaging each _SS x _SS block
    # (a box filter) smooths the edges as well as Lanczos at a sixth of its cost.
    return canvas.convert("RGB").reduce(_SS)


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _png(img: Image.Image) -> bytes:
    """An RGB image as PNG: every row unfiltered, zlib at level 1.

    Pillow's encoder picks a filter per row by trying all five, which cost more than the
    compression itself; these images are mostly flat felt, which zlib packs well unfiltered
    (the figures: docs/benchmarks.md, "Card images").
    """
    w, h = img.size
    pixels = memoryview(img.tobytes())
    stride = 3 * w
    z = zlib.compressobj(1)
    idat = []
    for start in range(0, h * stride, stride):
        idat.append(z.compress(b"\0"))  # the row's filter type: none
        idat.append(z.compress(pixels[start : start + stride]))
    idat.append(z.flush())
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8-bit RGB, not interlaced
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _png_chunk(b"IHDR", header),
            _png_chunk(b"IDAT", b"".join(idat)),
            _png_chunk(b"IEND", b""),
        )
    )


# --------------------------------------------------------------------------- public API

# Both images are pasted together at the final size from tiles: each independent region
# (a card with its shadow, a player's row, a market slot, a line of text) is drawn
# supersampled once, scaled down on its background colour and cached by what it shows.
# A tile sits on whole pixels of a plain background and never overlaps another, and
# everything it draws (shadows, overhanging glyphs) stays inside it, so the result is the
# image drawn whole, at a fraction of the cost: an action changes one row and the header.


def render_hand(cards: Sequence[int], hidden: int = 0) -> bytes:
    """A horizontal strip of face-up ``cards`` followed by ``hidden`` card backs.

    With no cards at all, one empty dashed slot is drawn so the image is never
    blank.
    """
    cw, ch = HAND_CARD
    pad, gap = 12, 8
    hidden = max(0, int(hidden))
    slots = [*cards, *([_BACK] * hidden)] or [_EMPTY]
    width = pad * 2 + len(slots) * cw + (len(slots) - 1) * gap
    height = pad * 2 + ch
    strip = Image.new("RGB", (width, height), FELT)
    x = pad
    for card in slots:
        strip.paste(_card_tile(card, cw, ch), (x, pad))
        x += cw + gap
    return _png(strip)


_SHADOW = 2  # logical pixels a card's shadow reaches right of and below it (see _shadow)
_BACK = -1  # for _card_tile: a card back (cards are positive)
_EMPTY = -2  # for _card_tile: the dashed outline of an empty slot


@lru_cache(maxsize=256)  # 54 hand tiles, 105 player tiles (with the greyed and empty ones)
def _card_tile(card: int, w: int, h: int, greyed: bool = False) -> Image.Image:
    """A ``w`` x ``h`` card (or ``_BACK``, ``_EMPTY``) with its shadow (none when empty or
    ``greyed``: a folded player's), on the felt, at the final size. Callers must not
    modify the result."""
    tile = _canvas(w + _SHADOW, h + _SHADOW)
    if card == _EMPTY:
        _place(tile, 0, 0, _empty_slot(w, h), shadow=False)
    else:
        img = _card_back(w, h) if card == _BACK else _card_face(card, w, h)
        _place(tile, 0, 0, _greyed(img) if greyed else img, shadow=not greyed)
    return _reduced(tile)


# Board geometry, in logical pixels.
_PAD = 16
_HEADER_H = 40
_MARKET_TOP = _PAD + _HEADER_H
_SLOT_GAP = 18
_STUB_SHIFT = 7  # each card of the blind stub sits this far right of the one below
_LABEL_H, _PRICE_H = 22, 24
_MARKET_H = _LABEL_H + MARKET_CARD[1] + _PRICE_H
_BAND_OUT = 14, 6, 4  # the dark band reaches this far left/right, above and below the market
_NAME_W = 140
_PLAYER_GAP = 6
_ROW_H = PLAYER_CARD[1] + 14
_COLUMN_GAP = _PAD + 10
# Margins of the tiles around what they draw: glyphs may overhang their advance a little,
# a market label (up to a card and 14 px wide) or price is centred on its card and
# may reach into half the gap to the next slot, and slots stay inside the band's
# straight part (its corners are rounded with a radius of 10). A name (up to _NAME_W - 14
# wide) ends well before the player's first card.
_TEXT_MARGIN = 8
_SLOT_MARGIN = _SLOT_GAP // 2
_SLOT_TOP = 4  # a slot tile starts this far above the market (the band 6)
_SLOT_BOTTOM = 2  # and ends this far below it (the band 4)
_ROW_MARGIN = 4


@lru_cache(maxsize=64)  # a title line is up to ~200 kB; the pot changes every bet
def _header_text(
    text: str, colour: tuple[int, int, int], max_width: float | None, right: bool = False
) -> Image.Image:
    """A line of the header (24 px bold) with ``_TEXT_MARGIN`` either side, on the felt,
    the board's rows above the market band, at the final size; ``right``: aligned on the
    tile's right margin. Callers must not modify the result."""
    text = _safe_text(text)
    font = _font(24 * _SS, bold=True)
    if max_width is not None:
        font, text = _fit_title(text, max_width * _SS)
    width = math.ceil(_text_width(text, font) / _SS) + 2 * _TEXT_MARGIN
    img = Image.new("RGB", (width * _SS, (_MARKET_TOP - _BAND_OUT[1]) * _SS), FELT)
    x = width - _TEXT_MARGIN if right else _TEXT_MARGIN
    xy = (x * _SS, (_PAD + 14) * _SS)
    ImageDraw.Draw(img).text(xy, text, font=font, fill=colour, anchor="rm" if right else "lm")
    return img.reduce(_SS)


def _fit_title(text: str, room: float) -> tuple[ImageFont.FreeTypeFont, str]:
    """The header's font and text for ``room`` (supersampled px): 24 px down to 18 px, then
    the game's name is shortened rather than the round after it ("Abyss… · apostas 2 de 5")."""
    for px in (24, 22, 20, 18):
        font = _font(px * _SS, bold=True)
        if _text_width(text, font) <= room:
            return font, text
    head, sep, tail = text.rpartition(" · ")
    if not sep:
        return font, _fit_text(text, font, room)
    tail = _fit_text(tail, font, room * 0.7)
    return font, _fit_text(head, font, room - _text_width(sep + tail, font)) + sep + tail


@lru_cache(maxsize=16)
def _market_band(w: int, h: int) -> Image.Image:
    """The darker band behind the market, ``w`` x ``h`` (plus the rectangle's closing
    edge), on the felt, at the final size. Callers must not modify the result."""
    tile = _canvas(w + 1, h + 1)
    ImageDraw.Draw(tile).rounded_rectangle(
        (0, 0, w * _SS, h * _SS), radius=10 * _SS, fill=FELT_DARK
    )
    return _reduced(tile)


def _slot_canvas(card_w: int) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """A market slot's supersampled tile: ``_SLOT_MARGIN`` either side of ``card_w``."""
    tile = _canvas(card_w + 2 * _SLOT_MARGIN, _SLOT_TOP + _MARKET_H + _SLOT_BOTTOM, FELT_DARK)
    return tile, ImageDraw.Draw(tile)


@lru_cache(maxsize=128)
def _market_slot(label: str, card: int | None, price: str | None, empty: str) -> Image.Image:
    """One market slot: its label, its card or an empty outline reading ``empty``, its
    ``price`` text, on the band, at the final size. Callers must not modify the result."""
    mw, mh = MARKET_CARD
    tile, d = _slot_canvas(mw)
    x, top = _SLOT_MARGIN, _SLOT_TOP
    cx = x + mw / 2
    _draw_text(d, (cx, top + _LABEL_H / 2), label, 16, TEXT_DIM, anchor="mm", max_width=mw + 14)
    if card is None:
        _place(tile, x, top + _LABEL_H, _empty_slot(mw, mh), shadow=False)
        _draw_text(d, (cx, top + _LABEL_H + mh / 2), empty, 14, TEXT_DIM, anchor="mm")
    else:
        _place(tile, x, top + _LABEL_H, _card_face(card, mw, mh))
    if price is not None:
        price_y = top + _LABEL_H + mh + _PRICE_H / 2 + 2
        _draw_text(d, (cx, price_y), price, 16, GOLD, anchor="mm", bold=True)
    return _reduced(tile)


@lru_cache(maxsize=16)
def _blind_stub(label: str, price: str) -> Image.Image:
    """The blind stub: a small stack of backs between its label and ``price``, on the
    band, at the final size. Callers must not modify the result."""
    mw, mh = MARKET_CARD
    tile, d = _slot_canvas(mw + 2 * _STUB_SHIFT)
    x, top = _SLOT_MARGIN, _SLOT_TOP
    cx = x + _STUB_SHIFT + mw / 2
    _draw_text(d, (cx, top + _LABEL_H / 2), label, 16, TEXT_DIM, anchor="mm", max_width=mw + 14)
    for k in (2, 1, 0):
        y = top + _LABEL_H - 3 * k + 6
        _place(tile, x + _STUB_SHIFT * k, y, _card_back(mw, mh), shadow=k == 2)
    price_y = top + _LABEL_H + mh + _PRICE_H / 2 + 2
    _draw_text(d, (cx, price_y), price, 16, TEXT_DIM, anchor="mm", bold=True)
    return _reduced(tile)


# A computer player's name starts with this emoji, which DejaVu Sans lacks: drawn as a shape.
ROBOT = "🤖"
_ROBOT_W = 20  # the robot's width and the space after it, in logical pixels at 20 px text


def _draw_robot(d: ImageDraw.ImageDraw, x: float, ymid: float, px: int, fill) -> None:
    """A robot's head (antenna, square face, two eyes) ``px`` high, its left edge at ``x``."""
    s, k = 1.1 * px * _SS, _SS
    left, top = x * k, ymid * k - 0.5 * s
    w = 0.8 * s
    d.line((left + w / 2, top, left + w / 2, top + 0.2 * s), fill=fill, width=max(1, k))
    d.ellipse(
        (left + w / 2 - 0.08 * s, top - 0.1 * s, left + w / 2 + 0.08 * s, top + 0.06 * s), fill=fill
    )
    face = (left, top + 0.18 * s, left + w, top + 0.84 * s)
    d.rounded_rectangle(face, radius=0.14 * s, fill=fill)
    for ex in (left + 0.22 * w, left + 0.78 * w):
        ey = top + 0.44 * s
        d.ellipse((ex - 0.08 * s, ey - 0.08 * s, ex + 0.08 * s, ey + 0.08 * s), fill=FELT)
    d.rectangle((left + 0.3 * w, top + 0.64 * s, left + 0.7 * w, top + 0.7 * s), fill=FELT)


def _name_lines(name: str, bold: bool, room: float, indent: float = 0) -> tuple[int, list[str]]:
    """The name at 20 px on one line if it fits ``room`` (logical px, the first line
    ``indent`` less), else on up to three lines at 16 px, broken between words and before
    a "(": "Anh Họ / Dealer / (trung bình)"; an ellipsis only when a word does not fit."""
    big = _font(20 * _SS, bold)
    if big.getlength(name) <= (room - indent) * _SS:
        return 20, [name]
    font = _font(16 * _SS, bold)
    lines: list[str] = []
    for word in name.split():
        trial = f"{lines[-1]} {word}" if lines else word
        width = room - (indent if len(lines) <= 1 else 0)
        if lines and not word.startswith("(") and font.getlength(trial) <= width * _SS:
            lines[-1] = trial
        else:
            lines.append(word)
    if len(lines) > 3:
        lines = [*lines[:2], " ".join(lines[2:])]
    return 16, [
        _fit_text(line, font, (room - (indent if n == 0 else 0)) * _SS)
        for n, line in enumerate(lines)
    ]


@lru_cache(maxsize=512)
def _player_name(name: str, folded: str | None) -> Image.Image:
    """A player's name, left of their cards, with ``_ROW_MARGIN`` before it: struck
    through and greyed above the word ``folded`` when the player folded (None: still in).
    A long name takes two lines; a computer player's robot is drawn before it.
    On the felt, a row high, at the final size. Callers must not modify the result."""
    ph = PLAYER_CARD[1]
    x0, ymid = _ROW_MARGIN, ph / 2
    colour = TEXT_DIM if folded is not None else TEXT
    bold = folded is None
    robot = name.startswith(ROBOT)
    text = _safe_text(name[len(ROBOT) :].strip() if robot else name)
    indent = _ROBOT_W if robot else 0
    px, lines = _name_lines(text, bold, _NAME_W - 14, indent)
    font = _font(px * _SS, bold=bold)
    lw = max(font.getlength(line) / _SS + (indent if n == 0 else 0) for n, line in enumerate(lines))
    # as wide as the name (the cache holds many), or the name column when folded
    width = _NAME_W if folded is not None else min(_NAME_W, x0 + math.ceil(lw) + _TEXT_MARGIN)
    img = Image.new("RGB", (width * _SS, _ROW_H * _SS), FELT)
    d = ImageDraw.Draw(img)
    step = px + 3
    top = ymid - (0 if bold else 8) - step * (len(lines) - 1) / 2
    if robot:
        _draw_robot(d, x0, top, px, colour)
    for n, line in enumerate(lines):
        y = top + n * step
        at = x0 + (indent if n == 0 else 0)
        _draw_text(d, (at, y), line, px, colour, anchor="lm", bold=bold)
        if folded is not None:
            right = at + font.getlength(line) / _SS
            d.line((x0 * _SS, (y) * _SS, right * _SS, y * _SS), fill=colour, width=2 * _SS)
    if folded is not None:
        below = top + step * (len(lines) - 1) + 22
        _draw_text(d, (x0, below), folded, 14, TEXT_DIM, anchor="lm", max_width=_NAME_W - 14)
    return img.reduce(_SS)


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
    pad = _PAD
    mw, _ = MARKET_CARD
    pw, ph = PLAYER_CARD

    max_cards = max([5, *(len(c) for _, c, _ in players)])
    row_w = _NAME_W + max_cards * pw + (max_cards - 1) * _PLAYER_GAP
    n_players = len(players)
    columns = 2 if n_players > 4 and 2 * row_w + 3 * pad + 10 <= MAX_WIDTH else 1
    rows = math.ceil(n_players / columns) if n_players else 0

    # market: each slot is a card with its label above and price below
    n_slots = len(market) + 1  # + the blind stub
    market_w = n_slots * mw + (n_slots - 1) * _SLOT_GAP + 2 * _STUB_SHIFT

    width = max(columns * row_w + (columns + 1) * pad + (columns - 1) * 10, market_w + 2 * pad)
    width = max(width, 600)
    players_top = _MARKET_TOP + _MARKET_H + 18
    height = players_top + rows * _ROW_H + pad - 4 if rows else players_top
    board = Image.new("RGB", (width, height), FELT)

    # header: title on the left, pot on the right
    pot_label = labels.pot.format(pot=labels.number(pot))
    pot_tile = _header_text(pot_label, GOLD, None, right=True)
    pot_w = _text_width(_safe_text(pot_label), _font(24 * _SS, bold=True)) / _SS
    board.paste(pot_tile, (width - pad + _TEXT_MARGIN - pot_tile.width, 0))
    title_w = width - 2 * pad - pot_w - 24
    board.paste(_header_text(title or labels.title, TEXT, title_w), (pad - _TEXT_MARGIN, 0))

    # market row, on a darker band
    top = _MARKET_TOP
    mx = round((width - market_w) / 2)
    left_out, above, below = _BAND_OUT
    band = _market_band(market_w + 2 * left_out, above + _MARKET_H + below)
    board.paste(band, (mx - left_out, top - above))
    x = mx
    for label, card, price in market:
        cost = None if price is None else labels.costs.format(price=labels.number(price))
        tile = _market_slot(label, card, cost, labels.empty if card is None else "")
        board.paste(tile, (x - _SLOT_MARGIN, top - _SLOT_TOP))
        x += mw + _SLOT_GAP
    board.paste(
        _blind_stub(labels.blind, labels.costs_unknown), (x - _SLOT_MARGIN, top - _SLOT_TOP)
    )

    # player rows, filled column by column, the block centred
    block_w = columns * row_w + (columns - 1) * _COLUMN_GAP
    left = round((width - block_w) / 2)
    for i, (name, cards, folded) in enumerate(players):
        col, row = divmod(i, rows) if rows else (0, 0)
        x0 = left + col * (row_w + _COLUMN_GAP)
        y0 = players_top + row * _ROW_H
        board.paste(_player_name(name, labels.folded if folded else None), (x0 - _ROW_MARGIN, y0))
        x = x0 + _NAME_W
        for card in cards or [_EMPTY]:
            board.paste(_card_tile(card, pw, ph, greyed=bool(folded)), (x, y0))
            x += pw + _PLAYER_GAP
    return _png(board)


# --------------------------------------------------------------------------- off the event loop

# Hands and boards each have their own thread (with its own FreeType faces, see _font), so
# a player's private answer, waiting for a hand, never queues behind table boards. Idle
# workers end at interpreter exit: concurrent.futures joins them then.
_HAND_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="render-hand")
_BOARD_POOL = ThreadPoolExecutor(max_workers=1, thread_name_prefix="render-board")


class _ImageCache:
    """Finished PNGs by their inputs, least recently used out first, drawn on ``pool``;
    used on the loop only.

    An image being drawn is shared too: when the render thread is behind, many replies
    ask for the same unchanged hand, and each would otherwise queue its own drawing."""

    def __init__(self, size: int, pool: ThreadPoolExecutor) -> None:
        self.size = size
        self.pool = pool
        self.items: OrderedDict[Hashable, bytes] = OrderedDict()
        self.drawing: dict[Hashable, asyncio.Future[bytes]] = {}

    async def get(self, key: Hashable, draw: Callable[[], bytes]) -> bytes:
        png = self.items.get(key)
        if png is None:
            pending = self.drawing.get(key)
            if pending is None:
                pending = asyncio.get_running_loop().run_in_executor(self.pool, draw)
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


_HANDS = _ImageCache(1024, _HAND_POOL)
_BOARDS = _ImageCache(512, _BOARD_POOL)


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
