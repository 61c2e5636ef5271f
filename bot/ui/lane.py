"""One table's presenter state (its lane), and what the lane's workers use of the presenter.

The presenter (``bot/ui/presenter.py``) keeps a lane per table; its edit worker
(``bot/ui/table_message.py``) and send worker (``bot/ui/sends.py``) read and change it.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

import discord

from bot.tables.models import TableEvent

from .render import Board
from .text import event_line

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
    manager: TableManager
    messages: Tables  # where each table message's id is kept
    clock: Callable[[], float]
    repost_age: float
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


@dataclass(eq=False)
class Lane:
    """One table's presenter state."""

    channel_id: int
    message_id: int | None
    #: the Recent log: each event is worded when first shown, in the server's language then,
    #: and keeps those words (it is history)
    log: deque[Line] = field(default_factory=lambda: deque(maxlen=RECENT_LINES))
    dirty: asyncio.Event = field(default_factory=asyncio.Event)
    sends: asyncio.Queue[tuple[str, Job]] = field(default_factory=asyncio.Queue)
    repost: bool = False
    editing: bool = False
    sending: bool = False
    failures: int = 0  # edit failures in a row, for the backoff
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    #: one edit of the table message in flight, by the editor or by a click's answer
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    version: int = 0  # events absorbed: a carried view is the latest if none came since
    held: int = 0  # clicks whose answers will carry the table
    unheld: asyncio.Event = field(default_factory=asyncio.Event)
    carrier: Carrier | None = None
    #: the board the table message's attachment shows: an edit that shows the same board
    #: keeps the attachment instead of uploading it again
    board: Board | None = None
    #: the latest click whose answer carried the table: for 15 minutes its token can edit
    #: the table message (its original response) outside the global limit
    voice: Voice | None = None
    retired: bool = False  # its table closed: it ends once its queue is empty

    def __post_init__(self) -> None:
        self.unheld.set()

    def hold(self, carrier: Carrier) -> None:
        """A click whose answer will carry the table: the editor leaves the message to it."""
        self.held += 1
        self.unheld.clear()
        self.carrier = carrier

    def release(self, carrier: Carrier) -> None:
        """The click is answered (or failed): the editor shows whatever is left after it."""
        carrier.answered.set()
        if self.carrier is carrier:
            self.carrier = None
        self.held -= 1
        if self.held == 0:
            self.unheld.set()

    def busy(self) -> bool:
        return (
            self.dirty.is_set()
            or self.editing
            or self.sending
            or self.held > 0
            or not self.sends.empty()
        )

    def recent(self) -> list[str]:
        """The Recent log's lines (new ones worded in the language being built now)."""
        lines = self.log
        for line in lines:
            if line.event is not None:
                line.text, line.event = event_line(line.event), None
        return [line.text or "" for line in lines]
