"""A practice Sit & Go end to end through the fake Discord (issue 36 item 7).

Alice creates one with ``/sitngo create ... bots:2``: two computer players take seats
at once, the registration message says it is practice, and her registration fills it.
She plays by clicks and commands while the computer players act by themselves (pause
0); once she is out they play it on to its winner. Every public payload is scanned for
hidden cards, hand by hand. The summary is posted, marked practice; no fee, no prize,
nothing in the ledger, no standings. Bad requests (as many computer players as seats,
computer players with a fee) get a private answer and change nothing.
"""

from __future__ import annotations

import pytest

from bot.engine import Hand, public_view
from bot.tournaments import structures
from fakediscord.harness import DiscordHarness, Msg, Reply
from fakediscord.poker import ALICE, BOB, GUILD, PLAYERS, TABLE, uid
from tests.support.game import Game
from tests.support.manager_helpers import ledger_snapshot
from tests.support.sng_game import LEVEL, Clock, registration, sng_bot


class TournamentGame(Game):
    """Plays a tournament table, checking privacy hand by hand: the Recent log goes on
    naming the cards the last two hands showed while the next is dealt from a full deck
    (history, not a leak); an all-in player buys only blind (nothing else is offered)."""

    def __init__(self, h: DiscordHarness, channel: int, table: Msg) -> None:
        super().__init__(h, channel, table, seed=5)
        self.shown_before: list[set[int]] = []  # the public cards of the last two hands

    def hidden_cards(self, hand: Hand | None = None) -> set[int]:
        # the hand in play's, or the one that just ended's (the computer players may have
        # played it out since the last check): less what the two before it showed
        return super().hidden_cards(hand) - set().union(*self.shown_before)

    async def _buy(self, user: dict, ids: list[str], use_slash: bool) -> Reply:
        offered = [c.split(":")[2] for c in ids if c.split(":")[2] in ("left", "right", "blind")]
        source = self.rng.choice(offered)
        if use_slash:
            return await self.h.slash(user, self.channel, "abyssinia buy", **{"from": source})
        return await self.h.click(user, self.table, next(c for c in ids if f":{source}:" in c))

    def check_privacy(self, ended: Hand | None = None) -> None:
        super().check_privacy(ended)
        if ended is not None:
            seen = public_view(ended)
            cards = {c for s in seen.seats for c in s.open_cards}
            cards |= {c for shown in seen.shown.values() for c in shown}
            self.shown_before = [*self.shown_before[-1:], cards]


@pytest.mark.parametrize("variant", ["a5-triple", "abyssinia"])
async def test_a_practice_sit_and_go_with_computer_players_to_a_winner(tmp_path, variant):
    path, clock = tmp_path / "practice.db", Clock()
    async with DiscordHarness(sng_bot(path, clock, bot_pause=0)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        store = h.bot.store  # type: ignore[attr-defined]
        await store.ledger.ensure_account(GUILD, uid(ALICE), "alice", 200)
        before = ledger_snapshot(path)
        stack = structures.smallest_stack(variant)
        created = await h.slash(
            ALICE, TABLE, "sitngo create", game=variant, seats=3, stack=stack, bots=2
        )
        assert created.ephemeral and "is open for registration" in created.content
        number = int(created.content.split("#")[1].split(" ")[0])
        shown = registration(h, number).text
        assert "Practice: 2 computer players (normal) take seats." in shown
        assert "no standings or season points" in shown and "Paid now" not in shown
        assert "Players (2/3)" in shown and shown.count("🤖") == 2  # named as at practice tables
        clicked = await h.click(ALICE, registration(h, number), f"sng:{number}:reg")
        assert clicked.content == f"You are registered for Sit & Go #{number}."
        threads = h.threads(TABLE)
        assert len(threads) == 1  # full: it started
        thread = int(threads[0]["id"])
        manager = h.bot.manager  # type: ignore[attr-defined]
        practice = h.bot.practice  # type: ignore[attr-defined]
        seats = manager.view(thread).seats
        assert sorted((s.bot or "") for s in seats) == ["", "normal", "normal"]
        table = h.message(h.bot.presenter.message_id(thread))  # type: ignore[attr-defined]
        game = TournamentGame(h, thread, table)
        alice_out, steps = False, 0
        for _ in range(20_000):
            hand = manager.table(thread).hand if manager.has_table(thread) else None
            await practice.settle()
            await h.settle()
            if not manager.has_table(thread):  # the winner's table closed
                if hand is not None:
                    game.check_privacy(hand)
                break
            now = manager.table(thread).hand
            if hand is not None and now is not hand:  # the computer players ended it
                game.check_privacy(hand)
            view = manager.view(thread)
            alice_out = all(s.user_id != uid(ALICE) for s in view.seats)
            if view.hand is None:
                clock.ahead += LEVEL / 2  # the stakes rise as hands go by
                if alice_out:  # nobody of Discord at it: the automatic deal's call
                    await manager.deal(thread)
                else:
                    dealt = await h.slash(ALICE, thread, f"{variant} deal")
                    assert dealt.ephemeral, dealt.content
            elif view.to_act_user == uid(ALICE):
                await game.step(use_slash=steps % 3 == 2)
                steps += 1
            else:  # the driver moves a computer player at once: settled above
                raise AssertionError(f"a computer player did not move: {view.to_act_user}")
        else:
            raise AssertionError("the practice Sit & Go did not end")
        assert alice_out and steps > 0  # she played, went out, and they played it on
        await h.bot.sitngo.wait_idle()  # type: ignore[attr-defined]
        await h.settle()
        row = await store.tournaments.get(number)
        assert row is not None and row.status == "finished" and row.practice
        entries = await store.tournaments.entries(number)
        winner = next(e for e in entries if e.place == 1)
        assert winner.bot == "normal" and all(e.prize == 0 for e in entries)
        summary = [m for m in h.messages(TABLE, include_ephemeral=False) if "🏆" in m.text]
        assert len(summary) == 1
        assert summary[0].text.startswith(f"🏆 Practice Sit & Go #{number} (")
        assert f"1. {winner.display_name}" in summary[0].text and "chips" not in summary[0].text
        after = ledger_snapshot(path)
        assert (after["accounts"], after["ledger"]) == (before["accounts"], before["ledger"])
        clock.ahead += 60  # past the click and command budgets
        standings = await h.slash(BOB, TABLE, "sitngo standings")
        assert not standings.ephemeral  # public, and a practice one counts for nothing
        assert "No Sit & Go has finished on this server yet." in standings.message.text


async def test_bad_practice_requests_get_a_private_answer_and_change_nothing(tmp_path):
    path, clock = tmp_path / "bad.db", Clock()
    async with DiscordHarness(sng_bot(path, clock, bot_pause=0)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        store = h.bot.store  # type: ignore[attr-defined]
        every_seat = await h.slash(ALICE, TABLE, "sitngo create", game="a5-draw", seats=3, bots=3)
        assert every_seat.ephemeral
        assert every_seat.content == (
            "Computer players: from 1 to 2 (a seat stays for a person), not 3."
        )
        fee = await h.slash(ALICE, TABLE, "sitngo create", game="a5-draw", seats=3, bots=1, fee=10)
        assert fee.ephemeral
        assert fee.content == (
            "A practice Sit & Go with computer players has no entry fee (you gave 10): "
            "leave the fee out."
        )
        assert await store.tournaments.open_tournaments(GUILD) == []
        assert [m for m in h.messages(TABLE, include_ephemeral=False) if "Sit & Go" in m.text] == []
        # computer players alone never start one
        created = await h.slash(ALICE, TABLE, "sitngo create", game="a5-draw", seats=3, bots=2)
        assert created.ephemeral and "is open for registration" in created.content
        alone = await h.slash(ALICE, TABLE, "sitngo start")
        assert alone.ephemeral and alone.content == (
            "Computer players never play alone: a person must register before it starts."
        )
        (row,) = await store.tournaments.open_tournaments(GUILD)
        assert row.status == "registering" and h.threads(TABLE) == []
