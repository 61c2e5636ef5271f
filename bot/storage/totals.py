"""The statistics as plain data: what one hand adds to a player, and their running totals.

``HandStats`` is what the table service computes from the finished hand it holds
(``bot.history.hand_stats.hand_stats``) and hands to ``finish_hand``; ``Totals.add`` folds it
into the totals kept in ``player_stats``, so /stats reads one row however many hands a
player has. The chart's series keeps at most ``SERIES_POINTS`` points: when full, every
other point goes and the stride doubles. Defined here, below the engine, so the storage
writes them without importing anything of the bot; ``bot.history.hand_stats`` re-exports them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from enum import StrEnum

DRAWS = 3  # the most draws of any game (triple draw)
SERIES_POINTS = 120
ALL_GAMES = "*"  # the totals row of every game together


class StatsKind(StrEnum):
    """Which figures a hand counts in: the three are kept apart (a practice table's or a
    tournament's chips are not the server's, and a tournament's stakes rise)."""

    CASH = "cash"
    PRACTICE = "practice"
    TOURNAMENT = "tournament"

    @classmethod
    def of(cls, practice: bool, tournament_id: int | None) -> StatsKind:
        """A hand's kind from its row: any Sit & Go's hand (practice or not) is a
        tournament hand; else a practice table's, else a cash hand."""
        if tournament_id is not None:
            return cls.TOURNAMENT
        return cls.PRACTICE if practice else cls.CASH


@dataclass(frozen=True)
class HandStats:
    """What one hand adds to one player's totals."""

    net: int
    vpip: int  # 1 if they put chips in of their own will (a bet, call or raise)
    showdown: int
    showdown_won: int
    draws: tuple[int, ...]  # cards taken at each draw they reached
    buys: tuple[int, int, int]  # left, right, blind
    won_high: int
    won_low: int


@dataclass(frozen=True)
class Totals:
    hands: int = 0
    net: int = 0
    vpip: int = 0
    showdowns: int = 0
    showdowns_won: int = 0
    draw_times: tuple[int, ...] = (0,) * DRAWS  # how often they reached each draw
    draw_pats: tuple[int, ...] = (0,) * DRAWS  # ... and stood pat there
    draw_cards: tuple[int, ...] = (0,) * DRAWS  # ... and the cards they took there
    buys_left: int = 0
    buys_right: int = 0
    buys_blind: int = 0
    won_high: int = 0
    won_low: int = 0
    won_both: int = 0
    series: tuple[tuple[int, int], ...] = ()  # (hands, net) after those hands
    stride: int = 1  # a point every ``stride`` hands
    first_at: float | None = None
    last_at: float | None = None
    extra: dict[str, int] = field(default_factory=dict)  # room for later counters

    def add(self, h: HandStats, when: float) -> Totals:
        times, pats, taken = list(self.draw_times), list(self.draw_pats), list(self.draw_cards)
        for i, n in enumerate(h.draws[:DRAWS]):
            times[i] += 1
            pats[i] += int(n == 0)
            taken[i] += n
        hands, net = self.hands + 1, self.net + h.net
        series, stride = list(self.series), self.stride
        if hands % stride == 0:
            series.append((hands, net))
            if len(series) > SERIES_POINTS:
                series, stride = series[1::2], stride * 2
        return replace(
            self,
            hands=hands,
            net=net,
            vpip=self.vpip + h.vpip,
            showdowns=self.showdowns + h.showdown,
            showdowns_won=self.showdowns_won + h.showdown_won,
            draw_times=tuple(times),
            draw_pats=tuple(pats),
            draw_cards=tuple(taken),
            buys_left=self.buys_left + h.buys[0],
            buys_right=self.buys_right + h.buys[1],
            buys_blind=self.buys_blind + h.buys[2],
            won_high=self.won_high + (h.won_high and not h.won_low),
            won_low=self.won_low + (h.won_low and not h.won_high),
            won_both=self.won_both + (h.won_high and h.won_low),
            series=tuple(series),
            stride=stride,
            first_at=self.first_at if self.first_at is not None else when,
            last_at=when,
        )

    def chart_points(self) -> list[tuple[int, int]]:
        """(hands, net) to draw: from (0, 0) to the latest hand."""
        points = [(0, 0), *self.series]
        if not self.series or self.series[-1][0] != self.hands:
            points.append((self.hands, self.net))
        return points

    def public(self) -> Totals:
        """What anyone may see: results and showdowns; no count of their own choices
        (folds, draws, buys) that the numbers of a player's folded hands would show."""
        keep = {
            "hands",
            "net",
            "showdowns",
            "showdowns_won",
            "won_high",
            "won_low",
            "won_both",
            "series",
            "stride",
            "first_at",
            "last_at",
        }
        base = Totals()
        return replace(
            base, **{f.name: getattr(self, f.name) for f in fields(self) if f.name in keep}
        )
