"""Plain data of the table layer: seats, settings, outcomes, and the views handed to Discord.

Nothing here speaks English: refusals, outcomes and events carry a stable code and
named parameters, and ``bot/ui`` turns them into words.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bot.engine import PublicView, SeatView

from .tournament_mode import LevelView


class Code(StrEnum):
    """Why a request was refused. The UI's catalog has one message per code."""

    NO_TABLE = "no_table"  # no table in the channel
    TABLE_EXISTS = "table_exists"  # variant: the existing table's game
    UNKNOWN_GAME = "unknown_game"  # game, games: the known ids
    BAD_SEATS = "bad_seats"  # variant, games (a mixed table's), min, max, given
    BAD_TIMEOUT = "bad_timeout"  # min, max, given
    ALREADY_SEATED = "already_seated"
    TABLE_FULL = "table_full"  # seats
    NOT_SEATED = "not_seated"  # variant: join with it
    NOT_DEALT_IN = "not_dealt_in"  # seated, but not in the running hand
    NO_HAND = "no_hand"  # variant: no hand running; deal with it
    HAND_RUNNING = "hand_running"  # a hand is already being played
    TOO_FEW_PLAYERS = "too_few_players"  # skipped: tuple[Skip, ...]
    CANNOT_COVER_MINIMUM = "cannot_cover_minimum"  # user, available, minimum (a race)
    STALE_BUTTON = "stale_button"  # a button drawn for an earlier turn or hand
    NOT_YOUR_TURN = "not_your_turn"  # waiting_for: user id, name
    ILLEGAL_ACTION = "illegal_action"  # action, reason (engine code), legal, + engine params
    BAD_CARDS = "bad_cards"  # token: the text that is not a card
    TABLE_BUSY = "table_busy"  # the table cannot take the request right now
    REFILL_IN_HAND = "refill_in_hand"  # held
    REFILL_NOT_LOW = "refill_not_low"  # balance, minimum
    REFILL_AT_GRANT = "refill_at_grant"  # balance, grant
    # server controls (issue 9)
    MODERATORS_ONLY = "moderators_only"  # e.g. close with force
    CLOSE_NOT_YOURS = "close_not_yours"  # neither a moderator nor the opener
    CLOSE_OTHERS_SEATED = "close_others_seated"  # count: other players seated
    TABLE_CLOSING = "table_closing"  # closes when the hand ends: no joins, no deals
    KICK_NOT_SEATED = "kick_not_seated"  # the player to kick has no seat here
    KICKED_WAIT = "kicked_wait"  # kicked during this hand: rejoin when it ends
    GUILD_ELSEWHERE = "guild_elsewhere"  # another bot process holds this server's tables
    NO_BOT = "no_bot"  # no computer player to remove
    UNKNOWN_LEVEL = "unknown_level"  # level, levels: the known ones
    NOT_PRACTICE = "not_practice"  # hints are for practice tables (with computer players)
    NO_PERSON_DEALT = "no_person_dealt"  # skipped: a practice hand needs a person dealt in
    TOO_MANY_TABLES = "too_many_tables"  # most: the server's open tables are at its cap
    # mixed tables (issue 38)
    BAD_ROTATION = "bad_rotation"  # given, kinds: the known rotations
    MIX_TOO_FEW = "mix_too_few"  # games: the different games given (fewer than two)
    BAD_EVERY = "bad_every"  # min, max, given: hands per game
    NOT_MIXED = "not_mixed"  # a mixed-table request at a one-game table
    NO_CHOICE_NOW = "no_choice_now"  # dealer's choice: nothing to choose now
    NOT_CHOOSER = "not_chooser"  # chooser, name: whose choice it is
    CHOICE_PENDING = "choice_pending"  # chooser, name, deadline: no deal before the choice
    TOURNAMENT_TABLE = "tournament_table"  # a tournament's table: seats come from registering


class Refused(Exception):
    """A request the table cannot honour now: ``code`` says why, ``params`` give the facts."""

    def __init__(self, code: Code, **params: Any) -> None:
        super().__init__(code.value)
        self.code = code
        self.params = params

    def __str__(self) -> str:  # for logs and test failures only; users see the catalog text
        details = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{self.code.value}({details})"


class SkipReason(StrEnum):
    """Why a seated player was not dealt in."""

    SITTING_OUT = "sitting_out"
    SHORT = "short"  # fewer chips than the table's minimum


@dataclass(frozen=True)
class Skip:
    """A seated player not dealt in, and why."""

    user_id: int
    name: str
    reason: SkipReason
    available: int = 0
    minimum: int = 0


class Done(StrEnum):
    """What a seating request did (join, leave, sit_out)."""

    SEATED = "seated"  # seat (1-based), available, minimum
    STAYING = "staying"  # had asked to leave; stays
    LEFT = "left"
    LEAVING = "leaving"  # leaves when the hand ends
    SITTING_OUT = "sitting_out"  # after_hand: bool
    BACK = "back"
    BOT_SEATED = "bot_seated"  # name, seat (1-based), level
    BOT_LEFT = "bot_left"  # name


@dataclass(frozen=True)
class Outcome:
    code: Done
    params: dict[str, Any] = field(default_factory=dict)


#: timeouts in a row that sit a player out (README.md: "Two timeouts in a row")
TIMEOUTS_TO_SIT_OUT = 2


@dataclass
class SeatState:
    seat: int  # fixed position at the table; clockwise order is seat order
    user_id: int
    name: str
    sitting_out: bool = False
    leaving: bool = False  # leaves when the current hand ends
    timeouts: int = 0  # timeouts in a row
    bot: str | None = None  # a computer player's level (a practice table)
    stack: int | None = None  # chips at a practice table; the ledger is never touched there

    @property
    def asleep(self) -> bool:
        """Timed out too often in a row: the player sits out."""
        return self.timeouts >= TIMEOUTS_TO_SIT_OUT


@dataclass(frozen=True)
class TableSettings:
    seat_limit: int
    turn_timeout: float
    auto_deal: bool = False


@dataclass(frozen=True)
class MixedView:
    """Where a mixed table's rotation stands, for its message."""

    kind: str  # orbit, hands or choice
    games: tuple[str, ...]
    now: str  # the game of the hand in play, or of the next hand
    left: int  # hands of ``now`` still to deal after the one in play
    next: str | None  # the game after ``now``'s block (None: the next chooser picks it)
    chooser: int | None = None  # a choice awaited: whose (user id)
    chooser_name: str | None = None
    deadline: float | None = None  # the choice's deadline (unix time)
    every: int = 0  # hands per game of a hands rotation


@dataclass(frozen=True)
class TableView:
    """Everything anyone may see of a table: no hidden card is in here."""

    channel_id: int
    guild_id: int
    variant: str
    settings: TableSettings
    seats: tuple[SeatState, ...]
    button: int | None  # seat number of the last (or current) dealer
    hand_id: int | None
    hand: PublicView | None  # None between hands
    turn: int  # actions applied so far in this hand: stale buttons carry an older number
    deadline: float | None  # unix time the player to act times out
    names: dict[str, str]  # hand player key -> display name
    to_act_user: int | None
    closing: bool = False  # the table closes when this hand ends
    closed: bool = False  # the table is closed: its message keeps no buttons
    review_hand_id: int | None = None  # a practice table's last hand, to review between hands
    mixed: MixedView | None = None  # a mixed table's rotation
    level: LevelView | None = None  # a tournament table's level (TableManager.view)
    tournament_id: int | None = None  # a tournament's table (a Sit & Go's or a multi-table's)

    def name(self, player: str) -> str:
        return self.names.get(player, player)


@dataclass(frozen=True)
class Move:
    """One applied action, as the public may know it: discards count cards, never name them."""

    player: str  # hand player key
    name: str  # display name
    action: str  # check, bet, call, raise, fold, discard, buy
    count: int = 0  # discard: cards thrown (0 = stands pat)
    source: str | None = None  # buy: left, right or blind
    card: int | None = None  # buy: the card bought (open for everyone)
    timeout: bool = False  # the turn timer acted


class EventKind(StrEnum):
    """What happened at a table: the kinds of ``TableEvent`` (each equals its string)."""

    OPENED = "opened"
    SEATED = "seated"
    LEFT = "left"
    SITOUT = "sitout"
    BACK = "back"
    DEALT = "dealt"
    ACTION = "action"
    TIMEOUT = "timeout"
    FINISHED = "finished"
    CLOSING = "closing"
    CLOSED = "closed"
    KICKED = "kicked"
    REFRESHED = "refreshed"
    CHOSEN = "chosen"


@dataclass(frozen=True)
class TableEvent:
    """Something happened at a table; the Discord layer re-renders from ``view``.

    ``kind`` and its ``params``:
      OPENED    {}
      SEATED    user_id, name, seat (1-based)
      LEFT      user_id, name
      SITOUT    user_id, name
      BACK      user_id, name
      DEALT     players: tuple of names dealt in, skipped: tuple[Skip, ...]
      ACTION    (``move``)
      TIMEOUT   (``move``, with move.timeout)
      FINISHED  {} (``result`` and ``hand_id``)
      CLOSING   {} (closes when the hand in play ends; ``view.closing``)
      CLOSED    gone: the table's thread or channel is gone; idle: closed for want of play
                (``view.closed``;
                ``hand_id``: the hand cancelled by a forced close, else None)
      KICKED    user_id, name (a moderator removed them; ``view`` shows if they still play)
      REFRESHED {} (the table was reloaded from the database: show ``view`` as it is)
      CHOSEN    user_id, name, game, timeout (a mixed table's next game was chosen)
    """

    kind: EventKind
    view: TableView
    params: dict[str, Any] = field(default_factory=dict)
    move: Move | None = None
    cards_changed: tuple[int, ...] = ()  # users whose own cards changed (send them their hand)
    result: PublicView | None = None  # the finished hand, when kind is FINISHED
    hand_id: int | None = None

    def __post_init__(self) -> None:
        # A kind given as its string becomes the enum; a misspelt kind fails here, loudly.
        object.__setattr__(self, "kind", EventKind(self.kind))


@dataclass(frozen=True)
class ActionResult:
    move: Move  # what happened, for the acting player
    view: TableView
    seat: SeatView  # the actor's own view after the action (private)
