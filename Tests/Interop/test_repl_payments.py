"""Payments through egw-repl, as piped scripts, checked with `result --json`.

Expected outcomes and platform statuses come from GATEWAY.md (the hosted page's
five choices, the test-card table) and the outcome table of CONTRACT.md, not
from the REPL's own output. Every transcript is scanned for card data and
verification keys.
"""

import json
import os
import re
import subprocess
import time
import unittest
import urllib.request

from test_repl_support import assert_no_card_data, needs_repl, run_repl

SANDBOX_BIN = os.environ.get("EGW_SANDBOX_BIN", "")

# GATEWAY.md, hosted checkout page: choice -> platform status; CONTRACT.md: status -> outcome.
HOSTED_CHOICES = {
    "pay": ("SETTLED", "succeeded"),
    "decline": ("FAILED", "failed"),
    "cancel": ("CANCELLED", "cancelled"),
    "abandon": ("ABANDONED", "cancelled"),
    "pending": ("SENT_FOR_PROCESSING", "unresolved"),
}


def results(stdout):
    """Every `result --json` object printed, in order."""
    return [json.loads(line) for line in stdout.splitlines() if line.startswith('{"outcome"')]


@needs_repl
class HostedPayments(unittest.TestCase):
    def test_every_page_choice(self):
        script = ""
        for choice in HOSTED_CHOICES:
            script += f"payment create\nbuyer hosted {choice}\npay hosted\nresult --json\n"
        script += "payment create\nbuyer close\npay hosted\nresult --json\n"
        result = run_repl(script)
        self.assertEqual(result.returncode, 0, result.stderr)
        found = results(result.stdout)
        self.assertEqual(len(found), len(HOSTED_CHOICES) + 1)
        for (choice, (status, outcome)), got in zip(HOSTED_CHOICES.items(), found):
            with self.subTest(choice=choice):
                self.assertEqual(got["outcome"], outcome)
                self.assertEqual(got["paymentStatus"], status)
                self.assertTrue(got["paymentId"].startswith("pay_"))
                self.assertIsNotNone(got["orderNumber"])
                self.assertIsNone(got["sessionId"], "hosted checkout has no card session")
                self.assertIsNone(got["error"])
        closed = found[-1]
        # The buyer closing the page: the SDK looks the status up (the buyer may have paid), and an unpaid
        # payment is cancelled (CONTRACT.md section 3).
        self.assertEqual(closed["outcome"], "cancelled")
        self.assertEqual(closed["paymentStatus"], "INITIALIZED")
        assert_no_card_data(self, result.stdout + result.stderr)

    def test_every_method_hint_opens_the_page_on_it(self):
        for method in ("card", "bank", "click-to-pay"):
            with self.subTest(method=method):
                result = run_repl(f"payment create\nbuyer hosted pay\npay hosted --method {method}\nresult --json\n")
                self.assertEqual(result.returncode, 0, result.stderr)
                self.assertIn(f"?method={method}", result.stdout)
                self.assertEqual(results(result.stdout)[-1]["outcome"], "succeeded")

    def test_no_scripted_buyer_in_a_script_closes_the_page(self):
        result = run_repl("payment create\npay hosted\nresult --json\n")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("no buyer action scripted", result.stdout)
        self.assertEqual(results(result.stdout)[-1]["outcome"], "cancelled")

    def test_every_transition_and_http_exchange_is_shown(self):
        # Default level: each transition, one line per exchange (method, path, status, time), no bodies.
        result = run_repl("payment create\nbuyer hosted pay\npay hosted\n")
        out = result.stdout
        self.assertIn("▸ hosted payment", out)
        self.assertRegex(out, r"↳ \w+ → \w+ on ")
        # The status lookup of CONTRACT.md section 3, with its status and time.
        self.assertRegex(out, r"⇄ GET /merchant-api/checkout/api/egw/v1/payments/pay_\w+ → 200 in \d+ ms")
        self.assertNotIn("response  {", out)
        # -v: the full URL and the redacted bodies.
        verbose = run_repl("payment create\nbuyer hosted pay\npay hosted\n", args=["-v"]).stdout
        self.assertRegex(verbose, r"⇄ GET http://127\.0\.0\.1:\d+/merchant-api/checkout/api/egw/v1/payments/pay_\w+ → 200 in \d+ ms")
        self.assertIn("response  {", verbose)
        # -q: results only.
        quiet = run_repl("payment create\nbuyer hosted pay\npay hosted\n", args=["-q"]).stdout
        self.assertNotIn("⇄", quiet)
        self.assertNotIn("↳", quiet)
        self.assertIn("● succeeded", quiet)

    def test_one_kit_per_session_fetches_the_key_once(self):
        # Issue 11: the shell keeps one PaymentKit, so a second card payment reuses the cached key:
        # GATEWAY.md's frictionless flow is key + session + authentication, then session + authentication.
        script = ("payment create\ncard test visa-frictionless\npay card\npayment create\npay card\n"
                  "sandbox log\n")
        result = run_repl(script, args=["-q"])
        self.assertEqual(result.returncode, 0, result.stderr)
        log = [line for line in result.stdout.splitlines() if re.match(r"  (GET|POST) /.* -> \d+", line)]
        self.assertEqual(len(log), 5, log)
        self.assertEqual(sum("jwks.json" in line for line in log), 1)

    def test_status_lookup(self):
        result = run_repl("payment create\nbuyer hosted pending\npay hosted\nstatus\n", args=["--json"])
        self.assertEqual(result.returncode, 0, result.stderr)
        status = json.loads(result.stdout.splitlines()[-1])
        self.assertEqual(status["paymentStatus"], "SENT_FOR_PROCESSING")
        self.assertEqual(status["outcome"], "unresolved")
        unknown = run_repl("status pay_unknown\n")
        self.assertEqual(unknown.returncode, 1)
        self.assertIn("verification key of pay_unknown is unknown", unknown.stderr)

    def test_result_before_any_payment_fails(self):
        result = run_repl("result\n")
        self.assertEqual(result.returncode, 1)
        self.assertIn("line 1: error: no payment has finished yet", result.stderr)


# GATEWAY.md test-card table (plus the sandbox's two additions, see its README):
# name -> (outcome, PaymentError code or None). Codes from CONTRACT.md's error table:
# 10 cardSessionFailed, 11 authenticationFailed, 12 cardBrandNotAccepted.
TEST_CARDS = {
    "visa-frictionless": ("succeeded", None),
    "mastercard-challenge": ("succeeded", None),
    "maestro-challenge": ("succeeded", None),
    "visa-attempted": ("succeeded", None),
    "mastercard-no-3ds": ("succeeded", None),
    "visa-declined": ("failed", 10),
    "discover-rejected": ("failed", 11),
    "amex-not-accepted": ("failed", 12),
    "visa-3ds-unavailable": ("succeeded", None),
    "visa-not-authenticated": ("failed", 11),
}


@needs_repl
class CardPayments(unittest.TestCase):
    def test_every_sandbox_test_card(self):
        script = ""
        for name in TEST_CARDS:
            code = "9876" if name.startswith("amex") else "987"  # a code to look for in the transcript
            script += (f"payment create\ncard test {name}\ncard cvc {code}\nbuyer clear\nbuyer challenge 1234\n"
                       "pay card\nresult --json\n")
        result = run_repl(script)
        self.assertEqual(result.returncode, 0, result.stderr)
        found = results(result.stdout)
        self.assertEqual(len(found), len(TEST_CARDS))
        for (name, (outcome, code)), got in zip(TEST_CARDS.items(), found):
            with self.subTest(card=name):
                self.assertEqual(got["outcome"], outcome)
                # The card flow makes no status lookup (CONTRACT.md, PaymentResult).
                self.assertIsNone(got["paymentStatus"])
                self.assertIsNone(got["orderNumber"])
                if code is None:
                    self.assertIsNone(got["error"])
                else:
                    self.assertEqual(got["error"]["domain"], "com.egw.egwpay")
                    self.assertEqual(got["error"]["code"], code)
                if name != "amex-not-accepted":
                    self.assertTrue(got["sessionId"], "a session exists once created")
        assert_no_card_data(self, result.stdout + result.stderr, extra_secrets=["987", "9876"])

    def test_challenge_with_a_wrong_code_fails_and_closing_cancels(self):
        script = ("payment create\ncard test maestro-challenge\nbuyer challenge 9999\npay card\nresult --json\n"
                  "payment create\nbuyer close\npay card\nresult --json\n")
        result = run_repl(script)
        self.assertEqual(result.returncode, 0, result.stderr)
        wrong, closed = results(result.stdout)
        self.assertEqual(wrong["outcome"], "failed")
        self.assertEqual(wrong["error"]["code"], 11)  # N: authenticationFailed
        self.assertEqual(closed["outcome"], "cancelled")
        self.assertIn("present challenge page", result.stdout)

    def test_an_invalid_card_fails_before_any_request(self):
        script = "payment create\ncard number 4111 1111\ncard expiry 12/39\ncard cvc 123\npay card\nresult --json\nsandbox log\n"
        result = run_repl(script)
        got = results(result.stdout)[-1]
        self.assertEqual(got["outcome"], "failed")
        self.assertEqual(got["error"]["code"], 7)  # cardValidationFailed
        self.assertIn("The sandbox has answered no request yet.", result.stdout)

    def test_the_wire_is_shown_with_the_jwe_header_and_no_card_data(self):
        result = run_repl("payment create\ncard test visa-frictionless\npay card\n", args=["-v"])
        out = result.stdout
        self.assertRegex(out, r"⇄ GET http://127\.0\.0\.1:\d+/gateway-checkout/checkout/\.well-known/jwks\.json → 200")
        self.assertRegex(out, r"⇄ POST http://127\.0\.0\.1:\d+/gateway-api/checkout/api/egw/v1/payments/pay_\w+/card-sessions → 201")
        self.assertRegex(out, r'JWE header \{"alg":"RSA-OAEP-256","enc":"A256GCM","kid":"[^"]+"\}')
        self.assertIn("card encrypted to kid", out)
        self.assertIn("/authentication → 200", out)
        assert_no_card_data(self, out + result.stderr)


@needs_repl
class JSONOutput(unittest.TestCase):
    def test_with_json_every_output_line_is_a_json_object(self):
        script = ("payment create\ncard test mastercard-challenge\nbuyer challenge 1234\npay card --step\nstep\n"
                  "continue\ncard show\ncard check\nbuyer hosted pay\npayment create\npay hosted\nresult\nstatus\n"
                  "sandbox log\nsandbox cards\nconfig set timeout 9\n")
        result = run_repl(script, args=["--json", "-v"])
        self.assertEqual(result.returncode, 0, result.stderr)
        events = [json.loads(line) for line in result.stdout.splitlines()]
        kinds = {event.get("event") for event in events if isinstance(event, dict)}
        for kind in ("started", "transition", "http", "step", "cardEncrypted", "buyer"):
            self.assertIn(kind, kinds)
        https = [e for e in events if isinstance(e, dict) and e.get("event") == "http"]
        self.assertTrue(any(e.get("jweHeader") for e in https), "the JWE protected header is reported")
        self.assertTrue(all(isinstance(e["milliseconds"], int) for e in https))
        outcomes = [e["outcome"] for e in events if isinstance(e, dict) and "outcome" in e]
        self.assertEqual(outcomes[:2], ["succeeded", "succeeded"])
        assert_no_card_data(self, result.stdout + result.stderr)


@needs_repl
class SteppedPayments(unittest.TestCase):
    def test_a_challenged_card_payment_step_by_step(self):
        script = ("payment create\ncard test mastercard-challenge\nbuyer challenge 1234\npay card --step\n"
                  + "step\n" * 12 + "result --json\n")
        result = run_repl(script)
        out = result.stdout
        # One pause per action of the card machine: key, encryption, session, authentication,
        # challenge page, dismissal, challenge result (CONTRACT.md section 4, GATEWAY.md).
        pauses = [line for line in out.splitlines() if line.startswith("⏸ step ")]
        actions = " | ".join(pauses)
        for expected in ("GET jwks.json", "encrypt", "POST card-sessions", "POST authentication",
                         "present challenge page", "POST challenge-result"):
            self.assertIn(expected, actions)
        self.assertEqual(results(out)[-1]["outcome"], "succeeded")
        # Steps typed after the payment ended are errors (nothing to step).
        self.assertIn("no payment is running", result.stderr)
        assert_no_card_data(self, out + result.stderr)

    def test_step_then_continue(self):
        script = "payment create\nbuyer hosted pay\npay hosted --step\nstep\ncontinue\nresult --json\n"
        result = run_repl(script)
        self.assertEqual(result.returncode, 0, result.stderr)
        out = result.stdout
        self.assertIn("⏸ step 1", out)
        self.assertIn("⏸ step 2", out)
        # After `continue` the payment runs to its end without another pause.
        self.assertNotIn("⏸ step 3", out)
        self.assertEqual(results(out)[-1]["outcome"], "succeeded")

    def test_cancel_at_a_step(self):
        result = run_repl("payment create\npay hosted --step\ncancel\nresult --json\n")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("Cancelling the payment (cancel)", result.stdout)
        got = results(result.stdout)[-1]
        self.assertEqual(got["outcome"], "cancelled")
        self.assertIsNone(got["paymentStatus"])

    def test_other_commands_while_paused_and_no_second_payment(self):
        script = "payment create\nbuyer hosted pay\npay hosted --step\nsandbox log\npay hosted\nstep\ncontinue\n"
        result = run_repl(script)
        self.assertEqual(result.returncode, 1)
        self.assertIn("line 5: error: a payment is already running", result.stderr)
        # Paused before the page is even shown: the sandbox has seen nothing yet.
        self.assertIn("The sandbox has answered no request yet.", result.stdout, "sandbox log ran while paused")
        self.assertIn("● succeeded", result.stdout, "the first payment went on")

    def test_end_of_input_while_paused_finishes_the_payment(self):
        result = run_repl("payment create\nbuyer hosted decline\npay hosted --step\n")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("end of input: continuing", result.stdout)
        self.assertIn("● failed", result.stdout)

    def test_step_without_a_payment_fails(self):
        result = run_repl("step\ncontinue\ncancel\n", args=["--bail"])
        self.assertEqual(result.returncode, 1)
        self.assertIn("line 1: error: no payment is running", result.stderr)
        self.assertNotIn("line 2", result.stderr)


@needs_repl
class Faults(unittest.TestCase):
    def test_a_5xx_on_card_session_creation_is_resent_once_never_failed(self):
        # CONTRACT.md 4a / GATEWAY.md: a 5xx on a POST leaves it in doubt; the SDK sends it once more with the
        # same Idempotency-Key, and reports .unresolved (cardSessionFailed, 10) when that fails too.
        script = ("payment create\ncard test visa-frictionless\nsandbox fault card-session-create status 503\n"
                  "pay card\nresult --json\n")
        result = run_repl(script)
        got = results(result.stdout)[-1]
        self.assertIn("/card-sessions → 503", result.stdout)
        self.assertEqual(got["outcome"], "succeeded")
        script = ("payment create\ncard test visa-frictionless\n"
                  "sandbox fault card-session-create status 503 --times 2\npay card\nresult --json\n")
        result = run_repl(script)
        got = results(result.stdout)[-1]
        self.assertEqual(result.stdout.count("/card-sessions → 503"), 2, result.stdout)
        self.assertEqual(got["outcome"], "unresolved")
        self.assertEqual(got["error"]["code"], 10)

    def test_key_rotation_is_recovered_by_fetching_the_key_again(self):
        script = ("payment create\ncard test visa-frictionless\nsandbox fault card-session-create rotate-key\n"
                  "pay card\nresult --json\n")
        result = run_repl(script)
        # GATEWAY.md: 422 UNKNOWN_KEY -> refetch the key once and retry.
        self.assertIn("/card-sessions → 422", result.stdout)
        self.assertIn("UNKNOWN_KEY", result.stdout)
        self.assertEqual(result.stdout.count("jwks.json → 200"), 2)
        self.assertEqual(results(result.stdout)[-1]["outcome"], "succeeded")

    def test_a_failing_status_lookup_is_unresolved_with_the_error(self):
        script = ("payment create\nsandbox fault status status 503 --times 10\nbuyer hosted pay\npay hosted\n"
                  "result --json\nsandbox log\n")
        result = run_repl(script)
        self.assertEqual(result.returncode, 0, result.stderr)
        got = results(result.stdout)[-1]
        # CONTRACT.md: a failed lookup is .unresolved with the reason in error (statusLookupFailed = 5).
        self.assertEqual(got["outcome"], "unresolved")
        self.assertEqual(got["error"]["domain"], "com.egw.egwpay")
        self.assertEqual(got["error"]["code"], 5)
        self.assertIsNone(got["paymentStatus"])
        self.assertIn("→ 503 in", result.stdout)
        self.assertRegex(result.stdout, r"GET /merchant-api/checkout/api/egw/v1/payments/pay_\w+ -> 503 .*\[status")

    def test_latency_is_visible_in_the_exchange_time(self):
        script = "payment create\nsandbox fault status latency 400\nbuyer hosted pay\npay hosted\nresult --json\n"
        result = run_repl(script)
        self.assertEqual(results(result.stdout)[-1]["outcome"], "succeeded")
        times = [int(t) for t in __import__("re").findall(r"/payments/pay_\w+ → 200 in (\d+) ms", result.stdout)]
        self.assertTrue(times and times[0] >= 400, times)


@needs_repl
@unittest.skipUnless(SANDBOX_BIN and os.access(SANDBOX_BIN, os.X_OK), "EGW_SANDBOX_BIN is not set")
class AnyGateway(unittest.TestCase):
    """The REPL pointed at a gateway of its own (a stand-alone egw-sandbox) with flags."""

    def setUp(self):
        self.server = subprocess.Popen([SANDBOX_BIN, "--port", "0"], stdout=subprocess.PIPE, text=True)
        self.urls = {}
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and "merchantBaseURL" not in self.urls:
            line = self.server.stdout.readline()
            if "=" in line:
                name, value = line.strip().split("=", 1)
                self.urls[name] = value
        self.assertIn("merchantBaseURL", self.urls)

    def tearDown(self):
        self.server.terminate()
        self.server.wait(timeout=30)
        self.server.stdout.close()

    def create_payment(self):
        request = urllib.request.Request(
            self.urls["merchantBaseURL"] + "/sandbox/payments", data=b'{"amount": 700, "currency": "EUR"}',
            headers={"Content-Type": "application/json"}, method="POST")
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)

    def test_payment_use_with_flags_and_the_key_never_shown(self):
        payment = self.create_payment()
        key = payment["verificationKey"]
        checkout = payment["_links"]["checkoutRedirect"]["href"]
        script = (f"payment use {payment['paymentId']} {key} {checkout} {payment['shopRedirectUrl']}\n"
                  "payment show\nbuyer hosted pay\npay hosted\nresult --json\nstatus\n")
        result = run_repl(script, args=[
            "--no-sandbox", "--api-base-url", self.urls["apiBaseURL"],
            "--checkout-api-base-url", self.urls["checkoutAPIBaseURL"],
            "--checkout-base-url", self.urls["checkoutBaseURL"]])
        self.assertEqual(result.returncode, 0, result.stderr)
        got = results(result.stdout)[-1]
        self.assertEqual(got["outcome"], "succeeded")
        self.assertEqual(got["paymentStatus"], "SETTLED")
        self.assertIn("SETTLED", result.stdout.splitlines()[-1])
        assert_no_card_data(self, result.stdout + result.stderr, extra_secrets=[key])

    def test_payment_create_on_a_remote_merchant_backend_then_a_card_payment(self):
        script = ("payment create 990 USD --order R-1\ncard test mastercard-challenge\nbuyer challenge 1234\n"
                  "pay card\nresult --json\n")
        env_args = [
            "--no-sandbox", "--merchant-base-url", self.urls["merchantBaseURL"],
            "--api-base-url", self.urls["apiBaseURL"],
            "--checkout-api-base-url", self.urls["checkoutAPIBaseURL"],
            "--checkout-base-url", self.urls["checkoutBaseURL"]]
        result = run_repl(script, args=env_args)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("order R-1", result.stdout)
        got = results(result.stdout)[-1]
        self.assertEqual(got["outcome"], "succeeded")
        self.assertTrue(got["sessionId"])
        assert_no_card_data(self, result.stdout + result.stderr)


if __name__ == "__main__":
    unittest.main()
