"""A season's words: its label, its standings' title and its dates."""

from __future__ import annotations

from bot.storage.seasons import SeasonRow
from bot.ui.catalog import t
from bot.ui.text import esc


def when(season: SeasonRow) -> str:
    """The season's window as Discord dates (each reader sees their own calendar)."""
    start = f"<t:{int(season.started_at)}:D>"
    if season.ended_at is None:
        return t("season.running", start=start)
    return t("season.window", start=start, end=f"<t:{int(season.ended_at)}:D>")


def label(season: SeasonRow) -> str:
    """The season's number and name."""
    if season.name:
        return t("season.label.named", number=season.number, name=esc(season.name))
    return t("season.label", number=season.number)


def title(season: SeasonRow) -> str:
    if season.name:
        return t("season.title.named", number=season.number, name=esc(season.name))
    return t("season.title", number=season.number)
