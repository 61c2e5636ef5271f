"""What a viewer saw of a hand at the table, and which cards a replay step or a text holds:
the oracle and the probes of the history privacy tests, and the scan of what a replay or
an export sent."""

from __future__ import annotations

import dataclasses
import re

from bot.engine import Hand, public_view
from bot.engine.cards import FULL_DECK, format_card, pretty_card
from bot.engine.record import HandRecord
from bot.history.stored import StoredHand
from bot.render import replay_images
from bot.render.plain_text import card_text
from fakediscord.harness import DiscordHarness


def seen(record: HandRecord, viewer: str | None) -> set[int]:
    """Every card ``viewer`` (None: someone not dealt in) saw at the table: their own (dealt,
    drawn, thrown), everything face up (Abyssinia), hands shown at the showdown."""
    hand = Hand(dataclasses.replace(record, actions=[]))
    out: set[int] = set()
    for action in [None, *record.actions]:
        if action is not None:
            if action.player == viewer and action.cards:
                out |= set(action.cards)
            hand.apply(action)
        if viewer in hand.players:
            out |= set(hand.holdings[hand.seat_of(viewer)])
        view = public_view(hand)
        out |= {c for s in view.seats for c in s.open_cards}
        out |= {o.card for o in view.market if o.card is not None}
        out |= {c for cards in view.shown.values() for c in cards}
    return out


def stored(hand: Hand, hand_id: int = 7, finished: bool = True) -> StoredHand:
    record = hand.record()
    names = {p: f"Name{p}" for p in hand.players}
    return StoredHand(
        hand_id, 1, 2, record.variant, 10.0, 20.0 if finished else None, record, names
    )


def step_cards(step) -> set[int]:
    """Every card a step holds, wherever it is."""
    out = set(step.cards) | set(step.own_thrown) | {c for c in step.shown.values() for c in c}
    out |= {step.bought} if step.bought is not None else set()
    out |= {c for s in step.public.seats for c in s.open_cards}
    out |= {o.card for o in step.public.market if o.card is not None}
    out |= {c for cards in step.public.shown.values() for c in cards}
    return out


def card_words(text: str) -> set[int]:
    return {c for c in FULL_DECK if re.search(rf"(?<!\w){format_card(c)}(?!\w)", text)}


def card_pattern(cards: set[int]) -> re.Pattern[str] | None:
    """Any written form of these cards (A♠, 10♠, As) as a word of any script: "Không" is
    a Vietnamese word, not K♥ followed by a letter."""
    forms = set()
    for c in cards:
        forms |= {re.escape(card_text(c)), re.escape(pretty_card(c))}
        forms.add(r"(?<!\w)" + re.escape(format_card(c)) + r"(?!\w)")
    return re.compile("|".join(sorted(forms))) if forms else None


def assert_private(texts: list[str], allowed: set[int], what: str) -> None:
    pattern = card_pattern(set(FULL_DECK) - allowed)
    for text in texts:
        found = pattern.search(text) if pattern else None
        assert found is None, f"{what}: {found and found.group()} in {text[:300]}"


def sent_texts(h: DiscordHarness, start: int) -> list[str]:
    out = []
    for sent in h.sent[start:]:
        out.append(sent.text)
        out += [data.decode("utf-8", "replace") for name, data in sent.files if name[-4:] != ".png"]
    return out


def image_faces() -> set[int]:
    """Every face-up card drawn in a replay image since the cache was last cleared."""
    faces: set[int] = set()
    for key in replay_images._REPLAYS.items:
        _, _, rows, market, _ = key
        faces |= {c for _, cards, _, _ in rows for c in cards}
        faces |= {card for _, card, _ in market or () if card is not None}
    return faces
