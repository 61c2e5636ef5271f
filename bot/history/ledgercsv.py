"""Ledgers as CSV: one player's entries, and a server's players in one row each."""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Iterable

from bot.storage.rows import LedgerEntry, ServerLedgerRow

PLAYER_HEADER = ("time_utc", "kind", "amount", "balance_after", "hand_id", "game")
SERVER_HEADER = ("user_id", "name", "hands", "net", "refills", "refilled_chips", "balance")


def _stamp(when: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(when))


def player_ledger_csv(entries: Iterable[LedgerEntry]) -> str:
    """Grants, refills and each hand's net, oldest first as given."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(PLAYER_HEADER)
    for e in entries:
        writer.writerow(
            (
                _stamp(e.created_at),
                e.kind,
                e.amount,
                e.balance_after,
                e.hand_id or "",
                e.variant or "",
            )
        )
    return out.getvalue()


def server_ledger_csv(rows: Iterable[ServerLedgerRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(SERVER_HEADER)
    for r in rows:
        writer.writerow((r.user_id, r.name, r.hands, r.net, r.refills, r.refilled, r.balance))
    return out.getvalue()
