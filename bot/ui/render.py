"""Turning table views into Discord embeds and files.

Only ``TableView`` (public) and ``SeatView`` (one player's own) come in here,
so a public message can hold nothing but public information.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.engine import VARIANTS, Award, AwardLabel, BuySource, Phase, PublicView, Ranking, SeatView
from bot.render.images import BoardLabels, render_board_async, render_hand_async
from bot.render.plain_text import card_text, cards_text
from bot.tables.models import TableEvent, TableView

from . import i18n
from .catalog import t
from .cycles import PngFile
from .hand_names import hand_name
from .mixed_text import mixed_line
from .text import (
    action_name,
    award_label,
    cmd,
    command,
    esc,
    game,
    pots_lines,
    returned_line,
    round_label,
    shown_hand,
)
from .tournaments import table_level_line

GREEN = discord.Colour.dark_green()


BOARD_FILE = "board.png"
HAND_FILE = "hand.png"


def _seat_line(view: TableView, index: int) -> str:
    seat = view.seats[index]
    key = str(seat.user_id)
    marks = []
    if view.button == seat.seat:
        marks.append("🔘")
    info = next((s for s in view.hand.seats if s.player == key), None) if view.hand else None
    if view.to_act_user == seat.user_id:
        marks.append("▶️")
    line = f"{' '.join(marks)} **{esc(seat.name)}**".strip()
    if info is None:
        status = t("seat.sitting_out") if seat.sitting_out else t("seat.waiting")
        return f"{line} — {status}"
    parts = [t("seat.stack", stack=info.stack), t("seat.in_pot", in_pot=info.in_pot)]
    if info.bet:
        parts.append(t("seat.bet", bet=info.bet))
    if info.drawn:
        parts.append(t("seat.drew", counts="/".join(str(n) for n in info.drawn)))
    if info.open_cards:
        parts.append(cards_text(info.open_cards))
    if info.folded:
        parts.append(t("seat.folded"))
    if info.all_in:
        parts.append(t("seat.all_in"))
    if seat.sitting_out:
        parts.append(t("seat.sitting_out_next"))
    if seat.leaving:
        parts.append(t("seat.leaving"))
    return f"{line} — " + " · ".join(parts)


def _turn_line(view: TableView, hand: PublicView) -> str:
    name = esc(view.name(hand.to_act or ""))
    if hand.phase in (Phase.DRAW, Phase.BUY):
        line = t(f"table.turn.{hand.phase}", name=name)
    elif hand.to_call:
        line = t("table.turn.call", name=name, to_call=hand.to_call, bet_size=hand.bet_size)
    else:
        line = t("table.turn.check", name=name, bet_size=hand.bet_size)
    if view.deadline:
        line += " · " + t("table.deadline", when=f"<t:{int(view.deadline)}:R>")
    return line


def market_line(hand: PublicView) -> str:
    slots = [
        t(
            "table.market.slot",
            source=t(f"source.{o.source}"),
            card=card_text(o.card),
            price=o.price,
        )
        for o in hand.market
        if o.card is not None
    ]
    return t("table.market", slots=" · ".join([*slots, t("table.market.blind")]))


def table_embed(view: TableView, log: list[str] | None = None) -> discord.Embed:
    variant = VARIANTS[view.variant]
    hand = view.hand
    name = game(variant.id)
    if hand:
        title = t("table.title.hand", game=name, hand_id=view.hand_id)
    else:
        title = t("table.title.idle", game=name)
    if view.closed:
        title = t("table.closed_title", game=name)
    embed = discord.Embed(title=title, colour=GREEN)
    if view.closed:
        embed.description = t("table.closed")
    elif hand and not hand.complete:
        status = t("table.status", round=round_label(hand), pot=hand.pot)
        embed.description = status + "\n" + _turn_line(view, hand)
        if hand.market:
            embed.description += "\n" + market_line(hand)
        for line in pots_lines(hand, view.name):  # a tournament hand's side pots
            embed.description += "\n" + line
    else:
        embed.description = t(
            "table.idle",
            count=len(view.seats),
            limit=view.settings.seat_limit,
            join=cmd(variant.id, "join"),
            deal=cmd(variant.id, "deal"),
        )
    if view.mixed is not None and not view.closed:  # a mixed table: its rotation's line
        embed.description = mixed_line(view.mixed) + "\n" + (embed.description or "")
    if view.level is not None and not view.closed:  # a Sit & Go: its level and the next
        embed.description = table_level_line(view.variant, view.level) + "\n" + embed.description
    if view.closing and embed.description:
        embed.description = t("table.closing") + "\n" + embed.description
    lines = [_seat_line(view, i) for i in range(len(view.seats))] or [t("table.nobody")]
    embed.add_field(name=t("table.seats"), value="\n".join(lines)[:1024], inline=False)
    if log:
        embed.add_field(name=t("table.recent"), value="\n".join(log[-6:])[:1024], inline=False)
    if hand and variant.split and not view.closed:
        embed.set_image(url=f"attachment://{BOARD_FILE}")
    embed.set_footer(
        text=t(
            "table.footer",
            minimum=table_minimum(view),
            timeout=int(view.settings.turn_timeout),
            command=command(variant.id, "hand"),
        )
    )
    return embed


def table_minimum(view: TableView) -> int:
    """Chips to be dealt in: a mixed table's is the largest of its games'."""
    games = view.mixed.games if view.mixed else (view.variant,)
    return max(VARIANTS[g].table_minimum for g in games)


Board = tuple[Any, ...]


def board_of(view: TableView) -> Board | None:
    """What Abyssinia's board image shows (None: no board): equal boards are equal images."""
    hand = view.hand
    if hand is None or not VARIANTS[view.variant].split:
        return None
    market = tuple(  # the slots' labels too, in the table's language
        (t(f"source.{o.source}"), o.card, o.price)
        for o in hand.market
        if o.source != BuySource.BLIND
    )
    players = tuple(
        (_board_name(view, s.player, s.all_in), tuple(s.open_cards), s.folded) for s in hand.seats
    )
    if hand.complete:  # shown between its last action and its settlement: no round is left
        title = t("table.title.hand", game=game(view.variant), hand_id=view.hand_id)
    else:
        title = t("board.title", game=game(view.variant), round=round_label(hand))
    labels = BoardLabels(
        title=title,
        pot=t("board.pot", pot="{pot}"),  # a template: the image fills it in
        blind=t("source.blind"),
        empty=t("board.empty"),
        costs=t("board.costs", price="{price}"),
        costs_unknown=t("board.costs_unknown"),
        folded=t("seat.folded"),
        locale=i18n.current(),  # numbers written the table's way
    )
    return market, players, hand.pot, labels


def _board_name(view: TableView, player: str, all_in: bool) -> str:
    """A player's name on the board, marked when all-in (a tournament hand, RULES.md §8)."""
    name = view.name(player)
    return t("board.all_in", name=name) if all_in else name


async def board_files(board: Board | None) -> list[discord.File]:
    """The board image to attach (drawn off the event loop, from cached tiles)."""
    if board is None:
        return []
    market, players, pot, labels = board
    png = await render_board_async(list(market), list(players), pot, labels.title, labels)
    return [PngFile(png, BOARD_FILE)]


async def table_files(view: TableView) -> list[discord.File]:
    """Abyssinia's board image: the market and everyone's bought (open) cards."""
    return await board_files(board_of(view))


async def hand_embed(
    seat: SeatView, note: str = "", where: str = ""
) -> tuple[discord.Embed, list[discord.File]]:
    """A player's private hand: only ever sent ephemerally or by DM (image drawn off the loop).

    ``where`` names the table and hand, for players at more than one table."""
    public = seat.public
    variant = VARIANTS[public.variant]
    embed = discord.Embed(
        title=t("hand.title", game=game(variant.id)), colour=discord.Colour.blurple()
    )
    text = cards_text(seat.cards)
    _, name = shown_hand(variant.id, seat.cards)
    if name:
        text += f"\n*{name}*"
    embed.description = (note + "\n\n" if note else "") + text
    if where:
        embed.set_footer(text=where)
    if seat.decision:
        d = seat.decision
        if d.phase == Phase.BET:
            costs = t("list.sep").join(
                t("action.cost", action=action_name(k), cost=v) if v else action_name(k)
                for k, v in d.costs.items()
            )
            value = t("hand.may", actions=costs)
        elif d.phase == Phase.DRAW:
            value = t("hand.may.draw", command=cmd(variant.id, "discard"))
        else:
            value = t("hand.may.buy")
        embed.add_field(name=t("hand.your_turn"), value=value)
    if not seat.cards:
        return embed, []
    embed.set_image(url=f"attachment://{HAND_FILE}")
    png = await render_hand_async(seat.cards)
    return embed, [PngFile(png, HAND_FILE)]


def _won_with(award: Award, player: str, result: PublicView) -> str:
    """The name of the winning hand under the ranking of the pot (or half) it won."""
    high = award.label == AwardLabel.HIGH
    ranking = Ranking.HIGH if high else VARIANTS[result.variant].ranking
    return hand_name(ranking, result.shown[player])


def result_embed(event: TableEvent) -> discord.Embed:
    """The public showdown: revealed hands (only at a showdown), winners, chips moved."""
    result = event.result
    assert result is not None
    view = event.view
    embed = discord.Embed(
        title=t("result.title", hand_id=event.hand_id), colour=discord.Colour.gold()
    )
    named = {p: shown_hand(view.variant, cards) for p, cards in result.shown.items()}
    if result.shown:
        shown = [
            t("result.shown", name=esc(view.name(p)), cards=cards_text(cards), hand=name)
            for p, (cards, name) in named.items()
        ]
        embed.add_field(name=t("result.showdown"), value="\n".join(shown)[:1024], inline=False)
    else:
        embed.description = t("result.uncontested")
    for award in result.awards:
        back = returned_line(award, result, view.name)
        winners = (
            [back]
            if back
            else [
                t(
                    "result.wins_with",
                    name=esc(view.name(p)),
                    chips=chips,
                    hand=_won_with(award, p, result),
                )
                if p in result.shown  # a showdown: name the winning hand
                else t("result.wins", name=esc(view.name(p)), chips=chips)
                for p, chips in award.shares.items()
            ]
        )
        label = award_label(award, result)
        embed.add_field(name=label, value="\n".join(winners), inline=False)
    moved = [t("result.net", name=esc(view.name(p)), net=n) for p, n in result.net.items()]
    embed.add_field(name=t("result.chips"), value=" · ".join(moved), inline=False)
    return embed
