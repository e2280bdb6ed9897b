"""A card payment with the issuer's 3-D Secure challenge by keyboard alone: type the card in
egw-checkout, Enter pays, the WebKit challenge window opens (its title says whose page it is and that
its connection is secure), Tab to the code field, type the code, Enter; the result is read over AT-SPI
and the payment from the sandbox's own record. Escape on the challenge window is the buyer closing it."""
import unittest
import urllib.parse

import harness
from harness import Node, find, key, type_text, wait_for

# The sandbox's test-card table: the Mastercard its issuer challenges, and the issuer's code.
CHALLENGED_CARD = "5555555555554444"
CHALLENGE_CODE = "1234"


def pay_by_card_and_open_the_challenge(test, app, gateway):
    harness.focus_x_window(app.process.pid, "EGW shop")
    first = wait_for("focus in the shop", app.focused)
    test.assertEqual(first.role, "text", "the form starts at its first field")
    for text in ("Jane Doe", CHALLENGED_CARD, "1235", "123"):  # name, number, expiry 12/35, security code
        type_text(text)
        if text != "123":
            key("Tab")
    key("Return")  # Enter in the last field pays
    challenge = app.window(lambda n: n.role == "frame" and n.name != "EGW shop", "the challenge window")
    host = urllib.parse.urlsplit(gateway.sandbox.checkout).hostname
    title = wait_for("the page's title", lambda: (lambda n: n if " — " in n.name else None)(Node(challenge))).name
    test.assertIn(host, title, "the title names the site whose page asks for the code")
    test.assertIn("https://", title, "and says its connection is secure")
    harness.focus_x_window(app.process.pid, title)
    return challenge, title


class ChallengeKeyboard(unittest.TestCase):

    def test_a_keyboard_only_buyer_pays_by_card_through_the_challenge(self):
        with harness.Gateway() as gateway, harness.Checkout("en", gateway.checkout_args()) as app:
            pay_by_card_and_open_the_challenge(self, app, gateway)
            key("Tab")  # into the page: its first field is the code
            type_text(CHALLENGE_CODE)
            key("Return")
            shop = app.shop()
            result = find(shop, lambda n: n.role == "label" and n.name.startswith(("Paid", "Payment")), "the result")
            self.assertEqual(result.name, "Paid 20.50 EUR by card.")
            paid = gateway.paid_payment_ids()
            self.assertEqual(len(paid), 1)
            record = gateway.record(paid[0])
            self.assertEqual((record["amount"], record["paymentStatus"]), (2050, "SETTLED"))
            self.assertEqual([(s["status"], s["last4"]) for s in record["cardSessions"]], [("COMPLETED", "4444")])
            harness.focus_x_window(app.process.pid, "EGW shop")  # a window manager's part, once the page closed
            focused = wait_for("focus back in the shop", app.focused)
            self.assertEqual(focused.role, "text", "focus is back on the (emptied) form")

    def test_escape_on_the_challenge_window_is_the_buyer_closing_it(self):
        with harness.Gateway() as gateway, harness.Checkout("en", gateway.checkout_args()) as app:
            pay_by_card_and_open_the_challenge(self, app, gateway)
            key("Escape")
            shop = app.shop()
            result = find(shop, lambda n: n.role == "label" and n.name.startswith(("Paid", "Payment")), "the result")
            self.assertEqual(result.name, "Payment cancelled.", "closed by the buyer: cancelled (CONTRACT 4a)")
            self.assertEqual([Node(w).name for w in app.windows()], ["EGW shop"])
            record = gateway.record(gateway.paid_payment_ids()[0])
            self.assertNotEqual(record["paymentStatus"], "SETTLED")


if __name__ == "__main__":
    unittest.main()
