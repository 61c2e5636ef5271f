"""Card images (Pillow, drawn at run time) and their plain-text fallback."""

from bot.render.board import render_board
from bot.render.hand import render_hand
from bot.render.plain_text import board_text, cards_text, market_text

__all__ = ["board_text", "cards_text", "market_text", "render_board", "render_hand"]
