"""The Sit & Go table's privacy scan for harness tests: ``Game``'s, with the cards the
last hands showed in the table message's Recent log counted as history, not a leak."""

from __future__ import annotations

from bot.engine import Hand, public_view
from fakediscord.harness import DiscordHarness, Msg, Reply
from tests.support.game import Game


class SngGame(Game):
    """Plays the Sit & Go's table, checking privacy after every step. The table message's
    Recent log goes on naming the cards the last hands showed (a bought card, a showdown)
    while the next hand is dealt from a full deck: such a card, in the new hand's stub, is
    history, not a leak; every other hidden card is checked as ``Game`` does."""

    def __init__(self, h: DiscordHarness, channel: int, table: Msg) -> None:
        super().__init__(h, channel, table)
        self.shown_before: list[set[int]] = []  # the public cards of the last two hands

    def hidden_cards(self, hand: Hand | None = None) -> set[int]:
        hidden = super().hidden_cards(hand)
        if hand is not None:  # the hand that just ended: all of its own hidden cards
            return hidden
        return hidden - set().union(*self.shown_before)

    async def _buy(self, user: dict, ids: list[str], use_slash: bool) -> Reply:
        """Buy from a source the table message offers (an all-in player: only blind)."""
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
