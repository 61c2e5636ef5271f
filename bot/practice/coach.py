"""Hints and reviews at practice tables: what the strongest computer level there would do.

Both are computed off the event loop (``hard`` simulates: a few ms per decision,
and the first decision of a game builds reference tables), from a copy of the
hand taken under no lock: the loop may move the table on meanwhile.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from bot.engine import Hand, HandRecord
from bot.engine.record import parse_record
from bot.opponents import Advice, Review, advise, review
from bot.storage.store import Store
from bot.tables.models import Code, Refused
from bot.tables.table import Table


@dataclass(frozen=True)
class PracticeReview:
    hand_id: int
    level: str  # the computer level compared with
    decisions: tuple[Review, ...]


async def hint(table: Table, user_id: int) -> Advice:
    """What the table's strongest computer level would do at the caller's decision now;
    only at a practice table, only on the caller's turn, from their own view."""
    level = table.strongest()
    if level is None:
        raise Refused(Code.NOT_PRACTICE)
    hand = table.hand
    if hand is None:
        raise Refused(Code.NO_HAND, variant=table.variant.id)
    key = str(user_id)
    if key not in table.hand_users:
        if table.seat_of(user_id) is None:
            raise Refused(Code.NOT_SEATED, variant=table.variant.id)
        raise Refused(Code.NOT_DEALT_IN)
    decision = hand.decision()
    if decision is None or decision.player != key:
        waiting = table.hand_users.get(decision.player) if decision else None
        name = table.view().name(decision.player) if decision else None
        raise Refused(Code.NOT_YOUR_TURN, waiting_for=waiting, name=name)
    return await asyncio.to_thread(_advise, hand.record(), key, level)


def _advise(record: HandRecord, key: str, level: str) -> Advice:
    return advise(Hand.replay(record), key, level)


async def review_last(store: Store, table: Table, user_id: int) -> PracticeReview | None:
    """The caller's decisions in the table's last practice hand, each next to what the
    strongest computer level there would have done (None: no such hand, or they were
    not in it). Built from the stored record, from the caller's view at each step."""
    if table.last_practice is None:
        return None
    hand_id, level = table.last_practice
    record = parse_record(await store.history.hand_record(hand_id))
    key = str(user_id)
    if all(s.player != key for s in record.seats):
        return None
    reviews = await asyncio.to_thread(review, record, key, level)
    return PracticeReview(hand_id, level, tuple(reviews))
