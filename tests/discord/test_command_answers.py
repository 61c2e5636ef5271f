"""A slash command's step is answered by its private result as the initial response, one
call, when that is ready within the presenter's ``answer_within``; a slower one is deferred
privately at that deadline and its result follows (issue 22: fewer calls per action)."""

from __future__ import annotations

from fakediscord.harness import DiscordHarness, Reply
from fakediscord.poker import (
    GUILD,
    PLAYERS,
    TABLE,
    assert_table_shows_latest,
    make_bot,
    open_table,
    uid,
)

ALICE, BOB = PLAYERS[:2]


def to_act(h: DiscordHarness) -> dict:
    view = h.bot.manager.view(TABLE)  # type: ignore[attr-defined]
    return next(p for p in PLAYERS if uid(p) == view.to_act_user)


def own_calls(reply: Reply) -> list[str]:
    """The interaction's own calls, as ``METHOD path-end``."""
    mine = [s for s in reply.sent if s.interaction_token == reply.token]
    return [f"{s.method} {s.path.rsplit('/', 1)[-1]}" for s in mine]


async def test_a_command_ready_in_time_is_answered_by_its_result_in_one_call(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "c.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        # no slow step is injected: a step may take up to 2.5 s on this machine
        h.bot.presenter.answer_within = 2.5  # type: ignore[attr-defined]
        await open_table(h, "a6-draw", [ALICE, BOB])
        dealt = await h.slash(ALICE, TABLE, "a6-draw deal")
        assert dealt.callback_type == 4 and dealt.ephemeral  # the cards are the answer
        assert dealt.attachments == ["hand.png"]
        assert own_calls(dealt) == ["POST callback"]
        checked = await h.slash(to_act(h), TABLE, "a6-draw check")
        assert checked.callback_type == 4 and checked.ephemeral
        assert "✅" in str(checked.embeds) and checked.attachments == ["hand.png"]
        assert own_calls(checked) == ["POST callback"]  # no deferral, no followup
        assert_table_shows_latest(h, TABLE)


async def test_a_refused_command_is_answered_at_once_with_why_and_changes_nothing(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "c.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        h.bot.presenter.answer_within = 2.5  # type: ignore[attr-defined]
        await open_table(h, "a6-draw", [ALICE, BOB])
        await h.slash(ALICE, TABLE, "a6-draw deal")
        waiting = ALICE if to_act(h) is BOB else BOB
        before = h.bot.manager.progress(TABLE)  # type: ignore[attr-defined]
        refused = await h.slash(waiting, TABLE, "a6-draw check")
        assert refused.callback_type == 4 and refused.ephemeral
        assert "not your turn" in refused.content
        assert own_calls(refused) == ["POST callback"]
        assert h.bot.manager.progress(TABLE) == before  # type: ignore[attr-defined]


async def test_a_slow_command_is_deferred_privately_and_its_result_follows(tmp_path):
    async with DiscordHarness(make_bot(tmp_path / "c.db")) as h:
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS)
        await open_table(h, "a5-draw", [ALICE, BOB])
        h.bot.presenter.answer_within = 0.0  # any step is "slow"
        dealt = await h.slash(ALICE, TABLE, "a5-draw deal")
        assert dealt.callback_type == 5  # "thinking", privately
        assert own_calls(dealt) == ["POST callback", "POST " + dealt.token]
        assert dealt.ephemeral and dealt.attachments == ["hand.png"]  # then the cards
        bet = await h.slash(to_act(h), TABLE, "a5-draw bet")
        assert bet.callback_type == 5 and bet.ephemeral and "✅" in str(bet.embeds)
        assert not bet.message.loading
        assert_table_shows_latest(h, TABLE)
