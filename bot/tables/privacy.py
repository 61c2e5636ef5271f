"""Forgetting a player: erase their data on a server and unseat them at its tables."""

from __future__ import annotations

import contextlib

from bot.storage.errors import PlayerInHand

from .models import Code, EventKind, Refused, TableEvent
from .steps import Step, Steps


class Privacy:
    def __init__(self, steps: Steps) -> None:
        self.steps = steps
        self.store = steps.store

    def in_live_hand(self, guild_id: int, user_id: int) -> bool:
        """Is the user dealt into a hand still being played on this server?"""
        key = str(user_id)
        return any(
            t.guild_id == guild_id and t.hand is not None and key in t.hand_users
            for t in self.steps.tables.values()
        )

    async def forget_player(self, guild_id: int, user_id: int) -> int:
        """Erase the player's account on this server and unseat them; return their
        anonymous id. Raises PlayerInHand while they are dealt into a running hand,
        UnknownAccount if nothing is stored. One step at each of the server's tables,
        their locks taken in channel order (two calls cannot deadlock), so no hand
        starts meanwhile."""
        tables = sorted(
            (t for t in self.steps.tables.values() if t.guild_id == guild_id),
            key=lambda t: t.channel_id,
        )
        async with contextlib.AsyncExitStack() as stack:
            steps: list[Step] = []
            for table in tables:
                try:
                    steps.append(await stack.enter_async_context(self.steps.step(table)))
                except Refused as exc:
                    if exc.code is not Code.NO_TABLE:
                        raise
                    # closed while we waited: its seats are gone with it
            if self.in_live_hand(guild_id, user_id):
                raise PlayerInHand(guild_id, user_id)
            anon = await self.store.server.erase_player(guild_id, user_id)  # seats rows go too
            for step in steps:
                # the store forgot them in the stored settings: so does memory, or the
                # table's next save would write the id back
                if step.table.opener == user_id:
                    step.table.opener = None
                step.table.kicked.discard(user_id)
                seat = step.table.seat_of(user_id)
                if seat is not None:
                    step.table.unseat(seat)  # the store stood the computer players up too
                    step.emit(TableEvent(EventKind.LEFT, step.table.view()))  # erased: no name
        return anon
