"""Playing a hand: deal, act, settle, and closing a table once its hand is over.

Each function runs inside a step (``Steps.step``) of its table and returns the
events it caused; the step's hook arms the deadline, wakes a computer player and
shows them. One call, one transaction:
- deal: the hand, the holds, the new button and the first deadline;
- action or timeout: the action, any reshuffle it drew, the next deadline and the
  seat rows it changes (timeouts in a row, sitting out after two);
- settle: the ledger, the released holds, the hand's /stats and the seats after the
  hand (leavers gone, sleepers sitting out); a stop between a hand's last action and
  its settlement is settled at start-up or by the dispatcher.
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from dataclasses import replace

from bot.engine import (
    VARIANTS,
    Action,
    ActionKind,
    CardError,
    Hand,
    IllegalAction,
    parse_cards,
    public_view,
    seat_view,
)
from bot.engine.cards import FULL_DECK, format_cards
from bot.history.hand_stats import hand_stats
from bot.storage.errors import InsufficientChips, StorageError
from bot.storage.rows import KEEP, SeatRow

from .models import (
    ActionResult,
    Code,
    EventKind,
    Refused,
    SeatState,
    Skip,
    SkipReason,
    TableEvent,
    TableView,
)
from .steps import Steps
from .table import Table, describe_action, rotated_settings, seat_rows
from .tournament_mode import TournamentHooks

log = logging.getLogger(__name__)
SMALLEST_MINIMUM = min(v.table_minimum for v in VARIANTS.values())


class Play:
    def __init__(
        self, steps: Steps, *, starting_grant: int, tournament: TournamentHooks | None = None
    ) -> None:
        self.steps = steps
        self.store = steps.store
        self.starting_grant = starting_grant
        self.tournament = tournament  # tournament tables' chips and stakes

    # ----- dealing ----------------------------------------------------------

    async def deal_at(self, channel_id: int, user_id: int | None = None) -> TableView:
        """Start a hand with every seated player who can cover the table minimum."""
        table = self.steps.table(channel_id)
        async with self.steps.step(table) as step:
            if user_id is not None:
                table.seated(user_id)
            event = await self.deal(table)
            step.emit(event)
        return event.view

    async def deal(self, table: Table) -> TableEvent:
        if table.closing:
            raise Refused(Code.TABLE_CLOSING)
        if table.hand is not None:
            raise Refused(Code.HAND_RUNNING)
        players, skipped = await self._dealable(table)
        if len(players) < 2:
            raise Refused(Code.TOO_FEW_PLAYERS, skipped=tuple(skipped))
        # computer players never play among themselves, but in a practice Sit & Go
        # whose people are out: they play it to its winner
        if table.tournament_id is None and all(s.bot for s, _ in players):
            raise Refused(Code.NO_PERSON_DEALT, skipped=tuple(skipped))
        rotation = table.rotation_for_deal(len(players), self.steps.clock())  # mixed tables
        game = VARIANTS[rotation.games[rotation.current]] if rotation else table.variant
        dealer = table.next_dealer([s for s, _ in players])
        rng = self.steps.rng
        rng_state = _rng_state(rng)
        deck = list(FULL_DECK)
        rng.shuffle(deck)
        seats = [(str(s.user_id), available) for s, available in players]
        dealer_index = [s.seat for s, _ in players].index(dealer)
        if table.tournament_id is None:
            hand = Hand.start(game.id, seats, dealer_index, deck, rng=rng)
        else:
            hand = self._tournament_hand(table, game.id, seats, dealer_index, deck, rng, rng_state)
            game = VARIANTS[hand.header.variant]  # a mixed tournament's level may decide it
        minimum = table.minimum
        users = [s.user_id for s, _ in players]
        deadline = self.steps.clock() + table.settings.turn_timeout
        practice = table.practice
        try:  # the hand, its holds, the new button and the deadline: one transaction
            hand_id = await self.store.hands.start_hand(
                table.guild_id,
                table.channel_id,
                game.id,
                hand.header.header_json(),
                {u: 0 if practice else minimum for u in users},
                users,
                {s.user_id: s.name for s, _ in players},
                button=dealer,
                deadline=deadline,
                practice=practice,
                # practice stacks refilled for this hand (the ledger is never touched)
                seats=seat_rows(table.seats) if practice else None,
                # a mixed table's rotation moves with the deal
                settings=rotated_settings(table, rotation) if rotation else KEEP,
                generation=table.generation,
            )
        except InsufficientChips as exc:  # a hand elsewhere took the chips meanwhile
            _set_rng_state(rng, rng_state)  # a refusal changes nothing, the rng neither
            short = table.seat_of(exc.user_id)
            raise Refused(
                Code.CANNOT_COVER_MINIMUM,
                user_id=exc.user_id,
                name=short.name if short else None,
                available=exc.available,
                minimum=minimum,
            ) from None
        table.hand, table.hand_id, table.button = hand, hand_id, dealer
        table.variant, table.rotation = game, rotation or table.rotation
        table.hand_users = {str(u): u for u in users}
        table.hand_names = {str(s.user_id): s.name for s, _ in players}
        table.deadline = deadline
        dealt = {"players": tuple(s.name for s, _ in players), "skipped": tuple(skipped)}
        return TableEvent(
            EventKind.DEALT, table.view(), dealt, cards_changed=tuple(users), hand_id=hand_id
        )

    def _tournament_hand(
        self,
        table: Table,
        game: str,
        seats: list[tuple[str, int]],
        dealer: int,
        deck: list[int],
        rng: random.Random,
        rng_state: object,
    ) -> Hand:
        """A tournament table's hand, at its level's stakes (``TournamentHooks.header``)."""
        try:
            if self.tournament is None or table.tournament_id is None:
                raise Refused(Code.TABLE_BUSY)  # its tournament is not restored yet
            header = self.tournament.header(table.tournament_id, game, seats, dealer, deck)
        except Refused:
            _set_rng_state(rng, rng_state)  # a refusal changes nothing, the rng neither
            raise
        return Hand(header, rng)

    async def _dealable(self, table: Table) -> tuple[list[tuple[SeatState, int]], list[Skip]]:
        minimum = table.minimum
        players: list[tuple[SeatState, int]] = []
        skipped: list[Skip] = []
        for seat in table.seats:
            if table.tournament_id is not None:  # everyone with chips, away or not
                if seat.stack:
                    players.append((seat, seat.stack))
                continue
            if seat.sitting_out:
                skipped.append(Skip(seat.user_id, seat.name, SkipReason.SITTING_OUT))
                continue
            if table.practice:
                # A practice stack, refilled between hands when it cannot cover the minimum.
                if seat.stack is None or seat.stack < minimum:
                    seat.stack = max(self.starting_grant, minimum)
                players.append((seat, seat.stack))
                continue
            account = await self.store.ledger.balance(table.guild_id, seat.user_id)
            available = account.available if account else 0
            if available < minimum:
                skipped.append(Skip(seat.user_id, seat.name, SkipReason.SHORT, available, minimum))
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
        table = self.steps.table(channel_id)
        async with self.steps.step(table) as step:
            if table.hand is None and (hand_id is not None or turn is not None):
                raise Refused(Code.STALE_BUTTON)  # a button of a hand that is over
            hand = table.hand
            if hand is None:
                raise Refused(Code.NO_HAND, variant=table.variant.id)
            key = str(user_id)
            if key not in table.hand_users:
                table.seated(user_id)  # an outsider is told how to join
                raise Refused(Code.NOT_DEALT_IN)
            if (hand_id is not None and hand_id != table.hand_id) or (
                turn is not None and turn != len(hand.actions)
            ):
                same_hand = hand_id is None or hand_id == table.hand_id
                raise Refused(Code.STALE_BUTTON, **(_already(hand, key, turn) if same_hand else {}))
            _check_turn(table, hand, key)
            move = self.build_action(key, action, cards, source)
            events = await self.apply(table, move, timeout=False)
            events += await self.act_for_kicked(table)
            step.emit(*events)
            after = events[0].view.hand  # the hand right after this action, even if it ended
            mine = seat_view(hand, key, public=after)
        return ActionResult(describe_action(move, table.names(), hand), events[-1].view, mine)

    def build_action(
        self, key: str, action: str, cards: str | Sequence[str] | None, source: str | None
    ) -> Action:
        if action == ActionKind.DISCARD:
            try:
                parsed = parse_cards(cards or [])
            except CardError as exc:
                raise Refused(Code.BAD_CARDS, token=exc.token) from None
            return Action(key, ActionKind.DISCARD, cards=tuple(parsed))
        if action == ActionKind.BUY:
            return Action(key, ActionKind.BUY, source=source)
        return Action(key, action)

    async def apply(self, table: Table, move: Action, timeout: bool) -> list[TableEvent]:
        """Apply, persist, then settle a finished hand (and close a closing table)."""
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
        deadline = None if hand.complete else self.steps.clock() + table.settings.turn_timeout
        seats = self._after_turn(table, table.hand_users[move.player], timeout)
        drawn = range(reshuffles, len(hand.reshuffles))
        await self.store.hands.append_action(
            table.hand_id,
            index,
            move.to_json(),
            deadline,
            reshuffles=[(n, format_cards(hand.reshuffles[n])) for n in drawn],
            seats=seats,
        )
        table.deadline = deadline
        kind = EventKind.TIMEOUT if timeout else EventKind.ACTION
        public = describe_action(move, table.names(), hand, timeout=timeout)
        changed = (table.hand_users[move.player],) if move.action == ActionKind.DISCARD else ()
        events = [
            TableEvent(
                kind, table.view(), move=public, cards_changed=changed, hand_id=table.hand_id
            )
        ]
        if hand.complete:
            events += await self.settle(table, retry_later=True)
        return events

    async def act_for_kicked(self, table: Table) -> list[TableEvent]:
        """While a kicked player is to act, make their move for them at once."""
        events: list[TableEvent] = []
        while table.hand is not None and not table.hand.complete:
            move = table.hand.default_action()
            assert move is not None
            if table.hand_users.get(move.player) not in table.kicked:
                break
            events += await self.apply(table, move, timeout=False)
        return events

    def _after_turn(self, table: Table, user_id: int, timeout: bool) -> list[SeatRow] | None:
        """Count the actor's timeouts in a row (two sit them out); the seat rows to store
        with the action if that changed anything, else None."""
        seat = table.seat_of(user_id)
        if seat is None or (not timeout and seat.timeouts == 0):
            return None
        if timeout:
            seat.timeouts += 1
            seat.sitting_out = seat.sitting_out or seat.asleep
        else:
            seat.timeouts = 0
        return seat_rows(table.seats)

    # ----- settling ---------------------------------------------------------

    async def settle(self, table: Table, *, retry_later: bool = False) -> list[TableEvent]:
        """Settle the complete hand, then close the table if it was closing. With
        ``retry_later`` a failed settlement is left to the dispatcher (the hand's last
        action is stored and answered); else the failure is the step's."""
        try:
            events = [await self.finish(table)]
        except Exception:
            if not retry_later:
                raise
            log.exception("hand %s not settled; trying again", table.hand_id)
            return []
        if table.closing:
            events.append(await self.close_now(table))
        return events

    async def finish(self, table: Table) -> TableEvent:
        """Settle the finished hand with the seats after it (one transaction)."""
        hand, hand_id = table.hand, table.hand_id
        assert hand is not None and hand_id is not None
        net = {table.hand_users[p]: chips for p, chips in hand.net().items()}
        practice = table.practice
        stacks = hand.stacks() if practice else {}
        level = table.strongest()
        staying = [
            replace(
                s,
                sitting_out=s.sitting_out or s.asleep,  # sleepers sit out
                stack=stacks.get(str(s.user_id), s.stack),  # practice chips carry on
            )
            for s in table.seats
            if not s.leaving and not (table.tournament_id and stacks.get(str(s.user_id)) == 0)
        ]
        if (
            practice
            and table.tournament_id is None
            and not any(not s.bot and not s.sitting_out for s in staying)
        ):
            # no person plays on: the computer players stand up (they never play alone)
            staying = [s for s in staying if not s.bot]
        rows = seat_rows(staying) if staying != table.seats else None
        if table.tournament_id is not None:
            # counted first: a retry of the settlement counts it again, which is a no-op
            if self.tournament is None:  # never settle a hand its tournament did not count
                raise StorageError(f"hand #{hand_id}: its tournament's driver is not running")
            users = table.hand_users
            await self.tournament.settled(
                table.tournament_id,
                hand_id,
                {users[s.player]: s.stack for s in hand.header.seats},
                {users[p]: chips for p, chips in stacks.items()},
                actions=len(hand.actions),
                button=table.button,
            )
        # /stats from the hand played here, written in the settlement's transaction; the
        # computer players (ids below 1) have none
        added = {table.hand_users[p]: s for p, s in hand_stats(hand).items()}
        stats = {user: s for user, s in added.items() if user > 0}
        if not await self.store.hands.finish_hand(hand_id, net, seats=rows, stats=stats):
            raise StorageError(f"hand #{hand_id} was already settled")  # reload: take the DB's
        result = public_view(hand)
        names = table.names()  # before leavers go: the result still names them
        table.hand, table.hand_id, table.hand_users, table.hand_names = None, None, {}, {}
        table.seats, table.deadline = staying, None
        table.show_next_game()
        table.kicked.clear()  # they were leaving: their seats went
        table.last_practice = (hand_id, level) if practice and level else None
        view = table.view()
        view = replace(view, names={**view.names, **names})
        return TableEvent(EventKind.FINISHED, view, result=result, hand_id=hand_id)

    async def close_now(self, table: Table, cancel: bool = False, gone: bool = False) -> TableEvent:
        """Close now: release every hold, free the seats, forget the table. ``cancel``
        voids the hand in play in the same transaction (a hand is never left live)."""
        hand_id = table.hand_id if cancel else None
        if table.hand is not None and not cancel:
            raise AssertionError("a table with a live hand is settled or cancelled first")
        if hand_id is not None:
            await self.store.hands.cancel_hand(hand_id, close_channel=table.channel_id)
        else:
            await self.store.tables.close_table(table.channel_id, generation=table.generation)
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
        if self.steps.tables.get(table.channel_id) is table:
            del self.steps.tables[table.channel_id]
        return TableEvent(EventKind.CLOSED, view, {"gone": gone}, hand_id=hand_id)


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


def _rng_state(rng: random.Random) -> object:
    """The rng's state to put back after a refusal (None: SystemRandom has none)."""
    try:
        return rng.getstate()
    except NotImplementedError:
        return None


def _set_rng_state(rng: random.Random, state: object) -> None:
    if state is not None:
        rng.setstate(state)  # type: ignore[arg-type]
