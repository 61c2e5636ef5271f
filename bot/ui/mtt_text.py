"""The words of multi-table tournaments (issue 37), in one table.

Same shape as the catalog (``key -> text`` with named placeholders); the catalog
merges it into its own. ``bot/ui/mtt.py`` composes them.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    "mtt.refused.mtt_past_start": "The start must be in the future.",
    "mtt.refused.mtt_channel_busy": (
        "Tournament #{tournament_id} is already open in this channel: one at a time."
    ),
    "mtt.refused.mtt_late_closed": (
        "Late registration has closed: it was open through level {levels}."
    ),
    # the Sit & Go refusals that name a Sit & Go, said of a multi-table tournament
    "mtt.refused.sng_unknown": "There is no such multi-table tournament on this server.",
    "mtt.refused.sng_not_registering": (
        "Registration is closed: this tournament has started, finished or been cancelled."
    ),
    "mtt.refused.sng_not_running": "This tournament is not being played.",
    "mtt.refused.sng_not_open": "This tournament is over already: it finished or was cancelled.",
    "mtt.refused.sng_full": "This tournament is full: it takes {seats} entrants.",
    "mtt.refused.sng_not_registered": "You are not registered for this tournament.",
    "mtt.refused.sng_elsewhere": (
        "You are already in tournament #{tournament_id} on this server: one at a time."
    ),
    "mtt.refused.sng_too_few": (
        "A tournament starts with at least two players; registered: {registered}."
    ),
    "mtt.unregistered": "You are no longer registered for tournament #{id}.",
    "mtt.refused.cap": "A tournament takes 2 to {max} entrants, not {given}.",
    "mtt.refused.game_and_games": (
        "Give either game (one game) or games (a mixed tournament), not both."
    ),
    "mtt.refused.no_game": "Give the game, or the games of a mixed tournament.",
    "mtt.refused.sng_mix_seats": "A table of {games} has {min} to {max} seats, not {given}.",
    "mtt.refused.mtt_bad_start_count": (
        "It can start when 2 to {max} players (its cap) have registered, not {given}."
    ),
    "mtt.refused.table_size": "A table of this game has 2 to {max} seats, not {given}.",
    "mtt.reg.title": "Tournament #{id}: {game}, multi-table",
    "mtt.reg.structure": (
        "Tables of {size} · up to {cap} entrants · {speed} levels of {minutes} min · "
        "{stack} chips each · late registration: {late} levels"
    ),
    "mtt.status.registering": "Registering: it starts when {cap} have registered, or with {start}.",
    "mtt.status.scheduled": "Registering: it starts {at} (or earlier with {start}).",
    "mtt.status.running": "Playing at {tables}.",
    "mtt.created": "Tournament #{id} is open for registration: {link}",
    "mtt.no_event": (
        "No Discord event was created: the bot lacks the Create Events permission here."
    ),
    "mtt.registered": "You are registered for tournament #{id}.",
    "mtt.registered_late": "You are registered late: your seat is at table {table}, {thread}.",
    "mtt.started": "Tournament #{id} has started: its tables are on its registration message.",
    "mtt.rescheduled": "Tournament #{id} now starts {at}.",
    "mtt.cancelled": "Tournament #{id} is cancelled: every entry fee was given back.",
    "mtt.none_here": "There is no open multi-table tournament in this channel.",
    "mtt.thread.name": "Tournament #{id} table {table}",
    "mtt.event.name": "Poker tournament #{id}: {game}",
    "mtt.moved": "Tournament #{id}: you were moved to table {table}, {thread}.",
    "mtt.summary.title": "🏆 Tournament #{id} ({game}) is over.",
    "mtt.summary.entrants": "Entrants: {count}.",
    # a list longer than its field or message: the first ones, then how many more
    "mtt.and_more": "… and {count} more",
}
