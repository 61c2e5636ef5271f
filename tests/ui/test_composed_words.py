"""Composed strings as a reader of each language sees them: hints and reviews, plurals at
0, 1 and 2, move lines that never need a player's gender, buttons that fit a phone, and
/rules against the seed rule cards."""

from __future__ import annotations

import re

import pytest

from bot.engine.cards import parse_cards
from bot.engine.record import Action
from bot.opponents import Advice
from bot.opponents.advice import Review
from bot.practice.coach import PracticeReview
from bot.rules_text import RULES_MESSAGES
from bot.tables.models import Move
from bot.ui import i18n
from bot.ui.catalog import MESSAGES, Plural, t
from bot.ui.coaching import advice_text, review_text
from bot.ui.text import move_line, slash

LOCALES = ("en", "pt_BR", "vi")


def _in(locale: str, make) -> str:
    with i18n.using(locale):
        return make()


def _advice(action: str, **kw) -> Advice:
    kept = kw.pop("kept", ())
    return Advice("easy", Action("p1", action, **kw), kept)


HINTS = [
    # (advice, English, Portuguese, Vietnamese)
    (
        _advice("discard", cards=()),
        "💡 easy would stand pat here.",
        "💡 O nível fácil faria: ficar servido.",
        "💡 Máy trình độ dễ sẽ: giữ nguyên bài.",
    ),
    (
        _advice("discard", cards=tuple(parse_cards("Kc Qd")), kept=tuple(parse_cards("4d 2c As"))),
        "💡 easy would draw 2: keep 4♦ 2♣ A♠ here.",
        "💡 O nível fácil faria: trocar 2 e manter 4♦ 2♣ A♠.",
        "💡 Máy trình độ dễ sẽ: bốc 2 lá, giữ 4♦ 2♣ A♠.",
    ),
    (
        _advice("discard", cards=tuple(parse_cards("Kc Qd Jh Ts 9c"))),
        "💡 easy would draw five here.",
        "💡 O nível fácil faria: trocar as cinco.",
        "💡 Máy trình độ dễ sẽ: bốc cả năm lá.",
    ),
    (
        _advice("buy", source="left"),
        "💡 easy would buy the left card here.",
        "💡 O nível fácil faria: comprar a da esquerda.",
        "💡 Máy trình độ dễ sẽ: mua lá trái.",
    ),
    (
        _advice("buy", source="blind"),
        "💡 easy would buy blind here.",
        "💡 O nível fácil faria: comprar às cegas.",
        "💡 Máy trình độ dễ sẽ: mua lá mù.",
    ),
    (
        _advice("call"),
        "💡 easy would call here.",
        "💡 O nível fácil faria: pagar.",
        "💡 Máy trình độ dễ sẽ: theo.",
    ),
]


@pytest.mark.parametrize(("advice", "en", "pt", "vi"), HINTS)
def test_hints_read_as_sentences_in_each_language(advice, en, pt, vi) -> None:
    got = tuple(_in(loc, lambda: advice_text(advice)) for loc in LOCALES)
    assert got == (en, pt, vi)


def test_a_review_in_each_language() -> None:
    pat = Action("p1", "discard", cards=())
    review = PracticeReview(
        hand_id=12,
        level="normal",
        decisions=(
            Review(0, Action("p1", "call"), Advice("normal", Action("p1", "call"))),
            Review(
                1, Action("p1", "discard", cards=tuple(parse_cards("Kc"))), Advice("normal", pat)
            ),
            Review(2, Action("p1", "buy", source="right"), Advice("normal", Action("p1", "fold"))),
        ),
    )
    assert _in("pt_BR", lambda: review_text(review)).splitlines() == [
        "📘 Mão #12: suas decisões × nível normal",
        "1. Sua jogada: pagar. O nível normal faria o mesmo ✓",
        "2. Sua jogada: descartar K♣. O nível normal faria: ficar servido",
        "3. Sua jogada: comprar a da direita. O nível normal faria: desistir",
    ]
    assert _in("vi", lambda: review_text(review)).splitlines() == [
        "📘 Ván #12: các quyết định của bạn so với máy trình độ trung bình",
        "1. Bạn: theo. Máy trình độ trung bình cũng làm vậy ✓",
        "2. Bạn: bỏ K♣. Máy trình độ trung bình sẽ: giữ nguyên bài",
        "3. Bạn: mua lá phải. Máy trình độ trung bình sẽ: bỏ bài",
    ]
    assert _in("en", lambda: review_text(review)).splitlines()[2] == (
        "2. You: threw K♣. normal would stand pat"
    )


def _idle(count: int) -> str:
    return t("table.idle", count=count, limit=5, join="`/j`", deal="`/d`")


def _balance(count: int) -> str:
    return t("balance", balance=1200, available=1000, held=200, net=-4, count=count, refilled=0)


PLURALS = {
    "en": {
        "idle": [
            "Nobody seated yet (of 5). Join with `/j`, then `/d`.",
            "1 seated (of 5). Join with `/j`, then `/d`.",
            "2 seated (of 5). Join with `/j`, then `/d`.",
        ],
        "balance": ["No hand played yet", "-4 in 1 hand;", "-4 in 2 hands;"],
        "full": ["The table is full (1 seat).", "The table is full (2 seats)."],
    },
    "pt_BR": {
        "idle": [
            "Nenhum jogador sentado ainda (máx. 5). Entre com `/j`, depois `/d`.",
            "1 jogador sentado (máx. 5). Entre com `/j`, depois `/d`.",
            "2 jogadores sentados (máx. 5). Entre com `/j`, depois `/d`.",
        ],
        "balance": ["Nenhuma mão jogada ainda", "-4 em 1 mão;", "-4 em 2 mãos;"],
        "full": ["A mesa está cheia (1 lugar).", "A mesa está cheia (2 lugares)."],
    },
    "vi": {
        "idle": [
            "Chưa có ai ngồi (tối đa 5). Vào bàn bằng `/j`, rồi `/d`.",
            "1 người đã ngồi (tối đa 5). Vào bàn bằng `/j`, rồi `/d`.",
            "2 người đã ngồi (tối đa 5). Vào bàn bằng `/j`, rồi `/d`.",
        ],
        "balance": ["Chưa chơi ván nào", "-4 sau 1 ván;", "-4 sau 2 ván;"],
        "full": ["Bàn đã đủ người (1 ghế).", "Bàn đã đủ người (2 ghế)."],
    },
}


@pytest.mark.parametrize("locale", LOCALES)
def test_plurals_at_zero_one_and_two(locale) -> None:
    want = PLURALS[locale]
    assert [_in(locale, lambda n=n: _idle(n)) for n in (0, 1, 2)] == want["idle"]
    for n, part in zip((0, 1, 2), want["balance"], strict=True):
        assert part in _in(locale, lambda n=n: _balance(n)), (locale, n)
    full = [_in(locale, lambda n=n: t("refused.table_full", count=n)) for n in (1, 2)]
    assert full == want["full"]


# Plural messages whose count is never 0, and why; every other one needs a <key>.zero entry.
NEVER_ZERO = {
    "refused.table_full": "a table has at least two seats",
    "move.discard": "a draw of 0 is said by move.pat",
    "leaderboard.row": "the leaderboard lists players with hands played",
    "leaderboard.beyond": "there is always at least one page",
    "ago.minutes": "bot/ui/history_lines.py says at least 1 min",
    "ago.hours": "said from one hour on",
    "ago.days": "said from one day on",
    "stats.hands": "a player with no hands gets stats.none",
    "mtt.remind.post": "nobody registered is said by mtt.remind.post_nobody",
    "mtt.remind.dm": "a DM goes to a registered player: at least 1",
    "mtt.remind.cancelled": "nobody registered is said by mtt.remind.cancelled_nobody",
}


def test_every_plural_a_count_of_zero_reaches_says_zero_in_words() -> None:
    """Portuguese puts 0 in the singular ("Sua última 0 mão"): a message that can be said at
    0 has a zero form, in every language."""
    plurals = sorted(k for k, m in MESSAGES.items() if isinstance(m, Plural))
    assert set(NEVER_ZERO) <= set(plurals)
    missing = [k for k in plurals if k not in NEVER_ZERO and f"{k}.zero" not in MESSAGES]
    assert not missing, f"plural messages a count of 0 reaches, without a .zero entry: {missing}"
    fill = dict(limit=5, join="j", deal="d", balance=7, available=7, held=7, net=7, refilled=7)
    for key in [k for k in plurals if k not in NEVER_ZERO]:
        for locale in LOCALES:
            text = _in(locale, lambda k=key: t(k, count=0, **fill))
            assert not re.search(r"\b0\b", text), (locale, key, text)  # only the count is 0


def test_export_says_zero_and_one_hand_in_words() -> None:
    assert [_in("pt_BR", lambda n=n: t("export.mine", count=n)) for n in (0, 1, 2)] == [
        "Você ainda não tem mãos neste período; aqui está seu extrato, em arquivos.",
        "Sua última mão e seu extrato, em arquivos.",
        "Suas últimas 2 mãos e seu extrato, em arquivos.",
    ]
    assert _in("vi", lambda: t("export.server", count=0)) == (
        "Sổ chip của máy chủ (chưa có ván nào trong khoảng này; chỉ thông tin công khai)."
    )


def test_a_changed_setting_reads_right_whatever_its_name() -> None:
    """The name may be plural or an infinitive: "Canais para mesas agora é" did not agree."""
    with i18n.using("pt_BR"):
        lines = [
            t("settings.changed", name=t(name), value=value)
            for name, value in (("settings.channels", "<#1>"), ("settings.auto_deal", "ligado"))
        ]
    assert lines == ["Canais para mesas: agora <#1>.", "Dar cartas automaticamente: agora ligado."]


def _moves(name: str) -> list[Move]:
    return [
        Move(player="p1", name=name, action=a) for a in ("check", "bet", "call", "raise", "fold")
    ] + [
        Move(player="p1", name=name, action="discard", count=0),
        Move(player="p1", name=name, action="discard", count=2),
        Move(player="p1", name=name, action="buy", source="left", card=parse_cards("2c")[0]),
        Move(player="p1", name=name, action="buy", source="blind", card=parse_cards("Ad")[0]),
        Move(player="p1", name=name, action="fold", timeout=True),
    ]


# words that agree with the subject's gender: a move line must not need one
GENDERED = {
    "pt_BR": r"\b(servid[oa]s?|sentad[oa]s?|tirad[oa]s?|pront[oa]|ele|ela|sozinh[oa])\b",
    "vi": r"\b(anh ấy|chị ấy|ông ấy|bà ấy|cô ấy)\b",
}


STANDS_PAT = {"pt_BR": "Carol não troca nenhuma carta.", "vi": "Carol giữ nguyên bài."}


@pytest.mark.parametrize("locale", ["pt_BR", "vi"])
def test_no_move_line_needs_the_players_gender(locale) -> None:
    for carol, carlos in zip(_moves("Carol"), _moves("Carlos"), strict=True):
        line = _in(locale, lambda m=carol: move_line(m))
        assert line.replace("Carol", "Carlos") == _in(locale, lambda m=carlos: move_line(m))
        assert not re.search(GENDERED[locale], line, re.IGNORECASE), line
    # pt-BR was "Carol fica servido": masculine for every woman at the table
    pat = Move(player="p1", name="Carol", action="discard", count=0)
    assert _in(locale, lambda: move_line(pat)) == STANDS_PAT[locale]
    for key in ("event.kicked", "kick.now", "done.bot_left", "event.seated"):
        text = _in(locale, lambda k=key: t(k, name="Carol", seat=2))
        assert not re.search(GENDERED[locale], text, re.IGNORECASE), text


# Every label a button can carry, filled with the longest values it can get.
BUTTON_KEYS = [k for k in MESSAGES if k.startswith("button.")] + ["privacy.confirm_button"]
FILL = {"cost": "4", "card": "10♥", "price": "4"}


@pytest.mark.parametrize("locale", i18n.LOCALES)
def test_every_button_label_fits_a_phone(locale) -> None:
    for key in BUTTON_KEYS:
        with i18n.using(locale):
            sources = [t(f"source.{s}") for s in ("left", "right", "blind")]
            labels = [t(key, source=s, **FILL) for s in sources]
        for label in labels:
            assert len(label) <= 25, f"{locale} {key}: {label!r} ({len(label)} characters)"


# /rules against the seed cards (../shared/seeds): what each summary must say, per language
SEED_FACTS = {
    "rules.a6-draw": {  # the category order; no-pair hands compared from the top card
        "en": ["From best to worst: no pair, one pair", "8-6-4-3-2 beats 8-7-3-2-A"],
        "pt_BR": ["Da melhor para a pior: sem par, um par", "8-6-4-3-2 vence 8-7-3-2-A"],
        "vi": ["Từ tốt nhất đến tệ nhất: mậu thầu, đôi", "8-6-4-3-2 thắng 8-7-3-2-A"],
    },
    "rules.a5-draw": {  # paired hands ranked
        "en": ["one pair, two pair, three of a kind, full house", "pair of aces beats a pair"],
        "pt_BR": ["um par, dois pares, trinca, full house", "par de ases vence um par de duques"],
        "vi": ["đôi, thú, sám cô, cù lũ, tứ quý", "đôi Át thắng đôi 2"],
    },
    "rules.a5-triple": {  # what ace-to-five means; each draw clockwise from the dealer's left
        "en": ["aces are low", "2-3-4-5-6 is a six", "clockwise from the left of the dealer"],
        "pt_BR": [
            "os ases são baixos",
            "2-3-4-5-6 é um seis",
            "sentido horário a partir da esquerda do dealer",
        ],
        "vi": [
            "Át tính thấp",
            "2-3-4-5-6 là bài sáu cao",
            "chiều kim đồng hồ, bắt đầu từ bên trái dealer",
        ],
    },
    "rules.abyssinia": {  # who opens each betting round
        "en": ["opened by the first player still in left of the dealer"],
        "pt_BR": ["aberta pelo primeiro jogador ativo à esquerda do dealer"],
        "vi": ["do người đầu tiên còn chơi bên trái dealer mở"],
    },
}


@pytest.mark.parametrize("key", sorted(SEED_FACTS))
@pytest.mark.parametrize("locale", LOCALES)
def test_rules_say_what_the_seed_cards_say(key, locale) -> None:
    text = _in(locale, lambda: t(key))
    for fact in SEED_FACTS[key][locale]:
        assert fact in text, f"{key} ({locale}) lacks {fact!r}"


@pytest.mark.parametrize("locale", LOCALES)
def test_rules_of_the_draw_games_show_cards_in_symbols_with_the_letter_legend(locale) -> None:
    legend = {"en": "c = ♣ clubs", "pt_BR": "c = ♣ paus", "vi": "c = ♣ chuồn"}[locale]
    for game in ("a6-draw", "a5-draw", "a5-triple"):
        text = _in(locale, lambda g=game: t(f"rules.{g}"))
        assert "8♣ K♦" in text and legend in text and "h = ♥" in text, (game, locale)
    assert set(RULES_MESSAGES) >= {f"rules.{k}" for k in ("a6-draw", "a5-draw", "a5-triple")}


def test_messages_name_commands_as_the_readers_discord_lists_them() -> None:
    assert [_in(loc, lambda: slash("refill")) for loc in LOCALES] == [
        "`/refill`",
        "`/recarregar`",
        "`/nạp-chip`",
    ]
    assert _in("pt_BR", lambda: slash("privacy", "delete")) == "`/privacidade apagar`"
    assert _in("vi", lambda: slash("privacy", "delete")) == "`/quyền-riêng-tư xóa`"
    for key in ("done.seated.short", "privacy.delete_hint", "dm.closed"):  # no English name
        english = MESSAGES[key]
        assert isinstance(english, str) and "/" not in english.replace("{command}", ""), key


@pytest.mark.parametrize("locale", LOCALES)
def test_every_buy_word_the_bot_offers_is_one_it_accepts(locale) -> None:
    """The option's description, the refusal's list and the autocomplete all name places
    that /abyssinia buy then takes, in the reader's words ("esquerda", "mù")."""
    from bot.ui.autocomplete import parse_source

    english = "left, right or blind (the top card of the stub, price after)"
    described = i18n.command_text(locale, "parameter_description", english) or english
    offered = re.split(r",\s*|\s+(?:or|ou|hoặc)\s+", described.split(" (")[0])
    assert [parse_source(w) for w in offered] == ["left", "right", "blind"], offered
    for source in ("left", "right", "blind"):
        assert parse_source(_in(locale, lambda s=source: t(f"source.{s}"))) == source
        assert parse_source(source.upper()) == source
    assert parse_source("meio") is None and parse_source("") is None
