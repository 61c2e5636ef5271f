"""The process the crash tests kill: a table manager playing a scripted session.

    python -m tests.support.crash_child DB ACKS LOG KILL

plays triple draw at one table on the SQLite file DB until HANDS hands are done,
resuming whatever the file holds (so it can be run again after a kill). Every step
of the manager is used: open, join, deal, actions (heavy draws, so the stub runs
out and reshuffles), timeouts (two in a row sit a player out), leaving mid-hand,
coming back, settling.

ACKS gets one JSON line per action *after* ``act``/``expire`` returned, i.e. once
the manager acknowledged it. LOG gets one line per COMMIT: its number, the store
step and what the session was doing. KILL is "none" or "N:before" / "N:after":
SIGKILL this process just before / after the N-th COMMIT.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import sys
from pathlib import Path
from typing import Any

from bot.engine import Decision
from bot.engine.cards import format_card
from bot.storage import database as store_module
from bot.storage.store import Store
from bot.tables.manager import TableManager

GUILD, CH, VARIANT, HANDS = 1, 700, "a5-triple", 3
ROSTER = (11, 12, 13, 14)  # seats 0-3: a leaver comes back to the same (lowest free) seat
LEAVER = 14


def heavy_draw(decision: Decision, rng: random.Random) -> dict[str, Any]:
    """Never folds, draws four or five: four players run the stub out in the second draw."""
    if decision.phase == "draw":
        cards = rng.sample(list(decision.discardable), rng.choice((4, 5)))
        return {"action": "discard", "cards": [format_card(c) for c in cards]}
    for action in ("check", "call"):
        if action in decision.legal:
            return {"action": action}
    raise AssertionError(decision.legal)


def stored_form(user: int, move: dict[str, Any]) -> dict[str, Any]:
    """The action as the store keeps it (Action.to_json)."""
    out: dict[str, Any] = {"player": str(user), "action": move["action"]}
    if "cards" in move:
        out["cards"] = move["cards"]
    return out


class Session:
    def __init__(self, acks: Path, log: Path, kill: str) -> None:
        self.acks = os.open(acks, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        self.log = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        self.doing = "start"
        self.commits = 0
        self.kill_at, self.kill_when = (None, None) if kill == "none" else kill.split(":")

    def hook(self, step: str, moment: str) -> None:
        if moment == "before":
            self.commits += 1
            os.write(self.log, f"{self.commits} {step} {self.doing}\n".encode())
        if self.kill_at is not None and (int(self.kill_at), self.kill_when) == (
            self.commits,
            moment,
        ):
            os.kill(os.getpid(), signal.SIGKILL)

    def ack(self, **fields: Any) -> None:
        os.write(self.acks, (json.dumps(fields) + "\n").encode())

    async def run(self, db: Path) -> None:
        store = await Store.open(db)
        m = TableManager(store, starting_grant=200, turn_timeout=3600, rng=random.Random(5))
        await m.start()
        if not m.has_table(CH):
            self.doing = "open"
            await m.open_table(GUILD, CH, VARIANT, auto_deal=False)
        while True:
            table = m.table(CH)
            if table.hand is None:
                if await self.hands_done(store) >= HANDS:
                    break
                await self.between_hands(m)
                self.doing = "deal"
                await m.deal(CH)
            await self.turn(m)
        await m.close()
        await store.close()

    @staticmethod
    async def hands_done(store: Store) -> int:
        done = 0
        for user in ROSTER:
            account = await store.ledger.balance(GUILD, user)
            done = max(done, account.hands_played if account else 0)
        return done

    async def between_hands(self, m: TableManager) -> None:
        for user in ROSTER:
            seat = m.table(CH).seat_of(user)
            if seat is None:
                self.doing = f"join {user}"
                await m.join(CH, user, f"user{user}")
            elif seat.sitting_out:
                self.doing = f"back {user}"
                await m.sit_out(CH, user)

    async def turn(self, m: TableManager) -> None:
        view = m.view(CH)
        assert view.hand is not None and view.hand_id is not None
        user = view.to_act_user
        assert user is not None
        hand_id, turn = view.hand_id, view.turn
        seat = m.table(CH).seat_of(LEAVER)
        if turn == 2 and seat is not None and not seat.leaving and m.table(CH).in_hand(LEAVER):
            self.doing = "leave"
            await m.leave(CH, LEAVER)
        mine = m.my_hand(CH, user)
        assert mine is not None and mine.decision is not None
        # one player per hand is away when timing out costs nothing: now and then, or (odd
        # hands) every time, so two timeouts in a row sit them out
        free = "discard" in mine.decision.legal or "check" in mine.decision.legal
        if user == ROSTER[hand_id % 4] and free and (turn < 8 or hand_id % 2):
            self.doing = "timeout"
            assert await m.expire(CH, hand_id, turn)
            self.ack(hand=hand_id, turn=turn, player=str(user), timeout=True)
            return
        move = heavy_draw(mine.decision, random.Random(f"{hand_id}:{turn}"))
        hand = m.table(CH).hand
        assert hand is not None
        left = len(hand.stub) - hand.stub_pos
        reshuffle = move["action"] == "discard" and len(move["cards"]) > left
        self.doing = "reshuffle" if reshuffle else f"act {move['action']}"
        await m.act(CH, user, turn=turn, hand_id=hand_id, **move)
        self.ack(hand=hand_id, turn=turn, player=str(user), action=stored_form(user, move))


def main() -> None:
    db, acks, log, kill = sys.argv[1:5]
    session = Session(Path(acks), Path(log), kill)
    store_module.commit_hook = session.hook
    asyncio.run(session.run(Path(db)))


if __name__ == "__main__":
    main()
