"""Names and titles on the Abyssinia board in every language: a computer player's robot
is drawn, a long name wraps instead of losing its end, and a long title keeps its round."""

from __future__ import annotations

import io

import pytest
from PIL import Image, ImageChops

from bot.engine.cards import parse_card, parse_cards
from bot.render import render_board
from bot.render.images import BoardLabels
from bot.ui import i18n
from bot.ui.catalog import t

MARKET = [("left", parse_card("2c"), 2), ("right", parse_card("Kd"), 1)]


def _board(names: list[str], title: str = "Abyssinia · buy 1 of 5", pot: int = 32) -> bytes:
    players = [(name, parse_cards("2h 3c"), i == 1) for i, name in enumerate(names)]
    return render_board(MARKET, players, pot, title)


def _diff(a: bytes, b: bytes) -> tuple[int, int, int, int] | None:
    return ImageChops.difference(
        Image.open(io.BytesIO(a)).convert("RGB"), Image.open(io.BytesIO(b)).convert("RGB")
    ).getbbox()


def test_the_robot_of_a_computer_player_is_drawn_not_a_question_mark() -> None:
    robot = _board(["🤖 Lucky Deuce (easy)", "🤖 Mr. Wheel (hard)"])
    question = _board(["? Lucky Deuce (easy)", "? Mr. Wheel (hard)"])
    plain = _board(["Lucky Deuce (easy)", "Mr. Wheel (hard)"])
    assert _diff(robot, question) is not None
    assert _diff(robot, plain) is not None  # drawn, not dropped


@pytest.mark.parametrize("locale", i18n.LOCALES)
def test_every_computer_players_name_and_level_are_drawn_whole(locale) -> None:
    """Each nick's last word and its level reach the image: two names that differ only
    there draw differently (a name cut at "Anh Họ…" would not)."""
    with i18n.using(locale):
        levels = [t(f"level.{lv}") for lv in ("easy", "normal", "hard")]
        for n in range(7):
            nick = t(f"bot.nick.{n}")
            names = [t("bot.name", nick=nick, level=lv) for lv in levels]
            boards = [_board(["Anna", "Ben", name]) for name in names]
            assert _diff(boards[0], boards[1]) and _diff(boards[1], boards[2]), (locale, nick)
            other = t("bot.name", nick=nick + "x", level=levels[1])
            assert _diff(_board(["Anna", "Ben", other]), boards[1]), (locale, nick)


@pytest.mark.parametrize("locale", i18n.LOCALES)
def test_a_long_title_keeps_its_round_number(locale) -> None:
    with i18n.using(locale):
        labels = BoardLabels(pot=t("board.pot", pot="{pot}"), locale=locale)
        titles = [
            t(
                "board.title",
                game=t("game.abyssinia"),
                round=t("table.round.bet", round=r, rounds=5),
            )
            for r in (3, 4)
        ]
    players = [("Anna", parse_cards("2h"), False)]
    for pot in (23, 12_345):
        a, b = (render_board(MARKET, players, pot, title, labels) for title in titles)
        assert _diff(a, b) is not None, (locale, pot, titles)
    # even the longest title at the narrowest room: the round is never what gets cut
    long = "Abyssinia · rodada de apostas 3 de 5"
    a = render_board(MARKET, players, 12_345, long)
    b = render_board(MARKET, players, 12_345, long.replace("3 de 5", "4 de 5"))
    assert _diff(a, b) is not None
