"""One player's hands as hand-history text in the style PokerStars writes.

English keywords on purpose: the tools players feed these files to parse PokerStars'
English. "Dealt to NAME [cards]" names the exporting player's cards only; others' cards
appear only where the table showed them (a showdown, Abyssinia's bought cards).
A tournament hand (RULES.md §8) is headed as PokerStars heads one ("PokerBot Hand #N:
Tournament #T, GAME Fixed Limit - Level II (20/40) - DATE", its table "'T 1'"), says
"and is all-in", returns a bet nobody could call ("Uncalled bet (N) returned to NAME")
and names each pot: "Main pot N. Side pot-1 N.".
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Iterator

from bot.engine import VARIANTS, ActionKind, Award, AwardLabel, BuySource, PublicView, Stakes
from bot.engine.cards import format_cards
from bot.engine.variants import Phase

from .replay_steps import Step, StepKind, replay_steps
from .stored import StoredHand

ORDINAL = ("FIRST", "SECOND", "THIRD", "FOURTH", "FIFTH")


def stamp(when: float) -> str:
    return time.strftime("%Y/%m/%d %H:%M:%S UTC", time.gmtime(when))


def cards(items: Iterable[int]) -> str:
    return "[" + " ".join(format_cards(items)) + "]"


def bets(variant_id: str, stakes: Stakes | None = None) -> str:
    """The bet sizes as PokerStars writes them: "1/2" (one size: "1/1")."""
    sizes = sorted(set((stakes or Stakes.cash(variant_id)).bet_sizes(variant_id)))
    return "/".join(str(s) for s in (sizes if len(sizes) > 1 else sizes * 2))


def limits(variant_id: str, stakes: Stakes | None = None) -> str:
    """The stakes as PokerStars writes them: "1/2 Fixed Limit, ante 1"."""
    at = stakes or Stakes.cash(variant_id)
    return f"{bets(variant_id, at)} Fixed Limit" + (f", ante {at.ante}" if at.ante else "")


def roman(number: int) -> str:
    """A level as PokerStars numbers it: I, II, … XX."""
    out = ""
    for value, letters in ((10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        count, number = divmod(number, value)
        out += letters * count
    return out


def title_line(stored: StoredHand) -> str:
    """The hand's first line: a tournament hand's names its tournament and level."""
    record, v = stored.record, VARIANTS[stored.variant]
    when = stamp(stored.completed_at or stored.started_at)
    if stored.tournament_id is None:
        return f"PokerBot Hand #{stored.hand_id}: {v.name} ({limits(v.id, record.stakes)}) - {when}"
    level = f"Level {roman(stored.level)}" if stored.level else "Level ?"
    return (  # the antes are in the "posts the ante" lines, as PokerStars writes them
        f"PokerBot Hand #{stored.hand_id}: Tournament #{stored.tournament_id}, {v.name} "
        f"Fixed Limit - {level} ({bets(v.id, record.stakes)}) - {when}"
    )


def hand_text(stored: StoredHand, viewer: str) -> str:
    """The hand as ``viewer`` (their seat's player key) saw it, PokerStars-style."""
    return "\n".join(_lines(stored, viewer)) + "\n"


def hands_text(hands: Iterable[StoredHand], viewer: str) -> Iterator[str]:
    """Each hand's text followed by a blank line, oldest first as given (streamable)."""
    for stored in hands:
        yield hand_text(stored, viewer) + "\n\n"


def _lines(stored: StoredHand, viewer: str) -> Iterator[str]:
    record, v = stored.record, VARIANTS[stored.variant]
    name = stored.name
    yield title_line(stored)
    practice = stored.practice and stored.tournament_id is None  # a Sit & Go's: its title
    notes = [n for n, on in (("practice", practice), ("cancelled", stored.cancelled)) if on]
    table = stored.channel_id if stored.tournament_id is None else f"{stored.tournament_id} 1"
    yield (
        f"Table '{table}' {v.max_seats}-max Seat #{record.dealer + 1} is the button"
        + (f" ({', '.join(notes)})" if notes else "")
    )
    for i, seat in enumerate(record.seats, 1):
        yield f"Seat {i}: {name(seat.player)} ({seat.stack} in chips)"
    steps = replay_steps(record, viewer)
    deal = steps[0]
    players = [s.player for s in record.seats]
    posted = {s.player: s for s in deal.public.seats}
    if record.hand_stakes.ante:
        for p in players:
            yield f"{name(p)}: posts the ante {posted[p].in_pot}" + _all_in(posted[p].all_in)
    if record.hand_stakes.blinds:
        n = len(players)
        sb = record.dealer if n == 2 else (record.dealer + 1) % n
        small, big = posted[players[sb]], posted[players[(sb + 1) % n]]
        yield f"{name(small.player)}: posts small blind {small.in_pot}" + _all_in(small.all_in)
        yield f"{name(big.player)}: posts big blind {big.in_pot}" + _all_in(big.all_in)
    if v.split:
        yield "*** BUYING ROUND 1 ***"
    else:
        yield "*** DEALING HANDS ***"
        if deal.cards:
            yield f"Dealt to {name(viewer)} {cards(deal.cards)}"
    phase: tuple[str, int] = (v.streets[0], 1)
    folded_on: dict[str, str] = {}
    for step in steps[1:]:
        if step.kind != StepKind.ACTION:
            continue
        assert step.actor is not None
        if (step.phase, step.round) != phase:
            phase = (step.phase, step.round)
            if step.phase == Phase.DRAW:
                yield f"*** {ORDINAL[step.round - 1]} DRAW ***"
            elif step.phase == Phase.BUY:
                yield f"*** BUYING ROUND {step.round} ***"
        who = name(step.actor)
        yield from _action(step, who, viewer)
        if step.action == ActionKind.FOLD:
            folded_on[step.actor] = _street(step)
    final = steps[-1].public
    if not final.complete:
        return
    returned = _returned(final)
    for award in returned:
        for p, chips in award.shares.items():
            yield f"Uncalled bet ({chips}) returned to {name(p)}"
    if final.shown:
        yield "*** SHOW DOWN ***"
        for p, held in final.shown.items():
            yield f"{name(p)}: shows {cards(held)}"
    contested = [a for a in final.awards if a not in returned]
    pot_names = _pot_names(final, returned)
    for award in contested:
        pot = pot_names[award.pot]
        if award.label != AwardLabel.POT:
            pot = f"{award.label} {pot}"
        for p, chips in award.shares.items():
            named = f" with {award.hand_names[p]}" if p in award.hand_names else ""
            yield f"{name(p)} collected {chips} from {pot}{named}"
    yield "*** SUMMARY ***"
    yield _total_line(final, returned)
    won: dict[str, int] = {}
    for award in contested:
        for p, chips in award.shares.items():
            won[p] = won.get(p, 0) + chips
    for i, seat in enumerate(record.seats, 1):
        p = seat.player
        button = " (button)" if i - 1 == record.dealer else ""
        if p in folded_on:
            result = f"folded {folded_on[p]}"
        elif p in final.shown:
            result = f"showed {cards(final.shown[p])} and " + (
                f"won ({won[p]})" if p in won else "lost"
            )
        else:
            result = f"collected ({won.get(p, 0)})"
        yield f"Seat {i}: {name(p)}{button} {result}, net {final.net.get(p, 0):+d}"


def _all_in(flag: bool) -> str:
    return " and is all-in" if flag else ""


def _returned(final: PublicView) -> list[Award]:
    """The awards that only give back chips nobody else could win (several pots only)."""
    if len(final.pots) < 2:
        return []
    single = {i for i, pot in enumerate(final.pots) if len(pot.players) == 1}
    return [a for a in final.awards if a.pot in single]


def _pot_names(final: PublicView, returned: list[Award]) -> dict[int, str]:
    """ "pot" when one pot is contested, else "main pot", "side pot-1", … by pot index."""
    back = {a.pot for a in returned}
    indexes = [i for i in range(max(len(final.pots), 1)) if i not in back]
    if len(indexes) == 1:
        return {indexes[0]: "pot"}
    return {i: "main pot" if k == 0 else f"side pot-{k}" for k, i in enumerate(indexes)}


def _total_line(final: PublicView, returned: list[Award]) -> str:
    """ "Total pot N", with "Main pot N. Side pot-1 N." when several pots were contested."""
    back = {a.pot for a in returned}
    amounts = [pot.amount for i, pot in enumerate(final.pots) if i not in back]
    total = final.pot - sum(a.amount for a in returned)
    if len(amounts) < 2:
        return f"Total pot {total}"
    sides = " ".join(f"Side pot-{k} {amount}." for k, amount in enumerate(amounts[1:], 1))
    return f"Total pot {total} Main pot {amounts[0]}. {sides}"


def _street(step: Step) -> str:
    if step.phase == Phase.BET:
        return f"in betting round {step.round}"
    return f"in {step.phase} round {step.round}"


def _action(step: Step, who: str, viewer: str) -> Iterator[str]:
    action = step.action
    tail = _all_in(step.all_in)
    if action == ActionKind.CHECK:
        yield f"{who}: checks"
    elif action == ActionKind.BET:
        yield f"{who}: bets {step.amount}{tail}"
    elif action == ActionKind.CALL:
        yield f"{who}: calls {step.amount}{tail}"
    elif action == ActionKind.RAISE:
        seat = next(s for s in step.public.seats if s.player == step.actor)
        yield f"{who}: raises {step.amount - step.to_call} to {seat.bet}{tail}"
    elif action == ActionKind.FOLD:
        yield f"{who}: folds"
    elif action == ActionKind.DISCARD:
        if step.thrown == 0:
            yield f"{who}: stands pat"
        else:
            plural = "card" if step.thrown == 1 else "cards"
            mine = f" {cards(step.own_thrown)}" if step.own_thrown else ""
            yield f"{who}: discards {step.thrown} {plural}{mine}"
        if step.actor == viewer:
            yield f"Dealt to {who} {cards(step.cards)}"
    elif action == ActionKind.BUY:
        assert step.bought is not None
        source = "blind" if step.source == BuySource.BLIND else f"from the {step.source}"
        if step.amount == 0:  # every price is at least 1: an all-in player's free card
            yield f"{who}: receives {cards([step.bought])} blind, free (all-in)"
        else:
            yield f"{who}: buys {cards([step.bought])} {source} for {step.amount}{tail}"
