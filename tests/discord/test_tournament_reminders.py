"""A scheduled multi-table tournament's reminders through the fake Discord: in post mode
one message in its channel that mentions the registered players (and pings only them),
in DM mode a direct message to each, with the count when sent; each reminder once,
across restarts; the server's choice set with /settings tournament-reminders."""

from __future__ import annotations

from fakediscord.harness import DiscordHarness
from fakediscord.model import Sent
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

NOW = 1_800_000_000.0
START = NOW + 3600


def reminder_posts(h: DiscordHarness) -> list[Sent]:
    return [
        s
        for s in h.public_payloads()
        if s.channel_id == TABLE and "Tournament #" in ((s.json or {}).get("content") or "")
    ]


def reminder_dms(h: DiscordHarness, user: dict) -> list[str]:
    return [m.content for m in h.dms(user) if "Tournament #" in m.content]


async def test_a_reminder_reaches_the_channel_or_the_dms_once_across_restarts(tmp_path) -> None:
    clock = Clock(NOW)
    path = tmp_path / "r.db"
    async with DiscordHarness(make_bot(path, clock)) as h:
        await started(h)
        bot = h.bot
        for user in (ALICE, BOB, CAROL, DAVE):
            await bot.store.ledger.ensure_account(GUILD, uid(user), f"u{uid(user)}", 200)
        t = await bot.multi_tables.create(
            GUILD, TABLE, uid(ALICE), "a5-triple",
            table_size=6, cap=50, speed="turbo", start_stack=1000, starts_at=START,
        )  # fmt: skip
        tid = t.tournament_id
        for user in (BOB, CAROL):
            await bot.store.tournaments.register(tid, uid(user), f"u{uid(user)}")
        await bot.scheduler.tick()
        await h.settle()
        assert reminder_posts(h) == []  # nothing due yet
        clock.now = START - 30 * 60  # the 30-minute reminder, in post mode (the default)
        await bot.scheduler.tick()
        await bot.scheduler.tick()
        await h.settle()
        [post] = reminder_posts(h)
        assert post.json["content"] == (
            f"**Tournament #{tid}** (Ace-to-Five Triple Draw) starts <t:{int(START)}:R>: "
            f"2 players registered.\n<@{uid(BOB)}> <@{uid(CAROL)}>"
        )
        mentioned = post.json["allowed_mentions"]
        assert sorted(int(u) for u in mentioned["users"]) == sorted(uid(u) for u in (BOB, CAROL))
        assert mentioned["parse"] == []  # no @everyone, no roles
        assert all(reminder_dms(h, u) == [] for u in (ALICE, BOB, CAROL, DAVE))

        await h.restart(make_bot(path, clock))  # sent stays sent
        await h.bot.scheduler.tick()
        await h.settle()
        assert len(reminder_posts(h)) == 1

        chosen = await h.slash(ALICE, TABLE, "settings tournament-reminders", how="dm")
        assert chosen.content == (
            "Tournament reminders is now: a direct message to each registered player."
        )
        await h.bot.store.tournaments.register(tid, uid(DAVE), f"u{uid(DAVE)}")
        clock.now = START - 5 * 60  # the 5-minute reminder, by DM, counted now: three
        await h.bot.scheduler.tick()
        await h.settle()
        for user in (BOB, CAROL, DAVE):
            assert reminder_dms(h, user) == [
                f"**Tournament #{tid}** (Ace-to-Five Triple Draw) in <#{TABLE}> starts "
                f"<t:{int(START)}:R>. You are registered: 3 players so far."
            ]
        assert reminder_dms(h, ALICE) == []  # its creator is not registered
        assert len(reminder_posts(h)) == 1  # no post in DM mode

        await h.restart(make_bot(path, clock))
        clock.now = START - 60
        await h.bot.scheduler.tick()
        await h.settle()
        assert all(len(reminder_dms(h, u)) == 1 for u in (BOB, CAROL, DAVE))
        assert len(reminder_posts(h)) == 1
