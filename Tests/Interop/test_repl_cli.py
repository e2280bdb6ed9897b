"""egw-repl as a command-line tool: piped scripts, exit codes, error reports.

Runs the binary from EGW_REPL_BIN with piped stdin (no terminal): no prompt,
no colour, `line N: ...` errors, exit 0 / 1 / 64.
"""

import json
import os
import tempfile
import unittest

from test_repl_support import ANSI, assert_no_card_data, clean_env, needs_repl, run_repl, REPL_BIN


@needs_repl
class ExitCodes(unittest.TestCase):
    def test_success_is_zero(self):
        result = run_repl("help\nconfig\nhelp card cvc\n")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stderr, "")
        self.assertIn("card cvc", result.stdout)

    def test_a_failed_command_is_one_and_the_run_continues(self):
        result = run_repl("help\ncard frob\nconfig set timeout 9\n")
        self.assertEqual(result.returncode, 1)
        self.assertIn("line 2:6: error: unknown sub-command 'frob' for 'card'", result.stderr)
        self.assertIn("timeout = 9s", result.stdout, "the run must continue past the error")

    def test_bail_stops_at_the_first_failure(self):
        result = run_repl("config set timeout 8\nnope\nconfig set timeout 9\n", args=["--bail"])
        self.assertEqual(result.returncode, 1)
        self.assertIn("timeout = 8s", result.stdout)
        self.assertNotIn("timeout = 9s", result.stdout)
        self.assertIn("line 2:1: error: unknown command 'nope'", result.stderr)

    def test_bail_from_the_environment(self):
        result = run_repl("nope\nconfig set timeout 9\n", env=clean_env(EGW_BAIL="1"))
        self.assertEqual(result.returncode, 1)
        self.assertNotIn("timeout = 9s", result.stdout)

    def test_usage_errors_are_64(self):
        for args in (["--bogus"], ["--environment", "prod"], ["--script"], ["extra-argument"]):
            with self.subTest(args=args):
                result = run_repl("", args=args)
                self.assertEqual(result.returncode, 64)
                self.assertIn("egw-repl:", result.stderr)
                self.assertEqual(result.stdout, "")

    def test_unreadable_script_is_a_usage_error(self):
        result = run_repl("", args=["--script", "/nonexistent/egw-script"])
        self.assertEqual(result.returncode, 64)

    def test_version_and_help_are_zero(self):
        version = run_repl("", args=["--version"])
        self.assertEqual(version.returncode, 0)
        self.assertRegex(version.stdout, r"^egw-repl \d+\.\d+\.\d+")
        usage = run_repl("", args=["--help"])
        self.assertEqual(usage.returncode, 0)
        for flag in ("--api-base-url", "--checkout-api-base-url", "--checkout-base-url", "--environment",
                     "--no-sandbox", "--script", "--bail", "--json", "--no-color", "--history", "--version"):
            self.assertIn(flag, usage.stdout)

    def test_quit_stops_reading(self):
        result = run_repl("config set timeout 8\nquit\nnope\n")
        self.assertEqual(result.returncode, 0)
        self.assertEqual(result.stderr, "")

    def test_empty_input_is_success(self):
        result = run_repl("")
        self.assertEqual(result.returncode, 0)


@needs_repl
class ScriptFiles(unittest.TestCase):
    def test_script_file_runs_like_piped_input(self):
        with tempfile.NamedTemporaryFile("w", suffix=".egw", delete=False) as script:
            script.write("# a comment\nconfig set timeout 12\n\nconfig set log-level loud\n")
            path = script.name
        try:
            result = run_repl("nope\n", args=["--script", path])
        finally:
            os.unlink(path)
        self.assertEqual(result.returncode, 1)
        self.assertIn("timeout = 12s", result.stdout)
        # Line numbers count comments and blank lines; stdin is not read at all.
        self.assertIn("line 4:", result.stderr)
        self.assertNotIn("nope", result.stderr)


@needs_repl
class Output(unittest.TestCase):
    def test_piped_output_has_no_prompt_and_no_colour(self):
        result = run_repl("help\nnope\n", env=clean_env(TERM="xterm-256color"))
        self.assertNotIn("egw>", result.stdout)
        self.assertIsNone(ANSI.search(result.stdout + result.stderr))

    def test_errors_point_at_the_input_with_a_caret(self):
        result = run_repl("pay hosted --method cash\n")
        lines = result.stderr.splitlines()
        self.assertEqual(lines[0], "line 1:21: error: METHOD must be one of: card, bank, click-to-pay")
        self.assertEqual(lines[1], "  pay hosted --method cash")
        self.assertEqual(lines[2], "                      ^^^^")

    def test_error_echo_masks_card_data(self):
        script = "card nmber 4111 1111 1111 1111\ncard cvc 12345\nbrnd 4111111111111111\n"
        result = run_repl(script)
        self.assertEqual(result.returncode, 1)
        assert_no_card_data(self, result.stdout + result.stderr, extra_secrets=["12345"])

    def test_verification_key_is_never_shown(self):
        key = "vk_sandbox_Zq81bHc02"
        result = run_repl(f"payment use pay_1 {key}\npayment show\npayment use pay_2 {key} extra\n")
        self.assertNotIn(key, result.stdout + result.stderr)
        self.assertIn("pay_1", result.stdout)

    def test_json_config(self):
        import json
        result = run_repl("config\n", args=["--json", "--timeout", "4"])
        self.assertEqual(json.loads(result.stdout)["timeout"], "4s")


@needs_repl
class CardCommands(unittest.TestCase):
    """Card entry and the CardValidation helpers; numbers from GATEWAY.md's test-card
    table, expected brands and Luhn verdicts from the published card lists."""

    def test_card_fields_are_set_and_shown_masked(self):
        script = ("card number 5555 5555 5555 4444\ncard name Ada Lovelace\ncard expiry 12/39\n"
                  "card cvc 987\ncard show\ncard check\n")
        result = run_repl(script)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("•••• 4444", result.stdout)
        self.assertIn("Mastercard", result.stdout)
        self.assertRegex(result.stdout, r"security code\s+•••")
        self.assertIn("The card is ready", result.stdout)
        assert_no_card_data(self, result.stdout + result.stderr, extra_secrets=["987"])

    def test_card_check_reports_each_field_state(self):
        result = run_repl("card number 4111\ncard expiry 01/20\ncard check --json\ncard check\n", args=["--json"])
        import json
        # `card check` takes no flags: line 3 fails, line 4 prints JSON (--json on the command line).
        lines = [line for line in result.stdout.splitlines() if line.startswith("{\"cardholderName\"")]
        states = json.loads(lines[-1])
        self.assertEqual(states["cardNumber"]["state"], "incomplete")
        self.assertEqual(states["expiry"]["state"], "invalid")
        self.assertEqual(states["cardholderName"]["state"], "incomplete")
        self.assertEqual(states["securityCode"]["state"], "incomplete")
        self.assertFalse(states["isValid"])
        self.assertIn("line 3:12: error: unknown flag '--json'", result.stderr)

    def test_brand_luhn_and_format(self):
        script = ("brand 3782 822463 10005\nbrand 6011111111111117\nbrand 6759649826438453\n"
                  "luhn 79927398713\nluhn 79927398710\nformat 378282246310005\nformat 4111111111111111\n")
        result = run_repl(script)
        self.assertEqual(result.returncode, 0, result.stderr)
        out = result.stdout.splitlines()
        self.assertTrue(out[0].startswith("American Express"))
        self.assertTrue(out[1].startswith("Discover"))
        self.assertTrue(out[2].startswith("Maestro"))
        # 79927398713 is the classic valid Luhn example; changing its check digit breaks it.
        self.assertTrue(out[3].startswith("Luhn valid"))
        self.assertTrue(out[4].startswith("Luhn invalid"))
        self.assertTrue(out[5].startswith("•••• 0005  (American Express grouping 4-6-5)"), out[5])
        self.assertTrue(out[6].startswith("•••• 1111  (Visa grouping 4-4-4-4-3)"), out[6])
        assert_no_card_data(self, result.stdout + result.stderr)

    def test_bad_card_input_is_a_failed_command(self):
        result = run_repl("card number 4111-11x1\ncard cvc\ncard expiry 13/30\n")
        self.assertEqual(result.returncode, 1)
        self.assertIn("line 1: error:", result.stderr)
        self.assertIn("line 2: error: card cvc needs CODE in a script", result.stderr)
        self.assertIn("line 3:13: error: expiry must be MM/YY", result.stderr)


@needs_repl
class SandboxCommands(unittest.TestCase):
    """The embedded sandbox: payments from its merchant backend, its test cards, faults."""

    def test_payment_create_uses_the_embedded_sandbox(self):
        import json
        result = run_repl("payment create 990 usd --order A-17\npayment show\nconfig\n", args=["--json"])
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = [json.loads(line) for line in result.stdout.splitlines()]
        created, shown, config = lines[0], lines[1], lines[2]
        self.assertEqual(created["paymentId"], shown["paymentId"])
        self.assertTrue(created["paymentId"])
        self.assertNotIn("vk", shown["verificationKey"].lower())
        port_base = config["merchant-base-url"]
        self.assertRegex(port_base, r"^http://127\.0\.0\.1:\d+$")
        self.assertEqual(config["api-base-url"], port_base + "/merchant-api")
        self.assertEqual(config["checkout-api-base-url"], port_base + "/gateway-api")
        self.assertEqual(config["checkout-base-url"], port_base + "/gateway-checkout")
        self.assertTrue(shown["checkoutURL"].startswith(port_base + "/gateway-checkout/"))

    def test_no_sandbox(self):
        result = run_repl("payment create\nsandbox log\n", args=["--no-sandbox"])
        self.assertEqual(result.returncode, 1)
        self.assertIn("line 1: error:", result.stderr)
        self.assertIn("line 2: error: no embedded sandbox", result.stderr)

    def test_urls_from_flags_and_environment_override_the_sandbox(self):
        import json
        env = clean_env(EGW_CHECKOUT_BASE_URL="https://checkout.example")
        result = run_repl("config\n", args=["--json", "--api-base-url", "https://api.example"], env=env)
        config = json.loads(result.stdout)
        self.assertEqual(config["api-base-url"], "https://api.example")
        self.assertEqual(config["checkout-base-url"], "https://checkout.example")
        self.assertRegex(config["checkout-api-base-url"], r"^http://127\.0\.0\.1:\d+/gateway-api$")

    def test_live_environment_refuses_plain_http(self):
        result = run_repl("config set environment live\n")
        self.assertEqual(result.returncode, 1)
        self.assertIn("https", result.stderr)

    def test_test_cards_are_listed_masked_and_filled_by_name(self):
        result = run_repl("sandbox cards\ncard test mastercard-challenge\ncard check\ncard test nope\n")
        self.assertEqual(result.returncode, 1)
        for name in ("visa-frictionless", "mastercard-challenge", "maestro-challenge", "visa-attempted",
                     "mastercard-no-3ds", "visa-declined", "discover-rejected", "amex-not-accepted"):
            self.assertIn(name, result.stdout)
        self.assertIn("The card is ready", result.stdout)
        self.assertIn("line 4: error: no test card named 'nope'", result.stderr)
        assert_no_card_data(self, result.stdout + result.stderr)

    def test_sandbox_cards_numbers_shows_the_published_table(self):
        result = run_repl("sandbox cards --numbers\n")
        self.assertIn("5555 5555 5555 4444", result.stdout)

    def test_faults_are_armed_listed_and_cleared(self):
        script = ("sandbox fault card-session-create status 503\nsandbox fault jwks latency 50 --times 2\n"
                  "sandbox fault any drop --probability 0.25\nsandbox faults\nsandbox faults clear\nsandbox faults\n"
                  "sandbox fault moon drop\n")
        result = run_repl(script)
        self.assertEqual(result.returncode, 1)
        self.assertIn("1. card-session-create status(503) next(1)", result.stdout)
        self.assertIn("2. jwks latency(50 ms) next(2)", result.stdout)
        self.assertIn("3. any drop probability(0.25)", result.stdout)
        self.assertIn("No faults armed.", result.stdout)
        self.assertIn("line 7:15: error: ENDPOINT must be one of", result.stderr)


@needs_repl
class SandboxKey(unittest.TestCase):
    def test_the_sandbox_key_is_cached_privately_without_its_primes(self):
        import tempfile
        cache = tempfile.mkdtemp(prefix="egw-repl-key-")
        first = run_repl("config\n", env=clean_env(XDG_CACHE_HOME=cache))
        self.assertEqual(first.returncode, 0, first.stderr)
        path = os.path.join(cache, "egw-repl", "sandbox-key.jwk")
        self.assertEqual(os.stat(path).st_mode & 0o777, 0o600)
        with open(path) as handle:
            key = json.load(handle)
        self.assertEqual(sorted(key), ["d", "e", "kid", "kty", "n"])
        # A second start reuses it (same kid served), and a broken file is replaced.
        second = run_repl("payment create\ncard test visa-frictionless\npay card\n", env=clean_env(XDG_CACHE_HOME=cache))
        self.assertIn(key["kid"], second.stdout)
        with open(path, "w") as handle:
            handle.write("not a key")
        third = run_repl("config\n", env=clean_env(XDG_CACHE_HOME=cache))
        self.assertEqual(third.returncode, 0, third.stderr)
        with open(path) as handle:
            self.assertNotEqual(json.load(handle)["kid"], key["kid"])


if __name__ == "__main__":
    unittest.main()
