"""The table service's calls out to the parts built on it: one object, made before both.

The post-step hook wakes the computer player whose turn it is, a move made at its
deadline reads what the table's players have shown, and a tournament table takes its
stakes from its tournament and has each hand counted by it. Those parts (the practice
driver, the tournament drivers) act through the manager, so they are built after it:
``Hooks`` is made first and given to the manager at construction
(``TableManager(hooks=)``, which passes its calls to its parts), and each part answers
it once, from its own constructor (``serve_bots``, ``serve_tournaments``). Until one
does, the calls do what a table without that part needs: no computer player moves, no
one has shown anything, a tournament table deals no hand and settles none.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from bot.engine.cards import Card
from bot.engine.record import HandRecord
from bot.opponents import Profile
from bot.storage.errors import StorageError

from .models import Code, Refused
from .steps import BotTurn
from .timers import Profiles
from .tournament_mode import LevelView, TournamentHooks


class Hooks:
    """What the table service calls outside itself (a ``TournamentHooks`` too)."""

    def __init__(self) -> None:
        self._schedule: Callable[[BotTurn], None] | None = None
        self._profiles: Profiles | None = None
        self._tournaments: TournamentHooks | None = None

    # ----- the parts' side: each answers once, when it is built --------------

    def serve_bots(self, schedule: Callable[[BotTurn], None], profiles: Profiles) -> None:
        """The computer players' driver: who moves them, and what they have seen."""
        self._schedule, self._profiles = schedule, profiles

    def serve_tournaments(self, tournaments: TournamentHooks) -> None:
        """Who gives tournament tables their stakes and counts their hands: the last
        driver built (the multi-table one passes the Sit & Gos' calls on)."""
        self._tournaments = tournaments

    # ----- the table service's side ------------------------------------------

    def bot_turn(self, turn: BotTurn) -> None:
        """A computer player is to act (the post-step hook; never waits)."""
        if self._schedule is not None:
            self._schedule(turn)

    def profiles(self, channel_id: int) -> Mapping[str, Profile]:
        """What each player at this table has shown in its earlier hands."""
        return {} if self._profiles is None else self._profiles(channel_id)

    def level(self, tournament_id: int) -> LevelView | None:
        return None if self._tournaments is None else self._tournaments.level(tournament_id)

    def header(
        self,
        tournament_id: int,
        variant_id: str,
        seats: Sequence[tuple[str, int]],
        dealer: int,
        deck: Sequence[Card],
    ) -> HandRecord:
        if self._tournaments is None:
            raise Refused(Code.TABLE_BUSY)  # its tournament is not restored yet
        return self._tournaments.header(tournament_id, variant_id, seats, dealer, deck)

    async def settled(
        self,
        tournament_id: int,
        hand_id: int,
        started: Mapping[int, int],
        after: Mapping[int, int],
        *,
        actions: int,
        button: int | None,
    ) -> None:
        if self._tournaments is None:  # never settle a hand its tournament did not count
            raise StorageError(f"hand #{hand_id}: its tournament's driver is not running")
        await self._tournaments.settled(
            tournament_id, hand_id, started, after, actions=actions, button=button
        )
