"""``python -m bot.engine replay`` from the outside, as the contract checker runs it."""

from __future__ import annotations

import json
import subprocess
import sys

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
