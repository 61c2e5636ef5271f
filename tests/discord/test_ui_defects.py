"""Defects found by trying the features as users (issue 34 item 6): each as a user meets it."""

from __future__ import annotations

import random
import time
from pathlib import Path

from bot.client import PokerBot
from bot.settings import Settings
from fakediscord.harness import DiscordHarness, Msg
from fakediscord.poker import GUILD, PLAYERS, TABLE, open_table, uid
from tests.support.manager_helpers import Clock as ManagerClock
from tests.support.moderated_server import ALICE as MOD
from tests.support.moderated_server import started

ALICE, BOB = PLAYERS[:2]


class Clock:
    """The bot's clock, moved by the test (the rate limits' windows follow it)."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


def clocked_bot(path: Path, clock: Clock) -> PokerBot:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_path=path, turn_timeout=3600, next_hand_delay=0
    )
    return PokerBot(settings, rng=random.Random(7), clock=clock)


def mod_bot(path: Path) -> PokerBot:
    """The moderated server's bot (Alice: Manage Channels), computer players at once."""
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_path=path, turn_timeout=3600, next_hand_delay=0, bot_pause=0
    )
    return PokerBot(settings, rng=random.Random(3), clock=ManagerClock())


def button(message: Msg, do: str) -> str:
    return next(c["custom_id"] for c in message.buttons() if c["custom_id"].endswith(f":{do}"))


def to_act(h: DiscordHarness) -> dict:
    view = h.bot.manager.view(TABLE)  # type: ignore[attr-defined]
    return next(p for p in PLAYERS if uid(p) == view.to_act_user)


async def test_a_player_who_just_clicked_may_post_the_table_again(tmp_path):
    clock = Clock()
    async with DiscordHarness(clocked_bot(tmp_path / "u.db", clock)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        table = await open_table(h, "a6-draw", [ALICE, BOB])
        clock.now += 61  # the table was posted over a minute ago
        await h.click(ALICE, table, h.message(table.id).custom_id_for("Deal"))
        player = to_act(h)
        await h.click(player, table, h.message(table.id).custom_id_for("Check"))
        posted = await h.slash(player, TABLE, "a6-draw table")  # the README: twice in 20 s
        assert "Slow down" not in (posted.content or "")
        assert posted.message is not None and posted.message.deleted  # answered by the post
        latest = h.messages(TABLE, include_ephemeral=False)[-1]
        assert latest.id != table.id and "Check" in str(latest.buttons()) + str(latest.embeds)


async def test_every_server_command_is_guild_only_in_the_synced_schema(tmp_path):
    """Discord offers in DMs only what works there: /rules. /export, /replay and /stats
    read a server's hands, so they are guild-only like every other server command."""
    clock = Clock()
    async with DiscordHarness(clocked_bot(tmp_path / "u.db", clock)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        schema = {c["name"]: c for c in h.command_schema(GUILD)}
        assert {"export", "replay", "stats", "rules"} <= set(schema)
        offered_in_dms = sorted(
            name for name, c in schema.items() if c.get("contexts") != [0] or c["dm_permission"]
        )
        assert offered_in_dms == ["rules"]


async def test_a_cancelled_practice_hand_is_marked_and_names_its_computer_players(tmp_path):
    """A moderator cancels a practice hand: its replay says cancelled (there is no result
    step to say it), and the replay, the player's export and the server's hand log name
    the computer player as the table did, never by its internal id."""
    async with DiscordHarness(mod_bot(tmp_path / "u.db")) as h:
        await started(h)
        await h.slash(MOD, TABLE, "a6-draw open", bots=1)
        await h.slash(MOD, TABLE, "a6-draw deal")
        await h.bot.practice.settle()  # type: ignore[attr-defined]
        seats = h.bot.manager.view(TABLE).seats  # type: ignore[attr-defined]
        assert [s.name for s in seats if s.bot] == ["🤖 Dealer's Cousin (normal)"]
        closed = await h.slash(MOD, TABLE, "table-admin close")
        assert "closed" in closed.content.lower()
        replay = await h.slash(MOD, TABLE, "replay")
        first = replay.message
        assert first is not None and first.embeds
        assert "cancelled" in first.embeds[0]["footer"]["text"]
        last = await h.click(MOD, first, button(first, "last"))
        shown = last.message.embeds[0]
        assert "cancelled" in shown["footer"]["text"] and "cancelled" in shown["description"]
        words = str(first.embeds) + str(shown)
        assert "Dealer's Cousin" in words and "-1" not in words
        exported = await h.slash(MOD, TABLE, "export")
        files = exported.message.files.items()
        (hands,) = [data for name, data in files if name.startswith("hands-")]
        text = hands.decode()
        assert "Seat 2: 🤖 Dealer's Cousin (" in text and "Seat 2: -1" not in text, text
        server = await h.slash(MOD, TABLE, "export", scope="server")
        (log,) = [d for name, d in server.message.files.items() if name.startswith("server-hands-")]
        assert '"🤖 Dealer\'s Cousin @ -1"' in log.decode() and '"-1 @ -1"' not in log.decode()
