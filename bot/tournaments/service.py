"""The Sit & Go lifecycle: create, register, unregister, start, count hands, remove,
finish and cancel; speaks no English and no Discord.

Each request is one step of its tournament: the tournament's lock, then one
transaction of the repository (``bot.storage.tournaments``). Refusals are
``SngRefused(SngCode.X, **facts)`` and change nothing. Seats and the first button are
drawn with the injected RNG (``secrets.SystemRandom`` in production). A player is in
one open tournament of a server at a time (registered, or still playing).
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Any, TypeVar

from bot.engine import VARIANTS
from bot.opponents import LEVELS
from bot.storage.store import Store
from bot.storage.tournaments import EntryRow, Final, TournamentRefused, TournamentRow
from bot.tables.tournament_mode import LevelView
from bot.tournaments import mixing, payouts, structures
from bot.tournaments.clock import Clock, LevelClock, LevelState
from bot.tournaments.mixing import Mix, MixKind
from bot.tournaments.structures import Level, Speed

T = TypeVar("T")
MAX_OPEN_PER_SERVER = 5  # registering or running Sit & Gos of one server
MAX_FEE = 1_000_000


class SngCode(StrEnum):
    """Why a tournament request was refused. The UI's catalog has one message per code."""

    UNKNOWN = "sng_unknown"  # no such tournament on this server
    UNKNOWN_GAME = "sng_unknown_game"  # game, games
    BAD_SEATS = "sng_bad_seats"  # min, max, given
    BAD_STACK = "sng_bad_stack"  # min, max, given
    BAD_FEE = "sng_bad_fee"  # max, given
    TOO_MANY = "sng_too_many"  # most: the server's open Sit & Gos are at its cap
    NOT_REGISTERING = "sng_not_registering"  # it has started, finished or been cancelled
    NOT_RUNNING = "sng_not_running"
    NOT_OPEN = "sng_not_open"  # finished or cancelled already
    ALREADY_REGISTERED = "sng_already_registered"
    FULL = "sng_full"  # seats
    NOT_REGISTERED = "sng_not_registered"
    SHORT = "sng_short"  # available, fee
    ELSEWHERE = "sng_elsewhere"  # tournament_id: the player's other open Sit & Go
    TOO_FEW = "sng_too_few"  # count: fewer than two registered
    NOT_YOURS = "sng_not_yours"  # only its creator or a moderator
    NOT_IN_PLAY = "sng_not_in_play"  # the player to remove is not playing in it
    BUSY = "sng_busy"  # registrations changed meanwhile: try again
    # practice Sit & Gos (computer players)
    BAD_BOTS = "sng_bad_bots"  # min, max, given: computer players from 1 to seats - 1
    BOTS_FEE = "sng_bots_fee"  # given: a practice Sit & Go has no fee
    UNKNOWN_LEVEL = "sng_unknown_level"  # level, levels
    NO_PERSON = "sng_no_person"  # a practice Sit & Go starts with a person registered
    # a mixed tournament's games and rotation (bot.tournaments.mixing.MixCode)
    MIX_GAMES = "sng_mix_games"  # min, max, given: how many different games
    BAD_ROTATION = "sng_bad_rotation"  # given, kinds
    BAD_EVERY = "sng_bad_every"  # min, max, given: hands of each game
    MIX_SEATS = "sng_mix_seats"  # games, min, max, given


class SngRefused(Exception):
    def __init__(self, code: SngCode, **params: Any) -> None:
        super().__init__(code.value)
        self.code = code
        self.params = params

    def __str__(self) -> str:  # for logs and test failures only
        details = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{self.code.value}({details})"


_STORAGE_CODES = {
    "unknown": SngCode.UNKNOWN,
    "not_registering": SngCode.NOT_REGISTERING,
    "not_running": SngCode.NOT_RUNNING,
    "not_open": SngCode.NOT_OPEN,
    "already_registered": SngCode.ALREADY_REGISTERED,
    "full": SngCode.FULL,
    "not_registered": SngCode.NOT_REGISTERED,
    "short": SngCode.SHORT,
    "elsewhere": SngCode.ELSEWHERE,
    "too_few": SngCode.TOO_FEW,
    "too_many": SngCode.TOO_MANY,
    "changed": SngCode.BUSY,
}


@dataclass(frozen=True)
class HandCounted:
    """What a finished hand did to the tournament: who went out (user → place), and the
    end if it came (every place and prize)."""

    out: dict[int, int] = field(default_factory=dict)
    final: Final | None = None
    counted: bool = True  # False: this hand had been counted already


def checked_mix(games: Sequence[str], rotation: str, every: int | None) -> Mix:
    """A mixed tournament's games and rotation; refused (``SngRefused``) as
    ``mixing.make`` refuses them (the multi-table service checks them here too)."""
    try:
        return mixing.make(games, rotation, every)
    except mixing.MixRefused as exc:
        raise SngRefused(SngCode(exc.code.value), **exc.params) from None


def check_stack(variant: str, mix: Mix | None, start_stack: int) -> None:
    """Refuse (``BAD_STACK``) a starting stack below 50 big bets of the game (of a mixed
    tournament's largest game) at level 1, or above the most."""
    smallest = (
        structures.smallest_stack(variant)
        if mix is None
        else structures.smallest_mixed_stack(mix.games)
    )
    if not smallest <= start_stack <= structures.MAX_STACK:
        raise SngRefused(
            SngCode.BAD_STACK, min=smallest, max=structures.MAX_STACK, given=start_stack
        )


class TournamentService:
    """Sit & Gos of every server, over the store's tournaments repository."""

    def __init__(
        self,
        store: Store,
        *,
        grant: int,
        rng: random.Random,
        clock: Clock,
        most_open: int = MAX_OPEN_PER_SERVER,
        level_seconds: Mapping[Speed, float] | None = None,
    ) -> None:
        self.store = store
        self.repo = store.tournaments
        self.grant = grant
        self.rng = rng
        self.clock = clock
        self.most_open = most_open
        # tests pass fast levels; production takes the speeds' minutes
        self.level_seconds = dict(level_seconds or {s: structures.level_seconds(s) for s in Speed})
        self._locks: dict[int, asyncio.Lock] = {}
        self._clocks: dict[int, LevelClock] = {}

    def lock(self, tournament_id: int) -> asyncio.Lock:
        return self._locks.setdefault(tournament_id, asyncio.Lock())

    # ----- registration -----------------------------------------------------

    async def create(
        self,
        guild_id: int,
        channel_id: int,
        creator_id: int,
        variant: str,
        *,
        seats: int,
        speed: Speed = Speed.REGULAR,
        start_stack: int = structures.DEFAULT_STACK,
        fee: int = 0,
        bots: Sequence[str] = (),
        level: str = "normal",
        games: Sequence[str] = (),
        rotation: str = MixKind.HANDS.value,
        every: int | None = None,
    ) -> TournamentRow:
        """A new Sit & Go, registering. ``bots``: the names of computer players of
        ``level`` who take seats at once: a practice Sit & Go (no fee, no prizes, no
        standings points). With ``games``, a mixed one of those games in ``rotation``
        (``hands``: each for ``every`` hands; ``level``: one a level); ``variant`` is then
        its first game."""
        mix = checked_mix(games, rotation, every) if games else None
        if mix is not None:
            variant = mix.first
        if variant not in VARIANTS:
            raise SngRefused(SngCode.UNKNOWN_GAME, game=variant, games=tuple(sorted(VARIANTS)))
        most = VARIANTS[variant].max_seats if mix is None else mix.seat_limit
        if not 2 <= seats <= most:
            if mix is not None:
                raise SngRefused(SngCode.MIX_SEATS, games=mix.games, min=2, max=most, given=seats)
            raise SngRefused(SngCode.BAD_SEATS, min=2, max=most, given=seats)
        check_stack(variant, mix, start_stack)
        if not 0 <= fee <= MAX_FEE:
            raise SngRefused(SngCode.BAD_FEE, max=MAX_FEE, given=fee)
        if bots:  # a practice Sit & Go: computer players from 1 to seats - 1, no fee
            if not 1 <= len(bots) <= seats - 1:
                raise SngRefused(SngCode.BAD_BOTS, min=1, max=seats - 1, given=len(bots))
            if fee:
                raise SngRefused(SngCode.BOTS_FEE, given=fee)
            if level not in LEVELS:
                raise SngRefused(SngCode.UNKNOWN_LEVEL, level=level, levels=LEVELS)
        return await self.refusing(
            self.repo.create(
                guild_id,
                channel_id,
                creator_id,
                variant,
                seats=seats,
                speed=speed.value,
                start_stack=start_stack,
                fee=fee,
                most_open=self.most_open,
                practice=bool(bots),
                bots=[(level, name) for name in bots],
                mix=mix.dumps() if mix else None,
            )
        )

    async def register(
        self, guild_id: int, tournament_id: int, user_id: int, name: str
    ) -> tuple[TournamentRow, list[EntryRow]]:
        """Register (taking the fee); the tournament starts when its seats are full.
        The tournament and its entries after."""
        async with self.lock(tournament_id):
            t = await self._mine(guild_id, tournament_id)
            if t.status != "registering":
                raise SngRefused(SngCode.NOT_REGISTERING)
            await self.store.ledger.ensure_account(guild_id, user_id, name, self.grant)
            entries = await self.refusing(self.repo.register(tournament_id, user_id, name))
            if len(entries) >= t.seats:
                t = await self._start(t, entries)
            return t, entries

    async def unregister(
        self, guild_id: int, tournament_id: int, user_id: int
    ) -> tuple[TournamentRow, list[EntryRow]]:
        async with self.lock(tournament_id):
            t = await self._mine(guild_id, tournament_id)
            entries = await self.refusing(self.repo.unregister(tournament_id, user_id))
            return t, entries

    async def start(
        self, guild_id: int, tournament_id: int, user_id: int, *, moderator: bool
    ) -> TournamentRow:
        """Start early (its creator or a moderator), with at least two registered."""
        async with self.lock(tournament_id):
            t = await self._mine(guild_id, tournament_id)
            if not moderator and user_id != t.creator_id:
                raise SngRefused(SngCode.NOT_YOURS)
            if t.status != "registering":
                raise SngRefused(SngCode.NOT_REGISTERING)
            entries = await self.repo.entries(tournament_id)
            if len(entries) < 2:
                raise SngRefused(SngCode.TOO_FEW, count=len(entries))
            if t.practice and not any(e.bot is None for e in entries):
                raise SngRefused(SngCode.NO_PERSON)  # computer players never play alone
            return await self._start(t, entries)

    async def cancel(
        self, guild_id: int, tournament_id: int, user_id: int, *, moderator: bool
    ) -> TournamentRow:
        """Cancel before or during play (its creator or a moderator): every fee comes back."""
        async with self.lock(tournament_id):
            t = await self._mine(guild_id, tournament_id)
            if not moderator and user_id != t.creator_id:
                raise SngRefused(SngCode.NOT_YOURS)
            cancelled = await self.refusing(self.repo.cancel(tournament_id))
            self._clocks.pop(tournament_id, None)
            return cancelled

    # ----- play -------------------------------------------------------------

    def level(self, t: TournamentRow) -> tuple[Level, LevelState]:
        """The level the tournament's clock is at now, and where the clock stands."""
        state = self._clock(t).state()
        return structures.level_at(t.variant, state.number), state

    def next_level(self, t: TournamentRow) -> Level:
        return structures.level_at(t.variant, self._clock(t).state().number + 1)

    # The game and stakes of a hand: one place for the Sit & Go driver and the
    # multi-table tournaments, so every table of a tournament deals alike.

    def mix(self, t: TournamentRow) -> Mix | None:
        """A mixed tournament's games and rotation (None: one game)."""
        return Mix.loads(t.mix)

    def game(self, t: TournamentRow, table_game: str) -> str:
        """The game of the next hand at a table of the tournament whose own next game
        (its rotation's, or its game) is ``table_game``: in a level rotation, the
        level's."""
        mix = self.mix(t)
        if mix is None:
            return table_game
        return mix.game(self._clock(t).state().number, table_game)

    def stakes(self, t: TournamentRow, game: str) -> Level:
        """The stakes of ``game`` at the tournament's level now."""
        return structures.level_at(game, self._clock(t).state().number)

    def level_view(self, t: TournamentRow) -> LevelView:
        """Where the level clock stands, for a table message: the level, its stakes and
        the next one's (a mixed tournament: each game's, and a level rotation's games)."""
        level, state = self.level(t)
        following = self.next_level(t)
        view = LevelView(
            level.number, level.stakes_json(), following.stakes_json(), state.seconds_left
        )
        mix = self.mix(t)
        if mix is None:
            return view
        now = structures.mixed_level(mix.games, state.number)
        then = structures.mixed_level(mix.games, state.number + 1)
        by_level = mix.kind is MixKind.LEVEL
        return replace(
            view,
            mixed={g: (now[g].stakes_json(), then[g].stakes_json()) for g in mix.games},
            game=mix.level_game(state.number) if by_level else None,
            next_game=mix.level_game(state.number + 1) if by_level else None,
        )

    async def hand_finished(
        self,
        tournament_id: int,
        hand_id: int,
        started: Mapping[int, int],
        after: Mapping[int, int],
        *,
        actions: int,
        button: int | None,
        order: list[int] | None = None,
    ) -> HandCounted:
        """Count a finished hand: ``started`` and ``after`` are the stacks of its players
        before and after it. Players left with nothing are out, placed by elimination
        order (more chips at the start of the hand place higher; equal share). When one
        player is left, the prizes are paid in the same transaction. ``order``: every
        entrant in seat order (odd chips of split prizes)."""
        async with self.lock(tournament_id):
            t = await self._get(tournament_id)
            if t.status != "running":
                raise SngRefused(SngCode.NOT_RUNNING)
            if sum(started.values()) != sum(after.values()) or set(started) != set(after):
                raise ValueError(f"hand #{hand_id} does not conserve the chips in play")
            entries = await self.repo.entries(tournament_id)
            in_play = [e for e in entries if e.place is None]
            remaining = sum(1 for e in in_play if after.get(e.user_id, e.stack) > 0)
            busts = [
                payouts.Bust(u, started[u])
                for u, chips in after.items()
                if chips == 0 and u in {e.user_id for e in in_play}
            ]
            out = payouts.places_for_busts(busts, remaining) if busts else {}
            final = self._final(t, entries, out, order) if remaining <= 1 else None
            clock = self._clock(t)
            counted = await self.refusing(
                self.repo.record_hand(
                    tournament_id,
                    hand_id,
                    dict(after),
                    places=out,
                    actions=actions,
                    clock_elapsed=clock.elapsed(),
                    button=button,
                    final=final,
                )
            )
            if not counted:
                return HandCounted(counted=False)
            if final is not None:
                self._clocks.pop(tournament_id, None)
            return HandCounted(out, final)

    async def remove(
        self, guild_id: int, tournament_id: int, user_id: int, order: list[int] | None = None
    ) -> HandCounted:
        """A moderator takes a player out between hands: their chips leave play and they
        take the next place down (the end comes if one player is left)."""
        async with self.lock(tournament_id):
            t = await self._mine(guild_id, tournament_id)
            if t.status != "running":
                raise SngRefused(SngCode.NOT_RUNNING)
            entries = await self.repo.entries(tournament_id)
            in_play = [e for e in entries if e.place is None]
            if user_id not in {e.user_id for e in in_play}:
                raise SngRefused(SngCode.NOT_IN_PLAY)
            out = {user_id: len(in_play)}
            final = self._final(t, entries, out, order) if len(in_play) <= 2 else None
            await self.refusing(self.repo.eliminate(tournament_id, out, final))
            if final is not None:
                self._clocks.pop(tournament_id, None)
            return HandCounted(out, final)

    async def save_clock(self, tournament_id: int) -> None:
        """Keep the elapsed time (called on the level clock's ticks)."""
        clock = self._clocks.get(tournament_id)
        if clock is not None:
            await self.repo.save_clock(tournament_id, clock.elapsed())

    # ----- inside a step ----------------------------------------------------

    async def _start(self, t: TournamentRow, entries: list[EntryRow]) -> TournamentRow:
        seats = list(range(len(entries)))
        self.rng.shuffle(seats)
        seating = {e.user_id: seat for e, seat in zip(entries, seats, strict=True)}
        button = self.rng.randrange(len(entries))
        started = await self.refusing(self.repo.start(t.tournament_id, seating, button))
        self._clocks[t.tournament_id] = LevelClock(
            self.level_seconds[Speed(t.speed)], started.clock_elapsed, self.clock
        )
        return started

    def _final(
        self,
        t: TournamentRow,
        entries: list[EntryRow],
        out: Mapping[int, int],
        order: list[int] | None,
    ) -> Final:
        places = {e.user_id: e.place for e in entries if e.place is not None}
        places.update(out)
        for e in entries:  # the one left wins
            places.setdefault(e.user_id, 1)
        seat_order = order or [
            e.user_id for e in sorted(entries, key=lambda e: (e.seat or 0, e.entry))
        ]
        pool = t.fee * len(entries)
        points = payouts.points(places, seat_order)
        return Final(
            places=places,
            prizes=payouts.prizes(pool, places, seat_order),
            points={u: 0 for u in points} if t.practice else points,  # practice: no standings
        )

    def _clock(self, t: TournamentRow) -> LevelClock:
        clock = self._clocks.get(t.tournament_id)
        if clock is None:  # after a restart: resume from the elapsed time kept
            clock = LevelClock(self.level_seconds[Speed(t.speed)], t.clock_elapsed, self.clock)
            self._clocks[t.tournament_id] = clock
        return clock

    async def _get(self, tournament_id: int) -> TournamentRow:
        t = await self.repo.get(tournament_id)
        if t is None:
            raise SngRefused(SngCode.UNKNOWN)
        return t

    async def _mine(self, guild_id: int, tournament_id: int) -> TournamentRow:
        t = await self._get(tournament_id)
        if t.guild_id != guild_id:
            raise SngRefused(SngCode.UNKNOWN)
        return t

    async def refusing(self, awaitable: Awaitable[T]) -> T:
        """Await a storage call, its refusal turned into the service's (``SngRefused``);
        the multi-table service calls its own storage through it too."""
        try:
            return await awaitable
        except TournamentRefused as exc:
            raise SngRefused(_STORAGE_CODES[exc.code], **exc.params) from None
