"""Clicking through the fake Discord: who is to act at the table, a presenter patient
enough for a busy machine, and a bot on a clock the test moves."""

from __future__ import annotations

import random
import time
from pathlib import Path

from bot.client import PokerBot
from bot.settings import Settings
from fakediscord.harness import DiscordHarness
from fakediscord.poker import PLAYERS, TABLE, uid


def to_act(h: DiscordHarness) -> dict:
    view = h.bot.manager.view(TABLE)  # type: ignore[attr-defined]
    return next(p for p in PLAYERS if uid(p) == view.to_act_user)


def patient(h: DiscordHarness) -> None:
    """No slow step is injected here: let a step on this busy machine take up to 2.5 s (under
    Discord's 3 s) before the click is deferred, so the answer is UPDATE_MESSAGE whatever the
    load. The deferral itself is tested with ``answer_within = 0``."""
    h.bot.presenter.answer_within = 2.5  # type: ignore[attr-defined]


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
