"""Where the cogs are: ``bot.cogs`` once installed, the top-level ``cogs`` of a checkout.

The repository keeps its cogs in a top-level ``cogs/`` folder, but installing the project
maps that folder to ``bot.cogs`` (see setup.py), so no generic ``cogs`` package lands in
site-packages. Extension names are written ``cogs.<name>`` and resolved here.
"""

from __future__ import annotations

import importlib.util

COGS_PACKAGE = "bot.cogs" if importlib.util.find_spec("bot.cogs") is not None else "cogs"


def extension_name(name: str) -> str:
    """``cogs.a6_draw`` -> the importable name of that extension in this installation."""
    package, dot, rest = name.partition(".")
    return f"{COGS_PACKAGE}.{rest}" if package == "cogs" and dot else name
