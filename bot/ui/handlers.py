"""Interaction handlers shared by slash commands and buttons.

They translate a Discord interaction into one table-manager call and answer
the caller. Private cards are only ever answered ephemerally.
"""

from __future__ import annotations

import contextlib
import functools
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, ParamSpec

import discord

from bot.engine import VARIANTS, ActionKind, BuySource, Phase
from bot.tables.manager import TableManager
from bot.tables.models import Code, Done, Refused, TableView

from .answering import Ack
from .app import app_of
from .catalog import t
from .coaching import review_text
from .components import Button, discard_picker, dms_retry
from .cycles import let_go
from .render import hand_embed
from .text import cmd, move_line, outcome, refusal, where

#: table buttons answered with a private message of their own (cards, a menu, a probe)
PRIVATE_BUTTONS = (Button.HAND, Button.DRAW, Button.DMS)
log = logging.getLogger(__name__)
P = ParamSpec("P")


async def reply(interaction: discord.Interaction, text: str, **kwargs: Any) -> None:
    """Answer ephemerally, whether or not the interaction was answered before."""
    if interaction.response.is_done():
        await interaction.followup.send(text, ephemeral=True, **kwargs)
    else:
        await interaction.response.send_message(text, ephemeral=True, **kwargs)


async def answer_first(interaction: discord.Interaction) -> None:
    """Defer at once, privately and "thinking", before any slow work (database, renders,
    other REST calls): Discord then shows nothing failed, and the private result follows
    as a followup that only the clicker sees."""
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=True, thinking=True)


async def refuse(
    interaction: discord.Interaction,
    exc: Refused,
    channel_id: int | None = None,
    variant: str | None = None,
) -> None:
    """Say why, and what to do instead, once (the refusal's code decides the words)."""
    view = None
    if channel_id is not None:
        view = app_of(interaction).manager.find_view(channel_id)
    await reply(interaction, refusal(exc, variant, view, interaction.user.id))


def guarded(handler: Callable[P, Awaitable[None]]) -> Callable[P, Awaitable[None]]:
    """Log an unexpected error with its context and apologise, privately and briefly."""

    @functools.wraps(handler)
    async def run(*args: P.args, **kwargs: P.kwargs) -> None:
        try:
            await handler(*args, **kwargs)
        except Exception:
            interaction = next(a for a in args if isinstance(a, discord.Interaction))
            log.exception(
                "%s failed (guild %s, channel %s, user %s)",
                source(interaction),
                interaction.guild_id,
                interaction.channel_id,
                interaction.user.id,
            )
            await apologize(interaction)

    return run


def source(interaction: discord.Interaction) -> str:
    """What was used, for logs: ``/a5-draw check`` or ``component pk:…``."""
    if interaction.command is not None:
        return f"/{interaction.command.qualified_name}"
    data: Any = interaction.data or {}
    return f"component {data.get('custom_id')}"


@contextlib.asynccontextmanager
async def committed(interaction: discord.Interaction, what: str) -> AsyncIterator[None]:
    """Around the answer to a request the table already applied and stored: if answering
    fails, say that it went through (never that nothing changed)."""
    try:
        yield
    except Exception:
        log.exception(
            "the answer to an applied %s failed (guild %s, channel %s, user %s)",
            what,
            interaction.guild_id,
            interaction.channel_id,
            interaction.user.id,
        )
        await apologize(interaction, "error.reply_failed")


def _progress(manager: TableManager, channel_id: int) -> tuple[int | None, int]:
    """Where the table's hand stands: it moves exactly when an action is stored."""
    return manager.progress(channel_id)


async def apologize(interaction: discord.Interaction, key: str = "error.unexpected") -> None:
    try:
        await reply(interaction, t(key))
    except discord.HTTPException:
        log.warning("could not send the apology for interaction %s", interaction.id)


@guarded
async def act(
    interaction: discord.Interaction,
    channel_id: int,
    action: str,
    *,
    cards: str | Sequence[str] | None = None,
    source: str | None = None,
    hand_id: int | None = None,
    turn: int | None = None,
    carry: bool = False,
) -> None:
    """One game action; ``carry``: a click on the table message, answered with the table."""
    manager = app_of(interaction).manager
    before = _progress(manager, channel_id)

    def step() -> Awaitable[Any]:
        return manager.act(
            channel_id,
            interaction.user.id,
            action,
            cards=cards,
            source=source,
            hand_id=hand_id,
            turn=turn,
        )

    try:
        result, carried = await stepped(interaction, channel_id, step, carry=carry)
    except Refused as exc:
        await refuse(interaction, exc, channel_id)
        return
    except Exception:
        if _progress(manager, channel_id) == before:
            raise  # nothing was stored: the general apology is true
        async with committed(interaction, action):
            raise
        return
    if carried:
        return  # the table message, updated by the click's own answer, shows the action
    async with committed(interaction, action):
        note = t("done.action", line=move_line(result.move))
        embed, files = await hand_embed(result.seat, note, where(channel_id, before[0]))
        if on_private_message(interaction):  # the discard picker: it shows the new cards
            await interaction.edit_original_response(
                content=None, embed=embed, attachments=files, view=None
            )
        else:  # a slash command's answer, replacing its deferral
            await interaction.followup.send(embed=embed, files=files, ephemeral=True)


def on_private_message(interaction: discord.Interaction) -> bool:
    """Whether the click was on a message only the clicker sees (the discard picker)."""
    message = interaction.message
    return message is not None and message.flags.ephemeral


async def stepped(
    interaction: discord.Interaction,
    channel_id: int,
    step: Callable[[], Awaitable[Any]],
    *,
    carry: bool = False,
) -> tuple[Any, bool]:
    """Run a table step for an interaction, answered before any wait it does not need: a
    click on the table message by the table after the step (the presenter's answer), any
    other interaction by a private deferral first (the command tree and ``Answered`` made
    it already). The step's result, and whether the answer carried the table. A refusal
    is raised with the interaction perhaps unanswered (``reply`` answers either way)."""
    presenter = app_of(interaction).presenter
    if carry and not interaction.response.is_done() and presenter.carries(interaction, channel_id):
        return await presenter.answer_with_table(interaction, channel_id, step), True
    await answer_first(interaction)
    return await step(), False


async def show_hand(interaction: discord.Interaction, channel_id: int, note: str = "") -> None:
    await answer_first(interaction)
    manager = app_of(interaction).manager
    try:
        seat = manager.my_hand(channel_id, interaction.user.id)
    except Refused as exc:
        await refuse(interaction, exc, channel_id)
        return
    if seat is None:
        view = manager.view(channel_id)
        if view.hand is None:  # between hands at a practice table: the last one, reviewed
            last = await manager.review_last(channel_id, interaction.user.id)
            if last is not None:
                await reply(interaction, where(channel_id, last.hand_id) + "\n" + review_text(last))
                return
        await refuse(interaction, outside(view, interaction.user.id))
        return
    embed, files = await hand_embed(seat, note, where(channel_id, manager.view(channel_id).hand_id))
    await interaction.followup.send(embed=embed, files=files, ephemeral=True)


def outside(view: TableView, user_id: int) -> Refused:
    """Why someone without cards in the hand has none: no hand, not seated, or dealt later."""
    if view.hand is None:
        return Refused(Code.NO_HAND, variant=view.variant)
    if all(s.user_id != user_id for s in view.seats):
        return Refused(Code.NOT_SEATED, variant=view.variant)  # tell them how to join
    return Refused(Code.NOT_DEALT_IN)


async def open_picker(
    interaction: discord.Interaction, channel_id: int, hand_id: int | None, turn: int | None
) -> None:
    """The draw button: the player to act gets their cards and a discard menu, privately."""
    await answer_first(interaction)
    manager = app_of(interaction).manager
    try:
        view = manager.view(channel_id)
        seat = manager.my_hand(channel_id, interaction.user.id)
        if hand_id != view.hand_id or turn != view.turn:
            raise Refused(Code.STALE_BUTTON)
        if seat is None:
            raise outside(view, interaction.user.id)
        if seat.decision is None or seat.decision.phase != Phase.DRAW:
            raise Refused(
                Code.NOT_YOUR_TURN, name=view.name(view.hand.to_act or "") if view.hand else ""
            )
    except Refused as exc:
        await refuse(interaction, exc, channel_id)
        return
    embed, files = await hand_embed(seat, t("picker.note"), where(channel_id, view.hand_id))
    picker = discard_picker(channel_id, view.hand_id or 0, view.turn, list(seat.cards))
    try:
        await interaction.followup.send(embed=embed, files=files, view=picker, ephemeral=True)
    finally:
        let_go(picker)


@guarded
async def button(
    interaction: discord.Interaction,
    channel_id: int,
    action: str,
    hand_id: int | None,
    turn: int | None,
) -> None:
    """A button: a step asked for on the table message is answered with the table itself
    (see ``stepped``); My hand and Draw answer privately."""
    if action == Button.HAND:
        await show_hand(interaction, channel_id)
    elif action == Button.DRAW:
        await open_picker(interaction, channel_id, hand_id, turn)
    elif action == Button.PAT:
        await act(interaction, channel_id, ActionKind.DISCARD, cards=[], hand_id=hand_id,
                  turn=turn, carry=True)  # fmt: skip
    elif action in tuple(BuySource):
        await act(interaction, channel_id, ActionKind.BUY, source=action, hand_id=hand_id,
                  turn=turn, carry=True)  # fmt: skip
    elif action == Button.JOIN:
        await join(interaction, channel_id, carry=True)
    elif action == Button.DEAL:
        await deal(interaction, channel_id, carry=True)
    elif action == Button.DMS:
        await retry_dms(interaction)
    else:
        await act(interaction, channel_id, action, hand_id=hand_id, turn=turn, carry=True)


async def join(interaction: discord.Interaction, channel_id: int, *, carry: bool = False) -> None:
    manager = app_of(interaction).manager
    name = interaction.user.display_name
    try:
        done, _ = await stepped(
            interaction,
            channel_id,
            lambda: manager.join(channel_id, interaction.user.id, name),
            carry=carry,
        )
    except Refused as exc:
        await refuse(interaction, exc, channel_id)
        return
    variant = manager.view(channel_id).variant
    async with committed(interaction, "join"):
        await reply(interaction, outcome(done, variant))
    if done.code is Done.SEATED:
        await warn_if_dms_closed(interaction, variant)


async def warn_if_dms_closed(interaction: discord.Interaction, variant: str) -> None:
    """At a join: a player whose DMs are known to work is not asked again (that is stored,
    also across restarts); anyone else gets one probe DM (joining again tries closed DMs
    once more). If their DMs are closed, tell them privately to use My hand, with a button
    to try again once they opened them."""
    presenter = app_of(interaction).presenter
    user_id = interaction.user.id
    if await presenter.dms_known(user_id):
        return
    await presenter.reopen_dms(user_id)
    if not await probe_dms(interaction):
        channel_id = interaction.channel_id or 0
        retry = dms_retry(channel_id)
        try:
            text = t("dm.closed", command=cmd(variant, "hand"))
            await interaction.followup.send(text, view=retry, ephemeral=True)
        finally:
            let_go(retry)


async def probe_dms(interaction: discord.Interaction) -> bool:
    """One probe DM; False if the user's DMs are closed."""
    try:
        return await app_of(interaction).presenter.send_dm(interaction.user.id,
                                                       content=t("dm.join_probe"))  # fmt: skip
    except discord.HTTPException:
        log.warning("could not check the DMs of user %s", interaction.user.id)
        return True  # not known to be closed


async def retry_dms(interaction: discord.Interaction) -> None:
    """The "try DMs again" button of the join warning."""
    await answer_first(interaction)
    await app_of(interaction).presenter.reopen_dms(interaction.user.id)
    opened = await probe_dms(interaction)
    await reply(interaction, t("dm.open_now" if opened else "dm.still_closed"))


async def deal(interaction: discord.Interaction, channel_id: int, *, carry: bool = False) -> None:
    manager = app_of(interaction).manager
    try:
        view, carried = await stepped(
            interaction,
            channel_id,
            lambda: manager.deal(channel_id, interaction.user.id),
            carry=carry,
        )
    except Refused as exc:
        await refuse(interaction, exc, channel_id)
        return
    if carried and not await needs_cards(interaction, view):
        return  # the table message shows the deal; the dealer's cards are in their DMs
    async with committed(interaction, "deal"):
        await show_hand(interaction, channel_id, t("done.dealt"))


async def needs_cards(interaction: discord.Interaction, view: TableView) -> bool:
    """Whether the dealer of a hand dealt by a click must be shown their cards privately: a
    hidden hand, and their DMs (where every dealt hand goes) closed or never tried."""
    open_cards = VARIANTS[view.variant].split  # Abyssinia: every card is on the board
    dealt_in = any(s.user_id == interaction.user.id for s in view.seats)
    if not dealt_in or open_cards:
        return False
    return not await app_of(interaction).presenter.dms_known(interaction.user.id)


async def post_table(interaction: discord.Interaction, channel_id: int) -> None:
    """Have the table message posted (by the table's presenter) at the bottom of the channel.
    The deferred answer is removed: the table message itself is the answer."""
    await answer_first(interaction)
    app_of(interaction).presenter.repost(channel_id)
    await interaction.delete_original_response()


class TableController:
    """The controller the table message's components call (``bot.ui.controller``)."""

    def ack(self, interaction: discord.Interaction, channel_id: int, action: str) -> Ack:
        """My hand, Draw and the DM retry: a private answer. Stand pat in the discard
        picker: that message, updated. A click on the table message now shown: the table
        (the presenter). Any other (an old table message): a private answer."""
        if action in PRIVATE_BUTTONS:
            return Ack.PRIVATE
        if on_private_message(interaction):
            return Ack.UPDATE
        if app_of(interaction).presenter.carries(interaction, channel_id):
            return Ack.TABLE
        return Ack.PRIVATE

    async def button(
        self,
        interaction: discord.Interaction,
        channel_id: int,
        action: str,
        hand_id: int | None,
        turn: int | None,
    ) -> None:
        await button(interaction, channel_id, action, hand_id, turn)

    async def discard(
        self,
        interaction: discord.Interaction,
        channel_id: int,
        cards: Sequence[str],
        hand_id: int,
        turn: int,
    ) -> None:
        await act(interaction, channel_id, ActionKind.DISCARD, cards=cards, hand_id=hand_id,
                  turn=turn)  # fmt: skip
