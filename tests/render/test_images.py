"""Card images (bot.render.images) and their text fallback (bot.render.plain_text)."""

from __future__ import annotations

import asyncio
import io
import itertools
import subprocess
import sys
import threading
from functools import partial

import pytest
from PIL import Image, ImageChops

from bot.engine.cards import FULL_DECK, parse_card, parse_cards
from bot.render import (
    board,
    board_text,
    captions,
    cards,
    cards_text,
    images,
    lettering,
    market_text,
    render_board,
    render_hand,
)
from bot.render.images import BoardLabels, render_hand_async
from bot.render.lettering import font_at
from bot.render.palette import MAX_WIDTH
from tests.support.paths import ROOT

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


def _clear_tile_caches() -> None:
    """Forget every cached tile, card, glyph check and encoded band, as in a freshly
    started bot."""
    cleared = set()
    for module in (board, cards, captions, lettering):
        for name, value in vars(module).items():
            if hasattr(value, "cache_clear") and not isinstance(value, type):
                value.cache_clear()
                cleared.add(f"{module.__name__.rsplit('.', 1)[1]}.{name}")
    # the caches that hold what a board is drawn from (so this can't quietly clear nothing)
    assert {"board._BANDS", "cards.card_tile", "captions.header_text"} <= cleared


def _eight_players(first_cards: str = "As Kd Qh Jc Ts") -> list:
    return [
        (
            "Dũng Nguyễn" if i == 3 else f"player{i}",
            parse_cards(first_cards if i == 0 else "2h 3c"),
            i == 5,
        )
        for i in range(8)
    ]


def test_board_from_cached_tiles_equals_the_board_drawn_from_nothing():
    portuguese = BoardLabels(
        pot="Pote {pot}", folded="desistiu", costs="custa {price}", locale="pt_BR"
    )
    market = [("left", parse_card("2c"), 2), ("right", None, None)]
    players = _eight_players()
    target = (market, players, 1234, "round 3", portuguese)
    # tiles of the same names, cards and words in other states, places and languages
    render_board(market, [(n, c, not f) for n, c, f in players], 1234, "round 3", portuguese)
    render_board(_market(), players[:3], 1234, "round 3")
    render_board(market, players[::-1], 1234, "round 3", portuguese)
    render_board(market, [(n, [*c, parse_card("9d")], f) for n, c, f in players], 1234)
    warm = render_board(*target)
    _clear_tile_caches()
    assert render_board(*target) == warm


def _changed_box(a: bytes, b: bytes) -> tuple[int, int, int, int]:
    box = ImageChops.difference(_open(a), _open(b)).getbbox()
    assert box is not None
    return box


def test_one_players_cards_change_only_their_row():
    base = render_board(_market(), _eight_players(), pot=40)
    header = _changed_box(base, render_board(_market(), _eight_players(), pot=41))
    market = _changed_box(
        base,
        render_board(
            [("left", parse_card("2c"), 2), ("right", None, None)], _eight_players(), pot=40
        ),
    )
    rows = []
    for i in range(8):
        players = _eight_players()
        name, _, folded = players[i]
        players[i] = (name, parse_cards("9s 9h 9d 9c"), folded)
        rows.append(_changed_box(base, render_board(_market(), players, pot=40)))
    assert header[3] <= market[1]  # the pot above the market
    for i, (left, top, right, bottom) in enumerate(rows):
        assert top >= market[3]  # every row below the market
        assert bottom - top <= 100  # within one row (cards 84 px high and their shadows)
        for other in rows[i + 1 :]:  # no two rows' changes touch each other
            assert left >= other[2] or right <= other[0] or bottom <= other[1] or top >= other[3]
    # two columns of four, filled column by column
    assert all(box[2] <= other[0] for box in rows[:4] for other in rows[4:])
    for column in (rows[:4], rows[4:]):
        assert all(upper[3] <= lower[1] for upper, lower in itertools.pairwise(column))
    assert [box[1] for box in rows[:4]] == [box[1] for box in rows[4:]]


def _draw_after(start: threading.Barrier, draws, out: list[bytes]) -> None:
    start.wait()
    out.extend(draw() for draw in draws)


def test_a_board_and_a_hand_drawn_in_two_threads_equal_them_drawn_in_turn():
    boards = [
        partial(
            render_board, _market(), [(f"Tố {k}", parse_cards("Ah 2c"), k % 2 == 0)], k, f"ván {k}"
        )
        for k in range(6)
    ]
    hands = [
        partial(render_hand, list(FULL_DECK[k : k + 5]), hidden=k % 2) for k in range(0, 30, 5)
    ]
    _clear_tile_caches()
    expected = [draw() for draw in boards], [draw() for draw in hands]
    for _ in range(3):
        _clear_tile_caches()  # every text and card drawn again, in both threads at once
        got: tuple[list[bytes], list[bytes]] = ([], [])
        start = threading.Barrier(2)

        threads = [
            threading.Thread(target=_draw_after, args=(start, boards, got[0])),
            threading.Thread(target=_draw_after, args=(start, hands, got[1])),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert got == expected
    # and each thread drew with its own FreeType faces (sharing them is not safe)
    faces: list[object] = []
    thread = threading.Thread(target=lambda: faces.append(font_at(60, bold=True)))
    thread.start()
    thread.join()
    assert faces[0] is not font_at(60, bold=True)
    assert font_at(60, bold=True) is font_at(60, bold=True)


async def test_a_hand_does_not_wait_behind_a_board_being_drawn():
    release = threading.Event()

    def slow_board() -> bytes:  # a board that takes as long as the test wants
        release.wait(30)
        return b""

    board = asyncio.ensure_future(images._BOARDS.get(("a slow board",), slow_board))
    try:
        await asyncio.sleep(0)  # the slow board is handed to its thread
        png = await asyncio.wait_for(render_hand_async(parse_cards("As Kd")), 10)
        assert _open(png).size == _open(render_hand(parse_cards("As Kd"))).size
        assert not board.done()
    finally:
        release.set()
        await board


def test_the_render_threads_end_with_the_process():
    script = (
        "import asyncio\n"
        "from bot.render.images import render_board_async, render_hand_async\n"
        "async def main():\n"
        "    await asyncio.gather(render_hand_async([]), render_board_async([], [], 0))\n"
        "asyncio.run(main())\n"
        "print('done')\n"
    )
    root = ROOT
    run = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout == "done\n"


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


def test_the_png_writer_keeps_every_pixel_and_every_chunk_checks():
    """The PNG writer's bytes (zlib-ng's deflate) read back, by Pillow and by the standard
    library's zlib, as exactly the pixels drawn, and Pillow finds every chunk's CRC right."""
    import struct
    import zlib

    from bot.render.png import to_png

    img = _open(render_board(_market(), _players(), 120, title="Table 7"))
    noise = Image.effect_noise(img.size, 64).convert("RGB")  # rows zlib cannot pack flat
    for picture in (img, noise, Image.new("RGB", (1, 1), (7, 8, 9))):
        png = to_png(picture)
        checked = Image.open(io.BytesIO(png))
        checked.verify()  # every chunk's CRC
        assert ImageChops.difference(_open(png), picture).getbbox() is None
        w, h = picture.size
        start = png.index(b"IDAT") + 4
        (length,) = struct.unpack(">I", png[start - 8 : start - 4])
        raw = zlib.decompress(png[start : start + length])
        rows = [raw[i * (3 * w + 1) : (i + 1) * (3 * w + 1)] for i in range(h)]
        assert all(row[0] == 0 for row in rows)  # unfiltered
        assert b"".join(row[1:] for row in rows) == picture.tobytes()


def _idat(png: bytes) -> bytes:
    import struct

    start = png.index(b"IDAT") + 4
    (length,) = struct.unpack(">I", png[start - 8 : start - 4])
    return png[start : start + length]


def test_an_image_deflated_in_bands_reads_back_whole_and_its_checksum_holds():
    """Bands of rows deflated apart and joined make one PNG: Pillow reads exactly the
    pixels, and the standard library's zlib, which checks the stream's Adler-32 (combined
    from the bands'), unpacks the rows."""
    import random
    import zlib

    from bot.render.png import deflate_rows, png_of_segments

    rng = random.Random(5)
    flat = _open(render_board(_market(), _eight_players(), 77, title="Table 8"))
    noise = Image.effect_noise((301, 157), 80).convert("RGB")
    for picture in (flat, noise, Image.new("RGB", (2, 1), (1, 2, 3))):
        w, h = picture.size
        for _ in range(6):
            cuts = sorted({0, h, *(rng.randrange(1, h) for _ in range(rng.randrange(4)) if h > 1)})
            segments = [
                deflate_rows(picture.crop((0, top, w, bottom)).tobytes(), w)
                for top, bottom in itertools.pairwise(cuts)
            ]
            png = png_of_segments(w, h, segments)
            Image.open(io.BytesIO(png)).verify()
            assert ImageChops.difference(_open(png), picture).getbbox() is None
            raw = zlib.decompress(_idat(png))  # raises on a wrong Adler-32
            assert raw == b"".join(
                b"\0" + picture.tobytes()[i * 3 * w : (i + 1) * 3 * w] for i in range(h)
            )


def test_a_layout_encoded_in_bands_is_the_picture_pasted_whole():
    """Tiles across the cuts, partly off the picture, and over each other: every band,
    drawn or taken from the cache, shows what pasting them on one canvas shows."""
    import random

    from bot.render.bands import BandCache, Layout

    rng = random.Random(11)
    tiles = [
        Image.effect_noise((rng.randrange(1, 60), rng.randrange(1, 50)), 40).convert("RGB")
        for _ in range(12)
    ]
    cache = BandCache(2**20)
    for _ in range(200):
        # few sizes, places and cuts, so that pictures often share some of them
        w, h = rng.choice(((100, 80), (120, 80), (100, 60)))
        whole = Image.new("RGB", (w, h), (22, 94, 58))
        layout = Layout(w, h, (22, 94, 58))
        for k in rng.sample(range(4), rng.randrange(0, 4)) + rng.sample(range(4, 12), 1):
            at = (rng.choice((-20, 0, 15, 30, 90)), rng.choice((-20, 0, 20, 40, 70)))
            whole.paste(tiles[k], at)
            layout.paste(tiles[k], ("noise", k), at)
        cuts = rng.sample((-5, 20, 30, 40, 60, 90), rng.randrange(4))
        for _ in range(2):  # drawn, then every band from the cache
            png = layout.png(cuts, cache)
            assert ImageChops.difference(_open(png), whole).getbbox() is None
    assert len(cache) > 0


def test_a_board_drawn_from_bands_seen_before_equals_it_drawn_from_nothing():
    """A table's boards, action after action (cards bought or changed, folds, the market,
    the pot, the seats and who sits in them), each the same bytes as when nothing at all
    was drawn before."""
    import random

    rng = random.Random(3)
    deck = list(FULL_DECK)
    players = [(f"p{i}", parse_cards("2h"), False) for i in range(8)]
    market = _market()
    pot = 10
    for step in range(60):
        kind = rng.randrange(7)
        i = rng.randrange(len(players))
        name, held, folded = players[i]
        if kind == 0 and len(held) < 5:
            players[i] = (name, [*held, rng.choice(deck)], folded)
        elif kind == 1:
            players[i] = (name, held, not folded)
        elif kind == 2:
            market = [("left", rng.choice([None, *deck]), rng.randrange(1, 5)), market[1]]
        elif kind == 3:
            players = players[: rng.randrange(2, 9)] or players
        elif kind == 4:  # the same number of cards, another one last
            players[i] = (name, [*held[:-1], rng.choice(deck)], folded)
        elif kind == 5:  # someone else in the seat
            players[i] = (f"q{step}", held, folded)
        pot += rng.randrange(0, 3)
        args = (market, list(players), pot, f"table {step % 3}")
        warm = render_board(*args)
        _clear_tile_caches()
        assert render_board(*args) == warm, step


def test_an_action_deflates_only_the_rows_it_changed():
    base = _eight_players()
    render_board(_market(), base, pot=40)
    before = len(board._BANDS)
    render_board(_market(), base, pot=40)  # the same board: nothing new
    assert len(board._BANDS) == before
    changed = list(base)
    changed[6] = (changed[6][0], parse_cards("9s 9h 9d"), False)
    render_board(_market(), changed, pot=40)  # one player's cards: their row of players
    assert len(board._BANDS) == before + 1
    render_board(_market(), changed, pot=41)  # the pot: the header
    assert len(board._BANDS) == before + 2
