"""The table message and the result post of a tournament hand (RULES.md §8): who is
all-in, each pot with its players, and each pot (and half) paid by name, in every language."""

from __future__ import annotations

import pytest

from bot.engine import VARIANTS
from bot.engine.record import parse_record
from bot.history.replay_steps import replay_steps
from bot.history.stored import StoredHand
from bot.tables.models import SeatState, TableEvent, TableSettings
from bot.tables.table import Table
from bot.ui import i18n
from bot.ui.render import board_of, result_embed, table_embed
from bot.ui.replay_message import step_line
from tests.support.engine_helpers import deck_for, record
from tests.support.tournament_hands import (
    ABY_ACTIONS,
    DRAW_10_20_40,
    SIDE_POT_ACTIONS,
    SIDE_POT_DECK,
    aby_record,
    hand_of,
    side_pot_record,
    tournament,
)

NAMES = {"ann": "Ann", "ben": "Ben", "cara": "Cara", "anna": "Anna", "dan": "Dan"}


def keyed(rec: dict) -> dict:
    """The record with its players keyed as a live table keys them: by user id as text."""
    ids = {seat["player"]: str(100 + i) for i, seat in enumerate(rec["seats"])}
    return {
        **rec,
        "seats": [{**seat, "player": ids[seat["player"]]} for seat in rec["seats"]],
        "actions": [{**a, "player": ids[a["player"]]} for a in rec["actions"]],
    }


def view_of(rec: dict):
    names = [seat["player"] for seat in rec["seats"]]
    hand = hand_of(keyed(rec))
    table = Table(
        channel_id=1,
        guild_id=2,
        variant=VARIANTS[hand.variant.id],
        settings=TableSettings(seat_limit=8, turn_timeout=60),
        seats=[SeatState(i, 100 + i, NAMES[p]) for i, p in enumerate(names)],
        hand=hand,
        hand_id=12,
        hand_users={str(100 + i): 100 + i for i in range(len(names))},
    )
    return table.view()


WORDS = {
    "en": ("all-in", "Main pot 75: Ann, Ben, Cara", "Side pot 1 40: Ben, Cara"),
    "pt-BR": ("all-in", "Pote principal 75: Ann, Ben, Cara", "Side pot 1 40: Ben, Cara"),
    "vi": ("all-in", "Pot chính 75: Ann, Ben, Cara", "Side pot 1 40: Ben, Cara"),
}


@pytest.mark.parametrize("locale", sorted(WORDS))
def test_table_message_marks_the_all_in_player_and_lists_each_pot(locale):
    view = view_of(side_pot_record(SIDE_POT_ACTIONS[:3]))
    all_in, main, side = WORDS[locale]
    with i18n.using(locale):
        embed = table_embed(view, [])
    seats = embed.fields[0].value.splitlines()
    assert seats[0].endswith(all_in) and not any(all_in in line for line in seats[1:])
    lines = embed.description.splitlines()
    assert lines[-2:] == [main, side]


def test_cash_hand_table_message_is_unchanged():
    rec = record("a5-draw", ["ann", "ben", "cara"], 2, deck_for([], ""), ["ann bet"])
    with i18n.using("en"):
        embed = table_embed(view_of(rec), [])
    assert "pot" not in embed.description.splitlines()[-1].lower()
    assert "all-in" not in embed.fields[0].value


RESULTS = {
    "en": ("Main pot (75)", "**Ann** wins 75 with", "Side pot 1 (120)", "**Cara** wins 120 with"),
    "pt-BR": ("Pote principal (75)", "**Ann** ganha 75 com", "Side pot 1 (120)", "**Cara**"),
    "vi": ("Pot chính (75)", "**Ann** ăn 75", "Side pot 1 (120)", "**Cara** ăn 120"),
}


@pytest.mark.parametrize("locale", sorted(RESULTS))
def test_result_post_pays_each_pot_by_name(locale):
    view = view_of(side_pot_record())
    event = TableEvent("finished", view, result=view.hand, hand_id=12)
    with i18n.using(locale):
        embed = result_embed(event)
    fields = {f.name: f.value for f in embed.fields}
    main, main_winner, side, side_winner = RESULTS[locale]
    assert fields[main].startswith(main_winner)
    assert fields[side].startswith(side_winner)


def test_result_post_pays_each_half_of_each_pot_in_abyssinia():
    view = view_of(aby_record())
    with i18n.using("en"):
        embed = result_embed(TableEvent("finished", view, result=view.hand, hand_id=12))
    fields = [(f.name, f.value) for f in embed.fields][1:-1]
    assert fields == [
        ("Main pot, high half (8)", "**Anna** wins 8 with three nines"),
        ("Main pot, low half (7)", "**Dan** wins 7 with K-4-3-2-A, king-four low"),
        ("Side pot 1, high half (6)", "**Anna** wins 6 with three nines"),
        ("Side pot 1, low half (5)", "**Ben** wins 5 with pair of fives"),
    ]


def test_result_post_gives_back_chips_nobody_else_could_win():
    stacks = {"ann": 5, "ben": 5, "cara": 200}
    actions = ["ann discard", "ben discard", "cara discard"]
    view = view_of(tournament("a5-draw", stacks, 2, SIDE_POT_DECK, actions, DRAW_10_20_40))
    with i18n.using("en"):
        embed = result_embed(TableEvent("finished", view, result=view.hand, hand_id=12))
    fields = {f.name: f.value for f in embed.fields}
    assert fields["Main pot (15)"].startswith("**Ann** wins 15 with")
    assert fields["Side pot 1 (5)"] == "**Cara** gets 5 back: nobody else could win it"


def test_replay_result_line_names_each_pot():

    record = parse_record(side_pot_record())
    stored = StoredHand(12, 2, 1, "a5-draw", 10.0, 20.0, record, NAMES)
    result = replay_steps(record, "ann")[-1]
    with i18n.using("en"):
        lines = step_line(stored, result).splitlines()
    assert lines[0].startswith("Main pot (75): **Ann** wins 75 with")
    assert lines[1].startswith("Side pot 1 (120): **Cara** wins 120 with")


def test_abyssinia_board_marks_the_all_in_player():
    view = view_of(aby_record(ABY_ACTIONS[:9]))  # Dan has just paid his last 2: all-in
    with i18n.using("en"):
        _, players, _, _ = board_of(view)
    assert [name for name, _, _ in players] == ["Anna", "Ben", "Dan (all-in)"]
