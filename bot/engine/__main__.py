"""``python -m bot.engine replay FILE`` (``-`` for standard input): print the replayed state."""

from __future__ import annotations

import argparse
import json
import sys

from .replay import header_error, replay_text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.engine")
    sub = parser.add_subparsers(dest="command", required=True)
    replay = sub.add_parser("replay", help="replay a hand record and print its state as JSON")
    replay.add_argument("file", help="the hand record JSON file, or - for standard input")
    args = parser.parse_args(argv)
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as fh:
                text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        text = None
        message = f"cannot read {args.file}: {exc.__class__.__name__}"
    result = replay_text(text) if text is not None else header_error(message)
    print(json.dumps(result, ensure_ascii=False))
    return 1 if result["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
