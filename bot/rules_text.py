"""Short rule summaries for /rules (the table conventions of RULES.md)."""

RULES = {
    "a6-draw": (
        "**Ace-to-Six lowball, one draw** (2–5 players). Ante 1, no blinds. Bets 1 before the "
        "draw, 2 after; one bet and three raises a round. Five cards each, one draw of 0–5 "
        "cards. Lowest hand wins: aces are low, straights and flushes count against you, "
        "T-J-Q-K-A is a straight; the best hand is 6-4-3-2-A. Round 2 opens with the first "
        "bettor of round 1. Table minimum 13."
    ),
    "a5-draw": (
        "**Ace-to-Five (California) lowball, one draw** (2–5 players). Ante 1, bets 1 then 2, "
        "one bet and three raises a round. Aces are low, straights and flushes don't count: "
        "5-4-3-2-A (the wheel) is the best hand. No qualifier. Table minimum 13."
    ),
    "a5-triple": (
        "**Ace-to-Five Triple Draw** (2–6 players). Blinds 1 and 2, no ante. Bets 2 in rounds "
        "1–2 and 4 in rounds 3–4: bet, draw, bet, draw, bet, draw, bet. The big blind is the "
        "first bet and keeps its option. Heads-up the dealer posts the small blind. When the "
        "stub runs out, the discards are reshuffled. Lowest ace-to-five hand wins. "
        "Table minimum 48."
    ),
    "abyssinia": (
        "**Abyssinia** (2–8 players). Ante 1. Five times: everyone buys one open card (the "
        "left or right market card, or blind from the stub: 2–5 cost 2, 6–K cost 1, an ace "
        "4), then a betting round of size 1. The pot is split: best high hand takes half "
        "(and an odd chip), best ace-to-five low takes the other half. No declaration, no "
        "qualifier. Table minimum 41."
    ),
}

COMMON = (
    "Fixed limit everywhere: check or bet when nothing is owed; call, raise or fold when it "
    "is. Ties split; an odd chip goes to the first tied winner left of the dealer. You are "
    "dealt in only with at least the table minimum, so there are no all-ins or side pots."
)
