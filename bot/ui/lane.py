"""What a table's presenter parts share: the presenter as they see it, a click carrying the table.

The presenter (``bot/ui/presenter.py``) keeps a lane per table: its table message
(``bot/ui/table_message.py``, the only owner of the message's state) and its send queue
(``bot/ui/sends.py``). Both use the presenter through ``Host``; a click that carries the
table is a ``Carrier``, and what it leaves for later edits a ``Voice``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import discord

from bot.tables.models import TableEvent

from .languages import ServerLanguages

if TYPE_CHECKING:
    from bot.storage.tables import Tables
    from bot.tables.manager import TableManager

RECENT_LINES = 6
#: Discord forgets an interaction token this long after the interaction (50027 after it)
TOKEN_LIFETIME = 15 * 60

Job = Callable[[], Awaitable[None]]


class Host(Protocol):
    """What the workers use of the presenter: read at each use (tests and the benchmark
    change them on a running presenter), and the counters the benchmark reads."""

    client: discord.Client
    languages: ServerLanguages  # each server's, for its public messages
    manager: TableManager
    messages: Tables  # where each table message's id is kept
    clock: Callable[[], float]
    repost_age: float
    answer_within: float
    reuse_tokens: bool
    retry_delays: tuple[float, ...]
    request_timeout: float
    edits: int
    carried: int
    token_edits: int
    carried_late: int


def token_alive(created: float, now: float) -> bool:
    """Whether an interaction made at ``created`` still has a minute of its token's life."""
    return now - created < TOKEN_LIFETIME - 60


@dataclass
class Carrier:
    """A click on the table message whose answer carries the table: while it is held, the
    lane's editor leaves the table message to it, and a result it causes is its public
    followup."""

    interaction: discord.Interaction
    #: the event loop's time by which the click is answered: with the table if it is ready
    #: by then, else by a deferral (the table follows as an edit of the original response)
    answer_by: float = float("inf")
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    ok: bool = False  # the table went out with the answer

    def usable(self, now: float) -> bool:
        return self.ok and token_alive(self.interaction.created_at.timestamp(), now)


@dataclass
class Voice:
    """What a click that carried the table leaves for later edits of the table message: its
    followup webhook (the interaction's token), the message it answered and when. Not the
    interaction itself: with its message, components, member and responses that is about a
    hundred objects per table, kept for 15 minutes, that every full garbage collection walks
    with the event loop stopped."""

    webhook: discord.Webhook
    message_id: int
    created: float  # the interaction's time (its token's age)

    @classmethod
    def of(cls, interaction: discord.Interaction, message_id: int) -> Voice:
        return cls(interaction.followup, message_id, interaction.created_at.timestamp())

    def usable(self, now: float) -> bool:
        return token_alive(self.created, now)


@dataclass
class Line:
    #: the event until it is worded; then only its words are kept (a whole table view per
    #: line would be most of what a table keeps alive between actions)
    event: TableEvent | None
    text: str | None = None
