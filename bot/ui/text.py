"""Words from codes: refusals, outcomes and table events turned into text through ``t``.

The table manager answers with codes and data (``bot.tables.models``); this module
is the one place that decides how each of them reads. Display names are escaped
here, so a name can never format (or break) a message.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import discord

from bot.engine import VARIANTS, ActionKind, Award, BuySource, PublicView, Ranking, Refusal
from bot.engine.cards import Card, shown_token
from bot.engine.rankings import in_order
from bot.render.plain_text import card_text, cards_text
from bot.tables.models import (
    Code,
    Done,
    EventKind,
    Move,
    Outcome,
    Refused,
    Skip,
    SkipReason,
    TableEvent,
    TableView,
)
from bot.tables.rotation import RotationKind

from . import i18n
from .catalog import t
from .hand_names import hand_name, split_name


def esc(name: str) -> str:
    """A display name made safe for message text and embeds (no markdown)."""
    return discord.utils.escape_markdown(name)


def game(variant: str) -> str:
    return t(f"game.{variant}")


def command(variant: str, sub: str) -> str:
    """A slash command as the reader's Discord shows it: ``/a5-draw passar`` in Portuguese."""
    name = i18n.command_text(i18n.current(), "command_name", sub) or sub
    return f"/{variant} {name}"


def cmd(variant: str, sub: str) -> str:
    """A slash command as the player types it, as code."""
    return f"`{command(variant, sub)}`"


def slash(*names: str) -> str:
    """A command outside the games, as code, in the reader's names: ``/refill`` ->
    `` `/recarregar` ``, ``("privacy", "delete")`` -> `` `/privacidade apagar` ``."""
    locale = i18n.current()
    *groups, name = names
    words = [i18n.command_text(locale, "group_name", g) or g for g in groups]
    words.append(i18n.command_text(locale, "command_name", name) or name)
    return "`/" + " ".join(words) + "`"


def join_list(items: Iterable[str], sep: str = "list.sep") -> str:
    return t(sep).join(items)


def action_name(action: str) -> str:
    return t(f"action.{action}")


def legal_list(legal: Iterable[str]) -> str:
    return join_list(action_name(a) for a in legal)


def round_label(hand: PublicView) -> str:
    return t(f"table.round.{hand.phase}", round=hand.round, rounds=hand.rounds)


# ----- hands


def shown_hand(variant: str, cards: tuple[Card, ...]) -> tuple[tuple[Card, ...], str]:
    """Cards sorted for the game's ranking, and their name (both halves when split)."""
    v = VARIANTS[variant]
    if len(cards) != 5:
        return cards, ""
    if v.split:
        return in_order(Ranking.HIGH, cards), split_name(cards)
    return in_order(v.ranking, cards), hand_name(v.ranking, cards)


# ----- refusals


def refusal(
    exc: Refused,
    variant: str | None = None,
    view: TableView | None = None,
    user_id: int | None = None,
) -> str:
    """Why a request was refused, and what the player can do instead, said once.

    ``variant`` is the game whose command was used (for tables that do not exist
    yet); ``view`` and ``user_id`` let a stale click say what is going on now.
    """
    p = exc.params
    code = exc.code
    game_id = p.get("variant") or variant or (view.variant if view else None)
    if code is Code.NO_TABLE:
        return t("refused.no_table", command=cmd(game_id or "a5-draw", "open"))
    if code is Code.TABLE_EXISTS:
        return t("refused.table_exists", game=game(p["variant"]), command=cmd(p["variant"], "…"))
    if code is Code.UNKNOWN_GAME:
        return t("refused.unknown_game", game=p["game"], games=join_list(p["games"]))
    if code is Code.BAD_SEATS:
        games = join_list(game(g) for g in p.get("games") or (p["variant"],))  # mixed: all
        return t("refused.bad_seats", game=games, **_pick(p, "min", "max", "given"))
    if code is Code.BAD_TIMEOUT:
        return t("refused.bad_timeout", min=p["min"], max=p["max"])
    if code is Code.TABLE_FULL:
        return t("refused.table_full", count=p["seats"])
    if code in (Code.NOT_SEATED,):
        return t("refused.not_seated", command=cmd(game_id or "", "join"))
    if code is Code.NO_HAND:
        return t("refused.no_hand", command=cmd(game_id or "", "deal"))
    if code is Code.TOO_FEW_PLAYERS:
        skipped: tuple[Skip, ...] = p.get("skipped", ())
        if not skipped:
            return t("refused.too_few_players")
        return t("refused.too_few_players.why", skipped=skip_list(skipped))
    if code is Code.CANNOT_COVER_MINIMUM:
        return t(
            "refused.cannot_cover_minimum",
            name=esc(p.get("name") or "?"),
            **_pick(p, "minimum", "available"),
        )
    if code is Code.NOT_YOUR_TURN:
        return t("refused.not_your_turn", name=esc(p["name"]))
    if code is Code.STALE_BUTTON:
        now = stale(view, user_id)
        if p.get("applied"):
            return t("refused.already_applied", action=t(f"verb.{p['applied']}"), now=now)
        return now
    if code is Code.ILLEGAL_ACTION:
        return illegal(p)
    if code is Code.BAD_CARDS:
        if p.get("token") is None:
            return t("refused.bad_cards.not_text", legend=t("cards.legend"))
        token = shown_token(p["token"])  # quoted, cut short
        return t("refused.bad_cards", token=token, legend=t("cards.legend"))
    if code in MIXED_CODES:
        return mixed_refusal(exc)
    if code in (
        Code.REFILL_IN_HAND,
        Code.REFILL_NOT_LOW,
        Code.REFILL_AT_GRANT,
        Code.CLOSE_OTHERS_SEATED,
        Code.TOO_MANY_TABLES,
    ):
        return t(f"refused.{code.value}", **p)
    return t(f"refused.{code.value}")


MIXED_CODES = (
    Code.BAD_ROTATION,
    Code.MIX_TOO_FEW,
    Code.BAD_EVERY,
    Code.NO_CHOICE_NOW,
    Code.NOT_CHOOSER,
    Code.CHOICE_PENDING,
)


def mixed_refusal(exc: Refused) -> str:
    """A mixed table's refusals (issue 38)."""
    p, code = exc.params, exc.code
    if code is Code.BAD_ROTATION:
        return t("refused.bad_rotation", given=f"'{p['given']}'", kinds=join_list(p["kinds"]))
    if code is Code.BAD_EVERY:
        return t("refused.bad_every", min=p["min"], max=p["max"])
    if code is Code.NO_CHOICE_NOW and p.get("late"):
        return t("refused.no_choice_now.late")
    if code is Code.NOT_CHOOSER:
        if p.get("name") is None:
            return t("refused.not_chooser.nobody")
        return t("refused.not_chooser", name=esc(p["name"]))
    if code is Code.CHOICE_PENDING:
        deadline = f"<t:{int(p['deadline'])}:R>"
        return t("refused.choice_pending", name=esc(p["name"]), deadline=deadline)
    return t(f"refused.{code.value}")


def stale(view: TableView | None, user_id: int | None) -> str:
    """A click on an old button: what the table is waiting for now."""
    hand = view.hand if view else None
    if view is None or hand is None or hand.complete:
        return t("refused.stale_button.over")
    if user_id is not None and view.to_act_user == user_id:
        return t("refused.stale_button.your_turn", legal=legal_list(hand.legal))
    return t("refused.stale_button.waiting", name=esc(view.name(hand.to_act or "")))


def illegal(p: Mapping[str, Any]) -> str:
    """An action the rules refused: the reason and what is legal now."""
    reason, action = p.get("reason"), p.get("action", "")
    legal = legal_list(p.get("legal", ()))
    if reason == Refusal.NOT_HELD:
        return t("illegal.not_held", card=card_text(p["card"]), cards=cards_text(p.get("held", ())))
    if reason == Refusal.NAMED_TWICE:
        return t("illegal.named_twice")
    if reason == Refusal.BAD_SOURCE:
        places = join_list(t(f"source.{s}") for s in p.get("sources", ()))
        return t("refused.bad_source", source=f"'{p.get('source')}'", legal=places)
    if reason == Refusal.NO_BET:
        return t(f"illegal.no_bet.{action}", legal=legal)
    if reason in _OWING:
        return t(f"illegal.{reason}", legal=legal, to_call=p.get("to_call", 0))
    verb = t(f"verb.{action}") if action in _ACTIONS else f"'{action}'"
    return t("illegal", action=verb, legal=legal)


_ACTIONS = tuple(ActionKind)
# Refusals about what is owed: their words name what is legal and what is owed.
_OWING = (Refusal.NOTHING_OWED, Refusal.OWES, Refusal.BET_EXISTS, Refusal.CAPPED)


def skip_list(skipped: Iterable[Skip]) -> str:
    return join_list(
        (
            t("skip.sitting_out", name=esc(s.name))
            if s.reason == SkipReason.SITTING_OUT
            else t("skip.short", name=esc(s.name), available=s.available, minimum=s.minimum)
        )
        for s in skipped
    )


def _pick(params: Mapping[str, Any], *names: str) -> dict[str, Any]:
    return {n: params[n] for n in names}


# ----- what a request did


def outcome(result: Outcome, variant: str) -> str:
    p = result.params
    if result.code is Done.SEATED:
        if p["available"] < p["minimum"]:
            return t("done.seated.short", command=slash("refill"), **p)
        return t("done.seated", **p)
    if result.code in (Done.BOT_SEATED, Done.BOT_LEFT):
        return t(f"done.{result.code.value}", name=esc(p["name"]), seat=p.get("seat"))
    if result.code is Done.SITTING_OUT:
        key = "done.sitting_out.after_hand" if p.get("after_hand") else "done.sitting_out"
        return t(key, command=cmd(variant, "sitout"))
    return t(f"done.{result.code.value}")


# ----- public lines


def move_line(move: Move) -> str:
    name = esc(move.name)
    if move.action == ActionKind.DISCARD:
        line = (
            t("move.discard", name=name, count=move.count)
            if move.count
            else t("move.pat", name=name)
        )
    elif move.action == ActionKind.BUY:
        card = card_text(move.card) if move.card is not None else "?"
        if move.source == BuySource.BLIND:
            line = t("move.buy.blind", name=name, card=card)
        else:
            line = t("move.buy", name=name, source=t(f"source.{move.source}"), card=card)
    else:
        line = t(f"move.{move.action}", name=name)
    return t("move.timeout", line=line) if move.timeout else line


def event_line(event: TableEvent) -> str:
    """The public one-line summary of an event (never a hidden card)."""
    if event.move is not None:
        return move_line(event.move)
    p = event.params
    if event.kind == EventKind.OPENED:
        variant, mixed = event.view.variant, event.view.mixed
        line = t("event.opened", game=game(variant), command=cmd(variant, "join"))
        if mixed is not None:  # a mixed table: its games and how they change
            games = join_list(game(g) for g in mixed.games)
            rotation = rotation_text(mixed.kind, mixed.every)
            line += " " + t("mixed.opened", games=games, rotation=rotation)
        return line
    if event.kind == EventKind.DEALT:
        names = join_list(esc(n) for n in p["players"])
        if p["skipped"]:
            return t(
                "event.dealt.skipped",
                hand_id=event.hand_id,
                names=names,
                skipped=skip_list(p["skipped"]),
            )
        return t("event.dealt", hand_id=event.hand_id, names=names)
    if event.kind == EventKind.FINISHED:
        return t("event.finished", hand_id=event.hand_id)
    if event.kind == EventKind.CHOSEN:
        key = "event.chosen.timeout" if p["timeout"] else "event.chosen"
        return t(key, name=esc(p.get("name") or "?"), game=game(p["game"]))
    if event.kind == EventKind.LEFT and "name" not in p:
        return t("event.left.erased")  # the player erased their data: no name is left
    return t(f"event.{event.kind}", **{**p, "name": esc(p.get("name", ""))})


def rotation_text(kind: str, every: int) -> str:
    """How a mixed table rotates its games, in words."""
    if kind == RotationKind.HANDS:
        return t("mixed.rotation.hands", count=every)
    return t(f"mixed.rotation.{kind}")


def where(channel_id: int, hand_id: int | None) -> str:
    """Which table and hand a private message is about (players may sit at several)."""
    return t("hand.where", channel=f"<#{channel_id}>", hand_id=hand_id)


# ----- tournament hands: all-in players and side pots (RULES.md §8)


def pot_name(index: int) -> str:
    """ "Main pot" for the first pot, "Side pot 1", "Side pot 2", … for the others."""
    return t("pot.main") if index == 0 else t("pot.side", number=index)


def pots_lines(hand: PublicView, name: Any) -> list[str]:
    """One line per pot, with its chips and the players who may win it, when a tournament
    hand has side pots; none otherwise (one pot is the table's usual "Pot N").
    ``name`` maps a seat's player key to its display name."""
    if len(hand.pots) < 2:
        return []
    return [
        t(
            "table.pot",
            pot=pot_name(i),
            amount=pot.amount,
            players=join_list(esc(name(p)) for p in pot.players),
        )
        for i, pot in enumerate(hand.pots)
    ]


def award_label(award: Award, result: PublicView) -> str:
    """The result post's heading for one award: "Pot (8)" when the hand had one pot, else
    the pot by name, and the half in Abyssinia: "Side pot 1, low half (5)"."""
    if len(result.pots) < 2:
        return t(f"result.{award.label}", amount=award.amount)
    return t(f"result.{award.label}.named", pot=pot_name(award.pot), amount=award.amount)


def returned_line(award: Award, result: PublicView, name: Any) -> str | None:
    """The line for chips coming back from a pot only one player could win (several pots
    only), or None for an award that was won."""
    if len(result.pots) < 2 or award.hand_names:
        return None
    if len(result.pots[award.pot].players) != 1:
        return None
    ((player, chips),) = award.shares.items()
    return t("result.returned", name=esc(name(player)), chips=chips)
