"""bot/ui/cycles.py touches two discord.py internals: these fail the day discord.py renames
or changes them, instead of the work-arounds silently doing nothing."""

from __future__ import annotations

import io

import discord
from discord.utils import CachedSlotProperty

from bot.ui.cycles import RESPONSE_SLOT, PngFile, done_with


def test_interaction_caches_its_response_in_the_slot_done_with_deletes():
    prop = vars(discord.Interaction)["response"]
    assert isinstance(prop, CachedSlotProperty)
    assert prop.name == RESPONSE_SLOT
    assert RESPONSE_SLOT in discord.Interaction.__slots__


def test_file_close_still_rebinds_the_buffer_close_and_png_file_undoes_it():
    plain = discord.File(io.BytesIO(b"x"), filename="x.png")
    plain.close()
    assert "close" in vars(plain.fp)  # discord.py's re-binding: the cycle PngFile avoids
    png = PngFile(b"x", "x.png")
    png.close()
    assert "close" not in vars(png.fp)


def test_done_with_drops_the_cached_response():
    class Fake(discord.Interaction):  # only the slot matters here
        __slots__ = ()

    interaction = Fake.__new__(Fake)
    setattr(interaction, RESPONSE_SLOT, object())
    done_with(interaction)
    assert not hasattr(interaction, RESPONSE_SLOT)
    done_with(interaction)  # twice, or never asked for: nothing to break
