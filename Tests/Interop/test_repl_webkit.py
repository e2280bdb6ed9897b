"""egw-repl with `--browser webkit`: the embedded sandbox's pages in a real WebKitGTK window
under `xvfb-run -a`, in both page dialects, driven by the same `buyer ...` scripts as the
headless browser, with `--screenshots DIR`; and the usage rules of the flags.

Outcomes are the sandbox's documented ones (GATEWAY.md test cards: mastercard-challenge takes
code 1234, any other fails). Environment: EGW_REPL_BIN (required, else skipped).
"""

import json
import os
import shutil
import subprocess
import tempfile
import unittest

from test_repl_support import REPL_BIN, assert_no_card_data, clean_env, needs_repl

CHALLENGE_CARD = ["card test mastercard-challenge", "card name Ann Example"]


def outcomes(stdout):
    return [json.loads(line) for line in stdout.splitlines() if line.startswith('{"outcome"')]


@needs_repl
class Usage(unittest.TestCase):
    def test_egw_repl_loads_no_gtk_and_hands_webkit_runs_to_its_sibling(self):
        linked = subprocess.run(["ldd", REPL_BIN], capture_output=True, text=True, timeout=60).stdout
        self.assertNotIn("libgtk-4", linked)
        self.assertNotIn("libwebkitgtk", linked)
        sibling = os.path.join(os.path.dirname(REPL_BIN), "egw-repl-webkit")
        self.assertIn("libwebkitgtk", subprocess.run(["ldd", sibling], capture_output=True, text=True,
                                                      timeout=60).stdout)
        # Without the sibling, a WebKit run says which program it needed, and does not start.
        with tempfile.TemporaryDirectory() as folder:
            lonely = os.path.join(folder, "egw-repl")
            shutil.copy(REPL_BIN, lonely)
            env = clean_env()
            env["DISPLAY"] = ":99"
            result = subprocess.run([lonely, "--browser", "webkit", "--no-sandbox"], input="",
                                    capture_output=True, text=True, timeout=60, env=env)
        self.assertEqual(result.returncode, 1)
        self.assertIn("runs in egw-repl-webkit, which did not start: " + folder + "/egw-repl-webkit: "
                      "No such file or directory", result.stderr)

    def test_webkit_without_a_display_is_a_usage_error(self):
        result = subprocess.run([REPL_BIN, "--browser", "webkit"], input="", capture_output=True, text=True,
                                timeout=60, env=clean_env())
        self.assertEqual(result.returncode, 64)
        self.assertEqual(result.stderr.splitlines()[0],
                         "egw-repl: --browser webkit needs a display: neither DISPLAY nor WAYLAND_DISPLAY is set "
                         "(try xvfb-run -a)")

    def test_screenshots_need_a_display(self):
        result = subprocess.run([REPL_BIN, "--screenshots", "/tmp"], input="", capture_output=True, text=True,
                                timeout=60, env=clean_env())
        self.assertEqual(result.returncode, 64)
        self.assertEqual(result.stderr.splitlines()[0],
                         "egw-repl: --screenshots needs a display (WebKit renders the pages): neither DISPLAY nor "
                         "WAYLAND_DISPLAY is set (try xvfb-run -a)")


@needs_repl
@unittest.skipUnless(shutil.which("xvfb-run"), "xvfb-run is missing: make deps installs it")
class WebKitBrowser(unittest.TestCase):
    def setUp(self):
        self.shots = tempfile.mkdtemp(prefix="egw-repl-shots-")
        self.addCleanup(shutil.rmtree, self.shots, True)

    def repl(self, lines, browser="webkit", screenshots=True):
        args = ["xvfb-run", "-a", REPL_BIN, "--json", "--browser", browser]
        if screenshots:
            args += ["--screenshots", self.shots]
        result = subprocess.run(args, input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120,
                                env=clean_env())
        assert_no_card_data(self, result.stdout + result.stderr)
        return result

    def test_pays_a_challenged_card_on_the_javascript_dialect(self):
        result = self.repl(["sandbox pages js", "config", "payment create", *CHALLENGE_CARD,
                            "buyer challenge 1234", "pay card"])
        self.assertEqual(result.returncode, 0, result.stderr)
        config = json.loads(result.stdout.splitlines()[1])  # after the `sandbox pages` note
        self.assertEqual((config["browser"], config["sandbox-pages"], config["screenshots"]),
                         ("webkit", "js", self.shots))
        got = outcomes(result.stdout)
        self.assertEqual([o["outcome"] for o in got], ["succeeded"])
        files = sorted(os.listdir(self.shots))
        self.assertEqual(files, ["01-sandbox-issuer-confirm-your-payment.png"])
        with open(os.path.join(self.shots, files[0]), "rb") as png:
            self.assertEqual(png.read(8), b"\x89PNG\r\n\x1a\n")
        shown = [json.loads(l)["path"] for l in result.stdout.splitlines() if '"event":"screenshot"' in l]
        self.assertEqual(shown, [os.path.join(self.shots, files[0])])

    def test_wrong_code_fails_on_the_html_dialect(self):
        result = self.repl(["payment create", *CHALLENGE_CARD, "buyer challenge 0000", "pay card"])
        got = outcomes(result.stdout)
        self.assertEqual([o["outcome"] for o in got], ["failed"])
        self.assertEqual(got[0]["error"]["name"], "authenticationFailed")

    def test_hosted_pay_and_cancel_on_the_javascript_dialect(self):
        result = self.repl(["sandbox pages js", "payment create", "buyer hosted pay", "pay hosted",
                            "payment create", "buyer hosted cancel", "pay hosted"])
        got = outcomes(result.stdout)
        self.assertEqual([(o["outcome"], o["paymentStatus"]) for o in got],
                         [("succeeded", "SETTLED"), ("cancelled", "CANCELLED")])
        self.assertEqual(sorted(os.listdir(self.shots)), ["01-sandbox-checkout.png", "02-sandbox-checkout.png"])

    def test_headless_browser_cannot_answer_the_javascript_challenge(self):
        result = self.repl(["sandbox pages js", "payment create", *CHALLENGE_CARD, "buyer challenge 1234",
                            "pay card"], browser="headless", screenshots=False)
        self.assertEqual([o["outcome"] for o in outcomes(result.stdout)], ["cancelled"])

    def test_headless_browser_pages_are_screenshotted_as_webkit_renders_them(self):
        result = self.repl(["payment create", *CHALLENGE_CARD, "buyer challenge 1234", "pay card",
                            "payment create", "buyer hosted cancel", "pay hosted"], browser="headless")
        self.assertEqual([o["outcome"] for o in outcomes(result.stdout)], ["succeeded", "cancelled"])
        self.assertEqual(sorted(os.listdir(self.shots)),
                         ["01-sandbox-issuer-confirm-your-payment.png", "02-sandbox-checkout.png"])
        for name in os.listdir(self.shots):
            with open(os.path.join(self.shots, name), "rb") as png:
                self.assertEqual(png.read(8), b"\x89PNG\r\n\x1a\n")


if __name__ == "__main__":
    unittest.main()
