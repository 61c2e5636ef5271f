"""A Sit & Go's hands looked at again, through the fake Discord (issues 36 item 5 and 8,
41 item 3).

Three scripted players play a Sit & Go to its end on the real bot: a few quiet hands at
level 1 until their stacks differ, then every hand raised to the cap at high levels, so
short stacks go all-in and side pots are played. Then the hand with a contested side
pot is replayed (by a player and by a spectator) and exported (the player's
PokerStars-style text and the server's public log): what they show names each pot and
the tournament and level, and the privacy scan runs over every payload. `/stats
kind:tournament` shows the tournament hands and nothing else counts them;
`/sitngo standings` answers publicly with its points rule; and clicks on the
registration message's old Register and Unregister buttons, once it started and once it
finished, get a private answer and change nothing.
"""

from __future__ import annotations

import re

import discord

from bot.engine import VARIANTS, Hand, public_view
from bot.engine.record import parse_record
from bot.history.exports import Exports
from bot.history.handtext import roman
from bot.history.replay_steps import replay_steps
from bot.render import replay_images
from bot.storage.totals import StatsKind
from bot.tournaments import structures
from fakediscord.harness import DiscordHarness, Msg, Reply, make_member
from fakediscord.poker import ALICE, BOB, CAROL, DAVE, GUILD, TABLE, uid
from tests.support.game import Game
from tests.support.history_helpers import assert_private, image_faces, seen, sent_texts
from tests.support.sng_game import LEVEL, Clock, registration, sng_bot

VARIANT = "a6-draw"
FEE = 50
MANAGER = discord.Permissions(
    view_channel=True, send_messages=True, use_application_commands=True, manage_channels=True
)
MEMBERS = [ALICE, BOB, CAROL, make_member(DAVE, permissions=MANAGER)]  # Dave moderates
PLAYERS = [ALICE, BOB, CAROL]
CLOSED = "Registration is closed: this Sit & Go has started, finished or been cancelled."


def button(msg: Msg, do: str) -> str:
    return next(c for c in msg.custom_ids() if c.endswith(f":{do}"))


async def walk(h: DiscordHarness, clock: Clock, user: dict, first: Msg) -> list[str]:
    """Every step of the replay, clicking ▶ to the last, a click a second: each step's text."""
    texts, msg = [first.text], first
    while not msg.component(button(msg, "next")).get("disabled"):  # type: ignore[union-attr]
        clock.ahead += 1
        msg = (await h.click(user, msg, button(msg, "next"))).message  # type: ignore[assignment]
        assert msg.ephemeral and "replay.png" in msg.attachments
        texts.append(msg.text)
    return texts


# ----- playing the Sit & Go


class AllInGame(Game):
    """Plays the Sit & Go's table by a policy, checking privacy after every action (the
    table message's Recent log names the last hands' public cards: history, not a leak)."""

    def __init__(self, h: DiscordHarness, channel: int, table: Msg) -> None:
        super().__init__(h, channel, table)
        self.shown_before: list[set[int]] = []

    def hidden_cards(self, hand: Hand | None = None) -> set[int]:
        hidden = super().hidden_cards(hand)
        return hidden if hand is not None else hidden - set().union(*self.shown_before)

    def check_privacy(self, ended: Hand | None = None) -> None:
        super().check_privacy(ended)
        if ended is not None:
            seen_now = public_view(ended)
            cards = {c for s in seen_now.seats for c in s.open_cards}
            cards |= {c for shown in seen_now.shown.values() for c in shown}
            self.shown_before = [*self.shown_before[-1:], cards]

    async def act(self, quiet: bool) -> bool:
        """One action of the player to act; False once the Sit & Go's table is gone."""
        before = self.manager.table(self.channel).hand
        moves = len(before.actions)
        view = self.manager.view(self.channel)
        user = self.by_id[view.to_act_user]
        if view.hand.phase == "draw":  # everyone stands pat
            reply: Reply = await self.h.slash(user, self.channel, f"{VARIANT} discard")
            assert reply.ephemeral, reply.content
        else:
            ids = [c for c in self.table.custom_ids() if c.count(":") == 4]
            offered = [c.split(":")[2] for c in ids]
            action = quiet_move(user, offered) if quiet else raise_move(offered)
            await self.h.click(user, self.table, next(c for c in ids if f":{action}:" in c))
        if not self.manager.has_table(self.channel):  # the last hand: the table closed
            self.check_privacy(before)
            return False
        now = self.manager.table(self.channel).hand
        assert now is not before or len(now.actions) > moves, "not applied"
        self.check_privacy(before if now is not before else None)
        return True


def quiet_move(user: dict, offered: list[str]) -> str:
    """Level 1's hands: Alice gives up, Bob bets, Carol calls, so the stacks part."""
    order = {
        uid(ALICE): ("fold", "check"),
        uid(BOB): ("bet", "call", "check"),
        uid(CAROL): ("call", "check"),
    }[uid(user)]
    return next(a for a in order if a in offered)


def raise_move(offered: list[str]) -> str:
    """The other hands: raised to the cap, never folded, so every stack goes all-in."""
    return next(a for a in ("raise", "bet", "call", "check") if a in offered)


async def play_to_the_end(h: DiscordHarness, clock: Clock, thread: int) -> None:
    manager = h.bot.manager  # type: ignore[attr-defined]
    table = h.message(h.bot.presenter.message_id(thread))  # type: ignore[attr-defined]
    game = AllInGame(h, thread, table)
    quiet, actions = True, 0
    while manager.has_table(thread):
        view = manager.view(thread)
        if view.hand is None:
            stacks = [s.stack for s in view.seats if s.stack]
            if quiet and len(set(stacks)) == 3:  # three different stacks: now the all-ins
                quiet = False
                clock.ahead += 8 * LEVEL  # level 9: a capped hand costs more than a stack
            elif not quiet:
                clock.ahead += LEVEL
            dealer = next(s for s in view.seats if (s.stack or 0) > 0)
            dealt = await h.slash(dealer.user_id, thread, f"{VARIANT} deal")
            assert dealt.ephemeral, dealt.content
            continue
        if not await game.act(quiet):
            break
        actions += 1
        assert actions < 1000, "the Sit & Go does not end"
    await h.bot.sitngo.wait_idle()  # type: ignore[attr-defined]
    await h.settle()


async def balances(h: DiscordHarness) -> list[int]:
    store = h.bot.store  # type: ignore[attr-defined]
    accounts = [await store.ledger.balance(GUILD, uid(p)) for p in (ALICE, BOB, CAROL, DAVE)]
    return [-1 if a is None else a.balance for a in accounts]


async def stale_clicks_change_nothing(h: DiscordHarness, number: int) -> None:
    """Register (by Dave, not in it) and Unregister (by Bob, in it) on the message whose
    buttons are gone: each a private answer, no entry and no chip moved."""
    store = h.bot.store  # type: ignore[attr-defined]
    message = registration(h, number)
    assert message.custom_ids() == []  # the buttons went at the start
    entries, chips = await store.tournaments.entries(number), await balances(h)
    late = await h.stale_click(DAVE, message, f"sng:{number}:reg")
    assert late.ephemeral and late.answer is not None
    assert late.answer.content == CLOSED
    leave = await h.stale_click(BOB, message, f"sng:{number}:unreg")
    assert leave.ephemeral and leave.answer is not None
    assert leave.answer.content == CLOSED
    assert await store.tournaments.entries(number) == entries
    assert await balances(h) == chips
    assert registration(h, number).custom_ids() == []  # and no button came back


async def test_a_sit_and_go_all_in_hand_replayed_exported_counted_and_ranked(tmp_path) -> None:
    path, clock = tmp_path / "marks.db", Clock()
    async with DiscordHarness(sng_bot(path, clock)) as h:
        await h.connect(GUILD, {TABLE: "poker"}, MEMBERS)
        store = h.bot.store  # type: ignore[attr-defined]
        stack = structures.smallest_stack(VARIANT)
        created = await h.slash(
            ALICE, TABLE, "sitngo create", game=VARIANT, seats=3, speed="turbo", stack=stack,
            fee=FEE,
        )  # fmt: skip
        number = int(created.content.split("#")[1].split(" ")[0])
        for p in PLAYERS:
            clicked = await h.click(p, registration(h, number), f"sng:{number}:reg")
            assert clicked.content == f"You are registered for Sit & Go #{number}."
        await stale_clicks_change_nothing(h, number)  # started
        thread = int(h.threads(TABLE)[0]["id"])
        await play_to_the_end(h, clock, thread)
        row = await store.tournaments.get(number)
        assert row is not None and row.status == "finished"
        clock.ahead += 60  # past the players' click and command budgets
        await stale_clicks_change_nothing(h, number)  # finished

        # --- the hand with a contested side pot
        ids = await store.exports.server_hand_ids(GUILD, 1000)
        stored = await Exports(store.db).hands(ids)
        hands = [s for s in stored if s.tournament_id == number]
        assert len(hands) == row.hands
        contested = [
            s
            for s in hands
            if sum(len(p.players) > 1 for p in replay_steps(s.record)[-1].public.pots) >= 2
        ]
        assert contested, "no hand had a side pot"
        side = contested[0]
        hand_id = side.hand_id
        record = parse_record(await store.history.hand_record(hand_id))
        level = structures.level_number(VARIANT, record.stakes.to_json())  # type: ignore[union-attr]
        assert level is not None and level > 1
        mark = f"Sit & Go #{number}, level {level}"
        final = replay_steps(record)[-1].public
        dealt = [int(s.player) for s in record.seats]
        player = next(p for p in PLAYERS if uid(p) in dealt)

        # --- /replay: each pot named on the result step, the mark on every step
        for viewer, key in ((player, str(uid(player))), (DAVE, None)):
            start = len(h.sent)
            replay_images._REPLAYS.items.clear()
            first = await h.slash(viewer, TABLE, "replay", hand=hand_id)
            assert first.ephemeral and first.message is not None
            steps = await walk(h, clock, viewer, first.message)
            assert len(steps) > 3 and all(mark in text for text in steps)
            result = steps[-1]
            assert "Main pot (" in result and "Side pot 1 (" in result, result
            assert "practice" not in result
            assert_private(sent_texts(h, start), seen(record, key), f"replay for {key}")
            assert image_faces() <= seen(record, key)

        # --- /export: the PokerStars-style text of the player, the server's public log
        start = len(h.sent)
        exported = await h.slash(player, TABLE, "export")
        assert exported.ephemeral and exported.message is not None
        files = dict(exported.message.files)
        text = files[f"hands-{GUILD}-{uid(player)}.txt"].decode()
        (block,) = [b for b in text.split("\n\n\n") if b.startswith(f"PokerBot Hand #{hand_id}:")]
        lines = block.splitlines()
        sizes = "/".join(str(s) for s in sorted(set(record.stakes.bet_sizes(VARIANT))))  # type: ignore[union-attr]
        assert lines[0].startswith(
            f"PokerBot Hand #{hand_id}: Tournament #{number}, {VARIANTS[VARIANT].name} Fixed "
            f"Limit - Level {roman(level)} ({sizes}) - "
        ), lines[0]
        assert lines[1].startswith(f"Table '{number} 1' 5-max ")
        amounts = [p.amount for p in final.pots if len(p.players) > 1]
        sides = " ".join(f"Side pot-{k} {a}." for k, a in enumerate(amounts[1:], 1))
        total = re.compile(rf"Total pot \d+ Main pot {amounts[0]}\. {re.escape(sides)}")
        assert any(total.fullmatch(line) for line in lines), block
        assert " and is all-in" in block and "from side pot-1" in block
        key = str(uid(player))
        records = {s.hand_id: s.record for s in hands}
        assert_private([s.text for s in h.sent[start:]], seen(record, key), "the answer")
        for each in filter(None, text.split("\n\n\n")):  # each hand as its player saw it
            number_of = int(each.split("#")[1].split(":")[0])
            assert_private([each], seen(records[number_of], key), f"hand #{number_of}")
        start = len(h.sent)
        server = await h.slash(DAVE, TABLE, "export", scope="server")
        assert server.message is not None
        log = dict(server.message.files)[f"server-hands-{GUILD}.csv"].decode()
        assert f"-- starting hand #{hand_id} (" in log
        assert f"(tournament #{number}, level {level})" in log and "side pot 1" in log
        assert_private([s.text for s in h.sent[start:]], seen(record, None), "the answer")
        for hand_log in log.split("-- starting hand #")[1:]:  # each hand as everyone saw it
            number_of = int(hand_log.split(" ")[0])
            assert_private([hand_log], seen(records[number_of], None), f"log of #{number_of}")

        # --- /stats kind:tournament: the Sit & Go's hands, and only there
        repo = store.stats
        mine = await repo.totals(GUILD, uid(player), None, StatsKind.TOURNAMENT)
        played = sum(str(uid(player)) in [s.player for s in x.record.seats] for x in hands)
        assert mine.hands == played > 0
        shown = await h.slash(player, TABLE, "stats", kind="tournament")
        assert shown.ephemeral and shown.message is not None
        assert "· tournaments" in shown.message.text
        assert f"**{played}** hands played" in shown.message.text
        for kind in ("cash", "practice"):
            other = await h.slash(player, TABLE, "stats", kind=kind)
            assert other.message is not None and "No hands counted yet." in other.message.text
        assert (await repo.totals(GUILD, uid(player), None, StatsKind.PRACTICE)).hands == 0

        # --- /sitngo standings: public, with its points rule
        entries = await store.tournaments.entries(number)
        winner = next(e for e in entries if e.place == 1)
        before = len(h.messages(TABLE, include_ephemeral=False))
        standings = await h.slash(BOB, TABLE, "sitngo standings")
        assert not standings.ephemeral and standings.answer is not None
        shown_text = standings.answer.text
        assert "Points: the payout table's percentages of each finish" in shown_text
        first_row = f"1. {winner.display_name}: points 100 · wins 1 · cashes 1 · entries 1"
        assert first_row in shown_text and "Page 1 of 1" in shown_text
        assert len(h.messages(TABLE, include_ephemeral=False)) == before + 1
        beyond = await h.slash(CAROL, TABLE, "sitngo standings", page=3)
        assert not beyond.ephemeral and beyond.answer is not None
        assert "page 3" in beyond.answer.text.lower()
        h.assert_no_errors()
