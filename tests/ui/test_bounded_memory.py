"""Memory that would grow with every user ever seen is bounded (issue 34 item 6.6)."""

from __future__ import annotations

from bot.ui.i18n import READERS_KEPT, Readers, resolve


def test_the_readers_languages_keep_the_latest_users_only():
    readers = Readers(kept=3)
    for user_id, locale in [(1, "vi"), (2, "pt-BR"), (3, "vi"), (1, "vi"), (4, "pt-BR")]:
        readers.put(user_id, resolve(locale))
    assert len(readers) == 3
    assert readers.get(1) == "vi"  # seen again lately: kept
    assert readers.get(4) == "pt_BR"
    assert readers.get(2) is None  # the least recent one is forgotten
    assert Readers().kept == READERS_KEPT
