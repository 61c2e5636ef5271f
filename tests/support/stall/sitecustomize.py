"""Loaded by a child ``python`` whose PYTHONPATH starts with this folder: the network guard
(tests/support/netguard), and a stall in one import, so a test can stop the program there.

``STALL_IMPORT=NAME`` makes the first import of module NAME write ``stalled NAME`` to the
file named by ``STALL_LOG`` and then sleep ``STALL_SECONDS`` (default 60) before importing
it as usual: the program waits as it would on a very slow disk, until it is stopped.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import sys
import time
from pathlib import Path

_guard = Path(__file__).resolve().parent.parent / "netguard" / "sitecustomize.py"
_spec = importlib.util.spec_from_file_location("netguard_sitecustomize", _guard)
assert _spec is not None and _spec.loader is not None
_spec.loader.exec_module(importlib.util.module_from_spec(_spec))


class _Stall(importlib.abc.MetaPathFinder):
    def __init__(self, name: str, seconds: float, log: str) -> None:
        self.name, self.seconds, self.log = name, seconds, log

    def find_spec(self, fullname, path=None, target=None):  # type: ignore[no-untyped-def]
        if fullname == self.name:
            sys.meta_path.remove(self)  # once
            with open(self.log, "a", encoding="utf-8") as fh:
                fh.write(f"stalled {fullname}\n")
            time.sleep(self.seconds)
        return None  # then the usual finders import it


if os.environ.get("STALL_IMPORT"):
    sys.meta_path.insert(
        0,
        _Stall(
            os.environ["STALL_IMPORT"],
            float(os.environ.get("STALL_SECONDS", "60")),
            os.environ["STALL_LOG"],
        ),
    )
