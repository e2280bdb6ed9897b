"""egw-repl's payment sheet (issue 12): a piped script and a tmux session of the whole sheet.

The expected totals are worked out by hand: goods 12.50 EUR, Express shipping 4.99
(17.49), the coupon SAVE10 takes 10 % of the goods (1.25): 16.24 EUR, 1624 minor units.
The sandbox's own merchant API (GET /sandbox/payments/ID) confirms the amount charged.
"""

import json
import os
import re
import tempfile
import unittest
import urllib.request

from test_repl_support import (
    REPL_BIN, SHARED_CACHE, Tmux, assert_no_card_data, clean_env, needs_repl, needs_tmux, run_repl, shquote,
)

PROMPT = "egw> "
CONTACT_EE = "Ada Lovelace, 1 Main St, Tallinn, 10111, EE"
CONTACT_LV = "Janis Berzins, Brivibas iela 1, Riga, LV-1010, LV"

SETUP = [
    "wallet add visa-frictionless",
    "wallet add mastercard-challenge",
    f'wallet contact add "{CONTACT_EE}"',
    f'wallet contact add "{CONTACT_LV}"',
    'sheet new 12.50 EUR --label "Example shop" --require name,address --coupons',
    "sheet method add standard Standard 0",
    "sheet method add express Express 4.99",
    "merchant coupon SAVE10 -10%",
    "merchant coupon OLD expired",
    "merchant unserviceable EE",
]

BUYER = [
    "sheet contact 0",
    "sheet contact 1",
    "sheet method express",
    "sheet coupon OLD",
    "sheet coupon SAVE10",
    "sheet card 1",
]


@needs_repl
class PipedSheet(unittest.TestCase):
    def test_a_sheet_with_shipping_a_coupon_and_a_challenged_card(self):
        script = "\n".join(SETUP + ["buyer challenge 1234", "sheet open"] + BUYER
                           + ["sheet authorize", "result --json"]) + "\n"
        done = run_repl(script)
        self.assertEqual(done.returncode, 0, done.stderr)
        out = done.stdout
        self.assertIn("didSelectShippingContact answered: total 12.50 EUR, errors: address unserviceable", out)
        self.assertIn("didSelectShippingMethod answered: total 17.49 EUR", out)
        self.assertIn("didChangeCouponCode answered: total 17.49 EUR, errors: coupon expired", out)
        self.assertIn("didChangeCouponCode answered: total 16.24 EUR", out)
        self.assertIn("buyer: card 1 (Mastercard •••• 4444) → accepted", out)
        self.assertIn("→ delegate didAuthorizePayment (16.24 EUR)", out)
        self.assertIn("buyer: challenge code •••• (scripted)", out)
        self.assertIn("← status success", out)

        lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
        result = next(obj for obj in lines if "wallet" in obj)
        wallet = result["wallet"]
        self.assertEqual(wallet["outcome"], "succeeded")
        self.assertEqual(wallet["status"], "success")
        self.assertEqual(wallet["finishReason"], "completed")
        self.assertEqual(wallet["attempts"], 1)
        self.assertEqual(wallet["total"], "16.24")
        self.assertEqual(wallet["payment"]["outcome"], "succeeded")

        # The sandbox is gone with the process; what it charged was printed by the shell as the
        # payment it made, and the sandbox's merchant API is checked in the tmux test below.
        self.assertRegex(out, r"EGW payment pay_[0-9a-f]+ for 16\.24 EUR \(1624 minor units\)")
        # Issue 21: once authorized, the result hands the merchant the order it must ship: the shipping
        # contact the buyer chose (contact 1) and the method. Until then, and everywhere else in the
        # transcript (the typed contact lines, the sheet, the delegate's calls), contacts stay redacted.
        self.assertEqual(wallet["shippingMethod"], "express")
        self.assertEqual(wallet["shippingContact"]["city"], "Riga")
        self.assertEqual(wallet["shippingContact"]["countryCode"], "LV")
        transcript = "\n".join(line for line in out.splitlines() if not (line.startswith("{") and "wallet" in line))
        assert_no_card_data(
            self, transcript + done.stderr, extra_secrets=["Lovelace", "Main St", "Berzins", "Brivibas"])
        assert_no_card_data(self, out + done.stderr)

    def test_busy_refused_and_cancel(self):
        script = "\n".join(SETUP + [
            "merchant answer manual", "sheet open --step", "sheet card 9", "sheet method express",
            "sheet coupon SAVE10", "merchant answer send", "sheet cancel", "result --json",
        ]) + "\n"
        done = run_repl(script)
        self.assertEqual(done.returncode, 1, "a refused action fails the script")
        self.assertIn("buyer: card 9 → refused:", done.stderr)
        self.assertIn("merchant holds its answer to didSelectShippingMethod", done.stdout)
        self.assertIn("buyer: coupon SAVE10 → busy", done.stdout)
        self.assertIn("didSelectShippingMethod answered: total 17.49 EUR", done.stdout)
        self.assertIn("◼ sheet cancelled", done.stdout)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        self.assertEqual(result["wallet"]["outcome"], "cancelled")
        self.assertIsNone(result["wallet"]["payment"])


@needs_repl
@needs_tmux
class TerminalSheet(unittest.TestCase):
    def setUp(self):
        self.home = tempfile.mkdtemp(prefix="egw-repl-sheet-")
        self.history = os.path.join(self.home, "history")
        self.session = None

    def tearDown(self):
        if self.session:
            self.session.close()

    def test_the_whole_sheet_on_a_terminal_asks_for_the_challenge_code(self):
        command = " ".join(shquote(part) for part in [REPL_BIN, "--history", self.history])
        env = {"HOME": self.home, "TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_CACHE_HOME": SHARED_CACHE}
        repl = Tmux(command, env=env)
        self.session = repl
        repl.wait_for(PROMPT, what="the first prompt")
        count = 1
        for line in SETUP + ["sheet open"] + BUYER + ["config"]:
            repl.type(line)
            repl.send("Enter")
            count += 1
            repl.wait_for(lambda s, n=count: s.count(PROMPT) >= n, what=f"the prompt after {line!r}")
        screen = repl.screen()
        self.assertIn("didChangeCouponCode answered: total 16.24 EUR", screen)
        merchant = re.search(r"merchant-base-url\s+(http://\S+)", screen).group(1)
        # The payment read shows the verification key: it needs the sandbox's control token.
        token = re.search(r"sandbox-control-token\s+([0-9a-f]{32})", screen).group(1)

        repl.type("sheet authorize")
        repl.send("Enter")
        repl.wait_for("3-D Secure challenge page is open", what="the challenge question")
        repl.type("1234")
        repl.send("Enter")
        screen = repl.wait_for("◼ sheet succeeded", what="the sheet's result")
        payment_id = re.search(r"EGW payment (pay_[0-9a-f]+) for 16\.24 EUR", screen).group(1)
        # The gateway's own record of the payment: the sheet's final total, settled.
        read = urllib.request.Request(
            f"{merchant}/sandbox/payments/{payment_id}", headers={"X-Sandbox-Token": token})
        with urllib.request.urlopen(read, timeout=10) as response:
            record = json.loads(response.read())
        self.assertEqual(record.get("amount"), 1624)
        # (1234 is on the screen as the shell's hint and as typed at `buyer> `: not a card secret.)
        # The terminal echoes what was typed; everything the sheet printed comes after `sheet open`.
        assert_no_card_data(self, screen[screen.index("egw> sheet open"):], extra_secrets=["Lovelace", "Berzins"])

        repl.send("C-d")
        repl.wait_for("[exited 0]", what="exit on Ctrl-D")
        with open(self.history, encoding="utf-8", errors="replace") as handle:
            recorded = handle.read().replace("\\040", " ")  # libedit's history file encodes spaces
        self.assertIn("sheet coupon SAVE10", recorded)
        self.assertNotIn("Lovelace", recorded, "a contact line stays out of the history")
        self.assertNotIn("Berzins", recorded)
        assert_no_card_data(self, recorded)


if __name__ == "__main__":
    unittest.main()
