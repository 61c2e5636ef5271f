"""The bundled fonts and drawing text with them (at logical sizes on a supersampled canvas).

Text uses DejaVu Sans (regular and bold), shipped in ``bot/render/fonts`` with
its licence: it covers Vietnamese and Portuguese diacritics and the suit
symbols, so labels in every supported language draw without missing-glyph
boxes. A character it lacks (an emoji in a name, say) is replaced by its base
letter, or ``?``.
"""

from __future__ import annotations

import io
import threading
import unicodedata
from functools import lru_cache
from importlib import resources

from PIL import Image, ImageDraw, ImageFont

from .palette import SS, Colour

FONT_DIR = resources.files(__package__) / "fonts"
FONT_FILES = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}
# Code points no font maps: drawing one gives the font's missing-glyph (.notdef) box.
_UNMAPPED = "\U0010fffd"


@lru_cache(maxsize=2)
def _font_bytes(bold: bool) -> bytes:
    return (FONT_DIR / FONT_FILES[bold]).read_bytes()


# FreeType faces are not safe to share between threads: each render thread loads its own.
_THREAD = threading.local()


def font_at(px: int, bold: bool = False) -> ImageFont.FreeTypeFont:
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
    font = font_at(40, bold)
    return _mask_key(font, ch) != _mask_key(font, _UNMAPPED)


def safe_text(text: str) -> str:
    """Replace characters the bundled font cannot draw (emoji in a name, say) by their base."""
    out = []
    for ch in unicodedata.normalize("NFC", text):
        if has_glyph(ch):
            out.append(ch)
            continue
        base = "".join(c for c in unicodedata.normalize("NFKD", ch) if has_glyph(c))
        out.append(base or "?")
    return "".join(out)


def text_width(text: str, font: ImageFont.FreeTypeFont) -> float:
    return float(font.getlength(text))


def fit_text(text: str, font: ImageFont.FreeTypeFont, max_width: float) -> str:
    """Shorten ``text`` with an ellipsis until it fits ``max_width``."""
    if text_width(text, font) <= max_width:
        return text
    while text and text_width(text + "…", font) > max_width:
        text = text[:-1]
    return text.rstrip() + "…"


def draw_text(
    draw: ImageDraw.ImageDraw,
    xy: tuple[float, float],
    text: str,
    px: int,
    fill: Colour,
    anchor: str = "la",
    bold: bool = False,
    max_width: float | None = None,
) -> None:
    """Draw at logical coordinates/sizes (multiplied by ``SS`` here)."""
    font = font_at(px * SS, bold)
    text = safe_text(text)
    if max_width is not None:
        text = fit_text(text, font, max_width * SS)
    draw.text((xy[0] * SS, xy[1] * SS), text, font=font, fill=fill, anchor=anchor)


def draw_squeezed(
    img: Image.Image, cx: float, top: float, text: str, px: int, fill: Colour, max_width: float
) -> None:
    """Bold text centred on ``cx`` below ``top``, squeezed sideways to ``max_width``."""
    font = font_at(px * SS, bold=True)
    left, upper, right, lower = font.getbbox(text)
    mask = Image.new("L", (int(right - left), int(lower - upper)), 0)
    ImageDraw.Draw(mask).text((-left, -upper), text, font=font, fill=255)
    limit = round(max_width * SS)
    if mask.width > limit:
        mask = mask.resize((limit, mask.height), Image.Resampling.LANCZOS)
    x = round(cx * SS - mask.width / 2)
    img.paste(Image.new("RGBA", mask.size, fill + (255,)), (x, round(top * SS)), mask)
