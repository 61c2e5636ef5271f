"""A server's hands as a public log in the style of PokerNow's CSV export.

Columns ``entry,at,order`` as PokerNow writes them; oldest first here, ``order`` counting
up. Only what the table showed everyone: no one's dealt or thrown cards, draws as counts,
Abyssinia's bought cards (face up for all), hands shown at a showdown.
"""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Iterable, Iterator

from bot.engine import VARIANTS, ActionKind, AwardLabel, BuySource
from bot.engine.cards import format_cards

from .handtext import limits
from .replay_steps import StepKind, replay_steps
from .stored import StoredHand

HEADER = ("entry", "at", "order")


def iso(when: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(when))


def public_entries(stored: StoredHand) -> Iterator[str]:
    """The hand's log lines, as everyone at the table saw them."""
    record, v = stored.record, VARIANTS[stored.variant]

    def who(p: str) -> str:
        return f'"{stored.name(p)} @ {p}"'

    dealer = record.seats[record.dealer].player
    sng = ""
    if stored.tournament_id is not None:  # a Sit & Go's hand, at its level's stakes
        sng = f" (tournament #{stored.tournament_id}, level {stored.level or '?'})"
    yield (
        f"-- starting hand #{stored.hand_id} ({v.name}, {limits(v.id, record.stakes)}){sng} "
        f"(dealer: {who(dealer)}) --"
    )
    yield "Player stacks: " + " | ".join(
        f"#{i} {who(s.player)} ({s.stack})" for i, s in enumerate(record.seats, 1)
    )
    steps = replay_steps(record, None)  # a spectator's steps: public by construction
    for step in steps[1:]:
        if step.kind != StepKind.ACTION:
            continue
        assert step.actor is not None
        name = who(step.actor)
        if step.action == ActionKind.DISCARD:
            yield f"{name} stands pat" if not step.thrown else f"{name} draws {step.thrown}"
        elif step.action == ActionKind.BUY:
            assert step.bought is not None
            card = format_cards([step.bought])[0]
            where = "blind" if step.source == BuySource.BLIND else f"from the {step.source}"
            if step.amount == 0:  # prices are at least 1: an all-in player's free card
                yield f"{name} receives {card} blind, free (all-in)"
            else:
                yield f"{name} buys {card} {where} for {step.amount}{_all_in(step.all_in)}"
        elif step.action in (ActionKind.BET, ActionKind.CALL):
            yield f"{name} {step.action}s {step.amount}{_all_in(step.all_in)}"
        elif step.action == ActionKind.RAISE:
            seat = next(s for s in step.public.seats if s.player == step.actor)
            yield f"{name} raises to {seat.bet}{_all_in(step.all_in)}"
        else:
            yield f"{name} {step.action}s"
    final = steps[-1].public
    for p, held in final.shown.items():
        yield f"{who(p)} shows a {', '.join(format_cards(held))}."
    several = len(final.pots) > 1
    for award in final.awards:
        pot = _WHOLE[award.label]
        if several:  # a tournament hand's side pots (RULES.md §8.5)
            pot = _pot_name(award.label, award.pot)
        for p, chips in award.shares.items():
            named = f" with {award.hand_names[p]}" if p in award.hand_names else ""
            yield f"{who(p)} collected {chips} from {pot}{named}"
    if stored.cancelled:
        yield "The hand was cancelled: every player got back what they put in"
    yield f"-- ending hand #{stored.hand_id} --"


def _all_in(flag: bool) -> str:
    return " and go all in" if flag else ""


_WHOLE = {
    AwardLabel.POT: "the pot",
    AwardLabel.HIGH: "the high half",
    AwardLabel.LOW: "the low half",
}


def _pot_name(label: str, index: int) -> str:
    pot = "the main pot" if index == 0 else f"side pot {index}"
    return pot if label == AwardLabel.POT else f"the {label} half of {pot.removeprefix('the ')}"


def public_log_csv(
    hands: Iterable[StoredHand], *, header: bool = True, order: int = 0
) -> tuple[str, int]:
    """CSV text of these hands' public lines and the last ``order`` number used; ``order``
    is the last number already used (a long log is written page by page: the header only
    on the first)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    if header:
        writer.writerow(HEADER)
    for stored in hands:
        at = iso(stored.completed_at or stored.started_at)
        for entry in public_entries(stored):
            order += 1
            writer.writerow((entry, at, order))
    return buffer.getvalue(), order
