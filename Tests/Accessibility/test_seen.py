"""Seen as people see it (issue 32, item 4): the card form, a failed validation and the sheet in GTK's
default theme, its HighContrast theme, Adwaita's dark variant, and with text at twice its size (the X
resource `Xft.dpi` at 192, WCAG 1.4.4). In each, from the pixels the X server holds (pixels.py, never a
widget's own report):
- the error text, the invalid field's text and the fields' hints (placeholders) have a contrast of at
  least 4.5:1 against what is behind them (WCAG 1.4.3);
- every button, field and radio button is at least 24 by 24 pixels (WCAG 2.5.8, AT-SPI's extents).
With EGW_A11Y_SCREENSHOTS set (`make screenshots`), each view is also written there as a PNG."""
import os
import time
import unittest

import harness
import pixels
from harness import find, key, nodes, type_text

# A box's inside, away from an entry's border and focus ring (GTK 4.8 Adwaita: 1 px border, 2 px ring).
INSET = 5
# How far outside a control's AT-SPI box its focus ring may be drawn (an entry's inner text is 9 px inside
# its frame, and Adwaita's outline sits on the frame).
RING = 12
# Text at twice its size: the X resource a desktop's text-scaling setting comes down to (Xft.dpi, read by
# GTK at start when no XSETTINGS manager runs), 192 dpi for the usual 96.
LARGE_TEXT_RESOURCES = "Xft.dpi:\t192\n"


# (name, environment, X resources) of each way a buyer may see the windows.
VARIANTS = [("default", {}, None), ("high-contrast", {"GTK_THEME": "HighContrast"}, None),
            ("dark", {"GTK_THEME": "Adwaita:dark"}, None), ("large-text", {}, LARGE_TEXT_RESOURCES)]


class XResources:
    """The X server's resource database (the root window's RESOURCE_MANAGER) set for the duration of a
    `with`, removed after it: the private Xvfb of run.sh, so no desktop is touched."""

    def __init__(self, resources):
        self.resources = resources

    def __enter__(self):
        if self.resources:
            harness.x_tool("xprop", "-root", "-f", "RESOURCE_MANAGER", "8s", "-set", "RESOURCE_MANAGER", self.resources)
        return self

    def __exit__(self, *exc):
        if self.resources:
            harness.x_tool("xprop", "-root", "-remove", "RESOURCE_MANAGER")


def screen():
    """The screen now, once what was asked for has had time to be drawn (a frame or two)."""
    path = os.environ.get("EGW_A11Y_FRAMEBUFFER")
    if not path:
        raise unittest.SkipTest("no frame buffer (run through Tests/Accessibility/run.sh)")
    time.sleep(0.3)
    return pixels.Screen(path)


def window_origin(pid, title):
    """Where the X server put the window titled `title` (no window manager: nothing moves it)."""
    window = harness.x_window(pid, title)
    geometry = dict(line.split("=", 1) for line in harness.xdotool("getwindowgeometry", "--shell", window).split())
    return int(geometry["X"]), int(geometry["Y"]), int(geometry["WIDTH"]), int(geometry["HEIGHT"])


class SeenAsPeopleSee(harness.A11yTest):
    seconds = 240

    def setUp(self):
        super().setUp()
        self.shots = os.environ.get("EGW_A11Y_SCREENSHOTS")

    def shoot(self, app, title, name):
        """The window as the X server shows it, written to EGW_A11Y_SCREENSHOTS/name.png when set."""
        if not self.shots:
            return
        x, y, width, height = window_origin(app.process.pid, title)
        screen().save_png(os.path.join(self.shots, f"{name}.png"), x, y, width, height)

    def assert_text_contrast(self, app, title, node, what, minimum=4.5):
        """The text inside `node`'s box, as drawn, against the box's background: at least `minimum`."""
        ox, oy, _, _ = window_origin(app.process.pid, title)
        x, y, width, height = node.extents
        rows = screen().region(ox + x + INSET, oy + y + INSET, width - 2 * INSET, height - 2 * INSET)
        ratio, ink, background, colours = pixels.text_contrast(rows)
        self.assertGreater(colours, 2, f"nothing drawn in the box of {what} ({node.line()} at {node.extents})")
        self.assertGreaterEqual(ratio, minimum, f"{what}: text {ink} on {background} is {ratio:.2f}:1")
        if os.environ.get("EGW_A11Y_PRINT_CONTRAST"):
            print(f"  {what}: ink {ink} on {background} in {node.extents} + window {ox},{oy}")
        return ratio


    def assert_focus_visible(self, app, title, stops):
        """WCAG 2.4.7 and 1.4.11: Tab through `stops` controls; each, while focused, looks different from
        itself once focus has moved on, in a ring: at least its box's perimeter of pixels (within RING px
        around the box AT-SPI gives, where GTK draws the focus outline) change, the strongest change at
        least 3:1 (GTK 4.8's Adwaita ring, half-transparent accent blue, is 1.8:1; PaymentUI's `egwpay`
        rule makes it 5.5:1). Returns the weakest control's strongest change."""
        weakest = None
        for _ in range(stops):
            node = app.focused()
            self.assertIsNotNone(node, "something has the focus")
            ox, oy, _, _ = window_origin(app.process.pid, title)
            x, y, width, height = node.extents
            box = (ox + x - RING, oy + y - RING, width + 2 * RING, height + 2 * RING)
            focused = screen().region(*box)
            key("Tab")
            harness.wait_for("focus to move on", lambda: harness.focused_where(
                app, lambda n: (n.name, n.extents) != (node.name, node.extents)))
            unfocused = screen().region(*box)
            pairs = [(a, b) for row_a, row_b in zip(focused, unfocused) for a, b in zip(row_a, row_b) if a != b]
            self.assertGreaterEqual(len(pairs), 2 * (width + height),
                                    f"focus is not visible on {node.line()}: {len(pairs)} pixels change")
            strongest = max(pixels.contrast_ratio(a, b) for a, b in pairs)
            # WCAG 1.4.11: a state's indication (focus among them) at least 3:1 against what it replaces.
            self.assertGreaterEqual(strongest, 3.0, f"the focus ring on {node.line()} is {strongest:.2f}:1")
            weakest = strongest if weakest is None else min(weakest, strongest)
        return weakest

    def test_the_card_form_a_failed_validation_and_the_sheet_in_every_theme_and_at_twice_the_text_size(self):
        measured = []
        for variant, environment, resources in VARIANTS:
            with self.subTest(variant=variant), XResources(resources), harness.Gateway() as gateway, \
                    harness.Checkout("en", gateway.checkout_args(), env=environment) as app:
                measured.append((variant, self.check_variant(app, variant)))
        if os.environ.get("EGW_A11Y_PRINT_CONTRAST"):
            for variant, ratios in measured:
                print(f"\n{variant}: " + ", ".join(f"{what} {ratio:.1f}:1" for what, ratio in ratios))

    def check_variant(self, app, variant):
        text = app.text
        title = text["shop.name"]
        shop = app.shop()
        app.focus_shop()
        harness.wait_for("initial focus", app.focused)
        harness.assert_targets_at_least_24_by_24(self, nodes(shop))
        ratios = []
        # Focus visible on each of the form's seven stops (four fields, three buttons), Tab round to the start:
        # in the light and the dark theme (HighContrast draws its own solid ring; text size does not change it).
        if variant in ("default", "dark"):
            ratios.append(("focus ring (weakest)", self.assert_focus_visible(app, title, 7)))
        # The hints: each empty card field shows its placeholder (number, expiry, security code).
        for label in ("card.number.label", "card.expiry.label", "card.securityCode.label"):
            field = find(shop, lambda n, name=text[label]: n.role == "text" and n.name == name, text[label])
            ratios.append((f"hint in {text[label]}", self.assert_text_contrast(app, title, field, f"the hint of {label}")))
        self.shoot(app, title, f"card-form-empty-{variant}")
        # A failed validation: an expired card, sent with Enter.
        for value in ("Jane Doe", "4111111111111111", "0120", "123"):
            type_text(value)
            if value != "123":
                key("Tab")
        key("Return")
        error = find(shop, lambda n: n.role == "label" and n.name == text["card.error.expiry.expired"],
                     "the expiry's error text")
        ratios.append(("error text", self.assert_text_contrast(app, title, error, "the error text")))
        expiry = find(shop, lambda n: n.role == "text" and "invalid" in n.states, "the invalid expiry field")
        self.assertEqual(expiry.name, text["card.expiry.label"])
        # Focus selected the field's text and draws a caret in the theme's plain colour: Tab away, so what
        # is measured is the field's own (error) colour.
        key("Tab")
        harness.wait_for("focus off the expiry", lambda: harness.focused_where(app, lambda n: n.name != expiry.name))
        ratios.append(("invalid field's text", self.assert_text_contrast(app, title, expiry, "the invalid field's text")))
        check = find(shop, lambda n: n.role == "label" and n.name == text["shop.checkCard"], "the result line")
        ratios.append(("result line", self.assert_text_contrast(app, title, check, "the result line")))
        harness.assert_targets_at_least_24_by_24(self, nodes(shop))
        self.shoot(app, title, f"card-form-invalid-expiry-{variant}")
        # The sheet: every radio row, the coupon field and the buttons.
        harness.tab_to(app, lambda n: n.name == text["shop.pay.wallet"], "the wallet button")
        key("Return")
        sheet = app.window(lambda n: n.name == text["sheet.title"], "the sheet window")
        harness.focus_x_window(app.process.pid, text["sheet.title"])
        find(sheet, lambda n: n.role == "push button" and n.name.startswith(text["sheet.pay"].split("%@")[0].strip()),
             "the Pay button")
        tree = nodes(sheet)
        self.assertEqual(len([n for n in tree if n.role == "radio button"]), 6)
        harness.assert_targets_at_least_24_by_24(self, tree)
        self.shoot(app, text["sheet.title"], f"sheet-{variant}")
        # A coupon the merchant does not know: its error stands beside the coupon field.
        harness.tab_to(app, lambda n: n.name == text["sheet.coupon"], "the coupon field")
        type_text("NOPE")
        key("Return")
        refused = find(sheet, lambda n: n.role == "label" and n.name == text["sheet.error.coupon.invalid"],
                       "the coupon's error")
        ratios.append(("sheet's error", self.assert_text_contrast(app, text["sheet.title"], refused, "the sheet's error")))
        self.shoot(app, text["sheet.title"], f"sheet-coupon-refused-{variant}")
        key("Escape")
        return ratios


if __name__ == "__main__":
    unittest.main()
