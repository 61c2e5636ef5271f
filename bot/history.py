"""One line per past hand for /history: only the caller's own cards are shown."""

from __future__ import annotations

from bot.engine import VARIANTS, Hand
from bot.engine.record import parse_record
from bot.render.text import cards_text
from bot.storage.store import HandSummary


def _ago(seconds: float) -> str:
    if seconds < 3600:
        return f"{max(1, int(seconds // 60))} min ago"
    if seconds < 86400:
        return f"{int(seconds // 3600)} h ago"
    return f"{int(seconds // 86400)} d ago"


def summarize(summary: HandSummary, user_id: int, now: float) -> str:
    hand = Hand.replay(parse_record(summary.record))
    key = str(user_id)
    variant = VARIANTS[summary.variant].name
    when = _ago(now - summary.completed_at)
    line = f"**#{summary.hand_id}** {variant} · **{summary.net:+d}** · {when}"
    if key in hand.players:
        seat = hand.seat_of(key)
        state = "folded" if hand.folded[seat] else "held"
        line += f" · you {state} {cards_text(hand.holdings[seat])}"
    return line
