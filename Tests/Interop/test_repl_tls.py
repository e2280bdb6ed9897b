"""egw-repl --sandbox-tls: the embedded sandbox over HTTPS from its own test CA, paid in `live`.

`--environment live` requires https for every URL; with --sandbox-tls the embedded sandbox
serves HTTPS and every transport of the shell (the SDK's, the buyer's browser, `payment create`,
`status`) trusts its CA. `config` shows the CA file and its SHA-256 fingerprint, checked here
against the file with python's own hashlib. Expected outcomes come from GATEWAY.md's test-card
table and hosted-page choices.
"""

import hashlib
import json
import os
import re
import select
import ssl
import subprocess
import time
import unittest

from test_repl_support import REPL_BIN, assert_no_card_data, clean_env, needs_repl, run_repl


@needs_repl
class SandboxTLS(unittest.TestCase):
    def test_live_payments_against_the_https_sandbox(self):
        # The shell removes its CA file when it exits, so the file is read while the shell runs:
        # `config` first, the file checked, then the payments.
        shell = subprocess.Popen([REPL_BIN, "--sandbox-tls", "--environment", "live"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=clean_env())
        try:
            shell.stdin.write("config\n")
            shell.stdin.flush()
            seen = read_until(shell.stdout, lambda line: line.startswith("  sandbox-ca-sha256"), seconds=60)
            config = dict(line.split(None, 1) for line in map(str.rstrip, seen)
                          if line.startswith("  ") and len(line.split(None, 1)) == 2)
            for key in ("api-base-url", "checkout-api-base-url", "checkout-base-url", "merchant-base-url"):
                self.assertTrue(config[key].startswith("https://127.0.0.1:"), config)
            self.assertEqual(config["environment"], "live")
            with open(config["sandbox-ca"]) as handle:
                der = ssl.PEM_cert_to_DER_cert(handle.read())
            digest = hashlib.sha256(der).hexdigest().upper()
            self.assertEqual(config["sandbox-ca-sha256"], ":".join(re.findall("..", digest)))
            rest, errors = shell.communicate(
                "payment create\nbuyer hosted pay\npay hosted\nresult --json\n"
                "payment create\ncard test visa-frictionless\npay card\nresult --json\n", timeout=120)
        finally:
            if shell.poll() is None:
                shell.kill()
                shell.wait()
            for pipe in (shell.stdin, shell.stdout, shell.stderr):
                if not pipe.closed:
                    pipe.close()
        self.assertEqual(shell.returncode, 0, rest + errors)
        results = [json.loads(line) for line in rest.splitlines() if line.startswith('{"outcome"')]
        self.assertEqual([r["outcome"] for r in results], ["succeeded", "succeeded"], rest)
        self.assertEqual(results[0]["paymentStatus"], "SETTLED")
        assert_no_card_data(self, "".join(seen) + rest + errors)

    def test_without_the_flag_live_refuses_the_plain_sandbox(self):
        # Before any payment: the shell will not start `live` on plain-HTTP URLs (a usage error).
        done = run_repl("payment create\ncard test visa-frictionless\npay card\nresult --json\n",
                        args=["--environment", "live"])
        self.assertEqual(done.returncode, 64, done.stdout + done.stderr)
        self.assertIn("https", done.stderr)
        self.assertNotIn('{"outcome"', done.stdout)


def read_until(stream, stop, seconds):
    """The lines read from `stream` up to and including the first for which `stop` is true.

    Reads the pipe's descriptor directly (no Python-side buffer for select to miss)."""
    deadline = time.monotonic() + seconds
    pending = b""
    lines = []
    while time.monotonic() < deadline:
        ready, _, _ = select.select([stream.fileno()], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        chunk = os.read(stream.fileno(), 65536)
        if not chunk:
            break
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            lines.append(line.decode() + "\n")
            if stop(lines[-1]):
                return lines
    raise AssertionError("the shell did not print what was awaited: " + "".join(lines))


if __name__ == "__main__":
    unittest.main()
