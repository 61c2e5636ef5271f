"""Fuzz the manager's inputs (issue 7 item 9): thousands of malformed act() calls, each
refused with Refused (never another exception), each leaving the table exactly as it
was: the view, every player's own view, the rng's state, and the stored rows."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine.cards import FULL_DECK, CardError, format_card, parse_card
from bot.tables.manager import TableManager
from bot.tables.models import Refused
from tests.support.manager_helpers import (
    close_manager,
    ledger_snapshot,
    open_manager,
    seat_players,
    step,
)

USERS = (11, 12, 13)
STRANGER = 99
# bet, draw and buy phases: a5-triple stopped before and in its first draw, abyssinia buying
TABLES = {700: ("a5-triple", 0), 701: ("a5-triple", "draw"), 702: ("abyssinia", 0)}
NAMES = ("check", "bet", "call", "raise", "fold", "discard", "buy")
CARDS = tuple(format_card(c) for c in FULL_DECK)


class World:
    def __init__(self, path: Path) -> None:
        self.loop = asyncio.new_event_loop()
        self.path = path
        self.store, self.m = self.run(open_manager(path, seed=1))
        for channel, (variant, until) in TABLES.items():
            self.run(seat_players(self.m, channel, variant, list(USERS)))
            self.run(self.m.deal(channel))
            while until == "draw" and self.decision(channel).phase != "draw":
                self.run(step(self.m, channel, "fuzz"))

    def run(self, coro: Any) -> Any:
        return self.loop.run_until_complete(coro)

    def decision(self, channel: int) -> Any:
        view = self.m.view(channel)
        mine = self.m.my_hand(channel, view.to_act_user or 0)
        assert mine is not None and mine.decision is not None
        return mine.decision

    def state(self, channel: int) -> Any:
        m: TableManager = self.m
        mine = tuple(m.my_hand(channel, u) for u in USERS)
        return m.view(channel), mine, m.rng.getstate()

    def close(self) -> None:
        self.run(close_manager(self.store, self.m))
        self.loop.close()


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    w = World(tmp_path_factory.mktemp("fuzz") / "t.db")
    before = ledger_snapshot(w.path)
    records = {ch: w.run(w.store.history.hand_record(w.m.view(ch).hand_id)) for ch in TABLES}
    yield w
    # nothing a refusal did reached the database
    assert ledger_snapshot(w.path) == before
    assert {
        ch: w.run(w.store.history.hand_record(w.m.view(ch).hand_id)) for ch in TABLES
    } == records
    w.close()


junk = st.text(max_size=12)
cards_list = st.lists(st.one_of(junk, st.sampled_from(CARDS)), max_size=7)


def not_held(token: str, held: set[str]) -> bool:
    """A token that is not one card the player holds, alone or split (so the discard
    naming it is refused)."""
    if not token.strip() or any(sep in token for sep in " ,\t\n\r\x0b\x0c"):
        return False
    try:
        return format_card(parse_card(token)) not in held
    except CardError:
        return True


@st.composite
def malformed(draw: st.DrawFn, world: World) -> tuple[int, dict[str, Any]]:
    """An act() call with at least one thing wrong about it (chosen by ``flaw``)."""
    channel = draw(st.sampled_from(sorted(TABLES)))
    view = world.m.view(channel)
    actor = view.to_act_user
    assert actor is not None and view.hand_id is not None
    d = world.decision(channel)
    held = {format_card(c) for c in d.discardable}
    call: dict[str, Any] = {
        "user_id": actor,
        "action": draw(st.one_of(st.sampled_from(NAMES), junk)),
        "cards": draw(st.one_of(st.none(), junk, cards_list)),
        "source": draw(st.one_of(st.none(), junk, st.sampled_from(("left", "right", "blind")))),
        "turn": draw(st.one_of(st.none(), st.just(view.turn))),
        "hand_id": draw(st.one_of(st.none(), st.just(view.hand_id))),
    }
    flaw = draw(st.sampled_from(("user", "turn", "hand", "action", "cards", "source")))
    if flaw == "user":
        call["user_id"] = draw(
            st.one_of(
                st.sampled_from([u for u in (*USERS, STRANGER) if u != actor]),
                st.integers().filter(lambda u: u != actor),
            )
        )
    elif flaw == "turn":
        call["turn"] = draw(st.integers().filter(lambda t: t != view.turn))
    elif flaw == "hand":
        call["hand_id"] = draw(st.integers().filter(lambda h: h != view.hand_id))
    elif flaw == "action":
        call["action"] = draw(
            st.one_of(st.sampled_from(NAMES), junk).filter(lambda a: a not in d.legal)
        )
    elif flaw == "cards" or (flaw == "source" and d.phase != "buy"):
        call["action"] = "discard"  # in a betting or buying round: the wrong phase already
        bad = draw(
            st.one_of(
                junk.filter(lambda t: not_held(t, held)), st.sampled_from(sorted(set(CARDS) - held))
            )
        )
        cards = [*draw(cards_list), bad]
        call["cards"] = cards if draw(st.booleans()) else " ".join(cards)
    else:  # a buy from nowhere
        call["action"] = "buy"
        call["source"] = draw(
            st.one_of(st.none(), junk).filter(lambda s: s not in ("left", "right", "blind"))
        )
    return channel, call


@settings(
    max_examples=1200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_malformed_actions_are_refused_and_change_nothing(
    world: World, data: st.DataObject
) -> None:
    channel, call = data.draw(malformed(world))
    before = world.state(channel)
    user = call.pop("user_id")
    action = call.pop("action")
    with pytest.raises(Refused):
        world.run(world.m.act(channel, user, action, **call))
    assert world.state(channel) == before
