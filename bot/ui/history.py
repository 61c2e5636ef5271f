"""One line per past hand for /history: only the caller's own cards are shown."""

from __future__ import annotations

from bot.engine import Hand
from bot.engine.record import parse_record
from bot.render.text import cards_text
from bot.storage.rows import HandSummary
from bot.tournaments.structures import level_number

from .catalog import t
from .text import game


def ago(seconds: float) -> str:
    if seconds < 3600:
        return t("ago.minutes", count=max(1, int(seconds // 60)))
    if seconds < 86400:
        return t("ago.hours", count=int(seconds // 3600))
    return t("ago.days", count=int(seconds // 86400))


def summarize(summary: HandSummary, user_id: int, now: float) -> str:
    hand = Hand.replay(parse_record(summary.record))
    key = str(user_id)
    line = t(
        "history.line",
        hand_id=summary.hand_id,
        game=game(summary.variant),
        net=summary.net,
        ago=ago(now - summary.completed_at),
    )
    if summary.cancelled:
        line += " · " + t("history.cancelled")
    if summary.tournament_id is not None:  # a Sit & Go's hand, at its level's stakes
        level = level_number(summary.variant, summary.record.get("stakes"))
        line += " · " + t("history.sng", id=summary.tournament_id, level=level or "?")
    elif summary.practice:
        line += " · " + t("history.practice")
    if key in hand.players:
        seat = hand.seat_of(key)
        state = "history.folded" if hand.folded[seat] else "history.held"
        line += " · " + t(state, cards=cards_text(hand.holdings[seat]))
    return line
