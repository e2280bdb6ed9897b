"""egw-repl paying against a gateway that is not ours (`foreign_gateway.py`).

The gateway here is a second, independent implementation of GATEWAY.md, written from the
spec text without reading the sandbox: plain HTML pages with none of the sandbox's
conventions (no `egw-page` markers, an issuer page whose one visible field is named `otp`,
a hand-back form submitted by `<script>`, a hosted page with "Pay now" / "Cancel payment"
buttons and a session cookie), Idempotency-Key honoured or -- per scenario -- ignored, and
faults injected on a named endpoint's Nth call. See that module's docstring for what each
fault does:

    status_applied      applied, then 5xx            status_not_applied  5xx, nothing applied
    drop_applied        applied, connection reset    drop_not_applied    reset, nothing applied
    unexpected_2xx      applied, 202 with no body    malformed_applied   applied, body not JSON
    page_fail           applied, 500 HTML page       page_reset          applied, page reset
    already_processed   applied, 409 PAYMENT_ALREADY_PROCESSED
    failed_already_processed    applied, a 2xx session FAILED with PAYMENT_ALREADY_PROCESSED
    gone_applied        applied, listener closed, every (kept) connection reset
    hold / hold_applied the answer never comes (nothing applied / applied)

The gateway speaks HTTP/1.1 keep-alive, so the SDK's requests ride kept connections as
they do against a real gateway; `test_foreign_keepalive.py` holds the scenarios that need
it (applied then gone, the FAILED spelling of PAYMENT_ALREADY_PROCESSED, pages that never
finish loading) and reuses this module's checks.

Each scenario starts a fresh gateway, runs `egw-repl --no-sandbox ... --json` with a piped
script (`payment create`, the card, `buyer ...`, `pay card` / `pay hosted`) under a hard
timeout, and checks the REPL's reported outcome against the gateway's own recorded truth.
The rule every scenario asserts is CONTRACT.md 4a:

* no hang: the REPL finishes within EGW_FOREIGN_TIMEOUT seconds (default 60); a timeout is
  a failure that shows the transcript;
* exactly one result per `pay`;
* `.succeeded` only if the gateway moved the money (SETTLED);
* `.failed` / `.cancelled` only if the gateway's truth says no money moved -- and, after
  a doubtful answer to a money-moving request (a fault, or 409 PAYMENT_ALREADY_PROCESSED),
  only if a later clean answer from the gateway said so (a FAILED session, a refusal, a
  session read back that has not completed): the SDK must KNOW no money moved, not be lucky;
* no full card number anywhere in the REPL's stdout/stderr or the gateway's log.

Where the contract fixes the exact outcome (frictionless -> succeeded, right code ->
succeeded, wrong code -> failed + authenticationFailed, abandoned challenge -> cancelled,
declined -> failed, hosted pay/cancel, ...) that is asserted too. The scenarios assert the
CONTRACT, not what today's SDK does: several are expected to fail until PaymentFlow and the
REPL handle plain pages and doubtful answers.

Environment: EGW_REPL_BIN (required, else skipped), EGW_FOREIGN_TIMEOUT (seconds per REPL
run), EGW_FOREIGN_TRANSCRIPTS (a directory: every scenario's transcript is written there,
card numbers and codes of the script masked).

Run: `make test-interop` runs it with the other interop tests; alone, after `make venv` and
one `swift build --product egw-repl` in Apps/egw-repl:

    EGW_REPL_BIN=$(cd Apps/egw-repl && swift build --show-bin-path)/egw-repl \
    EGW_FOREIGN_TRANSCRIPTS=/tmp/foreign \
    .venv/bin/python -m unittest discover -s Tests/Interop -p 'test_foreign*.py' -v

A scenario that hangs costs the whole timeout; while the SDK still hangs on plain pages,
EGW_FOREIGN_TIMEOUT=20 makes a run shorter (the verdicts do not change).
"""

import datetime
import json
import os
import re
import subprocess
import time
import unittest

from foreign_gateway import MONEY_MOVED, ForeignGateway
from test_repl_support import REPL_BIN, assert_no_card_data, clean_env, needs_repl

TIMEOUT = float(os.environ.get("EGW_FOREIGN_TIMEOUT", "60"))
TRANSCRIPTS = os.environ.get("EGW_FOREIGN_TRANSCRIPTS", "")

# The foreign gateway's test cards used here (GATEWAY.md's table).
CARDS = {
    "frictionless": "4111111111111111",
    "challenge": "5555555555554444",
    "maestro-challenge": "6759649826438453",
    "attempted": "4000000000003063",
    "no-3ds": "5200828282828210",
    "declined": "4000000000000002",
    "rejected": "6011111111111117",
    "amex": "378282246310005",
}
RIGHT_CODE = "1234"
WRONG_CODE = "9999"

# CONTRACT.md, PaymentError codes.
AUTHENTICATION_FAILED = 11
CARD_SESSION_FAILED = 10
CARD_BRAND_NOT_ACCEPTED = 12

# CONTRACT.md 4a: the requests that can move money, and the answers after which the SDK
# cannot know whether they did (a fault replaced the answer, or 409 PAYMENT_ALREADY_PROCESSED).
MONEY_STEPS = {"card-session-create", "authentication", "challenge-result"}
DOUBTFUL_FAULTS = {"status_applied", "status_not_applied", "drop_applied", "drop_not_applied", "unexpected_2xx",
                   "malformed_applied", "already_processed", "page_fail", "page_reset", "failed_already_processed",
                   "gone_applied", "gone_not_applied", "gone", "hold", "hold_applied", "hold_body"}
# A FAILED session is a clean "no money moved" unless its failure says the payment was
# already processed: that is the 409's fact in another spelling (money may have moved).
DOUBTFUL_FAILURES = {"PAYMENT_ALREADY_PROCESSED"}
# Clean answers that tell the SDK no money moved: a FAILED session or a refusal from a
# money-moving step, or a session read back that has not completed.
SAYS_NO_MONEY_MOVED = {"FAILED", "INVALID_REQUEST", "INVALID_VERIFICATION_KEY", "PAYMENT_NOT_FOUND",
                       "SESSION_NOT_FOUND", "CARD_BRAND_NOT_ACCEPTED", "DECRYPTION_FAILED", "UNKNOWN_KEY",
                       "CHALLENGE_NOT_COMPLETED"}
READ_BACK_NOT_COMPLETED = {"AUTHENTICATION_REQUIRED", "CHALLENGE_REQUIRED", "FAILED", "SESSION_NOT_FOUND"}

# Deadlines the REPL will accept once the other engineer lands them; today they are
# refused ("KEY must be one of ...") and the scenario notes it.
SHORT_DEADLINES = ["config set challenge-timeout 3", "config set hosted-timeout 3"]


def expiry_year():
    return f"{(datetime.date.today().year + 5) % 100:02d}"


def card_lines(number):
    groups = " ".join(number[i:i + 4] for i in range(0, len(number), 4))
    code = "1234" if number.startswith(("34", "37")) else "123"
    return [f"card number {groups}", f"card expiry 12/{expiry_year()}", f"card cvc {code}", "card name Ann Example"]


def masked_script(script):
    """The script with card numbers and codes masked, for transcripts and failure messages."""
    lines = []
    for line in script.splitlines():
        if line.startswith("card number "):
            digits = re.sub(r"\D", "", line)
            line = f"card number •••• {digits[-4:]}"
        elif line.startswith("card cvc "):
            line = "card cvc •••"
        lines.append(line)
    return "\n".join(lines)


class Run:
    """One REPL run: its output, whether it hung, and the outcomes it printed."""

    def __init__(self, script, args, stdout, stderr, returncode, timed_out, seconds):
        self.script, self.args = script, args
        self.stdout, self.stderr = stdout, stderr
        self.returncode, self.timed_out, self.seconds = returncode, timed_out, seconds

    @property
    def outcomes(self):
        found = []
        for line in self.stdout.splitlines():
            if line.startswith('{"outcome"'):
                try:
                    found.append(json.loads(line))
                except ValueError:
                    pass
        return found

    @property
    def missing_config_keys(self):
        """The deadline settings the script sets and the REPL refused (it echoes the line)."""
        return [key for key in ("challenge-timeout", "hosted-timeout")
                if f"config set {key}" in self.script and f"config set {key}" in self.stderr]


try:  # looked up before any fork: the child only calls it
    import ctypes
    import signal
    _PRCTL = ctypes.CDLL(None, use_errno=True).prctl
except Exception:  # not Linux, or no libc symbol: the REPL simply outlives an interrupted test
    _PRCTL = None


def _die_with_the_test():
    """In the child: SIGKILL when the test process dies, so an interrupted run leaves no
    REPL waiting on a page for minutes (Linux prctl PR_SET_PDEATHSIG; best effort)."""
    if _PRCTL is not None:
        _PRCTL(1, signal.SIGKILL)


def run_repl_against(gateway, script, timeout=TIMEOUT, wrapper=(), extra_args=()):
    """`wrapper` runs the REPL inside another command (`xvfb-run -a`); `extra_args` add flags."""
    args = [*wrapper, REPL_BIN, *gateway.repl_args(), "--json", *extra_args]
    started = time.monotonic()
    process = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=clean_env(), preexec_fn=_die_with_the_test)
    try:
        stdout, stderr = process.communicate(script, timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate(timeout=30)
        timed_out = True
    return Run(script, args[len(wrapper) + 1:], stdout or "", stderr or "", process.returncode, timed_out,
               time.monotonic() - started)


def short(line, limit=320):
    return line if len(line) <= limit else line[:limit] + "…"


class ForeignGatewayCase(unittest.TestCase):
    """Helpers: a fresh gateway per scenario, a REPL run, the contract's checks."""

    maxDiff = None
    # How the REPL is run: a wrapper command and extra flags (the WebKit scenarios use xvfb-run).
    repl_wrapper = ()
    repl_extra_args = ()

    def gateway(self, **options):
        gateway = ForeignGateway(**options).start()
        self.addCleanup(gateway.stop)
        return gateway

    def pay(self, gateway, lines, pays=1):
        """Runs the script; checks no hang, one result per pay, no card data. Returns the Run.
        Failures are collected and reported together with the transcript."""
        script = "\n".join(lines) + "\n"
        run = run_repl_against(gateway, script, wrapper=self.repl_wrapper, extra_args=self.repl_extra_args)
        self._run, self._gateway, self._problems = run, gateway, []
        self.addCleanup(self._write_transcript, run, gateway)
        if run.timed_out:
            self._problems.append(f"HANG: the REPL gave no end within {TIMEOUT:.0f} s (killed)")
        elif run.returncode not in (0, 1):
            self._problems.append(f"the REPL exited with {run.returncode}")
        outcomes = run.outcomes
        if not run.timed_out and len(outcomes) != pays:
            self._problems.append(f"expected exactly {pays} result(s), got {len(outcomes)}")
        # Card data: the full numbers used must not appear in what the REPL printed, nor in
        # anything the gateway logged.
        numbers = [re.sub(r"\D", "", l) for l in lines if l.startswith("card number ")]
        for where, text in (("REPL stdout/stderr", run.stdout + run.stderr), ("gateway log", gateway.log_text())):
            squeezed = re.sub(r"[\s\-]", "", text)
            for number in numbers:
                if number in squeezed:
                    self._problems.append(f"a full card number (•••• {number[-4:]}) appears in the {where}")
            try:
                assert_no_card_data(self, text)
            except AssertionError as error:
                self._problems.append(f"card data in the {where}: {error}")
        if gateway.errors:
            self._problems.append(f"the foreign gateway itself failed: {gateway.errors}")
        return run

    def check_truth(self, outcome, gateway):
        """CONTRACT.md 4a against the gateway's own record of the payment."""
        truth = gateway.truth(outcome["paymentId"])
        if outcome["outcome"] == "succeeded" and truth not in MONEY_MOVED:
            self._problems.append(f"reported succeeded but the gateway's truth is {truth}")
        if outcome["outcome"] in ("failed", "cancelled") and truth in MONEY_MOVED:
            self._problems.append(
                f"reported {outcome['outcome']} but the gateway's truth is {truth}: the buyer would pay twice")
        elif outcome["outcome"] in ("failed", "cancelled"):
            doubt = self.unresolved_doubt(gateway)
            if doubt:
                self._problems.append(
                    f"reported {outcome['outcome']} after {doubt} that nothing from the gateway cleared up: the SDK "
                    "could not know that no money moved (CONTRACT.md 4a; the truth {truth} only made it lucky)"
                    .replace("{truth}", truth))
        return truth

    @staticmethod
    def unresolved_doubt(gateway):
        """The last doubtful answer to a money-moving request that no later clean answer (a
        FAILED session, a refusal) explained, described; None when there is none."""
        doubt = None
        for entry in gateway.log:
            if entry["endpoint"] in MONEY_STEPS and (
                    entry["fault"] in DOUBTFUL_FAULTS or entry["result"] == "PAYMENT_ALREADY_PROCESSED"
                    or entry.get("failure") in DOUBTFUL_FAILURES):
                what = entry["fault"] or f"{entry['status']} {entry['result']} {entry.get('failure') or ''}".strip()
                doubt = f"a doubtful answer ({what}) to {entry['endpoint']}"
            elif doubt and not entry["fault"] and entry.get("failure") not in DOUBTFUL_FAILURES and (
                    (entry["endpoint"] in MONEY_STEPS and entry["result"] in SAYS_NO_MONEY_MOVED)
                    or (entry["endpoint"] == "card-session-get" and entry["result"] in READ_BACK_NOT_COMPLETED)):
                doubt = None
        return doubt

    def expect(self, outcome, wanted, error_code="any", payment_status="any"):
        got = outcome["outcome"]
        if got != wanted:
            self._problems.append(f"the contract fixes the outcome {wanted}, got {got} ({self.describe(outcome)})")
            return
        code = (outcome.get("error") or {}).get("code")
        if error_code != "any" and code != error_code:
            self._problems.append(f"expected error code {error_code}, got {code} ({self.describe(outcome)})")
        if payment_status != "any" and outcome.get("paymentStatus") != payment_status:
            self._problems.append(f"expected paymentStatus {payment_status}, got {outcome.get('paymentStatus')}")

    @staticmethod
    def describe(outcome):
        error = outcome.get("error") or {}
        text = outcome["outcome"]
        if error:
            text += f", error {error.get('code')} {error.get('name')}: {error.get('message')}"
        return text

    def finish(self):
        """Fails with every problem found and the transcript."""
        if not self._problems:
            return
        run, gateway = self._run, self._gateway
        notes = []
        if run.missing_config_keys:
            notes.append("note: the REPL does not know " + ", ".join(run.missing_config_keys) + " yet")
        tail = run.stdout.splitlines()[-40:]
        message = "\n".join(
            ["", *(f"  - {p}" for p in self._problems), *notes,
             f"  truth: " + ", ".join(f"{p} {gateway.payment(p).history}" for p in gateway.payment_ids),
             "--- script", masked_script(run.script),
             f"--- stdout (last {len(tail)} lines)", *(short(l) for l in tail),
             "--- stderr", short(run.stderr, 2000),
             "--- gateway log", gateway.log_text()])
        self.fail(message)

    def _write_transcript(self, run, gateway):
        if not TRANSCRIPTS:
            return
        os.makedirs(TRANSCRIPTS, exist_ok=True)
        name = self.id().rsplit(".", 2)[-2:]
        path = os.path.join(TRANSCRIPTS, ".".join(name) + ".txt")
        problems = getattr(self, "_problems", [])
        with open(path, "w", encoding="utf-8") as out:
            out.write(f"# {self.id()}\n# {'FAIL' if problems else 'PASS'} in {run.seconds:.1f} s"
                      f"{' (timed out)' if run.timed_out else ''}, exit {run.returncode}\n")
            for problem in problems:
                out.write(f"# - {problem}\n")
            if run.missing_config_keys:
                out.write(f"# note: unknown config keys today: {', '.join(run.missing_config_keys)}\n")
            out.write("--- script\n" + masked_script(run.script) + "\n--- stdout\n" + run.stdout
                      + "\n--- stderr\n" + run.stderr + "\n--- gateway log\n" + gateway.log_text() + "\n--- truth\n")
            for payment_id in gateway.payment_ids:
                out.write(f"{payment_id} {gateway.payment(payment_id).history}\n")

    # ---- scripts

    def card_script(self, card, buyer=(), deadlines=False, pays=1):
        lines = list(SHORT_DEADLINES) if deadlines else []
        lines += ["payment create", *card_lines(CARDS[card])]
        for _ in range(pays):
            lines += [*buyer, "pay card"]
        return lines

    def hosted_script(self, buyer, deadlines=False):
        lines = list(SHORT_DEADLINES) if deadlines else []
        return lines + ["payment create", *buyer, "pay hosted"]

    def one_payment(self, gateway, lines, wanted=None, finish=True, **expected):
        """Runs a one-pay script and applies every check; `wanted` is the exact outcome, if fixed."""
        run = self.pay(gateway, lines)
        outcomes = run.outcomes
        if len(outcomes) >= 1:
            self.check_truth(outcomes[0], gateway)
            if wanted is not None:
                self.expect(outcomes[0], wanted, **expected)
        if finish:
            self.finish()
        return outcomes[0] if outcomes else None


@needs_repl
class CardFlow(ForeignGatewayCase):
    """The card flow's normal paths on plain pages, with the outcomes the contract fixes."""

    def test_frictionless_succeeds(self):
        gateway = self.gateway()
        got = self.one_payment(gateway, self.card_script("frictionless"), "succeeded", error_code=None)
        self.assertTrue(got["sessionId"])
        self.assertEqual(gateway.truth(got["paymentId"]), "SETTLED")

    def test_a_key_on_its_own_host_pays_as_before(self):
        # With the key on another host, the SDK opens the card-session host's connection with
        # `OPTIONS *` while it fetches the key. This gateway does not implement OPTIONS: Python's
        # http.server answers 501 and closes, unlogged. That connection is dropped, and the
        # creation opens its own: the payment is what it always was.
        gateway = self.gateway()
        self.repl_extra_args = ("--checkout-base-url", gateway.checkout_base_url.replace("127.0.0.1", "localhost"))
        got = self.one_payment(gateway, self.card_script("frictionless"), "succeeded", error_code=None)
        self.assertEqual(gateway.truth(got["paymentId"]), "SETTLED")
        logged = {entry["connection"] for entry in gateway.log}
        self.assertEqual(gateway._connection_count - len(logged), 1, "one connection carried only OPTIONS *")

    def test_challenge_right_code_succeeds(self):
        gateway = self.gateway()
        self.one_payment(gateway, self.card_script("challenge", [f"buyer challenge {RIGHT_CODE}"]),
                         "succeeded", error_code=None)

    def test_challenge_right_code_with_an_onload_handback_succeeds(self):
        gateway = self.gateway(autosubmit="onload")
        self.one_payment(gateway, self.card_script("maestro-challenge", [f"buyer challenge {RIGHT_CODE}"]),
                         "succeeded", error_code=None)

    def test_challenge_wrong_code_fails_with_authentication_failed(self):
        gateway = self.gateway()
        self.one_payment(gateway, self.card_script("challenge", [f"buyer challenge {WRONG_CODE}"]),
                         "failed", error_code=AUTHENTICATION_FAILED)

    def test_challenge_abandoned_is_cancelled(self):
        # The buyer closes the issuer's page without answering: the gateway says
        # CHALLENGE_NOT_COMPLETED, so no money moved (CONTRACT.md 4).
        gateway = self.gateway()
        got = self.one_payment(gateway, self.card_script("challenge", ["buyer close"], deadlines=True), "cancelled")
        if got:
            self.assertEqual(gateway.truth(got["paymentId"]), "INITIALIZED")

    def test_challenge_answered_then_the_handback_page_fails(self):
        # The issuer recorded the right answer, then its hand-back page is a 500: the SDK
        # must ask challenge-result and report the issuer's answer.
        gateway = self.gateway()
        gateway.fault("acs-submit", "page_fail")
        self.one_payment(gateway, self.card_script("challenge", [f"buyer challenge {RIGHT_CODE}"]),
                         "succeeded", error_code=None)

    def test_challenge_answered_then_the_handback_page_resets(self):
        gateway = self.gateway()
        gateway.fault("acs-submit", "page_reset")
        self.one_payment(gateway, self.card_script("challenge", [f"buyer challenge {RIGHT_CODE}"]),
                         "succeeded", error_code=None)

    def test_challenge_answered_then_the_notification_page_fails(self):
        gateway = self.gateway()
        gateway.fault("notification", "page_fail")
        self.one_payment(gateway, self.card_script("challenge", [f"buyer challenge {RIGHT_CODE}"]),
                         "succeeded", error_code=None)

    def test_challenge_wrong_code_then_the_handback_page_fails(self):
        gateway = self.gateway()
        gateway.fault("acs-submit", "page_fail")
        self.one_payment(gateway, self.card_script("challenge", [f"buyer challenge {WRONG_CODE}"]),
                         "failed", error_code=AUTHENTICATION_FAILED)

    def test_declined_fails(self):
        gateway = self.gateway()
        got = self.one_payment(gateway, self.card_script("declined"), "failed", error_code=CARD_SESSION_FAILED)
        if got:
            self.assertEqual(gateway.truth(got["paymentId"]), "FAILED")

    def test_attempted_succeeds(self):
        self.one_payment(self.gateway(), self.card_script("attempted"), "succeeded", error_code=None)

    def test_no_3ds_succeeds_at_creation(self):
        self.one_payment(self.gateway(), self.card_script("no-3ds"), "succeeded", error_code=None)

    def test_rejected_fails_with_authentication_failed(self):
        self.one_payment(self.gateway(), self.card_script("rejected"), "failed", error_code=AUTHENTICATION_FAILED)

    def test_brand_not_accepted(self):
        self.one_payment(self.gateway(), self.card_script("amex"), "failed", error_code=CARD_BRAND_NOT_ACCEPTED)


@needs_repl
class HostedFlow(ForeignGatewayCase):
    """The hosted checkout on a plain page: "Pay now" / "Cancel payment", a cookie, a 303."""

    def test_pay_succeeds(self):
        self.one_payment(self.gateway(), self.hosted_script(["buyer hosted pay"]), "succeeded", error_code=None,
                         payment_status="SETTLED")

    def test_cancel_is_cancelled(self):
        self.one_payment(self.gateway(), self.hosted_script(["buyer hosted cancel"]), "cancelled",
                         payment_status="CANCELLED")

    def test_bank_declines_after_pay_fails(self):
        gateway = self.gateway(hosted_pay_status="FAILED")
        self.one_payment(gateway, self.hosted_script(["buyer hosted pay"]), "failed", payment_status="FAILED")

    def test_paid_then_the_next_page_fails(self):
        # The choice was applied (SETTLED), then the page after it is a 500: a later page
        # failing means a status lookup, and SETTLED wins (CONTRACT.md 3).
        gateway = self.gateway()
        gateway.fault("hosted-choice", "page_fail")
        self.one_payment(gateway, self.hosted_script(["buyer hosted pay"]), "succeeded", payment_status="SETTLED")

    def test_paid_then_the_next_page_resets(self):
        gateway = self.gateway()
        gateway.fault("hosted-choice", "page_reset")
        self.one_payment(gateway, self.hosted_script(["buyer hosted pay"]), "succeeded", payment_status="SETTLED")

    def test_closed_without_a_choice_is_cancelled(self):
        gateway = self.gateway()
        got = self.one_payment(gateway, self.hosted_script(["buyer close"], deadlines=True), "cancelled")
        if got:
            self.assertEqual(gateway.truth(got["paymentId"]), "INITIALIZED")


# The money-moving steps and the card that makes each one move the money.
FAULTED_STEPS = {
    "card-session-create": ("no-3ds", []),  # COMPLETED (SETTLED) at creation
    "authentication": ("frictionless", []),  # COMPLETED (SETTLED) at authentication
    "challenge-result": ("challenge", [f"buyer challenge {RIGHT_CODE}"]),  # SETTLED at challenge-result
}
API_FAULTS = ["status_applied", "status_not_applied", "drop_applied", "drop_not_applied", "unexpected_2xx",
              "malformed_applied", "already_processed"]
# failed_already_processed and gone_applied have their own scenarios, with exact endings and
# their preconditions checked, in test_foreign_keepalive.py.


@needs_repl
class Faults(ForeignGatewayCase):
    """Every fault on each money-moving step, with Idempotency-Key honoured and ignored.

    No exact outcome is fixed here (a resend may recover, or the run is .unresolved): only
    the contract's rule -- no hang, one result, never .succeeded without the money, never
    .failed/.cancelled when the money moved."""

    def run_fault(self, endpoint, kind, honour):
        card, buyer = FAULTED_STEPS[endpoint]
        gateway = self.gateway(honour_idempotency=honour)
        gateway.fault(endpoint, kind)
        self.one_payment(gateway, self.card_script(card, buyer), finish=False)
        if gateway.calls(endpoint) == 0 and not self._run.timed_out:
            self._problems.append(f"the faulted step {endpoint} was never called")
        self.finish()


def _add_fault_tests():
    for endpoint in FAULTED_STEPS:
        for kind in API_FAULTS:
            for honour in (True, False):
                name = f"test_{endpoint.replace('-', '_')}_{kind}_{'key_honoured' if honour else 'key_ignored'}"

                def test(self, endpoint=endpoint, kind=kind, honour=honour):
                    self.run_fault(endpoint, kind, honour)

                test.__doc__ = f"{kind} on {endpoint}, Idempotency-Key {'honoured' if honour else 'ignored'}"
                setattr(Faults, name, test)


_add_fault_tests()


@needs_repl
class NaturalRetry(ForeignGatewayCase):
    """A creation applied but lost, then the buyer presses pay again on the same payment.

    The first `pay card` loses the answer of a creation that settled the payment; the second
    `pay card` (a new logical step, a new key) meets `409 PAYMENT_ALREADY_PROCESSED`, which
    GATEWAY.md maps to .unresolved: never .failed (the buyer would pay a third time)."""

    def retry(self, honour):
        gateway = self.gateway(honour_idempotency=honour)
        gateway.fault("card-session-create", "drop_applied")
        run = self.pay(gateway, self.card_script("no-3ds", pays=2), pays=2)
        outcomes = run.outcomes
        for outcome in outcomes:
            self.check_truth(outcome, gateway)
        if len(outcomes) == 2:
            self.expect(outcomes[1], "unresolved", error_code=CARD_SESSION_FAILED)
        self.finish()

    def test_retry_after_a_lost_creation_key_honoured(self):
        self.retry(True)

    def test_retry_after_a_lost_creation_key_ignored(self):
        self.retry(False)


class GatewaySelfCheck(unittest.TestCase):
    """The foreign gateway itself, without the REPL: it must be a faithful second
    implementation, or the scenarios above prove nothing."""

    def setUp(self):
        self.gateway = ForeignGateway().start()
        self.addCleanup(self.gateway.stop)
        self.payment = self.gateway.create_payment()
        self.sessions = (f"{self.gateway.checkout_api_base_url}/checkout/api/egw/v1/payments/"
                         f"{self.payment['paymentId']}/card-sessions")

    def post(self, url, body, key=None, verification_key=None):
        from sandbox_process import api_headers, http
        headers = api_headers(verification_key or self.payment["verificationKey"])
        if key:
            headers["Idempotency-Key"] = key
        return http("POST", url, body=body, headers=headers)

    def encrypted(self, number):
        from jwcrypto import jwe, jwk
        from sandbox_process import http
        status, headers, body = http("GET", self.gateway.checkout_base_url + "/checkout/.well-known/jwks.json")
        self.assertEqual(status, 200)
        self.assertEqual(headers.get("cache-control"), "max-age=300")
        key = jwk.JWK(**json.loads(body)["keys"][0])
        self.assertEqual(key.export_public(as_dict=True)["kty"], "RSA")
        plaintext = json.dumps({"cardholderName": "Ann Example", "cardNumber": number, "expiryMonth": "12",
                                "expiryYear": expiry_year(), "securityCode": "123"}).encode()
        token = jwe.JWE(plaintext, recipient=key, protected=json.dumps(
            {"alg": "RSA-OAEP-256", "enc": "A256GCM", "kid": key.kid}))
        return token.serialize(compact=True)

    def test_a_lost_creation_is_replayed_for_the_same_key_and_refused_for_a_new_one(self):
        self.gateway.fault("card-session-create", "drop_applied")
        body = {"encryptedCard": self.encrypted(CARDS["no-3ds"])}
        with self.assertRaises(OSError):
            self.post(self.sessions, body, key="k-1")
        self.assertEqual(self.gateway.truth(self.payment["paymentId"]), "SETTLED")
        status, _, answer = self.post(self.sessions, body, key="k-1")
        self.assertEqual((status, json.loads(answer)["status"]), (201, "COMPLETED"))
        self.assertEqual(self.gateway.replays, 1)
        status, _, answer = self.post(self.sessions, {"encryptedCard": self.encrypted(CARDS["no-3ds"])}, key="k-1")
        self.assertEqual((status, json.loads(answer)["error"]["code"]), (422, "IDEMPOTENCY_KEY_REUSED"))
        status, _, answer = self.post(self.sessions, body, key="k-2")
        self.assertEqual((status, json.loads(answer)["error"]["code"]), (409, "PAYMENT_ALREADY_PROCESSED"))
        log = self.gateway.log_text()
        for number in CARDS.values():
            self.assertNotIn(number, log)

    def test_challenge_result_waits_for_the_buyer(self):
        from sandbox_process import http
        status, _, answer = self.post(self.sessions, {"encryptedCard": self.encrypted(CARDS["challenge"])}, key="a")
        session_id = json.loads(answer)["sessionId"]
        notification = f"{self.gateway.checkout_base_url}/checkout/3ds/notification/{session_id}"
        status, _, answer = self.post(f"{self.sessions}/{session_id}/authentication",
                                      {"notificationUrl": notification, "browser": {}}, key="b")
        challenge = json.loads(answer)["challenge"]
        status, _, answer = self.post(f"{self.sessions}/{session_id}/challenge-result", {}, key="c")
        self.assertEqual((status, json.loads(answer)["error"]["code"]), (409, "CHALLENGE_NOT_COMPLETED"))
        status, _, page = http("POST", challenge["acsUrl"], form={"creq": challenge["creq"]})
        page = page.decode()
        self.assertNotIn("egw-page", page)
        self.assertEqual(re.findall(r'<input type="text"[^>]*name="(\w+)"', page), ["otp"])
        txn = re.search(r'name="txn" value="(\w+)"', page).group(1)
        status, _, page = http("POST", f"{self.gateway.base_url}/issuer/acs/verify", form={"txn": txn, "otp": "1234"})
        self.assertIn("document.forms[0].submit()", page.decode())
        status, _, answer = self.post(f"{self.sessions}/{session_id}/challenge-result", {}, key="d")
        self.assertEqual((status, json.loads(answer)["status"]), (200, "COMPLETED"))
        self.assertEqual(self.gateway.truth(self.payment["paymentId"]), "SETTLED")

    def test_the_hosted_page_is_plain_and_redirects_after_the_choice(self):
        from sandbox_process import http
        status, headers, page = http("GET", self.payment["_links"]["checkoutRedirect"]["href"])
        page = page.decode()
        self.assertEqual(status, 200)
        self.assertNotIn("egw-page", page)
        self.assertIn(">Pay now</button>", page)
        self.assertIn(">Cancel payment</button>", page)
        token = re.search(r'name="token" value="([^"]+)"', page).group(1)
        url = self.payment["_links"]["checkoutRedirect"]["href"]
        status, _, _ = http("POST", url, form={"token": token, "action": "pay"})
        self.assertEqual(status, 400, "without the page's cookie the choice is refused")
        cookie = headers["set-cookie"].split(";")[0]
        status, headers, _ = http("POST", url, form={"token": token, "action": "pay"}, headers={"Cookie": cookie})
        self.assertEqual((status, headers.get("location")), (303, self.payment["shopRedirectUrl"]))
        self.assertEqual(self.gateway.truth(self.payment["paymentId"]), "SETTLED")


if __name__ == "__main__":
    unittest.main()
