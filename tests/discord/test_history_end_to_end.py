"""/replay, Share, /export and /stats end to end: the real bot through the harness.

Every game, in all three languages. The privacy scan runs over every payload these
features send (texts, files and the replay images' inputs): no card the viewer did not
see at the table, the engine itself being the oracle of what each one saw.
"""

from __future__ import annotations

import csv
import io

import pytest

from bot.engine import Hand
from bot.engine.record import HandRecord, parse_record
from bot.render import replay_images
from bot.storage.totals import StatsKind
from bot.ui.catalog import t
from fakediscord.harness import DiscordHarness, Msg
from fakediscord.poker import step
from tests.support.game import Game
from tests.support.history_helpers import assert_private, image_faces, seen, sent_texts
from tests.support.moderated_server import (
    ALICE,
    BOB,
    CAROL,
    DAVE,
    GUILD,
    TABLE,
    make_bot,
    started,
    uid,
)

LOCALES = {"en-US": "en", "pt-BR": "pt_BR", "vi": "vi"}


def button(msg: Msg, do: str) -> dict:
    found = next(c for c in msg.buttons() if c.get("custom_id", "").endswith(f":{do}"))
    return found


async def walk(h: DiscordHarness, user: dict, first: Msg) -> int:
    """Click ▶ until the last step; return how many steps were shown."""
    shown, msg = 1, first
    while not button(msg, "next").get("disabled"):
        clicked = await h.click(user, msg, button(msg, "next")["custom_id"])
        msg = clicked.message
        assert msg.ephemeral and "replay.png" in msg.attachments
        shown += 1
    return shown


async def played(h: DiscordHarness, variant: str, seed: int) -> tuple[int, HandRecord]:
    """Bob, Carol and Dave play one hand of ``variant``; its id and stored record."""
    await h.slash(BOB, TABLE, f"{variant} open")
    for user in (BOB, CAROL, DAVE):
        assert (await h.slash(user, TABLE, f"{variant} join")).ephemeral
    table = h.message(h.bot.presenter.message_id(TABLE))  # type: ignore[attr-defined]
    await h.slash(BOB, TABLE, f"{variant} deal")
    hand_id = h.bot.manager.view(TABLE).hand_id
    live = await h.slash(ALICE, TABLE, "replay", hand=hand_id)  # refused while played
    assert live.ephemeral and str(hand_id) in live.content and not live.attachments
    assert live.content == t(
        "replay.refused.live", LOCALES[h.locales.get(uid(ALICE), "en-US")], hand_id=hand_id
    )
    await Game(h, TABLE, table, seed=seed).play_hand()
    return hand_id, parse_record(await h.bot.store.history.hand_record(hand_id))


@pytest.mark.parametrize(
    ("variant", "locale"),
    [("a6-draw", "en-US"), ("a5-draw", "pt-BR"), ("a5-triple", "vi"), ("abyssinia", "pt-BR")],
)
async def test_replay_share_export_and_stats_of_each_game(tmp_path, variant, locale):
    lang = LOCALES[locale]
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await started(h)
        for user in (ALICE, BOB, CAROL, DAVE):
            h.set_locale(user, locale)
        hand_id, record = await played(h, variant, seed=5)
        final = Hand.replay(record)
        steps = len(record.actions) + 2 + int(final.showdown)  # deal, actions, showdown, result

        # --- the replay, as a player (Bob) and as a spectator (Alice, not dealt in)
        for viewer, key in ((BOB, str(uid(BOB))), (ALICE, None)):
            start = len(h.sent)
            replay_images._REPLAYS.items.clear()
            first = await h.slash(viewer, TABLE, "replay", hand=hand_id)
            msg = first.message
            assert first.ephemeral and msg.attachments == ["replay.png"]
            assert (
                t("replay.title", lang, hand_id=hand_id, game=t(f"game.{variant}", lang))
                in msg.text
            )
            assert [b.get("disabled", False) for b in msg.buttons()][:2] == [True, True]
            labels = [b["label"] for b in msg.buttons()]
            assert labels[:4] == ["⏮", "◀", "▶", "⏭"]
            assert (t("replay.share", lang) in labels) == (key is not None)  # players only
            assert await walk(h, viewer, msg) == steps
            back = await h.click(viewer, msg, button(h.message(msg.id), "first")["custom_id"])
            assert t("replay.step", lang, step=1, steps=steps) in back.message.text
            allowed = seen(record, key)
            assert_private(sent_texts(h, start), allowed, f"replay for {key}")
            assert image_faces() <= allowed, "a replay image shows a card its viewer never saw"
            if key is None:  # the spectator (the second of the two) has no cards of their own
                continue
            # the viewer's own cards are drawn, face up
            assert set(record.deck[:15]) & image_faces() or variant == "abyssinia"

        # --- Share: Bob posts the last step; only his own cards become public
        mine = await h.slash(BOB, TABLE, "replay", hand=hand_id)
        last = await h.click(BOB, mine.message, button(mine.message, "last")["custom_id"])
        start = len(h.sent)
        asked = await h.click(BOB, last.message, button(last.message, "share")["custom_id"])
        assert asked.ephemeral
        held = set(final.holdings[final.seat_of(str(uid(BOB)))])
        assert t("replay.share.post", lang) in asked.message.text
        replay_images._REPLAYS.items.clear()
        posted = await h.click(BOB, asked.message, button(asked.message, "post")["custom_id"])
        assert posted.message.content == t("replay.share.done", lang, hand_id=hand_id)
        public = [s for s in h.sent[start:] if s.visibility == "public"]
        assert len(public) == 1 and public[0].file_names == ["replay.png"]
        shared = seen(record, None) | held
        assert_private([s.text for s in public], shared, "shared replay")
        assert image_faces() <= shared
        assert held <= image_faces()  # his cards are what the post shows
        # Alice is not a player of the hand: no Share for her
        watching = await h.slash(ALICE, TABLE, "replay", hand=hand_id)
        assert not any(c.endswith(":share") for c in watching.message.custom_ids())

        # --- /stats: Bob's own, and Bob's as Alice sees them (results and showdowns only)
        start = len(h.sent)
        own = await h.slash(BOB, TABLE, "stats")
        assert own.ephemeral and own.attachments == ["chart.png"]
        net = final.net()[str(uid(BOB))]
        text = own.message.text
        assert t("stats.hands", lang, count=1) in text
        assert t("stats.net", lang, net=net, per_100="{per_100}").split("(")[0] in text
        assert t("stats.vpip", lang, rate="").split(":")[0] in text
        other = await h.slash(ALICE, TABLE, "stats", player=BOB)
        seen_by_alice = other.message.text
        assert t("stats.public_only", lang) in seen_by_alice
        assert t("stats.vpip", lang, rate="").split(":")[0] not in seen_by_alice
        assert t("stats.draws", lang) not in seen_by_alice
        assert t("stats.buys.title", lang) not in seen_by_alice
        assert_private(sent_texts(h, start), seen(record, None), "stats")  # no card at all
        totals = await h.bot.store.stats.totals(GUILD, uid(BOB), variant, StatsKind.CASH)
        assert (totals.hands, totals.net) == (1, net)
        per_game = await h.bot.store.stats.totals(GUILD, uid(BOB), None, StatsKind.CASH)
        assert per_game == totals

        # --- /export: Bob's hands and ledger; the server's for moderators only
        start = len(h.sent)
        exported = await h.slash(BOB, TABLE, "export")
        assert exported.ephemeral
        files = dict(exported.message.files)
        assert sorted(files) == [f"hands-{GUILD}-{uid(BOB)}.txt", f"ledger-{GUILD}-{uid(BOB)}.csv"]
        text = files[f"hands-{GUILD}-{uid(BOB)}.txt"].decode()
        bob = BOB["global_name"]
        assert text.startswith(f"PokerBot Hand #{hand_id}: ")
        assert "*** SUMMARY ***" in text and f"Seat 1: {bob}" in text
        assert "Dealt to " + CAROL["global_name"] not in text
        if variant == "abyssinia":  # bought from the market, not dealt: no hand to name
            assert "*** BUYING ROUND 1 ***" in text
        else:
            assert text.count(f"Dealt to {bob} [") >= 1
        ledger = list(csv.DictReader(io.StringIO(files[f"ledger-{GUILD}-{uid(BOB)}.csv"].decode())))
        assert [r["kind"] for r in ledger] == ["grant", "hand"]
        assert ledger[1]["hand_id"] == str(hand_id) and int(ledger[1]["amount"]) == net
        assert_private(sent_texts(h, start), seen(record, str(uid(BOB))), "Bob's export")
        refused = await h.slash(BOB, TABLE, "export", scope="server")
        assert refused.ephemeral and refused.content == t("export.moderators_only", lang)
        assert not refused.message.files
        start = len(h.sent)
        server = await h.slash(ALICE, TABLE, "export", scope="server", hands=50)
        files = dict(server.message.files)
        log = files[f"server-hands-{GUILD}.csv"].decode()
        rows = list(csv.reader(io.StringIO(log)))
        assert rows[0] == ["entry", "at", "order"]
        assert rows[1][0].startswith(f"-- starting hand #{hand_id} ")
        assert rows[-1][0] == f"-- ending hand #{hand_id} --"
        assert [int(r[2]) for r in rows[1:]] == list(range(1, len(rows)))
        assert_private(sent_texts(h, start), seen(record, None), "the server's export")
        people = list(csv.DictReader(io.StringIO(files[f"server-ledger-{GUILD}.csv"].decode())))
        assert {int(p["user_id"]) for p in people} >= {uid(BOB), uid(CAROL), uid(DAVE)}
        assert sum(int(p["net"]) for p in people) == 0
        h.assert_no_errors()


async def test_replay_buttons_survive_a_restart_and_the_history_and_privacy_entries(tmp_path):
    path = tmp_path / "p.db"
    async with DiscordHarness(make_bot(path)) as h:
        await started(h)
        hand_id, record = await played(h, "a5-triple", seed=8)
        first = await h.slash(CAROL, TABLE, "replay")  # no number: her last hand
        assert first.message.attachments == ["replay.png"] and f"#{hand_id}" in first.message.text
        await h.restart(make_bot(path))
        moved = await h.click(CAROL, first.message, button(first.message, "next")["custom_id"])
        assert "Step 2 of" in moved.message.text and moved.message.attachments == ["replay.png"]
        h.assert_no_errors()
        # /history offers a Replay choice for each line
        listed = await h.slash(CAROL, TABLE, "history")
        (picker,) = [c for c in listed.message.custom_ids() if c.startswith("rpk:")]
        assert f"Replay hand #{hand_id}" in listed.message.text
        chosen = await h.select(CAROL, listed.message, picker, [str(hand_id)])
        (shown,) = chosen.followups or [chosen.message]
        assert shown.ephemeral and shown.attachments == ["replay.png"]
        assert "Step 1 of" in shown.text
        # /privacy show offers the player's own export
        start = len(h.sent)
        privacy = await h.slash(CAROL, TABLE, "privacy show")
        (export,) = [c for c in privacy.message.custom_ids() if c.startswith("pvx:")]
        files = await h.click(CAROL, privacy.message, export)
        names = sorted(files.message.files)
        assert names == [f"hands-{GUILD}-{uid(CAROL)}.txt", f"ledger-{GUILD}-{uid(CAROL)}.csv"]
        assert_private(sent_texts(h, start), seen(record, str(uid(CAROL))), "privacy export")
        # refusals: an unknown hand, and someone with no hands asking for their last
        unknown = await h.slash(CAROL, TABLE, "replay", hand=hand_id + 40)
        assert unknown.content == f"There is no finished hand #{hand_id + 40} on this server."
        nothing = await h.slash(ALICE, TABLE, "replay")
        assert "no finished hands" in nothing.content
        h.assert_no_errors()


async def test_stats_count_practice_apart_and_never_a_cancelled_hand(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        await started(h)
        _, record = await played(h, "a6-draw", seed=2)
        repo = h.bot.store.stats
        before = await repo.totals(GUILD, uid(BOB), None, StatsKind.CASH)
        assert before.hands == 1
        # a hand a moderator cancels (forced close) counts for nobody
        await h.slash(BOB, TABLE, "a6-draw deal")
        closed = await h.slash(ALICE, TABLE, "table-admin close")
        assert closed.ephemeral
        assert not h.bot.manager.has_table(TABLE) or h.bot.manager.view(TABLE).hand is None
        assert await repo.totals(GUILD, uid(BOB), None, StatsKind.CASH) == before
        # a practice hand (Bob and a computer player) counts apart
        await h.slash(BOB, TABLE, "a6-draw open", bots=1)
        await h.slash(BOB, TABLE, "a6-draw deal")
        for _ in range(100):
            await h.bot.practice.settle()  # type: ignore[attr-defined]
            if h.bot.manager.view(TABLE).hand is None:
                break
            await step(h, TABLE, draw=1)
        assert h.bot.manager.view(TABLE).hand is None
        practice = await repo.totals(GUILD, uid(BOB), None, StatsKind.PRACTICE)
        assert practice.hands == 1
        assert await repo.totals(GUILD, uid(BOB), None, StatsKind.CASH) == before
        title = await h.slash(BOB, TABLE, "stats", kind="practice")
        assert "practice" in title.message.text and "**1** hand played" in title.message.text
