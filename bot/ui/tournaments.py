"""Sit & Go texts: refusals and the table message's level line, through the catalog."""

from __future__ import annotations

from collections.abc import Mapping

from bot.storage.tournaments import EntryRow, TournamentRow
from bot.tables.tournament_mode import LevelView
from bot.tournaments.service import SngCode, SngRefused
from bot.tournaments.structures import Level

from .catalog import t
from .text import game


def sng_refusal(exc: SngRefused) -> str:
    """The private answer to a refused Sit & Go request."""
    params = dict(exc.params)
    if exc.code is SngCode.UNKNOWN_GAME:
        params["games"] = ", ".join(params["games"])
    if exc.code is SngCode.UNKNOWN_LEVEL:
        params["levels"] = ", ".join(params["levels"])
    if exc.code is SngCode.TOO_FEW:
        params = {"registered": params["count"]}
    return t(f"sng.refused.{exc.code.value}", **params)


def stakes_text(variant_id: str, level: Level) -> str:
    """A level's stakes in words: antes, blinds, bets, Abyssinia's card prices."""
    return stakes_words(variant_id, level.stakes_json())


def stakes_words(variant_id: str, s: Mapping[str, object]) -> str:
    """Stakes as ``Level.stakes_json()`` gives them, in words."""
    if variant_id == "abyssinia":
        prices = s["prices"]
        assert isinstance(prices, list)
        low, middle, ace = prices
        return t(
            "sng.stakes.abyssinia", ante=s["ante"], bet=s["bet"], low=low, middle=middle, ace=ace
        )
    if variant_id == "a5-triple":
        return t("sng.stakes.triple", **s)
    return t("sng.stakes.draw", **s)


def level_line(variant_id: str, level: Level, following: Level, seconds_left: float) -> str:
    """Where a Sit & Go stands: the level, its stakes, the next level's and the time to it."""
    view = LevelView(level.number, level.stakes_json(), following.stakes_json(), seconds_left)
    return table_level_line(variant_id, view)


def table_level_line(variant_id: str, view: LevelView) -> str:
    """The level line of a tournament table's message (``TableView.level``)."""
    whole = max(0, int(view.seconds_left))
    time = t("sng.time", minutes=whole // 60, seconds=f"{whole % 60:02d}")
    return t(
        "sng.level",
        level=view.number,
        stakes=stakes_words(variant_id, view.stakes),
        next=stakes_words(variant_id, view.following),
        time=time,
    )


def summary_text(row: TournamentRow, entries: list[EntryRow]) -> str:
    """The public summary of a finished Sit & Go: places, prizes, hands, the longest hand."""
    title = "sng.practice.summary_title" if row.practice else "sng.summary.title"
    lines = [t(title, id=row.tournament_id, game=game(row.variant))]
    if row.longest_hand_id is not None:
        lines.append(
            t(
                "sng.summary.hands",
                hands=row.hands,
                hand_id=row.longest_hand_id,
                actions=row.longest_actions,
            )
        )
    for e in sorted(entries, key=lambda e: (e.place or len(entries) + 1, e.seat or 0)):
        place = e.place or "-"
        if e.prize:
            lines.append(
                t("sng.summary.place.prize", place=place, name=e.display_name, prize=e.prize)
            )
        else:
            lines.append(t("sng.summary.place", place=place, name=e.display_name))
    return "\n".join(lines)
