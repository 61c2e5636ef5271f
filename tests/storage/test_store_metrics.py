"""The storage counts into the metrics it is given (issue 35 item 4: it imports nothing of
the bot; ``bot/client.py`` passes ``METRICS``), on both backends."""

from __future__ import annotations

from bot.metrics import METRICS, Metrics
from bot.storage.store import Store
from tests.support.databases import Target
from tests.support.storage_helpers import G, a_header, seat_players


def _count(metrics: Metrics, name: str) -> float:
    return metrics.registry.get_sample_value(name) or 0.0


async def test_a_store_counts_its_commits_and_batches_into_the_metrics_it_is_given(
    db_path: Target,
) -> None:
    mine = Metrics()
    commits = "lowball_db_commit_seconds_count"
    batches = "lowball_db_group_commit_batch_size_count"
    before = _count(METRICS, commits)
    async with await Store.open(db_path, metrics=mine) as store:
        await seat_players(store, [1, 2])
        holds = {1: 5, 2: 5}
        hand = await store.hands.start_hand(G, 10, "a5-draw", a_header([1, 2]), holds, [1, 2])
        await store.hands.append_action(hand, 0, {"player": "1", "action": "fold"})
    assert _count(mine, commits) >= 4  # two accounts, the deal, the action
    assert _count(mine, batches) == 1  # the action went through the group commit
    assert _count(METRICS, commits) == before  # nothing counted into the bot's own
