"""egw-repl as a command-line tool: piped scripts, exit codes, error reports.

Runs the binary from EGW_REPL_BIN with piped stdin (no terminal): no prompt,
no colour, `line N: ...` errors, exit 0 / 1 / 64.
"""

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


if __name__ == "__main__":
    unittest.main()
