"""Sit & Go texts: refusals and the table message's level line, through the catalog."""

from __future__ import annotations

from bot.tournaments.service import SngCode, SngRefused
from bot.tournaments.structures import Level

from .catalog import t


def sng_refusal(exc: SngRefused) -> str:
    """The private answer to a refused Sit & Go request."""
    params = dict(exc.params)
    if exc.code is SngCode.UNKNOWN_GAME:
        params["games"] = ", ".join(params["games"])
    if exc.code is SngCode.TOO_FEW:
        params = {"registered": params["count"]}
    return t(f"sng.refused.{exc.code.value}", **params)


def stakes_text(variant_id: str, level: Level) -> str:
    """A level's stakes in words: antes, blinds, bets, Abyssinia's card prices."""
    s = level.stakes_json()
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
    whole = max(0, int(seconds_left))
    time = t("sng.time", minutes=whole // 60, seconds=f"{whole % 60:02d}")
    return t(
        "sng.level",
        level=level.number,
        stakes=stakes_text(variant_id, level),
        next=stakes_text(variant_id, following),
        time=time,
    )
