"""The foreign gateway's 3DS Method and EMV browser checks (`foreign_gateway.py`), driven over
HTTP with python's own client and jwcrypto, as a 3DS requestor and a browser would. The
expectations are EMV 3DS 2.2's field formats and GATEWAY.md step 2's rules, not the SDK's:
a completed method with complete browser data and `threeDSCompInd` `Y` is frictionless;
anything less is challenged; malformed browser data is 400 naming the member.

`ReplAgainstTheForeignMethod` pays with egw-repl's headless browser (EGW_REPL_BIN, else
skipped): a fast method says Y and pays frictionlessly, a slow one is cut (N, then the challenge),
a card without a method says U; the measured time of each REPL run is printed, never asserted.

Run (the first class is cheap, about a second; no REPL): .venv/bin/python -m unittest discover -s Tests/Interop -p 'test_foreign_method.py' -v
"""

import json
import re
import time
import unittest
import urllib.error
import urllib.parse
import urllib.request
import uuid

from jwcrypto import jwe, jwk

from foreign_gateway import ForeignGateway
from test_foreign_gateway import ForeignGatewayCase, card_lines
from test_repl_support import needs_repl

FAST, SLOW, NEVER = "4000000000002107", "4000000000002206", "4000000000002305"
COMPLETE = {"userAgent": "Mozilla/5.0", "acceptHeader": "text/html", "language": "de-CH",
            "timeZoneOffsetMinutes": -60, "screenWidth": 2560, "screenHeight": 1440, "colorDepth": 32,
            "javaEnabled": False, "javascriptEnabled": True, "challengeWindowSize": "04"}
NO_SCRIPT = {"userAgent": "curl", "acceptHeader": "text/html", "language": "en", "timeZoneOffsetMinutes": 0,
             "javascriptEnabled": False, "javaEnabled": False, "challengeWindowSize": "05"}


def call(method, url, body=None, headers=None, form=False):
    data = None
    headers = dict(headers or {})
    if body is not None:
        data = urllib.parse.urlencode(body).encode() if form else json.dumps(body).encode()
        headers["Content-Type"] = "application/x-www-form-urlencoded" if form else "application/json"
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


class ForeignMethodTests(unittest.TestCase):
    def setUp(self):
        self.gateway = ForeignGateway()
        self.gateway.start()
        self.addCleanup(self.gateway.stop)
        self.payment = self.gateway.create_payment()

    def api(self, method, path, body=None):
        headers = {"Obp-Verification-Key": self.payment["verificationKey"], "X-Request-Id": str(uuid.uuid4()),
                   "Idempotency-Key": str(uuid.uuid4()), "Accept": "application/json"}
        url = f"{self.gateway.checkout_api_base_url}/checkout/api/egw/v1/payments/{self.payment['paymentId']}" + path
        status, text = call(method, url, body, headers)
        return status, (json.loads(text) if text.startswith("{") else text)

    def create(self, number):
        _, keys = call("GET", f"{self.gateway.checkout_base_url}/checkout/.well-known/jwks.json")
        key = jwk.JWK(**json.loads(keys)["keys"][0])
        card = json.dumps({"cardholderName": "Ada", "cardNumber": number, "expiryMonth": "12", "expiryYear": "34",
                           "securityCode": "123"})
        token = jwe.JWE(card.encode(), protected=json.dumps(
            {"alg": "RSA-OAEP-256", "enc": "A256GCM", "kid": key.get("kid")}))
        token.add_recipient(key)
        status, session = self.api("POST", "/card-sessions", {"encryptedCard": token.serialize(compact=True)})
        self.assertEqual(status, 201)
        return session

    def run_method(self, method):
        """A browser without script: POST the data, then submit the page's only form, if any."""
        status, page = call("POST", method["url"], {"threeDSMethodData": method["data"]}, form=True)
        self.assertEqual(status, 200)
        form = re.search(r'<form method="post" action="([^"]+)"[^>]*>.*?name="threeDSMethodData" value="([^"]+)"',
                         page, re.S)
        if not form:
            return None
        return call("POST", form.group(1).replace("&amp;", "&"), {"threeDSMethodData": form.group(2)}, form=True)

    def authenticate(self, session, comp_ind, browser):
        body = {"notificationUrl": f"{self.gateway.checkout_base_url}/checkout/3ds/notification/{session['sessionId']}",
                "browser": browser}
        if comp_ind is not None:
            body["threeDSCompInd"] = comp_ind
        return self.api("POST", f"/card-sessions/{session['sessionId']}/authentication", body)

    def test_a_completed_method_with_complete_browser_data_is_frictionless(self):
        for browser in (COMPLETE, NO_SCRIPT):
            session = self.create(FAST)
            method = session["threeDSMethod"]
            self.assertEqual(set(method), {"url", "data"})
            notified = self.run_method(method)
            self.assertEqual(notified[0], 200)
            status, answer = self.authenticate(session, "Y", browser)
            self.assertEqual((status, answer["status"], answer.get("transStatus")), (200, "COMPLETED", "Y"))
            self.payment = self.gateway.create_payment()
        log = self.gateway.log_text()
        self.assertIn("[acs-method]", log)
        self.assertIn("[method-notification]", log)
        self.assertIn("threeDSCompInd=Y", log)
        self.assertNotIn(method["data"], log)

    def test_otherwise_the_issuer_challenges(self):
        cases = [("Y", False, COMPLETE), ("N", True, COMPLETE), ("U", True, COMPLETE), (None, True, COMPLETE),
                 ("Y", True, {k: v for k, v in COMPLETE.items() if k != "screenWidth"})]
        for comp_ind, notify, browser in cases:
            session = self.create(FAST)
            if notify:
                self.run_method(session["threeDSMethod"])
            _, answer = self.authenticate(session, comp_ind, browser)
            self.assertEqual(answer["status"], "CHALLENGE_REQUIRED", (comp_ind, notify))
            self.payment = self.gateway.create_payment()

    def test_the_never_method_posts_nothing_and_cards_without_one_name_none(self):
        self.assertIsNone(self.run_method(self.create(NEVER)["threeDSMethod"]))
        self.assertNotIn("threeDSMethod", self.create("4111111111111111"))

    def test_malformed_browser_data_is_refused_naming_the_member(self):
        bad = [("language", "english-GB"), ("colorDepth", 12), ("screenWidth", "1280"),
               ("challengeWindowSize", "06"), ("javascriptEnabled", "yes"), ("timeZoneOffsetMinutes", 123456),
               ("userAgent", "")]
        for name, value in bad:
            session = self.create("4111111111111111")
            status, answer = self.authenticate(session, "U", dict(COMPLETE, **{name: value}))
            self.assertEqual(status, 400, name)
            self.assertEqual(answer["error"]["code"], "INVALID_REQUEST")
            self.assertIn(name, answer["error"]["message"])
            # Nothing happened: the same session still pays with good data.
            status, answer = self.authenticate(session, "U", COMPLETE)
            self.assertEqual(answer["status"], "COMPLETED", name)
            self.payment = self.gateway.create_payment()
        session = self.create("4111111111111111")
        self.assertEqual(self.authenticate(session, "X", COMPLETE)[0], 400)


@needs_repl
class ReplAgainstTheForeignMethod(ForeignGatewayCase):
    def authentication_comp_ind(self, gateway):
        entries = [e for e in gateway.log if e.get("endpoint") == "authentication"]
        return entries[0].get("threeDSCompInd") if entries else None

    def pay_card(self, number, buyer=()):
        gateway = self.gateway()
        started = time.monotonic()
        got = self.one_payment(gateway, ["payment create", *card_lines(number), *buyer, "pay card"],
                               "succeeded", error_code=None, finish=False)
        print(f"\nforeign 3DS Method {number[-4:]}: the REPL run took {time.monotonic() - started:.2f} s")
        return gateway, got

    def test_a_fast_method_says_y_and_pays_frictionlessly(self):
        gateway, _ = self.pay_card(FAST)
        self.assertEqual(self.authentication_comp_ind(gateway), "Y")
        self.assertEqual(gateway.calls("acs-page"), 0, "frictionless: no challenge page")
        self.assertGreaterEqual(gateway.calls("method-notification"), 1)
        self.finish()

    def test_a_slow_method_is_cut_and_says_n(self):
        gateway, _ = self.pay_card(SLOW, ["buyer challenge 1234"])
        self.assertEqual(self.authentication_comp_ind(gateway), "N")
        self.assertEqual(gateway.calls("method-notification"), 0)
        self.finish()

    def test_a_card_without_a_method_says_u(self):
        gateway, _ = self.pay_card("4111111111111111")
        self.assertEqual(self.authentication_comp_ind(gateway), "U")
        self.finish()


if __name__ == "__main__":
    unittest.main()
