"""A Sit & Go's hand marked with its tournament and level (issue 36 item 5) on every
step of its replay, in every language; a practice table's hand stays marked practice."""

from __future__ import annotations

import dataclasses

import pytest

from bot.engine.record import parse_record
from bot.history.replay_steps import replay_steps
from bot.history.stored import StoredHand
from bot.tournaments import structures
from bot.ui import i18n
from bot.ui.catalog import t
from bot.ui.history_lines import with_level
from bot.ui.replay_message import step_embed
from tests.support.tournament_hands import SIDE_POT_ACTIONS, SIDE_POT_DECK, tournament

LEVEL_ONE = structures.level_at("a5-draw", 1).stakes_json()  # ante 5, bets 20/40


def sng_hand(stakes: dict, tournament_id: int | None = 3, practice: bool = True) -> StoredHand:
    stacks = {"ann": 20, "ben": 400, "cara": 400}
    rec = parse_record(tournament("a5-draw", stacks, 2, SIDE_POT_DECK, SIDE_POT_ACTIONS, stakes))
    names = {"ann": "Ann", "ben": "Ben", "cara": "Cara"}
    return StoredHand(
        9, 1, 2, "a5-draw", 10.0, 20.0, rec, names, practice=practice, tournament_id=tournament_id
    )


@pytest.mark.parametrize("locale", ["en-US", "pt-BR", "vi"])
def test_every_replay_step_of_a_sit_and_go_hand_names_its_tournament_and_level(locale):
    stored = with_level(sng_hand(LEVEL_ONE))
    assert stored.level == 1
    steps = replay_steps(stored.record, "ann")
    lang = i18n.resolve(locale)
    mark = t("history.sng", lang, id=3, level=1)
    with i18n.using(locale):
        footers = [step_embed(stored, steps, i, "ann").footer.text or "" for i in range(len(steps))]
    assert len(footers) == len(steps) > 3
    assert all(mark in footer for footer in footers), footers
    assert all(t("history.practice", lang) not in footer for footer in footers)


def test_a_practice_hand_is_marked_practice_and_a_cash_hand_not_at_all():
    practice = with_level(sng_hand(LEVEL_ONE, tournament_id=None))
    cash = dataclasses.replace(practice, practice=False)
    steps = replay_steps(practice.record, None)
    with i18n.using("en-US"):
        marked = step_embed(practice, steps, 0, None).footer.text
        plain = step_embed(cash, steps, 0, None).footer.text
    assert marked == "Step 1 of 12 · practice"
    assert plain == "Step 1 of 12"


def test_stakes_of_no_level_are_marked_with_an_unknown_level():
    odd = {"ante": 5, "small_bet": 20, "big_bet": 50}
    stored = with_level(sng_hand(odd))
    assert stored.level is None
    with i18n.using("en-US"):
        footer = step_embed(stored, replay_steps(stored.record, None), 0, None).footer.text
    assert footer == "Step 1 of 12 · Sit & Go #3, level ?"
