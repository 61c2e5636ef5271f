"""Replaying a hand record to the JSON state of RULES.md §7 (and §8.6 for tournament hands)."""

from __future__ import annotations

import json
from typing import Any

from .cards import format_cards
from .hand import Hand, IllegalAction, Pot
from .record import RecordError, parse_actions, parse_header


def state_json(hand: Hand) -> dict[str, Any]:
    """The replayed state; a tournament hand's adds ``pots`` and ``all_in`` (§8.6), while a
    cash hand's output stays exactly what it was."""
    d = hand.decision()
    paid = hand.payouts or [0] * hand.n
    out: dict[str, Any] = {
        "complete": hand.complete,
        "pot": hand.pot,
        "to_act": d.player if d else None,
        "legal": list(d.legal) if d else [],
        "payouts": {p: paid[s] for s, p in enumerate(hand.players)},
        "net": hand.net(),
        "hands": {hand.players[s]: format_cards(hand.holdings[s]) for s in hand.active},
        "error": None,
    }
    if hand.allin:
        out["pots"] = [pot_json(pot, hand.variant.split) for pot in hand.pots()]
        out["all_in"] = list(hand.all_in)
    return out


def pot_json(pot: Pot, split: bool) -> dict[str, Any]:
    out: dict[str, Any] = {"amount": pot.amount, "players": list(pot.players)}
    if split:
        out["high"], out["low"] = list(pot.high), list(pot.low)
    else:
        out["winners"] = list(pot.winners)
    return out


def header_error(message: str) -> dict[str, Any]:
    return {
        "complete": False,
        "pot": 0,
        "to_act": None,
        "legal": [],
        "payouts": {},
        "net": {},
        "hands": {},
        "error": {"index": None, "message": message},
    }


def replay_json(record: Any) -> dict[str, Any]:
    """Replay a parsed JSON record; errors are reported in the result, never raised."""
    try:
        header = parse_header(record)
        actions = parse_actions(record.get("actions", []))
    except RecordError as exc:
        return header_error(exc.message)
    hand = Hand(header)
    for index, action in enumerate(actions):
        try:
            if isinstance(action, RecordError):
                raise IllegalAction(action.message)
            hand.apply(action)
        except IllegalAction as exc:
            out = state_json(hand)
            out["error"] = {"index": index, "message": str(exc)}
            return out
    return state_json(hand)


def replay_bytes(data: bytes) -> dict[str, Any]:
    """Replay a record given as the bytes of a file: UTF-8 JSON, or a header error."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        byte = data[exc.start]
        return header_error(f"the record is not UTF-8 text (byte 0x{byte:02x} at {exc.start})")
    return replay_text(text)


def replay_text(text: str) -> dict[str, Any]:
    try:
        record = json.loads(text)
    except ValueError as exc:
        return header_error(f"the record is not valid JSON: {exc}")
    except RecursionError:
        return header_error("the record is not valid JSON: it is nested too deeply")
    bad = _lone_surrogate(record)
    if bad is not None:
        return header_error(
            f"the record holds a lone surrogate U+{ord(bad):04X}, which is not a character"
        )
    return replay_json(record)


def _lone_surrogate(value: Any) -> str | None:
    """The first lone surrogate (from a JSON escape like \\ud800) in any string of the
    parsed record, or None. Iterative, as the record may be deeply nested."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError as exc:
                return item[exc.start]
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
    return None
