"""PNG encoding of the finished card images: unfiltered rows, deflated by zlib-ng."""

from __future__ import annotations

import struct

from PIL import Image
from zlib_ng import zlib_ng

#: zlib-ng's level 2 packs these images as small as the stdlib's zlib at level 1, in less
#: than half its time (the figures: docs/benchmarks.md, "Card images")
LEVEL = 2


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib_ng.crc32(kind + data))
    )


def to_png(img: Image.Image) -> bytes:
    """An RGB image as PNG: every row unfiltered, deflated at ``LEVEL``.

    Pillow's encoder picks a filter per row by trying all five, which cost more than the
    compression itself; these images are mostly flat felt, which zlib packs well unfiltered
    (the figures: docs/benchmarks.md, "Card images").
    """
    w, h = img.size
    pixels = memoryview(img.tobytes())
    stride = 3 * w
    z = zlib_ng.compressobj(LEVEL)
    idat = []
    for start in range(0, h * stride, stride):
        idat.append(z.compress(b"\0"))  # the row's filter type: none
        idat.append(z.compress(pixels[start : start + stride]))
    idat.append(z.flush())
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8-bit RGB, not interlaced
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _png_chunk(b"IHDR", header),
            _png_chunk(b"IDAT", b"".join(idat)),
            _png_chunk(b"IEND", b""),
        )
    )
