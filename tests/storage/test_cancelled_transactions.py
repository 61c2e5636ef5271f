"""A request cancelled while its transaction begins (a client gone, a timeout, a task
stopped at shutdown) leaves the database as it found it: the next read and write work.
On SQLite the cancelled BEGIN still ran in aiosqlite's thread, and it stayed open: every
later BEGIN failed with "cannot start a transaction within a transaction", for good."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.storage.store import Store
from tests.support.databases import Target

G, ANN = 5, 11


@pytest.fixture
async def store(db_path: Target) -> AsyncIterator[Store]:
    async with await Store.open(db_path) as opened:
        yield opened


async def test_a_read_or_write_cancelled_at_any_moment_leaves_the_store_working(
    store: Store,
) -> None:
    await store.ledger.ensure_account(G, ANN, "Ann", 100)
    for spins in range(8):  # cancelled before, during and after its BEGIN
        for work in (store.ledger.balance(G, ANN), store.ledger.ensure_account(G, ANN, "Ann", 100)):
            task = asyncio.ensure_future(work)
            for _ in range(spins):
                await asyncio.sleep(0)
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            account = await store.ledger.balance(G, ANN)  # the next one works
            assert account is not None and account.balance == 100
    await store.ledger.ensure_account(G, ANN + 1, "Ben", 100)  # and so does a write
    assert (await store.ledger.balance(G, ANN + 1)) is not None
