"""The row types the storage API takes and returns, and their mapping from database rows."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from bot.storage.connection import Row

KEEP: Any = object()  # "leave the stored value (deadline, button) as it is"

OpenBy = Literal["anyone", "moderators"]
RemindBy = Literal["post", "dm"]  # a tournament reminder: a post that mentions, or DMs
Language = Literal["auto", "en-US", "pt-BR", "vi"]  # auto: the server's own locale
OPEN_BY: tuple[OpenBy, ...] = get_args(OpenBy)
LANGUAGES: tuple[Language, ...] = get_args(Language)
REMIND_BY: tuple[RemindBy, ...] = get_args(RemindBy)
DELETED_NAME = "deleted player"  # the accounts row that keeps an erased player's chips adding up


@dataclass(frozen=True, slots=True)
class TableRow:
    channel_id: int
    guild_id: int
    variant: str
    settings: dict[str, Any] = field(default_factory=dict)  # stored as settings_json
    button: int | None = None  # seat index of the dealer button
    turn_deadline: float | None = None  # unix time
    open: bool = True
    # which opening of the channel's table this is (each reopen counts one more); None
    # in a row to save: insert the table, or open it anew. Given: update that opening
    # only, refused (TableClosed) once it is closed or replaced. Not compared: rows
    # are equal by what they hold.
    generation: int | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class SeatRow:
    seat: int
    user_id: int
    display_name: str
    sitting_out: bool = False
    leaving: bool = False
    timeouts_in_row: int = 0
    bot: str | None = None  # a computer player's level (practice tables)
    practice_stack: int | None = None  # chips at a practice table, never the ledger's


@dataclass(frozen=True, slots=True)
class Account:
    guild_id: int
    user_id: int
    display_name: str
    balance: int
    held: int  # Σ holds of this user's live hands
    available: int  # balance - held
    granted: int
    refilled: int
    net_won: int
    hands_played: int  # settled hands; cancelled and practice hands are not played hands


@dataclass(frozen=True, slots=True)
class LiveHand:
    hand_id: int
    guild_id: int
    channel_id: int
    variant: str
    header: dict[str, Any]
    seat_users: list[int]  # user_id of header seat i
    holds: dict[int, int]  # user_id -> chips held
    reshuffles: list[list[str]]  # in index order
    actions: list[dict[str, Any]]  # in index order
    started_at: float
    names: dict[int, str] = field(default_factory=dict)  # user_id -> name (kept at each deal)


@dataclass(frozen=True, slots=True)
class LeaderboardRow:
    rank: int
    user_id: int
    display_name: str
    net_won: int
    hands_played: int
    balance: int


@dataclass(frozen=True, slots=True)
class HandSummary:
    hand_id: int
    channel_id: int
    variant: str
    completed_at: float
    net: int  # this user's result
    record: dict[str, Any]  # as hand_record()
    cancelled: bool = False  # voided by a forced close: every net is 0
    practice: bool = False  # played at a practice table: no chips moved
    tournament_id: int | None = None  # played in this Sit & Go (its stakes in the record)


@dataclass(frozen=True, slots=True)
class GuildSettings:
    """One server's settings; the defaults are what a server that never ran /settings gets."""

    guild_id: int
    allowed_channels: tuple[int, ...] = ()  # channels (and their threads) for tables; () = any
    moderator_role: int | None = None  # besides Manage Channels
    turn_timeout: float | None = None  # new tables' turn time; None = the bot's default
    auto_deal: bool | None = None  # new tables deal the next hand by themselves; None = default
    open_by: str = "anyone"  # one of OPEN_BY
    language: str = "auto"  # one of LANGUAGES
    idle_close_hours: float | None = None  # a table with no play closes after; 0: never
    mtt_remind: str = "post"  # one of REMIND_BY: how tournament reminders go out


@dataclass(frozen=True, slots=True)
class PlayerData:
    """Everything stored about one player on one server (for /privacy)."""

    account: Account
    created_at: float
    ledger_entries: int
    hands: int  # hand records that name this player
    seats: tuple[int, ...]  # channels where they hold a seat


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def account_of(row: Row) -> Account:
    held = int(row["held"])
    return Account(
        guild_id=row["guild_id"],
        user_id=row["user_id"],
        display_name=row["display_name"],
        balance=row["balance"],
        held=held,
        available=row["balance"] - held,
        granted=row["granted"],
        refilled=row["refilled"],
        net_won=row["net_won"],
        hands_played=row["hands_played"],
    )


def table_of(row: Row) -> TableRow:
    return TableRow(
        channel_id=row["channel_id"],
        guild_id=row["guild_id"],
        variant=row["variant"],
        settings=json.loads(row["settings_json"]),
        button=row["button"],
        turn_deadline=row["turn_deadline"],
        open=bool(row["open"]),
        generation=int(row["generation"]),
    )


def seat_of(row: Row) -> SeatRow:
    return SeatRow(
        seat=row["seat"],
        user_id=row["user_id"],
        display_name=row["display_name"],
        sitting_out=bool(row["sitting_out"]),
        leaving=bool(row["leaving"]),
        timeouts_in_row=row["timeouts_in_row"],
        bot=row["bot"],
        practice_stack=row["practice_stack"],
    )


def settings_of(row: Row) -> GuildSettings:
    auto = row["auto_deal"]
    return GuildSettings(
        guild_id=row["guild_id"],
        allowed_channels=tuple(json.loads(row["allowed_channels"])),
        moderator_role=row["moderator_role"],
        turn_timeout=row["turn_timeout"],
        auto_deal=None if auto is None else bool(auto),
        open_by=row["open_by"],
        language=row["language"],
        idle_close_hours=row["idle_close_hours"],
        mtt_remind=row["mtt_remind"],
    )


def check_seats(seats: Sequence[SeatRow]) -> None:
    check_unique("seat", (s.seat for s in seats))
    check_unique("user_id", (s.user_id for s in seats))


def check_unique(what: str, values: Iterable[int]) -> None:
    seen: set[int] = set()
    for value in values:
        if value in seen:
            raise ValueError(f"duplicate {what} {value}")
        seen.add(value)


@dataclass(frozen=True, slots=True)
class HandRow:
    """A stored hand as the exports read it: its record as stored (JSON data, its players
    keyed by user id); ``bot.history`` parses it."""

    hand_id: int
    guild_id: int
    channel_id: int
    variant: str
    started_at: float
    completed_at: float | None  # None: still being played
    record: dict[str, Any]
    names: dict[str, str] = field(default_factory=dict)  # seat player key -> display name
    users: dict[str, int] = field(default_factory=dict)  # seat player key -> user id (people)
    cancelled: bool = False
    practice: bool = False
    tournament_id: int | None = None  # a Sit & Go's hand (its stakes are its level's)


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    entry_id: int
    created_at: float
    kind: str  # grant, refill or hand
    amount: int
    balance_after: int
    hand_id: int | None = None
    variant: str | None = None  # the hand's game


@dataclass(frozen=True, slots=True)
class ServerLedgerRow:
    user_id: int
    name: str
    hands: int
    net: int
    refills: int  # how many refills
    refilled: int  # chips they brought
    balance: int
