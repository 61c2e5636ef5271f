"""Breaking the reference cycles discord.py leaves behind, in one place.

Each object below would otherwise wait for a full garbage collection, which stops the
event loop while it walks the whole heap; at thousands of table edits a minute that is
most of the loop's pauses (docs/benchmarks.md). Two of them touch discord.py internals:
``Interaction``'s cached slot ``_cs_response`` and ``File.close`` re-binding its buffer's
``close``. ``tests/ui/test_cycles.py`` fails the day discord.py renames or changes either,
instead of the work-around silently doing nothing.
"""

from __future__ import annotations

import contextlib
import io

import discord
from discord.ui.view import BaseView

#: the slot discord.py caches ``Interaction.response`` in (``utils.cached_slot_property``)
RESPONSE_SLOT = "_cs_response"


class PngFile(discord.File):
    """An image drawn in memory, to attach. discord.py's ``File.close()`` puts the buffer's
    own ``close`` back as an attribute of the buffer, a cycle (buffer -> its dict -> bound
    method -> buffer) that only a full garbage collection frees: one per image sent. The
    class's method is the same one, so the attribute is simply dropped."""

    def __init__(self, png: bytes, filename: str) -> None:
        super().__init__(io.BytesIO(png), filename=filename)

    def close(self) -> None:
        super().close()
        vars(self.fp).pop("close", None)


def let_go(ui: BaseView) -> None:
    """Drop a view of persistent (dynamic) items once it is sent. A click on them is matched by
    its custom_id, never through this object; but the view and its items point at each other,
    so left alone every view sent is a cycle that only the garbage collector's full passes
    free, with the event loop stopped (23 objects a table edit, thousands of edits a minute
    at 200 tables)."""
    if all(isinstance(item, discord.ui.DynamicItem) for item in ui.walk_children()):
        _drop(ui)


def _drop(ui: BaseView) -> None:
    ui.clear_items()  # the items no longer point back through the view's list
    ui.stop()


def done_with(interaction: discord.Interaction, ui: BaseView | None = None) -> None:
    """Let an answered interaction go. discord.py's Interaction and its InteractionResponse
    point at each other, so each interaction (with its user, member, message and followup
    webhook: about 35 objects) would wait for a full collection; so would the view
    discord.py builds from the clicked message to dispatch a button. Called only once the
    handler is done and discord.py will not look at the answer again."""
    with contextlib.suppress(AttributeError):  # never asked for: nothing to break
        delattr(interaction, RESPONSE_SLOT)
    if ui is not None:  # built for this one click (discord.py's View.from_message)
        _drop(ui)
