"""The database connection: its lock, read and write transactions, group commit, failpoint.

Every write runs in one ``BEGIN IMMEDIATE … COMMIT`` and returns only after the
COMMIT (SQLite ``synchronous=FULL``, PostgreSQL's defaults), so success means
"on disk". One connection is shared by all coroutines, and a transaction belongs
to the connection, so an ``asyncio.Lock`` serialises whole transactions; without
it two coroutines' statements would interleave inside one transaction.

Group commit (``GroupCommit``): writes of the hot path that arrive while another
transaction runs are queued and written together in one transaction, so one
fsync serves them all; each caller still returns only after that COMMIT, and an
invalid item raises for its own caller without failing the batch. The callers
are answered one per pass of the event loop, so a large batch does not become one
long pass of all their follow-on work.

The storage counts its commits, batches, reconnects and lost guilds into the
``DbMetrics`` it is given (the bot's ``bot.metrics.METRICS``, passed in where the
store is opened), so it imports nothing of the bot.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from contextlib import AbstractContextManager, asynccontextmanager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from bot.storage import postgres
from bot.storage.backend import Connection, Row, Timeouts, open_connection
from bot.storage.errors import StorageError
from bot.storage.sqlite import rollback_quietly

Clock = Callable[[], float]
T = TypeVar("T")
log = logging.getLogger(__name__)

# Failpoint for the crash tests, None in production: called as ``commit_hook(step, moment)``
# around every COMMIT, ``step`` the public method ("start_hand", "append_action", …) and
# ``moment`` "before" or "after". It may raise (before: the transaction rolls back) or
# kill the process, so tests can stop a step exactly at a write boundary.
commit_hook: Callable[[str, str], None] | None = None


Reconnected = Callable[[Connection], Awaitable[None]]


class Counts(Protocol):
    def inc(self, amount: float = 1) -> None: ...


class Observes(Protocol):
    def observe(self, amount: float) -> None: ...


class DbMetrics(Protocol):
    """The metrics the storage counts into (``bot.metrics.Metrics`` is one)."""

    @property
    def batches(self) -> Observes: ...  # writes carried by one group commit

    @property
    def reconnects(self) -> Counts: ...  # lost PostgreSQL sessions replaced

    @property
    def guilds_lost(self) -> Counts: ...  # guilds taken while the session was lost

    def commit(self) -> AbstractContextManager[None]: ...  # times one COMMIT


class _Nothing:
    def inc(self, amount: float = 1) -> None:
        pass

    def observe(self, amount: float) -> None:
        pass


class Uncounted:
    """No metrics: a store opened without any (tools, benches)."""

    batches = reconnects = guilds_lost = _Nothing()

    def commit(self) -> AbstractContextManager[None]:
        return nullcontext()


# What a Database opened without ``metrics`` counts into. The bot passes its metrics
# explicitly; the test suite sets this once (tests/conftest.py) so every store it opens
# counts as the bot's would.
default_metrics: DbMetrics = Uncounted()


class Database:
    """One connection, its lock and its transactions; the repositories share one.

    A lost PostgreSQL session (``pg_terminate_backend``, a server restart, a network
    cut) is replaced when the next transaction begins: nothing of that transaction
    was sent, so it simply runs on the new session, after every ``on_reconnect``
    hook (``Ownership`` re-claims its guilds there). A transaction cut off midway
    raises to its caller (it may or may not have committed: the caller reloads).
    A session that stops answering (a statement gets no reply within
    ``Timeouts.silence``) counts as lost: it is given up at once, so the lock is
    released and the next transaction replaces it (``postgres.reconnect`` first ends
    the old server session, so whatever it left open is settled before anyone reads).
    If no new session can be opened, transactions fail at once for ``Timeouts.connect``
    seconds before the next try, so a queue of them drains in one connect timeout."""

    def __init__(
        self, conn: Connection, clock: Clock = time.time, metrics: DbMetrics | None = None
    ) -> None:
        self.conn = conn  # see backend.open_connection
        self.clock = clock
        self.metrics = metrics if metrics is not None else default_metrics
        self.lock = asyncio.Lock()
        self.on_reconnect: list[Reconnected] = []
        self._retry_at = 0.0  # loop time before which a lost session is not tried again

    async def _begin(self, sql: str) -> Connection:
        """Start a transaction, on a new session if the current one is lost."""
        conn = self.conn
        if not isinstance(conn, postgres.PgConnection):
            try:
                await conn.execute(sql)
            except asyncio.CancelledError:
                # aiosqlite runs the BEGIN in its thread whether or not this task waits
                # for it: end that transaction (the ROLLBACK queues behind it) before the
                # lock is let go, or every later BEGIN finds one open and fails
                await rollback_quietly(conn)
                raise
            return conn
        if not conn.lost():
            try:
                await conn.execute(sql)
                return conn
            except Exception as error:
                self._failed(conn, error)
                if not conn.lost():
                    raise
        loop = asyncio.get_running_loop()
        if loop.time() < self._retry_at:
            raise ConnectionError("the PostgreSQL database is unreachable; trying again shortly")
        log.warning("the PostgreSQL session was lost; opening a new one")
        self.metrics.reconnects.inc()
        try:
            self.conn = conn = await postgres.reconnect(conn)
        except Exception:
            if conn.timeouts is not None:
                # Unreachable: the transactions queued behind this one fail at once for a
                # while instead of each waiting out a connect timeout of its own.
                self._retry_at = loop.time() + conn.timeouts.connect
            raise
        try:
            for hook in self.on_reconnect:
                await hook(conn)
            await conn.execute(sql)
        except BaseException:
            conn.abandon()  # half set up (guilds not all re-claimed): the next one starts over
            raise
        return conn

    @staticmethod
    def _failed(conn: Connection, error: BaseException) -> None:
        """A statement got no answer in time: the session is taken for dead (the lock
        must not wait on it again), and the next transaction replaces it."""
        if isinstance(error, TimeoutError) and isinstance(conn, postgres.PgConnection):
            conn.abandon()

    @staticmethod
    async def _rollback(conn: Connection) -> None:
        """End a failed transaction; on PostgreSQL a session that cannot is given up."""
        if not isinstance(conn, postgres.PgConnection):
            await rollback_quietly(conn)
        elif not conn.lost():
            try:
                await conn.execute("ROLLBACK")
            except Exception:  # its state is unknown now: a new session is safer
                conn.abandon()

    @classmethod
    async def open(
        cls,
        target: str | Path,
        clock: Clock = time.time,
        timeouts: Timeouts | None = None,
        metrics: DbMetrics | None = None,
    ) -> Database:
        return cls(await open_connection(target, timeouts), clock, metrics)

    async def close(self) -> None:
        async with self.lock:
            await self.conn.close()

    @asynccontextmanager
    async def write(self, step: str) -> AsyncIterator[Connection]:
        """One write transaction; COMMIT (durable) on success, ROLLBACK on error."""
        async with self.lock, self.transaction(step) as conn:
            yield conn

    @asynccontextmanager
    async def transaction(self, step: str) -> AsyncIterator[Connection]:
        """BEGIN IMMEDIATE … COMMIT / ROLLBACK; the caller holds ``self.lock``.

        ``step`` names the public method, for ``commit_hook``."""
        conn = await self._begin("BEGIN IMMEDIATE")
        try:
            yield conn
            if commit_hook is not None:
                commit_hook(step, "before")
            with self.metrics.commit():
                await conn.execute("COMMIT")
            if commit_hook is not None:
                commit_hook(step, "after")
        except BaseException as error:
            self._failed(conn, error)
            await self._rollback(conn)  # nothing to undo if COMMIT already ran
            raise

    @asynccontextmanager
    async def read(self) -> AsyncIterator[Connection]:
        """A read transaction, so multi-query reads see one snapshot."""
        async with self.lock:
            conn = await self._begin("BEGIN")
            try:
                yield conn
            except BaseException as error:
                self._failed(conn, error)
                raise
            finally:
                await self._rollback(conn)


async def one(conn: Connection, sql: str, args: Sequence[Any] = ()) -> Row | None:
    async with conn.execute(sql, args) as cursor:
        return await cursor.fetchone()


async def all_rows(conn: Connection, sql: str, args: Sequence[Any] = ()) -> list[Row]:
    async with conn.execute(sql, args) as cursor:
        return list(await cursor.fetchall())


@dataclass(slots=True)
class _Waiting(Generic[T]):
    item: T
    done: asyncio.Future[None] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


BatchWriter = Callable[[Connection, list[T]], Awaitable[list[Exception | None]]]
Answer = tuple[asyncio.Future[None], Exception | None]


def _hand_out(loop: asyncio.AbstractEventLoop, answers: Iterator[Answer]) -> None:
    """Answer a batch's callers one per pass of the event loop, in their order.

    Woken in the same pass, N callers would all run their next stretch (a table's step
    going on to its answers, images and REST calls) in that one pass, and the loop
    would stall for N callers' work: under load, one COMMIT often answers dozens
    (docs/benchmarks.md, "The group commit's answers, one per pass")."""
    for done, error in answers:
        if done.done():  # its caller was cancelled
            continue
        if error is None:
            done.set_result(None)
        else:
            done.set_exception(error)
        loop.call_soon(_hand_out, loop, answers)  # runs in the next pass
        return


class GroupCommit(Generic[T]):
    """Items that arrive while a transaction runs are written together in one.

    ``writer(conn, batch)`` writes a batch inside a transaction and returns each
    item's own error (or None); if the whole transaction fails, every item is
    retried in a transaction of its own, so each caller gets its own answer."""

    def __init__(self, db: Database, step: str, writer: BatchWriter[T]) -> None:
        self._db, self._step, self._writer = db, step, writer
        self._queue: list[_Waiting[T]] = []
        self.flusher: asyncio.Task[None] | None = None

    async def submit(self, item: T) -> None:
        """Return after the COMMIT that wrote ``item``, or raise its own error."""
        waiting = _Waiting(item)
        # a caller cancelled while waiting must not leave an unretrieved exception behind
        waiting.done.add_done_callback(lambda f: f.cancelled() or f.exception())
        self._queue.append(waiting)
        if self.flusher is None or self.flusher.done():
            self.flusher = asyncio.get_running_loop().create_task(self._flush())
        await asyncio.shield(waiting.done)

    async def drain(self) -> None:
        """Wait until every accepted item is written."""
        while self.flusher is not None and not self.flusher.done():
            await self.flusher

    async def _flush(self) -> None:
        batch: list[_Waiting[T]] = []
        loop = asyncio.get_running_loop()
        try:
            while self._queue:
                async with self._db.lock:
                    batch, self._queue = self._queue, []
                    self._db.metrics.batches.observe(len(batch))
                    errors = await self._write([w.item for w in batch])
                _hand_out(loop, iter([(w.done, e) for w, e in zip(batch, errors, strict=True)]))
                batch = []  # answered, if a few passes later: not "interrupted" below
        except BaseException as exc:  # cancelled (the loop is closing): nobody may wait forever
            # A batch cut off in its COMMIT may or may not be on disk: callers must reload.
            for waiting in [*batch, *self._queue]:
                if not waiting.done.done():
                    waiting.done.set_exception(StorageError(f"the write was interrupted ({exc!r})"))
            self._queue = []
            raise

    async def _write(self, batch: list[T]) -> list[Exception | None]:
        try:
            async with self._db.transaction(self._step) as conn:
                return await self._writer(conn, batch)
        except Exception:
            errors: list[Exception | None] = []
            for item in batch:
                try:
                    async with self._db.transaction(self._step) as conn:
                        (error,) = await self._writer(conn, [item])
                except Exception as exc:
                    error = exc
                errors.append(error)
            return errors
