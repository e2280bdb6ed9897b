"""egw-checkout's card form as a screen reader reads it and as a keyboard-only buyer uses it, in every
language BuyerText has: names from BuyerText's tables, roles, states, actions, Tab in visual order,
and errors a person can find (focus on the first invalid field, its description says what is wrong)."""
import os
import re
import unittest
from decimal import Decimal

import harness
from harness import Node, find, key, nodes, type_text

CARD_KEYS = ["card.number.label", "card.expiry.label", "card.securityCode.label"]
SHOP_BUTTONS = ["shop.pay.card", "shop.pay.wallet", "shop.pay.hosted"]
# A GTK class name read out as a name (an unnamed label or widget): never a word for a buyer.
CLASS_NAME = re.compile(r"^Gtk[A-Z]\w*$")


def card_form_lines(shop):
    """The shop window's tree as read, from the window down (printed by EGW_A11Y_PRINT_TREE=1)."""
    return harness.dump(shop)


class CardFormTree(harness.A11yTest):
    """The tree of the card form (the SDK's three entries and the shop's cardholder-name entry)."""

    def test_every_language_names_every_card_field_from_buyer_text(self):
        for language in harness.languages():
            with self.subTest(language=language), harness.Checkout(language) as app:
                text = app.text
                shop = app.shop()
                if os.environ.get("EGW_A11Y_PRINT_TREE"):
                    print(f"\n--- the card form over AT-SPI, {language} ---\n" + "\n".join(card_form_lines(shop)))
                self.assertEqual(Node(app.app).name, os.path.basename(harness.CHECKOUT_BIN), "announced by its name, not Unnamed")
                tree = nodes(shop)
                for node in harness.readable_nodes(shop):
                    self.assertIsNone(CLASS_NAME.match(node.name), f"a widget read out by its class: {node.line()}")
                    if "focusable" in node.states:
                        self.assertTrue(node.name.strip(), f"a focusable control without a name: {node.line()}")
                entries = [n for n in tree if n.role == "text" and "editable" in n.states]
                names = [n.name for n in entries]
                for k in CARD_KEYS:
                    self.assertIn(text[k], names, f"{k} in {language}")
                for entry in entries:
                    self.assertTrue({"focusable", "sensitive", "editable"} <= entry.states, entry.line())
                    self.assertNotIn("invalid", entry.states, entry.line())
                    self.assertEqual(entry.description, "", "no error before the buyer sends the form")
                    self.assertIn("activate", entry.actions, entry.line())
                harness.assert_targets_at_least_24_by_24(self, tree)
                buttons = [n for n in tree if n.role == "push button"]
                self.assertEqual([b.name for b in buttons], [text[k] for k in SHOP_BUTTONS], "pay by card, with the wallet, hosted")
                for button in buttons:
                    self.assertTrue({"focusable", "sensitive"} <= button.states, button.line())
                    self.assertIn("click", button.actions, button.line())
                # The shop's own words are the buyer's language too: the cart, its items, the total as a
                # sentence with its currency, the card heading and the name field.
                labels = [n.name for n in tree if n.role == "label"]
                cart = harness.CART
                self.assertIn(text.format("shop.cart", text.plural("shop.cart.items", len(cart))), labels)
                for item, amount in cart:
                    self.assertIn(f"{text[item]}: {text.money(amount)}", labels)
                total = sum(Decimal(amount) for _, amount in cart)
                self.assertIn(text.format("shop.total", text.money(total)), labels)
                self.assertIn(text["shop.card"], labels)
                self.assertEqual(names[0], text["shop.cardholderName"], "the name field first")


class CardFormKeyboard(harness.A11yTest):
    """The card form by keyboard alone (XTest key events), read back only over AT-SPI."""

    def test_tab_follows_the_visual_order_and_wraps_without_a_trap(self):
        for language in ("en", "lv"):
            with self.subTest(language=language), harness.Checkout(language) as app:
                self._tab_round(app)

    def _tab_round(self, app):
        if True:
            shop = app.shop()
            app.focus_shop()
            focusables = [n for n in nodes(shop) if "focusable" in n.states and "visible" in n.states
                          and "sensitive" in n.states and n.extents]
            # Reading order: rows top to bottom, then left to right within a row.
            visual = [n.name for n in sorted(focusables, key=lambda n: (n.extents[1], n.extents[0]))]
            first = harness.wait_for("initial focus", app.focused)
            order = [first.name]
            for _ in range(len(visual)):
                key("Tab")
                order.append(harness.wait_for("focus after Tab", lambda: self._moved(app, order[-1])).name)
            self.assertEqual(order[:len(visual)], self._rotated(visual, first.name), "Tab follows what is seen")
            self.assertEqual(order[len(visual)], first.name, "Tab comes back round: no keyboard trap")
            fields = [n.name for n in nodes(shop) if n.role == "text" and "editable" in n.states]
            self.assertEqual(len(fields), 4, "the name, the number, the expiry and the security code")
            for field in fields:
                self.assertIn(field, order, "every field is reached by Tab")
            key("shift+Tab")
            back = harness.wait_for("focus after shift+Tab", lambda: self._moved(app, order[-1]))
            self.assertEqual(back.name, order[len(visual) - 1], "shift+Tab goes back")

    def _moved(self, app, previous):
        node = app.focused()
        return node if node is not None and node.name != previous else None

    def _rotated(self, visual, start):
        i = visual.index(start)
        return visual[i:] + visual[:i]

    def test_a_failed_validation_moves_focus_to_the_first_invalid_field_and_says_why(self):
        for language in harness.languages():
            with self.subTest(language=language), harness.Checkout(language) as app:
                text = app.text
                shop = app.shop()
                app.focus_shop()
                name_entry = harness.wait_for("initial focus", app.focused)
                self.assertEqual(name_entry.role, "text")
                # Enter in the empty form: the name is the first invalid field in reading order.
                key("Return")
                focused = harness.wait_for(
                    "the name marked invalid",
                    lambda: (lambda n: n if n and "invalid" in n.states else None)(app.focused()))
                self.assertEqual(focused.name, name_entry.name)
                self.assertEqual(focused.description, text["card.error.cardholderName.missing"])
                # A name typed, Enter again: the card number is now the first invalid field.
                type_text("Jane Doe")
                key("Return")
                number = harness.wait_for(
                    "focus on the card number",
                    lambda: (lambda n: n if n and n.name == text["card.number.label"] else None)(app.focused()))
                self.assertIn("invalid", number.states)
                self.assertEqual(number.description, text["card.error.cardNumber.missing"])
                fixed = find(shop, lambda n: n.name == name_entry.name and n.role == "text", "the name entry")
                self.assertNotIn("invalid", fixed.states, "a fixed field is valid again")
                self.assertEqual(fixed.description, "")
                # Every invalid field's description is BuyerText's sentence for its problem.
                for n in nodes(shop):
                    if "invalid" in n.states:
                        self.assertIn(n.description, text.values(), n.line())


if __name__ == "__main__":
    unittest.main()
