"""``python -m bot.engine replay`` from the outside, as the contract checker runs it."""

from __future__ import annotations

import io
import json
import subprocess
import sys

from bot.engine.__main__ import main
from bot.engine.record import parse_record
from tests.support.engine_helpers import RULES_EXAMPLE, deck_for, record


def run(args: list[str], stdin: str | None = None) -> tuple[int, dict | None, str]:
    proc = subprocess.run(
        [sys.executable, "-m", "bot.engine", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
    )
    out = json.loads(proc.stdout) if proc.stdout.strip() else None
    return proc.returncode, out, proc.stderr


def test_replay_file_prints_the_section_7_json(tmp_path):
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(RULES_EXAMPLE))
    code, out, err = run(["replay", str(path)])
    assert code == 0 and err == ""
    assert set(out) == {"complete", "pot", "to_act", "legal", "payouts", "net", "hands", "error"}
    assert out["payouts"] == {"lena": 8, "mike": 0} and out["net"] == {"lena": 4, "mike": -4}


def test_replay_stdin_incomplete_hand_shows_turn_and_legal_actions():
    rec = dict(RULES_EXAMPLE, actions=RULES_EXAMPLE["actions"][:2])
    code, out, _ = run(["replay", "-"], json.dumps(rec))
    assert code == 0
    assert out["complete"] is False and out["to_act"] == "lena" and out["legal"] == ["discard"]
    assert out["payouts"] == {"lena": 0, "mike": 0} and out["net"] == {"lena": -2, "mike": -2}


def test_bad_action_exits_non_zero_naming_the_index():
    rec = dict(
        RULES_EXAMPLE, actions=[*RULES_EXAMPLE["actions"][:2], {"player": "lena", "action": "bet"}]
    )
    code, out, err = run(["replay", "-"], json.dumps(rec))
    assert code != 0 and "Traceback" not in err
    assert out["error"]["index"] == 2 and "discard" in out["error"]["message"]
    assert out["to_act"] == "lena" and out["pot"] == 4


def test_bad_header_and_bad_json_exit_non_zero_with_index_null():
    rec = record("a6-draw", ["a"], 0, deck_for([], ""), [])
    for text in (json.dumps(rec), "{not json", "[]"):
        code, out, err = run(["replay", "-"], text)
        assert code != 0 and "Traceback" not in err
        assert out["error"]["index"] is None and out["complete"] is False


def test_missing_file_is_an_error_not_a_traceback(tmp_path):
    code, out, err = run(["replay", str(tmp_path / "nope.json")])
    assert code != 0 and "Traceback" not in err and out["error"]["index"] is None


def test_refusals_print_the_records_words_byte_for_byte():
    """The engine matches actions and phases with enums (StrEnum): what the CLI prints,
    the refusal messages and legal lists included, is the record's text, unchanged."""
    acts = RULES_EXAMPLE["actions"]
    hands = (
        '"hands": {"lena": ["8c", "4h", "3s", "2d", "Ac"], "mike": ["6s", "5d", "3c", "2h", "Ad"]}'
    )
    cases = [
        (
            [*acts[:2], {"player": "lena", "action": "bet"}],
            '{"complete": false, "pot": 4, "to_act": "lena", "legal": ["discard"], '
            '"payouts": {"lena": 0, "mike": 0}, "net": {"lena": -2, "mike": -2}, '
            f'{hands}, "error": {{"index": 2, "message": '
            '"bet is not allowed now: it is the draw: discard cards or stand pat"}}',
        ),
        (
            [{"player": "lena", "action": "fold"}],
            '{"complete": false, "pot": 2, "to_act": "lena", "legal": ["check", "bet"], '
            '"payouts": {"lena": 0, "mike": 0}, "net": {"lena": -1, "mike": -1}, '
            f'{hands}, "error": {{"index": 0, "message": "fold is not allowed now: '
            'you may not fold when nothing is owed; legal now: check, bet"}}',
        ),
        (
            [acts[0], {"player": "mike", "action": "check"}],
            '{"complete": false, "pot": 3, "to_act": "mike", "legal": ["call", "raise", "fold"], '
            '"payouts": {"lena": 0, "mike": 0}, "net": {"lena": -2, "mike": -1}, '
            f'{hands}, "error": {{"index": 1, "message": "check is not allowed now: '
            'you owe 1 to stay in; legal now: call, raise, fold"}}',
        ),
    ]
    for actions, expected in cases:
        text = json.dumps(dict(RULES_EXAMPLE, actions=actions)).encode()
        out = io.BytesIO()
        assert main(["replay", "-"], stdin=io.BytesIO(text), stdout=out) == 1
        assert out.getvalue() == expected.encode() + b"\n"


def test_a_parsed_record_writes_back_the_same_text():
    parsed = parse_record(json.loads(json.dumps(RULES_EXAMPLE)))
    assert json.dumps(parsed.to_json()) == json.dumps(RULES_EXAMPLE)
