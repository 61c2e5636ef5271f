"""A multi-table tournament's lists fit Discord's limits at any size: the summary of 1,000
entrants (153 paid places) is posted in several messages of at most 2,000 characters,
and the registration message's fields (up to 1,024 characters) show whole names and whole
table links, then how many more."""

from __future__ import annotations

import re

import pytest

from bot.storage.tournaments import EntryRow, TournamentRow
from bot.tournaments import payouts
from bot.ui import i18n
from bot.ui.mtt import registration_embed, summary_pages

ENTRANTS = 1000
FEE = 10


def tournament(status: str) -> TournamentRow:
    return TournamentRow(
        tournament_id=7, guild_id=1, channel_id=2, creator_id=3, variant="a5-triple",
        seats=ENTRANTS, speed="turbo", start_stack=2000, fee=FEE, practice=False,
        status=status, message_id=None, table_channel_id=None, button=None,
        clock_elapsed=0.0, hands=3000, last_hand_id=None, longest_hand_id=None,
        longest_actions=0, created_at=0.0, started_at=0.0, ended_at=None,
    )  # fmt: skip


def field_of(finished: bool) -> list[EntryRow]:
    prizes = payouts.prizes_by_place(ENTRANTS * FEE, ENTRANTS) if finished else []
    return [
        EntryRow(
            entry=i,
            user_id=10_000 + i,
            display_name=f"Player number {i:04d}",
            seat=None,
            stack=0,
            place=(i + 1) if finished else None,
            prize=prizes[i] if finished and i < len(prizes) else 0,
            points=0,
        )  # fmt: skip
        for i in range(ENTRANTS)
    ]


@pytest.mark.parametrize("locale", ["en", "pt-BR", "vi"])
def test_the_summary_of_a_thousand_entrants_is_paged_under_discords_limit(locale: str) -> None:
    entries = field_of(finished=True)
    paid = [e for e in entries if e.prize]
    assert len(paid) > 100  # a long list: the old single message was 3,777 characters
    with i18n.using(locale):
        pages = summary_pages(tournament("finished"), entries)
    assert len(pages) > 1 and all(0 < len(p) <= 2000 for p in pages)
    text = "\n".join(pages)
    assert "#7" in pages[0].splitlines()[0]  # the title first
    named = [n for line in text.splitlines() for n in re.findall(r"Player number \d{4}", line)]
    assert named == [e.display_name for e in paid]  # every paid place, once, in order
    assert "1,000" in pages[-1].splitlines()[-1] or "1.000" in pages[-1].splitlines()[-1]


@pytest.mark.parametrize("locale", ["en", "pt-BR", "vi"])
def test_the_registration_message_shows_whole_names_and_links_then_how_many_more(
    locale: str,
) -> None:
    tables = {n: 1_500_000_000_000_000_000 + n for n in range(1, 168)}  # 167 threads
    with i18n.using(locale):
        embed = registration_embed(
            tournament("running"), field_of(finished=False), table_size=6, starts_at=None,
            late_levels=0, tables=tables,
        )  # fmt: skip
    players, status = embed.fields[0].value or "", embed.fields[-1].value or ""
    assert len(players) <= 1024 and len(status) <= 1024
    names = players.split(", ")
    assert all(re.fullmatch(r"Player number \d{4}", n) for n in names[:-1])
    more = int(re.sub(r"\D", "", names[-1]))
    assert more == ENTRANTS - (len(names) - 1) and more > 0  # "… and N more", N the rest
    links = re.findall(r"<#(\d+)>", status)
    assert status.count("<#") == len(links)  # no link cut in two
    assert [int(c) for c in links] == [tables[n] for n in range(1, len(links) + 1)]
    assert str(len(tables) - len(links)) in status.split(links[-1] + ">")[-1]
