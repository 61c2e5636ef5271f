"""Write the example card images shown in the README: docs/images/hand.png and board.png.

Run from the repository root: ``python scripts/render_examples.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bot.engine.cards import parse_card, parse_cards  # noqa: E402
from bot.render.images import render_board, render_hand  # noqa: E402


def main() -> None:
    out = ROOT / "docs" / "images"
    out.mkdir(parents=True, exist_ok=True)
    hand = render_hand(parse_cards("As 10h 3d Kc Qs"), hidden=0)
    (out / "hand.png").write_bytes(hand)
    board = render_board(
        market=[("left", parse_card("2c"), 2), ("right", parse_card("Kd"), 1)],
        players=[
            ("Anna", parse_cards("9s 9h 9d Kc"), False),
            ("Ben", parse_cards("8s 5d 4c 3h"), False),
            ("Carla", parse_cards("Jh 7c"), True),
            ("Dũng", parse_cards("Ad 6s Th 2h"), False),
        ],
        pot=23,
        title="Abyssinia · round 4 · Ben to bet",
    )
    (out / "board.png").write_bytes(board)
    print(f"wrote {out / 'hand.png'} and {out / 'board.png'}")


if __name__ == "__main__":
    main()
