"""The two stronger levels adapt to what each player has shown at the table in earlier hands.

Profiles are counted from public history only (betting actions, draw counts, hands shown
down). Each test plays a real heads-up a5-draw hand on the engine to a decision after the
draw and asks ``hard`` (or ``normal``) what it does there, over many seeds, once against a
player it knows nothing of and once against the profile of a maniac or a calling station.
"""

from __future__ import annotations

import dataclasses
import random
from collections import Counter

import pytest

from bot.engine import Action, Hand, parse_header, public_view
from bot.engine.cards import format_cards, parse_cards
from bot.engine.record import parse_actions
from bot.opponents import (
    Profile,
    PublicAction,
    Strategy,
    observe,
    public_history,
    record,
    tendency,
)
from bot.opponents.profiles import SOUND
from bot.practice.driver import PracticeDriver
from tests.support.databases import Databases
from tests.support.engine_helpers import deck_for, rotate_to_seats
from tests.support.manager_helpers import GUILD, close_manager, open_manager, step
from tests.support.opponent_hands import heads_up

SEEDS = range(40)
THEIRS = "Kc Qd Jd 9s 8c"
# What 60 betting actions showed: a maniac bets or raises nearly always and never folds;
# a calling station checks or calls and never folds. ``ROUGH_STATION`` has also shown
# down five jack-or-worse hands of ten it stood pat with.
MANIAC = {"you": Profile(actions=60, aggressive=57, faced=25, folds=0)}
STATION = {"you": Profile(actions=60, aggressive=1, faced=40, folds=0)}
ROUGH_STATION = {
    "you": Profile(actions=60, aggressive=1, faced=40, folds=0, pats_shown=10, rough_pats=5)
}


def after_the_draw(
    mine: str,
    my_discard: str = "",
    their_discard: str = "Kc",
    then: str = "",
    theirs: str = THEIRS,
) -> Hand:
    """Both check before the draw; ``me`` throws ``my_discard`` (catching ``then``), the
    other player throws ``their_discard``; then it is my turn first in the last round."""
    hand = heads_up("a5-draw", mine, theirs, then=then)
    hand.apply(Action("me", "check"))
    hand.apply(Action("you", "check"))
    hand.apply(Action("me", "discard", cards=tuple(parse_cards(my_discard))))
    hand.apply(Action("you", "discard", cards=tuple(parse_cards(their_discard))))
    return hand


def decisions(hand: Hand, profiles: dict[str, Profile], level: str = "hard") -> Counter[str]:
    return Counter(
        Strategy(level, random.Random(seed)).decide(observe(hand, "me", profiles)).action
        for seed in SEEDS
    )


def facing_a_bet(mine: str) -> Hand:
    hand = after_the_draw(mine)
    hand.apply(Action("me", "check"))
    hand.apply(Action("you", "bet"))
    return hand


# ----- the maniac: a bet says little -----------------------------------------------


@pytest.mark.parametrize("mine", ["Jh 7s 4d 3c 2h", "Qh 7s 4d 3c 2h"])
def test_hard_calls_down_a_maniac_with_a_hand_it_folds_to_an_unknown_bettor(mine):
    """A made jack or queen folds to a bet from a player who drew one, unless that player
    has bet nearly every time they could: then the bet is no read, and it plays on."""
    assert decisions(facing_a_bet(mine), {}) == Counter(fold=len(SEEDS))
    assert decisions(facing_a_bet(mine), MANIAC)["fold"] == 0


def test_hard_raises_a_maniac_with_a_jack_that_wins_a_little_more_than_half():
    """Against a one-card draw a made jack wins a little more than half: a maniac
    re-raises whatever it holds, so each raise puts a bet of theirs in for one of ours,
    which pays above half (issue 19: hard asked a raise for an edge a sound player's
    calls would need, and only called, as normal does)."""
    mine = "Jh 7s 4d 3c 2h"
    assert decisions(facing_a_bet(mine), MANIAC) == Counter({"raise": len(SEEDS)})
    assert decisions(facing_a_bet(mine), MANIAC, "normal") == Counter(call=len(SEEDS))
    assert decisions(facing_a_bet("Qh 7s 4d 3c 2h"), MANIAC) == Counter(call=len(SEEDS))


@pytest.mark.parametrize("mine", ["9h 7s 4d 3c 2h", "Th 7s 4d 3c 2h"])
def test_hard_raises_a_maniac_with_a_hand_it_only_calls_an_unknown_bettor_with(mine):
    assert decisions(facing_a_bet(mine), {}) == Counter(call=len(SEEDS))
    assert decisions(facing_a_bet(mine), MANIAC) == Counter({"raise": len(SEEDS)})


def reraised(mine: str) -> Hand:
    """After the draw: I check, the other bets, I raise, they raise again."""
    hand = facing_a_bet(mine)
    hand.apply(Action("me", "raise"))
    hand.apply(Action("you", "raise"))
    return hand


@pytest.mark.parametrize("mine", ["Th 7s 4d 3c 2h", "9h 8h 6d 3c 2h"])
def test_hard_keeps_raising_a_maniac_where_it_stops_raising_an_unknown_player(mine):
    """Each raise in a round asks more of the next one, since a sound player's raises
    mean more and more; a maniac's do not, so a ten or a nine goes on raising him (issue
    19: heads-up against the maniac normal had won more than hard)."""
    assert decisions(reraised(mine), {}) == Counter(call=len(SEEDS))
    assert decisions(reraised(mine), MANIAC) == Counter({"raise": len(SEEDS)})


def maniac_who_showed_pat_jacks(hands: int = 15) -> dict[str, Profile]:
    """Profiles after ``hands`` real hands where the other player bets whenever it may,
    stands pat on a made jack, and is called down to the showdown every time."""
    profiles: dict[str, Profile] = {}
    for _ in range(hands):
        hand = heads_up("a5-draw", "Kh Qh 8d 6c 2h", "Jc 9c 6s 5s 3s")
        while not hand.complete:
            d = hand.decision()
            assert d is not None
            if d.phase == "draw":
                hand.apply(Action(d.player, "discard", cards=()))
            elif d.player == "you":
                hand.apply(Action(d.player, "bet" if "bet" in d.legal else "raise"))
            else:
                hand.apply(Action(d.player, "check" if "check" in d.legal else "call"))
        profiles = record(profiles, public_history(hand), public_view(hand).shown)
    return profiles


def pat_maniac_bets_into_me(mine: str) -> Hand:
    """Both stood pat; the other player bets after the draw and it is my turn."""
    hand = heads_up("a5-draw", mine, "Jc 9c 6s 5s 3s")
    drawn = False
    while not (drawn and hand.players[hand.to_act] == "me"):
        d = hand.decision()
        assert d is not None
        if d.phase == "draw":
            hand.apply(Action(d.player, "discard", cards=()))
            drawn = True
        elif d.player == "you":
            hand.apply(Action(d.player, "bet" if "bet" in d.legal else "raise"))
        else:
            hand.apply(Action(d.player, "call" if "call" in d.legal else "check"))
    return hand


@pytest.mark.parametrize(
    ("mine", "unseen", "rough"),
    [
        ("Jh 7s 4d 3c 2h", "fold", "call"),
        ("Th 9s 8d 7c 6h", "fold", "call"),
        ("Th 7s 4d 3c 2h", "call", "raise"),
    ],
)
def test_hard_reads_a_pat_maniac_from_the_pat_hands_it_has_shown_down(mine, unseen, rough):
    """A maniac's bets say nothing, but its pat hands shown down do: one who has stood pat
    on jacks holds a jack as often as anything better when it stands pat again, so a made
    ten or jack it bets into is called or raised (issue 19: against the maniac, hard read
    a sound player's pat hand, ten at worst, and played no better than normal)."""
    maniac = maniac_who_showed_pat_jacks()
    assert tendency(maniac["you"]).loose == 1.0
    assert decisions(pat_maniac_bets_into_me(mine), {}) == Counter({unseen: len(SEEDS)})
    assert decisions(pat_maniac_bets_into_me(mine), maniac) == Counter({rough: len(SEEDS)})
    # normal reads only the bets: a pat hand is a sound player's pat hand for it.
    assert decisions(pat_maniac_bets_into_me(mine), maniac, "normal") == decisions(
        pat_maniac_bets_into_me(mine), {}, "normal"
    )


def test_hard_reads_a_maniacs_pat_jack_from_the_first_one_shown():
    """One pat jack shown down is not yet a habit (the rough-pat read needs more), but a
    sound player never stands pat on a jack with one draw left: it already says how rough
    this one stands pat, and a made jack calls its bet."""
    shown = dataclasses.replace(MANIAC["you"], pats_shown=3, rough_pats=1, roughest_pat=11)
    assert not tendency(shown).rough_pat
    sound_pats = dataclasses.replace(shown, rough_pats=0, roughest_pat=10)
    hand = pat_maniac_bets_into_me("Jh 7s 4d 3c 2h")
    assert decisions(hand, {"you": shown}) == Counter(call=len(SEEDS))
    assert decisions(hand, {"you": sound_pats}) == Counter(fold=len(SEEDS))


def test_hard_keeps_a_raise_edge_against_a_player_who_does_not_bet_everything():
    """The raise edge goes to zero only against a player who bets and raises with
    anything: one who bets most of the time but not always keeps a part of it, as before
    the maniac's read (its raises are not all re-raised with junk). A ten-eight raises the
    maniac and only calls the other."""
    mine = "Th 8h 7d 6c 4h"
    mostly = {"you": Profile(actions=60, aggressive=48, faced=25, folds=0)}
    assert 0.5 < tendency(mostly["you"]).loose < 0.9
    assert decisions(facing_a_bet(mine), MANIAC) == Counter({"raise": len(SEEDS)})
    assert decisions(facing_a_bet(mine), mostly) == Counter(call=len(SEEDS))


def maniac_raised_then_drew(mine: str, their_discard: str | None) -> Hand:
    """Heads-up a5-draw: the other player (holding Kc Qd 9h 4s 2c) raises whenever it
    may before the draw, ``me`` calls; at my draw. With ``their_discard`` I am the dealer
    and they drew first, throwing it; with None I draw first."""
    if their_discard is None:
        hand = heads_up("a5-draw", mine, "Kc Qd 9h 4s 2c")
    else:
        deck = parse_cards(" ".join(deck_for(["Kc Qd 9h 4s 2c", mine])))
        hand = Hand.start("a5-draw", [("me", 100), ("you", 100)], 0, deck)
    while not (hand.players[hand.to_act] == "me" and hand.phase == "draw"):
        d = hand.decision()
        assert d is not None
        if d.phase == "draw":
            hand.apply(Action(d.player, "discard", cards=tuple(parse_cards(their_discard or ""))))
        else:
            if d.player == "you":
                bet = "raise" if "raise" in d.legal else "bet" if "bet" in d.legal else "call"
            else:
                bet = "call" if "call" in d.legal else "check"
            hand.apply(Action(d.player, bet))
    return hand


def thrown(hand: Hand, profiles: dict[str, Profile], level: str = "hard") -> Counter[str]:
    return Counter(
        " ".join(
            sorted(
                format_cards(
                    Strategy(level, random.Random(seed)).decide(observe(hand, "me", profiles)).cards
                )
            )
        )
        for seed in SEEDS
    )


@pytest.mark.parametrize(
    ("mine", "their_discard", "rule", "against_maniac"),
    [
        # They stood pat or drew one: a pat ten's one chance is worth less than a smooth
        # draw's hits, which cap the last round, and misses, which fold it cheaply.
        ("Th 7s 4d 3c 2h", "", "", "Th"),
        ("Th 7s 4d 3c 2h", "Kc", "", "Th"),
        # I draw first: a rough jack stands pat, a draw to an eight would be rougher still.
        ("Jh 8s 6d 5c 3h", None, "Jh", ""),
    ],
)
def test_hard_draws_against_a_maniac_for_the_last_rounds_chips(
    mine, their_discard, rule, against_maniac
):
    """At the last draw against a maniac, hard chooses to stand pat or draw by what the
    last round's betting brings: it is capped when ahead, called or folded when behind
    (issue 19: hard drew by the sound rule, as normal does, against a maniac too)."""
    hand = maniac_raised_then_drew(mine, their_discard)
    assert thrown(hand, MANIAC) == Counter({against_maniac: len(SEEDS)})
    assert thrown(hand, {}) == Counter({rule: len(SEEDS)})
    assert thrown(hand, MANIAC, "normal") == Counter({rule: len(SEEDS)})


# ----- the calling station: no bluffs, thinner value ----------------------------------


@pytest.mark.parametrize(
    ("mine", "discard", "then", "theirs", "their_discard"),
    [
        # I drew one and caught a king; they drew two.
        ("Kc 7d 4h 3s 2c", "Kc", "Kh", "Kd Qs Jd 9c 8d", "Kd Qs"),
        # I stood pat on a jack or a queen; they drew one.
        ("Jh 7s 4d 3c 2h", "", "", THEIRS, "Kc"),
        ("Qh 7s 4d 3c 2h", "", "", THEIRS, "Kc"),
    ],
)
def test_hard_never_bluffs_a_calling_station(mine, discard, then, theirs, their_discard):
    """First to act in the last round with a hand that loses to most of the other's
    range, hard bets it now and then (a bluff: the other drew more, or it stood pat), but
    never against a player who never folds."""
    hand = after_the_draw(mine, discard, their_discard, then, theirs)
    against_unknown = decisions(hand, {})
    assert against_unknown["bet"] > 0, against_unknown
    assert decisions(hand, STATION) == Counter(check=len(SEEDS))


def test_hard_value_bets_thinner_against_a_calling_station():
    """A made ten checked to: against an unknown player that drew one it mostly checks
    (a sound player folds what it beats and calls with what beats it), against one who
    calls everything it always bets."""
    mine = "Th 8s 6d 3c 2h"
    against_unknown = decisions(after_the_draw(mine), {})
    assert against_unknown["check"] > len(SEEDS) // 2, against_unknown
    assert decisions(after_the_draw(mine), STATION) == Counter(bet=len(SEEDS))


def test_hard_bets_into_a_pat_hand_of_a_player_who_stands_pat_rough():
    """Both stood pat. A made jack does not bet into a sound player's pat hand (without
    bluffs, against a station), but does into the pat hand of a player who has shown
    down jacks and queens it stood pat with."""
    mine = "Jh 7s 4d 3c 2h"
    assert decisions(after_the_draw(mine, their_discard=""), STATION) == Counter(check=len(SEEDS))
    assert decisions(after_the_draw(mine, their_discard=""), ROUGH_STATION) == Counter(
        bet=len(SEEDS)
    )


def test_easy_does_not_adapt():
    """A beginner's opponent plays its cards, whoever it plays against."""
    for mine in ("Jh 7s 4d 3c 2h", "Th 8s 6d 3c 2h"):
        hand = after_the_draw(mine)
        assert decisions(hand, {}, "easy") == decisions(hand, STATION, "easy")
        bet = facing_a_bet(mine)
        assert decisions(bet, {}, "easy") == decisions(bet, MANIAC, "easy")


def test_normal_calls_down_a_maniac_with_a_king_it_folds_to_an_unknown_bettor():
    """``normal`` reads the profiles too (issue 19: against tables of maniacs its fixed
    discount for every raise folded most hands, and it lost to ``easy``)."""
    mine = "Kh 7s 4d 3c 2h"
    assert decisions(facing_a_bet(mine), {}, "normal") == Counter(fold=len(SEEDS))
    assert decisions(facing_a_bet(mine), MANIAC, "normal") == Counter(call=len(SEEDS))


def test_normal_raises_a_maniac_with_a_ten_it_only_calls_an_unknown_bettor_with():
    mine = "Th 7s 4d 3c 2h"
    assert decisions(facing_a_bet(mine), {}, "normal") == Counter(call=len(SEEDS))
    assert decisions(facing_a_bet(mine), MANIAC, "normal") == Counter({"raise": len(SEEDS)})


def test_normal_value_bets_a_jack_against_a_calling_station_only():
    mine = "Jh 7s 4d 3c 2h"
    assert decisions(after_the_draw(mine), {}, "normal") == Counter(check=len(SEEDS))
    assert decisions(after_the_draw(mine), STATION, "normal") == Counter(bet=len(SEEDS))


def four_handed_triple_draw_raised_to_me(mine: str) -> Hand:
    """Four-handed triple draw before the first draw: the three others (pairs and
    trash; their cards are hidden from ``me``) raise whenever they may until it is my turn."""
    others = ["Tc Td Jd 9s 8c", "Th Ts Jc 9d 8h", "Js Jh 9h 9c 8s"]
    dealer = 2
    deck = parse_cards(" ".join(deck_for(rotate_to_seats([*others, mine], dealer))))
    seats = [("a", 100), ("b", 100), ("c", 100), ("me", 100)]
    hand = Hand.start("a5-triple", seats, dealer, deck)
    while hand.players[hand.to_act] != "me":
        d = hand.decision()
        assert d is not None
        hand.apply(Action(d.player, "raise" if "raise" in d.legal else "call"))
    return hand


def test_hard_calls_three_maniacs_raises_with_a_draw_it_folds_to_three_unknown_raisers():
    """Three to a seven with three draws: folded to a capped pot from players it knows
    nothing of, played on against three maniacs. The margin a call needs above the pot odds
    pays for later bets made when behind; against several players, who pay those bets
    too, and loose ones, whose bets come with any hand, it shrinks (issue 19: the full
    triple-draw table of maniacs beat hard's folds, and normal won more there)."""
    maniacs = {p: MANIAC["you"] for p in ("a", "b", "c")}
    hand = four_handed_triple_draw_raised_to_me("Ac 3d 7h Ks Qc")
    assert decisions(hand, {}) == Counter(fold=len(SEEDS))
    assert decisions(hand, maniacs)["fold"] == 0  # called, or raised: more than its share


# ----- counting the profiles ---------------------------------------------------------


def test_a_sound_or_unseen_player_reads_as_sound():
    assert tendency(None) == SOUND
    assert tendency(Profile()) == SOUND
    sound = Profile(actions=40, aggressive=12, faced=20, folds=7)
    assert tendency(sound) == SOUND


def betting(player: str, actions: str) -> list[PublicAction]:
    return [PublicAction(player, a) for a in actions.split()]


def test_record_counts_each_players_public_betting():
    maniac: dict[str, Profile] = {}
    station: dict[str, Profile] = {}
    for _ in range(10):
        maniac = record(maniac, betting("x", "fold") + betting("m", "bet raise raise raise"))
        station = record(station, betting("s", "check call call check call"))
    assert maniac["m"] == Profile(actions=40, aggressive=40, faced=30, folds=0)
    assert maniac["x"] == Profile(actions=10, aggressive=0, faced=10, folds=10)
    t = tendency(maniac["m"])
    assert t.loose == 1.0 and t.sticky > 0.9 and t.passive == 0.0
    t = tendency(station["s"])
    assert t.loose == 0.0 and t.sticky > 0.9 and t.passive == 1.0
    assert tendency(maniac["x"]).sticky == 0.0


def test_record_reads_rough_pat_hands_from_a_real_showdown():
    """The other player stands pat on a queen, both check it down: the showdown shows a
    rough pat hand; the first such hand does not yet outweigh the prior, the third does."""
    profiles: dict[str, Profile] = {}
    reads: list[bool] = []  # after each showdown: is "you" read as standing pat rough?
    for _ in range(3):
        hand = after_the_draw("9h 7s 4d 3c 2h", their_discard="")
        hand.apply(Action("me", "check"))
        hand.apply(Action("you", "check"))
        assert hand.complete
        history = public_history(hand)
        assert all(a.cards is None for a in history)  # discards as counts only
        profiles = record(profiles, history, public_view(hand).shown)
        reads.append(tendency(profiles["you"]).rough_pat)
    assert reads[0] is False and reads[2] is True
    assert profiles["you"].pats_shown == 3 and profiles["you"].rough_pats == 3
    assert profiles["me"].pats_shown == 3 and profiles["me"].rough_pats == 0
    assert tendency(profiles["you"]).rough_pat
    assert not tendency(profiles["me"]).rough_pat


# ----- the practice driver keeps the profiles per table ---------------------------------

CH = 710
PERSON = 31


async def test_the_practice_driver_counts_each_finished_hand_and_starts_over_on_new_seats(
    databases: Databases,
) -> None:
    """At a real practice table the driver's profiles are exactly what the recorded hands
    show in public (replayed from the store), and a new seat empties them."""
    store, m = await open_manager(databases.target("p.db"), seed=7)
    driver = PracticeDriver(m, pause=0, rng=random.Random(3))
    finished: list[int] = []
    m.subscribe(lambda e: finished.append(e.hand_id or 0) if e.kind == "finished" else None)
    await m.open_table(GUILD, CH, "a5-draw")
    await m.join(CH, PERSON, "anna")
    await m.add_bot(CH, PERSON, "hard", "bot (hard)")
    for n in range(3):
        await m.deal(CH, PERSON)
        for _ in range(500):
            await driver.settle()
            if m.view(CH).hand is None:
                break
            if m.view(CH).to_act_user == PERSON:
                await step(m, CH, f"profiles-{n}")
    assert len(finished) == 3
    expected: dict[str, Profile] = {}
    for hand_id in finished:
        hand = replay_record(await store.history.hand_record(hand_id))
        expected = record(expected, public_history(hand), public_view(hand).shown)
    assert driver.profiles(CH) == expected
    assert expected[str(PERSON)].actions > 0
    await m.join(CH, PERSON + 1, "bruno")
    assert driver.profiles(CH) == {}
    await driver.close()
    await close_manager(store, m)


async def test_a_move_made_at_its_deadline_reads_the_profiles_as_the_driver_would(
    databases: Databases,
) -> None:
    """A computer player whose driver never moved is moved by its turn's deadline: that
    move reads what the table has seen of each player too (before, the deadline's move
    decided as against strangers). The person plays a maniac for a few hands; then, at
    a turn where the profiles change hard's decision, the deadline makes the move."""
    store, m = await open_manager(databases.target("p.db"), seed=11)
    driver = PracticeDriver(m, pause=0, rng=random.Random(3))
    await m.open_table(GUILD, CH, "a5-draw")
    await m.join(CH, PERSON, "anna")
    await m.add_bot(CH, PERSON, "hard", "bot (hard)")
    moves: list[str] = []
    m.subscribe(lambda e: moves.append(e.move.action) if e.move is not None else None)

    async def maniac() -> None:
        decision = m.table(CH).hand.decision()  # type: ignore[union-attr]
        assert decision is not None
        if decision.phase == "draw":
            await m.act(CH, PERSON, "discard", cards="")  # stands pat, always
            return
        legal = decision.legal
        await m.act(CH, PERSON, next(a for a in ("raise", "bet", "call", "check") if a in legal))

    try:
        tested = False
        for n in range(200):
            driver.pause = 0 if n < 12 else 3600  # then the driver would wait an hour
            await m.deal(CH, PERSON)
            for _ in range(100):
                if n < 12:
                    await driver.settle()  # (later its moves sleep: settling would wait an hour)
                view = m.view(CH)
                if view.hand is None:
                    break
                if view.to_act_user == PERSON:
                    await maniac()
                    continue
                if n < 12:
                    continue
                bot = view.to_act_user
                assert bot is not None and view.hand_id is not None
                seen = m.observation(CH, bot, view.hand_id, view.turn)
                assert seen is not None
                read = Strategy("hard", random.Random(0)).decide(
                    dataclasses.replace(seen, profiles=driver.profiles(CH))
                )
                blind = Strategy("hard", random.Random(0)).decide(seen)
                m.timers.bot_rng = random.Random(0)
                assert await m.expire(CH)
                if read == blind:
                    continue
                assert moves[-1] == read.action, (read, blind)
                tested = True
            if tested:
                break
        assert tested, "no turn where the profiles changed the decision"
        assert tendency(driver.profiles(CH)[str(PERSON)]).loose > 0.5
    finally:  # its moves sleep an hour: cancel them, pass or fail
        await driver.close()
        await close_manager(store, m)


def replay_record(record_: dict) -> Hand:
    header = parse_header(record_)
    header.actions = list(parse_actions(record_["actions"]))  # type: ignore[arg-type]
    return Hand.replay(header)


def test_calls_in_a_capped_round_do_not_make_a_maniac_look_passive():
    """At a full table of maniacs the round is capped before most of them act: their calls
    then are all the rules allow, so they count as no chance to bet (on the old count the
    seven maniacs read as passive callers and their raises as strength)."""
    profiles: dict[str, Profile] = {}
    capped = betting("m1", "bet") + betting("m2", "raise") + betting("m3", "raise")
    capped += betting("m4", "raise") + [PublicAction(f"m{i}", "call") for i in range(5, 9)]
    for _ in range(10):
        profiles = record(profiles, capped + [PublicAction("m8", "buy", source="left")] + capped)
    assert profiles["m8"].actions == 0 and profiles["m8"].faced == 20
    assert profiles["m2"].aggressive == profiles["m2"].actions == 20


# ----- Abyssinia: a maniac's bets in the rounds to come ---------------------------------

MANIACS = {o: MANIAC["you"] for o in ("a", "b", "c")}
# four players buy the left card in turn; mine is a weak share at the fourth round
WEAK_SHARE = "Qc 4s Kh 7s Qd Js Th 8c Jc 5h 9s Qs Ac 5c Kc Ts 8h Ks 3c As 2h Td 7d 2d"


def abyssinia_facing_three_bets(stub: str, betting_round: int) -> Hand:
    """Four players (me first) buy the left card each time and check or call through the
    betting rounds until ``betting_round`` (0 is the first): there I check, and the other
    three bet and raise; then it is my turn."""
    deck = parse_cards(stub)
    deck += [c for c in parse_cards(" ".join(deck_for([], ""))) if c not in deck]
    hand = Hand.start("abyssinia", [("me", 100), ("a", 100), ("b", 100), ("c", 100)], 3, deck)
    checked = False
    while True:
        d = hand.decision()
        assert d is not None
        if d.phase == "buy":
            hand.apply(Action(d.player, "buy", source="left"))
            continue
        now = sum(a.action == "buy" for a in hand.actions) // 4 - 1
        if now < betting_round:
            hand.apply(Action(d.player, "check" if "check" in d.legal else "call"))
        elif d.player == "me":
            if checked:
                return hand
            hand.apply(Action("me", "check"))
            checked = True
        else:
            move = next(m for m in ("bet", "raise", "call") if m in d.legal)
            hand.apply(Action(d.player, move))


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_abyssinia_calls_maniacs_for_the_rounds_to_come_where_it_folds_to_sound_bettors(level):
    """A share just short of the pot odds folds to three players' bets and raises; against
    three maniacs it calls: they will go on betting in every round to come, so the hand
    that comes in wins more than this pot (issue 19: at eight seats against maniacs
    normal won less than easy, which calls nearly everything)."""
    hand = abyssinia_facing_three_bets(WEAK_SHARE, 3)

    def moves(profiles: dict[str, Profile]) -> Counter[str]:
        return Counter(
            Strategy(level, random.Random(seed)).decide(observe(hand, "me", profiles)).action
            for seed in range(20)
        )

    assert moves({})["fold"] >= 18
    assert moves(MANIACS)["call"] >= 18


# hard counts more of those rounds to come than normal (the levels' order, target 4.3)
THINNER_SHARE = "5h Td Qs Qd 6d Qh 6c Kh 8c 9h 7s Ad 9s 9c Qc Jh 7c Jc 3h Ac 7h Th Tc 5d"


def test_hard_calls_maniacs_with_a_thinner_share_than_normal_does():
    hand = abyssinia_facing_three_bets(THINNER_SHARE, 3)

    def moves(level: str, profiles: dict[str, Profile]) -> Counter[str]:
        return Counter(
            Strategy(level, random.Random(seed)).decide(observe(hand, "me", profiles)).action
            for seed in range(20)
        )

    assert moves("hard", {})["fold"] >= 18  # short of the pot odds against sound bettors
    assert moves("normal", MANIACS)["fold"] >= 18
    assert moves("hard", MANIACS)["call"] >= 18


STATIONS = {o: STATION["you"] for o in ("a", "b", "c")}
# four players buy the left card in turn; at the third round mine is a share of about
# 0.29 of the pot (20,000 samples), above a fair quarter but short of normal's edge
FAIR_PLUS_SHARE = "Tc Ad 5d Kc 6h 3s Jd 7h 5h 2s 8h 9c Qd 9d As 3h 4h 6s 7d Ks 5c 6c 2c Jc"


def abyssinia_checked_to_me(stub: str, betting_round: int) -> Hand:
    """Four players (me first) buy the left card each time and check through the betting
    rounds until ``betting_round`` (0 is the first), where it is my turn first."""
    deck = parse_cards(stub)
    deck += [c for c in parse_cards(" ".join(deck_for([], ""))) if c not in deck]
    hand = Hand.start("abyssinia", [("me", 100), ("a", 100), ("b", 100), ("c", 100)], 3, deck)
    while True:
        d = hand.decision()
        assert d is not None
        if d.phase == "buy":
            hand.apply(Action(d.player, "buy", source="left"))
        elif sum(a.action == "buy" for a in hand.actions) // 4 - 1 < betting_round:
            hand.apply(Action(d.player, "check"))
        else:
            assert d.player == "me"
            return hand


def test_hard_bets_a_share_above_a_fair_one_into_calling_stations_where_normal_checks():
    """Every Abyssinia player who never folds calls a bet, so any share above a fair one
    gains from betting: hard bets it; normal keeps its edge, and checks it whoever it
    plays against (issue 19: normal bet it too, so against eight-seat calling stations
    the two levels played alike, and hard was not shown the better)."""
    hand = abyssinia_checked_to_me(FAIR_PLUS_SHARE, 2)

    def moves(level: str, profiles: dict[str, Profile]) -> Counter[str]:
        return Counter(
            Strategy(level, random.Random(seed)).decide(observe(hand, "me", profiles)).action
            for seed in range(20)
        )

    assert moves("hard", STATIONS) == Counter(bet=20)
    assert moves("normal", STATIONS) == Counter(check=20)
    assert moves("normal", {}) == Counter(check=20)


# ----- the honest bettor: last-round bets shown down were value (issue 38 item 6) ------

HONEST = {
    "you": Profile(actions=60, aggressive=18, faced=20, folds=7, bets_shown=8, weak_bets_shown=0)
}


def test_hard_folds_to_an_honest_bettor_a_ten_it_calls_an_unknown_bettor_with():
    """A player whose last-round bets shown down were all made hands of a nine or better
    bets for value: a ten that calls an unknown bettor folds to them, and an eight that
    raises an unknown bettor only calls (a triple-draw player from published strategy
    took these calls; they never won)."""
    assert decisions(facing_a_bet("Th 8s 6d 3c 2h"), {}) == Counter(call=len(SEEDS))
    assert decisions(facing_a_bet("Th 8s 6d 3c 2h"), HONEST) == Counter(fold=len(SEEDS))
    assert decisions(facing_a_bet("8h 7s 4d 3c 2h"), {}) == Counter({"raise": len(SEEDS)})
    assert decisions(facing_a_bet("8h 7s 4d 3c 2h"), HONEST) == Counter(call=len(SEEDS))


def test_record_counts_the_last_rounds_bets_shown_down():
    """The other player bets the last round and is called: what they show is counted,
    a made seven as a value bet, a pair as a weak one; only the last bettor's hand counts.
    After a few value bets shown they read as honest; a bluff shown takes it back."""
    profiles: dict[str, Profile] = {}
    honest = []
    for _ in range(6):
        hand = after_the_draw("Kh 7s 4d 3c 2h", theirs="7c 5d 4h 3s Ac", their_discard="")
        hand.apply(Action("me", "check"))
        hand.apply(Action("you", "bet"))
        hand.apply(Action("me", "call"))
        assert hand.complete
        profiles = record(profiles, public_history(hand), public_view(hand).shown)
        honest.append(tendency(profiles["you"]).honest)
    assert profiles["you"].bets_shown == 6 and profiles["you"].weak_bets_shown == 0
    assert profiles["me"].bets_shown == 0  # the caller's hand says nothing of a bet
    assert 0.0 < honest[0] < honest[2] < honest[5] == 1.0
    hand = after_the_draw("Kh 7s 4d 3c 2h", theirs="7c 7d 4h 3s Ac", their_discard="")
    hand.apply(Action("me", "check"))
    hand.apply(Action("you", "bet"))
    hand.apply(Action("me", "call"))
    profiles = record(profiles, public_history(hand), public_view(hand).shown)
    assert profiles["you"].weak_bets_shown == 1
    assert tendency(profiles["you"]).honest < honest[5]
