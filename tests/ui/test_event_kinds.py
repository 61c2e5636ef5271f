"""Table events are named by ``EventKind``: a misspelt kind fails where the event is made,
instead of matching no branch of the presenter (issue 35 item 5), and every kind the table
log shows has its words."""

from __future__ import annotations

import pytest

from bot.engine import VARIANTS
from bot.tables.models import EventKind, SeatState, TableEvent, TableSettings
from bot.tables.table import Table
from bot.ui import i18n
from bot.ui.catalog import MESSAGES
from bot.ui.text import event_line


def a_view():
    table = Table(
        channel_id=1,
        guild_id=2,
        variant=VARIANTS["a6-draw"],
        settings=TableSettings(seat_limit=8, turn_timeout=60),
        seats=[SeatState(0, 100, "Ann")],
    )
    return table.view()


def test_a_misspelt_event_kind_fails_where_the_event_is_made():
    with pytest.raises(ValueError, match="fnished"):
        TableEvent("fnished", a_view())  # type: ignore[arg-type]


def test_a_kind_given_as_its_string_is_the_enum():
    event = TableEvent("seated", a_view(), {"user_id": 100, "name": "Ann", "seat": 1})  # type: ignore[arg-type]
    assert event.kind is EventKind.SEATED
    assert event.kind == "seated"  # a StrEnum equals its string


# Actions and timeouts are worded from their move; a reload shows the table, no log line.
WORDED = sorted(set(EventKind) - {EventKind.ACTION, EventKind.TIMEOUT, EventKind.REFRESHED})


@pytest.mark.parametrize("kind", WORDED)
def test_every_kind_the_log_shows_has_its_words(kind):
    assert f"event.{kind}" in MESSAGES


def test_a_seated_event_reads_in_english():
    event = TableEvent(EventKind.SEATED, a_view(), {"user_id": 100, "name": "Ann", "seat": 1})
    with i18n.using("en"):
        assert event_line(event) == "Ann sits down in seat 1."
