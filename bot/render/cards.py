"""Card tiles: faces with their suit pips, backs, empty slots, shadows, drawn and cached.

The pips are drawn as shapes (they scale better than the font's suit symbols).
A card is drawn supersampled once, placed with its shadow on the felt, scaled
down to its final size and cached as a tile (``card_tile``); the images are
pasted together from such tiles.
"""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw

from bot.engine.cards import RANKS, rank_of, suit_of

from .lettering import draw_squeezed, draw_text
from .palette import (
    BACK_LINE,
    BACK_PANEL,
    BLACK,
    CARD_EDGE,
    CARD_WHITE,
    FELT_DARK,
    RED,
    SS,
    TEXT_DIM,
    Colour,
    canvas,
    reduced,
)

SHADOW = 2  # logical pixels a card's shadow reaches right of and below it (see _shadow)
BACK = -1  # for card_tile: a card back (cards are positive)
EMPTY = -2  # for card_tile: the dashed outline of an empty slot

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
    draw: ImageDraw.ImageDraw, suit: str, cx: float, cy: float, size: float, fill: Colour
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


def _blank_card(w: int, h: int, fill: Colour, outline: Colour) -> Image.Image:
    img = Image.new("RGBA", (w * SS, h * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle(
        (0, 0, w * SS - 1, h * SS - 1),
        radius=max(4, w // 10) * SS,
        fill=fill,
        outline=outline,
        width=max(1, SS),
    )
    return img


@lru_cache(maxsize=256)
def card_face(card: int, w: int, h: int) -> Image.Image:
    """A face-up card (supersampled RGBA). Callers must not modify the result."""
    suit = suit_of(card)
    colour = _suit_colour(suit)
    img = _blank_card(w, h, CARD_WHITE, CARD_EDGE)
    rank = _rank_text(card)

    def corner(im: Image.Image) -> None:
        col = w * 0.14
        draw_squeezed(im, col, h * 0.035, rank, round(h * 0.2), colour, w * 0.24)
        d = ImageDraw.Draw(im)
        _draw_suit(d, suit, col * SS, h * 0.3 * SS, h * 0.13 * SS, colour)

    corner(img)
    img = img.rotate(180)
    corner(img)
    img = img.rotate(180)

    d = ImageDraw.Draw(img)
    if rank in ("J", "Q", "K"):
        # a frame marks a court card; its letter sits above the pip
        inset_x, inset_y = w * 0.29, h * 0.13
        d.rounded_rectangle(
            (inset_x * SS, inset_y * SS, (w - inset_x) * SS, (h - inset_y) * SS),
            radius=w * 0.05 * SS,
            outline=colour,
            width=max(1, round(w * 0.02 * SS)),
        )
        _draw_suit(d, suit, w / 2 * SS, h * 0.6 * SS, h * 0.3 * SS, colour)
        draw_text(d, (w / 2, h * 0.33), rank, round(h * 0.2), colour, anchor="mm", bold=True)
    else:
        _draw_suit(d, suit, w / 2 * SS, h / 2 * SS, h * 0.38 * SS, colour)
    return img


@lru_cache(maxsize=16)
def card_back(w: int, h: int) -> Image.Image:
    """A face-down card (supersampled RGBA). Callers must not modify the result."""
    img = _blank_card(w, h, CARD_WHITE, CARD_EDGE)
    d = ImageDraw.Draw(img)
    m = round(w * 0.07) * SS
    inner = (m, m, w * SS - 1 - m, h * SS - 1 - m)
    d.rounded_rectangle(inner, radius=max(2, w // 16) * SS, fill=BACK_PANEL)
    # diagonal lattice, clipped to the inner panel through a mask
    lattice = Image.new("L", img.size, 0)
    ld = ImageDraw.Draw(lattice)
    step = max(6, w // 8) * SS
    lw = max(1, SS)
    for x in range(-h * SS, w * SS + h * SS, step):
        ld.line((x, 0, x + h * SS, h * SS), fill=255, width=lw)
        ld.line((x, h * SS, x + h * SS, 0), fill=255, width=lw)
    panel = Image.new("L", img.size, 0)
    ImageDraw.Draw(panel).rounded_rectangle(
        (inner[0] + 2 * SS, inner[1] + 2 * SS, inner[2] - 2 * SS, inner[3] - 2 * SS),
        radius=max(2, w // 20) * SS,
        fill=255,
    )
    lattice = Image.composite(lattice, Image.new("L", img.size, 0), panel)
    img.paste(Image.new("RGBA", img.size, BACK_LINE + (255,)), (0, 0), lattice)
    return img


def empty_slot(w: int, h: int) -> Image.Image:
    """A dashed outline where a card would be."""
    img = Image.new("RGBA", (w * SS, h * SS), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    d.rounded_rectangle(
        (0, 0, w * SS - 1, h * SS - 1),
        radius=max(4, w // 10) * SS,
        fill=FELT_DARK,
        outline=TEXT_DIM,
        width=SS,
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
    off = SHADOW * SS
    alpha = card.getchannel("A").point(lambda a: a * 70 // 255)
    shadow = Image.new("RGBA", card.size, (0, 0, 0, 255))
    shadow.putalpha(alpha)
    canvas.alpha_composite(shadow, (round(x * SS) + off, round(y * SS) + off))


def place(canvas: Image.Image, x: float, y: float, card: Image.Image, shadow: bool = True) -> None:
    """Paste a supersampled card at logical (x, y), on its shadow unless ``shadow`` is False."""
    if shadow:
        _shadow(canvas, x, y, card)
    canvas.alpha_composite(card, (round(x * SS), round(y * SS)))


@lru_cache(maxsize=256)  # 54 hand tiles, 105 player tiles (with the greyed and empty ones)
def card_tile(card: int, w: int, h: int, greyed: bool = False) -> Image.Image:
    """A ``w`` x ``h`` card (or ``BACK``, ``EMPTY``) with its shadow (none when empty or
    ``greyed``: a folded player's), on the felt, at the final size. Callers must not
    modify the result."""
    tile = canvas(w + SHADOW, h + SHADOW)
    if card == EMPTY:
        place(tile, 0, 0, empty_slot(w, h), shadow=False)
    else:
        img = card_back(w, h) if card == BACK else card_face(card, w, h)
        place(tile, 0, 0, _greyed(img) if greyed else img, shadow=not greyed)
    return reduced(tile)
