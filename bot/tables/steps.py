"""The step pipeline: every change to a table goes through ``Steps.step`` and its one hook.

A step takes the table's lock, applies its change and writes it in one transaction
(the body's store call), and on any failure but a refusal reloads the table from
the database, which is the truth: memory never runs ahead of it. Whatever happened,
the step ends in ``after``, the post-step hook, which
- arms the table's turn deadline, or clears it when no hand is in play;
- wakes the computer player who is to act (the practice driver's ``bot_turn``);
- puts the step's events, or after a reload a ``refreshed`` event, in the outbox;
- starts the pause before the next automatic deal when the step finished a hand.
Refusals change nothing, so they end no hook (a reload that preceded them does).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from dataclasses import dataclass, replace
from typing import Any

from bot.engine import Hand, seat_view
from bot.engine.record import RecordError, parse_record
from bot.metrics import METRICS
from bot.storage.errors import PlayerInHand, UnknownAccount
from bot.storage.rows import LiveHand
from bot.storage.store import Store

from . import supervise
from .deadlines import RETRY_DELAYS, Deadlines, Fire
from .models import Code, EventKind, Refused, SeatState, TableEvent
from .outbox import Outbox, Outgoing
from .table import Table, restore_controls, seats_of

log = logging.getLogger(__name__)
Listener = Callable[[TableEvent], None]  # a synchronous tap (tests); Discord reads the outbox
# a step that raises these changed nothing (UnknownAccount: forgetting a user the
# server stores nothing of, refused before any write)
NO_CHANGE = (Refused, PlayerInHand, UnknownAccount)


@dataclass(frozen=True)
class BotTurn:
    """A computer player is to act: at this table, in this hand, at this turn."""

    channel_id: int
    user_id: int
    level: str
    hand_id: int
    turn: int


class Step:
    """One step in progress: the events its hook will emit, in order."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.events: list[TableEvent] = []
        self.refresh = False  # the table was reloaded: show it even with no event

    def emit(self, *events: TableEvent) -> None:
        self.events.extend(events)


class Steps:
    """The tables of this process and the one way to change them."""

    def __init__(
        self,
        store: Store,
        fire: Fire,
        *,
        hand_over: Callable[[Table], None],
        bot_turn: Callable[[BotTurn], None],
        clock: Callable[[], float],
        rng: random.Random,
        retry_delays: Sequence[float] = RETRY_DELAYS,
    ) -> None:
        """``fire``: a turn's deadline is due; ``hand_over``: a step finished a hand (the
        dealer's choice, then the automatic deal); ``bot_turn``: a computer player is to
        act (the practice driver)."""
        self.store = store
        self.clock = clock
        self.rng = rng
        self.tables: dict[int, Table] = {}
        self.listeners: list[Listener] = []
        self.outbox = Outbox()
        self.deadlines = Deadlines(fire, clock, retry_delays)
        self.bot_turn = bot_turn
        self.hand_over = hand_over
        self._tasks: set[asyncio.Task[None]] = set()  # strong references, awaited in close()

    def table(self, channel_id: int) -> Table:
        table = self.tables.get(channel_id)
        if table is None:
            raise Refused(Code.NO_TABLE)
        return table

    # ----- the pipeline ----------------------------------------------------------

    @METRICS.observed_step(NO_CHANGE)  # its time and outcome; the logs' table ids
    @contextlib.asynccontextmanager
    async def step(self, table: Table, *, opening: bool = False) -> AsyncIterator[Step]:
        """One step at ``table``: its lock, its change, a reload on failure, the hook.

        Once it holds the lock, a step whose table is no longer the channel's (closed,
        or closed and opened anew, while it waited) is refused ``NO_TABLE`` and writes
        nothing; only the open's own step (``opening``) runs before its table is there.

        If the database cannot be read either, the table shows what it was before
        the step (never a change the database may lack) and is reloaded before its
        next step; its deadline stays armed, so the dispatcher keeps trying."""
        async with table.lock:
            if not opening and self.tables.get(table.channel_id) is not table:
                raise Refused(Code.NO_TABLE)
            done = Step(table)
            if table.stale:
                await self.reload(table)
                done.refresh = True
            before = _Before.of(table)
            try:
                yield done
            except NO_CHANGE:
                if done.refresh:
                    self.after(table, [], refresh=True)
                raise
            except Exception as exc:
                try:
                    await self.reload(table)
                except Exception:
                    log.exception(
                        "table %s not reloaded; trying at its next step", table.channel_id
                    )
                    before.put_back(table)
                    self.arm(table)
                else:
                    self.after(table, [], refresh=True)
                    if not opening and self.tables.get(table.channel_id) is not table:
                        raise Refused(Code.NO_TABLE) from exc  # closed in the database
                raise  # the step's own failure
            except BaseException:  # cancelled mid-step: reload at the next one
                before.put_back(table)
                raise
            self.after(table, done.events, refresh=done.refresh)

    def after(self, table: Table, events: Sequence[TableEvent], *, refresh: bool = False) -> None:
        """The post-step hook (see the module's docstring); never waits."""
        METRICS.count_events(events)  # hands dealt and finished, actions
        self.arm(table)
        is_open = self.tables.get(table.channel_id) is table
        for event in events:
            self.emit(event)
        if refresh and not events and is_open:
            self.emit(TableEvent(EventKind.REFRESHED, table.view(), hand_id=table.hand_id))
        if not is_open:
            return
        if events:
            table.last_step = self.clock()
        if table.hand is None and any(e.kind == "finished" for e in events):
            self.hand_over(table)
        self._wake_bot(table)

    def arm(self, table: Table) -> None:
        """Set the dispatcher to the table's deadline: the turn's (a computer player's
        too: if its move never comes, the deadline makes it), or at once for a hand that
        is complete but not settled (a settlement that failed is tried again)."""
        hand = table.hand
        if hand is None or table.hand_id is None or self.tables.get(table.channel_id) is not table:
            self.deadlines.disarm(table.channel_id)
            return
        if hand.complete:
            when = self.clock()
        else:
            if table.deadline is None:
                table.deadline = self.clock() + table.settings.turn_timeout
            when = table.deadline
        self.deadlines.arm(table.channel_id, table.hand_id, len(hand.actions), when)

    def _wake_bot(self, table: Table) -> None:
        seat = table.to_act()
        if seat is None or seat.bot is None or table.hand is None or table.hand_id is None:
            return
        turn = BotTurn(
            table.channel_id, seat.user_id, seat.bot, table.hand_id, len(table.hand.actions)
        )
        self.bot_turn(turn)

    def emit(self, event: TableEvent) -> None:
        """Append the event to its table's outbox and return at once: never waits on Discord.

        Each changed hand is captured now, so its owner's DM shows the cards as they are
        right after this event, however late the presenter sends it."""
        table = self.tables.get(event.view.channel_id)
        hands = {}
        if table is not None and table.hand is not None:
            for user_id in event.cards_changed:
                seat = table.seat_of(user_id)
                if str(user_id) in table.hand_users and not (seat and seat.bot):  # no DMs
                    hands[user_id] = seat_view(table.hand, str(user_id))
        self.outbox.put(Outgoing(event, hands))
        for listener in self.listeners:
            try:
                listener(event)
            except Exception:
                log.exception(
                    "table listener failed on %s at %s", event.kind, event.view.channel_id
                )

    # ----- the database is the truth -------------------------------------------------

    async def reload(self, table: Table) -> None:
        """Make the table what the database holds: seats, button, deadline, live hand.
        Used after any failed step, whose writes may or may not have been committed."""
        table.stale = True
        row = await self.store.tables.load_table(table.channel_id)
        if row is None or not row.open or row.generation != table.generation:
            self.forget(table)  # closed (or replaced) in the database: so in memory
            table.stale = False
            return
        seats = await self.store.tables.load_seats(table.channel_id)
        lives = await self.store.history.load_live_hands(channel_id=table.channel_id)
        table.hand, table.hand_id, table.hand_users, table.hand_names = None, None, {}, {}
        table.seats = seats_of(seats)
        table.button, table.deadline = row.button, row.turn_deadline
        restore_controls(table, row.settings)
        for live in lives:
            await self.resume(table, live)
        table.stale = False
        log.warning("table %s reloaded from the database after a failed step", table.channel_id)

    def forget(self, table: Table) -> None:
        """Drop a table the database holds closed or replaced: no hand, no seats, no
        deadline; if it is still the channel's table, the channel has none from now."""
        log.warning("table %s is closed in the database; dropped", table.channel_id)
        table.hand, table.hand_id, table.hand_users, table.deadline = None, None, {}, None
        table.seats = []
        if self.tables.get(table.channel_id) is table:
            del self.tables[table.channel_id]
            self.deadlines.disarm(table.channel_id)

    async def resume(self, table: Table, live: LiveHand) -> bool:
        """Put a stored live hand back at its table; False if it does not replay."""
        stored = {**live.header, "reshuffles": live.reshuffles, "actions": live.actions}
        try:
            hand = Hand.replay(parse_record(stored), rng=self.rng)
        except RecordError as exc:  # never expected: every stored action was legal
            log.error("hand %s does not replay (%s); left as it is", live.hand_id, exc)
            return False
        if hand.reshuffles_used < len(hand.reshuffles):
            # Stored apart from the draw that needed it (files written before a reshuffle
            # went with its action): nobody has seen it, and a smaller draw now would
            # make it wrong for the next one, so it goes; the next big draw shuffles anew.
            await self.store.hands.drop_reshuffles(live.hand_id, hand.reshuffles_used)
            stored["reshuffles"] = live.reshuffles[: hand.reshuffles_used]
            hand = Hand.replay(parse_record(stored), rng=self.rng)
        table.hand, table.hand_id = hand, live.hand_id
        table.variant = hand.variant  # a mixed table's hand is the game it was dealt
        table.hand_users = {p: int(p) for p in hand.players}  # keys are user ids (bots' too)
        table.hand_names = {str(u): name for u, name in live.names.items()}
        return True

    # ----- tasks -----------------------------------------------------------------

    def spawn(self, coro: Coroutine[Any, Any, None], what: str) -> None:
        """Run ``coro`` in the background until ``close``; a failure is logged with ``what``."""
        supervise.spawn(coro, what, self._tasks)

    async def close(self) -> None:
        """Stop timers and pending tasks; the database keeps everything needed to carry on."""
        for task in list(self._tasks):
            task.cancel()
        await self.deadlines.close()
        await asyncio.gather(*self._tasks, return_exceptions=True)


@dataclass(frozen=True)
class _Before:
    """A table as it was before a step, to show again if the step failed and the
    database cannot be read (the table is then marked stale: reloaded before its next step)."""

    hand: Hand | None
    actions: int
    reshuffles: int
    hand_id: int | None
    hand_users: dict[str, int]
    seats: list[SeatState]
    button: int | None
    deadline: float | None

    @classmethod
    def of(cls, table: Table) -> _Before:
        hand = table.hand
        return cls(
            hand,
            len(hand.actions) if hand else 0,
            len(hand.reshuffles) if hand else 0,
            table.hand_id,
            dict(table.hand_users),
            [replace(s) for s in table.seats],
            table.button,
            table.deadline,
        )

    def put_back(self, table: Table) -> None:
        hand = self.hand
        if hand is not None and len(hand.actions) != self.actions:
            record = hand.record()  # the hand before the step's action
            record.actions = record.actions[: self.actions]
            record.reshuffles = record.reshuffles[: self.reshuffles]
            hand = Hand.replay(record, rng=hand.rng)
        table.hand, table.hand_id, table.hand_users = hand, self.hand_id, self.hand_users
        table.seats, table.button, table.deadline = self.seats, self.button, self.deadline
        table.stale = True
