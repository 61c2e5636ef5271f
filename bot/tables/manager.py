"""The table manager: one table per channel around the engine, durable in the database.

Every change to a table happens under that table's lock and is committed to
the database before the caller hears of it. Tables never wait on each other:
each has its own lock, and one dispatcher (``deadlines.py``) runs every turn timer.

One step of the game is one database transaction, so a process killed at any
moment leaves each step either done or never started:
- open: the table row; join: the seats (the chip account is created first, in its
  own transaction: an account with no seat is what /balance makes anyway);
- deal: the hand, the holds, the new button and the first deadline;
- action or timeout: the action, any reshuffle it drew, the next deadline and the
  seat rows it changes (timeouts in a row, sitting out after two);
- settle: the ledger, the released holds and the seats after the hand (leavers
  gone, sleepers sitting out); a stop between a hand's last action and its
  settlement is settled at start-up;
- leave, sit out: the seats; refill: the ledger.
A step that fails with anything but a refusal may or may not have reached the
disk, so the table is then reloaded from the database (``_reload``): the database
is the truth, memory never runs ahead of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from bot.engine import (
    VARIANTS,
    Action,
    CardError,
    Hand,
    IllegalAction,
    parse_cards,
    public_view,
    seat_view,
)
from bot.engine.cards import FULL_DECK, format_cards
from bot.engine.record import RecordError, parse_record
from bot.opponents import LEVELS, Advice, Review, advise, review
from bot.storage.api import Storage
from bot.storage.server_store import PlayerInHand
from bot.storage.shards import Shards
from bot.storage.store import (
    InsufficientChips,
    LiveHand,
    RefillRefused,
    SeatRow,
    StorageError,
    TableRow,
)

from .deadlines import RETRY_DELAYS, Deadlines
from .models import (
    ActionResult,
    Code,
    Done,
    Outcome,
    Refused,
    SeatState,
    Skip,
    TableEvent,
    TableSettings,
    TableView,
)
from .outbox import Outbox, Outgoing
from .table import Table, describe_action

log = logging.getLogger(__name__)
Listener = Callable[[TableEvent], None]  # a synchronous tap (tests); Discord reads the outbox
SMALLEST_MINIMUM = min(v.table_minimum for v in VARIANTS.values())
SETTINGS = tuple(f.name for f in fields(TableSettings))
TIMEOUT_RANGE = (5, 3600)  # seconds a player may be given to act
REFILL_CODES = {
    "in_hand": Code.REFILL_IN_HAND,
    "not_low": Code.REFILL_NOT_LOW,
    "at_grant": Code.REFILL_AT_GRANT,
}


class TableManager:
    def __init__(
        self,
        store: Storage,
        *,
        starting_grant: int = 200,
        turn_timeout: float = 60.0,
        next_hand_delay: float = 0.0,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        shards: Shards | None = None,
        claim_retry: float = 2.0,
        retry_delays: Sequence[float] = RETRY_DELAYS,
    ) -> None:
        self.store = store
        self.starting_grant = starting_grant
        self.turn_timeout = turn_timeout
        self.next_hand_delay = next_hand_delay
        self.clock = clock
        self.rng = rng or secrets.SystemRandom()  # tests inject a seeded Random
        self.tables: dict[int, Table] = {}
        self.listeners: list[Listener] = []
        self.outbox = Outbox()
        self._tasks: set[asyncio.Task[None]] = set()  # strong references, awaited in close()
        self.deadlines = Deadlines(self._on_deadline, clock, retry_delays)
        self._opening = asyncio.Lock()  # check-then-insert of open_table is one step
        self.shards = shards  # None: this process runs every shard
        self.claim_retry = claim_retry
        self._waiting: set[int] = set()  # guilds of ours that another process still holds

    # ----- life cycle -----------------------------------------------------

    async def start(self) -> int:
        """Restore open tables and continue every unfinished hand; return how many.

        Only the tables of guilds in this process's shards, and of those only the
        guilds it can claim in the database; guilds another process still holds are
        retried every ``claim_retry`` seconds and taken over once their lock lapses.
        """
        rows = [r for r in await self.store.load_tables() if self._in_my_shards(r.guild_id)]
        guilds = sorted({r.guild_id for r in rows})
        claimed = {g for g in guilds if await self.store.claim_guild(g)}
        self._waiting = set(guilds) - claimed
        if self._waiting:
            log.warning("%d guilds are held by another process; retrying", len(self._waiting))
            self._spawn(self._claim_later())
        everything = self.shards is None and not self._waiting
        return await self._restore(
            [r for r in rows if r.guild_id in claimed], None if everything else claimed
        )

    async def _claim_later(self) -> None:
        """Take over, as soon as their locks lapse, the guilds another process held."""
        while self._waiting:
            await asyncio.sleep(self.claim_retry)
            taken = {g for g in sorted(self._waiting) if await self.store.claim_guild(g)}
            if taken:
                self._waiting -= taken
                rows = [r for r in await self.store.load_tables() if r.guild_id in taken]
                restored = await self._restore(rows, taken)
                log.info("took over %d guilds, %d unfinished hands", len(taken), restored)

    def _in_my_shards(self, guild_id: int) -> bool:
        return self.shards is None or self.shards.owns(guild_id)

    async def _restore(self, rows: list[TableRow], guilds: set[int] | None) -> int:
        """Load ``rows``' tables and continue the live hands of ``guilds`` (None: all)."""
        tables: dict[int, Table] = {}
        stored_seats = await self.store.load_seats_of([row.channel_id for row in rows])
        for row in rows:
            settings = TableSettings(**{k: row.settings[k] for k in SETTINGS if k in row.settings})
            seats = _seats(stored_seats[row.channel_id])
            table = Table(row.channel_id, row.guild_id, VARIANTS[row.variant], settings, seats)
            table.button, table.deadline = row.button, row.turn_deadline
            _restore_controls(table, row.settings)
            tables[row.channel_id] = table
        resumed: list[Table] = []
        for live in await self.store.load_live_hands(guilds):
            found = tables.get(live.channel_id)
            if found is None:
                log.error("live hand %s has no open table; left as it is", live.hand_id)
                continue
            if await self._resume(found, live):
                resumed.append(found)
        # Published whole (a later take-over runs while the bot serves): never a table
        # that is seen without its hand.
        self.tables.update(tables)
        for table in [t for t in tables.values() if t not in resumed]:
            table.kicked.clear()  # their hand is over
            if table.closing:  # stopped between a hand's end and the close
                async with self._locked(table):
                    await self._close_locked(table)
        for table in resumed:
            if table.hand is not None and table.hand.complete:
                # stopped between its last action and its settlement
                try:
                    async with self._locked(table):
                        # its result is still to be shown (emitting never waits)
                        await self._emit(await self._finish(table))
                        if table.closing:
                            await self._close_locked(table)
                except Exception:  # the dispatcher tries again (see expire)
                    log.exception("hand %s not settled at start-up", table.hand_id)
            self._arm(table)
        return len(resumed)

    async def _resume(self, table: Table, live: LiveHand) -> bool:
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
            await self.store.drop_reshuffles(live.hand_id, hand.reshuffles_used)
            stored["reshuffles"] = live.reshuffles[: hand.reshuffles_used]
            hand = Hand.replay(parse_record(stored), rng=self.rng)
        table.hand, table.hand_id = hand, live.hand_id
        table.hand_users = {p: int(p) for p in hand.players}  # keys are user ids (bots' too)
        table.hand_names = {str(u): name for u, name in live.names.items()}
        return True

    async def _reload(self, table: Table) -> None:
        """Make the table what the database holds: seats, button, deadline, live hand.
        Used after any failed step, whose writes may or may not have been committed."""
        table.stale = True
        row = await self.store.load_table(table.channel_id)
        seats = await self.store.load_seats(table.channel_id)
        lives = await self.store.load_live_hands(channel_id=table.channel_id)
        table.hand, table.hand_id, table.hand_users, table.hand_names = None, None, {}, {}
        table.seats = _seats(seats)
        if row is not None:
            table.button, table.deadline = row.button, row.turn_deadline
            _restore_controls(table, row.settings)
        for live in lives:
            await self._resume(table, live)
        table.stale = False
        log.warning("table %s reloaded from the database after a failed step", table.channel_id)
        self._arm(table)

    @contextlib.asynccontextmanager
    async def _locked(self, table: Table) -> AsyncIterator[None]:
        """The table's lock for one step; on a failure other than a refusal, reload.

        If the database cannot be read either, the table shows what it was before
        the step (never a change the database may lack) and is reloaded before its
        next step; its deadline stays armed, so the dispatcher keeps trying."""
        async with table.lock:
            if table.stale:
                await self._reload(table)
            before = _Before.of(table)
            try:
                yield
            except Refused:
                raise  # refusals change nothing
            except Exception:
                try:
                    await self._reload(table)
                except Exception:
                    log.exception(
                        "table %s not reloaded; trying at its next step", table.channel_id
                    )
                    before.put_back(table)
                    self._arm(table)
                raise
            except BaseException:  # cancelled mid-step: reload at the next one
                before.put_back(table)
                raise

    async def close(self) -> None:
        """Stop timers and pending deals; the database keeps everything needed to carry on."""
        for task in list(self._tasks):
            task.cancel()
        await self.deadlines.close()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def subscribe(self, listener: Listener) -> None:
        self.listeners.append(listener)

    # ----- queries ----------------------------------------------------------

    def table(self, channel_id: int) -> Table:
        table = self.tables.get(channel_id)
        if table is None:
            raise Refused(Code.NO_TABLE)
        return table

    def view(self, channel_id: int) -> TableView:
        return self.table(channel_id).view()

    def my_hand(self, channel_id: int, user_id: int):
        """The caller's private view of the current hand (None if not dealt in)."""
        table = self.table(channel_id)
        key = str(user_id)
        if table.hand is None or key not in table.hand_users:
            return None
        return seat_view(table.hand, key)

    # ----- seating --------------------------------------------------------

    async def open_table(
        self,
        guild_id: int,
        channel_id: int,
        variant: str,
        seat_limit: int | None = None,
        turn_timeout: float | None = None,
        auto_deal: bool | None = None,
        opener: int | None = None,
    ) -> TableView:
        async with self._opening:  # two opens in one channel: the second is refused
            return await self._open_table(
                guild_id, channel_id, variant, seat_limit, turn_timeout, auto_deal, opener
            )

    async def _open_table(
        self,
        guild_id: int,
        channel_id: int,
        variant: str,
        seat_limit: int | None,
        turn_timeout: float | None,
        auto_deal: bool | None,
        opener: int | None = None,
    ) -> TableView:
        v = VARIANTS.get(variant)
        if v is None:
            raise Refused(Code.UNKNOWN_GAME, game=variant, games=tuple(VARIANTS))
        existing = self.tables.get(channel_id)
        if existing is not None:
            raise Refused(Code.TABLE_EXISTS, variant=existing.variant.id)
        limit = v.max_seats if seat_limit is None else seat_limit
        if not v.min_seats <= limit <= v.max_seats:
            raise Refused(
                Code.BAD_SEATS, variant=v.id, min=v.min_seats, max=v.max_seats, given=limit
            )
        low, high = TIMEOUT_RANGE
        if turn_timeout is not None and not low <= turn_timeout <= high:
            raise Refused(Code.BAD_TIMEOUT, min=low, max=high, given=turn_timeout)
        timeout = self.turn_timeout if turn_timeout is None else turn_timeout
        auto = self.next_hand_delay > 0 if auto_deal is None else auto_deal
        if guild_id in self._waiting or not (
            self._in_my_shards(guild_id) and await self.store.claim_guild(guild_id)
        ):
            raise Refused(Code.GUILD_ELSEWHERE)
        table = Table(channel_id, guild_id, v, TableSettings(limit, timeout, auto), [])
        table.opener = opener
        await self.store.save_table(self._table_row(table))
        self.tables[channel_id] = table
        view = table.view()
        await self._emit(TableEvent("opened", view))
        return view

    async def join(self, channel_id: int, user_id: int, name: str) -> Outcome:
        table = self.table(channel_id)
        async with self._locked(table):
            self._refuse_if_closing(table)
            if user_id in table.kicked:
                raise Refused(Code.KICKED_WAIT)
            seat = table.seat_of(user_id)
            if seat is not None:
                if seat.leaving:
                    seat.leaving = False
                    await self._save_seats(table)
                    return Outcome(Done.STAYING)
                raise Refused(Code.ALREADY_SEATED)
            number = table.free_seat()
            if number is None:
                raise Refused(Code.TABLE_FULL, seats=table.settings.seat_limit)
            account = await self.store.ensure_account(
                table.guild_id, user_id, name, self.starting_grant
            )
            table.seats.append(SeatState(number, user_id, name))
            table.seats.sort(key=lambda s: s.seat)
            await self._save_seats(table)
            view = table.view()
        seated = {"user_id": user_id, "name": name, "seat": number + 1}
        await self._emit(TableEvent("seated", view, seated))
        return Outcome(
            Done.SEATED,
            {
                "seat": number + 1,
                "available": account.available,
                "minimum": table.variant.table_minimum,
                "refill_below": SMALLEST_MINIMUM,
            },
        )

    async def leave(self, channel_id: int, user_id: int) -> Outcome:
        table = self.table(channel_id)
        async with self._locked(table):
            seat = self._seated(table, user_id)
            if table.in_hand(user_id):
                seat.leaving = True
                await self._save_seats(table)
                return Outcome(Done.LEAVING)
            table.unseat(seat)
            await self._save_seats(table)
            view = table.view()
        await self._emit(TableEvent("left", view, _who(seat)))
        return Outcome(Done.LEFT)

    async def sit_out(self, channel_id: int, user_id: int) -> Outcome:
        """Toggle sitting out: a player sitting out is not dealt into the next hands."""
        table = self.table(channel_id)
        async with self._locked(table):
            seat = self._seated(table, user_id)
            seat.sitting_out = not seat.sitting_out
            seat.timeouts = 0
            await self._save_seats(table)
            view = table.view()
        if seat.sitting_out:
            outcome = Outcome(Done.SITTING_OUT, {"after_hand": table.in_hand(user_id)})
            await self._emit(TableEvent("sitout", view, _who(seat)))
        else:
            outcome = Outcome(Done.BACK)
            await self._emit(TableEvent("back", view, _who(seat)))
        return outcome

    # ----- computer players (practice tables) -------------------------------

    async def add_bot(self, channel_id: int, user_id: int, level: str, name: str) -> Outcome:
        """Seat a computer player of ``level`` named ``name`` (the UI's words), between
        hands, for a seated person (a table keeps at least one)."""
        if level not in LEVELS:
            raise Refused(Code.UNKNOWN_LEVEL, level=level, levels=LEVELS)
        table = self.table(channel_id)
        async with self._locked(table):
            self._seated(table, user_id)
            self._refuse_if_closing(table)
            if table.hand is not None:
                raise Refused(Code.HAND_RUNNING)
            number = table.free_seat()
            if number is None:
                raise Refused(Code.TABLE_FULL, seats=table.settings.seat_limit)
            bot_id = min([0, *(s.user_id for s in table.seats)]) - 1  # ids below 1: no account
            stack = max(self.starting_grant, table.variant.table_minimum)
            table.seats.append(SeatState(number, bot_id, name, bot=level, stack=stack))
            table.seats.sort(key=lambda s: s.seat)
            await self._save_seats(table)
            view = table.view()
        seated = {"user_id": bot_id, "name": name, "seat": number + 1}
        await self._emit(TableEvent("seated", view, seated))
        return Outcome(Done.BOT_SEATED, {"name": name, "seat": number + 1, "level": level})

    async def remove_bot(self, channel_id: int, user_id: int) -> Outcome:
        """Stand up the last computer player seated, between hands."""
        table = self.table(channel_id)
        async with self._locked(table):
            self._seated(table, user_id)
            if table.hand is not None:
                raise Refused(Code.HAND_RUNNING)
            bots = [s for s in table.seats if s.bot]
            if not bots:
                raise Refused(Code.NO_BOT)
            bot = max(bots, key=lambda s: -s.user_id)  # the latest: ids count down
            table.seats.remove(bot)
            await self._save_seats(table)
            view = table.view()
        await self._emit(TableEvent("left", view, _who(bot)))
        return Outcome(Done.BOT_LEFT, {"name": bot.name})

    def hint(self, channel_id: int, user_id: int) -> Advice:
        """What the table's strongest computer level would do at the caller's decision now;
        only at a practice table, only on the caller's turn, from their own view."""
        table = self.table(channel_id)
        level = _strongest(table)
        if level is None:
            raise Refused(Code.NOT_PRACTICE)
        hand = self._current_hand(table)
        key = str(user_id)
        if key not in table.hand_users:
            self._seated(table, user_id)
            raise Refused(Code.NOT_DEALT_IN)
        _check_turn(table, hand, key)
        return advise(hand, key, level)

    async def review_last(self, channel_id: int, user_id: int) -> PracticeReview | None:
        """The caller's decisions in the table's last practice hand, each next to what the
        strongest computer level there would have done (None: no such hand, or they were
        not in it). Built from the stored record, from the caller's view at each step."""
        table = self.table(channel_id)
        if table.last_practice is None:
            return None
        hand_id, level = table.last_practice
        record = parse_record(await self.store.hand_record(hand_id))
        key = str(user_id)
        if all(s.player != key for s in record.seats):
            return None
        # ``hard`` simulates every decision of the hand: off the event loop
        reviews = await asyncio.to_thread(review, record, key, level)
        return PracticeReview(hand_id, level, tuple(reviews))

    # ----- dealing ----------------------------------------------------------

    async def deal(self, channel_id: int, user_id: int | None = None) -> TableView:
        """Start a hand with every seated player who can cover the table minimum."""
        table = self.table(channel_id)
        async with self._locked(table):
            if user_id is not None:
                self._seated(table, user_id)
            event = await self._deal_locked(table)
        await self._emit(event)
        return event.view

    async def _deal_locked(self, table: Table) -> TableEvent:
        self._refuse_if_closing(table)
        if table.hand is not None:
            raise Refused(Code.HAND_RUNNING)
        players, skipped = await self._dealable(table)
        if len(players) < 2:
            raise Refused(Code.TOO_FEW_PLAYERS, skipped=tuple(skipped))
        dealer = table.next_dealer([s for s, _ in players])
        rng_state = _rng_state(self.rng)
        deck = list(FULL_DECK)
        self.rng.shuffle(deck)
        seats = [(str(s.user_id), available) for s, available in players]
        dealer_index = [s.seat for s, _ in players].index(dealer)
        hand = Hand.start(table.variant.id, seats, dealer_index, deck, rng=self.rng)
        minimum = table.variant.table_minimum
        users = [s.user_id for s, _ in players]
        deadline = self.clock() + table.settings.turn_timeout
        practice = table.practice
        try:  # the hand, its holds, the new button and the deadline: one transaction
            hand_id = await self.store.start_hand(
                table.guild_id,
                table.channel_id,
                table.variant.id,
                hand.header.header_json(),
                {u: 0 if practice else minimum for u in users},
                users,
                {s.user_id: s.name for s, _ in players},
                button=dealer,
                deadline=deadline,
                practice=practice,
                # practice stacks refilled for this hand (the ledger is never touched)
                seats=_seat_rows(table.seats) if practice else None,
            )
        except InsufficientChips as exc:  # a hand elsewhere took the chips meanwhile
            _set_rng_state(self.rng, rng_state)  # a refusal changes nothing, the rng neither
            short = table.seat_of(exc.user_id)
            raise Refused(
                Code.CANNOT_COVER_MINIMUM,
                user_id=exc.user_id,
                name=short.name if short else None,
                available=exc.available,
                minimum=minimum,
            ) from None
        table.hand, table.hand_id, table.button = hand, hand_id, dealer
        table.hand_users = {str(u): u for u in users}
        table.hand_names = {str(s.user_id): s.name for s, _ in players}
        table.deadline = deadline
        self._arm(table)
        dealt = {"players": tuple(s.name for s, _ in players), "skipped": tuple(skipped)}
        return TableEvent("dealt", table.view(), dealt, cards_changed=tuple(users), hand_id=hand_id)

    async def _dealable(self, table: Table) -> tuple[list[tuple[SeatState, int]], list[Skip]]:
        minimum = table.variant.table_minimum
        players: list[tuple[SeatState, int]] = []
        skipped: list[Skip] = []
        for seat in table.seats:
            if seat.sitting_out:
                skipped.append(Skip(seat.user_id, seat.name, "sitting_out"))
                continue
            if table.practice:
                # A practice stack, refilled between hands when it cannot cover the minimum.
                if seat.stack is None or seat.stack < minimum:
                    seat.stack = max(self.starting_grant, minimum)
                players.append((seat, seat.stack))
                continue
            account = await self.store.balance(table.guild_id, seat.user_id)
            available = account.available if account else 0
            if available < minimum:
                skipped.append(Skip(seat.user_id, seat.name, "short", available, minimum))
                continue
            players.append((seat, available))
        return players[: table.variant.max_seats], skipped

    # ----- actions ----------------------------------------------------------

    async def act(
        self,
        channel_id: int,
        user_id: int,
        action: str,
        *,
        cards: str | Sequence[str] | None = None,
        source: str | None = None,
        turn: int | None = None,
        hand_id: int | None = None,
    ) -> ActionResult:
        """Apply a player's action. ``turn``/``hand_id`` come from buttons: a click on a
        button drawn for an earlier turn or hand is refused."""
        table = self.table(channel_id)
        async with self._locked(table):
            if table.hand is None and (hand_id is not None or turn is not None):
                raise Refused(Code.STALE_BUTTON)  # a button of a hand that is over
            hand = self._current_hand(table)
            key = str(user_id)
            if key not in table.hand_users:
                self._seated(table, user_id)  # an outsider is told how to join
                raise Refused(Code.NOT_DEALT_IN)
            if (hand_id is not None and hand_id != table.hand_id) or (
                turn is not None and turn != len(hand.actions)
            ):
                same_hand = hand_id is None or hand_id == table.hand_id
                raise Refused(Code.STALE_BUTTON, **(_already(hand, key, turn) if same_hand else {}))
            _check_turn(table, hand, key)
            move = self._build_action(key, action, cards, source)
            events = await self._apply(table, move, timeout=False)
            events += await self._act_for_kicked(table)
            after = events[0].view.hand  # the hand right after this action, even if it ended
            mine = seat_view(hand, key, public=after)
        for event in events:
            await self._emit(event)
        return ActionResult(describe_action(move, table.names(), hand), events[-1].view, mine)

    def _build_action(self, key: str, action: str, cards, source) -> Action:
        if action == "discard":
            try:
                parsed = parse_cards(cards or [])
            except CardError as exc:
                raise Refused(Code.BAD_CARDS, token=exc.token) from None
            return Action(key, "discard", cards=tuple(parsed))
        if action == "buy":
            return Action(key, "buy", source=source)
        return Action(key, action)

    async def _apply(self, table: Table, move: Action, timeout: bool) -> list[TableEvent]:
        """Apply under the table lock, persist, then settle a finished hand."""
        hand = table.hand
        assert hand is not None and table.hand_id is not None
        reshuffles = len(hand.reshuffles)
        try:
            hand.apply(move)
        except IllegalAction as exc:
            raise Refused(
                Code.ILLEGAL_ACTION, action=move.action, reason=exc.code, **exc.params
            ) from None
        # From here memory is ahead of the database until the COMMIT; a failure reloads.
        index = len(hand.actions) - 1
        deadline = None if hand.complete else self.clock() + table.settings.turn_timeout
        seats = self._after_turn(table, table.hand_users[move.player], timeout)
        drawn = range(reshuffles, len(hand.reshuffles))
        await self.store.append_action(
            table.hand_id,
            index,
            move.to_json(),
            deadline,
            reshuffles=[(n, format_cards(hand.reshuffles[n])) for n in drawn],
            seats=seats,
        )
        table.deadline = deadline
        self._arm(table)
        kind = "timeout" if timeout else "action"
        public = describe_action(move, table.names(), hand, timeout=timeout)
        changed = (table.hand_users[move.player],) if move.action == "discard" else ()
        events = [
            TableEvent(
                kind, table.view(), move=public, cards_changed=changed, hand_id=table.hand_id
            )
        ]
        if hand.complete:
            try:
                events.append(await self._finish(table))
                if table.closing:
                    events.append(await self._close_locked(table))
            except Exception:  # the action is stored: answer it; the dispatcher settles
                log.exception("hand %s not settled; trying again", table.hand_id)
                self._arm(table)
        return events

    def _after_turn(self, table: Table, user_id: int, timeout: bool) -> list[SeatRow] | None:
        """Count the actor's timeouts in a row (two sit them out); the seat rows to store
        with the action if that changed anything, else None."""
        seat = table.seat_of(user_id)
        if seat is None or (not timeout and seat.timeouts == 0):
            return None
        if timeout:
            seat.timeouts += 1
            seat.sitting_out = seat.sitting_out or seat.timeouts >= 2
        else:
            seat.timeouts = 0
        return _seat_rows(table.seats)

    async def _finish(self, table: Table) -> TableEvent:
        """Settle the finished hand with the seats after it (one transaction)."""
        hand, hand_id = table.hand, table.hand_id
        assert hand is not None and hand_id is not None
        net = {table.hand_users[p]: chips for p, chips in hand.net().items()}
        practice = table.practice
        stacks = hand.stacks() if practice else {}
        level = _strongest(table)
        staying = [
            replace(
                s,
                sitting_out=s.sitting_out or s.timeouts >= 2,  # sleepers sit out
                stack=stacks.get(str(s.user_id), s.stack),  # practice chips carry on
            )
            for s in table.seats
            if not s.leaving
        ]
        if practice and all(s.bot for s in staying):
            staying = []  # the last person left: the computer players stand up
        rows = _seat_rows(staying) if staying != table.seats else None
        if not await self.store.finish_hand(hand_id, net, seats=rows):
            raise StorageError(f"hand #{hand_id} was already settled")  # reload: take the DB's
        result = public_view(hand)
        names = table.names()  # before leavers go: the result still names them
        table.hand, table.hand_id, table.hand_users, table.hand_names = None, None, {}, {}
        table.seats, table.deadline = staying, None
        table.kicked.clear()  # they were leaving: their seats went
        table.last_practice = (hand_id, level) if practice and level else None
        self.deadlines.disarm(table.channel_id)
        view = table.view()
        view = replace(view, names={**view.names, **names})
        if table.settings.auto_deal and self.next_hand_delay > 0:  # 0 turns auto-deal off
            self._spawn(self._auto_deal(table.channel_id))
        return TableEvent("finished", view, result=result, hand_id=hand_id)

    # ----- timers -------------------------------------------------------------

    def _arm(self, table: Table) -> None:
        """Set the dispatcher to the table's deadline: the turn's, or at once for a hand
        that is complete but not settled (a settlement that failed is tried again)."""
        hand = table.hand
        if hand is None or table.hand_id is None:
            self.deadlines.disarm(table.channel_id)
            return
        if hand.complete:
            when = self.clock()
        else:
            if table.deadline is None:
                table.deadline = self.clock() + table.settings.turn_timeout
            when = table.deadline
        self.deadlines.arm(table.channel_id, table.hand_id, len(hand.actions), when)

    async def _on_deadline(self, channel_id: int, hand_id: int, turn: int) -> None:
        if channel_id in self.tables:  # raises on failure: the dispatcher tries again
            await self.expire(channel_id, hand_id, turn)

    async def expire(
        self, channel_id: int, hand_id: int | None = None, turn: int | None = None
    ) -> bool:
        """Time out the player to act (if the turn is still the one given); settle a hand
        whose settlement failed before."""
        table = self.table(channel_id)
        async with self._locked(table):
            hand = table.hand
            if hand is None:
                return False
            if (hand_id is not None and hand_id != table.hand_id) or (
                turn is not None and turn != len(hand.actions)
            ):
                return False
            if hand.complete:
                events = [await self._finish(table)]
            else:
                move = hand.default_action()
                assert move is not None
                seat = table.seat_of(table.hand_users[move.player])
                if seat is not None and seat.bot:
                    return False  # computer players never time out: the practice driver acts
                events = await self._apply(table, move, timeout=True)
                events += await self._act_for_kicked(table)
        for event in events:
            await self._emit(event)
        return True

    async def _auto_deal(self, channel_id: int) -> None:
        await asyncio.sleep(self.next_hand_delay)
        table = self.tables.get(channel_id)
        if table is None:
            return
        async with self._locked(table):
            if table.hand is not None:
                return
            try:
                event = await self._deal_locked(table)
            except Refused as exc:
                log.info("no automatic deal at %s: %s", channel_id, exc)
                return
        await self._emit(event)

    # ----- ledger -------------------------------------------------------------

    async def balance(self, guild_id: int, user_id: int, name: str):
        return await self.store.ensure_account(guild_id, user_id, name, self.starting_grant)

    async def refill(self, guild_id: int, user_id: int, name: str) -> int:
        await self.store.ensure_account(guild_id, user_id, name, self.starting_grant)
        try:
            return await self.store.refill(guild_id, user_id, self.starting_grant, SMALLEST_MINIMUM)
        except RefillRefused as exc:
            raise Refused(REFILL_CODES[exc.code], **exc.params) from None

    # ----- closing and moderation (issue 9) -----------------------------------

    async def close_table(
        self,
        channel_id: int,
        user_id: int,
        *,
        moderator: bool = False,
        force: bool = False,
        gone: bool = False,
    ) -> bool:
        """Close the table; True if it closed now, False if it closes when the hand in
        play ends. A moderator may close any table; its opener when nobody else is
        seated. ``force`` (moderators) cancels the hand in play at once: voided, every
        player gets back exactly what they put in. ``gone``: the place that showed the
        table (a thread) is archived or deleted, so there is no message to update."""
        table = self.table(channel_id)
        async with self._locked(table):
            if force and not moderator:
                raise Refused(Code.MODERATORS_ONLY)
            if not moderator:
                if table.opener != user_id:
                    raise Refused(Code.CLOSE_NOT_YOURS)
                # computer players don't count: the opener may close their practice table
                others = [s for s in table.humans() if s.user_id != user_id]
                if others:
                    raise Refused(Code.CLOSE_OTHERS_SEATED, count=len(others))
            playing = table.hand is not None and not table.hand.complete
            if playing and not force:
                if not table.closing:
                    table.closing = True
                    await self.store.save_table(self._table_row(table))
                event = TableEvent("closing", table.view(), hand_id=table.hand_id)
            else:
                event = await self._close_locked(table, cancel=playing, gone=gone)
        await self._emit(event)
        return event.kind == "closed"

    async def _close_locked(
        self, table: Table, cancel: bool = False, gone: bool = False
    ) -> TableEvent:
        """Close now (under the table lock): release every hold, free the seats, forget
        the table. ``cancel`` voids the hand in play in the same transaction."""
        hand_id = table.hand_id if cancel else None
        if hand_id is not None:
            await self.store.cancel_hand(hand_id, close_channel=table.channel_id)
        else:
            await self.store.close_table(table.channel_id)
        self.deadlines.disarm(table.channel_id)
        view = replace(  # what the table message shows from now on: no hand, no seats
            table.view(),
            closed=True,
            closing=False,
            seats=(),
            hand=None,
            hand_id=None,
            turn=0,
            deadline=None,
            to_act_user=None,
        )
        table.hand, table.hand_id, table.hand_users, table.deadline = None, None, {}, None
        table.seats, table.kicked, table.closing = [], set(), False
        if self.tables.get(table.channel_id) is table:
            del self.tables[table.channel_id]
        return TableEvent("closed", view, {"gone": gone}, hand_id=hand_id)

    def _refuse_if_closing(self, table: Table) -> None:
        if table.closing:
            raise Refused(Code.TABLE_CLOSING)

    async def kick(self, channel_id: int, user_id: int) -> bool:
        """Remove a seated player (the caller checked the moderator). True if they are
        unseated now; False if they are in the hand in play: from now on they make no
        choice (at each of their turns they fold, or check, stand pat or buy the cheaper
        card where folding is not allowed) and are unseated when it ends."""
        table = self.table(channel_id)
        async with self._locked(table):
            seat = table.seat_of(user_id)
            if seat is None:
                raise Refused(Code.KICK_NOT_SEATED)
            events: list[TableEvent] = []
            if table.in_hand(user_id):
                seat.leaving = True
                table.kicked.add(user_id)
                # the seat (leaving) and the table row (who is kicked): one transaction
                await self.store.save_table(self._table_row(table), seats=_seat_rows(table.seats))
                events.append(TableEvent("kicked", table.view(), _who(seat), hand_id=table.hand_id))
                events += await self._act_for_kicked(table)
                now = False
            else:
                table.unseat(seat)
                await self._save_seats(table)
                events.append(TableEvent("kicked", table.view(), _who(seat)))
                now = True
        for event in events:
            await self._emit(event)
        return now

    async def _act_for_kicked(self, table: Table) -> list[TableEvent]:
        """While a kicked player is to act, make their move for them at once."""
        events: list[TableEvent] = []
        while table.hand is not None and not table.hand.complete:
            move = table.hand.default_action()
            assert move is not None
            if table.hand_users.get(move.player) not in table.kicked:
                break
            events += await self._apply(table, move, timeout=False)
        return events

    # ----- a player's data (issue 9) -----------------------------------------

    def in_live_hand(self, guild_id: int, user_id: int) -> bool:
        """Is the user dealt into a hand still being played on this server?"""
        key = str(user_id)
        return any(
            t.guild_id == guild_id and t.hand is not None and key in t.hand_users
            for t in self.tables.values()
        )

    async def forget_player(self, guild_id: int, user_id: int) -> int:
        """Erase the player's account on this server and unseat them; return their
        anonymous id. Raises PlayerInHand while they are dealt into a running hand,
        UnknownAccount if nothing is stored. Holds the server's table locks (in
        channel order, so two calls cannot deadlock) so no hand starts meanwhile."""
        tables = sorted(
            (t for t in self.tables.values() if t.guild_id == guild_id),
            key=lambda t: t.channel_id,
        )
        async with contextlib.AsyncExitStack() as stack:
            for table in tables:
                await stack.enter_async_context(table.lock)
            if self.in_live_hand(guild_id, user_id):
                raise PlayerInHand(guild_id, user_id)
            anon = await self.store.erase_player(guild_id, user_id)  # seats rows go too
            views = []
            for table in tables:
                seat = table.seat_of(user_id)
                if seat is not None:
                    table.unseat(seat)  # the store stood the computer players up too
                    views.append(table.view())
        for view in views:
            await self._emit(TableEvent("left", view))  # erased: no name to show
        return anon

    # ----- helpers ------------------------------------------------------------

    def _current_hand(self, table: Table) -> Hand:
        if table.hand is None:
            raise Refused(Code.NO_HAND, variant=table.variant.id)
        return table.hand

    def _seated(self, table: Table, user_id: int) -> SeatState:
        seat = table.seat_of(user_id)
        if seat is None:
            raise Refused(Code.NOT_SEATED, variant=table.variant.id)
        return seat

    async def _save_seats(self, table: Table) -> None:
        await self.store.save_seats(table.channel_id, _seat_rows(table.seats))

    def _table_row(self, table: Table) -> TableRow:
        s = table.settings
        settings = {
            "seat_limit": s.seat_limit,
            "turn_timeout": s.turn_timeout,
            "auto_deal": s.auto_deal,
            **_controls_json(table),
        }
        return TableRow(
            table.channel_id,
            table.guild_id,
            table.variant.id,
            settings,
            table.button,
            table.deadline,
        )

    async def _emit(self, event: TableEvent) -> None:
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

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)


def _already(hand: Hand, key: str, turn: int | None) -> dict[str, str]:
    """For a stale click: the action this player already made at that turn, if any
    (a retry after a lost answer), so they hear that it was applied."""
    if turn is not None and 0 <= turn < len(hand.actions) and hand.actions[turn].player == key:
        return {"applied": hand.actions[turn].action}
    return {}


def _check_turn(table: Table, hand: Hand, key: str) -> None:
    """Refuse unless it is the turn of player ``key``."""
    decision = hand.decision()
    assert decision is not None
    if decision.player != key:
        raise Refused(
            Code.NOT_YOUR_TURN,
            waiting_for=table.hand_users[decision.player],
            name=table.view().name(decision.player),
        )


def _who(seat: SeatState) -> dict[str, object]:
    return {"user_id": seat.user_id, "name": seat.name}


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


@dataclass(frozen=True)
class PracticeReview:
    hand_id: int
    level: str  # the computer level compared with
    decisions: tuple[Review, ...]


def _strongest(table: Table) -> str | None:
    """The strongest computer level seated (None: not a practice table)."""
    levels = [s.bot for s in table.seats if s.bot]
    return max(levels, key=LEVELS.index) if levels else None


def _seat_rows(seats: Sequence[SeatState]) -> list[SeatRow]:
    return [
        SeatRow(s.seat, s.user_id, s.name, s.sitting_out, s.leaving, s.timeouts, s.bot, s.stack)
        for s in seats
    ]


def _seats(rows: Sequence[SeatRow]) -> list[SeatState]:
    return [
        SeatState(
            s.seat,
            s.user_id,
            s.display_name,
            s.sitting_out,
            s.leaving,
            s.timeouts_in_row,
            s.bot,
            s.practice_stack,
        )
        for s in rows
    ]


def _rng_state(rng: random.Random) -> object:
    """The rng's state to put back after a refusal (None: SystemRandom has none)."""
    try:
        return rng.getstate()
    except NotImplementedError:
        return None


def _set_rng_state(rng: random.Random, state: object) -> None:
    if state is not None:
        rng.setstate(state)  # type: ignore[arg-type]


def _controls_json(table: Table) -> dict[str, Any]:
    """The server-control state kept with a table's settings (opener, closing, kicked)."""
    return {"opener": table.opener, "closing": table.closing, "kicked": sorted(table.kicked)}


def _restore_controls(table: Table, stored: dict[str, Any]) -> None:
    table.opener = stored.get("opener")
    table.closing = bool(stored.get("closing", False))
    table.kicked = set(stored.get("kicked", ()))
