"""Sit & Go words in every language: each refusal code and the table's level line."""

from __future__ import annotations

import pytest

from bot.tournaments import structures
from bot.tournaments.service import SngCode, SngRefused
from bot.ui import i18n
from bot.ui.text import game
from bot.ui.tournaments import level_line, sng_refusal

PARAMS = {
    SngCode.UNKNOWN_GAME: {"game": "holdem", "games": ("a5-draw", "a6-draw")},
    SngCode.BAD_SEATS: {"min": 2, "max": 5, "given": 9},
    SngCode.BAD_STACK: {"min": 2000, "max": 1000000, "given": 5},
    SngCode.BAD_FEE: {"max": 1000000, "given": -1},
    SngCode.TOO_MANY: {"most": 5},
    SngCode.FULL: {"seats": 6},
    SngCode.SHORT: {"available": 10, "fee": 30},
    SngCode.ELSEWHERE: {"tournament_id": 4},
    SngCode.TOO_FEW: {"count": 1},
    # practice Sit & Gos
    SngCode.BAD_BOTS: {"min": 1, "max": 4, "given": 5},
    SngCode.BOTS_FEE: {"given": 25},
    SngCode.UNKNOWN_LEVEL: {"level": "godlike", "levels": ("easy", "normal", "hard")},
    SngCode.MIX_GAMES: {"min": 2, "max": 4, "given": 1},
    SngCode.BAD_ROTATION: {"given": "orbit", "kinds": ("hands", "level")},
    SngCode.BAD_EVERY: {"min": 1, "max": 50, "given": 51},
    SngCode.MIX_SEATS: {"games": ("a5-draw", "abyssinia"), "min": 2, "max": 5, "given": 6},
}


@pytest.mark.parametrize("locale", ["en-US", "pt-BR", "vi"])
@pytest.mark.parametrize("code", list(SngCode))
def test_every_refusal_is_said_in_every_language(locale: str, code: SngCode) -> None:
    with i18n.using(locale):
        text = sng_refusal(SngRefused(code, **PARAMS.get(code, {})))
    assert text and "{" not in text and "sng" not in text
    for value in PARAMS.get(code, {}).values():
        if isinstance(value, int):  # a count, a limit, or the refused number itself
            assert i18n.number(value, i18n.resolve(locale)) in text or str(value) in text
        elif code is SngCode.MIX_SEATS:  # a mix's games, by name
            with i18n.using(locale):
                assert all(game(g) in text for g in value), (value, text)
        else:  # a game's name, or every name of a list, as given
            names = value if isinstance(value, tuple) else (value,)
            assert all(str(name) in text for name in names), (value, text)


def test_level_line_english() -> None:
    with i18n.using("en-US"):
        line = level_line(
            "a5-triple",
            structures.level_at("a5-triple", 2),
            structures.level_at("a5-triple", 3),
            125.4,
        )
        aby = level_line(
            "abyssinia", structures.level_at("abyssinia", 1), structures.level_at("abyssinia", 2), 5
        )
    assert line == ("Level 2: blinds 15/30, bets 30/60. Next: blinds 20/40, bets 40/80 in 2:05.")
    assert aby == (
        "Level 1: ante 5, bet 10, cards 20/10/40. Next: ante 5, bet 15, cards 30/15/60 in 0:05."
    )


@pytest.mark.parametrize("locale", ["pt-BR", "vi"])
def test_level_line_translated(locale: str) -> None:
    with i18n.using(locale):
        line = level_line(
            "a6-draw", structures.level_at("a6-draw", 1), structures.level_at("a6-draw", 2), 60
        )
    assert "ante 5" in line and "1:00" in line and "Level" not in line
