"""/stats as a Discord answer: the numbers in words, and the net-chips chart.

A player's own statistics show everything kept; another player's show only results and
showdowns (``Totals.public``), never the counts of their own choices.
"""

from __future__ import annotations

import discord

from bot.engine import VARIANTS
from bot.history.hand_stats import per_100, rate
from bot.render.replay_images import ChartLabels, render_chart_async
from bot.storage.totals import StatsKind, Totals

from . import i18n
from .catalog import t
from .cycles import PngFile
from .text import esc, game

CHART_FILE = "chart.png"
TITLES = {
    StatsKind.CASH: "stats.title",
    StatsKind.PRACTICE: "stats.title.practice",
    StatsKind.TOURNAMENT: "stats.title.tournament",
}


def _pct(part: int, whole: int) -> str:
    value = rate(part, whole)
    return "—" if value is None else t("stats.percent", value=i18n.number(round(value * 100)))


def _avg(total: int, times: int) -> str:
    return "—" if not times else i18n.number(round(total / times, 2))


def stats_embed(
    name: str, variant: str | None, totals: Totals, own: bool, kind: StatsKind
) -> discord.Embed:
    where = game(variant) if variant else t("stats.all_games")
    title = t(TITLES[kind], name=esc(name), game=where)
    embed = discord.Embed(title=title, colour=discord.Colour.gold())
    if not totals.hands:
        embed.description = t("stats.none")
        return embed
    hundred = per_100(totals.net, totals.hands) or 0.0
    lines = [
        t("stats.hands", count=totals.hands),
        t("stats.net", net=totals.net, per_100=i18n.number(round(hundred, 1))),
        t(
            "stats.showdown",
            reached=_pct(totals.showdowns, totals.hands),
            won=_pct(totals.showdowns_won, totals.showdowns),
        ),
    ]
    if own:
        lines.insert(2, t("stats.vpip", rate=_pct(totals.vpip, totals.hands)))
    embed.description = "\n".join(lines)
    draws = VARIANTS[variant].draws if variant else max(v.draws for v in VARIANTS.values())
    if own and draws and any(totals.draw_times):
        rows = [
            t(
                "stats.draw",
                draw=i + 1,
                pat=_pct(totals.draw_pats[i], totals.draw_times[i]),
                cards=_avg(totals.draw_cards[i], totals.draw_times[i]),
            )
            for i in range(draws)
            if totals.draw_times[i]
        ]
        embed.add_field(name=t("stats.draws"), value="\n".join(rows), inline=False)
    abyssinia = variant in (None, "abyssinia")
    if own and abyssinia and (totals.buys_left or totals.buys_right or totals.buys_blind):
        value = t(
            "stats.buys", left=totals.buys_left, right=totals.buys_right, blind=totals.buys_blind
        )
        embed.add_field(name=t("stats.buys.title"), value=value, inline=False)
    if abyssinia and (totals.won_high or totals.won_low or totals.won_both):
        value = t("stats.halves", high=totals.won_high, low=totals.won_low, both=totals.won_both)
        embed.add_field(name=t("stats.halves.title"), value=value, inline=False)
    if not own:
        embed.set_footer(text=t("stats.public_only"))
    embed.set_image(url=f"attachment://{CHART_FILE}")
    return embed


async def stats_chart(name: str, totals: Totals) -> PngFile:
    labels = ChartLabels(
        title=t("stats.chart.title", name=name),
        x_axis=t("stats.chart.hands"),
        empty=t("stats.none"),
        locale=i18n.current(),
    )
    return PngFile(await render_chart_async(totals.chart_points(), labels), CHART_FILE)
