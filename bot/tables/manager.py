"""The table manager: the facade of the table service, one table per channel.

Benchmarks, tools, cogs and the presenter drive the tables through this class
only: its methods pass to the service's parts, each one job:
- ``steps.py``: the step pipeline every change goes through (lock, one
  transaction, reload on failure, the post-step hook);
- ``seating.py``: open, join, leave, sit out, computer players' seats;
- ``play.py``: deal, act, settle;
- ``recovery.py``: restore at start-up, take over another process's guilds;
- ``timers.py``: turn deadlines, the automatic deal, idle tables;
- ``moderation.py``: close, kick;  ``privacy.py``: forget a player;
- ``mixed.py``: mixed tables (their rotation, the dealer's choice);
- ``bot/practice``: the computer players' driver, hints and reviews.
The queries below are what the layers above may read; none reaches into a table.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import replace

from bot.engine import SeatView, seat_view
from bot.opponents import Advice, Observation, observe
from bot.practice import coach
from bot.practice.coach import PracticeReview
from bot.storage.errors import RefillRefused, UnknownAccount
from bot.storage.rows import Account
from bot.storage.shards import Shards
from bot.storage.store import Store

from .deadlines import RETRY_DELAYS
from .hooks import Hooks
from .mixed import Mixing
from .models import ActionResult, Code, Outcome, Refused, SeatState, TableEvent, TableView
from .moderation import Moderation
from .outbox import Outbox
from .play import SMALLEST_MINIMUM, Play
from .privacy import Privacy
from .recovery import Recovery
from .rotation import Rotation
from .seating import Seating
from .steps import Listener, Steps
from .table import Table
from .timers import IdleAfter, Timers

__all__ = ["TableManager"]

REFILL_CODES = {
    "in_hand": Code.REFILL_IN_HAND,
    "not_low": Code.REFILL_NOT_LOW,
    "at_grant": Code.REFILL_AT_GRANT,
}


class TableManager:
    def __init__(
        self,
        store: Store,
        *,
        starting_grant: int = 200,
        turn_timeout: float = 60.0,
        next_hand_delay: float = 0.0,
        clock: Callable[[], float] = time.time,
        rng: random.Random | None = None,
        shards: Shards | None = None,
        claim_retry: float = 2.0,
        retry_delays: Sequence[float] = RETRY_DELAYS,
        max_tables: int | None = None,
        idle_after: IdleAfter | None = None,
        hooks: Hooks | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.rng = rng or secrets.SystemRandom()  # tests inject a seeded Random
        # The calls out to the parts built on this manager: the computer players' driver
        # and the tournament drivers answer them (``bot.tables.hooks``).
        self.hooks = hooks or Hooks()
        self.steps = Steps(
            store,
            self._on_deadline,
            hand_over=self._hand_over,
            bot_turn=self.hooks.bot_turn,
            clock=clock,
            rng=self.rng,
            retry_delays=retry_delays,
        )
        self.play = Play(self.steps, starting_grant=starting_grant, tournament=self.hooks)
        self.recovery = Recovery(self.steps, self.play, shards=shards, claim_retry=claim_retry)
        self.seating = Seating(
            self.steps,
            self.play,
            turn_timeout=turn_timeout,
            next_hand_delay=next_hand_delay,
            claim=self.recovery.claim,
            max_tables=max_tables,
        )
        self.moderation = Moderation(self.steps, self.seating, self.play)
        self.timers = Timers(
            self.steps,
            self.play,
            self.moderation,
            next_hand_delay=next_hand_delay,
            idle_after=idle_after,
            profiles=self.hooks.profiles,
        )
        self.privacy = Privacy(self.steps)
        # after a hand: a dealer's choice first, then the automatic deal
        self.mixing = Mixing(self.steps, self.seating, then=self.timers.hand_over)

    @property
    def outbox(self) -> Outbox:
        """The tables' events, in order, for the presenter (``bot.ui.presenter``)."""
        return self.steps.outbox

    # ----- life cycle -----------------------------------------------------

    async def start(self, idle_sweep: float | None = None) -> int:
        """Restore open tables and continue every unfinished hand; return how many.
        ``idle_sweep``: seconds between looks for idle tables to close (None: never)."""
        restored = await self.recovery.start()
        self.mixing.open_windows()  # a dealer's choice awaited: its time starts again
        if idle_sweep is not None and self.timers.idle_after is not None:
            self.steps.spawn(self.timers.sweep(idle_sweep), "the idle-table sweep")
        return restored

    async def close(self) -> None:
        """Stop timers and pending deals; the database keeps everything needed to carry on."""
        await self.steps.close()

    def subscribe(self, listener: Listener) -> None:
        self.steps.listeners.append(listener)

    async def open_tournament_table(
        self,
        guild_id: int,
        channel_id: int,
        variant: str,
        tournament_id: int,
        seats: list[SeatState],
        *,
        button: int | None = None,
        turn_timeout: float | None = None,
        rotation: Rotation | None = None,
        table_no: int | None = None,
    ) -> TableView:
        """``table_no``: the table's number in a multi-table tournament."""
        return await self.seating.open_tournament_table(
            guild_id,
            channel_id,
            variant,
            tournament_id,
            seats,
            button,
            turn_timeout,
            rotation,
            table_no,
        )

    async def reseat_tournament(self, channel_id: int, seats: list[SeatState]) -> TableView:
        """Between hands, seat a tournament table's players as its tournament says (moves
        in and out, with their stacks): one step; refused while a hand is in play."""
        return await self.seating.reseat_tournament(channel_id, seats)

    def tournament_tables(self, tournament_id: int) -> dict[int, int]:
        """A multi-table tournament's open tables here: table number -> channel."""
        return {
            t.tournament_table: c
            for c, t in self.steps.tables.items()
            if t.tournament_id == tournament_id and t.tournament_table is not None
        }

    def _hand_over(self, table: Table) -> None:
        self.mixing.hand_over(table)

    def guilds_lost(self, guilds: frozenset[int]) -> None:
        """Stop serving guilds another process took while the database session was lost
        (the store's ``on_guilds_lost``; see ``Recovery.lost``)."""
        self.recovery.lost(guilds)

    def wake_bots(self) -> None:
        """Run the hook's wake for every table (a driver attached to a running manager)."""
        for table in list(self.steps.tables.values()):
            self.steps.after(table, [])

    async def _on_deadline(self, channel_id: int, hand_id: int, turn: int) -> None:
        await self.timers.on_deadline(channel_id, hand_id, turn)

    # ----- queries ----------------------------------------------------------

    def table(self, channel_id: int) -> Table:
        return self.steps.table(channel_id)

    def has_table(self, channel_id: int) -> bool:
        return channel_id in self.steps.tables

    def channels(self, guild_id: int | None = None) -> list[int]:
        """The channels with an open table (of one server, or all)."""
        return [
            c for c, t in self.steps.tables.items() if guild_id is None or t.guild_id == guild_id
        ]

    def view(self, channel_id: int) -> TableView:
        return self._view(self.table(channel_id))

    def seats_of(self, channel_id: int) -> tuple[tuple[SeatState, ...], bool] | None:
        """A table's seats (copies) and whether a hand is in play; None: no table. Cheaper
        than its view, which builds the public hand: the multi-table driver reads every
        table's after each counted hand (167 tables at 1,000 entrants)."""
        table = self.steps.tables.get(channel_id)
        if table is None:
            return None
        return tuple(replace(s) for s in table.seats), table.hand is not None

    def find_view(self, channel_id: int) -> TableView | None:
        """The table's view, or None if the channel has no table."""
        table = self.steps.tables.get(channel_id)
        return self._view(table) if table else None

    def _view(self, table: Table) -> TableView:
        """The table's view; a tournament's table also shows its level now (and where
        the level decides a mixed tournament's game, between hands it is that game)."""
        view = table.view()
        if table.tournament_id is None:
            return view
        level = self.hooks.level(table.tournament_id)
        if level is not None and level.game is not None and table.hand is None:
            return replace(view, level=level, variant=level.game)
        return replace(view, level=level)

    def progress(self, channel_id: int) -> tuple[int | None, int]:
        """Where the table's hand stands (hand id, actions applied; -1: no hand in play):
        it moves exactly when an action is stored."""
        table = self.steps.tables.get(channel_id)
        if table is None or table.hand is None:
            return (table.hand_id if table else None), -1
        return table.hand_id, len(table.hand.actions)

    def hand_log(self, channel_id: int) -> list[TableEvent]:
        """The events of the hand in play, rebuilt from its record (after a restart)."""
        table = self.steps.tables.get(channel_id)
        return table.hand_events() if table else []

    def my_hand(self, channel_id: int, user_id: int) -> SeatView | None:
        """The caller's private view of the current hand (None if not dealt in)."""
        table = self.table(channel_id)
        key = str(user_id)
        if table.hand is None or key not in table.hand_users:
            return None
        return seat_view(table.hand, key)

    def observation(
        self, channel_id: int, user_id: int, hand_id: int, turn: int
    ) -> Observation | None:
        """What a computer player sees at its turn (None: that turn has passed)."""
        table = self.steps.tables.get(channel_id)
        hand = table.hand if table else None
        if table is None or hand is None or table.hand_id != hand_id or len(hand.actions) != turn:
            return None
        seat = table.to_act()
        if seat is None or seat.user_id != user_id:
            return None
        return observe(hand, str(user_id))

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
        return await self.seating.open_table(
            guild_id, channel_id, variant, seat_limit, turn_timeout, auto_deal, opener
        )

    async def open_mixed(
        self,
        guild_id: int,
        channel_id: int,
        games: Sequence[str],
        rotation: str,
        every: int | None = None,
        seat_limit: int | None = None,
        turn_timeout: float | None = None,
        auto_deal: bool | None = None,
        opener: int | None = None,
    ) -> TableView:
        """Open a mixed table rotating ``games`` (``rotation``: orbit, hands or choice;
        ``every``: hands per game of a hands rotation)."""
        return await self.mixing.open_mixed(
            guild_id,
            channel_id,
            games,
            rotation,
            every,
            seat_limit,
            turn_timeout,
            auto_deal,
            opener,
        )

    async def choose_game(self, channel_id: int, user_id: int, game: str) -> TableView:
        """Dealer's choice: the chooser picks the next block's game."""
        return await self.mixing.choose(channel_id, user_id, game)

    async def join(self, channel_id: int, user_id: int, name: str) -> Outcome:
        return await self.seating.join(channel_id, user_id, name)

    async def leave(self, channel_id: int, user_id: int) -> Outcome:
        return await self.seating.leave(channel_id, user_id)

    async def sit_out(self, channel_id: int, user_id: int) -> Outcome:
        """Toggle sitting out: a player sitting out is not dealt into the next hands."""
        return await self.seating.sit_out(channel_id, user_id)

    # ----- computer players (practice tables) -------------------------------

    async def add_bot(self, channel_id: int, user_id: int, level: str, name: str) -> Outcome:
        return await self.seating.add_bot(channel_id, user_id, level, name)

    async def remove_bot(self, channel_id: int, user_id: int) -> Outcome:
        return await self.seating.remove_bot(channel_id, user_id)

    async def hint(self, channel_id: int, user_id: int) -> Advice:
        """What the table's strongest computer level would do at the caller's decision
        now (computed off the event loop)."""
        return await coach.hint(self.table(channel_id), user_id)

    async def review_last(self, channel_id: int, user_id: int) -> PracticeReview | None:
        return await coach.review_last(self.store, self.table(channel_id), user_id)

    # ----- playing ----------------------------------------------------------

    async def deal(self, channel_id: int, user_id: int | None = None) -> TableView:
        """Start a hand with every seated player who can cover the table minimum."""
        return await self.play.deal_at(channel_id, user_id)

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
        return await self.play.act(
            channel_id, user_id, action, cards=cards, source=source, turn=turn, hand_id=hand_id
        )

    async def expire(
        self, channel_id: int, hand_id: int | None = None, turn: int | None = None
    ) -> bool:
        """Time out the player to act (a computer player: make its move), if the turn is
        still the one given; settle a hand whose settlement failed before."""
        return await self.timers.expire(channel_id, hand_id, turn)

    async def close_idle(self) -> int:
        """Close the tables idle for longer than their server allows; return how many."""
        return await self.timers.close_idle()

    # ----- the ledger: an account with its starting grant, a refill -------------

    async def balance(self, guild_id: int, user_id: int, name: str) -> Account:
        return await self.store.ledger.ensure_account(
            guild_id, user_id, name, self.play.starting_grant
        )

    async def refill(self, guild_id: int, user_id: int, name: str) -> int:
        """Top a low balance up to the starting grant. Someone with no account here (new,
        or forgotten) gets the grant at their first game, so is refused as not low, and
        nothing is written: a refused refill once created their account (``name`` is kept
        for callers; the account is made where a game needs it)."""
        try:
            return await self.store.ledger.refill(
                guild_id, user_id, self.play.starting_grant, SMALLEST_MINIMUM
            )
        except UnknownAccount:
            raise Refused(
                Code.REFILL_NOT_LOW, balance=self.play.starting_grant, minimum=SMALLEST_MINIMUM
            ) from None
        except RefillRefused as exc:
            raise Refused(REFILL_CODES[exc.code], **exc.params) from None

    # ----- closing and moderation -----------------------------------------------

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
        play ends (see ``Moderation.close_table``)."""
        return await self.moderation.close_table(
            channel_id, user_id, moderator=moderator, force=force, gone=gone
        )

    async def close_gone(self, channel_ids: Sequence[int]) -> int:
        """Close as gone the tables of these channels (deleted, archived, or in a server
        that removed the bot): any hand in play is cancelled. Return how many closed."""
        closed = 0
        for channel_id in channel_ids:
            if channel_id not in self.steps.tables:
                continue
            try:
                await self.close_table(channel_id, 0, moderator=True, force=True, gone=True)
                closed += 1
            except Refused:  # closed meanwhile
                continue
        return closed

    async def kick(self, channel_id: int, user_id: int) -> bool:
        return await self.moderation.kick(channel_id, user_id)

    # ----- a player's data --------------------------------------------------------

    def in_live_hand(self, guild_id: int, user_id: int) -> bool:
        """Is the user dealt into a hand still being played on this server?"""
        return self.privacy.in_live_hand(guild_id, user_id)

    async def forget_player(self, guild_id: int, user_id: int) -> int:
        return await self.privacy.forget_player(guild_id, user_id)
