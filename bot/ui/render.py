"""Turning table views into Discord embeds and files.

Only ``TableView`` (public) and ``SeatView`` (one player's own) come in here,
so a public message can hold nothing but public information.
"""

from __future__ import annotations

import io

import discord

from bot.engine import VARIANTS, PublicView, SeatView
from bot.render import render_board, render_hand
from bot.render.text import cards_text, market_text
from bot.tables.models import TableEvent, TableView

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
    line = f"{' '.join(marks)} **{seat.name}**".strip()
    if info is None:
        status = "sitting out" if seat.sitting_out else "waiting"
        return f"{line} — {status}"
    parts = [f"stack {info.stack}", f"in pot {info.in_pot}"]
    if info.bet:
        parts.append(f"bet {info.bet}")
    if info.drawn:
        parts.append("drew " + "/".join(str(n) for n in info.drawn))
    if info.open_cards:
        parts.append(cards_text(info.open_cards))
    if info.folded:
        parts.append("folded")
    if seat.sitting_out:
        parts.append("sitting out next hand")
    if seat.leaving:
        parts.append("leaving")
    return f"{line} — " + " · ".join(parts)


def _turn_line(view: TableView, hand: PublicView) -> str:
    who = view.name(hand.to_act or "")
    if hand.phase == "draw":
        what = "to draw"
    elif hand.phase == "buy":
        what = "to buy"
    elif hand.to_call:
        what = f"to call {hand.to_call} (bet size {hand.bet_size})"
    else:
        what = f"to check or bet {hand.bet_size}"
    deadline = f" · time runs out <t:{int(view.deadline)}:R>" if view.deadline else ""
    return f"▶️ **{who}** {what}{deadline}"


def table_embed(view: TableView, log: list[str] | None = None) -> discord.Embed:
    variant = VARIANTS[view.variant]
    hand = view.hand
    title = f"{variant.name} — hand #{view.hand_id}" if hand else f"{variant.name} — between hands"
    embed = discord.Embed(title=title, colour=GREEN)
    if hand and not hand.complete:
        embed.description = f"**{hand.street}** · pot **{hand.pot}**\n" + _turn_line(view, hand)
        if hand.market:
            embed.description += "\n" + market_text(
                [(o.source, o.card, o.price) for o in hand.market if o.card]
            )
    else:
        seated = len(view.seats)
        embed.description = (
            f"{seated} seated (of {view.settings.seat_limit}). "
            f"Join with `/{variant.id} join`, then `/{variant.id} deal`."
        )
    lines = [_seat_line(view, i) for i in range(len(view.seats))] or ["nobody yet"]
    embed.add_field(name="Seats", value="\n".join(lines)[:1024], inline=False)
    if log:
        embed.add_field(name="Recent", value="\n".join(log[-6:])[:1024], inline=False)
    if hand and variant.split:
        embed.set_image(url=f"attachment://{BOARD_FILE}")
    embed.set_footer(
        text=f"Table minimum {variant.table_minimum} · turn timer "
        f"{int(view.settings.turn_timeout)} s · /{variant.id} hand shows your cards"
    )
    return embed


def table_files(view: TableView) -> list[discord.File]:
    """Abyssinia's board image: the market and everyone's bought (open) cards."""
    hand = view.hand
    if hand is None or not VARIANTS[view.variant].split:
        return []
    market = [(o.source, o.card, o.price) for o in hand.market if o.source != "blind"]
    players = [(view.name(s.player), s.open_cards, s.folded) for s in hand.seats]
    png = render_board(market, players, hand.pot, title=f"Abyssinia · {hand.street}")
    return [discord.File(io.BytesIO(png), filename=BOARD_FILE)]


def hand_embed(seat: SeatView, note: str = "") -> tuple[discord.Embed, list[discord.File]]:
    """A player's private hand: only ever sent ephemerally or by DM."""
    public = seat.public
    variant = VARIANTS[public.variant]
    embed = discord.Embed(title=f"Your hand — {variant.name}", colour=discord.Colour.blurple())
    text = cards_text(seat.cards)
    if seat.hand_name:
        text += f"\n*{seat.hand_name}*"
    embed.description = (note + "\n\n" if note else "") + text
    if seat.decision:
        d = seat.decision
        if d.phase == "bet":
            costs = ", ".join(f"{k} ({v})" if v else k for k, v in d.costs.items())
            embed.add_field(name="Your turn", value=f"You may: {costs}")
        elif d.phase == "draw":
            embed.add_field(
                name="Your turn", value="Discard 0–5 cards (`/… discard`), or stand pat."
            )
        else:
            embed.add_field(name="Your turn", value="Buy left, right or blind.")
    if not seat.cards:
        return embed, []
    embed.set_image(url=f"attachment://{HAND_FILE}")
    return embed, [discord.File(io.BytesIO(render_hand(seat.cards)), filename=HAND_FILE)]


def result_embed(event: TableEvent) -> discord.Embed:
    """The public showdown: revealed hands (only at a showdown), winners, chips moved."""
    result = event.result
    assert result is not None
    view = event.view
    embed = discord.Embed(title=f"Hand #{event.hand_id} — result", colour=discord.Colour.gold())
    if result.shown:
        shown = [f"**{view.name(p)}**: {cards_text(c)}" for p, c in result.shown.items()]
        embed.add_field(name="Showdown", value="\n".join(shown)[:1024], inline=False)
    else:
        embed.description = "Everyone else folded: no cards are shown."
    for award in result.awards:
        label = {"pot": "Pot", "high": "High half", "low": "Low half"}[award.label]
        winners = [
            f"**{view.name(p)}** wins {chips}"
            + (f" with {award.hand_names[p]}" if p in award.hand_names else "")
            for p, chips in award.shares.items()
        ]
        embed.add_field(name=f"{label} ({award.amount})", value="\n".join(winners), inline=False)
    moved = [f"{view.name(p)} {n:+d}" for p, n in result.net.items()]
    embed.add_field(name="Chips", value=" · ".join(moved), inline=False)
    return embed
