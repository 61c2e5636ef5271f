"""Playing a table through the fake Discord, checking after every step that no hidden card
went public: the engine's own state is read only as the oracle of which cards are hidden."""

from __future__ import annotations

import random
import re

from bot.engine import Hand, public_view
from bot.engine.cards import format_card, pretty_card
from bot.render.plain_text import card_text
from fakediscord.harness import DiscordHarness, Msg, Reply
from fakediscord.poker import PLAYERS, uid


def card_pattern(cards) -> re.Pattern[str] | None:
    """Any written form of these cards: A♠, T♠, 10♠, As (as a word)."""
    forms = set()
    for c in cards:
        forms |= {re.escape(card_text(c)), re.escape(pretty_card(c))}
        forms.add(r"(?<![A-Za-z0-9])" + re.escape(format_card(c)) + r"(?![A-Za-z0-9])")
    return re.compile("|".join(sorted(forms))) if forms else None


class Game:
    """Plays a table through Discord, checking privacy after every step."""

    def __init__(self, h: DiscordHarness, channel: int, table: Msg, seed: int = 1) -> None:
        self.h, self.channel, self.table_id = h, channel, table.id
        self.rng = random.Random(seed)
        self.checked = len(h.sent)
        self.by_id = {uid(u): u for u in PLAYERS}

    @property
    def manager(self):
        return self.h.bot.manager  # type: ignore[attr-defined]

    @property
    def table(self) -> Msg:
        """The current table message (the presenter may have posted a new one)."""
        shown = self.h.bot.presenter.message_id(self.channel)  # type: ignore[attr-defined]
        return self.h.message(shown or self.table_id)

    def hidden_cards(self, hand: Hand | None = None) -> set[int]:
        """Cards nobody but their owner may see (the oracle is the engine itself): of the hand
        in play, or of ``hand`` once it ended (folded hands, the stub, the dead pile)."""
        hand = hand or self.manager.table(self.channel).hand
        if hand is None:
            return set()
        hidden = set(hand.stub[hand.stub_pos :])
        if not hand.variant.split:
            hidden |= {c for held in hand.holdings for c in held} | set(hand.dead)
        if hand.complete:  # cards shown at the showdown are public now
            hidden -= {c for cards in public_view(hand).shown.values() for c in cards}
        return hidden

    def check_privacy(self, ended: Hand | None = None) -> None:
        """No hidden card in any public payload sent since the last check; after the action
        that ended a hand, checked against that hand's hidden cards."""
        pattern = card_pattern(self.hidden_cards(ended))
        for sent in self.h.sent[self.checked :]:
            if sent.visibility != "public" or pattern is None:
                continue
            assert not pattern.search(sent.text), f"hidden card in public {sent}: {sent.text[:300]}"
            assert all(n in ("board.png",) for n in sent.file_names), sent.file_names
        for sent in self.h.sent[self.checked :]:
            if any(n == "hand.png" for n in sent.file_names) and sent.error is None:
                assert sent.visibility in ("ephemeral", "dm"), f"hand image in {sent.visibility}"
        self.checked = len(self.h.sent)

    async def step(self, use_slash: bool) -> Reply:
        before = self.manager.table(self.channel).hand
        moves = len(before.actions) if before is not None else 0
        view = self.manager.view(self.channel)
        user = self.by_id[view.to_act_user]
        hand = view.hand
        assert hand is not None
        ids = [c for c in self.table.custom_ids() if c.count(":") == 4]
        assert ids, "the table message offers the player to act their buttons"
        if hand.phase == "draw":
            reply = await self._draw(user, use_slash)
        elif hand.phase == "buy":
            reply = await self._buy(user, ids, use_slash)
        else:
            action = self.rng.choice([c.split(":")[2] for c in ids])
            if use_slash:
                reply = await self.h.slash(user, self.channel, f"{view.variant} {action}")
            else:
                reply = await self.h.click(
                    user, self.table, next(c for c in ids if f":{action}:" in c)
                )
        if reply.callback_type == 4:
            raise AssertionError(f"the action was refused: {reply.content}")
        picker = reply.message if reply.kind == 3 and reply.callback_type == 6 else None
        if use_slash:
            assert reply.ephemeral, "a command's answer is private: it shows the actor's cards"
            shown = str(reply.embeds)
        elif picker is not None and picker.ephemeral:  # the discard picker, updated in place
            assert reply.followups == [], "a draw leaves no private message besides the picker"
            shown = str(picker.embeds)
        else:  # a click on the table message: the table is the answer (issue 39)
            assert reply.callback_type in (6, 7), reply
            assert [m for m in reply.followups if m.ephemeral] == [], "no private message"
            now = self.live_hand()
            moved = now is not before or len(now.actions) > moves
            shown = "✅" if moved else ""  # the step was applied: the table shows it
        if "✅" not in shown:
            raise AssertionError(f"the action was not applied: {reply.content}")
        ended = before if before is not self.live_hand() else None
        self.check_privacy(ended)
        return reply

    def live_hand(self) -> Hand | None:
        """The table's hand in play (None between hands, or once the table is closed)."""
        if not self.manager.has_table(self.channel):
            return None
        return self.manager.table(self.channel).hand

    async def _draw(self, user: dict, use_slash: bool) -> Reply:
        mine = self.manager.my_hand(self.channel, uid(user)).cards
        throw = self.rng.sample(list(mine), self.rng.randint(0, 2))
        variant = self.manager.view(self.channel).variant
        if use_slash:
            text = " ".join(card_text(c) for c in throw)  # the symbol notation, as people type
            options = {"cards": text} if text else {}
            return await self.h.slash(user, self.channel, f"{variant} discard", **options)
        draw_id = next(c for c in self.table.custom_ids() if ":draw:" in c)
        picker = await self.h.click(user, self.table, draw_id)
        assert picker.ephemeral and "hand.png" in picker.attachments
        if not throw:
            pat = next(c for c in picker.message.custom_ids() if ":pat:" in c)
            return await self.h.click(user, picker.message, pat)
        select = next(c for c in picker.message.custom_ids() if c.startswith("pkd:"))
        values = [format_card(c) for c in throw]
        return await self.h.select(user, picker.message, select, values)

    async def _buy(self, user: dict, ids: list[str], use_slash: bool) -> Reply:
        source = self.rng.choice(["left", "right", "blind"])
        if use_slash:
            return await self.h.slash(user, self.channel, "abyssinia buy", **{"from": source})
        return await self.h.click(user, self.table, next(c for c in ids if f":{source}:" in c))

    async def play_hand(self, max_steps: int = 200) -> None:
        for i in range(max_steps):
            if self.manager.view(self.channel).hand is None:
                return
            await self.step(use_slash=i % 3 == 2)
        raise AssertionError("the hand did not finish")
