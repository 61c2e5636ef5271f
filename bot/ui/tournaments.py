"""Sit & Go texts: refusals and the table message's level line, through the catalog."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.storage.tournaments import EntryRow, TournamentRow
from bot.tables.tournament_mode import LevelView
from bot.tournaments import structures
from bot.tournaments.mixing import Mix, MixKind
from bot.tournaments.service import SngCode, SngRefused
from bot.tournaments.structures import Level

from .catalog import t
from .text import game, join_list, rotation_text


def sng_refusal(exc: SngRefused) -> str:
    """The private answer to a refused Sit & Go request."""
    params = dict(exc.params)
    if exc.code is SngCode.UNKNOWN_GAME:
        params["games"] = ", ".join(params["games"])
    if exc.code is SngCode.UNKNOWN_LEVEL:
        params["levels"] = ", ".join(params["levels"])
    if exc.code is SngCode.BAD_ROTATION:
        params["kinds"] = ", ".join(params["kinds"])
    if exc.code is SngCode.MIX_SEATS:
        params["games"] = games_text(params["games"])
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
    """The level line of a tournament table's message (``TableView.level``); a mixed
    tournament's names the game of the stakes and the next level's (``variant_id``:
    the table's next game, unless the level decides it)."""
    whole = max(0, int(view.seconds_left))
    time = t("sng.time", minutes=whole // 60, seconds=f"{whole % 60:02d}")
    if view.mixed:
        now = view.game or variant_id
        following = view.next_game or now
        return t(
            "sng.level.mixed",
            level=view.number,
            game=game(now),
            stakes=stakes_words(now, view.mixed[now][0]),
            next_game=game(following),
            next=stakes_words(following, view.mixed[following][1]),
            time=time,
        )
    return t(
        "sng.level",
        level=view.number,
        stakes=stakes_words(variant_id, view.stakes),
        next=stakes_words(variant_id, view.following),
        time=time,
    )


def games_text(games: Sequence[str]) -> str:
    """The games of a tournament, by name."""
    return join_list(game(g) for g in games)


def tournament_games(row: TournamentRow) -> str:
    """What a tournament plays: its game, or a mixed one's games."""
    mix = Mix.loads(row.mix)
    return games_text(mix.games) if mix else game(row.variant)


def mix_lines(row: TournamentRow) -> list[str]:
    """A mixed tournament's games and rotation, and each game's level 1 (none: one game)."""
    mix = Mix.loads(row.mix)
    if mix is None:
        return []
    if mix.kind is MixKind.HANDS:
        rotation = rotation_text(mix.kind.value, mix.every)
    else:
        rotation = t("sng.rotation.level")
    lines = [t("sng.reg.mixed", games=games_text(mix.games), rotation=rotation)]
    for g in mix.games:
        stakes = stakes_text(g, structures.level_at(g, 1))
        lines.append(t("sng.reg.first_level.game", game=game(g), stakes=stakes))
    return lines


def summary_text(row: TournamentRow, entries: list[EntryRow]) -> str:
    """The public summary of a finished Sit & Go: places, prizes, hands, the longest hand."""
    title = "sng.practice.summary_title" if row.practice else "sng.summary.title"
    lines = [t(title, id=row.tournament_id, game=tournament_games(row))]
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
