"""PaymentSheetWindow (egw-checkout's "Pay with wallet") as a screen reader reads it, in every language
BuyerText has, and paid by keyboard alone: arrows change the shipping method, the coupon is applied
with Enter, Enter on Pay pays, Escape cancels. Each payment is read back from the sandbox's record."""
import re
import unittest

import harness
from harness import Node, find, key, nodes, type_text, wait_for



def open_sheet(app, text):
    app.focus_shop()
    harness.tab_to(app, lambda n: n.name == text["shop.pay.wallet"], "the wallet button")
    key("Return")
    sheet = app.window(lambda n: n.name == text["sheet.title"], "the sheet window")
    harness.focus_x_window(app.process.pid, text["sheet.title"])
    return sheet


def pay_label(text, amount):
    return text.format("sheet.pay", text.money(amount))


def shipping_label(text, key, amount):
    """A shipping choice as the sheet names it: `Standard (3-5 days): €0.00`."""
    return f"{text[key]} ({text[key + '.detail']}): {text.money(amount)}"


class SheetTree(harness.A11yTest):

    def test_every_control_of_the_sheet_is_named_in_the_buyers_language(self):
        for language in harness.languages():
            with self.subTest(language=language), harness.Gateway() as gateway, \
                    harness.Checkout(language, gateway.checkout_args()) as app:
                text = app.text
                sheet = open_sheet(app, text)
                pay = find(sheet, lambda n: n.role == "push button" and n.name == pay_label(text, "20.50"),
                           "the Pay button with its amount")
                tree = nodes(sheet)
                labels = [n.name for n in tree if n.role == "label"]
                for item, amount in harness.CART:  # the shop's cart, in the buyer's words
                    self.assertIn(text[item], labels)
                    self.assertIn(text.money(amount), labels)
                # The total is one sentence: whose total, how much, in which currency.
                self.assertIn(text.format("sheet.total.of", text["shop.name"]) + ": " + text.money("20.50"), labels)
                for title in ("sheet.shipping", "sheet.contact", "sheet.card"):
                    self.assertIn(text[title], labels)
                harness.assert_targets_at_least_24_by_24(self, tree)
                radios = [n for n in tree if n.role == "radio button"]
                self.assertEqual(len(radios), 6, "two shipping methods, two contacts, two cards")
                for radio in radios:
                    self.assertTrue({"focusable", "sensitive"} <= radio.states, radio.line())
                    self.assertRegex(radio.name, r"\S")
                shipping = [r for r in radios if r.name in (shipping_label(text, "shop.shipping.standard", "0"),
                                                            shipping_label(text, "shop.shipping.express", "4.99"))]
                self.assertEqual(len(shipping), 2, "each shipping choice says what it is, how fast, its price")
                self.assertEqual(sum("checked" in r.states for r in shipping), 1)
                coupon = [n for n in tree if n.role == "text"]
                self.assertEqual([n.name for n in coupon], [text["sheet.coupon"]])
                self.assertIn("activate", coupon[0].actions)
                buttons = {n.name: n for n in tree if n.role == "push button"}
                for name in (text["sheet.coupon.apply"] + " " + text["sheet.coupon"], text["sheet.cancel"],
                             pay.name):
                    self.assertIn(name, buttons)
                    self.assertIn("click", buttons[name].actions)
                    self.assertTrue({"focusable", "sensitive"} <= buttons[name].states)
                for node in harness.readable_nodes(sheet):
                    self.assertNotRegex(node.name, r"^Gtk[A-Z]", f"read out by its class: {node.line()}")
                    if "focusable" in node.states:
                        self.assertTrue(node.name.strip(), node.line())
                key("Escape")


class SheetKeyboard(harness.A11yTest):

    def test_a_keyboard_only_buyer_changes_shipping_applies_a_coupon_and_pays(self):
        with harness.Gateway() as gateway, harness.Checkout("en", gateway.checkout_args()) as app:
            text = app.text
            sheet = open_sheet(app, text)
            first = wait_for("the first shipping choice focused",
                             lambda: harness.focused_where(app, lambda n: n.role == "radio button"))
            self.assertIn("checked", first.states)
            key("Down")
            find(sheet, lambda n: n.name == pay_label(text, "25.49") and "sensitive" in n.states,
                 "the sheet ready with the total of express shipping")
            express = wait_for("the arrow's choice focused, checked and the sheet ready again", lambda: harness.focused_where(
                app, lambda n: n.role == "radio button" and n.name != first.name and "checked" in n.states))
            self.assertEqual(express.name, shipping_label(text, "shop.shipping.express", "4.99"))
            harness.tab_to(app, lambda n: n.role == "radio button" and "Riga" in n.name, "the first contact")
            key("space")
            wait_for("the contact chosen", lambda: harness.focused_where(app, lambda n: "checked" in n.states))
            find(sheet, lambda n: n.name == pay_label(text, "25.49") and "sensitive" in n.states, "the sheet ready")
            harness.tab_to(app, lambda n: n.name == text["sheet.coupon"], "the coupon field")
            type_text("SAVE10")
            key("Return")
            # 10 % off the goods (20.50 EUR): 2.05 EUR less.
            find(sheet, lambda n: n.name == pay_label(text, "23.44"), "the total with the coupon")
            harness.tab_to(app, lambda n: n.name == pay_label(text, "23.44"), "the Pay button")
            key("Return")
            shop = app.shop()
            paid_line = text.format("shop.paid.wallet", text.money("23.44"))
            result = find(shop, lambda n: n.role == "label" and n.name == paid_line, f"the result line {paid_line!r}")
            paid = gateway.paid_payment_ids()
            self.assertEqual(len(paid), 1, "one payment, paid once")
            record = gateway.record(paid[0])
            self.assertEqual((record["amount"], record["currency"], record["paymentStatus"]), (2344, "EUR", "SETTLED"))
            self.assertEqual([s["status"] for s in record["cardSessions"]], ["COMPLETED"])

    def test_escape_cancels_the_sheet_and_nothing_is_paid(self):
        with harness.Gateway() as gateway, harness.Checkout("en", gateway.checkout_args()) as app:
            text = app.text
            open_sheet(app, text)
            wait_for("focus in the sheet", lambda: harness.focused_where(app, lambda n: n.role == "radio button"))
            key("Escape")
            shop = app.shop()
            find(shop, lambda n: n.role == "label" and n.name == text["shop.cancelled"], "the result line")
            self.assertEqual(app.window_names(), [text["shop.name"]], "the sheet is gone")
            self.assertEqual(gateway.paid_payment_ids(), [])
            # The shop has the focus back, on the button that opened the sheet.
            app.focus_shop()
            wait_for("focus back in the shop", lambda: harness.focused_where(app, lambda n: n.role == "push button"))


if __name__ == "__main__":
    unittest.main()
