"""A small gateway that is not ours: a second, independent implementation of GATEWAY.md.

Why it exists
-------------
`Packages/GatewaySandbox` and `Packages/PaymentFlow` were written by the same project
from the same reading of GATEWAY.md; every convention they share (page markers, form
ids, field names, the way a hand-back page submits itself) is invisible in tests that
pair them. This module is written from the spec text alone -- it does not read, copy or
import anything of the sandbox -- with Python's standard library and `jwcrypto` only, so
that the SDK (through `egw-repl --no-sandbox`) can be checked against a gateway that
speaks the same wire protocol but shares none of those conventions:

* its pages are plain HTML: no `egw-page` markers, no special ids or classes;
* the issuer (ACS) page is an ordinary `<form method="post">` with a label, ONE visible
  `<input type="text" name="otp">` (deliberately not `code`) and a submit button;
* the page that carries the buyer back to the notification URL is an ordinary
  auto-submitting form: hidden inputs only plus `<script>document.forms[0].submit()</script>`
  (or `<body onload=...>` when `autosubmit="onload"`);
* the hosted checkout page has one form with buttons labelled "Pay now" and
  "Cancel payment" (`name="action" value="pay"|"cancel"`), keeps a session cookie and a
  hidden form token, and after the choice answers `303 See Other` to the shopRedirectUrl.

What it serves (one ThreadingHTTPServer on 127.0.0.1, ephemeral port, HTTP/1.1 with
keep-alive: a correct Content-Length on every answer and no `Connection: close`, so the
SDK's default connection reuse really sends later requests on kept connections; each role
of GATEWAY.md under its own prefix, so the SDK gets four distinct base URLs):

* merchant backend   `{base}/merchant`   POST /sandbox/payments
* status lookup      `{base}/backend`    GET  /checkout/api/egw/v1/payments/{id}
* checkout API       `{base}/client`     card sessions: create (the JWE is really decrypted
                                          with jwcrypto, RSA-OAEP-256 + A256GCM),
                                          authentication, challenge-result (409
                                          CHALLENGE_NOT_COMPLETED while the buyer has not
                                          answered the issuer), session read
* checkout pages     `{base}/web`        /checkout/.well-known/jwks.json (RSA-2048 made by
                                          jwcrypto at start, `Cache-Control: max-age=300`),
                                          the 3-D Secure notification page, the hosted page
* the issuer (ACS)   `{base}/issuer`
* the shop           `{base}/shop`       the default shopRedirectUrl

Idempotency-Key is honoured per (payment, key) as GATEWAY.md says: the answer the gateway
MEANT to give is stored (also when a fault replaced it on the wire) and replayed byte for
byte for a repeat with the same request, `422 IDEMPOTENCY_KEY_REUSED` for a different one,
`409 REQUEST_IN_PROGRESS` while the first is running. With `honour_idempotency=False` the
header is ignored entirely: a repeat is a new request (a second session, or
`409 PAYMENT_ALREADY_PROCESSED` once the payment has moved money) -- the SDK must stay
money-safe against such a gateway too (CONTRACT.md 4a).

Its own truth: every payment keeps its status (`INITIALIZED`, `SETTLED`, `FAILED`,
`CANCELLED`, ...) and history; the test reads them as Python objects (`truth(id)`,
`payment(id)`), never over HTTP.

Faults (`fault(endpoint, kind, nth=1, times=1, arg=None)`): applied to the named endpoint
on its Nth call counted from when the fault is set (and the `times - 1` calls after it;
`times=None`: every call from the Nth):

* `status_applied`      the request is applied (money may move), then the answer is a 5xx
                        (`arg`, default 500) with a JSON error body;
* `status_not_applied`  a 5xx (`arg`, default 503) without applying anything;
* `drop_applied`        applied, then the connection is reset without any answer;
* `drop_not_applied`    the connection is reset without applying anything;
* `unexpected_2xx`      applied, then `202` (or `arg`, e.g. 204) with no body;
* `malformed_applied`   applied, then the meant status with a body that is not JSON;
* `page_fail`           applied, then a 500 HTML error page (meant for the page the buyer
                        reaches after acting: `acs-submit`, `hosted-choice`, `notification`);
* `page_reset`          applied, then the connection is reset (the page never loads);
* `already_processed`   applied, then `409 PAYMENT_ALREADY_PROCESSED`;
* `failed_already_processed`  applied, then the step's 2xx with a session `FAILED`,
                        `failure.code` PAYMENT_ALREADY_PROCESSED (the same fact, spelled as a session);
* `gone_applied`        applied (the whole request read), then the gateway goes away as a
                        restarting one does: the listening socket is closed first (a reconnect
                        is refused), then this connection and every other open one is reset
                        (SO_LINGER 0, close); nothing is answered again (`gone`);
* `gone_not_applied`    the same on the wire, but nothing was applied (the client cannot tell);
* `hold`                nothing applied, the answer never comes: held `arg` seconds (default
                        HOLD_SECONDS; `stop()` ends it), then the connection is reset;
* `hold_applied`        applied, then held as `hold` (a page that never finishes loading);
* `hold_body`           applied, then the status line, the headers (the full Content-Length)
                        and the first half of the body are sent, the rest is held as `hold`;
* `latency`             waits `arg` seconds, then behaves normally.

`closed_payment_answer` says how a money step on a payment already processed is refused:
`"error"` (default, `409 PAYMENT_ALREADY_PROCESSED`) or `"failed-session"` (a 2xx session
`FAILED` with `failure.code` PAYMENT_ALREADY_PROCESSED, the payment keeping its status).

The request log (`log`, `log_text()`) keeps per request, in the order the requests
arrived (an entry is logged on arrival and completed when answered, so a request still
held shows as `-> (no answer yet)`): endpoint, method, path, status
(or `reset`), the answer's session status or error code, a FAILED session's failure code,
the fault, whether it was a replay, whether an Idempotency-Key was sent, and the TCP
connection it came on: `connection` (numbered from 1 in accept order), `peerPort`,
`onConnection` (1 for the first request on that connection) and `carried` (the endpoints
of the requests that connection carried before this one). `log_text()` shows `cN.K`.

Endpoint names: `merchant-payments`, `status`, `jwks`, `card-session-create`,
`authentication`, `challenge-result`, `card-session-get`, `hosted-page`, `hosted-choice`,
`acs-page`, `acs-submit`, `notification`, `shop-return`, `acs-method`, `method-notification`
(an authentication's entry also keeps its `threeDSCompInd`; never the method data nor the
browser data).

3-D Secure's browser flow (GATEWAY.md step 2), written from EMV 3DS 2.2's field definitions
(`emv_browser_problem`, `emv_browser_complete`), not from the SDK or the sandbox: the three
method cards of `TEST_CARDS` name `threeDSMethod {url, data}`; `POST /issuer/acs/method`
(`threeDSMethodData`) answers after the card's delay a page that posts back by script to
`{checkoutBaseURL}/checkout/3ds/method-notification/{sessionId}` (or never); a method card is
frictionless only when that notification arrived, the authentication says `threeDSCompInd` `Y`
and its browser data is EMV's complete set, else challenged; malformed browser data or
`threeDSCompInd` is `400 INVALID_REQUEST`.

Card data: the decrypted card is used for the test-card decision and dropped at once; a
session keeps only the brand and the last four digits. Nothing the gateway logs (see the
request log above) ever holds card data or request bodies; `TEST_CARDS` below is the only
place card numbers appear.

Run it alone with `python foreign_gateway.py` (prints its base URLs, Ctrl-C stops it).
"""

import base64
import dataclasses
import html
import json
import re
import secrets
import socket
import struct
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from jwcrypto import jwe, jwk

# GATEWAY.md, "Test cards": number -> (brand, behaviour, transStatus when frictionless).
# This table is the only place in the gateway where card numbers appear.
TEST_CARDS = {
    "4111111111111111": ("visa", "frictionless", "Y"),
    "5555555555554444": ("mastercard", "challenge", None),
    "6759649826438453": ("maestro", "challenge", None),
    "4000000000003063": ("visa", "frictionless", "A"),
    "5200828282828210": ("mastercard", "no-3ds", None),
    "4000000000000002": ("visa", "declined", None),
    "6011111111111117": ("discover", "frictionless", "R"),
    "378282246310005": ("amex", "not-accepted", None),
    # GATEWAY.md step 2 / the sandbox README's 3DS Method cards: the third value is the delay in
    # seconds before the ACS's method page posts back (None: it never does).
    "4000000000002107": ("visa", "method", 0),
    "4000000000002206": ("visa", "method", 12),
    "4000000000002305": ("visa", "method", None),
}
CHALLENGE_CODE = "1234"  # GATEWAY.md: the challenge cards pass with this one-time code.

# Platform statuses after which no new attempt may move money (GATEWAY.md, CONTRACT.md).
MONEY_MOVED = {"AUTHORIZED", "CAPTURED", "SETTLED", "REFUNDED"}
CLOSED = MONEY_MOVED | {"CANCELLED", "ABANDONED"}

FAULT_KINDS = {
    "status_applied", "status_not_applied", "drop_applied", "drop_not_applied", "unexpected_2xx",
    "malformed_applied", "page_fail", "page_reset", "already_processed", "latency",
    "gone_applied", "gone_not_applied", "failed_already_processed", "hold", "hold_applied", "hold_body",
}
NOT_APPLIED = {"status_not_applied", "drop_not_applied", "gone_not_applied", "hold"}

# How long a held answer is held at most (`hold`, `hold_applied` without `arg`): longer than
# any deadline of the REPL's under test; `stop()` ends every hold at once.
HOLD_SECONDS = 600

IDEMPOTENCY_TTL = 24 * 3600

API = "/checkout/api/egw/v1"


def _b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _new_id(prefix):
    return f"{prefix}_{secrets.token_hex(8)}"


def _luhn_ok(digits):
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2 == 1:
            value *= 2
            if value > 9:
                value -= 9
        total += value
    return total % 10 == 0


def _brand(digits):
    if digits.startswith(("34", "37")):
        return "amex"
    if digits.startswith("4"):
        return "visa"
    if digits[:2] in {"51", "52", "53", "54", "55"} or 2221 <= int(digits[:4] or 0) <= 2720:
        return "mastercard"
    if digits.startswith(("6011", "65")):
        return "discover"
    if digits.startswith(("50", "56", "57", "58", "67", "63")):
        return "maestro"
    return "unknown"


def failed_already_processed_body(session_id, message="the payment was already processed"):
    """A session FAILED with `failure.code` PAYMENT_ALREADY_PROCESSED (GATEWAY.md's session shape)."""
    return {"sessionId": session_id, "status": "FAILED",
            "failure": {"code": "PAYMENT_ALREADY_PROCESSED", "message": message}}


def _reset(connection, wake=False):
    """Resets a TCP connection: SO_LINGER 0, then close sends RST instead of FIN. `wake`: a
    thread blocked reading it (an idle kept connection) is woken first."""
    try:
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        if wake:
            connection.shutdown(socket.SHUT_RD)
    except OSError:
        pass
    try:
        connection.close()
    except OSError:
        pass


@dataclasses.dataclass
class Answer:
    """A complete HTTP answer: what the gateway means to send (and may store for replay)."""
    status: int
    body: bytes = b""
    content_type: str = "application/json; charset=utf-8"
    headers: list = dataclasses.field(default_factory=list)

    @classmethod
    def json(cls, status, obj, headers=()):
        return cls(status, json.dumps(obj, separators=(",", ":")).encode(), headers=list(headers))

    @classmethod
    def error(cls, status, code, message):
        return cls.json(status, {"error": {"code": code, "message": message}})

    @classmethod
    def page(cls, status, title, body_html, headers=(), body_attrs=""):
        document = (
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{html.escape(title)}</title>\n</head>\n<body{body_attrs}>\n{body_html}\n</body>\n</html>\n"
        )
        return cls(status, document.encode(), "text/html; charset=utf-8", list(headers))


@dataclasses.dataclass
class Fault:
    endpoint: str
    kind: str
    nth: int = 1
    times: int = 1  # None: every call from the nth
    arg: object = None
    fired: int = 0
    base: int = 0  # the endpoint's call count when the fault was set: calls are counted from there

    def matches(self, call_number):
        number = call_number - self.base
        if number < self.nth:
            return False
        return self.times is None or number < self.nth + self.times


@dataclasses.dataclass
class Payment:
    payment_id: str
    verification_key: str
    amount: int
    currency: str
    order_number: str
    shop_redirect_url: str
    status: str = "INITIALIZED"
    history: list = dataclasses.field(default_factory=list)
    sessions: list = dataclasses.field(default_factory=list)
    page_tokens: set = dataclasses.field(default_factory=set)
    settlements: int = 0


@dataclasses.dataclass
class CardSession:
    session_id: str
    payment_id: str
    brand: str
    last4: str
    behaviour: str
    frictionless_status: str = None
    status: str = "AUTHENTICATION_REQUIRED"
    trans_status: str = None
    failure: dict = None
    notification_url: str = None
    acs_trans_id: str = None
    server_trans_id: str = None
    issuer_answer: str = None  # "Y" / "N" once the buyer answered the issuer's page
    cres_delivered: bool = False
    method_delay: object = None  # seconds before the 3DS Method posts back, None: never
    method_notified: bool = False

    def view(self, with_challenge_url=None, method=None):
        body = {"sessionId": self.session_id, "status": self.status}
        if self.behaviour == "method" and self.status == "AUTHENTICATION_REQUIRED" and method:
            body["threeDSMethod"] = method
        if self.trans_status:
            body["transStatus"] = self.trans_status
        if self.failure:
            body["failure"] = dict(self.failure)
        if self.status == "CHALLENGE_REQUIRED" and with_challenge_url:
            body["challenge"] = {"acsUrl": with_challenge_url, "creq": self.creq()}
        return body

    def creq(self):
        message = {
            "threeDSServerTransID": self.server_trans_id, "acsTransID": self.acs_trans_id,
            "messageType": "CReq", "messageVersion": "2.2.0", "challengeWindowSize": "05",
        }
        return _b64url(json.dumps(message, separators=(",", ":")).encode())


class _Dropped(Exception):
    """Raised after the handler reset the connection on purpose."""


class ForeignGateway:
    """The gateway. `with ForeignGateway(...) as gw:` starts and stops it."""

    def __init__(self, honour_idempotency=True, autosubmit="script", hosted_pay_status="SETTLED",
                 hosted_requires_cookie=True, key_max_age=300, closed_payment_answer="error", pages="html"):
        if autosubmit not in ("script", "onload"):
            raise ValueError("autosubmit is 'script' or 'onload'")
        if closed_payment_answer not in ("error", "failed-session"):
            raise ValueError("closed_payment_answer is 'error' or 'failed-session'")
        self.closed_payment_answer = closed_payment_answer
        if pages not in ("html", "js"):
            raise ValueError("pages is 'html' or 'js'")
        # "js": the issuer's and the checkout's pages are built by script (no form in the served
        # HTML); the code and the choice go out with fetch and come back as JSON (_script_pages.py
        # style: see acs_page / hosted_page).
        self.pages = pages
        self.honour_idempotency = honour_idempotency
        self.autosubmit = autosubmit
        self.hosted_pay_status = hosted_pay_status
        self.hosted_requires_cookie = hosted_requires_cookie
        self.key_max_age = key_max_age
        self.key = jwk.JWK.generate(kty="RSA", size=2048, kid=_new_id("fgk"), use="enc", alg="RSA-OAEP-256")
        self._lock = threading.RLock()
        self._payments = {}
        self._sessions = {}
        self._acs = {}  # acsTransID -> sessionId
        self._idempotency = {}  # (paymentId, key) -> record
        self._faults = []
        self._calls = {}
        self.log = []  # dicts: endpoint, method, path, status, fault, replay, idempotencyKey (bool)
        self.errors = []  # the gateway's own bugs (exception type and endpoint only)
        self.replays = 0
        self._connections = {}  # connection number -> its socket, while the connection is open
        self._connection_count = 0
        self._stopping = threading.Event()  # ends every held answer
        self.gone = False  # set by `gone_applied`: the listener is closed, nothing is answered any more
        self._server = None
        self._thread = None
        self.base_url = None

    # ---------------------------------------------------------------- lifecycle

    def start(self):
        gateway = self

        class Handler(_Handler):
            pass

        Handler.gateway = gateway
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        port = self._server.server_address[1]
        self.base_url = f"http://127.0.0.1:{port}"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.1},
                                        name="foreign-gateway", daemon=True)
        self._thread.start()
        return self

    def stop(self):
        self._stopping.set()
        self._close_listener()
        with self._lock:
            connections = list(self._connections.values())
        for connection in connections:
            _reset(connection, wake=True)

    def _close_listener(self):
        """Stops accepting: the listening socket is closed, so a new connect is refused."""
        with self._lock:
            server, thread, self._server = self._server, self._thread, None
        if server is not None:
            server.shutdown()  # waits for serve_forever (its own thread) to return
            server.server_close()
            thread.join(timeout=10)

    def go_away(self, keep=None):
        """Applied then gone: the listener closes first (a reconnect is refused), then every
        open connection but `keep` (the caller resets that one itself) is reset."""
        with self._lock:
            self.gone = True
        self._close_listener()
        with self._lock:
            others = [c for number, c in self._connections.items() if number != keep]
        for connection in others:
            _reset(connection, wake=True)

    def _connection_opened(self, connection):
        with self._lock:
            self._connection_count += 1
            self._connections[self._connection_count] = connection
            return self._connection_count

    def _connection_closed(self, number):
        with self._lock:
            self._connections.pop(number, None)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    # ---------------------------------------------------------------- URLs

    @property
    def merchant_base_url(self):
        return self.base_url + "/merchant"

    @property
    def api_base_url(self):
        return self.base_url + "/backend"

    @property
    def checkout_api_base_url(self):
        return self.base_url + "/client"

    @property
    def checkout_base_url(self):
        return self.base_url + "/web"

    @property
    def acs_url(self):
        return self.base_url + "/issuer/acs/challenge"

    @property
    def method_url(self):
        return self.base_url + "/issuer/acs/method"

    def _method_of(self, session):
        """The `threeDSMethod` member: EMV's threeDSMethodData is base64url JSON naming the 3DS
        Server's transaction and where the ACS ends the method."""
        data = {"threeDSServerTransID": session.session_id,
                "threeDSMethodNotificationURL":
                    f"{self.checkout_base_url}/checkout/3ds/method-notification/{session.session_id}"}
        return {"url": self.method_url, "data": _b64url(json.dumps(data, separators=(",", ":")).encode())}

    def repl_args(self):
        """The egw-repl flags that point it at this gateway."""
        return [
            "--no-sandbox", "--merchant-base-url", self.merchant_base_url, "--api-base-url", self.api_base_url,
            "--checkout-api-base-url", self.checkout_api_base_url, "--checkout-base-url", self.checkout_base_url,
        ]

    # ---------------------------------------------------------------- the test's view

    def create_payment(self, amount=1250, currency="EUR", order_number=None, shop_redirect_url=None):
        """Creates a payment as the merchant backend would; returns the backend's JSON answer."""
        with self._lock:
            payment_id = _new_id("fgp")
            payment = Payment(
                payment_id=payment_id, verification_key="vk_" + secrets.token_urlsafe(24), amount=int(amount),
                currency=currency, order_number=order_number or f"ORD-{secrets.token_hex(4).upper()}",
                shop_redirect_url=shop_redirect_url or f"{self.base_url}/shop/return/{payment_id}")
            payment.history.append("INITIALIZED")
            self._payments[payment_id] = payment
            return self._payment_created_body(payment)

    def truth(self, payment_id):
        """The gateway's own record of the payment's status."""
        with self._lock:
            return self._payments[payment_id].status

    def payment(self, payment_id):
        with self._lock:
            return dataclasses.replace(self._payments[payment_id], history=list(self._payments[payment_id].history),
                                       sessions=list(self._payments[payment_id].sessions))

    @property
    def payment_ids(self):
        with self._lock:
            return list(self._payments)

    def session(self, session_id):
        with self._lock:
            return dataclasses.replace(self._sessions[session_id])

    def sessions_of(self, payment_id):
        with self._lock:
            return [dataclasses.replace(self._sessions[s]) for s in self._payments[payment_id].sessions]

    def fault(self, endpoint, kind, nth=1, times=1, arg=None):
        if kind not in FAULT_KINDS:
            raise ValueError(f"unknown fault kind {kind!r}")
        with self._lock:
            self._faults.append(Fault(endpoint, kind, nth, times, arg, base=self._calls.get(endpoint, 0)))

    def clear_faults(self):
        with self._lock:
            self._faults.clear()

    def calls(self, endpoint):
        with self._lock:
            return self._calls.get(endpoint, 0)

    def log_text(self):
        with self._lock:
            return "\n".join(
                f"c{e['connection']}.{e['onConnection']} {e['method']} {e['path']} -> "
                + (f"{e['status']}" if e["status"] is not None else "(no answer yet)")
                + (f" {e['result']}" if e.get("result") else "")
                + (f" failure={e['failure']}" if e.get("failure") else "")
                + f" [{e['endpoint']}]"
                + (f" threeDSCompInd={e['threeDSCompInd']}" if e.get("threeDSCompInd") else "")
                + (f" fault={e['fault']}" if e["fault"] else "") + (" replay" if e["replay"] else "")
                + (" idempotency-key" if e["idempotencyKey"] else "")
                for e in self.log)

    # ---------------------------------------------------------------- internals

    def _take_fault(self, endpoint):
        with self._lock:
            count = self._calls.get(endpoint, 0) + 1
            self._calls[endpoint] = count
            for fault in self._faults:
                if fault.endpoint == endpoint and fault.matches(count):
                    fault.fired += 1
                    return fault
            return None

    def _set_status(self, payment, status):
        if payment.status != status:
            payment.status = status
            payment.history.append(status)
        if status in MONEY_MOVED:
            payment.settlements += 1

    def _payment_created_body(self, payment):
        return {
            "paymentId": payment.payment_id, "verificationKey": payment.verification_key,
            "paymentStatus": payment.status, "orderNumber": payment.order_number, "amount": payment.amount,
            "currency": payment.currency, "shopRedirectUrl": payment.shop_redirect_url,
            "_links": {"checkoutRedirect": {"href": f"{self.checkout_base_url}/checkout/pay/{payment.payment_id}"}},
        }

    def _authorised_payment(self, request, payment_id):
        """(payment, None) or (None, error answer) for a checkout-API or lookup call."""
        payment = self._payments.get(payment_id)
        if payment is None:
            return None, Answer.error(404, "PAYMENT_NOT_FOUND", "no such payment")
        if request.header("Obp-Verification-Key") != payment.verification_key:
            return None, Answer.error(401, "INVALID_VERIFICATION_KEY", "the verification key does not match")
        return payment, None

    def _already_processed(self, session, message):
        """A step on a payment (or session) already processed, in this gateway's spelling:
        `409 PAYMENT_ALREADY_PROCESSED`, or a 200 session FAILED with that failure code."""
        if self.closed_payment_answer == "failed-session":
            return Answer.json(200, failed_already_processed_body(session.session_id, message))
        return Answer.error(409, "PAYMENT_ALREADY_PROCESSED", message)

    def _session_of(self, payment, session_id):
        session = self._sessions.get(session_id)
        if session is None or session.payment_id != payment.payment_id:
            return None, Answer.error(404, "SESSION_NOT_FOUND", "no such card session for this payment")
        return session, None

    # ---- merchant backend and status lookup

    def merchant_payments(self, request):
        body = request.json()
        if not isinstance(body, dict) or not isinstance(body.get("amount", 1250), int):
            return Answer.error(400, "INVALID_REQUEST", "amount must be an integer in minor units")
        created = self.create_payment(
            amount=body.get("amount", 1250), currency=str(body.get("currency", "EUR")),
            order_number=body.get("orderNumber"), shop_redirect_url=body.get("shopRedirectUrl"))
        return Answer.json(201, created)

    def status_lookup(self, request, payment_id):
        with self._lock:
            payment, error = self._authorised_payment(request, payment_id)
            if error:
                return error
            return Answer.json(200, {
                "paymentId": payment.payment_id, "paymentStatus": payment.status,
                "orderNumber": payment.order_number, "amount": payment.amount, "currency": payment.currency})

    def jwks(self, request):
        public = self.key.export_public(as_dict=True)
        key = {"kty": "RSA", "kid": public["kid"], "use": "enc", "alg": "RSA-OAEP-256", "n": public["n"],
               "e": public["e"]}
        return Answer.json(200, {"keys": [key]}, headers=[("Cache-Control", f"max-age={self.key_max_age}")])

    # ---- card sessions

    def _decrypt_card(self, token):
        """(card dict, None) or (None, error answer). The plaintext never leaves this function
        except as the dict the caller reads and drops."""
        try:
            header = json.loads(_b64url_decode(token.split(".")[0]))
        except Exception:
            return None, Answer.error(422, "DECRYPTION_FAILED", "encryptedCard is not a compact JWE")
        if header.get("alg") != "RSA-OAEP-256" or header.get("enc") != "A256GCM":
            return None, Answer.error(422, "DECRYPTION_FAILED", "expected alg RSA-OAEP-256 and enc A256GCM")
        if header.get("kid") != self.key.kid:
            return None, Answer.error(422, "UNKNOWN_KEY", "the card was encrypted to a key this gateway does not hold")
        try:
            token_object = jwe.JWE()
            token_object.deserialize(token, key=self.key)
            card = json.loads(token_object.payload.decode("utf-8"))
        except Exception:
            return None, Answer.error(422, "DECRYPTION_FAILED", "the card could not be decrypted")
        if not isinstance(card, dict):
            return None, Answer.error(400, "INVALID_REQUEST", "the decrypted card is not a JSON object")
        return card, None

    @staticmethod
    def _card_problem(card):
        number = card.get("cardNumber")
        if not isinstance(number, str) or not number.isdigit() or not 12 <= len(number) <= 19 or not _luhn_ok(number):
            return "cardNumber is not a valid card number"
        month, year = card.get("expiryMonth"), card.get("expiryYear")
        if not (isinstance(month, str) and re.fullmatch(r"0[1-9]|1[0-2]", month)):
            return "expiryMonth must be MM"
        if not (isinstance(year, str) and re.fullmatch(r"\d\d", year)):
            return "expiryYear must be YY"
        now = time.gmtime()
        if (2000 + int(year), int(month)) < (now.tm_year, now.tm_mon):
            return "the card has expired"
        code = card.get("securityCode")
        if not (isinstance(code, str) and re.fullmatch(r"\d{3,4}", code)):
            return "securityCode must be 3 or 4 digits"
        if not isinstance(card.get("cardholderName", ""), str):
            return "cardholderName must be a string"
        return None

    def card_session_create(self, request, payment_id):
        with self._lock:
            payment, error = self._authorised_payment(request, payment_id)
            if error:
                return error
            body = request.json()
            if not isinstance(body, dict) or not isinstance(body.get("encryptedCard"), str):
                return Answer.error(400, "INVALID_REQUEST", "encryptedCard is required")
            card, error = self._decrypt_card(body["encryptedCard"])
            if error:
                return error
            problem = self._card_problem(card)
            if problem:
                return Answer.error(400, "INVALID_REQUEST", problem)
            number = card["cardNumber"]
            brand, behaviour, frictionless = TEST_CARDS.get(number, (_brand(number), "frictionless", "Y"))
            last4 = number[-4:]
            del card, number  # the card is not kept: brand and last four only
            if behaviour == "not-accepted" or brand == "amex":
                return Answer.error(422, "CARD_BRAND_NOT_ACCEPTED", f"this store does not accept {brand} cards")
            if payment.status in CLOSED:
                if self.closed_payment_answer == "failed-session":
                    # The other spelling of the same fact: a session that ended FAILED with
                    # the code PAYMENT_ALREADY_PROCESSED (the payment keeps its status).
                    session = CardSession(
                        session_id=_new_id("fgs"), payment_id=payment_id, brand=brand, last4=last4,
                        behaviour=behaviour, status="FAILED",
                        failure={"code": "PAYMENT_ALREADY_PROCESSED",
                                 "message": f"the payment is already {payment.status}"})
                    self._sessions[session.session_id] = session
                    payment.sessions.append(session.session_id)
                    return Answer.json(201, session.view())
                return Answer.error(409, "PAYMENT_ALREADY_PROCESSED", f"the payment is already {payment.status}")
            session = CardSession(
                session_id=_new_id("fgs"), payment_id=payment_id, brand=brand, last4=last4, behaviour=behaviour,
                frictionless_status=frictionless if behaviour != "method" else None,
                method_delay=frictionless if behaviour == "method" else None)
            self._sessions[session.session_id] = session
            payment.sessions.append(session.session_id)
            if behaviour == "declined":
                session.status = "FAILED"
                session.failure = {"code": "CARD_DECLINED", "message": "the issuer declined the card"}
                self._set_status(payment, "FAILED")
            elif behaviour == "no-3ds":
                session.status = "COMPLETED"
                self._set_status(payment, "SETTLED")
            return Answer.json(201, session.view(method=self._method_of(session)))

    def card_session_get(self, request, payment_id, session_id):
        with self._lock:
            payment, error = self._authorised_payment(request, payment_id)
            if error:
                return error
            session, error = self._session_of(payment, session_id)
            if error:
                return error
            return Answer.json(200, session.view(self.acs_url, method=self._method_of(session)))

    def authentication(self, request, payment_id, session_id):
        with self._lock:
            payment, error = self._authorised_payment(request, payment_id)
            if error:
                return error
            session, error = self._session_of(payment, session_id)
            if error:
                return error
            body = request.json()
            notification = body.get("notificationUrl") if isinstance(body, dict) else None
            if not isinstance(notification, str) or not notification.startswith(("http://", "https://")):
                return Answer.error(400, "INVALID_REQUEST", "notificationUrl must be an absolute http(s) URL")
            if not isinstance(body.get("browser"), dict):
                return Answer.error(400, "INVALID_REQUEST", "browser is required")
            problem = emv_browser_problem(body["browser"])
            if problem:
                return Answer.error(400, "INVALID_REQUEST", f"browser data is malformed: {problem}")
            comp_ind = body.get("threeDSCompInd")
            if comp_ind is not None and comp_ind not in ("Y", "N", "U"):
                return Answer.error(400, "INVALID_REQUEST", "threeDSCompInd must be Y, N or U")
            if session.status == "CHALLENGE_REQUIRED":
                # A repeat the gateway does not recognise as one: the same challenge again.
                return Answer.json(200, session.view(self.acs_url))
            if session.status != "AUTHENTICATION_REQUIRED" or payment.status in CLOSED:
                return self._already_processed(session, "this session has already been processed")
            session.notification_url = notification
            if session.behaviour == "method":
                # The issuer scores what it received: its method's own notification, the requestor's
                # completion indicator, and a complete browser data set.
                frictionless = (session.method_notified and comp_ind == "Y"
                                and emv_browser_complete(body["browser"]))
                session.behaviour = "frictionless" if frictionless else "challenge"
                session.frictionless_status = "Y"
            if session.behaviour == "challenge":
                session.status = "CHALLENGE_REQUIRED"
                session.trans_status = "C"
                session.acs_trans_id = secrets.token_hex(16)
                session.server_trans_id = secrets.token_hex(16)
                self._acs[session.acs_trans_id] = session.session_id
            else:
                session.trans_status = session.frictionless_status or "Y"
                if session.trans_status in ("Y", "A", "U"):
                    session.status = "COMPLETED"
                    self._set_status(payment, "SETTLED")
                else:
                    session.status = "FAILED"
                    session.failure = {"code": "AUTHENTICATION_FAILED",
                                       "message": f"3-D Secure authentication result {session.trans_status}"}
                    self._set_status(payment, "FAILED")
            return Answer.json(200, session.view(self.acs_url))

    def acs_method(self, request):
        """The ACS's invisible 3DS Method page: waits the card's delay (outside the lock), then
        answers a page that posts `threeDSMethodData` to the method notification URL by script
        (hidden fields only), or -- the `never` card -- a page that posts nothing."""
        data = request.form().get("threeDSMethodData", "")
        try:
            decoded = json.loads(_b64url_decode(data))
            session_id = decoded["threeDSServerTransID"]
            target = decoded.get("threeDSMethodNotificationURL")
        except (ValueError, KeyError, TypeError):
            return Answer.page(400, "Bad request", "<p>The method data could not be read.</p>")
        with self._lock:
            session = self._sessions.get(session_id)
            delay = session.method_delay if session and session.behaviour == "method" else "none"
        if delay == "none":
            return Answer.page(404, "Not found", "<p>No device data collection for this transaction.</p>")
        if delay is None:
            return Answer.page(200, "Device check", "<p>Checking your device.</p>")
        if delay:
            self._stopping.wait(delay)
        back = _b64url(json.dumps({"threeDSServerTransID": session_id}, separators=(",", ":")).encode())
        return Answer.page(
            200, "Device check",
            f'<form method="post" action="{html.escape(target or "")}" id="device-data">'
            f'<input type="hidden" name="threeDSMethodData" value="{back}"></form>'
            '<script>document.getElementById("device-data").submit();</script>')

    def method_notification(self, request, session_id):
        data = request.form().get("threeDSMethodData", "")
        try:
            named = json.loads(_b64url_decode(data)).get("threeDSServerTransID")
        except (ValueError, AttributeError, TypeError):
            named = None
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None or named != session_id:
                return Answer.page(400, "Bad request", "<p>Unknown device data collection.</p>")
            session.method_notified = True
        return Answer.page(200, "Thank you", "<p>Device data received.</p>")

    def challenge_result(self, request, payment_id, session_id):
        with self._lock:
            payment, error = self._authorised_payment(request, payment_id)
            if error:
                return error
            session, error = self._session_of(payment, session_id)
            if error:
                return error
            if session.status in ("COMPLETED", "FAILED"):
                return self._already_processed(session, "this session has already been processed")
            if session.status != "CHALLENGE_REQUIRED":
                return Answer.error(400, "INVALID_REQUEST", "this session has no challenge")
            if session.issuer_answer is None:
                return Answer.error(409, "CHALLENGE_NOT_COMPLETED", "the buyer has not answered the issuer yet")
            if payment.status in CLOSED:
                return self._already_processed(session, f"the payment is already {payment.status}")
            session.trans_status = session.issuer_answer
            if session.issuer_answer == "Y":
                session.status = "COMPLETED"
                self._set_status(payment, "SETTLED")
            else:
                session.status = "FAILED"
                session.failure = {"code": "AUTHENTICATION_FAILED", "message": "the buyer failed the challenge"}
                self._set_status(payment, "FAILED")
            return Answer.json(200, session.view())

    # ---- the issuer's pages

    def acs_page(self, request):
        if request.method != "POST":
            return Answer.page(405, "Method not allowed", "<p>This page is opened by your bank's form.</p>",
                               headers=[("Allow", "POST")])
        creq = request.form().get("creq", "")
        try:
            message = json.loads(_b64url_decode(creq))
            acs_trans_id = message["acsTransID"]
        except Exception:
            return Answer.page(400, "Bad request", "<p>The authentication request could not be read.</p>")
        with self._lock:
            session = self._sessions.get(self._acs.get(acs_trans_id, ""))
            if session is None or session.status != "CHALLENGE_REQUIRED":
                return Answer.page(410, "Expired", "<p>This authentication is no longer open.</p>")
            masked = f"{session.brand.title()} card ending {session.last4}"
        if self.pages == "js":
            return Answer.page(200, "Payment verification", _script_page(_ACS_SCRIPT, {
                "verify": f"{self.base_url}/issuer/acs/verify", "txn": acs_trans_id, "masked": masked}))
        body = (
            "<h1>Verify your payment</h1>\n"
            f"<p>We sent a one-time password to the phone registered for your {html.escape(masked)}.</p>\n"
            f"<form method=\"post\" action=\"{self.base_url}/issuer/acs/verify\">\n"
            f"<input type=\"hidden\" name=\"txn\" value=\"{html.escape(acs_trans_id)}\">\n"
            "<label for=\"otp\">One-time password</label>\n"
            "<input type=\"text\" id=\"otp\" name=\"otp\" autocomplete=\"one-time-code\">\n"
            "<button type=\"submit\">Confirm</button>\n"
            "</form>")
        return Answer.page(200, "Payment verification", body)

    def acs_submit(self, request):
        form = request.form()
        with self._lock:
            session = self._sessions.get(self._acs.get(form.get("txn", ""), ""))
            if session is None or session.status != "CHALLENGE_REQUIRED" or not session.notification_url:
                return Answer.page(410, "Expired", "<p>This authentication is no longer open.</p>")
            if session.issuer_answer is None:
                session.issuer_answer = "Y" if form.get("otp", "") == CHALLENGE_CODE else "N"
            cres = _b64url(json.dumps({
                "threeDSServerTransID": session.server_trans_id, "acsTransID": session.acs_trans_id,
                "messageType": "CRes", "messageVersion": "2.2.0", "transStatus": session.issuer_answer,
            }, separators=(",", ":")).encode())
            target = session.notification_url
        if "application/json" in request.headers.get("Accept", ""):
            return Answer.json(200, {"cres": cres, "target": target})
        form_html = (
            f"<form method=\"post\" action=\"{html.escape(target)}\">\n"
            f"<input type=\"hidden\" name=\"cres\" value=\"{cres}\">\n"
            "</form>")
        if self.autosubmit == "onload":
            return Answer.page(200, "Returning to the merchant", "<p>Please wait...</p>\n" + form_html,
                               body_attrs=" onload=\"document.forms[0].submit()\"")
        return Answer.page(200, "Returning to the merchant",
                           "<p>Please wait...</p>\n" + form_html + "\n<script>document.forms[0].submit()</script>")

    def notification(self, request, session_id):
        cres = request.form().get("cres", "")
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None:
                return Answer.page(404, "Not found", "<p>Unknown authentication.</p>")
            try:
                message = json.loads(_b64url_decode(cres))
                if message.get("acsTransID") == session.acs_trans_id:
                    session.cres_delivered = True
            except Exception:
                pass
        return Answer.page(200, "Authentication finished", "<p>Thank you. You can return to the shop.</p>")

    # ---- the hosted checkout page

    def hosted_page(self, request, payment_id):
        with self._lock:
            payment = self._payments.get(payment_id)
            if payment is None:
                return Answer.page(404, "Not found", "<p>This payment does not exist.</p>")
            if payment.status not in ("INITIALIZED", "FAILED"):
                return Answer.page(200, "Checkout", f"<p>This payment is {html.escape(payment.status.lower())}.</p>")
            token = secrets.token_urlsafe(16)
            payment.page_tokens.add(token)
            amount = f"{payment.amount // 100}.{payment.amount % 100:02d} {payment.currency}"
            order = payment.order_number
        method = urllib.parse.parse_qs(urllib.parse.urlsplit(request.path).query).get("method", [""])[0]
        hint = f"<p>Payment method: {html.escape(method)}</p>\n" if method else ""
        if self.pages == "js":
            return Answer.page(200, "Checkout", _script_page(_CHECKOUT_SCRIPT, {
                "action": f"/web/checkout/pay/{payment_id}", "token": token, "order": order, "amount": amount}),
                headers=[("Set-Cookie", f"fgw_checkout={token}; Path=/web/checkout; HttpOnly")])
        body = (
            "<h1>Checkout</h1>\n"
            f"<p>Order {html.escape(order)}: {html.escape(amount)}</p>\n{hint}"
            f"<form method=\"post\" action=\"/web/checkout/pay/{payment_id}\">\n"
            f"<input type=\"hidden\" name=\"token\" value=\"{token}\">\n"
            "<button type=\"submit\" name=\"action\" value=\"pay\">Pay now</button>\n"
            "<button type=\"submit\" name=\"action\" value=\"cancel\">Cancel payment</button>\n"
            "</form>")
        return Answer.page(200, "Checkout", body,
                           headers=[("Set-Cookie", f"fgw_checkout={token}; Path=/web/checkout; HttpOnly")])

    def hosted_choice(self, request, payment_id):
        form = request.form()
        with self._lock:
            payment = self._payments.get(payment_id)
            if payment is None:
                return Answer.page(404, "Not found", "<p>This payment does not exist.</p>")
            token = form.get("token", "")
            if token not in payment.page_tokens or (
                    self.hosted_requires_cookie and request.cookie("fgw_checkout") != token):
                return Answer.page(400, "Session expired", "<p>Your checkout session has expired.</p>")
            if payment.status not in ("INITIALIZED", "FAILED"):
                return Answer.page(409, "Already processed", "<p>This payment has already been processed.</p>")
            action = form.get("action", "")
            if action == "pay":
                self._set_status(payment, self.hosted_pay_status)
            elif action == "cancel":
                self._set_status(payment, "CANCELLED")
            else:
                return Answer.page(400, "Bad request", "<p>Choose Pay now or Cancel payment.</p>")
            payment.page_tokens.discard(token)
            target = payment.shop_redirect_url
        if "application/json" in request.headers.get("Accept", ""):
            return Answer.json(200, {"next": target})
        return Answer(303, b"", "text/plain", headers=[("Location", target)])

    def shop_return(self, request, payment_id):
        return Answer.page(200, "Back at the shop", "<p>Thank you for your order.</p>")

    # ---- idempotency

    def with_idempotency(self, request, payment_id, apply):
        """Runs `apply()` once per (payment, Idempotency-Key); returns (answer, replayed)."""
        key = request.header("Idempotency-Key")
        if not self.honour_idempotency or not key:
            return apply(), False
        fingerprint = (request.method, request.path, request.canonical_body())
        slot = (payment_id, key)
        with self._lock:
            record = self._idempotency.get(slot)
            if record is not None and time.monotonic() - record["at"] > IDEMPOTENCY_TTL:
                record = None
            if record is None:
                record = {"fingerprint": fingerprint, "answer": None, "at": time.monotonic()}
                self._idempotency[slot] = record
            elif record["fingerprint"] != fingerprint:
                return Answer.error(422, "IDEMPOTENCY_KEY_REUSED",
                                    "this Idempotency-Key was used for a different request"), False
            elif record["answer"] is None:
                return Answer.error(409, "REQUEST_IN_PROGRESS", "the first request with this key is running"), False
            else:
                self.replays += 1
                return record["answer"], True
        try:
            answer = apply()
        except Exception:
            with self._lock:
                self._idempotency.pop(slot, None)
            raise
        with self._lock:
            record["answer"] = answer
        return answer, False


class _Request:
    def __init__(self, handler, method, body):
        self.method = method
        self.path = handler.path
        self.headers = handler.headers
        self.body = body

    def header(self, name):
        return self.headers.get(name)

    def json(self):
        try:
            return json.loads(self.body.decode("utf-8"))
        except Exception:
            return None

    def canonical_body(self):
        parsed = self.json()
        if parsed is None:
            return self.body
        return json.dumps(parsed, sort_keys=True, separators=(",", ":"))

    def form(self):
        fields = urllib.parse.parse_qs(self.body.decode("utf-8", "replace"), keep_blank_values=True)
        return {name: values[0] for name, values in fields.items()}

    def cookie(self, name):
        for part in (self.headers.get("Cookie") or "").split(";"):
            key, _, value = part.strip().partition("=")
            if key == name:
                return value
        return None


# (method or None for any, endpoint name, pattern, handler name, money step with Idempotency-Key)
_ROUTES = [
    ("POST", "merchant-payments", r"/merchant/sandbox/payments", "merchant_payments", False),
    ("GET", "status", r"/backend" + API + r"/payments/(?P<payment_id>[^/]+)", "status_lookup", False),
    ("GET", "jwks", r"/web/checkout/\.well-known/jwks\.json", "jwks", False),
    ("POST", "card-session-create", r"/client" + API + r"/payments/(?P<payment_id>[^/]+)/card-sessions",
     "card_session_create", True),
    ("GET", "card-session-get",
     r"/client" + API + r"/payments/(?P<payment_id>[^/]+)/card-sessions/(?P<session_id>[^/]+)",
     "card_session_get", False),
    ("POST", "authentication",
     r"/client" + API + r"/payments/(?P<payment_id>[^/]+)/card-sessions/(?P<session_id>[^/]+)/authentication",
     "authentication", True),
    ("POST", "challenge-result",
     r"/client" + API + r"/payments/(?P<payment_id>[^/]+)/card-sessions/(?P<session_id>[^/]+)/challenge-result",
     "challenge_result", True),
    (None, "acs-page", r"/issuer/acs/challenge", "acs_page", False),
    ("POST", "acs-submit", r"/issuer/acs/verify", "acs_submit", False),
    ("POST", "notification", r"/web/checkout/3ds/notification/(?P<session_id>[^/]+)", "notification", False),
    ("POST", "acs-method", r"/issuer/acs/method", "acs_method", False),
    ("POST", "method-notification", r"/web/checkout/3ds/method-notification/(?P<session_id>[^/]+)",
     "method_notification", False),
    ("GET", "hosted-page", r"/web/checkout/pay/(?P<payment_id>[^/]+)", "hosted_page", False),
    ("POST", "hosted-choice", r"/web/checkout/pay/(?P<payment_id>[^/]+)", "hosted_choice", False),
    ("GET", "shop-return", r"/shop/return/(?P<payment_id>[^/]+)", "shop_return", False),
]
_COMPILED = [(m, e, re.compile(p + r"/?"), h, money) for m, e, p, h, money in _ROUTES]
_PAGE_ENDPOINTS = {"hosted-page", "hosted-choice", "acs-page", "acs-submit", "notification", "shop-return",
                   "acs-method", "method-notification"}


# EMV 3DS 2.2, Table A.1 (browser-based authentication), read for this wire's member names:
# browserAcceptHeader / browserUserAgent: 1-2048 characters; browserLanguage: 1-8 characters
# (IETF BCP 47); browserColorDepth: one of 1, 4, 8, 15, 16, 24, 32, 48 bits; browserScreenHeight /
# Width: 1-6 numeric characters (pixels); browserTZ: 1-5 characters, UTC minus local in minutes;
# browserJavaEnabled / browserJavascriptEnabled: booleans; challengeWindowSize: 01-05. Java,
# colour depth, screen and time zone are required when JavaScript is enabled.
_EMV_COLOR_DEPTHS = {1, 4, 8, 15, 16, 24, 32, 48}
_BCP47 = re.compile(r"[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*")


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def emv_browser_problem(browser):
    """The first member of `browser` EMV's format refuses, as `member: rule`; None when none."""
    for name in ("userAgent", "acceptHeader"):
        if name in browser:
            value = browser[name]
            if not isinstance(value, str) or not 1 <= len(value) <= 2048:
                return f"{name}: 1 to 2048 characters"
    if "language" in browser:
        value = browser["language"]
        if not isinstance(value, str) or not 1 <= len(value) <= 8 or not _BCP47.fullmatch(value):
            return "language: a BCP 47 tag of 1 to 8 characters"
    if "timeZoneOffsetMinutes" in browser:
        value = browser["timeZoneOffsetMinutes"]
        if not _is_int(value) or not 1 <= len(str(value)) <= 5:
            return "timeZoneOffsetMinutes: minutes, 1 to 5 characters"
    for name in ("screenWidth", "screenHeight"):
        if name in browser:
            value = browser[name]
            if not _is_int(value) or value < 0 or len(str(value)) > 6:
                return f"{name}: pixels, 1 to 6 digits"
    if "colorDepth" in browser:
        if not _is_int(browser["colorDepth"]) or browser["colorDepth"] not in _EMV_COLOR_DEPTHS:
            return "colorDepth: 1, 4, 8, 15, 16, 24, 32 or 48"
    for name in ("javaEnabled", "javascriptEnabled"):
        if name in browser and not isinstance(browser[name], bool):
            return f"{name}: a boolean"
    if "challengeWindowSize" in browser and browser["challengeWindowSize"] not in ("01", "02", "03", "04", "05"):
        return "challengeWindowSize: 01 to 05"
    return None


def emv_browser_complete(browser):
    """Whether the members EMV requires of a browser are there (with JavaScript, also the rest)."""
    needed = ["userAgent", "acceptHeader", "language", "javascriptEnabled", "challengeWindowSize"]
    if browser.get("javascriptEnabled") is True:
        needed += ["javaEnabled", "colorDepth", "screenWidth", "screenHeight", "timeZoneOffsetMinutes"]
    return all(name in browser for name in needed)


def _result_of(answer):
    """What an answer said, for the log: a session's status or an error code (never card data)."""
    if not answer.content_type.startswith("application/json") or not answer.body:
        return None
    try:
        body = json.loads(answer.body)
    except ValueError:
        return None
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return body["error"].get("code")
    if isinstance(body, dict):
        return body.get("status") or body.get("paymentStatus")
    return None


def _failure_of(answer):
    """A FAILED session's `failure.code`, for the log; None otherwise."""
    if not answer.content_type.startswith("application/json") or not answer.body:
        return None
    try:
        body = json.loads(answer.body)
    except ValueError:
        return None
    if isinstance(body, dict) and isinstance(body.get("failure"), dict):
        return body["failure"].get("code")
    return None


class _Handler(BaseHTTPRequestHandler):
    """One instance per TCP connection. HTTP/1.1 with keep-alive: every answer carries a
    correct Content-Length and no `Connection: close`, so a client that reuses connections
    (libcurl's default) really sends later requests on a connection that carried earlier
    ones; the log says which connection (and which request on it) every request came on."""
    gateway = None  # set on the per-server subclass
    protocol_version = "HTTP/1.1"
    server_version = "ForeignGateway/1.1"
    sys_version = ""

    def setup(self):
        super().setup()
        self.connection_number = self.gateway._connection_opened(self.connection)
        self.carried = []  # the endpoints of the requests this connection carried so far

    def log_message(self, *args):
        pass  # the gateway keeps its own log (no bodies, no card data)

    def do_GET(self):
        self._dispatch("GET")

    def do_POST(self):
        self._dispatch("POST")

    def do_PUT(self):
        self._dispatch("PUT")

    def do_DELETE(self):
        self._dispatch("DELETE")

    def _dispatch(self, method):
        gateway = self.gateway
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length > 0 else b""
        request = _Request(self, method, body)
        path = urllib.parse.urlsplit(self.path).path
        entry = {"endpoint": None, "method": method, "path": path, "status": None, "result": None, "failure": None,
                 "fault": None, "replay": False, "idempotencyKey": bool(self.headers.get("Idempotency-Key")),
                 "connection": self.connection_number, "peerPort": self.client_address[1],
                 "onConnection": len(self.carried) + 1, "carried": list(self.carried)}
        with gateway._lock:
            gateway.log.append(entry)
        try:
            route = None
            params = {}
            path_matched = False
            for route_method, endpoint, pattern, handler_name, money in _COMPILED:
                match = pattern.fullmatch(path)
                if match:
                    path_matched = True
                    if route_method is None or route_method == method:
                        route = (endpoint, handler_name, money)
                        params = match.groupdict()
                        break
            if route is not None:
                entry["endpoint"] = route[0]
            self.carried.append(entry["endpoint"])
            if gateway.gone:  # a request that raced the gateway going away: nothing is applied
                entry["fault"] = "gone"
                self._drop(entry)
            if route is None:
                answer = (Answer.error(405, "INVALID_REQUEST", "method not allowed") if path_matched
                          else Answer.error(404, "NOT_FOUND", "no such endpoint"))
                self._send(answer, entry)
                return
            endpoint, handler_name, money = route
            if endpoint == "authentication":
                try:
                    comp_ind = json.loads(body or b"{}").get("threeDSCompInd")
                except (ValueError, AttributeError):
                    comp_ind = None
                entry["threeDSCompInd"] = comp_ind if comp_ind in ("Y", "N", "U") else None
            fault = gateway._take_fault(endpoint)
            if fault is not None:
                entry["fault"] = fault.kind
                if fault.kind == "latency":
                    time.sleep(float(fault.arg or 1))
                    fault = None
            if fault is not None and fault.kind in NOT_APPLIED:
                self._send_fault(fault, None, endpoint, entry)
                return
            apply = lambda: getattr(gateway, handler_name)(request, **params)  # noqa: E731
            if money:
                answer, replayed = gateway.with_idempotency(request, params["payment_id"], apply)
                entry["replay"] = replayed
            else:
                answer = apply()
            if fault is not None:
                self._send_fault(fault, answer, endpoint, entry)
            else:
                self._send(answer, entry)
        except _Dropped:
            pass
        except Exception as error:  # the gateway's own bug: report it to the test, answer 500
            with gateway._lock:
                gateway.errors.append(f"{entry['endpoint']}: {type(error).__name__}")
            try:
                self.close_connection = True
                self._send(Answer.error(500, "INTERNAL_ERROR", "the gateway failed"), entry)
            except Exception:
                pass

    def _send(self, answer, entry):
        entry["status"] = answer.status
        entry["result"] = _result_of(answer)
        entry["failure"] = _failure_of(answer)
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Content-Length", str(len(answer.body)))
        if self.close_connection:
            self.send_header("Connection", "close")
        for name, value in answer.headers:
            self.send_header(name, value)
        self.end_headers()
        if answer.body:
            self.wfile.write(answer.body)
        self.wfile.flush()

    def _drop(self, entry, status="reset"):
        entry["status"] = status
        self.close_connection = True
        _reset(self.connection)  # RST: the client gets no answer at all
        raise _Dropped()

    def _send_fault(self, fault, meant, endpoint, entry):
        kind = fault.kind
        is_page = endpoint in _PAGE_ENDPOINTS
        if kind in ("drop_applied", "drop_not_applied", "page_reset"):
            self._drop(entry)
        if kind in ("gone_applied", "gone_not_applied"):
            # Applied (the whole request was read and applied above), then the gateway goes
            # away as a restarting one does: the listener is closed FIRST, so the client's
            # reconnect is refused, then this (kept) connection is reset.
            self.gateway.go_away(keep=self.connection_number)
            self._drop(entry, status="reset, gone")
        if kind in ("hold", "hold_applied"):
            # The answer never comes: held for `arg` seconds (default HOLD_SECONDS, ended by
            # stop()), then the connection is reset. Long enough to outlive the client's deadline.
            self.gateway._stopping.wait(float(fault.arg) if fault.arg is not None else HOLD_SECONDS)
            self._drop(entry, status="held, reset")
        if kind == "hold_body":
            body = meant.body
            entry["status"] = f"{meant.status}, body held"
            self.send_response(meant.status)
            self.send_header("Content-Type", meant.content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in meant.headers:
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body[:len(body) // 2])
            self.wfile.flush()
            self.gateway._stopping.wait(float(fault.arg) if fault.arg is not None else HOLD_SECONDS)
            self._drop(entry, status=f"{meant.status}, body held, reset")
        if kind in ("status_applied", "status_not_applied", "page_fail"):
            status = int(fault.arg or (503 if kind == "status_not_applied" else 500))
            if is_page or kind == "page_fail":
                self._send(Answer.page(status, "Service unavailable",
                                       "<h1>Something went wrong</h1><p>Please try again later.</p>"), entry)
            else:
                self._send(Answer.error(status, "INTERNAL_ERROR", "the gateway could not answer"), entry)
            return
        if kind == "unexpected_2xx":
            self._send(Answer(int(fault.arg or 202), b"", "application/json"), entry)
            return
        if kind == "malformed_applied":
            status = meant.status if meant is not None and meant.status < 400 else 200
            self._send(Answer(status, b"<html><body>Request accepted{", "application/json; charset=utf-8"), entry)
            return
        if kind == "already_processed":
            self._send(Answer.error(409, "PAYMENT_ALREADY_PROCESSED", "the payment was already processed"), entry)
            return
        if kind == "failed_already_processed":
            # Applied, then the answer is a session FAILED with PAYMENT_ALREADY_PROCESSED in
            # the meant 2xx status (the step's own session id).
            status = meant.status if meant is not None and meant.status < 400 else 200
            session_id = None
            try:
                session_id = json.loads(meant.body).get("sessionId")
            except Exception:
                pass
            if not session_id:
                in_path = re.search(r"/card-sessions/([^/]+)", entry["path"])
                session_id = in_path.group(1) if in_path else _new_id("fgs")
            self._send(Answer.json(status, failed_already_processed_body(session_id)), entry)
            return
        raise AssertionError(f"unhandled fault {kind}")

    def finish(self):
        try:
            super().finish()
        except OSError:
            pass
        self.gateway._connection_closed(self.connection_number)


if __name__ == "__main__":
    gateway = ForeignGateway().start()
    print(f"merchantBaseURL={gateway.merchant_base_url}")
    print(f"apiBaseURL={gateway.api_base_url}")
    print(f"checkoutAPIBaseURL={gateway.checkout_api_base_url}")
    print(f"checkoutBaseURL={gateway.checkout_base_url}")
    print("egw-repl " + " ".join(gateway.repl_args()), flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        gateway.stop()


# ---------------------------------------------------------------- pages built by script (pages="js")

def _script_page(script, setup):
    """A page whose served HTML holds no form: `script` builds it from `setup` (JSON)."""
    data = json.dumps(setup).replace("<", "\\u003c")
    return ("<div id=\"root\">Loading...</div>\n<noscript>Please enable JavaScript.</noscript>\n"
            f"<script>\nconst SETUP = {data};\n{script}</script>")


# The issuer: an OTP field and a button made by script; the code goes out with fetch; the answer
# comes back as JSON; the hand-back form is created and submitted by script.
_ACS_SCRIPT = """
document.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("root");
  root.textContent = "";
  const h = document.createElement("h1"); h.textContent = "Verify your payment";
  const p = document.createElement("p");
  p.textContent = "We sent a one-time password to the phone registered for your " + SETUP.masked + ".";
  const box = document.createElement("div");
  const label = document.createElement("label"); label.textContent = "One-time password "; label.htmlFor = "otp";
  const otp = document.createElement("input"); otp.id = "otp"; otp.autocomplete = "one-time-code";
  const ok = document.createElement("button"); ok.type = "button"; ok.textContent = "Confirm";
  box.append(label, otp, ok);
  root.append(h, p, box);
  ok.addEventListener("click", async () => {
    ok.disabled = true;
    const answer = await fetch(SETUP.verify, { method: "POST", headers: { Accept: "application/json" },
      body: new URLSearchParams({ txn: SETUP.txn, otp: otp.value }) }).then((r) => r.json());
    const back = document.createElement("form");
    back.method = "post"; back.action = answer.target;
    const field = document.createElement("input"); field.type = "hidden"; field.name = "cres"; field.value = answer.cres;
    back.append(field); document.body.append(back); back.submit();
  });
});
"""

# The checkout: "Pay now" and "Cancel payment" made by script; the choice goes out with fetch
# (the session cookie with it), then the script sets location.
_CHECKOUT_SCRIPT = """
document.addEventListener("DOMContentLoaded", () => {
  const root = document.getElementById("root");
  root.textContent = "";
  const h = document.createElement("h1"); h.textContent = "Checkout";
  const p = document.createElement("p"); p.textContent = "Order " + SETUP.order + ": " + SETUP.amount;
  root.append(h, p);
  for (const [action, text] of [["pay", "Pay now"], ["cancel", "Cancel payment"]]) {
    const b = document.createElement("button"); b.type = "button"; b.textContent = text;
    b.addEventListener("click", async () => {
      const answer = await fetch(SETUP.action, { method: "POST", headers: { Accept: "application/json" },
        body: new URLSearchParams({ token: SETUP.token, action }) }).then((r) => r.json());
      location.href = answer.next;
    });
    root.append(b, " ");
  }
});
"""
