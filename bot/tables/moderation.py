"""Moderation: closing a table (after its hand, at once with force, or as gone) and kicking.

A table is never closed with a live hand: a hand still being played is cancelled
(force) or played out first (the table closes when it ends); a hand whose last
action is stored but whose settlement failed is settled now, or cancelled if it
cannot be, in the same step as the close.
"""

from __future__ import annotations

import logging

from .models import Code, EventKind, Refused, TableEvent
from .play import Play
from .seating import Seating
from .steps import Steps
from .table import seat_rows, table_row

log = logging.getLogger(__name__)


class Moderation:
    def __init__(self, steps: Steps, seating: Seating, play: Play) -> None:
        self.steps = steps
        self.store = steps.store
        self.seating = seating
        self.play = play

    async def close_table(
        self,
        channel_id: int,
        user_id: int,
        *,
        moderator: bool = False,
        force: bool = False,
        gone: bool = False,
        idle: bool = False,
    ) -> bool:
        """Close the table; True if it closed now, False if it closes when the hand in
        play ends. A moderator may close any table; its opener when nobody else is
        seated. ``force`` (moderators) cancels the hand in play at once: voided, every
        player gets back exactly what they put in. ``gone``: the place that showed the
        table (a thread, a channel, the server) is gone, so there is no message to update.
        ``idle``: closed by the bot for want of play (the caller checked)."""
        table = self.steps.table(channel_id)
        async with self.steps.step(table) as step:
            if force and not moderator:
                raise Refused(Code.MODERATORS_ONLY)
            if not moderator:
                if table.opener != user_id:
                    raise Refused(Code.CLOSE_NOT_YOURS)
                # computer players don't count: the opener may close their practice table
                others = [s for s in table.humans() if s.user_id != user_id]
                if others:
                    raise Refused(Code.CLOSE_OTHERS_SEATED, count=len(others))
            hand = table.hand
            if idle and hand is not None:
                return False  # a hand began since the table was found idle: it is not
            if hand is not None and hand.complete:
                # over but not settled yet (its settlement is being retried): settle now,
                # or cancel it with the close if the ledger cannot take it
                try:
                    step.emit(await self.play.finish(table))
                except Exception:
                    log.exception("hand %s not settled at its close; cancelled", table.hand_id)
                    force = True
            playing = table.hand is not None
            if playing and not force:
                if not table.closing:
                    table.closing = True
                    await self.store.tables.save_table(table_row(table))
                step.emit(TableEvent(EventKind.CLOSING, table.view(), hand_id=table.hand_id))
                return False
            closed = await self.play.close_now(table, cancel=playing, gone=gone)
            if idle:
                closed.params["idle"] = True
            step.emit(closed)
        return True

    async def kick(self, channel_id: int, user_id: int) -> bool:
        """Remove a seated player (the caller checked the moderator). True if they are
        unseated now; False if they are in the hand in play: from now on they make no
        choice (at each of their turns they fold, or check, stand pat or buy the cheaper
        card where folding is not allowed) and are unseated when it ends."""
        table = self.steps.table(channel_id)
        async with self.steps.step(table) as step:
            seat = table.seat_of(user_id)
            if seat is None:
                raise Refused(Code.KICK_NOT_SEATED)
            who = {"user_id": seat.user_id, "name": seat.name}
            if table.tournament_id is not None:  # a tournament's player is away, never gone
                seat.sitting_out = True
                await self.store.tables.save_seats(table.channel_id, seat_rows(table.seats))
                step.emit(TableEvent(EventKind.SITOUT, table.view(), who))
                return False
            if table.in_hand(user_id):
                seat.leaving = True
                table.kicked.add(user_id)
                # the seat (leaving) and the table row (who is kicked): one transaction
                await self.store.tables.save_table(table_row(table), seats=seat_rows(table.seats))
                step.emit(TableEvent(EventKind.KICKED, table.view(), who, hand_id=table.hand_id))
                step.emit(*await self.play.act_for_kicked(table))
                return False
            table.unseat(seat)
            await self.store.tables.save_seats(
                table.channel_id, seat_rows(table.seats), generation=table.generation
            )
            step.emit(TableEvent(EventKind.KICKED, table.view(), who))
        return True
