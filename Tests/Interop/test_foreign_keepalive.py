"""egw-repl against the foreign gateway on kept connections: issue 18's three truths.

`foreign_gateway.py` speaks HTTP/1.1 keep-alive, so the SDK's libcurl (connection reuse on,
its default) sends the authentication POST on the connection that carried the session's
creation, as it does against a real gateway. The scenarios here (helpers and checks from
`test_foreign_gateway.py`; the oracle is always the gateway's own record, never the SDK's
output):

* Applied then gone. The gateway reads the whole keyed POST, applies it (the payment is
  SETTLED), closes its listening socket and resets the kept connection: libcurl's
  reconnect is refused and nothing can be read back. The money moved, so `.failed` or
  `.cancelled` would make the buyer pay twice; `.succeeded` needs a read-back that cannot
  happen. The one honest ending is `.unresolved`. The gateway's log must show that the
  POST rode a connection that had already carried the previous request (else the scenario
  did not test what it claims), and the REPL must still finish.
* A FAILED session with `failure.code` PAYMENT_ALREADY_PROCESSED on a paid payment: the
  409's fact in another spelling, so `.unresolved` with the 409's error
  (`cardSessionFailed`), never `.failed`, and no "use another card" advice.
* Pages that never finish loading (the gateway holds the answer longer than the REPL's page
  deadline, `config set timeout`): the run ends within the deadline, and the ending
  follows the truth -- `.cancelled`/`.failed` only where no money moved, `.succeeded` where
  the buyer's applied POST can be read back (status lookup, challenge-result).

These assert the contract (CONTRACT.md 4a, GATEWAY.md, issue 18), not today's SDK: the
ones issue 18's SDK change fixes fail before it.

Run (after `make venv` and one `swift build --product egw-repl` in Apps/egw-repl):

    EGW_REPL_BIN=$(cd Apps/egw-repl && swift build --show-bin-path)/egw-repl \\
    .venv/bin/python -m unittest discover -s Tests/Interop -p 'test_foreign*.py' -v
"""

import http.client
import json
import re
import socket
import time
import unittest

from foreign_gateway import ForeignGateway
from test_foreign_gateway import AUTHENTICATION_FAILED, CARD_SESSION_FAILED, RIGHT_CODE, WRONG_CODE, \
    ForeignGatewayCase
from test_repl_support import needs_repl

# The REPL's page deadline: the buyer's browser gives each page load `timeout` seconds
# (Apps/egw-repl README, `config set timeout`), and the challenge / hosted page may stay
# open `challenge-timeout` / `hosted-timeout` seconds. The gateway holds a page far longer.
PAGE_DEADLINE = 4
SHORT_PAGE_DEADLINES = [f"config set timeout {PAGE_DEADLINE}", f"config set challenge-timeout {PAGE_DEADLINE * 3}",
                        f"config set hosted-timeout {PAGE_DEADLINE * 3}"]

# The "use another card" advice (and its kin) must not follow a payment that may be paid.
RETRY_ADVICE = re.compile(r"another card|different card|try again with", re.IGNORECASE)


class KeptConnectionCase(ForeignGatewayCase):

    def entries(self, gateway, endpoint, fault=None):
        return [e for e in gateway.log if e["endpoint"] == endpoint and (fault is None or e["fault"] == fault)]

    def require(self, condition, problem):
        """A precondition of the scenario itself (what the gateway did): when it does not
        hold, the scenario did not test what it claims, and says so."""
        if not condition:
            self._problems.append("scenario not exercised: " + problem)

    def no_retry_advice(self, run):
        found = RETRY_ADVICE.search(run.stdout + run.stderr)
        if found:
            self._problems.append(f"the output advises a retry ({found.group()!r}) on a payment that may be paid")


# The money step, the card that makes it move the money, the buyer, and the request that
# must have ridden the same connection before it (libcurl reuses the connection it left).
GONE_STEPS = {
    "card-session-create": ("no-3ds", [], "jwks"),
    "authentication": ("frictionless", [], "card-session-create"),
    "challenge-result": ("challenge", [f"buyer challenge {RIGHT_CODE}"], "authentication"),
}


@needs_repl
class AppliedThenGone(KeptConnectionCase):
    """The money step applied, then the gateway gone: listener closed, kept connection reset."""

    def gone_after(self, endpoint, honour=True, kind="gone_applied"):
        card, buyer, before = GONE_STEPS[endpoint]
        gateway = self.gateway(honour_idempotency=honour)
        gateway.fault(endpoint, kind)
        got = self.one_payment(gateway, self.card_script(card, buyer), "unresolved", finish=False)
        faulted = self.entries(gateway, endpoint, kind)
        self.require(len(faulted) == 1, f"the gateway never went away on {endpoint}")
        if faulted:
            entry = faulted[0]
            self.require(before in entry["carried"],
                         f"{endpoint} came on connection c{entry['connection']} (peer port {entry['peerPort']}), "
                         f"which carried {entry['carried'] or 'nothing'} before it: not the kept connection "
                         f"that carried {before}")
        self.require(gateway.gone, "the gateway is still listening")
        if got:
            truth, meant = gateway.truth(got["paymentId"]), "SETTLED" if kind == "gone_applied" else "INITIALIZED"
            self.require(truth == meant, f"after the faulted {endpoint} the truth is {truth}, not {meant}")
        self.no_retry_advice(self._run)
        self.finish()

    def test_authentication_applied_then_gone_is_unresolved(self):
        # Issue 18's first case, to the letter: a frictionless card's authentication moves
        # the money on the connection left by the session's creation.
        self.gone_after("authentication")

    def test_authentication_applied_then_gone_key_ignored_is_unresolved(self):
        self.gone_after("authentication", honour=False)

    def test_authentication_not_applied_then_gone_is_unresolved_too(self):
        # The same bytes on the wire as the applied case, but the gateway applied nothing
        # (truth INITIALIZED). The SDK cannot tell the two apart, so it must end both the
        # same way, and the applied one allows only .unresolved: a .failed here is a guess
        # that happens to be right, and the same guess pays twice in the applied case.
        self.gone_after("authentication", kind="gone_not_applied")

    def test_creation_applied_then_gone_is_unresolved(self):
        self.gone_after("card-session-create")

    def test_challenge_result_applied_then_gone_is_unresolved(self):
        self.gone_after("challenge-result")

    def test_hosted_pay_applied_then_gone_is_unresolved(self):
        # The buyer's "Pay now" POST is applied (SETTLED), then the gateway goes away: the
        # page fails, the status lookup is refused, so .unresolved with the lookup's
        # failure in error (CONTRACT.md 3), never .failed/.cancelled.
        gateway = self.gateway()
        gateway.fault("hosted-choice", "gone_applied")
        got = self.one_payment(gateway, ["payment create", "buyer hosted pay", "pay hosted"], "unresolved",
                               finish=False)
        faulted = self.entries(gateway, "hosted-choice", "gone_applied")
        self.require(len(faulted) == 1, "the gateway never went away on hosted-choice")
        if got:
            self.require(gateway.truth(got["paymentId"]) == "SETTLED", "the pay POST did not move the money")
            if got["outcome"] == "unresolved" and not got.get("error"):
                self._problems.append("unresolved without the failed lookup's reason in error (CONTRACT.md 3)")
        self.finish()


@needs_repl
class FailedAlreadyProcessed(KeptConnectionCase):
    """`200/201 {"status":"FAILED","failure":{"code":"PAYMENT_ALREADY_PROCESSED"}}` on a paid payment."""

    def check_failed_session_answer(self, gateway):
        answered = [e for e in gateway.log
                    if e["status"] in (200, 201) and e["result"] == "FAILED"
                    and e["failure"] == "PAYMENT_ALREADY_PROCESSED"]
        self.require(answered, "no money step was answered with a FAILED session PAYMENT_ALREADY_PROCESSED")

    def test_a_second_card_payment_on_a_paid_payment(self):
        gateway = self.gateway(closed_payment_answer="failed-session")
        run = self.pay(gateway, self.card_script("no-3ds", pays=2), pays=2)
        outcomes = run.outcomes
        for outcome in outcomes:
            self.check_truth(outcome, gateway)
        if len(outcomes) == 2:
            self.expect(outcomes[0], "succeeded", error_code=None)
            self.require(gateway.truth(outcomes[1]["paymentId"]) == "SETTLED", "the payment is not paid")
            self.expect(outcomes[1], "unresolved", error_code=CARD_SESSION_FAILED)
        self.check_failed_session_answer(gateway)
        self.no_retry_advice(run)
        self.finish()

    def test_a_card_payment_after_the_hosted_page_paid(self):
        gateway = self.gateway(closed_payment_answer="failed-session")
        lines = ["payment create", "buyer hosted pay", "pay hosted", *self.card_script("frictionless")[1:]]
        run = self.pay(gateway, lines, pays=2)
        outcomes = run.outcomes
        for outcome in outcomes:
            self.check_truth(outcome, gateway)
        if len(outcomes) == 2:
            self.expect(outcomes[0], "succeeded", payment_status="SETTLED")
            self.expect(outcomes[1], "unresolved", error_code=CARD_SESSION_FAILED)
        self.check_failed_session_answer(gateway)
        self.no_retry_advice(run)
        self.finish()

    def failed_answer_on(self, endpoint, card, buyer=(), expected="unresolved", error_code=CARD_SESSION_FAILED):
        gateway = self.gateway()
        gateway.fault(endpoint, "failed_already_processed")
        got = self.one_payment(gateway, self.card_script(card, list(buyer)), expected,
                               error_code=error_code, finish=False)
        self.require(self.entries(gateway, endpoint, "failed_already_processed"), f"{endpoint} was never faulted")
        if got:
            self.require(gateway.truth(got["paymentId"]) == "SETTLED", "the faulted step did not move the money")
        self.check_failed_session_answer(gateway)
        self.no_retry_advice(self._run)
        self.finish()

    def test_failed_session_answer_to_creation(self):
        self.failed_answer_on("card-session-create", "no-3ds")

    # After an existing session's step is answered FAILED PAYMENT_ALREADY_PROCESSED, the SDK reads the
    # session back; this gateway's read shows it COMPLETED (the step moved the money), so the SDK can
    # know: succeeded is the exact answer. A creation has no session to read: unresolved.
    def test_failed_session_answer_to_authentication(self):
        self.failed_answer_on("authentication", "frictionless", expected="succeeded", error_code=None)

    def test_failed_session_answer_to_challenge_result(self):
        self.failed_answer_on("challenge-result", "challenge", [f"buyer challenge {RIGHT_CODE}"],
                              expected="succeeded", error_code=None)


@needs_repl
class PagesThatNeverLoad(KeptConnectionCase):
    """The gateway holds a page's answer far beyond the REPL's page deadline."""

    def held(self, endpoint, kind, lines, allowed, wanted_truth, **expected):
        gateway = self.gateway()
        gateway.fault(endpoint, kind)
        run = self.pay(gateway, SHORT_PAGE_DEADLINES + lines)
        held = self.entries(gateway, endpoint, kind)
        self.require(len(held) == 1, f"the page {endpoint} was held {len(held)} times, not once")
        if held and not run.timed_out:
            # The REPL finished while the gateway still held the page: it never got it.
            self.require(held[0]["status"] is None or "body held" in str(held[0]["status"]),
                         f"the held {endpoint} was answered ({held[0]['status']}) before the REPL finished")
        outcomes = run.outcomes
        if outcomes:
            got = outcomes[0]
            truth = self.check_truth(got, gateway)
            self.require(truth == wanted_truth, f"the truth is {truth}, the scenario meant {wanted_truth}")
            if got["outcome"] not in allowed:
                self._problems.append(
                    f"ended {self.describe(got)} with truth {truth}; the truth allows only {sorted(allowed)}")
            elif len(allowed) == 1:
                self.expect(got, next(iter(allowed)), **expected)
        budget = PAGE_DEADLINE * 3 + 20
        if not run.timed_out and run.seconds > budget:
            self._problems.append(f"the run took {run.seconds:.0f} s, past the page deadlines (budget {budget} s)")
        self.finish()

    def test_the_hosted_page_never_loads(self):
        # Nothing can have happened: .failed (pageLoadFailed) or .cancelled (the page's deadline).
        self.held("hosted-page", "hold", ["payment create", "buyer hosted pay", "pay hosted"],
                  {"failed", "cancelled"}, "INITIALIZED")

    def test_the_challenge_page_never_loads(self):
        # The issuer's page never reaches the buyer: no answer, no money (challenge-result
        # says CHALLENGE_NOT_COMPLETED when asked).
        self.held("acs-page", "hold", self.card_script("challenge", [f"buyer challenge {RIGHT_CODE}"]),
                  {"failed", "cancelled"}, "INITIALIZED")

    def test_paid_on_the_hosted_page_then_the_next_page_never_loads(self):
        # "Pay now" was applied (SETTLED) and its answer never comes: a later page that does
        # not load means a status lookup, and SETTLED wins (CONTRACT.md 3).
        self.held("hosted-choice", "hold_applied", ["payment create", "buyer hosted pay", "pay hosted"],
                  {"succeeded"}, "SETTLED", payment_status="SETTLED")

    def test_challenge_answered_then_the_handback_page_never_loads(self):
        # The issuer recorded the right code, its hand-back page never loads: the SDK asks
        # challenge-result, which completes the session (SETTLED).
        self.held("acs-submit", "hold_applied", self.card_script("challenge", [f"buyer challenge {RIGHT_CODE}"]),
                  {"succeeded"}, "SETTLED", error_code=None)

    def test_wrong_code_then_the_handback_page_never_loads(self):
        # The issuer recorded the wrong code (N), its hand-back page never loads: asked,
        # challenge-result fails the session, so .failed with authenticationFailed.
        self.held("acs-submit", "hold_applied", self.card_script("challenge", [f"buyer challenge {WRONG_CODE}"]),
                  {"failed"}, "FAILED", error_code=AUTHENTICATION_FAILED)

    def test_the_hosted_page_stops_halfway(self):
        # Headers and half the page arrive, the rest never does.
        self.held("hosted-page", "hold_body", ["payment create", "buyer hosted pay", "pay hosted"],
                  {"failed", "cancelled"}, "INITIALIZED")

    def test_the_challenge_page_stops_halfway(self):
        self.held("acs-page", "hold_body", self.card_script("challenge", [f"buyer challenge {RIGHT_CODE}"]),
                  {"failed", "cancelled"}, "INITIALIZED")

    def test_challenge_answered_then_the_handback_page_stops_halfway(self):
        self.held("acs-submit", "hold_body", self.card_script("challenge", [f"buyer challenge {RIGHT_CODE}"]),
                  {"succeeded"}, "SETTLED", error_code=None)

    def test_the_code_never_reaches_the_issuer(self):
        # The buyer's code POST is held unapplied: the issuer has no answer, challenge-result
        # says CHALLENGE_NOT_COMPLETED, no money moved.
        self.held("acs-submit", "hold", self.card_script("challenge", [f"buyer challenge {RIGHT_CODE}"]),
                  {"failed", "cancelled"}, "INITIALIZED")


class KeepAliveSelfCheck(unittest.TestCase):
    """The foreign gateway's own keep-alive, gone and hold mechanics, without the REPL."""

    def setUp(self):
        self.gateway = ForeignGateway().start()
        self.addCleanup(self.gateway.stop)
        self.port = int(self.gateway.base_url.rsplit(":", 1)[1])

    def connection(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        self.addCleanup(connection.close)
        return connection

    def get_jwks(self, connection):
        connection.request("GET", "/web/checkout/.well-known/jwks.json")
        answer = connection.getresponse()
        body = answer.read()
        return answer, body

    def test_requests_ride_one_kept_connection_and_the_log_says_so(self):
        connection = self.connection()
        for _ in range(3):
            answer, body = self.get_jwks(connection)
            self.assertEqual(answer.status, 200)
            self.assertEqual(int(answer.getheader("Content-Length")), len(body))
            self.assertIsNone(answer.getheader("Connection"))
        log = self.gateway.log
        self.assertEqual([e["connection"] for e in log], [1, 1, 1])
        self.assertEqual([e["onConnection"] for e in log], [1, 2, 3])
        self.assertEqual(log[2]["carried"], ["jwks", "jwks"])
        self.assertEqual(len({e["peerPort"] for e in log}), 1)

    def test_gone_applies_then_refuses_every_reconnect_and_resets_kept_connections(self):
        kept, idle = self.connection(), self.connection()
        self.get_jwks(kept)
        self.get_jwks(idle)
        self.gateway.fault("jwks", "gone_applied")
        with self.assertRaises((ConnectionError, http.client.HTTPException)):
            self.get_jwks(kept)
        self.assertTrue(self.gateway.gone)
        with self.assertRaises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", self.port), timeout=5).close()
        with self.assertRaises((ConnectionError, http.client.HTTPException, OSError)):
            self.get_jwks(idle)
        faulted = [e for e in self.gateway.log if e["fault"] == "gone_applied"]
        self.assertEqual([(e["connection"], e["onConnection"]) for e in faulted], [(1, 2)])

    def test_a_held_answer_never_comes_and_stop_ends_it(self):
        self.gateway.fault("jwks", "hold")
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=1)
        self.addCleanup(connection.close)
        with self.assertRaises((socket.timeout, TimeoutError)):
            self.get_jwks(connection)
        started = time.monotonic()
        self.gateway.stop()
        self.assertLess(time.monotonic() - started, 5)

    def test_failed_session_spelling_of_already_processed(self):
        gateway = ForeignGateway(closed_payment_answer="failed-session").start()
        self.addCleanup(gateway.stop)
        payment = gateway.create_payment()
        with gateway._lock:
            gateway._payments[payment["paymentId"]].status = "SETTLED"
        from test_foreign_gateway import GatewaySelfCheck
        helper = GatewaySelfCheck("test_challenge_result_waits_for_the_buyer")
        helper.gateway, helper.payment = gateway, payment
        sessions = f"{gateway.checkout_api_base_url}/checkout/api/egw/v1/payments/{payment['paymentId']}/card-sessions"
        status, _, answer = helper.post(sessions, {"encryptedCard": helper.encrypted("5200828282828210")}, key="k")
        body = json.loads(answer)
        self.assertEqual((status, body["status"], body["failure"]["code"]),
                         (201, "FAILED", "PAYMENT_ALREADY_PROCESSED"))
        self.assertEqual(gateway.truth(payment["paymentId"]), "SETTLED")
        self.assertEqual(gateway.log[-1]["failure"], "PAYMENT_ALREADY_PROCESSED")
        self.assertNotIn("5200828282828210", gateway.log_text())


if __name__ == "__main__":
    unittest.main()
