"""The multi-table scheduler: sends due reminders and starts tournaments at their time.

One supervised loop (``run``: ``bot.tables.supervise.forever``) makes a pass every few
seconds. A pass (``tick``) first claims the reminders due now (``claim_reminders``
marks each sent in the transaction that reads it, so a reminder goes out once, across
restarts too) and hands each to the injected notifier with the players registered at
that moment; then it starts the registering tournaments that are due: their scheduled
``starts_at`` has come (also one that came while the bot was down: the first pass after
start-up starts it) or their ``start_count`` has registered. A start goes through the
injected coroutine ``start(tournament_id)`` (the driver that runs the tables as
threads; by default ``MultiTableService.start``). A tournament with fewer than two
registered at its time is cancelled, every fee back, and the notifier is told. Speaks
no English and no Discord: a :class:`Notice` carries codes and facts.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum

from bot.storage.store import Store
from bot.storage.tournaments import TournamentRow
from bot.tables import supervise
from bot.tournaments.multi_table import MultiTableService
from bot.tournaments.service import SngRefused

log = logging.getLogger(__name__)
SCHEDULE_TICK = 5.0  # seconds between passes: a reminder or a start is at most this late


class NoticeKind(StrEnum):
    """What the notifier is told."""

    REMINDER = "reminder"  # minutes before the start, to the registered players
    CANCELLED = "cancelled"  # too few registered at its time: cancelled, fees back


@dataclass(frozen=True)
class Notice:
    """One notice for the players of a tournament; ``players`` as of now (registration
    order), ``minutes`` before the start (a reminder) or None, ``starts_at`` its
    scheduled start (None: none)."""

    kind: NoticeKind
    tournament: TournamentRow
    players: tuple[int, ...]
    minutes: int | None = None
    starts_at: float | None = None

    @property
    def count(self) -> int:
        return len(self.players)


Notifier = Callable[[Notice], Awaitable[None]]
Starter = Callable[[int], Awaitable[object]]


class Scheduler:
    """Reminders and scheduled starts of every server's multi-table tournaments."""

    def __init__(
        self,
        store: Store,
        mtt: MultiTableService,
        notify: Notifier,
        *,
        start: Starter | None = None,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.store = store
        self.mtt = mtt
        self.notify = notify
        self.start: Starter = start if start is not None else mtt.start
        self.clock = clock if clock is not None else mtt.sng.clock

    async def run(self, every: float = SCHEDULE_TICK) -> None:
        """Pass every ``every`` seconds until cancelled; a failed pass is logged and the
        loop goes on (``supervise.forever``)."""
        await supervise.forever("the tournament scheduler", self.tick, every=every)

    async def tick(self) -> None:
        """One pass: the reminders due now, then the starts due now. One tournament's
        failure does not keep the others waiting: the first is raised at the end."""
        now = self.clock()
        failed: Exception | None = None
        for tournament_id, minutes, players in await self.store.multi_tables.claim_reminders(now):
            t = await self.store.tournaments.get(tournament_id)
            if t is None:  # claimed with the tournament, so it exists: defensive
                continue
            starts_at, _ = await self.store.multi_tables.scheduled(tournament_id)
            notice = Notice(NoticeKind.REMINDER, t, tuple(players), minutes, starts_at)
            try:
                await self.notify(notice)
            except Exception as exc:  # claimed already: it is not sent again
                failed = failed or exc
        for tournament_id in await self.store.multi_tables.due_starts(now):
            try:
                await self._start(tournament_id)
            except Exception as exc:
                failed = failed or exc
        if failed is not None:
            raise failed

    async def _start(self, tournament_id: int) -> None:
        entries = await self.store.tournaments.entries(tournament_id)
        t = await self.store.tournaments.get(tournament_id)
        if t is None or t.status != "registering":
            return  # started or cancelled meanwhile
        if len(entries) < 2:
            cancelled = await self.mtt.cancel(t.guild_id, tournament_id, t.creator_id,
                                              moderator=True)  # fmt: skip
            log.info("tournament #%d cancelled at its start: %d registered",
                     tournament_id, len(entries))  # fmt: skip
            players = tuple(e.user_id for e in entries)
            starts_at, _ = await self.store.multi_tables.scheduled(tournament_id)
            await self.notify(Notice(NoticeKind.CANCELLED, cancelled, players, None, starts_at))
            return
        try:
            await self.start(tournament_id)
        except SngRefused as refused:  # registrations changed meanwhile: the next pass
            log.info("tournament #%d not started now: %s", tournament_id, refused.code)
