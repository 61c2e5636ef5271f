"""The error of a hand record that breaks the rules, shared by the record and stakes parsers."""

from __future__ import annotations


class RecordError(ValueError):
    """A record that breaks the rules; ``index`` is the bad action's, or None for the header."""

    def __init__(self, index: int | None, message: str) -> None:
        super().__init__(message)
        self.index = index
        self.message = message
