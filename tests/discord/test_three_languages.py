"""End to end in three languages: a Portuguese, a Vietnamese and an English player at one
table in a Vietnamese server. Every private answer is in its reader's language, every
public message in Vietnamese, and no hidden card leaks in any notation or language."""

from __future__ import annotations

import re
import string

import discord
import pytest

from bot.engine import Hand
from bot.render.plain_text import card_text
from bot.rules_text import RULES
from bot.ui import i18n
from bot.ui.catalog import MESSAGES, Plural, t
from bot.ui.hand_names import card_name
from fakediscord.harness import DiscordHarness, Msg, make_member
from fakediscord.poker import GUILD, PLAYERS, TABLE, make_bot, uid
from tests.support.game import Game

PT, VI, EN = PLAYERS[:3]
READERS = {uid(PT): "pt_BR", uid(VI): "vi", uid(EN): "en"}
DISCORD_CODES = {"pt_BR": "pt-BR", "vi": "vi", "en": "en-US"}


def _texts(locale: str) -> list[str]:
    """Every message of ``locale``, every plural form."""
    out = []
    for key, english in MESSAGES.items():
        if isinstance(english, Plural):
            out += [i18n.text(key, (english.one, english.other), locale, n) for n in (1, 2)]
        else:
            out.append(i18n.text(key, english, locale))
    return out


TEXTS = {locale: _texts(locale) for locale in i18n.LOCALES}
ALL_TEXT = {locale: "\n".join(texts) for locale, texts in TEXTS.items()}


def _fragments(locale: str) -> set[str]:
    """The words (between placeholders) of ``locale``'s messages that no other language uses."""
    out: set[str] = set()
    for text in TEXTS[locale]:
        for literal, _, _, _ in string.Formatter().parse(text):
            for piece in re.split(r"[*_`()\[\]:;,.!?·—–\n]+", literal):
                piece = piece.strip()
                if len(piece) >= 5 and re.search(r"[^\W\d_]{3}", piece):
                    out.add(piece)
    others = [ALL_TEXT[o] for o in i18n.LOCALES if o != locale]
    return {f for f in out if not any(f in other for other in others)}


FRAGMENTS = {locale: _fragments(locale) for locale in i18n.LOCALES}


def languages_of(text: str) -> dict[str, set[str]]:
    """Which languages' own words ``text`` contains."""
    found = {}
    for locale, fragments in FRAGMENTS.items():
        hits = {f for f in fragments if f in text}
        if hits:
            found[locale] = hits
    return found


def assert_in(locale: str, text: str, what: str) -> None:
    found = languages_of(text)
    assert locale in found, f"{what} is not in {locale}: {text[:400]}"
    others = {k: v for k, v in found.items() if k != locale}
    assert not others, f"{what} mixes in {others}: {text[:400]}"


def spelled_pattern(cards) -> re.Pattern[str] | None:
    """These cards spelled out in every language ("ace of spades", "ás de espadas", "Át bích");
    the symbol notations (A♠, As, 10♠) are the base scan's."""
    forms = set()
    for c in cards:
        for locale in i18n.LOCALES:
            with i18n.using(locale):
                forms.add(re.escape(card_name(c)))
    return re.compile("|".join(sorted(forms)), re.IGNORECASE) if forms else None


class Trilingual(Game):
    """Game, with the privacy scan reading localised card names too."""

    def check_privacy(self, ended: Hand | None = None) -> None:
        pattern = spelled_pattern(self.hidden_cards(ended))
        for sent in self.h.sent[self.checked :]:
            if sent.visibility == "public" and pattern is not None:
                assert not pattern.search(sent.text), f"hidden card in public: {sent.text[:300]}"
        super().check_privacy(ended)


async def open_table(h: DiscordHarness, variant: str, players: list[dict]) -> Msg:
    opened = await h.slash(players[0], TABLE, f"{variant} open")
    assert opened.message.deleted  # the table message, posted by the presenter, answers
    table = h.message(h.bot.presenter.message_id(TABLE))  # type: ignore[attr-defined]
    for p in players:
        joined = await h.slash(p, TABLE, f"{variant} join")
        with i18n.using(READERS[uid(p)]):
            assert joined.ephemeral and joined.content.startswith(
                t("done.seated", seat=0, available=0)[:6]
            )
    return table


def private_messages(h: DiscordHarness, user: dict) -> list[Msg]:
    ephemeral = [m for m in h.messages(TABLE) if m.ephemeral and m.visible_to == uid(user)]
    return ephemeral + h.dms(user)


@pytest.mark.parametrize("variant", ["a6-draw", "a5-draw", "a5-triple", "abyssinia"])
async def test_a_whole_hand_in_three_languages_at_a_vietnamese_table(tmp_path, variant) -> None:
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        for user in (PT, VI, EN):
            h.set_locale(user, DISCORD_CODES[READERS[uid(user)]])
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS, preferred_locale="vi")
        table = await open_table(h, variant, [PT, VI, EN])
        dealt = await h.slash(EN, TABLE, f"{variant} deal")
        assert dealt.ephemeral
        game = Trilingual(h, TABLE, table, seed=11)
        game.check_privacy()
        await game.play_hand()
        game.check_privacy()

        # every private answer and DM, in its reader's language
        for user in (PT, VI, EN):
            mine = private_messages(h, user)
            assert mine, "each player got private answers"
            for msg in mine:
                assert_in(READERS[uid(user)], msg.text, f"a private message to {user['username']}")
        # every public message (the table, its edits, the result) in Vietnamese
        public = h.messages(TABLE, include_ephemeral=False)
        assert public
        for msg in public:
            assert_in("vi", msg.text, "a public message")
        result = next(m for m in public if "kết quả" in m.text)
        assert "Chip" in result.text
        with i18n.using("vi"):
            buttons = {b["label"] for b in h.message(table.id).buttons()}
            assert t("button.join") in buttons or t("button.my_hand") in buttons


async def test_rules_and_commands_answer_in_the_readers_language(tmp_path) -> None:
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        for user in (PT, VI, EN):
            h.set_locale(user, DISCORD_CODES[READERS[uid(user)]])
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS, preferred_locale="vi")
        pt = await h.slash(PT, TABLE, "rules", game="abyssinia")
        vi = await h.slash(VI, TABLE, "rules", game="abyssinia")
        en = await h.slash(EN, TABLE, "rules", game="abyssinia")
        assert all(r.ephemeral for r in (pt, vi, en))
        assert "às cegas" in str(pt.embeds) and "Ante de 1" in str(pt.embeds)
        assert "mua mù" in str(vi.embeds) and "lật bài" in str(vi.embeds).lower()
        assert RULES["abyssinia"] in en.embeds[0]["description"]


async def test_the_settings_language_overrides_the_servers_locale_for_public_messages(
    tmp_path,
) -> None:
    from fakediscord.harness import make_member
    from tests.support.moderated_server import MANAGER

    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        h.set_locale(VI, "vi")
        members = [make_member(EN, permissions=MANAGER), PT, VI]
        await h.connect(GUILD, {TABLE: "poker"}, members, preferred_locale="vi")
        changed = await h.slash(EN, TABLE, "settings language", language="pt-BR")
        assert changed.ephemeral and changed.content == "Language is now: pt-BR."
        await h.slash(VI, TABLE, "a5-draw open")
        opened = h.message(h.bot.presenter.message_id(TABLE))  # type: ignore[attr-defined]
        assert_in("pt_BR", opened.text, "the table opened after /settings language")
        joined = await h.slash(VI, TABLE, "a5-draw join")
        assert_in("vi", joined.content, "a Vietnamese player's private answer")
        await h.slash(EN, TABLE, "settings language", language="auto")
        await h.slash(PT, TABLE, "a5-draw join")  # the table message is edited: back to Vietnamese
        embed = h.message(opened.id).embeds[0]
        seats, recent = embed["fields"]
        now = [embed["title"], embed["description"], seats["name"], seats["value"]]
        now += [recent["name"], embed["footer"]["text"]]
        # the Recent log is history: its lines stay in the language they were written in
        now.append(recent["value"].splitlines()[-1])
        assert_in("vi", "\n".join(now), "the table after going back to auto")


async def test_the_board_image_is_drawn_in_the_tables_language(tmp_path) -> None:
    from bot.render import render_board
    from bot.render.images import BoardLabels

    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        h.set_locale(PT, "pt-BR")
        h.set_locale(VI, "vi")
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS, preferred_locale="vi")
        table = await open_table(h, "abyssinia", [PT, VI])
        await h.slash(PT, TABLE, "abyssinia deal")
        drawn = h.message(table.id).attachment_bytes("board.png")
        view = h.bot.manager.view(TABLE)
        hand = view.hand
        # the same board drawn from the catalog's Vietnamese words, independently
        with i18n.using("vi"):
            market = [(t(f"source.{o.source}"), o.card, o.price) for o in hand.market[:2]]
            labels = BoardLabels(
                title=f"{t('game.abyssinia')} · {t('table.round.buy', round=1, rounds=5)}",
                pot=t("board.pot", pot="{pot}"),
                blind=t("source.blind"),
                empty=t("board.empty"),
                costs=t("board.costs", price="{price}"),
                costs_unknown=t("board.costs_unknown"),
                folded=t("seat.folded"),
                locale="vi",
            )
        assert (labels.blind, labels.costs, market[0][0]) == ("mù", "giá {price}", "trái")
        players = [(view.name(s.player), s.open_cards, s.folded) for s in hand.seats]
        assert drawn == render_board(market, players, hand.pot, labels.title, labels)
        english = render_board(market, players, hand.pot, "Abyssinia · buy 1 of 5")
        assert drawn != english


def _to_act(h: DiscordHarness, users: list[dict]) -> dict:
    actor = h.bot.manager.view(TABLE).to_act_user
    return next(u for u in users if uid(u) == actor)


async def test_the_buy_place_is_offered_and_taken_in_the_readers_words(tmp_path) -> None:
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        h.set_locale(PT, "pt-BR")
        h.set_locale(VI, "vi")
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS, preferred_locale="pt-BR")
        await open_table(h, "abyssinia", [PT, VI])
        await h.slash(PT, TABLE, "abyssinia deal")
        typed = {"pt_BR": ("esq", "às", "cegas"), "vi": ("tr", "mù", "mua")}
        wanted = {"pt_BR": ("left", "blind", "blind"), "vi": ("left", "blind", "blind")}
        for user in (PT, VI):
            locale = READERS[uid(user)]
            for text, value in zip(typed[locale], wanted[locale], strict=True):
                choices = await h.autocomplete(user, TABLE, "abyssinia buy", "from", text)
                assert value in {c["value"] for c in choices}, (locale, text, choices)
            every = await h.autocomplete(user, TABLE, "abyssinia buy", "from", "")
            assert {c["value"] for c in every} == {"left", "right", "blind"}
        nothing = await h.autocomplete(PT, TABLE, "abyssinia buy", "from", "zz")
        assert nothing == []

        # a word that names no place is refused, and every word the refusal offers is taken
        first = _to_act(h, [PT, VI])
        locale = READERS[uid(first)]
        before = h.bot.manager.view(TABLE).hand
        refused = await h.slash(first, TABLE, "abyssinia buy", **{"from": "meio"})
        assert refused.ephemeral and "'meio'" in refused.content
        legal = refused.content.rstrip(".").split(": ", 1)[1].split(", ")
        with i18n.using(locale):
            assert legal == [t(f"source.{s}") for s in ("left", "right", "blind")]
        assert h.bot.manager.view(TABLE).hand == before  # nothing changed
        bought = await h.slash(first, TABLE, "abyssinia buy", **{"from": legal[0].upper()})
        assert bought.ephemeral and "'" not in bought.content, bought.content
        assert h.bot.manager.view(TABLE).hand != before
        second = _to_act(h, [PT, VI])
        word = {"pt_BR": "Às cegas", "vi": "mù"}[READERS[uid(second)]]
        before = h.bot.manager.view(TABLE).hand
        blind = await h.slash(second, TABLE, "abyssinia buy", **{"from": word})
        assert blind.ephemeral and "'" not in blind.content, blind.content
        assert h.bot.manager.view(TABLE).hand != before
        log = h.message(h.bot.presenter.message_id(TABLE)).text  # type: ignore[attr-defined]
        assert "compra a da esquerda" in log or "compra às cegas" in log


async def test_cards_are_shown_in_suit_symbols_with_the_letter_legend(tmp_path) -> None:
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        h.set_locale(PT, "pt-BR")
        h.set_locale(VI, "vi")
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS, preferred_locale="vi")
        schema = {c["name"]: c for c in h.command_schema(GUILD)}
        discard = next(o for o in schema["a5-draw"]["options"] if o["name"] == "discard")
        cards = discard["options"][0]
        for where in (cards["description"], *cards["description_localizations"].values()):
            assert "8♣ K♦" in where and "c♣ d♦ h♥ s♠" in where, where
        await open_table(h, "a5-draw", [PT, VI])
        await h.slash(PT, TABLE, "a5-draw deal")
        for _ in range(2):
            await h.slash(_to_act(h, [PT, VI]), TABLE, "a5-draw check")
        actor = _to_act(h, [PT, VI])
        garbage = await h.slash(actor, TABLE, "a5-draw discard", cards="8x")
        legend = {"pt_BR": "c = ♣ paus, d = ♦ ouros, h = ♥ copas", "vi": "c = ♣ chuồn, d = ♦ rô"}
        assert garbage.ephemeral and "'8x'" in garbage.content
        assert "8♣" in garbage.content and legend[READERS[uid(actor)]] in garbage.content
        assert "As," not in garbage.content  # "As" reads as "Ás" to a Brazilian
        mine = h.bot.manager.my_hand(TABLE, uid(actor)).cards
        thrown = await h.slash(actor, TABLE, "a5-draw discard", cards=card_text(mine[0]))
        assert thrown.ephemeral and "'" not in thrown.content  # the symbols are read too
        for user in (PT, VI):
            rules = await h.slash(user, TABLE, "rules", game="a5-triple")
            assert "8♣ K♦" in str(rules.embeds) and legend[READERS[uid(user)]] in str(rules.embeds)


async def test_commands_named_in_messages_are_the_readers_names(tmp_path) -> None:
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        h.set_locale(PT, "pt-BR")
        h.set_locale(VI, "vi")
        await h.connect(GUILD, {TABLE: "poker"}, PLAYERS, preferred_locale="vi")
        schema = {c["name"]: c for c in h.command_schema(GUILD)}
        shows = {
            group: next(o for o in schema[group]["options"] if o["name"] == "show")
            for group in ("settings", "privacy")
        }
        assert shows["privacy"]["name_localizations"]["vi"] == "xem"
        assert shows["settings"]["name_localizations"]["vi"] == "xem"
        for game in ("a6-draw", "a5-draw", "a5-triple", "abyssinia"):  # the games described
            described = schema[game]["description_localizations"]
            assert set(described) >= {"pt-BR", "vi"} and all(described.values()), game
        await open_table(h, "a5-draw", [PT, VI])
        shown = await h.slash(PT, TABLE, "privacy show")
        footer = shown.embeds[0]["footer"]["text"]
        assert footer == "`/privacidade apagar` apaga tudo."
        shown = await h.slash(VI, TABLE, "privacy show")
        assert shown.embeds[0]["footer"]["text"] == "`/quyền-riêng-tư xóa` sẽ xóa hết."


async def test_a_player_with_no_hands_and_a_changed_setting_read_right(tmp_path) -> None:
    """Issue 39: "Sua última 0 mão" at /export, "Canais para mesas agora é" at /settings."""
    async with DiscordHarness(make_bot(tmp_path / "p.db")) as h:
        h.set_locale(PT, "pt-BR")
        h.set_locale(VI, "vi")
        manager = discord.Permissions(  # PT may change /settings
            view_channel=True,
            send_messages=True,
            use_application_commands=True,
            manage_channels=True,
        )
        members = [make_member(PT, permissions=manager), *PLAYERS[1:]]
        await h.connect(GUILD, {TABLE: "poker"}, members, preferred_locale="pt-BR")
        listed = await h.slash(PT, TABLE, "settings channel-allow", channel=TABLE)
        assert listed.content == f"Canais para mesas: agora <#{TABLE}>."
        exported = await h.slash(PT, TABLE, "export")
        assert exported.ephemeral and exported.content == (
            "Você ainda não tem mãos neste período; aqui está seu extrato, em arquivos."
        )
        exported = await h.slash(VI, TABLE, "export")
        assert exported.content == (
            "Bạn chưa có ván nào trong khoảng này; đây là sổ chip của bạn, dạng tệp."
        )
