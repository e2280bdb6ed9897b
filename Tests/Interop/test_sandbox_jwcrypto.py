"""egw-sandbox (Packages/GatewaySandbox) against python jwcrypto, an independent JOSE implementation.

The sandbox must accept cards that jwcrypto encrypts to the key its JWKS serves, decrypt
them with its own private key, and follow GATEWAY.md's test-card table. Also: a private JWK
made by jwcrypto loaded with --key, the issuer's challenge pages driven with python's own
HTML parser, the command-line contract, and a clean stop on SIGTERM.

The Makefile passes the built tool in EGW_SANDBOX_BIN (the tests are skipped when it is unset).
"""
import base64
import json
import os
import socket
import subprocess
import tempfile
import unittest
import urllib.parse
from html.parser import HTMLParser

from jwcrypto import jwe, jwk

from sandbox_process import BIN, SandboxProcess, api_headers, http


def card_json(number, month="12", year="34", code="123", name="Ada Lovelace"):
    return json.dumps({"cardholderName": name, "cardNumber": number, "expiryMonth": month,
                       "expiryYear": year, "securityCode": code})


def encrypt(plaintext, key, kid=True):
    """Compact JWE by jwcrypto: RSA-OAEP-256 + A256GCM, the kid of the key in the header."""
    header = {"alg": "RSA-OAEP-256", "enc": "A256GCM"}
    if kid and key.get("kid"):
        header["kid"] = key["kid"]
    token = jwe.JWE(plaintext.encode(), protected=json.dumps(header))
    token.add_recipient(key)
    return token.serialize(compact=True)


class PageParser(HTMLParser):
    """Collects egw-* meta markers and forms (hidden inputs, text inputs, buttons)."""

    def __init__(self, html):
        super().__init__()
        self.meta = {}
        self.forms = []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "meta" and "name" in a:
            self.meta[a["name"]] = a.get("content", "")
        elif tag == "form":
            self.forms.append({"id": a.get("id"), "action": a.get("action"), "method": a.get("method"),
                               "hidden": {}, "text": [], "buttons": []})
        elif tag == "input" and self.forms:
            if a.get("type") == "hidden":
                self.forms[-1]["hidden"][a["name"]] = a.get("value", "")
            elif a.get("type", "text") == "text":
                self.forms[-1]["text"].append(a["name"])
        elif tag == "button" and self.forms:
            self.forms[-1]["buttons"].append((a.get("name"), a.get("value")))

    def form(self, form_id):
        return next(f for f in self.forms if f["id"] == form_id)


@unittest.skipUnless(BIN and os.path.exists(BIN), "EGW_SANDBOX_BIN is not set to a built egw-sandbox")
class SandboxJWCryptoTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sandbox = SandboxProcess("--seed", "11")

    @classmethod
    def tearDownClass(cls):
        code = cls.sandbox.stop()
        assert code == 0, f"egw-sandbox exited {code} on SIGTERM"

    def create_payment(self):
        status, _, body = http("POST", self.sandbox.merchant + "/sandbox/payments",
                               {"amount": 1250, "currency": "EUR", "orderNumber": "PY-1"})
        self.assertEqual(status, 201)
        return json.loads(body)

    def fetch_key(self):
        status, headers, body = http("GET", self.sandbox.checkout + "/checkout/.well-known/jwks.json")
        self.assertEqual(status, 200)
        self.assertEqual(headers.get("cache-control"), "max-age=300")
        keys = json.loads(body)["keys"]
        self.assertEqual(len(keys), 1)
        self.assertEqual((keys[0]["kty"], keys[0]["use"], keys[0]["alg"]), ("RSA", "enc", "RSA-OAEP-256"))
        return jwk.JWK(**keys[0])

    def sessions_url(self, payment, rest=""):
        return f"{self.sandbox.checkout_api}/checkout/api/egw/v1/payments/{payment['paymentId']}/card-sessions{rest}"

    def create_session(self, payment, token):
        status, _, body = http("POST", self.sessions_url(payment), {"encryptedCard": token},
                               api_headers(payment["verificationKey"]))
        return status, json.loads(body)

    def authenticate(self, payment, session_id):
        notification = f"{self.sandbox.checkout}/checkout/3ds/notification/{session_id}"
        body = {"notificationUrl": notification,
                "browser": {"userAgent": "py", "acceptHeader": "text/html", "language": "en-GB",
                            "timeZoneOffsetMinutes": 0}}
        status, _, reply = http("POST", self.sessions_url(payment, f"/{session_id}/authentication"), body,
                                api_headers(payment["verificationKey"]))
        self.assertEqual(status, 200, reply)
        return json.loads(reply)

    def test_frictionless_cards(self):
        # GATEWAY.md: 4111... Y -> COMPLETED; 4000...3063 A -> COMPLETED; 6011... R -> FAILED.
        key = self.fetch_key()
        for number, status, trans in [("4111111111111111", "COMPLETED", "Y"), ("4000000000003063", "COMPLETED", "A"),
                                      ("6011111111111117", "FAILED", "R")]:
            with self.subTest(number=number[-4:]):
                payment = self.create_payment()
                code, created = self.create_session(payment, encrypt(card_json(number), key))
                self.assertEqual(code, 201)
                self.assertEqual(created["status"], "AUTHENTICATION_REQUIRED")
                result = self.authenticate(payment, created["sessionId"])
                self.assertEqual((result["status"], result["transStatus"]), (status, trans))

    def test_cards_decided_at_creation(self):
        key = self.fetch_key()
        payment = self.create_payment()
        code, created = self.create_session(payment, encrypt(card_json("4000000000000002"), key))
        self.assertEqual((code, created["status"], created["failure"]["code"]), (201, "FAILED", "CARD_DECLINED"))
        code, created = self.create_session(payment, encrypt(card_json("5200828282828210"), key))
        self.assertEqual((code, created["status"]), (201, "COMPLETED"))
        # Paid now: another card session is refused.
        code, body = self.create_session(payment, encrypt(card_json("4111111111111111"), key))
        self.assertEqual((code, body["error"]["code"]), (409, "PAYMENT_ALREADY_PROCESSED"))
        code, body = self.create_session(self.create_payment(), encrypt(card_json("378282246310005", code="1234"), key))
        self.assertEqual((code, body["error"]["code"]), (422, "CARD_BRAND_NOT_ACCEPTED"))

    def test_challenge_pages_with_python_html_parser(self):
        key = self.fetch_key()
        for code_typed, status, trans in [("1234", "COMPLETED", "Y"), ("9999", "FAILED", "N")]:
            with self.subTest(code=code_typed):
                payment = self.create_payment()
                _, created = self.create_session(payment, encrypt(card_json("5555555555554444"), key))
                session_id = created["sessionId"]
                auth = self.authenticate(payment, session_id)
                self.assertEqual((auth["status"], auth["transStatus"]), ("CHALLENGE_REQUIRED", "C"))
                creq = json.loads(base64.urlsafe_b64decode(auth["challenge"]["creq"] + "=="))
                self.assertEqual((creq["messageType"], creq["threeDSServerTransID"]), ("CReq", session_id))

                _, _, html = http("POST", auth["challenge"]["acsUrl"], form={"creq": auth["challenge"]["creq"]})
                page = PageParser(html.decode())
                self.assertEqual(page.meta["egw-page"], "acs-challenge")
                form = page.form("challenge-form")
                self.assertEqual(form["text"], ["code"])
                _, _, html = http("POST", form["action"], form={**form["hidden"], "code": code_typed, "action": "submit"})
                page = PageParser(html.decode())
                self.assertEqual(page.meta["egw-page"], "acs-complete")
                cres_form = page.form("cres-form")
                self.assertEqual(cres_form["action"], f"{self.sandbox.checkout}/checkout/3ds/notification/{session_id}")
                status_code, _, html = http("POST", cres_form["action"], form=cres_form["hidden"])
                self.assertEqual(status_code, 200)
                self.assertEqual(PageParser(html.decode()).meta["egw-page"], "3ds-notification")

                code, _, body = http("POST", self.sessions_url(payment, f"/{session_id}/challenge-result"), {},
                                     api_headers(payment["verificationKey"]))
                result = json.loads(body)
                self.assertEqual((code, result["status"], result["transStatus"]), (200, status, trans))

    def test_key_handling(self):
        key = self.fetch_key()
        payment = self.create_payment()
        # No kid in the header: tried with the current key and accepted.
        code, created = self.create_session(payment, encrypt(card_json("4111111111111111"), key, kid=False))
        self.assertEqual((code, created["status"]), (201, "AUTHENTICATION_REQUIRED"))
        # Encrypted to a key of jwcrypto's own: kid unknown to the sandbox.
        stranger = jwk.JWK.generate(kty="RSA", size=2048, kid="not-the-gateway")
        code, body = self.create_session(payment, encrypt(card_json("4111111111111111"), stranger))
        self.assertEqual((code, body["error"]["code"]), (422, "UNKNOWN_KEY"))
        code, body = self.create_session(payment, encrypt(card_json("4111111111111111"), stranger, kid=False))
        self.assertEqual((code, body["error"]["code"]), (422, "DECRYPTION_FAILED"))
        # Tampered tag.
        parts = encrypt(card_json("4111111111111111"), key).split(".")
        parts[4] = ("A" if parts[4][0] != "A" else "B") + parts[4][1:]
        code, body = self.create_session(payment, ".".join(parts))
        self.assertEqual((code, body["error"]["code"]), (422, "DECRYPTION_FAILED"))
        # Wrong plaintext shape, correctly encrypted.
        code, body = self.create_session(payment, encrypt(json.dumps({"cardNumber": "4111111111111111"}), key))
        self.assertEqual((code, body["error"]["code"]), (400, "INVALID_REQUEST"))
        self.assertNotIn("4111111111111111", body["error"]["message"])

    def test_rotation_over_the_control_endpoint(self):
        old = self.fetch_key()
        payment = self.create_payment()
        # The control endpoints need the per-process token the banner printed.
        status, _, _ = http("POST", self.sandbox.merchant + "/sandbox/rotate-key", b"")
        self.assertEqual(status, 401)
        self.assertEqual(self.fetch_key()["kid"], old["kid"])
        status, _, body = http("POST", self.sandbox.merchant + "/sandbox/rotate-key", b"",
                               headers=self.sandbox.control_headers)
        self.assertEqual(status, 200)
        code, reply = self.create_session(payment, encrypt(card_json("4111111111111111"), old))
        self.assertEqual((code, reply["error"]["code"]), (422, "UNKNOWN_KEY"))
        new = self.fetch_key()
        self.assertNotEqual(new["kid"], old["kid"])
        self.assertEqual(new["kid"], json.loads(body)["kid"])
        code, reply = self.create_session(payment, encrypt(card_json("4111111111111111"), new))
        self.assertEqual(code, 201)

    def test_request_log_holds_no_card_data(self):
        key = self.fetch_key()
        payment = self.create_payment()
        self.create_session(payment, encrypt(card_json("6759649826438453", name="Grace Hopper"), key))
        _, _, log = http("GET", self.sandbox.merchant + "/sandbox/log", headers=self.sandbox.control_headers)
        entries = json.loads(log)["requests"]
        self.assertTrue(any(e["endpoint"] == "card-session-create" and e["status"] == 201 for e in entries))
        self.assertNotIn(b"6759649826438453", log)
        self.assertNotIn(b"Grace", log)


@unittest.skipUnless(BIN and os.path.exists(BIN), "EGW_SANDBOX_BIN is not set to a built egw-sandbox")
class SandboxCommandLineTest(unittest.TestCase):
    def test_key_file_from_jwcrypto(self):
        key = jwk.JWK.generate(kty="RSA", size=2048, kid="py-made")
        with tempfile.NamedTemporaryFile("w", suffix=".jwk", delete=False) as handle:
            handle.write(key.export_private())
            path = handle.name
        try:
            with SandboxProcess("--key", path, "--key-max-age", "42") as sandbox:
                self.assertEqual(sandbox.urls["kid"], "py-made")
                status, headers, body = http("GET", sandbox.checkout + "/checkout/.well-known/jwks.json")
                served = json.loads(body)["keys"][0]
                self.assertEqual(headers.get("cache-control"), "max-age=42")
                self.assertEqual((served["kid"], served["n"], served["e"]),
                                 ("py-made", json.loads(key.export_public())["n"], "AQAB"))
                # jwcrypto encrypts to its own public key: the sandbox holds the private half.
                status, _, created = http("POST", sandbox.merchant + "/sandbox/payments", {})
                payment = json.loads(created)
                url = f"{sandbox.checkout_api}/checkout/api/egw/v1/payments/{payment['paymentId']}/card-sessions"
                status, _, body = http("POST", url, {"encryptedCard": encrypt(card_json("5200828282828210"), key)},
                                       api_headers(payment["verificationKey"]))
                self.assertEqual((status, json.loads(body)["status"]), (201, "COMPLETED"))
        finally:
            os.unlink(path)

    def test_prints_urls_with_prefixes_and_frees_the_port_on_sigterm(self):
        sandbox = SandboxProcess("--seed", "5")
        port = urllib.parse.urlparse(sandbox.merchant).port
        self.assertEqual(sandbox.api, f"http://127.0.0.1:{port}/merchant-api")
        self.assertEqual(sandbox.checkout_api, f"http://127.0.0.1:{port}/gateway-api")
        self.assertEqual(sandbox.checkout, f"http://127.0.0.1:{port}/gateway-checkout")
        self.assertEqual(sandbox.urls["seed"], "5")
        self.assertEqual(sandbox.stop(), 0)
        probe = socket.socket()
        try:
            probe.bind(("127.0.0.1", port))  # free again
        finally:
            probe.close()

    def test_usage_errors_exit_64(self):
        for args in (["--port", "70000"], ["--bogus"], ["--seed"]):
            result = subprocess.run([BIN, *args], capture_output=True, text=True, timeout=30)
            self.assertEqual(result.returncode, 64, args)
            self.assertIn("usage:", result.stderr)
        result = subprocess.run([BIN, "--key", "/nonexistent/key.jwk"], capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 1)


if __name__ == "__main__":
    unittest.main()
