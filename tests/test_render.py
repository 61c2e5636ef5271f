"""Card images (bot.render.images) and their text fallback (bot.render.text)."""

from __future__ import annotations

import io

import pytest
from PIL import Image

from bot.engine.cards import parse_card, parse_cards
from bot.render import board_text, cards_text, market_text, render_board, render_hand
from bot.render.images import MAX_WIDTH

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def _open(data: bytes) -> Image.Image:
    assert isinstance(data, bytes)
    assert data.startswith(PNG_MAGIC)
    img = Image.open(io.BytesIO(data))
    img.load()
    assert img.format == "PNG"
    return img.convert("RGB")


def _pixels(img: Image.Image):
    data = img.tobytes()
    return zip(data[0::3], data[1::3], data[2::3], strict=True)


def _red_pixels(img: Image.Image) -> int:
    return sum(1 for r, g, b in _pixels(img) if r > 150 and g < 90 and b < 90)


def _market():
    return [("left", parse_card("2c"), 2), ("right", parse_card("Kd"), 1)]


def _players():
    return [
        ("Anna", parse_cards("9s 9h 9d Kc 2c"), False),
        ("Ben", parse_cards("8s 5d 4c 3h Ad"), False),
        ("Carla", parse_cards("Jh"), True),
    ]


# ---------------------------------------------------------------- render_hand


def test_hand_is_png_and_grows_with_cards():
    one = _open(render_hand(parse_cards("As")))
    three = _open(render_hand(parse_cards("As Th 3d")))
    assert three.width > one.width
    assert three.height == one.height


def test_hidden_cards_add_backs():
    shown = _open(render_hand(parse_cards("As Th")))
    with_backs = _open(render_hand(parse_cards("As Th"), hidden=3))
    only_backs = _open(render_hand([], hidden=2))
    assert with_backs.width > shown.width
    assert only_backs.width == shown.width
    assert _red_pixels(only_backs) == 0  # backs are blue


def test_empty_hand_still_renders():
    img = _open(render_hand([]))
    assert img.width > 0 and img.height > 0


@pytest.mark.parametrize("card", ["Ah", "Td", "5h", "Qd"])
def test_red_cards_have_red_pixels(card):
    assert _red_pixels(_open(render_hand([parse_card(card)]))) > 200


@pytest.mark.parametrize("card", ["As", "Tc", "5s", "Kc"])
def test_black_cards_have_no_red_pixels(card):
    img = _open(render_hand([parse_card(card)]))
    assert _red_pixels(img) == 0
    dark = sum(1 for r, g, b in _pixels(img) if r < 60 and g < 60 and b < 60)
    assert dark > 200  # the black pips and rank are there


def test_hand_is_deterministic():
    cards = parse_cards("As Th 3d Kc")
    assert render_hand(cards, hidden=1) == render_hand(list(cards), hidden=1)


def test_every_card_renders_distinctly():
    from bot.engine.cards import FULL_DECK

    images = {render_hand([c]) for c in FULL_DECK}
    assert len(images) == 52


# ---------------------------------------------------------------- render_board


def test_board_is_png_of_discord_size():
    img = _open(render_board(_market(), _players(), pot=32, title="Abyssinia"))
    assert 0 < img.width <= MAX_WIDTH
    assert 0 < img.height <= 1200
    assert _red_pixels(img) > 0  # K♦ in the market, the red cards of Anna and Ben


def test_board_grows_with_players():
    small = _open(render_board(_market(), _players()[:2], pot=10))
    big = _open(render_board(_market(), _players(), pot=10))
    assert big.height > small.height


def test_board_eight_players_fit_width():
    players = [(f"player{i}", parse_cards("As Kd Qh Jc Ts"), i % 2 == 0) for i in range(8)]
    img = _open(render_board(_market(), players, pot=200, title="x" * 200))
    assert img.width <= MAX_WIDTH
    assert img.height <= 1000


def test_board_empty_slots_and_no_players():
    img = _open(render_board([("left", None, None), ("right", None, None)], [], pot=0))
    assert img.width > 0 and img.height > 0


def test_folded_player_is_greyed():
    black_only = [("left", parse_card("2c"), 2), ("right", parse_card("Ks"), 1)]
    hearts = parse_cards("Ah Kh Qh Jh Th")
    live = _open(render_board(black_only, [("Dana", hearts, False)], pot=5))
    folded = _open(render_board(black_only, [("Dana", hearts, True)], pot=5))
    assert _red_pixels(live) > 0
    assert _red_pixels(folded) == 0


def test_board_is_deterministic():
    a = render_board(_market(), _players(), pot=32, title="t")
    b = render_board(list(_market()), list(_players()), pot=32, title="t")
    assert a == b
    assert a != render_board(_market(), _players(), pot=33, title="t")


def test_names_outside_the_font_do_not_crash():
    players = [("Dũng Nguyễn", parse_cards("2h"), False), ("東京 🎲", [], False)]
    _open(render_board(_market(), players, pot=3))


# ---------------------------------------------------------------- text fallback


def test_cards_text():
    assert cards_text(parse_cards("As Th 3d")) == "A♠ 10♥ 3♦"
    assert cards_text([]) == "—"
    assert cards_text(parse_cards("Kc"), hidden=2) == "K♣ ?? ??"


def test_cards_text_round_trips_through_parser():
    cards = parse_cards("As Th 3d 9c")
    assert parse_cards(cards_text(cards)) == cards


def test_market_text():
    text = market_text(_market())
    assert text == "Market: left 2♣ (2) · right K♦ (1) · blind ??"
    assert "left empty" in market_text([("left", None, None)])


def test_board_text():
    text = board_text(_market(), _players(), pot=32, title="Abyssinia")
    assert text.splitlines() == [
        "Abyssinia",
        "Pot: 32",
        "Market: left 2♣ (2) · right K♦ (1) · blind ??",
        "Anna: 9♠ 9♥ 9♦ K♣ 2♣",
        "Ben: 8♠ 5♦ 4♣ 3♥ A♦",
        "Carla: J♥ (folded)",
    ]
