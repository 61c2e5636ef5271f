"""One line per past hand for /history: only the caller's own cards are shown; and the
mark of a tournament hand ("Sit & Go #3, level 2") that /history, /replay and the exports
show."""

from __future__ import annotations

from dataclasses import replace

from bot.engine import Hand
from bot.engine.record import parse_record
from bot.history.stored import StoredHand
from bot.render.plain_text import cards_text
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


def sng_mark(tournament_id: int, level: int | None) -> str:
    return t("history.sng", id=tournament_id, level=level or "?")


def with_level(stored: StoredHand) -> StoredHand:
    """A tournament hand with its level, read off the stakes its record carries."""
    if stored.tournament_id is None or stored.record.stakes is None:
        return stored
    level = level_number(stored.variant, stored.record.stakes.to_json())
    return replace(stored, level=level)


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
        line += " · " + sng_mark(summary.tournament_id, level)
    elif summary.practice:
        line += " · " + t("history.practice")
    if key in hand.players:
        seat = hand.seat_of(key)
        state = "history.folded" if hand.folded[seat] else "history.held"
        line += " · " + t(state, cards=cards_text(hand.holdings[seat]))
    return line
