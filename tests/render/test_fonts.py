"""The bundled font draws every letter of the three languages and the suit symbols."""

from __future__ import annotations

import io
import tomllib

import pytest
from PIL import Image

from bot.engine.cards import parse_card, parse_cards
from bot.render.images import BoardLabels, render_board
from bot.render.lettering import FONT_DIR, FONT_FILES, font_at, has_glyph, safe_text
from tests.support.paths import ROOT

# Every Vietnamese letter with its tone marks, Portuguese accents, the suit symbols.
VIETNAMESE = (
    "aàáảãạăằắẳẵặâầấẩẫậbcdđeèéẻẽẹêềếểễệghiìíỉĩịklmnoòóỏõọôồốổỗộơờớởỡợpqrstuùúủũụưừứửữựvxyỳýỷỹỵ"
)
PORTUGUESE = "áàâãçéêíóôõúüÁÀÂÃÇÉÊÍÓÔÕÚ"
SYMBOLS = "♠♥♦♣·…—–₫"


@pytest.mark.parametrize("bold", [False, True])
def test_no_character_falls_back_to_the_missing_glyph_box(bold: bool) -> None:
    text = "Vòng 4 · Tố" + VIETNAMESE + VIETNAMESE.upper() + PORTUGUESE + SYMBOLS
    missing = [ch for ch in text if not has_glyph(ch, bold)]
    assert missing == []
    assert safe_text("Vòng 4 · Tố") == "Vòng 4 · Tố"  # drawn as written, nothing replaced


def test_the_missing_glyph_check_does_detect_a_missing_glyph() -> None:
    # DejaVu Sans has no CJK ideographs and no Hangul: the check must say so
    assert not has_glyph("漢")
    assert not has_glyph("한")
    assert safe_text("Ana 漢") == "Ana ?"


def test_decomposed_vietnamese_is_drawn_composed() -> None:
    decomposed = "To\u0302\u0301"  # "Tố" typed as base letters and combining marks
    assert safe_text(decomposed) == "Tố"


def test_a_vietnamese_title_draws_its_accents() -> None:
    """The title with accents paints more ink than the same letters without them."""
    market = [("trái", parse_card("2c"), 2), ("phải", parse_card("Kd"), 1)]
    players = [("Anna", parse_cards("9s 9h"), False)]
    labels = BoardLabels(pot="Pot {pot}", locale="vi")

    def title_ink(title: str) -> int:
        png = render_board(market, players, 12, title=title, labels=labels)
        img = Image.open(io.BytesIO(png)).convert("L").crop((0, 0, 300, 50))
        return sum(1 for v in img.tobytes() if v > 200)

    assert title_ink("Vòng 4 · Tố") > title_ink("Vong 4 · To")


def test_board_labels_are_drawn_in_the_table_language() -> None:
    market = [("trái", parse_card("2c"), 2)]
    players = [("Anna", parse_cards("9s"), True)]
    english = render_board(market, players, 1234)
    vietnamese = render_board(
        market,
        players,
        1234,
        labels=BoardLabels(
            pot="Pot {pot}",
            blind="mua mù",
            costs="giá {price}",
            costs_unknown="giá ?",
            folded="đã úp bài",
            locale="vi",
        ),
    )
    assert english != vietnamese


def test_font_files_and_licence_ship_inside_the_package() -> None:
    for name in FONT_FILES.values():
        assert (FONT_DIR / name).is_file()
        assert font_at(20).getname()[0] == "DejaVu Sans"
    assert "Bitstream" in (FONT_DIR / "LICENSE").read_text(encoding="utf-8")
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    package_data = pyproject["tool"]["setuptools"]["package-data"]
    assert "fonts/*" in package_data["bot.render"]
