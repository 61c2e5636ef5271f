"""Hand and card names as players of each language say them."""

from __future__ import annotations

import pytest

from bot.engine.cards import parse_card, parse_cards
from bot.ui import i18n
from bot.ui.hand_names import card_name, hand_name, split_name

CASES = [
    # ranking, cards, English, Portuguese, Vietnamese
    ("a5", "5h 4h 3s 2d Ac", "5-4-3-2-A, the wheel", "5-4-3-2-A, o wheel", "5-4-3-2-A, wheel"),
    (
        "a5",
        "7s 5d 4c 3h 2s",
        "7-5-4-3-2, seven-five low",
        "7-5-4-3-2 (sete-cinco)",
        "7-5-4-3-2, 7-5 thấp",
    ),
    (
        "a6",
        "6c 4h 3s 2d Ac",
        "6-4-3-2-A, the number one",
        "6-4-3-2-A, a número um (a melhor)",
        "6-4-3-2-A, bài số một",
    ),
    (
        "a6",
        "5s 4d 3c 2h Ad",
        "the wheel, a five-high straight",
        "o wheel, sequência até o cinco",
        "wheel, sảnh 5",
    ),
    ("a6", "Ac Ad 3h 4s 5c", "pair of aces", "par de ases", "đôi Át"),
    ("a5", "Kc Kd 2h 3s 4c", "pair of kings", "par de reis", "đôi K"),
    ("high", "9s 9h 9d Kc 2c", "three nines", "trinca de noves", "sám cô 9"),
    (
        "high",
        "Kc Kd 4h 4s 9c",
        "two pair, kings and fours",
        "dois pares, reis e quatros",
        "thú K và 4",
    ),
    (
        "high",
        "9s 9h 9d 4c 4s",
        "full house, nines full of fours",
        "full house, noves com quatros",
        "cù lũ 9 đôi 4",
    ),
    ("high", "Qs Jd Tc 9h 8s", "queen-high straight", "sequência até a dama", "sảnh Q"),
    ("a6", "7s 5s 4s 3s As", "seven-high flush", "flush até o sete", "thùng 7"),
    ("high", "8s 5d 4c 3h Ad", "ace high", "carta alta (ás)", "mậu thầu Át"),
    ("high", "As Ks Qs Js Ts", "royal flush", "royal flush", "thùng phá sảnh lớn"),
    ("high", "9d 9c 9h 9s 2c", "four nines", "quadra de noves", "tứ quý 9"),
]


@pytest.mark.parametrize(("ranking", "cards", "en", "pt", "vi"), CASES)
def test_hand_names_in_each_language(ranking, cards, en, pt, vi) -> None:
    hand = parse_cards(cards)
    for locale, expected in (("en", en), ("pt_BR", pt), ("vi", vi)):
        with i18n.using(locale):
            assert hand_name(ranking, hand) == expected


def test_an_abyssinia_hand_is_named_high_and_low() -> None:
    with i18n.using("pt_BR"):
        assert split_name(parse_cards("8s 5d 4c 3h Ad")) == (
            "alta: carta alta (ás); baixa: 8-5-4-3-A (oito-cinco)"
        )


def test_cards_spelled_out_keep_their_symbols_elsewhere() -> None:
    names = {}
    for locale in i18n.LOCALES:
        with i18n.using(locale):
            names[locale] = card_name(parse_card("Ks")), card_name(parse_card("Th"))
    assert names == {
        "en": ("king of spades", "ten of hearts"),
        "pt_BR": ("rei de espadas", "dez de copas"),
        "vi": ("K bích", "10 cơ"),
    }
