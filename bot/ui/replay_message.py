"""A replay step as a Discord message: its words, its table image and the ⏮ ◀ ▶ ⏭ buttons.

Everything comes from ``bot.history.replay_steps``: a step holds the public view and only the
viewer's own cards. The buttons carry the hand and the step in their custom id, so they
work after a restart; who may see what is decided again on every click
(``bot.history.access``). Share makes only the sharer's own cards public, after a
confirmation that says so.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.engine import VARIANTS, BuySource
from bot.history.access import replay_access
from bot.history.replay_steps import Step, StepKind, replay_steps
from bot.history.stored import StoredHand
from bot.render.images import BoardLabels
from bot.render.plain_text import cards_text
from bot.render.replay_images import render_replay_async
from bot.tables.models import Move

from . import i18n
from .answering import Ack, Answered
from .app import app_of
from .catalog import t
from .cycles import PngFile
from .handlers import guarded, reply
from .history_lines import sng_mark, with_level
from .limits import allow_click
from .practice import named
from .render import _won_with
from .text import award_label, esc, game, move_line, returned_line, round_label, shown_hand

REPLAY_FILE = "replay.png"
BUTTON_TEMPLATE = r"rp:(?P<hand>\d+):(?P<step>\d+):(?P<do>first|prev|next|last|share|post)"
PICK_TEMPLATE = r"rpk:(?P<user>\d+)"


async def _stored(interaction: discord.Interaction, hand_id: int) -> StoredHand | None:
    """The finished hand, its computer players named as at the table, a tournament
    hand with its level."""
    stored = await app_of(interaction).exports.hand(hand_id)
    return None if stored is None else with_level(named(stored))


def _name(stored: StoredHand, player: str) -> str:
    return esc(stored.name(player))


def step_line(stored: StoredHand, step: Step) -> str:
    """What happened at this step, as the table told everyone (and the viewer)."""
    public = step.public
    if step.kind == StepKind.DEAL:
        dealer = next(s.player for s in public.seats if s.dealer)
        return t("replay.deal", dealer=_name(stored, dealer), round=round_label(public))
    if step.kind == StepKind.SHOWDOWN:
        lines = [
            t("result.shown", name=_name(stored, p), cards=cards_text(c), hand=n)
            for p, (c, n) in (
                (p, shown_hand(public.variant, cards)) for p, cards in step.shown.items()
            )
        ]
        return t("result.showdown") + "\n" + "\n".join(lines)
    if step.kind == StepKind.RESULT:
        lines = []
        for award in public.awards:
            back = returned_line(award, public, stored.name)  # a tournament hand's (§8)
            winners = (
                [back]
                if back
                else [
                    t(
                        "result.wins_with",
                        name=_name(stored, p),
                        chips=c,
                        hand=_won_with(award, p, public),
                    )
                    if p in public.shown
                    else t("result.wins", name=_name(stored, p), chips=c)
                    for p, c in award.shares.items()
                ]
            )
            lines.append(award_label(award, public) + ": " + ", ".join(winners))
        moved = [t("result.net", name=_name(stored, p), net=n) for p, n in public.net.items()]
        if stored.cancelled:
            lines.append(t("history.cancelled"))
        return "\n".join([*lines, " · ".join(moved)])
    assert step.actor is not None and step.action is not None
    move = Move(
        step.actor,
        stored.name(step.actor),
        step.action,
        count=step.thrown,
        source=step.source,
        card=step.bought,
    )
    line = move_line(move)
    if step.own_thrown:
        line += " " + t("replay.you_threw", cards=cards_text(step.own_thrown))
    return line


def step_embed(
    stored: StoredHand, steps: list[Step], index: int, viewer: str | None, shared: bool = False
) -> discord.Embed:
    step = steps[index]
    line = step_line(stored, step)
    if stored.cancelled and index == len(steps) - 1 and step.kind != StepKind.RESULT:
        line += "\n" + t("history.cancelled")  # where a finished hand shows its result
    embed = discord.Embed(
        title=t("replay.title", hand_id=stored.hand_id, game=game(stored.variant)),
        description=line,
        colour=discord.Colour.gold() if shared else discord.Colour.blurple(),
    )
    if viewer is not None and step.cards:
        _, name = shown_hand(stored.variant, step.cards)
        key = "replay.shared_cards" if shared else "replay.your_cards"
        value = cards_text(step.cards) + (f"\n*{name}*" if name else "")
        embed.add_field(name=t(key, name=_name(stored, viewer)), value=value, inline=False)
    elif viewer is None and not shared:
        embed.add_field(name=t("replay.spectator"), value=t("replay.spectator.why"), inline=False)
    marks = [t("replay.step", step=index + 1, steps=len(steps))]
    if stored.tournament_id is not None:  # on every step, as /history marks it
        marks.append(sng_mark(stored.tournament_id, stored.level))
    elif stored.practice:
        marks.append(t("history.practice"))
    if stored.cancelled:  # on every step: a cancelled hand has no result step to say so
        marks.append(t("history.cancelled"))
    embed.set_footer(text=" · ".join(marks))
    embed.set_image(url=f"attachment://{REPLAY_FILE}")
    return embed


async def step_image(stored: StoredHand, step: Step, viewer: str | None) -> PngFile:
    """The table at this step: the viewer's cards face up, others' as backs unless shown."""
    public = step.public
    variant = VARIANTS[public.variant]
    rows = []
    for seat in public.seats:
        label = t("replay.seat", name=stored.name(seat.player), stack=seat.stack)
        if variant.split:
            faces, backs = seat.open_cards, 0
        elif seat.player in step.shown:
            faces, backs = step.shown[seat.player], 0
        elif seat.player == viewer:
            faces, backs = step.cards, 0
        else:
            faces, backs = (), seat.card_count
        rows.append((label, tuple(faces), backs, seat.folded))
    pot = t("board.pot", pot=public.pot)
    title = (
        t("replay.image_title", hand_id=stored.hand_id, round=round_label(public))
        if not public.complete
        else t("table.title.hand", game=game(variant.id), hand_id=stored.hand_id)
    )
    market = labels = None
    if variant.split:
        market = [
            (t(f"source.{o.source}"), o.card, o.price)
            for o in public.market
            if o.source != BuySource.BLIND
        ]
        labels = BoardLabels(
            title=title,
            pot=pot,
            blind=t("source.blind"),
            empty=t("board.empty"),
            costs=t("board.costs", price="{price}"),
            costs_unknown=t("board.costs_unknown"),
            folded=t("seat.folded"),
            locale=i18n.current(),
        )
    png = await render_replay_async(title, pot, rows, market, labels)
    return PngFile(png, REPLAY_FILE)


def step_buttons(stored: StoredHand, index: int, count: int, viewer: str | None) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    last = count - 1
    targets = (
        ("first", 0, "⏮"),
        ("prev", index - 1, "◀"),
        ("next", index + 1, "▶"),
        ("last", last, "⏭"),
    )
    for do, target, emoji in targets:
        button = ReplayButton(stored.hand_id, max(0, min(last, target)), do, label=emoji)
        button.item.disabled = target == index or not 0 <= target <= last
        view.add_item(button)
    if viewer is not None:
        view.add_item(ReplayButton(stored.hand_id, index, "share", label=t("replay.share")))
    return view


async def show_step(
    interaction: discord.Interaction, hand_id: int, index: int | None, edit: bool
) -> None:
    """Answer with step ``index`` (None: the first) of the hand, as this user may see it."""
    stored = await _stored(interaction, hand_id)
    access = replay_access(stored, interaction.guild_id or 0, interaction.user.id)
    if access.refused is not None or stored is None:
        await _refuse(interaction, access.refused or "unknown", hand_id, edit)
        return
    steps = replay_steps(stored.record, access.viewer)
    index = max(0, min(len(steps) - 1, index or 0))
    embed = step_embed(stored, steps, index, access.viewer)
    image = await step_image(stored, steps[index], access.viewer)
    view = step_buttons(stored, index, len(steps), access.viewer)
    if edit:  # the replay message itself, its click deferred (``Ack.UPDATE``)
        await interaction.edit_original_response(embed=embed, attachments=[image], view=view)
    else:
        await interaction.followup.send(embed=embed, file=image, view=view, ephemeral=True)


async def _refuse(interaction: discord.Interaction, why: str, hand_id: int, edit: bool) -> None:
    text = t(f"replay.refused.{why}", hand_id=hand_id)
    if edit:
        await interaction.edit_original_response(content=text, embed=None, attachments=[],
                                                 view=None)  # fmt: skip
    else:
        await reply(interaction, text)


async def confirm_share(interaction: discord.Interaction, hand_id: int, index: int) -> None:
    stored = await _stored(interaction, hand_id)
    access = replay_access(stored, interaction.guild_id or 0, interaction.user.id)
    if access.refused is not None or stored is None or access.viewer is None:
        await _refuse(interaction, access.refused or "not_yours", hand_id, edit=False)
        return
    steps = replay_steps(stored.record, access.viewer)
    index = max(0, min(len(steps) - 1, index))
    cards = steps[index].cards
    text = t("replay.share.confirm", hand_id=hand_id, step=index + 1, cards=cards_text(cards))
    view = discord.ui.View(timeout=None)
    view.add_item(ReplayButton(hand_id, index, "post", label=t("replay.share.post")))
    await reply(interaction, text, view=view)


async def post_share(interaction: discord.Interaction, hand_id: int, index: int) -> None:
    """Post the step publicly, with the sharer's own cards and nobody else's."""
    stored = await _stored(interaction, hand_id)
    access = replay_access(stored, interaction.guild_id or 0, interaction.user.id)
    if access.refused is not None or stored is None or access.viewer is None:
        await _refuse(interaction, access.refused or "not_yours", hand_id, edit=True)
        return
    steps = replay_steps(stored.record, access.viewer)
    index = max(0, min(len(steps) - 1, index))
    await interaction.edit_original_response(
        content=t("replay.share.done", hand_id=hand_id), view=None
    )
    async with app_of(interaction).languages.public(interaction.guild_id, interaction.guild_locale):
        embed = step_embed(stored, steps, index, access.viewer, shared=True)
        embed.description = (
            t("replay.shared_by", name=_name(stored, access.viewer))
            + "\n"
            + (embed.description or "")
        )
        image = await step_image(stored, steps[index], access.viewer)
    await interaction.followup.send(embed=embed, file=image, ephemeral=False)


@guarded
async def clicked(interaction: discord.Interaction, hand_id: int, step: int, do: str) -> None:
    if do == "share":
        await confirm_share(interaction, hand_id, step)
    elif do == "post":
        await post_share(interaction, hand_id, step)
    else:
        await show_step(interaction, hand_id, step, edit=True)


@guarded
async def picked(interaction: discord.Interaction, hand_id: int) -> None:
    await show_step(interaction, hand_id, 0, edit=False)


class ReplayButton(
    Answered, discord.ui.DynamicItem[discord.ui.Button[Any]], template=BUTTON_TEMPLATE
):
    """⏮ ◀ ▶ ⏭, Share and Post: the hand, the step to show and what to do, in the id.
    Share answers with a new private confirmation; the others update their message."""

    def __init__(self, hand_id: int, step: int, do: str, *, label: str | None = None) -> None:
        style = (
            discord.ButtonStyle.primary
            if do in ("share", "post")
            else discord.ButtonStyle.secondary
        )
        super().__init__(
            discord.ui.Button(label=label or do, style=style, custom_id=f"rp:{hand_id}:{step}:{do}")
        )
        self.hand_id, self.step, self.do = hand_id, step, do

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ReplayButton:
        label = item.label if isinstance(item, discord.ui.Button) else None
        return cls(int(match["hand"]), int(match["step"]), match["do"], label=label)

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        i18n.for_interaction(interaction)
        return await allow_click(interaction)

    def ack_for(self, interaction: discord.Interaction) -> Ack:
        return Ack.PRIVATE if self.do == "share" else Ack.UPDATE

    async def answer(self, interaction: discord.Interaction) -> None:
        await clicked(interaction, self.hand_id, self.step, self.do)


class ReplayPicker(
    Answered, discord.ui.DynamicItem[discord.ui.Select[Any]], template=PICK_TEMPLATE
):
    """The Replay choice under /history: one option per hand listed, answered privately."""

    ack = Ack.PRIVATE

    def __init__(self, user_id: int, hand_ids: list[int] | None = None) -> None:
        options = [
            discord.SelectOption(label=t("replay.pick.option", hand_id=h), value=str(h))
            for h in hand_ids or []
        ]
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"rpk:{user_id}",
            placeholder=t("replay.pick"),
            options=options or [discord.SelectOption(label="-", value="0")],
        )
        super().__init__(select)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction, item: discord.ui.Item[Any], match: re.Match[str]
    ) -> ReplayPicker:
        return cls(int(match["user"]))

    async def interaction_check(self, interaction: discord.Interaction) -> bool:
        i18n.for_interaction(interaction)
        return await allow_click(interaction)

    async def answer(self, interaction: discord.Interaction) -> None:
        data: Any = interaction.data or {}
        values = list(data.get("values", [])) or ["0"]
        await picked(interaction, int(values[0]))


def replay_picker(user_id: int, hand_ids: list[int]) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(ReplayPicker(user_id, hand_ids))
    return view
