"""Recovery: restore the tables at start-up, and take over the guilds another process held.

Only the tables of guilds in this process's shards, and of those only the guilds it
can claim in the database; guilds another process still holds are retried every
``claim_retry`` seconds and taken over once their lock lapses. Each restored table
goes through one step like any change, so its hook arms the deadline, wakes the
computer player who is to act and shows whatever the step changed; in that step a hand
stopped between its last action and its settlement is settled, a kicked player who
is to act is acted for, and a table that was closing closes.
"""

from __future__ import annotations

import logging

from bot.storage.rows import TableRow
from bot.storage.shards import Shards

from . import supervise
from .play import Play
from .steps import Steps
from .table import Table, table_of

log = logging.getLogger(__name__)


class Recovery:
    def __init__(
        self, steps: Steps, play: Play, *, shards: Shards | None, claim_retry: float
    ) -> None:
        self.steps = steps
        self.store = steps.store
        self.play = play
        self.shards = shards  # None: this process runs every shard
        self.claim_retry = claim_retry
        self.waiting: set[int] = set()  # guilds of ours that another process still holds

    async def start(self) -> int:
        """Restore open tables and continue every unfinished hand; return how many."""
        rows = [r for r in await self.store.tables.load_tables() if self.in_my_shards(r.guild_id)]
        guilds = sorted({r.guild_id for r in rows})
        claimed = {g for g in guilds if await self.store.ownership.claim_guild(g)}
        self.waiting = set(guilds) - claimed
        if self.waiting:
            log.warning("%d guilds are held by another process; retrying", len(self.waiting))
            self.steps.spawn(self._claim_later(), "taking over held guilds")
        everything = self.shards is None and not self.waiting
        return await self.restore(
            [r for r in rows if r.guild_id in claimed], None if everything else claimed
        )

    async def claim(self, guild_id: int) -> bool:
        """May this process serve the guild's tables (claiming it if nobody does)?"""
        return (
            guild_id not in self.waiting
            and self.in_my_shards(guild_id)
            and await self.store.ownership.claim_guild(guild_id)
        )

    def in_my_shards(self, guild_id: int) -> bool:
        return self.shards is None or self.shards.owns(guild_id)

    def lost(self, guilds: frozenset[int]) -> None:
        """Stop serving guilds another process claimed while our database session was lost
        (its writes there are refused already): drop their tables from memory, disarm their
        timers, and take them back as take-overs do once that process lets them go."""
        for channel_id, table in list(self.steps.tables.items()):
            if table.guild_id in guilds:
                self.steps.deadlines.disarm(channel_id)
                del self.steps.tables[channel_id]
        log.warning("lost %d guilds to another process; serving them no more", len(guilds))
        retrying = bool(self.waiting)
        self.waiting |= set(guilds)
        if not retrying:
            self.steps.spawn(self._claim_later(), "taking over held guilds")

    async def _claim_later(self) -> None:
        """Take over, as soon as their locks lapse, the guilds another process held; a
        pass that fails is logged and tried again after a back-off (the guilds wait)."""

        async def one_pass() -> bool:
            taken = {g for g in sorted(self.waiting) if await self.store.ownership.claim_guild(g)}
            if taken:
                rows = [r for r in await self.store.tables.load_tables() if r.guild_id in taken]
                restored = await self.restore(rows, taken)
                self.waiting -= taken  # served from now: opens there are allowed
                log.info("took over %d guilds, %d unfinished hands", len(taken), restored)
            return not self.waiting

        await supervise.forever(
            f"taking over guilds {sorted(self.waiting)}", one_pass, every=self.claim_retry
        )

    async def restore(self, rows: list[TableRow], guilds: set[int] | None) -> int:
        """Load ``rows``' tables and continue the live hands of ``guilds`` (None: all)."""
        stored_seats = await self.store.tables.load_seats_of([row.channel_id for row in rows])
        tables = {row.channel_id: table_of(row, stored_seats[row.channel_id]) for row in rows}
        resumed: set[int] = set()
        for live in await self.store.history.load_live_hands(guilds):
            found = tables.get(live.channel_id)
            if found is None:
                log.error("live hand %s has no open table; left as it is", live.hand_id)
                continue
            if await self.steps.resume(found, live):
                resumed.add(found.channel_id)
        now = self.steps.clock()
        for table in tables.values():
            table.last_step = now  # idle from now: the bot was away meanwhile
            if table.channel_id not in resumed:
                table.kicked.clear()  # their hand is over
        # Published whole (a take-over runs while the bot serves): never a table that
        # is seen without its hand.
        self.steps.tables.update(tables)
        for table in tables.values():
            await self._carry_on(table)
        return len(resumed)

    async def _carry_on(self, table: Table) -> None:
        try:
            # No refresh of its own: the message shows what was stored (the process that
            # stored it showed it); what carrying on changes is shown by its events.
            async with self.steps.step(table) as step:
                hand = table.hand
                if hand is not None and hand.complete:  # stopped before its settlement
                    step.emit(*await self.play.settle(table, retry_later=True))
                elif hand is not None:
                    step.emit(*await self.play.act_for_kicked(table))
                if table.hand is None and table.closing:  # stopped between hand and close
                    step.emit(await self.play.close_now(table))
        except Exception:  # the table was reloaded and shown; the dispatcher tries again
            log.exception("table %s not carried on at start-up", table.channel_id)
