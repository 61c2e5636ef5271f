"""The words of /replay, /stats and /export (issue 21), merged into ``catalog.MESSAGES``."""

from __future__ import annotations

from typing import Any


def _messages(plural: Any) -> dict[str, Any]:
    """The messages, with ``plural`` the catalog's ``Plural`` (the catalog imports us)."""
    return {
        # ----- /replay
        "replay.title": "Replay · hand #{hand_id} · {game}",
        "replay.step": "Step {step} of {steps}",
        "replay.deal": "The cards are dealt; {dealer} has the button. Next: {round}.",
        "replay.you_threw": "(you threw {cards})",
        "replay.your_cards": "Your cards",
        "replay.shared_cards": "{name}'s cards",
        "replay.spectator": "You watch as a spectator",
        "replay.spectator.why": (
            "You were not dealt into this hand: you see only what the table showed everyone."
        ),
        "replay.seat": "{name} · {stack}",
        "replay.image_title": "Hand #{hand_id} · {round}",
        "replay.share": "Share",
        "replay.share.post": "Post it publicly",
        "replay.share.confirm": (
            "Post step {step} of hand #{hand_id} in this channel? Your own cards at that "
            "step ({cards}) become public. Nobody else's cards are shown."
        ),
        "replay.share.done": "Posted hand #{hand_id}: your cards at that step are public now.",
        "replay.shared_by": "Shared by {name}, with their own cards.",
        "replay.refused.unknown": "There is no finished hand #{hand_id} on this server.",
        "replay.refused.live": (
            "Hand #{hand_id} is still being played. You can replay it once it is over."
        ),
        "replay.refused.not_yours": (
            "Only a player of hand #{hand_id} can share it, and only their own cards."
        ),
        "replay.pick": "Replay a hand…",
        "replay.pick.option": "Replay hand #{hand_id}",
        # ----- /stats
        "stats.title": "{name} · {game}",
        "stats.title.practice": "{name} · {game} · practice",
        "stats.all_games": "all games",
        "stats.none": "No hands counted yet.",
        "stats.hands": plural("**{count}** hand played", "**{count}** hands played"),
        "stats.net": "Net **{net:+d}** chips ({per_100} per 100 hands)",
        "stats.vpip": "Put chips in voluntarily: {rate} of hands",
        "stats.showdown": "Reached the showdown: {reached} · won there: {won}",
        "stats.percent": "{value}%",
        "stats.draws": "Draws",
        "stats.draw": "Draw {draw}: stood pat {pat} · {cards} cards on average",
        "stats.buys.title": "Buys",
        "stats.buys": "left {left} · right {right} · blind {blind}",
        "stats.halves.title": "Halves won",
        "stats.halves": "high {high} · low {low} · both {both}",
        "stats.public_only": "Only what the table showed everyone: results and showdowns.",
        "stats.chart.title": "{name} · net chips",
        "stats.chart.hands": "hands",
        # ----- /export
        "export.mine": plural(
            "Your last hand and your ledger, as files.",
            "Your last {count} hands and your ledger, as files.",
        ),
        "export.server": plural(
            "The server's ledger and its last hand (public information only).",
            "The server's ledger and its last {count} hands (public information only).",
        ),
        # zero in words: Portuguese's plural rule would say "Sua última 0 mão" (issue 39)
        "export.mine.zero": "You have no hands in that period yet; here is your ledger, as files.",
        "export.server.zero": (
            "The server's ledger (no hands in that period; public information only)."
        ),
        "export.moderators_only": "Only moderators can export the whole server.",
        "export.button": "Export my data",
        # ----- tournament hands apart in /stats; /sitngo standings' rule (issue 36 item 5)
        "stats.title.tournament": "{name} · {game} · tournaments",
        "sng.standings.rule": (
            "Points: the payout table's percentages of each finish (a 2–4 player winner "
            "scores 100), split on a shared place; then wins, then fewer entries."
        ),
    }
