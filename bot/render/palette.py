"""The card images' colours, sizes and layout, and the supersampled canvas they are drawn on.

Each region is drawn at ``SS`` times its final size and scaled down once, which
anti-aliases the shapes (``canvas``, then ``reduced``).
"""

from __future__ import annotations

from PIL import Image

SS = 3  # supersampling factor

# A colour as Pillow takes it: RGB, or RGBA with its alpha.
Colour = tuple[int, ...]

FELT = (22, 94, 58)
FELT_DARK = (16, 72, 44)
CARD_WHITE = (252, 252, 248)
CARD_EDGE = (120, 120, 120)
RED = (204, 24, 36)
BLACK = (22, 22, 26)
BACK_PANEL = (32, 62, 150)
BACK_LINE = (92, 128, 214)
TEXT = (240, 240, 232)
TEXT_DIM = (170, 190, 176)
GOLD = (246, 206, 92)

HAND_CARD = (100, 140)
MARKET_CARD = (84, 118)
PLAYER_CARD = (60, 84)
MAX_WIDTH = 1000

# The rows of the board and of the replay, in logical pixels (the market's: bot/render/board.py).
PAD = 16
HEADER_H = 40
MARKET_TOP = PAD + HEADER_H  # the header ends, the market (or the replay's first row) starts
BAND_OUT = 14, 6, 4  # the dark band reaches this far left/right, above and below the market
NAME_W = 140
ROW_H = PLAYER_CARD[1] + 14
# Margins of the text tiles around what they draw: glyphs may overhang their advance a
# little. A name (up to NAME_W - 14 wide) ends well before the player's first card.
TEXT_MARGIN = 8
ROW_MARGIN = 4


def canvas(w: int, h: int, colour: tuple[int, int, int] = FELT) -> Image.Image:
    """A supersampled RGBA canvas for ``w`` x ``h`` logical pixels, filled with ``colour``."""
    return Image.new("RGBA", (w * SS, h * SS), colour + (255,))


def reduced(canvas: Image.Image) -> Image.Image:
    """A supersampled canvas at its final size, in RGB."""
    # The supersampled canvas is drawn at SS times the size: averaging each SS x SS block
    # (a box filter) smooths the edges as well as Lanczos at a sixth of its cost.
    return canvas.convert("RGB").reduce(SS)
