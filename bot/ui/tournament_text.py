"""The words of Sit & Go tournaments (issue 36), in one table.

Same shape as the catalog (``key -> text`` with named placeholders); the catalog
merges it into its own, so they are said through its ``t`` like every other word.
``bot/ui/tournaments.py`` composes them.
"""

from __future__ import annotations

MESSAGES: dict[str, str] = {
    "refused.tournament_table": (
        "This table belongs to a Sit & Go: only its registered players play here."
    ),
    # ----- refusals of Sit & Go requests, by code (bot/tournaments/service.py)
    "sng.refused.sng_unknown": "There is no such Sit & Go on this server.",
    "sng.refused.sng_unknown_game": "Unknown game {game}: the games are {games}.",
    "sng.refused.sng_bad_seats": "A Sit & Go of this game has {min} to {max} seats, not {given}.",
    "sng.refused.sng_bad_stack": (
        "The starting stack must be from {min} to {max} chips, not {given}."
    ),
    "sng.refused.sng_bad_fee": "The entry fee must be from 0 to {max} chips, not {given}.",
    "sng.refused.sng_too_many": "This server already has {most} open Sit & Gos, its most.",
    "sng.refused.sng_not_registering": (
        "Registration is closed: this Sit & Go has started, finished or been cancelled."
    ),
    "sng.refused.sng_not_running": "This Sit & Go is not being played.",
    "sng.refused.sng_not_open": "This Sit & Go is over already: it finished or was cancelled.",
    "sng.refused.sng_already_registered": "You are registered already.",
    "sng.refused.sng_full": "This Sit & Go is full: its {seats} seats are taken.",
    "sng.refused.sng_not_registered": "You are not registered for this Sit & Go.",
    "sng.refused.sng_short": (
        "The entry fee is {fee} chips, but you have {available} chips available."
    ),
    "sng.refused.sng_elsewhere": (
        "You are already in Sit & Go #{tournament_id} on this server: one at a time."
    ),
    "sng.refused.sng_too_few": (
        "A Sit & Go starts with at least two players; registered: {registered}."
    ),
    "sng.refused.sng_not_yours": "Only its creator or a moderator may do that.",
    "sng.refused.sng_not_in_play": "That player is not playing in this Sit & Go.",
    "sng.refused.sng_busy": "Registrations changed meanwhile: please try again.",
    # ----- the level line of a Sit & Go's table message
    "sng.level": "Level {level}: {stakes}. Next: {next} in {time}.",
    "sng.stakes.draw": "ante {ante}, bets {small_bet}/{big_bet}",
    "sng.stakes.triple": "blinds {small_blind}/{big_blind}, bets {small_bet}/{big_bet}",
    "sng.stakes.abyssinia": "ante {ante}, bet {bet}, cards {low}/{middle}/{ace}",
    "sng.time": "{minutes}:{seconds}",
    "history.sng": "Sit & Go #{id}, level {level}",
    # ----- the public summary at the end
    "sng.summary.title": "🏆 Sit & Go #{id} ({game}) is over.",
    "sng.summary.hands": "Hands played: {hands}. The longest: hand #{hand_id}, {actions} actions.",
    "sng.summary.place.prize": "{place}. {name}: {prize} chips",
    "sng.summary.place": "{place}. {name}",
}
