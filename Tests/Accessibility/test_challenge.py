"""A card payment with the issuer's 3-D Secure challenge by keyboard alone: type the card in
egw-checkout, Enter pays, the WebKit challenge window opens (its title says whose page it is and that
its connection is secure), Tab to the code field, type the code, Enter; the result is read over AT-SPI
and the payment from the sandbox's own record. Escape on the challenge window is the buyer closing it."""
import re
import unittest
import urllib.parse

import harness
from harness import Node, find, key, type_text, wait_for

# The sandbox's test-card table: the Mastercard its issuer challenges, and the issuer's code.
CHALLENGED_CARD = "5555555555554444"
CHALLENGE_CODE = "1234"


def pay_by_card_and_open_the_challenge(test, app, gateway):
    app.focus_shop()
    first = wait_for("focus in the shop", app.focused)
    test.assertEqual(first.role, "text", "the form starts at its first field")
    for text in ("Jane Doe", CHALLENGED_CARD, "1235", "123"):  # name, number, expiry 12/35, security code
        type_text(text)
        if text != "123":
            key("Tab")
    key("Return")  # Enter in the last field pays
    shop_name = app.text["shop.name"]
    challenge = app.window(lambda n: n.role == "frame" and n.name != shop_name, "the challenge window")
    host = urllib.parse.urlsplit(gateway.checkout).hostname
    title = wait_for("the page's title", lambda: (lambda n: n if " — " in n.name else None)(Node(challenge))).name
    test.assertIn(host, title, "the title names the site whose page asks for the code")
    test.assertIn("https://", title, "and says its connection is secure")
    # GTK 4.8 cannot embed WebKit's tree of the page: the web view is one node, named as the window is,
    # never by its class ("WebKitWebView").
    view = find(challenge, lambda n: n.role == "filler", "the web view's node")
    test.assertEqual(view.name, title, f"the web view is read by the page's title and site: {view.line()}")
    for node in harness.readable_nodes(challenge):
        test.assertIsNone(re.match(r"^(Gtk|WebKit)[A-Z]\w*$", node.name), f"read out by its class: {node.line()}")
    harness.focus_x_window(app.process.pid, title)
    return challenge, title


class ChallengeKeyboard(harness.A11yTest):

    def test_a_keyboard_only_buyer_pays_by_card_through_the_challenge(self):
        with harness.Gateway() as gateway, harness.Checkout("en", gateway.checkout_args()) as app:
            pay_by_card_and_open_the_challenge(self, app, gateway)
            key("Tab")  # into the page: its first field is the code
            type_text(CHALLENGE_CODE)
            key("Return")
            shop = app.shop()
            text = app.text
            paid_line = text.format("shop.paid.card", text.money("20.50"))
            find(shop, lambda n: n.role == "label" and n.name == paid_line, f"the result line {paid_line!r}")
            paid = gateway.paid_payment_ids()
            self.assertEqual(len(paid), 1)
            record = gateway.record(paid[0])
            self.assertEqual((record["amount"], record["paymentStatus"]), (2050, "SETTLED"))
            self.assertEqual([(s["status"], s["last4"]) for s in record["cardSessions"]], [("COMPLETED", "4444")])
            # The sandbox's request log: the issuer's page was loaded and the code submitted by the page
            # (WebKit's requests, not the SDK's), then the SDK read the challenge's result.
            endpoints = [(e["endpoint"], e["status"]) for e in gateway.requests()]
            for step in ("acs-challenge", "acs-submit", "notification", "challenge-result"):
                self.assertIn((step, 200), endpoints, f"the sandbox saw {step}")
            submit = next(e for e in gateway.requests() if e["endpoint"] == "acs-submit")
            self.assertIn("AppleWebKit", submit["userAgent"], "the code came from the WebKit window")
            app.focus_shop()  # a window manager's part, once the page closed
            focused = wait_for("focus back in the shop", app.focused)
            self.assertEqual(focused.role, "text", "focus is back on the (emptied) form")

    def test_escape_on_the_challenge_window_is_the_buyer_closing_it(self):
        with harness.Gateway() as gateway, harness.Checkout("en", gateway.checkout_args()) as app:
            pay_by_card_and_open_the_challenge(self, app, gateway)
            key("Escape")
            shop = app.shop()
            cancelled = app.text["shop.cancelled"]
            find(shop, lambda n: n.role == "label" and n.name == cancelled,
                 f"the result line {cancelled!r}: closed by the buyer is cancelled (CONTRACT 4a)")
            self.assertEqual(app.window_names(), [app.text["shop.name"]])
            record = gateway.record(gateway.paid_payment_ids()[0])
            self.assertNotEqual(record["paymentStatus"], "SETTLED")
            self.assertNotIn("acs-submit", [e["endpoint"] for e in gateway.requests()], "no code was sent")


if __name__ == "__main__":
    unittest.main()
