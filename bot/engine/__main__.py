"""``python -m bot.engine replay FILE`` (``-`` for standard input): print the replayed state.

Whatever the input, the output is one JSON object in UTF-8 and the exit code says whether
the record replayed cleanly (0) or not (1); unreadable input is the header error.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import BinaryIO

from .replay import header_error, replay_bytes


def main(
    argv: list[str] | None = None, stdin: BinaryIO | None = None, stdout: BinaryIO | None = None
) -> int:
    parser = argparse.ArgumentParser(prog="python -m bot.engine")
    sub = parser.add_subparsers(dest="command", required=True)
    replay = sub.add_parser("replay", help="replay a hand record and print its state as JSON")
    replay.add_argument("file", help="the hand record JSON file, or - for standard input")
    args = parser.parse_args(argv)
    try:
        if args.file == "-":
            data = (stdin or sys.stdin.buffer).read()
        else:
            with open(args.file, "rb") as fh:
                data = fh.read()
    except OSError as exc:
        result = header_error(f"cannot read {args.file}: {exc.strerror or type(exc).__name__}")
    else:
        result = replay_bytes(data)
    # A file name from argv may hold undecodable bytes (as surrogates): escape, never fail.
    text = json.dumps(result, ensure_ascii=False).encode("utf-8", "backslashreplace")
    out = stdout or sys.stdout.buffer
    out.write(text + b"\n")
    out.flush()
    return 1 if result["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
