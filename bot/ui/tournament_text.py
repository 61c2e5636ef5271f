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
    # ----- mixed Sit & Gos (issue 38 item 4, wt/mixtour): one block, for easy merges
    "sng.refused.sng_mix_games": (
        "A mixed Sit & Go plays {min} to {max} different games, not {given}."
    ),
    "sng.refused.sng_bad_rotation": "Unknown rotation {given}: the rotations are {kinds}.",
    "sng.refused.sng_bad_every": "The hands of each game must be from {min} to {max}, not {given}.",
    "sng.refused.sng_mix_seats": "A Sit & Go of {games} has {min} to {max} seats, not {given}.",
    "sng.refused.game_and_games": (
        "Give either game (one game) or games (a mixed Sit & Go), not both."
    ),
    "sng.refused.no_game": "Give the game, or the games of a mixed Sit & Go.",
    "sng.rotation.level": "one game a level, in turn",
    "sng.reg.mixed": "Mixed: {games}; {rotation}.",
    "sng.reg.first_level.game": "Level 1, {game}: {stakes}.",
    "sng.level.mixed": "Level {level}, {game}: {stakes}. Next: {next_game}, {next} in {time}.",
    # ----- the public summary at the end
    "sng.summary.title": "🏆 Sit & Go #{id} ({game}) is over.",
    "sng.summary.hands": "Hands played: {hands}. The longest: hand #{hand_id}, {actions} actions.",
    "sng.summary.place.prize": "{place}. {name}: {prize} chips",
    "sng.summary.place": "{place}. {name}",
    # ----- /sitngo: the registration message, its buttons, the answers, the standings
    "sng.reg.title": "Sit & Go #{id}: {game}",
    "sng.reg.structure": (
        "{seats} seats, {speed} levels of {minutes} minutes, starting stack {stack} chips."
    ),
    "sng.reg.first_level": "Level 1: {stakes}.",
    "sng.speed.turbo": "turbo",
    "sng.speed.regular": "regular",
    "sng.speed.slow": "slow",
    "sng.reg.fee": "Entry fee {fee} chips; prize pool now {pool} chips.",
    "sng.reg.freeroll": "Freeroll: no entry fee.",
    "sng.reg.payouts": "Paid now: {shares}.",
    "sng.reg.share": "{place}. {percent} %",
    "sng.reg.field.structure": "Structure",
    "sng.reg.field.entry": "Entry and payouts",
    "sng.reg.field.players": "Players ({count}/{seats})",
    "sng.reg.field.status": "Where it stands",
    "sng.reg.nobody": "Nobody yet.",
    "sng.status.registering": (
        "Registering: it starts when the seats are full; its creator or a moderator may "
        "start it early with {command}."
    ),
    "sng.status.running": "Playing in {thread}.",
    "sng.status.finished": "Finished: {winner} won.",
    "sng.status.cancelled": "Cancelled: every entry fee was given back.",
    "sng.button.register": "Register",
    "sng.button.unregister": "Unregister",
    "sng.created": "Sit & Go #{id} is open for registration: {link}",
    "sng.registered": "You are registered for Sit & Go #{id}.",
    "sng.unregistered": "You are no longer registered for Sit & Go #{id}.",
    "sng.started": "Sit & Go #{id} has started in {thread}.",
    "sng.cancelled": "Sit & Go #{id} is cancelled: every entry fee was given back.",
    "sng.none_here": "There is no open Sit & Go in this channel: give its number.",
    "sng.thread.name": "Sit & Go #{id} {game}",
    "sng.standings.title": "Sit & Go standings",
    "sng.standings.row": (
        "{rank}. {name}: points {points} · wins {wins} · cashes {cashes} · entries {entries}"
    ),
    "sng.standings.empty": "No Sit & Go has finished on this server yet.",
    "sng.standings.page": "Page {page} of {pages}",
    # ----- practice Sit & Gos: computer players take seats (issue 36 item 7)
    "sng.refused.sng_bad_bots": (
        "Computer players: from {min} to {max} (a seat stays for a person), not {given}."
    ),
    "sng.refused.sng_bots_fee": (
        "A practice Sit & Go with computer players has no entry fee (you gave {given}): "
        "leave the fee out."
    ),
    "sng.refused.sng_unknown_level": "Unknown level {level}: the levels are {levels}.",
    "sng.refused.sng_no_person": (
        "Computer players never play alone: a person must register before it starts."
    ),
    "sng.practice.reg_title": "Practice Sit & Go #{id}: {game}",
    "sng.practice.entry": (
        "Practice: {count} computer players ({level}) take seats. No entry fee, no prizes, "
        "no standings or season points."
    ),
    "sng.practice.summary_title": "🏆 Practice Sit & Go #{id} ({game}) is over.",
}
