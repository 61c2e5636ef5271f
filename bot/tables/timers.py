"""What happens with time: turn deadlines, the automatic deal, and closing idle tables.

The dispatcher (``deadlines.py``) fires ``expire`` when a turn's deadline is due. A
person who is to act is timed out (two in a row sit them out); a computer player
whose move never came (the practice driver down, or its move failing) makes it now;
a hand that is over but not settled is settled. The automatic deal waits its delay
after a hand ends, then deals only if the same table still wants it. A table with no
step for its server's idle time is closed as if by a moderator.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping

from bot.opponents import Profile, Strategy, observe

from . import supervise
from .models import Code, Refused
from .moderation import Moderation
from .play import Play
from .steps import Steps
from .table import Table

log = logging.getLogger(__name__)
IdleAfter = Callable[[int], Awaitable[float | None]]  # guild -> seconds (None: never)
Profiles = Callable[[int], Mapping[str, Profile]]  # channel -> what each player has shown


def _none_seen(channel_id: int) -> Mapping[str, Profile]:
    return {}


class Timers:
    def __init__(
        self,
        steps: Steps,
        play: Play,
        moderation: Moderation,
        *,
        next_hand_delay: float,
        idle_after: IdleAfter | None = None,
        profiles: Profiles = _none_seen,
    ) -> None:
        """``profiles``: what each player at a table has shown in earlier hands (the
        practice driver keeps it), read by a computer player's move its deadline makes."""
        self.steps = steps
        self.play = play
        self.moderation = moderation
        self.next_hand_delay = next_hand_delay
        self.idle_after = idle_after
        self.bot_rng = secrets.SystemRandom()  # a computer player's move made by its deadline
        self.profiles = profiles  # … reading what the practice driver has seen

    # ----- turn deadlines -----------------------------------------------------

    async def on_deadline(self, channel_id: int, hand_id: int, turn: int) -> None:
        """The dispatcher's firing; raises on failure, and the dispatcher tries again.
        A table closed before or while the firing waited has nothing left to time out."""
        try:
            await self.expire(channel_id, hand_id, turn)
        except Refused as exc:
            if exc.code is not Code.NO_TABLE:
                raise

    async def expire(
        self, channel_id: int, hand_id: int | None = None, turn: int | None = None
    ) -> bool:
        """Time out the player to act (if the turn is still the one given), or make a
        computer player's move; settle a hand whose settlement failed before."""
        table = self.steps.tables.get(channel_id)
        if table is None:
            raise Refused(Code.NO_TABLE)
        async with self.steps.step(table) as step:
            hand = table.hand
            if hand is None:
                return False
            if (hand_id is not None and hand_id != table.hand_id) or (
                turn is not None and turn != len(hand.actions)
            ):
                return False
            if hand.complete:
                step.emit(*await self.play.settle(table))
                return True
            seat = table.to_act()
            if seat is not None and seat.bot is not None:
                key = str(seat.user_id)
                # Now, under the lock, with what the table's earlier hands showed of each
                # player, as the practice driver would decide it; decided off the loop.
                seen = observe(hand, key, self.profiles(channel_id))
                chosen = await asyncio.to_thread(Strategy(seat.bot, self.bot_rng).decide, seen)
                step.emit(*await self.play.apply(table, chosen, timeout=False))
            else:
                move = hand.default_action()
                assert move is not None
                step.emit(*await self.play.apply(table, move, timeout=True))
            step.emit(*await self.play.act_for_kicked(table))
        return True

    # ----- the automatic deal -------------------------------------------------

    def hand_over(self, table: Table) -> None:
        """A step finished a hand: deal the next one after the delay, if the table wants it."""
        if table.settings.auto_deal and self.next_hand_delay > 0:  # 0 turns auto-deal off
            self.steps.spawn(self._auto_deal(table), f"automatic deal at {table.channel_id}")

    async def _auto_deal(self, table: Table) -> None:
        await asyncio.sleep(self.next_hand_delay)
        # the same table object: one closed and opened again meanwhile is another
        if self.steps.tables.get(table.channel_id) is not table or not table.settings.auto_deal:
            return
        try:
            async with self.steps.step(table) as step:
                if table.hand is not None:
                    return
                step.emit(await self.play.deal(table))
        except Refused as exc:
            log.info("no automatic deal at %s: %s", table.channel_id, exc)

    # ----- idle tables --------------------------------------------------------

    async def close_idle(self) -> int:
        """Close every table with no hand in play and no step for its server's idle
        time; return how many closed."""
        if self.idle_after is None:
            return 0
        now = self.steps.clock()
        closed = 0
        for table in list(self.steps.tables.values()):
            if table.hand is not None:
                continue
            try:  # one table's failure (its server's settings unread) spares the others
                idle = await self.idle_after(table.guild_id)
                if idle is None or now - table.last_step < idle:
                    continue
                if await self.moderation.close_table(
                    table.channel_id, 0, moderator=True, idle=True
                ):
                    closed += 1
            except Refused:
                continue  # closed meanwhile
            except Exception:
                log.exception("idle table %s not closed; trying later", table.channel_id)
        return closed

    async def sweep(self, every: float) -> None:
        """Close idle tables every ``every`` seconds, for ever (a task of the manager);
        a pass that fails is logged and the next one comes after a back-off."""

        async def one_pass() -> None:
            await self.close_idle()

        await supervise.forever("the idle-table sweep", one_pass, every=every)
