"""The foreign gateway's JavaScript pages (`ForeignGateway(pages="js")`) through egw-repl.

Its issuer page builds the one-time-password field and the Confirm button by script, sends
the code with fetch and submits the hand-back form from script; its checkout builds "Pay now"
and "Cancel payment" by script, posts the choice with fetch (the session cookie with it) and
sets location. Nothing in the served HTML is a form.

* `--browser webkit` (a WebKitGTK window under `xvfb-run -a`) completes them: right code ->
  succeeded, wrong code -> failed + authenticationFailed, hosted pay -> succeeded, cancel ->
  cancelled, each checked against the gateway's own record (CONTRACT.md 4a, as in
  test_foreign_gateway.py) -- and `--screenshots DIR` saves what the buyer saw.
* the headless browser cannot run them: the challenge ends cancelled (dismissed,
  CHALLENGE_NOT_COMPLETED), the checkout cancelled, and no money moves.

Environment: EGW_REPL_BIN (required, else skipped); xvfb-run (make deps installs it).
"""

import os
import shutil
import tempfile
import unittest

from test_foreign_gateway import RIGHT_CODE, WRONG_CODE, AUTHENTICATION_FAILED, ForeignGatewayCase
from test_repl_support import needs_repl


@needs_repl
@unittest.skipUnless(shutil.which("xvfb-run"), "xvfb-run is missing: make deps installs it")
class WebKitOnScriptPages(ForeignGatewayCase):
    repl_wrapper = ("xvfb-run", "-a")

    def setUp(self):
        self.shots = tempfile.mkdtemp(prefix="egw-webkit-shots-")
        self.addCleanup(shutil.rmtree, self.shots, True)
        self.repl_extra_args = ("--browser", "webkit", "--screenshots", self.shots)

    def screenshots(self):
        return sorted(os.listdir(self.shots))

    def test_challenge_right_code_succeeds(self):
        gateway = self.gateway(pages="js")
        got = self.one_payment(gateway, self.card_script("challenge", [f"buyer challenge {RIGHT_CODE}"]),
                               "succeeded", error_code=None)
        self.assertEqual(gateway.truth(got["paymentId"]), "SETTLED")
        self.assertEqual(self.screenshots(), ["01-payment-verification.png"])

    def test_challenge_wrong_code_fails_with_authentication_failed(self):
        gateway = self.gateway(pages="js")
        got = self.one_payment(gateway, self.card_script("challenge", [f"buyer challenge {WRONG_CODE}"]),
                               "failed", error_code=AUTHENTICATION_FAILED)
        self.assertNotEqual(gateway.truth(got["paymentId"]), "SETTLED")

    def test_hosted_pay_succeeds(self):
        gateway = self.gateway(pages="js")
        got = self.one_payment(gateway, self.hosted_script(["buyer hosted pay"]), "succeeded")
        self.assertEqual(gateway.truth(got["paymentId"]), "SETTLED")
        self.assertEqual(self.screenshots(), ["01-checkout.png"])

    def test_hosted_cancel_is_cancelled(self):
        gateway = self.gateway(pages="js")
        got = self.one_payment(gateway, self.hosted_script(["buyer hosted cancel"]), "cancelled")
        self.assertEqual(gateway.truth(got["paymentId"]), "CANCELLED")


@needs_repl
class HeadlessOnScriptPages(ForeignGatewayCase):
    def test_challenge_is_cancelled(self):
        gateway = self.gateway(pages="js")
        got = self.one_payment(gateway, self.card_script("challenge", [f"buyer challenge {RIGHT_CODE}"]),
                               "cancelled")
        self.assertNotIn(gateway.truth(got["paymentId"]), {"SETTLED", "AUTHORIZED", "CAPTURED"})

    def test_hosted_pay_cannot_pay(self):
        gateway = self.gateway(pages="js")
        got = self.one_payment(gateway, self.hosted_script(["buyer hosted pay"]), "cancelled")
        self.assertEqual(gateway.truth(got["paymentId"]), "INITIALIZED")


if __name__ == "__main__":
    unittest.main()
