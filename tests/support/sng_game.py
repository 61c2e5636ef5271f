"""Sit & Gos through the fake Discord for harness tests: the bot on a clock the test
moves, short levels, the registration message, dealing, a restart mid-hand, and the
table's privacy scan (``Game``'s, with the cards the last hands showed in the table
message's Recent log counted as history, not a leak)."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

from bot.client import PokerBot
from bot.engine import Hand, public_view
from bot.settings import Settings
from bot.tables.manager import TableManager
from bot.tables.models import TableView
from bot.tournaments.structures import Speed
from fakediscord.harness import DiscordHarness, Msg, Reply
from fakediscord.poker import TABLE
from tests.support.game import Game

LEVEL = 60.0  # seconds of the bot's clock a level lasts here


class Clock:
    """The real time, which a test moves forward (levels and rate limits follow it)."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead


def sng_bot(path: Path, clock: Clock, *, seed: int = 11, **settings: Any) -> PokerBot:
    """The bot on ``clock`` with levels of ``LEVEL`` seconds (``settings``: more of them)."""
    chosen = Settings(  # type: ignore[call-arg]
        _env_file=None, database_path=path, turn_timeout=3600, next_hand_delay=0, **settings
    )
    return PokerBot(
        chosen, rng=random.Random(seed), clock=clock, level_seconds={s: LEVEL for s in Speed}
    )


def registration(h: DiscordHarness, tournament_id: int) -> Msg:
    """The public registration message of that Sit & Go."""
    return next(
        m
        for m in h.messages(TABLE, include_ephemeral=False)
        if f"Sit & Go #{tournament_id}:" in m.text
    )


async def deal(h: DiscordHarness, thread: int, view: TableView) -> None:
    """The next hand, dealt by a player who still has chips (with the game's command)."""
    dealer = next(s for s in view.seats if (s.stack or 0) > 0)
    dealt = await h.slash(dealer.user_id, thread, f"{view.variant} deal")
    assert dealt.ephemeral, dealt.content


async def restart(h: DiscordHarness, bot: PokerBot, thread: int) -> TableManager:
    """Restart the bot in the middle of a hand: the hand is there after it."""
    await h.restart(bot)
    manager: TableManager = h.bot.manager  # type: ignore[attr-defined]
    assert manager.view(thread).hand is not None
    return manager


class SngGame(Game):
    """Plays the Sit & Go's table, checking privacy after every step. The table message's
    Recent log goes on naming the cards the last hands showed (a bought card, a showdown)
    while the next hand is dealt from a full deck: such a card, in the new hand's stub, is
    history, not a leak; every other hidden card is checked as ``Game`` does."""

    def __init__(self, h: DiscordHarness, channel: int, table: Msg) -> None:
        super().__init__(h, channel, table)
        self.shown_before: list[set[int]] = []  # the public cards of the last two hands

    def hidden_cards(self, hand: Hand | None = None) -> set[int]:
        hidden = super().hidden_cards(hand)
        if hand is not None:  # the hand that just ended: all of its own hidden cards
            return hidden
        return hidden - set().union(*self.shown_before)

    async def _buy(self, user: dict, ids: list[str], use_slash: bool) -> Reply:
        """Buy from a source the table message offers (an all-in player: only blind)."""
        offered = [c.split(":")[2] for c in ids if c.split(":")[2] in ("left", "right", "blind")]
        source = self.rng.choice(offered)
        if use_slash:
            return await self.h.slash(user, self.channel, "abyssinia buy", **{"from": source})
        return await self.h.click(user, self.table, next(c for c in ids if f":{source}:" in c))

    def check_privacy(self, ended: Hand | None = None) -> None:
        super().check_privacy(ended)
        if ended is not None:
            seen = public_view(ended)
            cards = {c for s in seen.seats for c in s.open_cards}
            cards |= {c for shown in seen.shown.values() for c in shown}
            self.shown_before = [*self.shown_before[-1:], cards]
