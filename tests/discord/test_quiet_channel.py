"""A quiet channel (issue 39 item 1): a session of all four games played by buttons, counting
the new private messages ("Only you can see this", which Discord keeps on screen until
dismissed) per kind of click and per player per hand; and the table message's buttons as
a phone shows them."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from bot.engine.cards import format_card
from bot.tables.models import TableView
from bot.ui import i18n
from bot.ui.components import table_components
from fakediscord.harness import DiscordHarness, Msg
from fakediscord.poker import PLAYERS, uid
from tests.support.clicks import Clock, clocked_bot

GUILD = 1300000000000000001
CHANNELS = {1310000000000000001 + i: f"poker-{i}" for i in range(4)}
GAMES = ["a6-draw", "a5-draw", "a5-triple", "abyssinia"]
SEATED = PLAYERS[:3]
HANDS = 2  # per game
#: a phone shows this many buttons in a row, each of labels this short, without cropping
ROW_BUTTONS, LABEL_CHARS, ROW_CHARS = 4, 24, 48


def private_count(h: DiscordHarness, channel: int, user: dict) -> int:
    """Private messages the user has on screen in the channel (none is ever dismissed here)."""
    return sum(1 for m in h.messages(channel) if m.ephemeral and m.visible_to == uid(user))


def buttons_by_label(message: Msg) -> dict[str, str]:
    return {b["label"]: b["custom_id"] for b in message.buttons() if not b.get("disabled")}


def check_phone_layout(components: list[dict[str, Any]], where: str) -> None:
    for row in components:
        labels = [c.get("label") or "" for c in row["components"] if c["type"] == 2]
        assert len(row["components"]) <= ROW_BUTTONS, (where, labels)
        assert all(len(label) <= LABEL_CHARS for label in labels), (where, labels)
        assert sum(len(label) for label in labels) <= ROW_CHARS, (where, labels)


class Session:
    """Plays hands by buttons only, counting each click's new private messages."""

    def __init__(self, h: DiscordHarness, rng: random.Random, clock: Clock) -> None:
        self.h, self.rng, self.clock = h, rng, clock
        self.by_kind: dict[str, list[int]] = {}  # kind of click -> new private messages each
        self.per_hand: list[float] = []  # new private messages per player, each hand
        self.views: list[TableView] = []  # every table state seen, for the layout check

    @property
    def manager(self) -> Any:
        return self.h.bot.manager  # type: ignore[attr-defined]

    def table(self, channel: int) -> Msg:
        return self.h.message(self.h.bot.presenter.message_id(channel))  # type: ignore[attr-defined]

    async def click(self, kind: str, user: dict, channel: int, message: Msg, custom_id: str) -> Any:
        self.clock.now += 2  # people's pace: within the click rate and the table budget
        before = private_count(self.h, channel, user)
        reply = await self.h.click(user, message, custom_id)
        assert reply.callback_type != 4, reply.content  # not refused
        self.by_kind.setdefault(kind, []).append(private_count(self.h, channel, user) - before)
        return reply

    async def hand(self, channel: int) -> None:
        start = {uid(p): private_count(self.h, channel, p) for p in SEATED}
        deal = buttons_by_label(self.table(channel))["Deal"]
        await self.click("deal", SEATED[0], channel, self.table(channel), deal)
        while (view := self.manager.view(channel)).hand is not None:
            self.views.append(view)
            check_phone_layout(self.table(channel).components, f"{view.variant} {view.hand.phase}")
            user = next(p for p in SEATED if uid(p) == view.to_act_user)
            await self.act(view, user, channel)
        per_player = [private_count(self.h, channel, p) - start[uid(p)] for p in SEATED]
        self.per_hand.append(sum(per_player) / len(per_player))

    async def act(self, view: TableView, user: dict, channel: int) -> None:
        table = self.table(channel)
        labels = buttons_by_label(table)
        phase = view.hand.phase
        if phase == "bet":
            passive = [x for x in labels if x.startswith(("Check", "Call"))]
            others = [x for x in labels if x.startswith(("Bet", "Raise", "Fold"))]
            label = self.rng.choice(others if others and self.rng.random() < 0.3 else passive)
            await self.click("bet", user, channel, table, labels[label])
        elif phase == "draw":
            if self.rng.random() < 0.25:
                await self.click("pat", user, channel, table, labels["Stand pat"])
                return
            picker = await self.click("draw", user, channel, table, labels["Draw…"])
            menu = picker.message
            cards = self.manager.my_hand(channel, uid(user)).cards
            thrown = [format_card(c) for c in self.rng.sample(list(cards), 2)]
            select = next(c for c in menu.custom_ids() if c.startswith("pkd:"))
            before = private_count(self.h, channel, user)
            chosen = await self.h.select(user, menu, select, thrown)
            self.by_kind["draw"][-1] += private_count(self.h, channel, user) - before
            assert chosen.message.id == menu.id and "✅" in str(chosen.message.embeds)
        else:
            offers = [x for x in labels if x != "My hand"]
            label = self.rng.choice(offers)
            await self.click("buy", user, channel, table, labels[label])


async def test_a_session_of_all_four_games_by_buttons_is_quiet(tmp_path):
    clock = Clock()
    async with DiscordHarness(clocked_bot(tmp_path / "q.db", clock)) as h:
        await h.connect(GUILD, CHANNELS, PLAYERS)
        session = Session(h, random.Random(39), clock)
        for game, channel in zip(GAMES, CHANNELS, strict=True):
            opened = await h.slash(SEATED[0], channel, f"{game} open")
            assert opened.message is not None and opened.message.deleted  # nothing left
            for p in SEATED:
                await h.slash(p, channel, f"{game} join")
            first = len(session.per_hand)
            for _ in range(HANDS):
                await session.hand(channel)
            print(game, "private messages per player per hand:", session.per_hand[first:])
        kinds = {k: (len(v), sum(v)) for k, v in session.by_kind.items()}
        print("clicks and new private messages by kind:", kinds)
        print("per player per hand:", sum(session.per_hand) / len(session.per_hand))
        assert Counter(session.by_kind["bet"]) == Counter({0: len(session.by_kind["bet"])})
        for kind in ("deal", "pat", "buy"):
            assert set(session.by_kind[kind]) == {0}, kind
        assert set(session.by_kind["draw"]) == {1}  # the menu, then updated in place
        assert max(session.per_hand) <= 3  # three draws of triple draw at most
        for locale in ("en-US", "pt-BR", "vi"):  # the labels of every language fit too
            with i18n.using(locale):
                for view in session.views:
                    components = table_components(view).to_components()
                    check_phone_layout(components, f"{locale} {view.variant}")
