"""Exports as Discord files: built page by page off the event loop, and the /privacy button.

A player's export is their hands as PokerStars-style text and their ledger as CSV; a
server's (moderators) is its ledger per player and the public hand log, PokerNow-style.
Each is bounded (the last ``hands`` hands, optionally only the last ``days`` days); the
records are read ``PAGE`` hands at a time and written in a worker thread, so the loop
keeps serving the tables while a big export is built.
"""

from __future__ import annotations

import asyncio
import io
import re
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import discord

from bot.history.exports import Exports
from bot.history.handtext import hands_text
from bot.history.ledgercsv import player_ledger_csv, server_ledger_csv
from bot.history.publiclog import public_log_csv
from bot.history.stored import StoredHand
from bot.storage.exports import PAGE

from . import i18n
from .answering import Ack, Answered
from .app import app_of
from .catalog import t
from .handlers import guarded
from .history_lines import with_level
from .limits import allow_click
from .practice import named

DEFAULT_HANDS = 200
MAX_HANDS = 1000
LEDGER_ROWS = 5000
EXPORT_TEMPLATE = r"pvx:(?P<user>\d+)"


async def _build(
    repo: Exports, hand_ids: Sequence[int], write: Callable[[list[StoredHand]], Iterable[str]]
) -> str:
    parts: list[str] = []
    for start in range(0, len(hand_ids), PAGE):
        page = await repo.hands(hand_ids[start : start + PAGE])
        hands = [with_level(named(h)) for h in page]
        parts.append(await asyncio.to_thread(_joined, write, hands))
    return "".join(parts)


def _joined(write: Callable[[list[StoredHand]], Iterable[str]], hands: list[StoredHand]) -> str:
    return "".join(write(hands))


def _file(text: str, filename: str) -> discord.File:
    return discord.File(io.BytesIO(text.encode("utf-8")), filename=filename)


def _since(days: int | None) -> float | None:
    return None if days is None else time.time() - days * 86400


async def player_export(
    store: Any, guild_id: int, user_id: int, hands: int = DEFAULT_HANDS, days: int | None = None
) -> tuple[list[discord.File], int]:
    """The player's files and how many hands they hold."""
    repo = store.exports
    since = _since(days)
    ids = await repo.player_hand_ids(guild_id, user_id, hands, since)
    key = str(user_id)
    text = await _build(repo, ids, lambda page: hands_text(page, key))
    entries = await repo.ledger(guild_id, user_id, LEDGER_ROWS, since)
    ledger = await asyncio.to_thread(player_ledger_csv, entries)
    return [
        _file(text, f"hands-{guild_id}-{user_id}.txt"),
        _file(ledger, f"ledger-{guild_id}-{user_id}.csv"),
    ], len(ids)


async def server_export(
    repo: Exports, guild_id: int, hands: int = DEFAULT_HANDS, days: int | None = None
) -> tuple[list[discord.File], int]:
    ids = await repo.server_hand_ids(guild_id, hands, _since(days))
    written = {"order": 0, "pages": 0}  # each page numbers its lines on from the last

    def page_log(page: list[StoredHand]) -> Iterable[str]:
        text, written["order"] = public_log_csv(
            page, header=not written["pages"], order=written["order"]
        )
        written["pages"] += 1
        return [text]

    log = await _build(repo, ids, page_log) if ids else public_log_csv([])[0]
    rows = await repo.server_ledger(guild_id)
    ledger = await asyncio.to_thread(server_ledger_csv, rows)
    return [
        _file(ledger, f"server-ledger-{guild_id}.csv"),
        _file(log, f"server-hands-{guild_id}.csv"),
    ], len(ids)


async def send_player_export(
    interaction: discord.Interaction, hands: int = DEFAULT_HANDS, days: int | None = None
) -> None:
    files, count = await player_export(
        app_of(interaction),  # what it reads: .exports
        interaction.guild_id or 0,
        interaction.user.id,
        hands,
        days,
    )
    await interaction.followup.send(t("export.mine", count=count), files=files, ephemeral=True)


class ExportButton(
    Answered, discord.ui.DynamicItem[discord.ui.Button[Any]], template=EXPORT_TEMPLATE
):
    """/privacy show's "Export my data": the player's own export, privately."""

    ack = Ack.PRIVATE

    def __init__(self, user_id: int) -> None:
        super().__init__(
            discord.ui.Button(
                label=t("export.button"),
                style=discord.ButtonStyle.secondary,
                custom_id=f"pvx:{user_id}",
            )
        )
        self.user_id = user_id

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ExportButton:
        return cls(int(match["user"]))

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        i18n.for_interaction(interaction)
        return await allow_click(interaction)

    async def answer(self, interaction: discord.Interaction) -> None:
        await exported(interaction)


@guarded
async def exported(interaction: discord.Interaction) -> None:
    await send_player_export(interaction)  # the clicker's own data, whoever's button it was


def export_button(user_id: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ExportButton(user_id))
    return view
