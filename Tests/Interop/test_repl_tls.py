"""egw-repl --sandbox-tls: the embedded sandbox over HTTPS from its own test CA, paid in `live`.

`--environment live` requires https for every URL; with --sandbox-tls the embedded sandbox
serves HTTPS and every transport of the shell (the SDK's, the buyer's browser, `payment create`,
`status`) trusts its CA. `config` shows the CA file and its SHA-256 fingerprint, checked here
against the file with python's own hashlib. Expected outcomes come from GATEWAY.md's test-card
table and hosted-page choices.
"""

import hashlib
import json
import re
import ssl
import unittest

from test_repl_support import assert_no_card_data, needs_repl, run_repl


@needs_repl
class SandboxTLS(unittest.TestCase):
    def test_live_payments_against_the_https_sandbox(self):
        script = ("config\n"
                  "payment create\nbuyer hosted pay\npay hosted\nresult --json\n"
                  "payment create\ncard test visa-frictionless\npay card\nresult --json\n")
        done = run_repl(script, args=["--sandbox-tls", "--environment", "live"])
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
        config = dict(line.split(None, 1) for line in done.stdout.splitlines()
                      if line.startswith("  ") and len(line.split(None, 1)) == 2)
        for key in ("api-base-url", "checkout-api-base-url", "checkout-base-url", "merchant-base-url"):
            self.assertTrue(config[key].startswith("https://127.0.0.1:"), config)
        self.assertEqual(config["environment"], "live")
        with open(config["sandbox-ca"]) as handle:
            der = ssl.PEM_cert_to_DER_cert(handle.read())
        digest = hashlib.sha256(der).hexdigest().upper()
        self.assertEqual(config["sandbox-ca-sha256"], ":".join(re.findall("..", digest)))
        results = [json.loads(line) for line in lines if line.startswith('{"outcome"')]
        self.assertEqual([r["outcome"] for r in results], ["succeeded", "succeeded"], done.stdout)
        self.assertEqual(results[0]["paymentStatus"], "SETTLED")
        assert_no_card_data(self, done.stdout + done.stderr)

    def test_without_the_flag_live_refuses_the_plain_sandbox(self):
        done = run_repl("payment create\ncard test visa-frictionless\npay card\nresult --json\n",
                        args=["--environment", "live"])
        result = [json.loads(line) for line in done.stdout.splitlines() if line.startswith('{"outcome"')][0]
        self.assertEqual(result["outcome"], "failed")
        self.assertEqual(result["error"]["name"], "invalidRequest")
        self.assertIn("must use https", result["error"]["message"])


if __name__ == "__main__":
    unittest.main()
