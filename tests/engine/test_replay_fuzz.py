"""Fuzzing ``python -m bot.engine replay`` and the card parser: any input, no traceback.

The replay CLI's contract (RULES.md §7): whatever the bytes, it prints one JSON state object
in UTF-8 and exits 0 (a record that replays cleanly) or 1 (``error`` names the first bad
action, or ``"index": null`` for a bad header or unreadable input). Thousands of generated
inputs go through the real ``main()`` in-process; a handful of the nastiest also go through
a real ``python -m bot.engine`` child process.
"""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import VARIANTS, CardError, parse_card, parse_cards
from bot.engine.__main__ import main
from bot.engine.cards import FULL_DECK, SUIT_SYMBOLS, format_card
from bot.engine.simulate import new_random_hand, random_action
from tests.support.engine_helpers import RULES_EXAMPLE

STATE_KEYS = {"complete", "pot", "to_act", "legal", "payouts", "net", "hands", "error"}
FUZZ = settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Any code point, lone surrogates included (hypothesis leaves them out by default).
ANY_CHAR = st.characters(codec=None, categories=None, exclude_categories=())
ANY_TEXT = st.text(ANY_CHAR, max_size=12)
# Strings the engine gives meaning to, so mutations reach the rules and not only the parser.
MEANINGFUL = st.sampled_from(
    [
        *VARIANTS,
        *(format_card(c) for c in FULL_DECK[::5]),
        "p0", "p1", "p2", "lena", "mike",
        "check", "bet", "call", "raise", "fold", "discard", "buy",
        "left", "right", "blind", "player", "action", "cards", "from", "variant", "seats",
        "dealer", "deck", "reshuffles", "actions", "stack", "\ud800", "\udcff", "10h", "",
    ]
)  # fmt: skip
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 60),
    st.integers(),
    st.sampled_from([2**63, -(2**63) - 1, 10**300]),
    st.floats(allow_nan=True, allow_infinity=True),
    MEANINGFUL,
    ANY_TEXT,
)
JSON_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(st.one_of(MEANINGFUL, ANY_TEXT), inner, max_size=5),
    ),
    max_leaves=20,
)


def run_main(data: bytes, args: list[str] | None = None) -> tuple[int, dict[str, Any]]:
    """The real CLI entry point on ``data`` as standard input; check the output contract."""
    out = io.BytesIO()
    code = main(args or ["replay", "-"], stdin=io.BytesIO(data), stdout=out)
    return code, check_output(code, out.getvalue())


def check_output(code: int, raw: bytes) -> dict[str, Any]:
    text = raw.decode("utf-8")  # strict: the output is always valid UTF-8
    assert text.endswith("\n") and text.count("\n") == 1, "one line of JSON"
    state = json.loads(text)
    assert isinstance(state, dict) and set(state) == STATE_KEYS
    assert json.dumps(state).encode("utf-8")  # no lone surrogate survives into the output
    error = state["error"]
    assert code == (1 if error else 0)
    if error:
        assert set(error) == {"index", "message"} and isinstance(error["message"], str)
        assert error["index"] is None or isinstance(error["index"], int)
    return state


def played_record(variant: str, seats: int, seed: int, steps: int) -> dict[str, Any]:
    """A real record: up to ``steps`` random legal actions of a fresh hand."""
    rng = random.Random(seed)
    hand = new_random_hand(variant, seats, rng)
    for _ in range(steps):
        if hand.complete:
            break
        hand.apply(random_action(hand, rng))
    return hand.record().to_json()


GAMES = st.sampled_from(sorted(VARIANTS)).flatmap(
    lambda v: st.tuples(
        st.just(v),
        st.integers(VARIANTS[v].min_seats, VARIANTS[v].max_seats),
        st.integers(0, 2**32),
        st.integers(0, 80),
    )
)


@st.composite
def mutated_records(draw: st.DrawFn) -> tuple[dict[str, Any], bool]:
    """A played record with a few random replacements, deletions or insertions anywhere."""
    record = played_record(*draw(GAMES))
    mutations = draw(st.integers(0, 4))
    for _ in range(mutations):
        # Walk down to a random container, then change one of its slots.
        node: Any = record
        while True:
            children = list(node.values()) if isinstance(node, dict) else node
            containers = [c for c in children if isinstance(c, dict | list) and c]
            if not containers or draw(st.booleans()):
                break
            node = draw(st.sampled_from(containers))
        kind = draw(st.sampled_from(["replace", "delete", "insert"]))
        if isinstance(node, dict):
            key = draw(st.sampled_from(sorted(node)) if node and kind != "insert" else MEANINGFUL)
            if kind == "delete":
                node.pop(key, None)
            else:
                node[key] = draw(JSON_VALUES)
        elif kind == "insert" or not node:
            node.insert(draw(st.integers(0, len(node))), draw(JSON_VALUES))
        elif kind == "delete":
            del node[draw(st.integers(0, len(node) - 1))]
        else:
            node[draw(st.integers(0, len(node) - 1))] = draw(JSON_VALUES)
    return record, mutations == 0


@FUZZ
@given(mutated_records())
def test_mutated_records_give_a_state_or_an_indexed_error(case):
    record, untouched = case
    code, state = run_main(json.dumps(record).encode("utf-8", "surrogatepass"))
    error = state["error"]
    if error is None:
        assert code == 0
    else:
        assert not untouched, f"a played record must replay cleanly: {error}"
        assert error["index"] is None or 0 <= error["index"] < len(record["actions"])


@FUZZ
@given(JSON_VALUES)
def test_any_json_value_is_a_state_or_an_error(value):
    data = json.dumps(value).encode("utf-8", "surrogatepass")
    code, state = run_main(data)
    assert code == 1 and state["error"]["index"] is None  # never a whole record


@FUZZ
@given(st.binary(max_size=200))
def test_any_bytes_are_a_state_or_the_header_error(data):
    code, state = run_main(data)
    assert code == 1 and state["error"]["index"] is None


@FUZZ
@given(st.data())
def test_bytes_spliced_into_a_record_never_break_the_output(data):
    text = json.dumps(played_record(*data.draw(GAMES))).encode()
    at = data.draw(st.integers(0, len(text)))
    noise = data.draw(st.binary(min_size=1, max_size=6))
    code, state = run_main(text[:at] + noise + text[at:])
    try:
        (text[:at] + noise + text[at:]).decode("utf-8")
    except UnicodeDecodeError:
        assert code == 1 and state["error"]["index"] is None
        assert "not UTF-8" in state["error"]["message"]


NESTERS = {"[": "]", '{"a":': "}", '{"variant":': "}", '{"seats": [': "]}"}


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 50_000), st.sampled_from(sorted(NESTERS)))
def test_any_nesting_depth_is_the_header_error(depth, opener):
    closer = NESTERS[opener]
    code, state = run_main((opener * depth + "0" + closer * depth).encode())
    assert code == 1 and state["error"]["index"] is None


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("variant", ["a6-draw"]),
        ("variant", {"a6-draw": 1}),
        ("variant", "\ud800"),
        ("seats", [{"player": "\ud800", "stack": 40}, {"player": "mike", "stack": 40}]),
        ("deck", ["\udcff", *RULES_EXAMPLE["deck"][1:]]),
        ("actions", [{"player": "lena", "action": "discard", "cards": ["\ud800"]}]),
    ],
)
def test_issue_7_examples_are_the_header_error_in_process(field, value):
    code, state = run_main(json.dumps(dict(RULES_EXAMPLE, **{field: value})).encode())
    assert code == 1 and state["error"]["index"] is None


def _child(data: bytes, *args: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "bot.engine", "replay", *(args or ("-",))],
        input=data,
        capture_output=True,
        timeout=60,
        env={**os.environ, **(env or {})},
    )
    assert proc.stderr == b"", proc.stderr.decode("utf-8", "replace")
    return check_output(proc.returncode, proc.stdout)


NASTY = {
    "variant is a list": json.dumps(dict(RULES_EXAMPLE, variant=["a5-draw"])).encode(),
    "variant is an object": json.dumps(dict(RULES_EXAMPLE, variant={"x": []})).encode(),
    "nested 2,000 deep": b"[" * 2000 + b"]" * 2000,
    "nested 100,000 deep": b'{"a":' * 100_000 + b"1" + b"}" * 100_000,
    "lone surrogate in a name": json.dumps(
        dict(RULES_EXAMPLE, seats=[{"player": "\ud800", "stack": 40}, RULES_EXAMPLE["seats"][1]])
    ).encode(),
    "lone surrogate in a card": json.dumps(
        dict(RULES_EXAMPLE, deck=["\ud800", *RULES_EXAMPLE["deck"][1:]])
    ).encode(),
    "invalid UTF-8 in a name": json.dumps(RULES_EXAMPLE).encode().replace(b'"lena"', b'"le\xffna"'),
    "overlong UTF-8": b'{"variant": "\xc0\xaf"}',
}


@pytest.mark.parametrize("name", sorted(NASTY))
@pytest.mark.parametrize("locale", ["C.UTF-8", "C"])
def test_issue_7_examples_in_a_real_process(name, locale):
    env = {"LC_ALL": locale, "PYTHONIOENCODING": ""}
    state = _child(NASTY[name], env=env)
    assert state["error"]["index"] is None


def test_unreadable_file_names_in_a_real_process(tmp_path):
    odd = os.fsencode(tmp_path) + b"/no\xffsuch.json"
    proc = subprocess.run(
        [sys.executable, "-m", "bot.engine", "replay", odd],
        capture_output=True,
        timeout=60,
        env={**os.environ, "LC_ALL": "C"},
    )
    assert proc.stderr == b""
    state = check_output(proc.returncode, proc.stdout)
    assert state["error"]["index"] is None and "cannot read" in state["error"]["message"]
    bad = tmp_path / "bad.json"
    bad.write_bytes(NASTY["invalid UTF-8 in a name"])
    assert "not UTF-8" in _child(b"", str(bad))["error"]["message"]
    assert "directory" in _child(b"", str(tmp_path))["error"]["message"]


# ------------------------------------------------------------------------ the card parser ----


def check_card_error(exc: CardError) -> None:
    message = str(exc)
    assert message.isprintable() and len(message) < 200  # one short line, safe to show
    message.encode("utf-8")


@FUZZ
@given(st.text(ANY_CHAR, max_size=20))
def test_any_text_is_a_card_or_a_card_error(token):
    try:
        card = parse_card(token)
    except CardError as exc:
        check_card_error(exc)
    else:
        assert card in FULL_DECK


@FUZZ
@given(st.one_of(st.text(ANY_CHAR, max_size=40), st.lists(st.text(ANY_CHAR, max_size=5))))
def test_any_text_or_token_list_parses_to_cards_or_a_card_error(text):
    try:
        cards = parse_cards(text)
    except CardError as exc:
        check_card_error(exc)
    else:
        assert all(card in FULL_DECK for card in cards)


@settings(max_examples=500, deadline=None)
@given(
    st.sampled_from(FULL_DECK),
    st.booleans(),
    st.booleans(),
    st.booleans(),
    st.sampled_from(["", " ", "\t", "\ufe0f"]),
)
def test_every_spelling_of_a_card_parses_to_it(card, lower, symbol, ten, pad):
    rank, suit = format_card(card)
    if ten and rank == "T":
        rank = "10"
    if lower:
        rank = rank.lower()
    if symbol:
        suit = SUIT_SYMBOLS[suit] + pad.strip(" \t")
    assert parse_card(f"{pad.strip()}{rank}{suit}{pad if not pad.strip() else ''}") == card
