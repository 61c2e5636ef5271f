"""Pictures pasted together from tiles and encoded band by band: a band of rows that shows
the same tiles at the same places as one encoded before is neither drawn nor deflated again.

An Abyssinia board changes one player's row and the pot per action, so most of its rows
are the last board's. Each tile is pasted with a key that says what it shows (the tile
function and its arguments: the tile caches draw the same pixels for the same ones), so
a band is known by its tiles' keys and places, and the cache holds deflated bytes only.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Sequence
from itertools import pairwise

from PIL import Image

from .png import Segment, deflate_rows, png_of_segments


class BandCache:
    """Deflated bands by what they show, least recently used out first, up to
    ``max_bytes`` of deflate data; safe to share between render threads."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self._items: OrderedDict[Hashable, Segment] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Hashable) -> Segment | None:
        with self._lock:
            segment = self._items.get(key)
            if segment is not None:
                self._items.move_to_end(key)
            return segment

    def put(self, key: Hashable, segment: Segment) -> None:
        with self._lock:
            if key in self._items:
                return
            self._items[key] = segment
            self.size += len(segment.data)
            while self.size > self.max_bytes and len(self._items) > 1:
                _, old = self._items.popitem(last=False)
                self.size -= len(old.data)

    def cache_clear(self) -> None:
        """Forget every band (as ``functools.lru_cache`` does, for tests)."""
        with self._lock:
            self._items.clear()
            self.size = 0


class Layout:
    """An RGB picture of ``width`` x ``height`` on ``background``, as the tiles pasted on
    it, in order, each with the key of what it shows; drawn only band by band, when
    encoded (``png``)."""

    def __init__(self, width: int, height: int, background: tuple[int, int, int]) -> None:
        self.width = width
        self.height = height
        self.background = background
        self.tiles: list[tuple[Image.Image, Hashable, int, int]] = []

    def paste(self, tile: Image.Image, key: Hashable, at: tuple[int, int]) -> None:
        """Put ``tile`` (RGB) with its top left corner at ``at``; ``key`` says what it shows:
        any tile pasted with an equal key has the same size and pixels."""
        self.tiles.append((tile, key, at[0], at[1]))

    def png(self, cuts: Sequence[int], cache: BandCache) -> bytes:
        """The picture as PNG, its rows cut into bands at ``cuts``; each band is taken
        from ``cache`` when it shows the same tiles at the same places, else drawn,
        deflated and kept there."""
        edges = sorted({0, self.height, *(c for c in cuts if 0 < c < self.height)})
        segments = []
        for top, bottom in pairwise(edges):
            inside = [
                (tile, what, x, y)
                for tile, what, x, y in self.tiles
                if y < bottom and y + tile.height > top and x < self.width and x + tile.width > 0
            ]
            key = (
                self.width,
                top,
                bottom,
                self.background,
                tuple((what, x, y) for _, what, x, y in inside),
            )
            segment = cache.get(key)
            if segment is None:
                band = Image.new("RGB", (self.width, bottom - top), self.background)
                for tile, _, x, y in inside:
                    band.paste(tile, (x, y - top))
                segment = deflate_rows(band.tobytes(), self.width)
                cache.put(key, segment)
            segments.append(segment)
        return png_of_segments(self.width, self.height, segments)
