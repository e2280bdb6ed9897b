"""pixels.py against values computed by hand and published ones, so the contrast figures the suite
reports rest on something it did not write: WCAG 2.2's own end points (21:1, 1:1), the threshold grey
WebAIM's contrast checker gives (#767676 on white 4.54:1, #777777 4.48:1), a hand-built XWD frame
buffer read back pixel by pixel, and a PNG decoded by zlib."""
import os
import struct
import tempfile
import unittest
import zlib

import pixels


def xwd(width, height, rows, little=True):
    """A minimal 32-bit ZPixmap XWD file as Xvfb -fbdir writes one (no colour map, no name)."""
    header = [100, 7, 2, 24, width, height, 0, 0 if little else 1, 32, 0, 32, 32, width * 4, 4,
              0xFF0000, 0x00FF00, 0x0000FF, 8, 256, 0, width, height, 0, 0, 0]
    body = b"".join((r << 16 | g << 8 | b).to_bytes(4, "little" if little else "big") for row in rows for r, g, b in row)
    return struct.pack(">25I", *header) + body


class ContrastTests(unittest.TestCase):
    def test_the_end_points_and_the_threshold_grey(self):
        self.assertAlmostEqual(pixels.contrast_ratio((0, 0, 0), (255, 255, 255)), 21.0, places=6)
        self.assertAlmostEqual(pixels.contrast_ratio((255, 255, 255), (0, 0, 0)), 21.0, places=6)
        self.assertAlmostEqual(pixels.contrast_ratio((90, 90, 90), (90, 90, 90)), 1.0, places=6)
        self.assertAlmostEqual(pixels.contrast_ratio((0x76,) * 3, (255,) * 3), 4.54, places=2)
        self.assertAlmostEqual(pixels.contrast_ratio((0x77,) * 3, (255,) * 3), 4.48, places=2)

    def test_the_luminance_of_the_primaries_is_their_weight(self):
        self.assertAlmostEqual(pixels.relative_luminance((255, 0, 0)), 0.2126, places=6)
        self.assertAlmostEqual(pixels.relative_luminance((0, 255, 0)), 0.7152, places=6)
        self.assertAlmostEqual(pixels.relative_luminance((0, 0, 255)), 0.0722, places=6)

    def test_text_contrast_takes_the_commonest_colour_as_background_and_the_farthest_as_ink(self):
        white, grey, black = (255, 255, 255), (200, 200, 200), (0, 0, 0)
        rows = [[white] * 6, [white, black, grey, white, white, white], [white] * 6]
        ratio, ink, background, colours = pixels.text_contrast(rows)
        self.assertEqual((ink, background, colours), (black, white, 3))
        self.assertAlmostEqual(ratio, 21.0, places=6)
        self.assertEqual(pixels.text_contrast([[white] * 3])[3], 1, "an empty box has one colour")


class FrameBufferTests(unittest.TestCase):
    def test_an_xwd_frame_buffer_reads_back_pixel_by_pixel_in_either_byte_order(self):
        rows = [[(1, 2, 3), (250, 128, 0)], [(0, 0, 255), (17, 34, 51)]]
        for little in (True, False):
            with tempfile.NamedTemporaryFile() as f:
                f.write(xwd(2, 2, rows, little))
                f.flush()
                screen = pixels.Screen(f.name)
                self.assertEqual((screen.width, screen.height), (2, 2))
                self.assertEqual(screen.region(0, 0, 2, 2), rows)
                self.assertEqual(screen.region(1, 1, 5, 5), [[(17, 34, 51)]], "clipped to the screen")

    def test_a_png_decodes_to_the_rows_written(self):
        rows = [[(255, 0, 0), (0, 255, 0)], [(0, 0, 255), (9, 8, 7)]]
        with tempfile.TemporaryDirectory() as scratch:
            path = os.path.join(scratch, "a.png")
            pixels.write_png(path, rows)
            with open(path, "rb") as f:
                data = f.read()
        self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
        width, height, depth, colour = struct.unpack(">IIBB", data[16:26])
        self.assertEqual((width, height, depth, colour), (2, 2, 8, 2))
        start = data.index(b"IDAT")
        length = struct.unpack(">I", data[start - 4:start])[0]
        raw = zlib.decompress(data[start + 4:start + 4 + length])
        self.assertEqual(raw, b"\x00\xff\x00\x00\x00\xff\x00" + b"\x00\x00\x00\xff\x09\x08\x07")


if __name__ == "__main__":
    unittest.main()
