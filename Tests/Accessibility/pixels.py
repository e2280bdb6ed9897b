"""What the screen shows, read from the X server's own frame buffer (Xvfb -fbdir, an XWD file), never
from a widget: colours, WCAG contrast ratios, and PNG crops of windows for docs/screenshots.

Only the standard library: the XWD header is read as X11's XWDFile.h lays it out (big-endian CARD32s),
PNG is written as RFC 2083 describes it (8-bit RGB, filter 0, zlib), and the contrast ratio and the
relative luminance are WCAG 2.2's definitions (Understanding SC 1.4.3), written out below.
"""
import os
import struct
import zlib
from collections import Counter

# XWDFileHeader: 25 CARD32 fields; these are the ones a 24/32-bit ZPixmap needs.
_FIELDS = ("header_size", "file_version", "pixmap_format", "pixmap_depth", "pixmap_width", "pixmap_height",
           "xoffset", "byte_order", "bitmap_unit", "bitmap_bit_order", "bitmap_pad", "bits_per_pixel",
           "bytes_per_line", "visual_class", "red_mask", "green_mask", "blue_mask", "bits_per_rgb",
           "colormap_entries", "ncolors", "window_width", "window_height", "window_x", "window_y",
           "window_bdrwidth")
_XWD_COLOR_SIZE = 12  # CARD32 pixel, CARD16 red, green, blue, CARD8 flags, pad


class Screen:
    """One frame of the X server's screen: `pixel(x, y)` is an (r, g, b) of 0-255."""

    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        header = dict(zip(_FIELDS, struct.unpack(">25I", data[:100])))
        if header["file_version"] != 7 or header["pixmap_format"] != 2 or header["bits_per_pixel"] != 32:
            raise ValueError(f"not a 32-bit ZPixmap XWD frame buffer: {header}")
        self.width, self.height = header["pixmap_width"], header["pixmap_height"]
        self.stride = header["bytes_per_line"]
        self.offset = header["header_size"] + header["ncolors"] * _XWD_COLOR_SIZE
        self.little = header["byte_order"] == 0  # LSBFirst
        self.masks = (header["red_mask"], header["green_mask"], header["blue_mask"])
        self.data = data

    def pixel(self, x, y):
        start = self.offset + y * self.stride + x * 4
        value = int.from_bytes(self.data[start:start + 4], "little" if self.little else "big")
        return tuple((value & mask) >> ((mask & -mask).bit_length() - 1) for mask in self.masks)

    def region(self, x, y, width, height):
        """The pixels of a rectangle (clipped to the screen), row by row."""
        x0, y0 = max(0, x), max(0, y)
        x1, y1 = min(self.width, x + width), min(self.height, y + height)
        return [[self.pixel(i, j) for i in range(x0, x1)] for j in range(y0, y1)]

    def save_png(self, path, x, y, width, height):
        rows = self.region(x, y, width, height)
        write_png(path, rows)


def write_png(path, rows):
    """`rows` of (r, g, b) as an 8-bit RGB PNG."""
    height, width = len(rows), len(rows[0]) if rows else 0
    raw = b"".join(b"\x00" + bytes(c for p in row for c in p) for row in rows)

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "wb") as f:
        f.write(png)


def relative_luminance(rgb):
    """WCAG 2.2: L = 0.2126 R + 0.7152 G + 0.0722 B of the linearised sRGB channels."""
    def linear(channel):
        c = channel / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a, b):
    """WCAG 2.2: (L1 + 0.05) / (L2 + 0.05), the lighter over the darker; 1 to 21."""
    la, lb = sorted((relative_luminance(a), relative_luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def text_contrast(rows):
    """The contrast of text drawn in `rows` (a label's box): the background is the box's most common
    colour, the text's colour the pixel that differs from it most (the full-ink middle of a stem; the
    anti-aliased edges lie between the two). Also the number of distinct colours, so a caller can tell
    a box with text in it from an empty one (1: nothing drawn there)."""
    counts = Counter(p for row in rows for p in row)
    if not counts:
        return 1.0, None, None, 0
    background = counts.most_common(1)[0][0]
    ink = max(counts, key=lambda p: contrast_ratio(p, background))
    return contrast_ratio(ink, background), ink, background, len(counts)
