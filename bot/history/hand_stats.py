"""Per-player statistics: what one finished hand adds, and the figures /stats derives.

``hand_stats`` reads a finished hand (the engine state the table service holds) once, at
settlement; the table service hands the result to ``finish_hand``, whose transaction
folds it (``Totals.add``, in ``bot.storage.totals``) into the totals kept in the database.
"""

from __future__ import annotations

from bot.engine import ActionKind, AwardLabel, BuySource, Hand
from bot.storage.totals import HandStats

# A bet, a call or a raise: chips put in of a player's own will (VPIP).
_VOLUNTARY = frozenset((ActionKind.BET, ActionKind.CALL, ActionKind.RAISE))
_SOURCES = (BuySource.LEFT, BuySource.RIGHT, BuySource.BLIND)  # HandStats.buys' order


def hand_stats(hand: Hand) -> dict[str, HandStats]:
    """Each seat's player key -> what this finished hand adds to their totals."""
    net = hand.net()
    voluntary = {a.player for a in hand.actions if a.action in _VOLUNTARY}
    buys: dict[str, list[int]] = {p: [0, 0, 0] for p in hand.players}
    for a in hand.actions:
        if a.action == ActionKind.BUY and a.source is not None:
            buys[a.player][_SOURCES.index(a.source)] += 1
    winners: dict[str, set[str]] = {}
    for award in hand.awards:
        if not award.hand_names:  # chips back from a pot nobody else could win: not a win
            continue
        for p in award.shares:
            winners.setdefault(p, set()).add(award.label)
    out = {}
    for seat, p in enumerate(hand.players):
        at_showdown = hand.showdown and not hand.folded[seat]
        won = winners.get(p, set())
        out[p] = HandStats(
            net=net[p],
            vpip=int(p in voluntary),
            showdown=int(at_showdown),
            showdown_won=int(at_showdown and bool(won)),
            draws=tuple(hand.drawn[seat]),
            buys=(buys[p][0], buys[p][1], buys[p][2]),
            won_high=int(at_showdown and AwardLabel.HIGH in won),
            won_low=int(at_showdown and AwardLabel.LOW in won),
        )
    return out


def rate(part: int, whole: int) -> float | None:
    """``part`` of ``whole`` as a fraction, None when there is nothing to divide."""
    return part / whole if whole else None


def per_100(net: int, hands: int) -> float | None:
    return net * 100 / hands if hands else None
