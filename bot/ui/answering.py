"""Every interaction answered once, first: how each command and component is acknowledged
before its first await, and the acknowledgement of one its handler left unanswered.

Discord wants an answer within 3 s, and a followup or an edit of the original response
before it fails (404 Unknown Webhook). So the answer is not left to each handler's memory:

* every slash command is deferred privately ("thinking…") by the command tree before its
  checks and its callback run (``LocaleTree.interaction_check``); its answer then replaces
  the deferral. A command with a public answer says ``extras={"ack": Ack.PUBLIC}``: the
  tree leaves it to the command, whose first statement is ``acknowledge(…, Ack.PUBLIC)``
  (after its checks, so that a refusal such as a cooldown stays private);
* every component of ours is an ``Answered`` item: its ``ack_for`` says how a click is
  acknowledged, and ``Answered.callback`` does that before the item's ``answer`` runs and
  acknowledges whatever ``answer`` left unanswered (a bug, logged) once it is done.

A click on the table message is the one acknowledgement made later: the presenter answers
it with the table (``UPDATE_MESSAGE``) or defers it at its deadline, ``answer_within``
(``Presenter.answer_with_table``), and also when its table is gone after the step.
"""

from __future__ import annotations

import enum
import logging
from typing import Any, ClassVar

import discord

from .cycles import done_with

log = logging.getLogger(__name__)


class Ack(enum.Enum):
    """How an interaction is acknowledged before its handler does any slow work."""

    PRIVATE = "private"  # "thinking…" that only the user sees; the answer replaces it
    PUBLIC = "public"  # "thinking…" in the channel, by the command itself (/leaderboard)
    UPDATE = "update"  # the clicked message is edited in place (type 6, then edits)
    TABLE = "table"  # a table-message click: the presenter answers it with the table


async def acknowledge(interaction: discord.Interaction, ack: Ack) -> None:
    """Acknowledge now, unless already answered (``Ack.TABLE``: the presenter does)."""
    if interaction.response.is_done() or ack is Ack.TABLE:
        return
    if ack is Ack.PRIVATE:
        await interaction.response.defer(ephemeral=True, thinking=True)
    elif ack is Ack.PUBLIC:
        await interaction.response.defer(thinking=True)
    else:
        await interaction.response.defer()


def command_ack(interaction: discord.Interaction) -> Ack | None:
    """How the command tree acknowledges a slash command before its checks: privately,
    or None (an autocomplete; a public command, which acknowledges itself first)."""
    if interaction.type is not discord.InteractionType.application_command:
        return None
    command = interaction.command
    extras: dict[Any, Any] = command.extras if command is not None else {}
    return None if extras.get("ack") is Ack.PUBLIC else Ack.PRIVATE


async def ensure_answered(interaction: discord.Interaction) -> None:
    """After a handler: a click it left unanswered is acknowledged (type 6: nothing new is
    shown), so Discord never says it failed. It is a bug in the handler: logged."""
    if interaction.response.is_done():
        return
    log.warning("interaction %s (%s) was left unanswered by its handler", interaction.id,
                interaction.data.get("custom_id") if interaction.data else None)  # fmt: skip
    try:
        await interaction.response.defer()
    except discord.HTTPException as exc:
        log.warning("interaction %s could not be acknowledged late (%r)", interaction.id, exc)


class Answered:
    """A component of ours (mixed into each ``DynamicItem``): every click is acknowledged
    as ``ack_for`` says before ``answer`` runs, and acknowledged once it returned if
    ``answer`` did not answer it. Subclasses implement ``answer``, never ``callback``."""

    ack: ClassVar[Ack] = Ack.PRIVATE

    def ack_for(self, interaction: discord.Interaction) -> Ack:
        return self.ack

    async def answer(self, interaction: discord.Interaction) -> None:
        raise NotImplementedError

    async def callback(self, interaction: discord.Interaction) -> None:
        await acknowledge(interaction, self.ack_for(interaction))
        try:
            await self.answer(interaction)
        finally:
            await ensure_answered(interaction)
        # not after an error: discord.py's handler needs it. A dynamic item's view was built
        # for this one click; any other item's view is kept (it may be clicked again)
        view = getattr(self, "view", None) if isinstance(self, discord.ui.DynamicItem) else None
        done_with(interaction, view)
