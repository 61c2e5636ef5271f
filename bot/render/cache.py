"""Finished PNGs cached by their inputs, drawn on a render thread off the event loop."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Hashable
from concurrent.futures import ThreadPoolExecutor


class ImageCache:
    """Finished PNGs by their inputs, least recently used out first, drawn on ``pool``;
    used on the loop only.

    An image being drawn is shared too: when the render thread is behind, many replies
    ask for the same unchanged hand, and each would otherwise queue its own drawing."""

    def __init__(self, size: int, pool: ThreadPoolExecutor) -> None:
        self.size = size
        self.pool = pool
        self.items: OrderedDict[Hashable, bytes] = OrderedDict()
        self.drawing: dict[Hashable, asyncio.Future[bytes]] = {}

    async def get(self, key: Hashable, draw: Callable[[], bytes]) -> bytes:
        png = self.items.get(key)
        if png is None:
            pending = self.drawing.get(key)
            if pending is None:
                pending = asyncio.get_running_loop().run_in_executor(self.pool, draw)
                self.drawing[key] = pending
                try:
                    png = await asyncio.shield(pending)  # a cancelled reply stops no other
                finally:
                    del self.drawing[key]
                self.items[key] = png
                if len(self.items) > self.size:
                    self.items.popitem(last=False)
            else:
                png = await asyncio.shield(pending)
                if key not in self.items:
                    return png  # dropped again meanwhile: nothing to refresh
        self.items.move_to_end(key)
        return png
