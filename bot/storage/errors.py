"""The errors the storage layer raises on purpose, each with what was refused and why."""

from __future__ import annotations


class StorageError(Exception):
    """Base class of the errors the Store raises on purpose."""


class UnknownAccount(StorageError):
    def __init__(self, guild_id: int, user_id: int) -> None:
        super().__init__(f"no chip account for user {user_id} in guild {guild_id}")
        self.guild_id = guild_id
        self.user_id = user_id


class UnknownTable(StorageError):
    def __init__(self, channel_id: int) -> None:
        super().__init__(f"no table in channel {channel_id}")
        self.channel_id = channel_id


class TableClosed(UnknownTable):
    """The channel's table row is closed, or was closed and opened anew (another
    generation) since the writer read it: nothing of the write is stored."""

    def __init__(self, channel_id: int, generation: int | None = None) -> None:
        StorageError.__init__(
            self,
            f"the table in channel {channel_id} is closed or was replaced "
            f"(generation {generation})",
        )
        self.channel_id = channel_id
        self.generation = generation


class UnknownHand(StorageError):
    def __init__(self, hand_id: int) -> None:
        super().__init__(f"no hand #{hand_id}")
        self.hand_id = hand_id


class HandNotLive(StorageError):
    def __init__(self, hand_id: int) -> None:
        super().__init__(f"hand #{hand_id} is already complete")
        self.hand_id = hand_id


class OutOfSequence(StorageError):
    """An action/reshuffle index that is not the next one (e.g. a duplicate)."""

    def __init__(self, hand_id: int, expected: int, got: int) -> None:
        super().__init__(f"hand #{hand_id}: expected index {expected}, got {got}")
        self.hand_id = hand_id
        self.expected = expected
        self.got = got


class InsufficientChips(StorageError):
    def __init__(self, user_id: int, available: int, needed: int | None = None) -> None:
        wanted = "" if needed is None else f", needs {needed}"
        super().__init__(f"user {user_id} has only {available} chips available{wanted}")
        self.user_id = user_id
        self.available = available
        self.needed = needed


class RefillRefused(StorageError):
    """The message says why, with the numbers; ``code`` and ``params`` say it as data."""

    def __init__(self, message: str, code: str, **params: int) -> None:
        super().__init__(message)
        self.code = code
        self.params = params


class BadSettlement(StorageError, ValueError):
    """finish_hand nets that do not sum to 0, name a stranger, or exceed a hold."""


class PlayerInHand(Exception):
    """The player has chips held in a hand still being played; nothing was erased."""

    def __init__(self, guild_id: int, user_id: int) -> None:
        super().__init__(f"user {user_id} of guild {guild_id} is in a live hand")
        self.guild_id = guild_id
        self.user_id = user_id


class TableHasLiveHand(StorageError):
    """A table cannot close while a hand of it is live: settle or cancel the hand first."""

    def __init__(self, channel_id: int, hand_id: int | None = None) -> None:
        which = "a live hand" if hand_id is None else f"live hand #{hand_id}"
        super().__init__(
            f"the table in channel {channel_id} has {which}: settle or cancel it before closing"
        )
        self.channel_id = channel_id
        self.hand_id = hand_id
