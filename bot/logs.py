"""How the bot's log lines look: text (``time LEVEL logger: message``) or one JSON object a line.

``LOG_FORMAT=json`` writes each record as one JSON object with the guild, channel, hand and
user ids as fields. The ids come from ``log_context``, set where the work for one of them
begins (a table's step, an interaction from the gateway) and inherited by the tasks it
starts, or from a record's own ``extra``. Either format masks the secrets it is given
(the token, the database URL's password), should a library ever print one.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import sys
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
ID_FIELDS = ("guild_id", "channel_id", "hand_id", "user_id")
MASK = "********"

Ids = dict[str, int] | None
_ids: contextvars.ContextVar[Ids] = contextvars.ContextVar("log_ids", default=None)


class LogFormat(StrEnum):
    TEXT = "text"
    JSON = "json"


@contextlib.contextmanager
def log_context(**ids: int | None) -> Iterator[None]:
    """The log records made inside (and in tasks started inside) carry these ids."""
    token = _ids.set(with_ids(**ids))
    try:
        yield
    finally:
        _ids.reset(token)


def with_ids(**ids: int | None) -> dict[str, int]:
    """The ids in force now, with these added (None leaves an id out)."""
    merged = dict(_ids.get() or {})
    merged.update({k: v for k, v in ids.items() if v is not None})
    return merged


def set_ids(**ids: int | None) -> contextvars.Token[Ids]:
    """Set ids for the rest of this context (``_ids.reset(token)`` undoes it)."""
    return _ids.set(with_ids(**ids))


def reset_ids(token: contextvars.Token[Ids]) -> None:
    _ids.reset(token)


class _Masking(logging.Formatter):
    """A formatter that masks the secrets in whatever it writes."""

    def __init__(self, secrets: Iterable[str] = (), fmt: str | None = None) -> None:
        super().__init__(fmt)
        self.secrets = sorted({s for s in secrets if len(s) >= 4}, key=len, reverse=True)

    def mask(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        return text


class TextFormatter(_Masking):
    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__(secrets, TEXT_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        return self.mask(super().format(record))


class JsonFormatter(_Masking):
    """One JSON object a line: time, level, logger, message, the ids, and the traceback."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": self.mask(record.getMessage()),
        }
        ids = dict(_ids.get() or {})
        for name in ID_FIELDS:
            value = getattr(record, name, None)  # logging's extra={...}
            if isinstance(value, int):
                ids[name] = value
        entry.update((name, ids[name]) for name in ID_FIELDS if name in ids)
        if record.exc_info:
            entry["exception"] = self.mask(self.formatException(record.exc_info))
        if record.stack_info:
            entry["stack"] = self.mask(self.formatStack(record.stack_info))
        return json.dumps(entry, ensure_ascii=False, default=str)


def configure(kind: LogFormat, level: int, secrets: Iterable[str] = ()) -> None:
    """Give the root logger one standard-error handler in this format, at this level."""
    formatter: logging.Formatter
    formatter = JsonFormatter(secrets) if kind is LogFormat.JSON else TextFormatter(secrets)
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    root.addHandler(handler)
    root.setLevel(level)
