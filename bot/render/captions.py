"""Text tiles of the board and the replay: a line of the header, a player's name."""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from .lettering import draw_text, fit_text, font_at, safe_text, text_width
from .palette import (
    BAND_OUT,
    FELT,
    MARKET_TOP,
    NAME_W,
    PAD,
    PLAYER_CARD,
    ROW_H,
    ROW_MARGIN,
    SS,
    TEXT,
    TEXT_DIM,
    TEXT_MARGIN,
    Colour,
)


@lru_cache(maxsize=64)  # a title line is up to ~200 kB; the pot changes every bet
def header_text(
    text: str, colour: tuple[int, int, int], max_width: float | None, right: bool = False
) -> Image.Image:
    """A line of the header (24 px bold) with ``TEXT_MARGIN`` either side, on the felt,
    the board's rows above the market band, at the final size; ``right``: aligned on the
    tile's right margin. Callers must not modify the result."""
    text = safe_text(text)
    font = font_at(24 * SS, bold=True)
    if max_width is not None:
        font, text = _fit_title(text, max_width * SS)
    width = math.ceil(text_width(text, font) / SS) + 2 * TEXT_MARGIN
    img = Image.new("RGB", (width * SS, (MARKET_TOP - BAND_OUT[1]) * SS), FELT)
    x = width - TEXT_MARGIN if right else TEXT_MARGIN
    xy = (x * SS, (PAD + 14) * SS)
    ImageDraw.Draw(img).text(xy, text, font=font, fill=colour, anchor="rm" if right else "lm")
    return img.reduce(SS)


def _fit_title(text: str, room: float) -> tuple[ImageFont.FreeTypeFont, str]:
    """The header's font and text for ``room`` (supersampled px): 24 px down to 18 px, then
    the game's name is shortened rather than the round after it ("Abyss… · apostas 2 de 5")."""
    for px in (24, 22, 20, 18):
        font = font_at(px * SS, bold=True)
        if text_width(text, font) <= room:
            return font, text
    head, sep, tail = text.rpartition(" · ")
    if not sep:
        return font, fit_text(text, font, room)
    tail = fit_text(tail, font, room * 0.7)
    return font, fit_text(head, font, room - text_width(sep + tail, font)) + sep + tail


# A computer player's name starts with this emoji, which DejaVu Sans lacks: drawn as a shape.
ROBOT = "🤖"
_ROBOT_W = 20  # the robot's width and the space after it, in logical pixels at 20 px text


def _draw_robot(d: ImageDraw.ImageDraw, x: float, ymid: float, px: int, fill: Colour) -> None:
    """A robot's head (antenna, square face, two eyes) ``px`` high, its left edge at ``x``."""
    s, k = 1.1 * px * SS, SS
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
    big = font_at(20 * SS, bold)
    if big.getlength(name) <= (room - indent) * SS:
        return 20, [name]
    font = font_at(16 * SS, bold)
    lines: list[str] = []
    for word in name.split():
        trial = f"{lines[-1]} {word}" if lines else word
        width = room - (indent if len(lines) <= 1 else 0)
        if lines and not word.startswith("(") and font.getlength(trial) <= width * SS:
            lines[-1] = trial
        else:
            lines.append(word)
    if len(lines) > 3:
        lines = [*lines[:2], " ".join(lines[2:])]
    return 16, [
        fit_text(line, font, (room - (indent if n == 0 else 0)) * SS)
        for n, line in enumerate(lines)
    ]


@lru_cache(maxsize=512)
def player_name(name: str, folded: str | None) -> Image.Image:
    """A player's name, left of their cards, with ``ROW_MARGIN`` before it: struck
    through and greyed above the word ``folded`` when the player folded (None: still in).
    A long name takes two lines; a computer player's robot is drawn before it.
    On the felt, a row high, at the final size. Callers must not modify the result."""
    ph = PLAYER_CARD[1]
    x0, ymid = ROW_MARGIN, ph / 2
    colour = TEXT_DIM if folded is not None else TEXT
    bold = folded is None
    robot = name.startswith(ROBOT)
    text = safe_text(name[len(ROBOT) :].strip() if robot else name)
    indent = _ROBOT_W if robot else 0
    px, lines = _name_lines(text, bold, NAME_W - 14, indent)
    font = font_at(px * SS, bold=bold)
    lw = max(font.getlength(line) / SS + (indent if n == 0 else 0) for n, line in enumerate(lines))
    # as wide as the name (the cache holds many), or the name column when folded
    width = NAME_W if folded is not None else min(NAME_W, x0 + math.ceil(lw) + TEXT_MARGIN)
    img = Image.new("RGB", (width * SS, ROW_H * SS), FELT)
    d = ImageDraw.Draw(img)
    step = px + 3
    top = ymid - (0 if bold else 8) - step * (len(lines) - 1) / 2
    if robot:
        _draw_robot(d, x0, top, px, colour)
    for n, line in enumerate(lines):
        y = top + n * step
        at = x0 + (indent if n == 0 else 0)
        draw_text(d, (at, y), line, px, colour, anchor="lm", bold=bold)
        if folded is not None:
            right = at + font.getlength(line) / SS
            d.line((x0 * SS, (y) * SS, right * SS, y * SS), fill=colour, width=2 * SS)
    if folded is not None:
        below = top + step * (len(lines) - 1) + 22
        draw_text(d, (x0, below), folded, 14, TEXT_DIM, anchor="lm", max_width=NAME_W - 14)
    return img.reduce(SS)
