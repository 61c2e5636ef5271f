"""The slash commands' fixed choices, each derived from the one place its list lives.

The games are the engine's ``VARIANTS`` (adding a game there adds it to every command that
offers a game); /stats' kinds of hands are ``StatsKind``; the server languages and who may
open a table are the storage rows' ``Language`` and ``OpenBy``. discord.py reads these
``Literal`` annotations at run time and sends their values as the commands' choices.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from bot.engine import VARIANTS
from bot.storage.rows import Language, OpenBy, RemindBy
from bot.storage.totals import StatsKind

if TYPE_CHECKING:
    Game = str  # a key of VARIANTS; mypy cannot follow a Literal built at run time
    HandKind = str  # a StatsKind value
else:
    Game = Literal[tuple(VARIANTS)]
    HandKind = Literal[tuple(k.value for k in StatsKind)]

__all__ = ["Game", "HandKind", "Language", "OpenBy", "RemindBy"]
