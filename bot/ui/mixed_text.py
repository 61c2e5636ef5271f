"""The words of mixed tables: their rotation, the table message's line, /mixed rules."""

from __future__ import annotations

from bot.tables.models import MixedView

from .catalog import t
from .text import esc, game, join_list, rotation_text, slash


def mixed_line(mixed: MixedView) -> str:
    """The table message's line: the game now, how many hands of it are left, the next."""
    if mixed.chooser is not None:
        deadline = f"<t:{int(mixed.deadline)}:R>" if mixed.deadline else "…"
        return t(
            "mixed.line.choosing",
            game=game(mixed.now),
            name=esc(mixed.chooser_name or "?"),
            deadline=deadline,
        )
    following = game(mixed.next) if mixed.next else t("mixed.next.choice")
    left = t("mixed.left", count=mixed.left)
    return t("mixed.line", game=game(mixed.now), left=left, next=following)


def mixed_rules(mixed: MixedView) -> str:
    """/mixed rules at a mixed table: its games, its rotation, what is shared."""
    games = join_list(game(g) for g in mixed.games)
    rotation = rotation_text(mixed.kind, mixed.every)
    return t("mixed.rules", games=games, rotation=rotation, command=slash("rules"))
