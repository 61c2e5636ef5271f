"""Rule summaries for /rules: the table conventions of RULES.md, one per game.

This is the English source; the Portuguese and Vietnamese summaries are in the gettext
catalogs (``rules.<game>`` and ``rules.common``), in the words players of each language use
(docs/translating.md). Each says what its game's seed rule card says about ranking and
order of play (tests/ui/test_composed_words.py holds all three languages to it).
"""

# Where a player types cards (the discard command): examples in suit symbols, and the
# English letters the parser also reads (to a Brazilian or a Vietnamese, "c" is hearts).
CARDS_HOWTO = (
    "To discard, name the cards as rank and suit: 8♣ K♦, or with the English suit letters "
    "8c Kd (c = ♣ clubs, d = ♦ diamonds, h = ♥ hearts, s = ♠ spades)."
)

RULES = {
    "a6-draw": (
        "**Ace-to-Six lowball, one draw** (2–5 players). Ante 1 each, no blinds; bets and "
        "raises are 1 before the draw and 2 after. Table minimum 13. Five cards each, face "
        "down. Round 1 starts left of the dealer. The draw: from the left of the dealer, each "
        "player still in throws 0–5 cards and gets as many new ones; keeping all five is "
        "standing pat. Round 2 starts with whoever made the first bet of round 1 (if they "
        "folded, the next player still in; if round 1 was checked around, the first player "
        "still in left of the dealer). The lowest hand takes the whole pot: aces are low, but "
        "straights and flushes count against you (T-J-Q-K-A is a straight too, the highest; "
        "no wraparound) and aces make the lowest pair. From best to worst: no pair, one pair, "
        "two pair, three of a kind, straight, flush, full house, four of a kind, straight "
        "flush. No-pair hands are compared from the top card down (8-6-4-3-2 beats "
        "8-7-3-2-A). The best hand is 6-4-3-2-A of mixed suits; the wheel 5-4-3-2-A is a "
        "straight. No high half, no qualifier. " + CARDS_HOWTO
    ),
    "a5-draw": (
        "**Ace-to-Five (California) lowball, one draw** (2–5 players). Ante 1 each, no "
        "blinds; bets and raises are 1 before the draw and 2 after. Table minimum 13. Deal, "
        "draw and betting order as in Ace-to-Six. The lowest hand takes the whole pot: aces "
        "are low and straights and flushes don't count, so 5-4-3-2-A (the wheel) is the best "
        "hand, even suited. Any five different ranks beat any pair; compare from the top card "
        "down (7-5-4-3-2 beats 8-4-3-2-A). Paired hands rank, best first: one pair, two pair, "
        "three of a kind, full house, four of a kind; a pair of aces beats a pair of deuces. "
        "No qualifier. " + CARDS_HOWTO
    ),
    "a5-triple": (
        "**Ace-to-Five Triple Draw** (2–6 players). No ante: small blind 1 (left of the "
        "dealer), big blind 2. Small bet 2 in rounds 1–2, big bet 4 in rounds 3–4: bet, draw, "
        "bet, draw, bet, draw, bet, showdown. The big blind is round 1's opening bet and keeps "
        "its option to raise; round 1 starts left of the big blind, later rounds with the "
        "first player still in left of the dealer. Heads-up, the dealer posts the small blind "
        "and acts first before the first draw. Each draw goes clockwise from the left of the "
        "dealer. When the stub runs out, the dead cards are shuffled into a new stub. The "
        "lowest ace-to-five hand wins: aces are low, straights and flushes don't count, and "
        "hands are compared from the top card down (7-5-4-3-2 beats 8-4-3-2-A; 2-3-4-5-6 is "
        "a six, not a straight), so the wheel 5-4-3-2-A is best. Table minimum 48. " + CARDS_HOWTO
    ),
    "abyssinia": (
        "**Abyssinia** (2–8 players, every card face up). Ante 1 each. Two cards are turned "
        "up: the left and the right market card. Five times: from the left of the dealer, "
        "each player still in buys one card (left, right, or blind: the unknown top card of "
        "the stub, turned up and then charged, with no refusing it), and a bought market card "
        "is replaced at once; then a betting round of size 1 (one bet, three raises), opened "
        "by the first player still in left of the dealer. No card is ever exchanged or "
        "discarded. Prices: "
        "2–5 cost 2, 6–K cost 1, an ace 4; purchases go into the pot but nobody has to match "
        "them. A player who folds buys no more. Showdown: the pot splits; the best high hand "
        "(the usual poker ranking) takes the high half (and an odd chip), the best "
        "ace-to-five low takes the low half. "
        "One player can win both; no declaration, no qualifier. Table minimum 41."
    ),
}

COMMON = (
    "Fixed limit at every table: with nothing owed, check or bet; facing a bet, call, raise or "
    "fold. One bet and at most three raises a round; check-raise is allowed. If everyone else "
    "folds, the last player takes the pot without showing. Ties split; an odd chip goes to the "
    "first tied winner left of the dealer; suits never break ties. You are dealt in only with "
    "at least the table minimum, so there are no all-ins or side pots. The dealer button "
    "moves one seat clockwise after every hand."
)

# Catalog keys of the summaries (merged into the gettext catalogs by bot.ui.i18n_build).
RULES_MESSAGES = {f"rules.{game}": text for game, text in RULES.items()} | {"rules.common": COMMON}
