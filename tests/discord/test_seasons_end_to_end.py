"""/season standings|list and /season-admin start|end through the fake Discord: the
standings of a finished tournament in the running season, a moderator's season that
ends the monthly one, past seasons kept and paged, refusals that change nothing."""

from __future__ import annotations

from datetime import UTC, datetime

from bot.storage.tournaments import Final
from fakediscord.harness import DiscordHarness
from tests.support.manager_helpers import Clock
from tests.support.moderated_server import (
    ALICE,
    BOB,
    CAROL,
    DAVE,
    GUILD,
    TABLE,
    make_bot,
    started,
    uid,
)

NOVEMBER = datetime(2026, 11, 14, 12, tzinfo=UTC).timestamp()


async def finish_tournament(h: DiscordHarness, order: list[dict]) -> None:
    """A freeroll of ``order`` that ends with them in that order (the repository's own
    lifecycle: register, start, the last hand with the final places)."""
    store = h.bot.store
    repo = store.tournaments  # type: ignore[attr-defined]
    users = [uid(u) for u in order]
    for user in order:
        await store.ledger.ensure_account(GUILD, uid(user), user["username"], 200)
    t = await repo.create(GUILD, TABLE, users[0], "a5-triple", seats=6, speed="turbo",
                          start_stack=3000, fee=0)  # fmt: skip
    for user in order:
        await repo.register(t.tournament_id, uid(user), user["username"])
    await repo.start(t.tournament_id, {u: i for i, u in enumerate(users)}, 0)
    places = {u: i + 1 for i, u in enumerate(users)}
    final = Final(places, {u: 0 for u in users}, {users[0]: 100})
    stacks = {u: 12000 if u == users[0] else 0 for u in users}
    await repo.record_hand(t.tournament_id, 1, stacks, places=places, actions=3,
                           clock_elapsed=9.0, button=0, final=final)  # fmt: skip


async def test_season_commands_show_current_and_past_standings(tmp_path) -> None:
    clock = Clock(NOVEMBER)
    async with DiscordHarness(make_bot(tmp_path / "s.db", clock)) as h:
        await started(h)
        await finish_tournament(h, [CAROL, BOB, ALICE, DAVE])
        clock.now += 60
        board = await h.slash(BOB, TABLE, "season standings")
        assert not board.ephemeral  # public, as /leaderboard
        embed = board.embeds[0]
        assert embed["title"] == "Season 1 — standings"
        lines = embed["description"].splitlines()
        assert lines[0] == "*Points · wins · cashes · entries · best finish*"
        assert lines[1] == f"**1.** {CAROL['username']} — 100 · 1 · 1 · 1 · #1"
        assert lines[2] == f"**2.** {BOB['username']} — 0 · 0 · 0 · 1 · #2"
        assert len(lines) == 5
        start = int(datetime(2026, 11, 1, tzinfo=UTC).timestamp())
        assert embed["fields"][0]["value"] == f"Since <t:{start}:D>, running"
        assert embed["footer"]["text"] == "Page 1 of 1"

        refused = await h.slash(BOB, TABLE, "season-admin start", name="Winter cup")
        assert refused.ephemeral and "moderators" in refused.content.lower()
        assert (await h.bot.seasons.current(GUILD)).number == 1  # type: ignore[union-attr]

        began = await h.slash(ALICE, TABLE, "season-admin start", name="Winter cup")
        assert began.ephemeral
        assert began.content == "Season 2: Winter cup: started. The season before it has ended."
        clock.now += 60
        empty = await h.slash(CAROL, TABLE, "season standings")
        assert empty.embeds[0]["title"] == "Season 2, Winter cup — standings"
        assert empty.embeds[0]["description"] == "No tournament has finished in this season yet."
        past = await h.slash(CAROL, TABLE, "season standings", number=1, page=1)
        assert f"**1.** {CAROL['username']} — 100" in past.embeds[0]["description"]
        beyond = await h.slash(CAROL, TABLE, "season standings", number=1, page=3)
        assert beyond.embeds[0]["description"] == ("Page 3 is past the end: there is only 1 page.")
        listed = await h.slash(DAVE, TABLE, "season list")
        rows = listed.embeds[0]["description"].splitlines()
        assert rows[0].startswith("**Season 2: Winter cup** (run by moderators): Since <t:")
        assert rows[1].startswith(f"**Season 1** (monthly): From <t:{start}:D> to <t:")

        ended = await h.slash(ALICE, TABLE, "season-admin end")
        assert ended.content.startswith("Season 2: Winter cup: ended.")
        again = await h.slash(ALICE, TABLE, "season-admin end")
        assert again.content == "No season is running: there is nothing to end."
        none = await h.slash(DAVE, TABLE, "season standings")
        assert none.content.startswith("No season is running. A moderator can start one")
        unknown = await h.slash(DAVE, TABLE, "season standings", number=9)
        assert unknown.content == "This server has no season 9."
        seasons, total = await h.bot.seasons.seasons(GUILD)
        assert total == 2 and [s.number for s in seasons] == [2, 1]
