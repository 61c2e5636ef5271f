"""The words of the learning aids at practice tables: a hint now, a review after the hand.

Only the player's own cards appear (these go to that player alone)."""

from __future__ import annotations

from bot.engine.record import Action, ActionKind
from bot.opponents import Advice
from bot.practice.coach import PracticeReview
from bot.render.plain_text import cards_text

from .catalog import t


def advice_what(advice: Advice) -> str:
    """What the level would do, in words ("draw 2: keep 4♦ 2♣ A♠")."""
    action = advice.action
    if action.action == ActionKind.DISCARD:
        count = len(action.cards or ())
        if count == 0:
            return t("hint.pat")
        if not advice.kept:
            return t("hint.draw.all")
        return t("hint.draw", count=count, kept=cards_text(advice.kept))
    return played_what(action)


def played_what(action: Action) -> str:
    """What the player did, in words ("threw K♠ Q♦"); their own cards, shown to them only."""
    if action.action == ActionKind.DISCARD:
        thrown = action.cards or ()
        return t("review.threw", cards=cards_text(thrown)) if thrown else (t("hint.pat"))
    if action.action == ActionKind.BUY:
        return t(f"hint.buy.{action.source}")  # one sentence per source: "comprar às cegas"
    return t(f"verb.{action.action}")


def advice_text(advice: Advice) -> str:
    return t("hint.line", level=t(f"level.{advice.level}"), what=advice_what(advice))


def review_text(practice: PracticeReview) -> str:
    """The player's decisions in their last practice hand next to the computer level's."""
    level = t(f"level.{practice.level}")
    lines = [t("review.title", hand_id=practice.hand_id, level=level)]
    for n, decision in enumerate(practice.decisions, 1):
        played = played_what(decision.played)
        if decision.same:
            lines.append(t("review.same", n=n, played=played, level=level))
        else:
            lines.append(
                t(
                    "review.other",
                    n=n,
                    played=played,
                    level=level,
                    what=advice_what(decision.advice),
                )
            )
    if not practice.decisions:
        lines.append(t("review.none"))
    return "\n".join(lines)
