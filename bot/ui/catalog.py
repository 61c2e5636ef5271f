"""Every word the bot says, in one table, looked up through one function: ``t``.

Keys are stable message ids, and the gettext msgids of the translations in
``bot/ui/locales`` (see ``bot.ui.i18n``); placeholders are named (``{name}``). A
``Plural`` entry picks its form by the ``count`` parameter; at ``count=0`` a
``<key>.zero`` entry, where there is one, says zero in words instead. Nothing outside this module
holds user-facing English: ``bot/ui`` composes messages from codes and data by calling
``t``, which answers in the language of the text being built.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from bot.rules_text import RULES_MESSAGES

from . import i18n
from .history_text import _messages as history_messages
from .mtt_text import MESSAGES as MTT_MESSAGES
from .server_text import MESSAGES as SERVER_MESSAGES
from .tournament_text import MESSAGES as TOURNAMENT_MESSAGES


class Plural(NamedTuple):
    """A message with a singular and a plural form, chosen by the ``count`` parameter."""

    one: str
    other: str


MESSAGES: dict[str, str | Plural] = {
    # ----- games
    "game.a6-draw": "Ace-to-Six Lowball Draw",
    "game.a5-draw": "Ace-to-Five Lowball Draw",
    "game.a5-triple": "Ace-to-Five Triple Draw",
    "game.abyssinia": "Abyssinia",
    # ----- refusals: why, then (where it helps) what to do
    "refused.no_table": "There is no table in this channel. Open one with {command}.",
    "refused.table_exists": "This channel already has a table ({game}). Use {command} here.",
    "refused.other_game": "This channel's table plays {game}. Use {command} here.",
    "refused.unknown_game": "Unknown game {game}. The games are {games}.",
    "refused.bad_seats": "{game} seats {min} to {max} players, not {given}.",
    "refused.bad_timeout": "The turn timeout must be between {min} and {max} seconds.",
    "refused.already_seated": "You are already seated here.",
    "refused.table_full": Plural(
        "The table is full ({count} seat).", "The table is full ({count} seats)."
    ),
    "refused.not_seated": (
        "You are not seated at this table. Join with {command} or the Join button."
    ),
    "refused.not_dealt_in": (
        "You are not dealt into this hand. You will be dealt into the next one."
    ),
    "refused.no_hand": "No hand is being played. Start one with {command} or the Deal button.",
    "refused.hand_running": "A hand is already being played at this table.",
    "refused.too_few_players": (
        "At least two players who can cover the table minimum are needed to deal."
    ),
    "refused.too_few_players.why": (
        "At least two players who can cover the table minimum are needed to deal. "
        "Not able to play: {skipped}."
    ),
    "refused.cannot_cover_minimum": (
        "{name} can no longer cover the table minimum of {minimum} ({available} chips available)."
    ),
    "refused.stale_button": "That button is from an earlier turn.",
    "refused.stale_button.your_turn": (
        "That button is from an earlier turn. It is your turn: {legal}."
    ),
    "refused.stale_button.waiting": (
        "That button is from an earlier turn. Waiting for {name} to act."
    ),
    "refused.stale_button.over": "That button is from an earlier hand, which is over.",
    "refused.already_applied": "Your {action} on that turn was already applied. {now}",
    "refused.not_your_turn": "It is not your turn: waiting for {name}.",
    "refused.not_your_draw": "It is not your turn to draw.",
    "refused.bad_cards": (
        "{token} is not a card: write the rank then the suit, like 8♣, 10♥ or K♦. {legend}"
    ),
    "refused.bad_cards.not_text": "Write the cards as text, like 8♣ K♦. {legend}",
    # the parser reads English suit letters: say which is which (c is hearts in pt and vi)
    "cards.legend": "Suit letters: c = ♣ clubs, d = ♦ diamonds, h = ♥ hearts, s = ♠ spades.",
    "refused.bad_source": "{source} is not a place to buy from: {legal}.",
    "refused.table_busy": "The table is busy with another request. Try again in a moment.",
    "refused.guild_elsewhere": "This server's tables are run by another copy of the bot right "
    "now (it is restarting). Try again in a minute.",
    "refused.refill_in_hand": (
        "No refill: you have {held} chips in a hand still being played. Refill after it finishes."
    ),
    "refused.refill_not_low": (
        "No refill: your balance {balance} is not below the smallest table minimum {minimum}."
    ),
    "refused.refill_at_grant": "No refill: your balance {balance} is already at least {grant}.",
    "refused.dm_only": "Poker tables live in server channels, not in DMs.",
    "refused.guild_only": "Chips are kept per server: use this in a server channel.",
    # illegal actions: the reason, then what is legal now
    "illegal": "You can't {action} now. Legal now: {legal}.",
    "illegal.nothing_owed": "You may not fold when nothing is owed. Legal now: {legal}.",
    "illegal.owes": "You owe {to_call} to stay in, so you can't check. Legal now: {legal}.",
    "illegal.no_bet.call": "There is no bet to call. Legal now: {legal}.",
    "illegal.no_bet.raise": "There is no bet to raise. Legal now: {legal}.",
    "illegal.bet_exists": "There is already a bet: call or raise it. Legal now: {legal}.",
    "illegal.capped": ("The betting is capped (one bet and three raises). Legal now: {legal}."),
    "illegal.not_held": "You don't hold {card}. Your cards: {cards}.",
    "illegal.named_twice": "A card is named twice in the discard.",
    # ----- what a request did
    "done.seated": "You sit in seat {seat} with {available} chips available.",
    "done.seated.short": (
        "You sit in seat {seat} with {available} chips available. You need {minimum} to be "
        "dealt in: use {command} when you are below {refill_below}."
    ),
    "done.staying": "You are staying at the table.",
    "done.leaving": "You will leave when this hand ends; you can still act until then.",
    "done.left": "You left the table.",
    "done.sitting_out": "You sit out. Use {command} again to come back.",
    "done.sitting_out.after_hand": (
        "You sit out after this hand. Use {command} again to come back."
    ),
    "done.back": "You are back and will be dealt into the next hand.",
    "done.bot_seated": (
        "{name} sits in seat {seat}. A table with computer players is a practice table: "
        "its hands move no chips and never count on the leaderboard."
    ),
    "done.bot_left": "{name} stands up.",
    # ----- practice tables: computer players and hints
    "bot.name": "🤖 {nick} ({level})",
    "bot.nick.0": "Dealer's Cousin",
    "bot.nick.1": "Lucky Deuce",
    "bot.nick.2": "Mr. Wheel",
    "bot.nick.3": "Aunt Six-Four",
    "bot.nick.4": "The Snowman",
    "bot.nick.5": "Rusty Kicker",
    "bot.nick.6": "Captain Pat",
    "level.easy": "easy",
    "level.normal": "normal",
    "level.hard": "hard",
    "hint.line": "💡 {level} would {what} here.",
    "hint.pat": "stand pat",
    "hint.draw": "draw {count}: keep {kept}",
    "hint.draw.all": "draw five",
    "hint.buy.left": "buy the left card",
    "hint.buy.right": "buy the right card",
    "hint.buy.blind": "buy blind",
    "review.title": "📘 Hand #{hand_id}: your decisions next to {level}",
    "review.same": "{n}. You: {played}. {level} would do the same ✓",
    "review.other": "{n}. You: {played}. {level} would {what}",
    "review.none": "You made no decision in that hand.",
    "review.threw": "threw {cards}",
    "refused.no_bot": "There is no computer player at this table.",
    "refused.unknown_level": "Unknown level: the levels are easy, normal and hard.",
    "refused.not_practice": (
        "Hints are given at practice tables only: tables with computer players."
    ),
    "refused.no_person_dealt": (
        "Computer players never play a hand among themselves: a person must be dealt in."
    ),
    "refused.too_many_tables": (
        "This server already has {most} open tables, its most: close one before opening another."
    ),
    "history.practice": "practice",
    "done.refill": "Refilled {added} chips. Refills don't count on the leaderboard.",
    "done.action": "✅ {line}",
    "done.dealt": "🃏 The cards are dealt.",
    # ----- public lines (the table's Recent log)
    "event.opened": "Table open: {game}. Join with {command}.",
    "event.seated": "{name} sits down in seat {seat}.",
    "event.left": "{name} leaves the table.",
    "event.left.erased": "A player leaves the table.",
    "event.sitout": "{name} sits out.",
    "event.back": "{name} is back.",
    "event.dealt": "Hand #{hand_id} is dealt to {names}.",
    "event.dealt.skipped": "Hand #{hand_id} is dealt to {names}. Not dealt in: {skipped}.",
    "event.finished": "Hand #{hand_id} is over.",
    "skip.sitting_out": "{name} is sitting out",
    "skip.short": "{name} has {available} chips, below the minimum {minimum}",
    "move.check": "{name} checks.",
    "move.bet": "{name} bets.",
    "move.call": "{name} calls.",
    "move.raise": "{name} raises.",
    "move.fold": "{name} folds.",
    "move.discard": Plural("{name} draws {count}.", "{name} draws {count}."),
    "move.pat": "{name} stands pat.",
    "move.buy": "{name} buys {source} ({card}).",
    "move.buy.blind": "{name} buys blind ({card}).",
    "move.timeout": "⏰ time's up: {line}",
    "list.join": "{items}",
    "list.sep": ", ",
    "list.sep.long": "; ",
    # ----- action names (legal-now lists and buttons)
    "action.check": "check",
    "action.bet": "bet",
    "action.call": "call",
    "action.raise": "raise",
    "action.fold": "fold",
    "action.discard": "discard (or stand pat)",
    "action.buy": "buy left, right or blind",
    "action.cost": "{action} ({cost})",
    "verb.check": "check",
    "verb.bet": "bet",
    "verb.call": "call",
    "verb.raise": "raise",
    "verb.fold": "fold",
    "verb.discard": "discard",
    "verb.buy": "buy",
    "source.left": "left",
    "source.right": "right",
    "source.blind": "blind",
    # ----- buttons, menus, choices
    "button.check": "Check",
    "button.bet": "Bet {cost}",
    "button.call": "Call {cost}",
    "button.raise": "Raise {cost}",
    "button.fold": "Fold",
    "button.draw": "Draw…",
    "button.pat": "Stand pat",
    "button.my_hand": "My hand",
    "button.review": "📘 Review my last hand",
    "button.join": "Join",
    "button.deal": "Deal",
    "button.offer": "{source}: {card} ({price})",
    "button.blind": "Blind (?)",
    "picker.placeholder": "Pick the cards to throw away",
    "picker.note": "Pick the cards to throw away, or stand pat.",
    "choice.pat": "stand pat (throw nothing)",
    "choice.throw": "throw {cards}",
    "choice.blind": "blind (unknown card, price after)",
    "choice.offer": "{source}: {card} for {price}",
    # ----- the table message
    "table.title.hand": "{game} — hand #{hand_id}",
    "table.title.idle": "{game} — between hands",
    "table.round.bet": "betting round {round} of {rounds}",
    "table.round.draw": "draw {round} of {rounds}",
    "table.round.buy": "buy {round} of {rounds}",
    "table.status": "**{round}** · pot **{pot}**",
    "table.turn.draw": "▶️ **{name}** to draw",
    "table.turn.buy": "▶️ **{name}** to buy",
    "table.turn.call": "▶️ **{name}** to call {to_call} (bet size {bet_size})",
    "table.turn.check": "▶️ **{name}** to check or bet {bet_size}",
    "table.deadline": "time runs out {when}",
    "table.idle": Plural(
        "{count} seated (of {limit}). Join with {join}, then {deal}.",
        "{count} seated (of {limit}). Join with {join}, then {deal}.",
    ),
    # a count that can be 0 says zero in words: Portuguese's plural rule would say "0 jogador"
    "table.idle.zero": "Nobody seated yet (of {limit}). Join with {join}, then {deal}.",
    "table.seats": "Seats",
    "table.nobody": "nobody yet",
    "table.recent": "Recent",
    "table.footer": (
        "Table minimum {minimum} · turn timer {timeout} s · {command} shows your cards"
    ),
    "table.market": "Market: {slots}",
    "table.market.slot": "{source} {card} ({price})",
    "table.market.blind": "blind ??",
    "seat.waiting": "waiting",
    "seat.sitting_out": "sitting out",
    "seat.stack": "stack {stack}",
    "seat.in_pot": "in pot {in_pot}",
    "seat.bet": "bet {bet}",
    "seat.drew": "drew {counts}",
    "seat.folded": "folded",
    "seat.sitting_out_next": "sitting out next hand",
    "seat.leaving": "leaving",
    "board.title": "{game} · {round}",
    "board.pot": "Pot {pot}",
    "board.empty": "empty",
    "board.costs": "costs {price}",
    "board.costs_unknown": "costs ?",
    # ----- a player's own hand
    "hand.title": "Your hand — {game}",
    "hand.where": "{channel} · hand #{hand_id}",
    "hand.your_turn": "Your turn",
    "hand.may": "You may: {actions}",
    "hand.may.draw": "Discard 0–5 cards with the Draw button or {command}, or stand pat.",
    "hand.may.buy": "Buy left, right or blind.",
    "hand.dm.dealt": "🃏 Your new hand.",
    "hand.dm.drawn": "🔄 Your cards after the draw.",
    "hand.split": "high: {high}; low: {low}",
    # ----- results
    "result.title": "Hand #{hand_id} — result",
    "result.showdown": "Showdown",
    "result.uncontested": "Everyone else folded: no cards are shown.",
    "result.shown": "**{name}**: {cards} — {hand}",
    "result.pot": "Pot ({amount})",
    "result.high": "High half ({amount})",
    "result.low": "Low half ({amount})",
    "result.wins": "**{name}** wins {chips}",
    "result.wins_with": "**{name}** wins {chips} with {hand}",
    "result.chips": "Chips",
    # ----- tournament hands: all-in players and side pots (RULES.md §8), one block
    "seat.all_in": "all-in",
    "pot.main": "Main pot",
    "pot.side": "Side pot {number}",
    "table.pot": "{pot} {amount}: {players}",
    "result.pot.named": "{pot} ({amount})",
    "result.high.named": "{pot}, high half ({amount})",
    "result.low.named": "{pot}, low half ({amount})",
    "result.returned": "**{name}** gets {chips} back: nobody else could win it",
    "board.all_in": "{name} (all-in)",
    "result.net": "{name} {net:+d}",
    # ----- general commands
    "leaderboard.title": "Leaderboard — net chips won",
    "leaderboard.row": Plural(
        "**{rank}.** {name} — {net:+d} in {count} hand",
        "**{rank}.** {name} — {net:+d} in {count} hands",
    ),
    "leaderboard.empty": "No one has played a hand on this server yet.",
    "leaderboard.beyond": Plural(
        "Page {page} is past the end: there is only {count} page.",
        "Page {page} is past the end: there are only {count} pages.",
    ),
    "leaderboard.footer": "Page {page} of {pages} · refills don't count",
    # ----- seasons (issue 37)
    "season.title": "Season {number} — standings",
    "season.title.named": "Season {number}, {name} — standings",
    "season.label": "Season {number}",
    "season.label.named": "Season {number}: {name}",
    "season.columns": "*Points · wins · cashes · entries · best finish*",
    "season.row": "**{rank}.** {name} — {points} · {wins} · {cashes} · {entries} · #{best}",
    "season.empty": "No tournament has finished in this season yet.",
    "season.when": "When",
    "season.running": "Since {start}, running",
    "season.window": "From {start} to {end}",
    "season.footer": "Page {page} of {pages}",
    "season.none": "No season is running. A moderator can start one with {command}.",
    "season.unknown": "This server has no season {number}.",
    "season.list.title": "Seasons",
    "season.list.row": "**{label}** ({kind}): {when}",
    "season.kind.monthly": "monthly",
    "season.kind.manual": "run by moderators",
    "season.started": "{label}: started. The season before it has ended.",
    "season.ended": "{label}: ended. {command} still shows its standings.",
    "season.none_running": "No season is running: there is nothing to end.",
    "balance": Plural(
        "You have **{balance}** chips ({available} available, {held} held in hands). "
        "Net won: {net:+d} in {count} hand; refills: {refilled}.",
        "You have **{balance}** chips ({available} available, {held} held in hands). "
        "Net won: {net:+d} in {count} hands; refills: {refilled}.",
    ),
    "balance.zero": (
        "You have **{balance}** chips ({available} available, {held} held in hands). "
        "No hand played yet; refills: {refilled}."
    ),
    "history.none": "You have no finished hands on this server yet.",
    "history.line": "**#{hand_id}** {game} · **{net:+d}** · {ago}",
    "history.folded": "you folded {cards}",
    "history.held": "you held {cards}",
    "history.players": "with {names}",
    "ago.minutes": Plural("{count} min ago", "{count} min ago"),
    "ago.hours": Plural("{count} h ago", "{count} h ago"),
    "ago.days": Plural("{count} d ago", "{count} d ago"),
    "rules.all_tables": "All tables",
    # ----- hand names, as players say them (bot/ui/hand_names.py)
    "handname.high_card": "{rank} high",
    "handname.low": "{cards}, {top}-{second} low",
    "handname.low.wheel": "{cards}, the wheel",
    "handname.low.number_one": "{cards}, the number one",
    "handname.pair": "pair of {ranks}",
    "handname.two_pair": "two pair, {high} and {low}",
    "handname.trips": "three {ranks}",
    "handname.straight": "{rank}-high straight",
    "handname.straight.wheel": "the wheel, a five-high straight",
    "handname.flush": "{rank}-high flush",
    "handname.full_house": "full house, {trips} full of {pair}",
    "handname.quads": "four {ranks}",
    "handname.straight_flush": "{rank}-high straight flush",
    "handname.royal_flush": "royal flush",
    # ----- cards spelled out (symbols stay as they are)
    "card.name": "{rank} of {suit}",
    "suit.c": "clubs",
    "suit.d": "diamonds",
    "suit.h": "hearts",
    "suit.s": "spades",
    "rank.2": "deuce",
    "rank.3": "three",
    "rank.4": "four",
    "rank.5": "five",
    "rank.6": "six",
    "rank.7": "seven",
    "rank.8": "eight",
    "rank.9": "nine",
    "rank.T": "ten",
    "rank.J": "jack",
    "rank.Q": "queen",
    "rank.K": "king",
    "rank.A": "ace",
    "ranks.2": "deuces",
    "ranks.3": "threes",
    "ranks.4": "fours",
    "ranks.5": "fives",
    "ranks.6": "sixes",
    "ranks.7": "sevens",
    "ranks.8": "eights",
    "ranks.9": "nines",
    "ranks.T": "tens",
    "ranks.J": "jacks",
    "ranks.Q": "queens",
    "ranks.K": "kings",
    "ranks.A": "aces",
    # "the king" where a language needs the article ("sequência até o rei")
    "rank.the.5": "five",
    "rank.the.6": "six",
    "rank.the.7": "seven",
    "rank.the.8": "eight",
    "rank.the.9": "nine",
    "rank.the.T": "ten",
    "rank.the.J": "jack",
    "rank.the.Q": "queen",
    "rank.the.K": "king",
    "rank.the.A": "ace",
    # ----- errors
    "error.unexpected": (
        "Sorry, something went wrong on my side. Nothing was changed; please try again."
    ),
    "error.reply_failed": (
        "Your action was applied, but I could not show you the result. "
        "The table message shows the game as it is now."
    ),
    # ----- issue 34 items 5-6, issue 39 item 1 (wt/ui): one block, for easy merges
    "bot.name.stored": "🤖 {nick}",
    # ----- mixed tables (issue 38)
    "mixed.rotation.orbit": "one orbit of each game in turn",
    "mixed.rotation.hands": Plural(
        "{count} hand of each game in turn", "{count} hands of each game in turn"
    ),
    "mixed.rotation.hands.zero": "each game in turn",
    "mixed.rotation.choice": "dealer's choice: one orbit of the game each chooser picks",
    "mixed.line": "Now: {game} · {left} · next: {next}",
    "mixed.left": Plural("{count} hand left", "{count} hands left"),
    "mixed.left.zero": "last hand",
    "mixed.next.choice": "dealer's choice",
    "mixed.line.choosing": "Now: {game} · next: {name} chooses the game ({deadline})",
    "mixed.opened": "Mixed table: {games}, {rotation}.",
    "mixed.chose": "You chose {game} for the next orbit.",
    "mixed.menu": "Dealer's choice: the next game",
    "mixed.rules": (
        "**Mixed table**: {games}, {rotation}. The game changes only between hands: a hand "
        "is played to its end as the game it was dealt. The seats are the smallest maximum "
        "among the games, the table minimum the largest; antes and blinds are the game's. "
        "Each game's rules: {command}."
    ),
    "event.chosen": "{name} chooses {game} for the next orbit.",
    "event.chosen.timeout": "Time is up for {name}: the next orbit is {game}.",
    "refused.bad_rotation": "Unknown rotation {given}. The rotations are {kinds}.",
    "refused.mix_too_few": "A mixed table needs at least two different games.",
    "refused.bad_every": "The hands of each game must be between {min} and {max}.",
    "refused.not_mixed": "This channel's table plays one game: it is not a mixed table.",
    "refused.no_choice_now": "There is no game to choose now.",
    "refused.no_choice_now.late": (
        "Too late: the time to choose was up, so the next game in the list was taken."
    ),
    "refused.not_chooser": "It is {name}'s turn to choose the next game.",
    "refused.not_chooser.nobody": "Nobody is playing on to choose the next game.",
    "refused.choice_pending": (
        "{name} is choosing the next game ({deadline}); deal once it is chosen."
    ),
    # ----- multi-table tournaments: the scheduler's reminders (bot/ui/reminders.py)
    "mtt.remind.post": Plural(
        "**Tournament #{number}** ({game}) starts {when}: {count} player registered.",
        "**Tournament #{number}** ({game}) starts {when}: {count} players registered.",
    ),
    "mtt.remind.post_nobody": (
        "**Tournament #{number}** ({game}) starts {when}: nobody has registered yet."
    ),
    "mtt.remind.dm": Plural(
        "**Tournament #{number}** ({game}) in {channel} starts {when}. You are registered: "
        "{count} player so far.",
        "**Tournament #{number}** ({game}) in {channel} starts {when}. You are registered: "
        "{count} players so far.",
    ),
    "mtt.remind.cancelled": Plural(
        "**Tournament #{number}** ({game}) did not start: it needs at least 2 players and "
        "{count} registered. Every entry fee is back.",
        "**Tournament #{number}** ({game}) did not start: it needs at least 2 players and "
        "{count} registered. Every entry fee is back.",
    ),
    "mtt.remind.cancelled_nobody": (
        "**Tournament #{number}** ({game}) did not start: nobody registered."
    ),
}


def _add(table: Mapping[str, str | Plural]) -> None:
    """Add another module's words; a key written in two places would silently lose one."""
    twice = MESSAGES.keys() & table.keys()
    assert not twice, f"keys in two tables: {sorted(twice)}"
    MESSAGES.update(table)


_add(SERVER_MESSAGES)  # the server controls' words (bot/ui/server_text.py)
_add(TOURNAMENT_MESSAGES)  # Sit & Go words (bot/ui/tournament_text.py)
_add(MTT_MESSAGES)  # multi-table tournament words (bot/ui/mtt_text.py)
_add(RULES_MESSAGES)  # the /rules summaries (bot/rules_text.py)
_add(history_messages(Plural))  # /replay, /stats, /export (bot/ui/history_text.py)


def t(key: str, locale: object = None, /, **params: Any) -> str:
    """The message ``key`` with ``params`` filled in, in ``locale``.

    ``locale`` is a Discord locale or one of ours; by default the language of the text
    being built (``i18n.current()``: the reader's for a private answer, the server's for a
    public message). Missing translations fall back to English; plural forms follow the
    language's own rule, numbers its own way of writing them (Babel).
    """
    if params.get("count") == 0 and (zero := f"{key}.zero") in MESSAGES:
        key = zero  # "nobody seated yet", not "0 jogador sentado"
    message = MESSAGES[key]
    language = i18n.current() if locale is None else i18n.resolve(locale)
    english = (message.one, message.other) if isinstance(message, Plural) else message
    return i18n.fill(i18n.text(key, english, language, params.get("count")), language, params)
