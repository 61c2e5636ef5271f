"""PNG encoding of the finished card images: unfiltered rows, deflated by zlib-ng, whole
or as bands of rows deflated apart (``Segment``) and joined into one image."""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image
from zlib_ng import zlib_ng

#: zlib-ng's level 2 packs these images as small as the stdlib's zlib at level 1, in less
#: than half its time (the figures: docs/benchmarks.md, "Card images")
LEVEL = 2
_ADLER_BASE = 65521
# A zlib stream's header (deflate, 32 kB window, no preset dictionary) and the empty last
# block that ends the deflate data after the segments.
_ZLIB_HEADER = b"\x78\x01"
_LAST_BLOCK = b"\x03\x00"


@dataclass(frozen=True)
class Segment:
    """Rows of an image, each behind its filter byte, as raw deflate data that ends on a
    byte boundary with no final block (so segments can follow each other in one stream),
    with the Adler-32 and the length of those filtered bytes."""

    data: bytes
    adler: int
    length: int


def deflate_rows(pixels: bytes | memoryview, width: int) -> Segment:
    """RGB rows, ``width`` pixels each, unfiltered, as a ``Segment`` of their own.

    Pillow's encoder picks a filter per row by trying all five, which cost more than the
    compression itself; these images are mostly flat felt, which zlib packs well unfiltered
    (the figures: docs/benchmarks.md, "Card images").
    """
    view = memoryview(pixels)
    stride = 3 * width
    z = zlib_ng.compressobj(LEVEL, zlib_ng.DEFLATED, -15)  # raw: the stream is ours
    out = []
    adler = 1
    for start in range(0, len(view), stride):
        row = view[start : start + stride]
        out.append(z.compress(b"\0"))  # the row's filter type: none
        out.append(z.compress(row))
        adler = zlib_ng.adler32(row, zlib_ng.adler32(b"\0", adler))
    # A sync flush ends the data on a byte boundary without a final block; the next
    # segment's compressor starts afresh, so it refers to nothing before it.
    out.append(z.flush(zlib_ng.Z_SYNC_FLUSH))
    return Segment(b"".join(out), adler, len(view) + len(view) // stride)


def _adler_combine(first: int, second: int, second_length: int) -> int:
    """The Adler-32 of two byte strings one after the other, from theirs (as zlib's
    ``adler32_combine``)."""
    s1 = ((first & 0xFFFF) + (second & 0xFFFF) - 1) % _ADLER_BASE
    s2 = ((first >> 16) + (second >> 16) + second_length * ((first & 0xFFFF) - 1)) % _ADLER_BASE
    return (s2 << 16) | s1


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return (
        struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib_ng.crc32(kind + data))
    )


def png_of_segments(width: int, height: int, segments: Sequence[Segment]) -> bytes:
    """An 8-bit RGB PNG of ``width`` x ``height`` from its rows' segments, top to bottom."""
    adler = 1
    for segment in segments:
        adler = _adler_combine(adler, segment.adler, segment.length)
    idat = b"".join(
        (
            _ZLIB_HEADER,
            *(segment.data for segment in segments),
            _LAST_BLOCK,
            struct.pack(">I", adler),
        )
    )
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, not interlaced
    return b"".join(
        (
            b"\x89PNG\r\n\x1a\n",
            _png_chunk(b"IHDR", header),
            _png_chunk(b"IDAT", idat),
            _png_chunk(b"IEND", b""),
        )
    )


def to_png(img: Image.Image) -> bytes:
    """An RGB image as PNG: every row unfiltered, deflated at ``LEVEL``."""
    w, h = img.size
    return png_of_segments(w, h, [deflate_rows(img.tobytes(), w)])
