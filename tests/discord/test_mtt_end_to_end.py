"""Multi-table tournaments end to end through the fake Discord (issue 37).

Twenty scripted users: one creates a scheduled tournament with ``/mtt create`` (its
Discord event is created), moves its start (the event moves), nineteen register with
the registration message's button, the creator starts it (five tables of four, each a
thread of the channel) and the twentieth registers late. The tables are played by
clicks on each thread's table message, with fast levels of the bot's clock, to a
winner: balancing moves (each moved player told privately, with a link), tables broken,
hand-for-hand on the bubble, a restart with hands in play on several tables, and restarts
between a hand's count and its settlement (until one of them put a player out). Then
the ledger, the places, the standings, the event (completed) and every public payload
(no hidden card of any table's hand) are checked. Bad requests get a private answer and
change nothing.
"""

from __future__ import annotations

import asyncio
import re

import pytest

from bot.engine import Hand, public_view
from bot.storage.totals import StatsKind
from bot.tables.manager import TableManager
from bot.tournaments import structures
from bot.tournaments.multi_table import PAYABLE
from fakediscord.harness import DiscordHarness, HarnessError, Msg, Reply
from fakediscord.poker import GUILD, TABLE, uid
from tests.support.failpoints import failing_commits
from tests.support.game import Game, card_pattern
from tests.support.mtt_server import (
    LEVEL,
    MEMBERS,
    MOD,
    PEOPLE,
    Clock,
    grant,
    mtt_bot,
    registration,
)

FEE = 40
BY_ID = {uid(u): u for u in PEOPLE}
HAND_NAMED = re.compile(r'"title": "[^"]*?hand #(\d+)', re.IGNORECASE)  # the hand shown


class TableGame(Game):
    """One table of the tournament, played by its players' clicks. Its privacy check
    reads the payloads sent to its own thread (another table's hand is another deck)
    and lets the Recent log name cards the last two hands there showed."""

    def __init__(self, h: DiscordHarness, channel: int, table: Msg, clock: Clock) -> None:
        super().__init__(h, channel, table)
        self.by_id, self.clock = BY_ID, clock
        self.shown_before: list[set[int]] = []
        self.checked = 0
        self.hands: dict[int, Hand] = {}  # this table's hands by id

    def hidden_cards(self, hand: Hand | None = None) -> set[int]:
        if hand is None and not self.manager.has_table(self.channel):
            return set()  # closed: no hand in play here
        hidden = super().hidden_cards(hand)
        if hand is not None:
            return hidden
        return hidden - set().union(*self.shown_before)

    def check_privacy(self, ended: Hand | None = None) -> None:
        """As ``Game``'s, for this thread's payloads, each against the hidden cards of the
        hand it names: the one in play (less what the last hands showed, which the Recent
        log may repeat), the one that just ended, or an earlier one of this table."""
        if ended is not None:
            seen = public_view(ended)
            cards = {c for s in seen.seats for c in s.open_cards}
            cards |= {c for shown in seen.shown.values() for c in shown}
            self.shown_before = [*self.shown_before[-1:], cards]
        table = self.manager.table(self.channel) if self.manager.has_table(self.channel) else None
        playing = table.hand_id if table is not None else None
        now = card_pattern(self.hidden_cards())
        for sent in self.h.sent[self.checked :]:
            if sent.channel_id != self.channel or sent.visibility != "public":
                continue
            named = HAND_NAMED.search(sent.text)
            hand_id = int(named[1]) if named else None
            hand = self.hands.get(hand_id or 0) if named else ended
            pattern = now if hand is None or hand_id == playing else card_pattern(
                Game.hidden_cards(self, hand))  # fmt: skip
            if pattern is not None:
                assert not pattern.search(sent.text), f"hidden card in public {sent.text[:300]}"
            assert all(n in ("board.png",) for n in sent.file_names), sent.file_names
        self.checked = len(self.h.sent)

    async def click(self, user: dict, message: Msg, custom_id: str) -> Reply:
        """A click; one refused for clicking too fast is made again once the player's
        click budget is back (the bot's clock moved on)."""
        reply = await self.h.click(user, message, custom_id)
        if reply.callback_type == 4 and "too fast" in reply.content:
            self.clock.ahead += 10
            reply = await self.h.click(user, message, custom_id)
        return reply

    async def step(self, use_slash: bool) -> Reply:
        """The player to act plays on: raises, bets or calls when they can (the field
        shrinks fast), stands pat at the draw."""
        view = self.manager.view(self.channel)
        user = self.by_id[view.to_act_user]
        hand = view.hand
        assert hand is not None
        before = self.manager.table(self.channel).hand
        self.hands[view.hand_id or 0] = before
        ids = [c for c in self.table.custom_ids() if c.count(":") == 4]
        assert ids, "the table message offers the player to act their buttons"
        if hand.phase == "draw":
            draw_id = next(c for c in ids if ":draw:" in c or ":pat:" in c)
            reply = await self.click(user, self.table, draw_id)
            if ":draw:" in draw_id:
                pat = next(c for c in reply.message.custom_ids() if ":pat:" in c)
                reply = await self.click(user, reply.message, pat)
        else:
            actions = [c.split(":")[2] for c in ids]
            pick = next(a for a in ("raise", "bet", "call", "check", *actions) if a in actions)
            reply = await self.click(user, self.table, next(c for c in ids if f":{pick}:" in c))
        assert reply.callback_type != 4, reply.content
        table = (
            self.manager.table(self.channel) if self.manager.has_table(self.channel) else None
        )  # None: closed, its table broken
        ended = before if table is None or table.hand is not before else None
        self.check_privacy(ended)
        return reply


async def balance(h: DiscordHarness, user: dict) -> int:
    account = await h.bot.store.ledger.balance(GUILD, uid(user))  # type: ignore[attr-defined]
    return 0 if account is None else int(account.balance)


def event_start(h: DiscordHarness, event_id: int) -> str:
    return str(h.scheduled_events[event_id]["scheduled_start_time"])


@pytest.mark.parametrize("variant", ["a6-draw", "a5-draw", "a5-triple", "abyssinia"])
async def test_twenty_players_on_five_tables_to_a_winner_with_a_restart(tmp_path, variant) -> None:
    path, clock = tmp_path / "mtt.db", Clock()
    creator = PEOPLE[0]
    async with DiscordHarness(mtt_bot(path, clock)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, MEMBERS)
        chips = grant(h)
        stack = structures.smallest_stack(variant)
        created = await h.slash(
            creator, TABLE, "mtt create", game=variant, table_size=4, cap=20, speed="turbo",
            stack=stack, fee=FEE, start_in=60, late_levels=1,
        )  # fmt: skip
        assert created.ephemeral and "is open for registration" in created.content
        number = int(created.content.split("#")[1].split(" ")[0])
        store = h.bot.store  # type: ignore[attr-defined]
        _, event_id = await store.multi_tables.scheduled(number)
        assert event_id is not None and h.scheduled_events[event_id]["status"] == 1
        first_start = event_start(h, event_id)
        moved = await h.slash(creator, TABLE, "mtt reschedule", start_in=30)
        assert moved.ephemeral and f"Tournament #{number} now starts" in moved.content
        assert event_start(h, event_id) != first_start  # the event moved with it
        for p in PEOPLE[:19]:
            clicked = await h.click(p, registration(h, number), f"mtt:{number}:reg")
            assert clicked.content == f"You are registered for tournament #{number}."
        assert "Players (19/20)" in registration(h, number).text
        assert [await balance(h, p) for p in PEOPLE[:19]] == [chips - FEE] * 19
        started = await h.slash(creator, TABLE, "mtt start")
        assert started.ephemeral and f"Tournament #{number} has started" in started.content
        await h.settle()
        threads = [int(t["id"]) for t in h.threads(TABLE)]
        assert len(threads) == 5
        shown = registration(h, number)
        assert all(f"<#{t}>" in shown.text for t in threads)
        assert shown.custom_ids() == [f"mtt:{number}:reg"]  # late registration is open
        late = await h.click(PEOPLE[19], shown, f"mtt:{number}:reg")
        assert late.ephemeral and "You are registered late: your seat is at table" in late.content
        manager: TableManager = h.bot.manager  # type: ignore[attr-defined]
        games = {}
        hands, restarted, moves_seen, hand_for_hand = 0, False, 0, False
        broken, cut, resumed, cut_out, cuts = 0, [0], [1], False, []
        while True:
            await h.settle()
            row = await store.tournaments.get(number)
            assert row is not None
            if row.status != "running":
                break
            state = await store.multi_tables.state(number)
            hand_for_hand = hand_for_hand or state.hand_for_hand
            broken = max(broken, sum(t.broken for t in state.tables))
            stacks = [e.stack for e in await store.tournaments.entries(number)]
            assert sum(stacks) == 20 * stack  # the chips in play, at every step
            tables = manager.channels(GUILD)
            levels = {manager.view(c).level.number for c in tables}  # type: ignore[union-attr]
            assert len(levels) == 1  # one clock: every table at the same level
            playing = [c for c in tables if manager.view(c).hand is not None]
            assert playing, "no table is playing: the tournament is stuck"
            if not restarted and hands >= 30 and len(playing) >= 2:
                await h.restart(mtt_bot(path, clock))
                manager = h.bot.manager  # type: ignore[attr-defined]
                store = h.bot.store  # type: ignore[attr-defined]
                cut, resumed = playing, [c for c in playing if manager.view(c).hand is not None]
                restarted = True
                continue
            channel = min(playing, key=lambda c: (c not in games, c))
            if channel not in games:
                games[channel] = TableGame(h, channel, h.message(
                    h.bot.presenter.message_id(channel)), clock)  # type: ignore[attr-defined]  # fmt: skip
            before = manager.table(channel).hand
            if restarted and not cut_out and len(playing) >= 2:
                # the bot stops between a hand's count and its settlement (the settlement's
                # commit fails, as on a kill), until such a hand has put a player out
                hand_id = manager.view(channel).hand_id
                logged = ""
                with failing_commits("finish_hand", 10**6) as failed:
                    try:
                        await games[channel].step(use_slash=False)
                    except HarnessError as error:  # the hand ended: its settlement failed
                        logged = str(error)
                if before is None or not before.complete:
                    continue
                state = await store.multi_tables.state(number)
                counted = any(t.last_hand_id == hand_id for t in state.tables)
                unsettled = manager.view(channel)  # the hand is still the table's
                cuts.append(
                    bool(failed and counted and unsettled.hand_id == hand_id and unsettled.hand)
                    and "not settled; trying again" in logged
                )
                cut_out = 0 in before.stacks().values()
                await h.restart(mtt_bot(path, clock))
                manager = h.bot.manager  # type: ignore[attr-defined]
                store = h.bot.store  # type: ignore[attr-defined]
                hands += 1
                continue
            await games[channel].step(use_slash=False)
            if not manager.has_table(channel) or manager.table(channel).hand is not before:
                hands += 1
                clock.ahead += LEVEL / 4
            assert hands < 2000, "the tournament does not end"
        assert restarted and resumed == cut  # every hand in play went on after it
        # restarts between a hand's count and its settlement, the last with a player out
        assert cut_out and cuts and all(cuts)
        assert hand_for_hand and broken >= 1  # the bubble, and a table broken in play
        await h.bot.mtt.wait_idle()  # type: ignore[attr-defined]
        await h.settle()
        assert row.status == "finished"
        state = await store.multi_tables.state(number)
        assert sum(t.broken for t in state.tables) == 4  # one table played to the end
        entries = await store.tournaments.entries(number)
        places = [e.place for e in entries]  # players out in the same hand may share one
        assert len(entries) == 20 and all(p is not None and 1 <= p <= 20 for p in places)
        assert places.count(1) == 1
        pool = 20 * FEE
        assert sum(e.prize for e in entries) == pool
        assert await store.tournaments.ledger_sums(number) == {
            "sng_fee": -pool,
            "sng_prize": pool,
        }
        for p in PEOPLE:
            entry = next(e for e in entries if e.user_id == uid(p))
            assert await balance(h, p) == chips - FEE + entry.prize
        winner = next(e for e in entries if e.place == 1)
        summary = [m for m in h.messages(TABLE, include_ephemeral=False) if "🏆" in m.text]
        assert len(summary) == 1 and f"1. {winner.display_name}:" in summary[0].text
        assert f"Finished: {winner.display_name} won." in registration(h, number).text
        assert h.scheduled_events[event_id]["status"] == 3  # completed
        assert not manager.channels(GUILD)  # every table closed
        # and every table's thread archived after its last word (the broken ones too), each
        # table message showing the closed table without buttons
        threads = h.threads(TABLE)
        assert len(threads) == 5 and all(t["thread_metadata"]["archived"] for t in threads)
        for t in threads:
            shown = h.messages(int(t["id"]), include_ephemeral=False)
            assert shown and not any(m.components for m in shown)
        # moved players were told privately, each in a DM with the new table's link
        notices = [s for s in h.sent if "you were moved to table" in s.text]
        moves_seen = len(notices)
        assert moves_seen > 0 and all(s.visibility == "dm" for s in notices)
        assert all(f"https://discord.com/channels/{GUILD}/" in s.text for s in notices)
        for table_game in games.values():
            table_game.check_privacy()
        clock.ahead += 60
        standings = await h.slash(PEOPLE[1], TABLE, "sitngo standings")  # public
        assert not standings.ephemeral and standings.answer is not None
        assert f"1. {winner.display_name}: points" in standings.answer.text
        # the tables' hands count in /stats as tournament hands, not practice ones
        figures = {
            kind: await store.stats.totals(GUILD, winner.user_id, None, kind) for kind in StatsKind
        }
        assert figures[StatsKind.TOURNAMENT].hands > 0
        assert figures[StatsKind.PRACTICE].hands == 0 and figures[StatsKind.CASH].hands == 0


OTHER = TABLE + 7  # a second text channel of the server


async def test_bad_requests_get_a_private_answer_and_change_nothing(tmp_path) -> None:
    path, clock = tmp_path / "bad.db", Clock()
    alice, bob, carol, mod = PEOPLE[0], PEOPLE[1], PEOPLE[2], MOD
    async with DiscordHarness(mtt_bot(path, clock)) as h:
        await h.connect(GUILD, {TABLE: "poker", OTHER: "other"}, MEMBERS[:5])
        chips = grant(h)
        store = h.bot.store  # type: ignore[attr-defined]
        options = {"game": "a5-draw", "table_size": 4, "speed": "turbo", "fee": FEE}
        past = await h.slash(alice, TABLE, "mtt create", cap=4, start_in=-5, **options)
        assert past.ephemeral and past.content == "The start must be in the future."
        most = PAYABLE
        big = await h.slash(alice, TABLE, "mtt create", cap=2000, **options)
        assert big.content == f"A tournament takes 2 to {most:,} entrants, not 2,000."
        wide = await h.slash(alice, TABLE, "mtt create", cap=4, **(options | {"table_size": 8}))
        assert wide.content == "A table of this game has 2 to 5 seats, not 8."
        assert await store.tournaments.open_tournaments(GUILD) == []
        clock.ahead += 60  # past the creation rate limit
        made = await h.slash(alice, TABLE, "mtt create", cap=4, late_levels=1, **options)
        number = int(made.content.split("#")[1].split(" ")[0])
        clock.ahead += 60
        twice = await h.slash(bob, TABLE, "mtt create", cap=4, **options)
        assert twice.content == (
            f"Tournament #{number} is already open in this channel: one at a time."
        )
        assert len(await store.tournaments.open_tournaments(GUILD)) == 1
        for p in (alice, bob, carol):
            await h.click(p, registration(h, number), f"mtt:{number}:reg")
        gone = await h.click(carol, registration(h, number), f"mtt:{number}:unreg")
        assert gone.content == f"You are no longer registered for tournament #{number}."
        again = await h.click(carol, registration(h, number), f"mtt:{number}:unreg")
        assert again.content == "You are not registered for this tournament."
        assert await balance(h, carol) == chips
        stranger = await h.slash(bob, TABLE, "mtt start")
        assert stranger.content == "Only its creator or a moderator may do that."
        assert (await store.tournaments.get(number)).status == "registering"  # type: ignore[union-attr]
        started = await h.slash(alice, TABLE, "mtt start")
        assert f"Tournament #{number} has started" in started.content
        await h.settle()
        shown = registration(h, number)  # Register, for late players during level 1
        clock.ahead += 2 * LEVEL  # level 3: the button shown is one too late to use
        late = await h.click(carol, shown, f"mtt:{number}:reg")
        assert late.content == "Late registration has closed: it was open through level 1."
        assert len(await store.tournaments.entries(number)) == 2
        # a registered player who never acts is away: timed out, dealt in again, not removed
        thread = int(h.threads(TABLE)[0]["id"])
        manager = h.bot.manager  # type: ignore[attr-defined]
        first_hand = manager.view(thread).hand_id
        for _ in range(8):  # their turns run out (the timer's own call)
            view = manager.view(thread)
            await manager.expire(thread, view.hand_id, view.turn)
            await h.settle()
        view = manager.view(thread)
        assert view.hand is not None and view.hand_id != first_hand
        assert {s.user_id for s in view.seats} == {uid(alice), uid(bob)}
        assert all(e.place is None for e in await store.tournaments.entries(number))
        # a moderator cancels mid-play: every fee back, no place awarded, the table closed
        assert manager.view(thread).hand is not None
        not_sng = await h.slash(mod, thread, "sitngo cancel", number=number)
        assert not_sng.content == "There is no such Sit & Go on this server."
        unknown = await h.slash(mod, thread, "mtt cancel", number=999)
        assert unknown.content == "There is no such multi-table tournament on this server."
        cancelled = await h.slash(mod, thread, "mtt cancel")
        assert cancelled.content == (
            f"Tournament #{number} is cancelled: every entry fee was given back."
        )
        await h.settle()
        assert not manager.has_table(thread)
        assert [await balance(h, p) for p in (alice, bob)] == [chips, chips]
        assert all(e.place is None for e in await store.tournaments.entries(number))
        assert "Cancelled: every entry fee was given back." in registration(h, number).text
        over = await h.slash(mod, TABLE, "mtt cancel", number=number)
        assert over.content == "This tournament is over already: it finished or was cancelled."
        # a deleted table thread: the tournament is cancelled, every fee back
        clock.ahead += 60
        second = await h.slash(alice, TABLE, "mtt create", cap=2, **options)
        number2 = int(second.content.split("#")[1].split(" ")[0])
        for p in (alice, bob):
            await h.click(p, registration(h, number2), f"mtt:{number2}:reg")
        await h.settle()
        row = await store.tournaments.get(number2)
        assert row is not None and row.status == "running"  # the cap reached: it started
        thread2 = max(int(t["id"]) for t in h.threads(TABLE))
        await h.delete_thread(thread2)
        await h.bot.mtt.wait_idle()  # type: ignore[attr-defined]
        await h.settle()
        row = await store.tournaments.get(number2)
        assert row is not None and row.status == "cancelled"
        assert [await balance(h, p) for p in (alice, bob)] == [chips, chips]
        # without the Create Events permission: no event, and the creator is told
        h.events_allowed = False
        clock.ahead += 60
        quiet = await h.slash(alice, TABLE, "mtt create", cap=4, start_in=30, **options)
        assert "is open for registration" in quiet.content
        assert "the bot lacks the Create Events permission here" in quiet.content
        assert h.scheduled_events == {}
        number4 = int(quiet.content.split("#")[1].split(" ")[0])
        await h.slash(alice, TABLE, "mtt cancel", number=number4)
        h.events_allowed = True
        # a deleted tournament channel: cancelled, the fee back, its event cancelled
        clock.ahead += 60
        third = await h.slash(bob, OTHER, "mtt create", cap=4, start_in=30, **options)
        number3 = int(third.content.split("#")[1].split(" ")[0])
        _, event_id = await store.multi_tables.scheduled(number3)
        assert event_id is not None and h.scheduled_events[event_id]["status"] == 1
        other_msg = next(
            m for m in h.messages(OTHER, include_ephemeral=False) if f"#{number3}:" in m.text
        )
        await h.click(carol, other_msg, f"mtt:{number3}:reg")
        assert await balance(h, carol) == chips - FEE
        await h.delete_channel(OTHER)
        await h.settle()
        await h.bot.mtt.wait_idle()  # type: ignore[attr-defined]
        row = await store.tournaments.get(number3)
        assert row is not None and row.status == "cancelled"
        assert await balance(h, carol) == chips
        assert h.scheduled_events[event_id]["status"] == 4  # cancelled


async def test_registrations_at_once_edit_the_registration_message_a_few_times(tmp_path) -> None:
    """Nineteen registrations in one burst while the registration message's first edit
    takes 3 s: the edits coalesce (a thousand would otherwise queue a thousand edits of one
    message behind Discord's per-route limit), and the message ends showing all. The bound
    follows from the injected delay: every registration is made while that edit is in
    flight, so one more edit shows them all (a bound of 4 with 50 ms edits was a bound on
    how fast the machine registers; a loaded one made 5 to 7)."""
    path, clock = tmp_path / "burst.db", Clock()
    async with DiscordHarness(mtt_bot(path, clock)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, MEMBERS)
        made = await h.slash(PEOPLE[0], TABLE, "mtt create", game="a5-triple", table_size=4,
                             cap=20, speed="turbo", fee=FEE)  # fmt: skip
        number = int(made.content.split("#")[1].split(" ")[0])
        shown = registration(h, number)
        before = (await h.limits())["log"]
        held = h.slow(rf"PATCH /channels/\d+/messages/{shown.id}$", seconds=3.0)
        first = h.send_click(PEOPLE[0], shown, f"mtt:{number}:reg")
        while not held.hits:  # the first edit is in flight: it takes 3 s
            await asyncio.sleep(0.01)
        clicks = [first] + [h.send_click(p, shown, f"mtt:{number}:reg") for p in PEOPLE[1:19]]
        await h.settle()
        assert all("You are registered" in str(h.reply_for(c.token).content) for c in clicks)
        edits = [
            path
            for _, method, path, _, _ in await h.fetch_log(before)
            if method == "PATCH" and path.endswith(f"/messages/{shown.id}")
        ]
        assert len(edits) == 2  # the one in flight, then one for all 18 (it was 19: one each)
        assert "Players (19/20)" in registration(h, number).text
