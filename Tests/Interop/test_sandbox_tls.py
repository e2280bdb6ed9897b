"""egw-sandbox --tls against python's ssl module and pyca/cryptography (installed with jwcrypto).

The sandbox's HTTPS (libmicrohttpd + GnuTLS, certificates issued with OpenSSL in Swift) is
checked by independent parts: python's TLS client verifies the chain and the host, hashlib
computes the CA fingerprint, pyca/cryptography reads the certificates and issues a second,
RSA identity for --tls-cert/--tls-key.

The Makefile passes the built tool in EGW_SANDBOX_BIN (the tests are skipped when it is unset).
"""
import base64
import datetime
import hashlib
import ipaddress
import json
import os
import socket
import ssl
import subprocess
import tempfile
import unittest
import urllib.error
import urllib.request

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from sandbox_process import BIN, SandboxProcess

TLS_LAST = "serverPublicKeyPin"


def post_payment(url, context):
    request = urllib.request.Request(url + "/sandbox/payments", data=b'{"amount": 777}', method="POST",
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30, context=context) as response:
        return response.status, json.loads(response.read())


def peer_certificate(port, context, host="127.0.0.1"):
    with socket.create_connection(("127.0.0.1", port), timeout=30) as raw:
        with context.wrap_socket(raw, server_hostname=host) as tls:
            return x509.load_der_x509_certificate(tls.getpeercert(binary_form=True)), tls.version()


@unittest.skipUnless(BIN, "EGW_SANDBOX_BIN is not set")
class SandboxTLSTests(unittest.TestCase):
    def test_serves_https_from_a_test_ca_a_python_client_trusts(self):
        with SandboxProcess("--tls", last=TLS_LAST) as sandbox:
            for name in ("apiBaseURL", "checkoutAPIBaseURL", "checkoutBaseURL", "merchantBaseURL"):
                self.assertTrue(sandbox.urls[name].startswith("https://127.0.0.1:"), name)
            ca_file = sandbox.urls["certificateAuthorityFile"]
            trusted = ssl.create_default_context(cafile=ca_file)
            status, payment = post_payment(sandbox.merchant, trusted)
            self.assertEqual(status, 201)
            self.assertEqual(payment["amount"], 777)
            self.assertTrue(payment["_links"]["checkoutRedirect"]["href"].startswith("https://"))

            # The system's trust store does not know the test CA.
            with self.assertRaises(urllib.error.URLError) as refused:
                post_payment(sandbox.merchant, ssl.create_default_context())
            self.assertIsInstance(refused.exception.reason, ssl.SSLCertVerificationError)

            # Fingerprint and pins, computed here from the PEM file and the certificate served.
            with open(ca_file) as handle:
                ca_pem = handle.read()
            fingerprint = hashlib.sha256(ssl.PEM_cert_to_DER_cert(ca_pem)).hexdigest().upper()
            expected = ":".join(fingerprint[i:i + 2] for i in range(0, len(fingerprint), 2))
            self.assertEqual(sandbox.urls["certificateAuthoritySHA256"], expected)
            port = int(sandbox.merchant.rsplit(":", 1)[1])
            leaf, version = peer_certificate(port, trusted)
            self.assertEqual(version, "TLSv1.3")
            spki = leaf.public_key().public_bytes(serialization.Encoding.DER,
                                                  serialization.PublicFormat.SubjectPublicKeyInfo)
            self.assertEqual(sandbox.urls["serverPublicKeyPin"],
                             "sha256//" + base64.b64encode(hashlib.sha256(spki).digest()).decode())

            # What the certificates say, read by pyca/cryptography.
            ca = x509.load_pem_x509_certificate(ca_pem.encode())
            self.assertTrue(ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca)
            self.assertEqual(leaf.issuer, ca.subject)
            names = leaf.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
            self.assertEqual(set(names.get_values_for_type(x509.IPAddress)),
                             {ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1")})
            self.assertEqual(names.get_values_for_type(x509.DNSName), ["localhost"])
            self.assertFalse(leaf.extensions.get_extension_for_class(x509.BasicConstraints).value.ca)
            lifetime = leaf.not_valid_after_utc - leaf.not_valid_before_utc
            self.assertLessEqual(lifetime, datetime.timedelta(days=1, minutes=5))
            self.assertIn("BEGIN CERTIFICATE", sandbox.process.stderr.readline() + sandbox.process.stderr.readline()
                          + sandbox.process.stderr.readline() + sandbox.process.stderr.readline())
        # Stopped: the CA file it chose is gone.
        self.assertFalse(os.path.exists(ca_file))

    def test_serves_an_rsa_identity_made_by_pyca_cryptography(self):
        key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "python test CA")])
        now = datetime.datetime.now(datetime.timezone.utc)
        certificate = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
                       .serial_number(x509.random_serial_number())
                       .not_valid_before(now - datetime.timedelta(minutes=5))
                       .not_valid_after(now + datetime.timedelta(hours=1))
                       .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                                      critical=False)
                       .sign(key, hashes.SHA256()))
        with tempfile.TemporaryDirectory() as directory:
            cert_file = os.path.join(directory, "cert.pem")
            key_file = os.path.join(directory, "key.pem")
            ca_out = os.path.join(directory, "ca-out.pem")
            with open(cert_file, "wb") as handle:
                handle.write(certificate.public_bytes(serialization.Encoding.PEM))
            with open(key_file, "wb") as handle:
                handle.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                               serialization.NoEncryption()))
            with SandboxProcess("--tls", "--tls-cert", cert_file, "--tls-key", key_file, "--ca-file", ca_out,
                                last=TLS_LAST) as sandbox:
                self.assertEqual(sandbox.urls["certificateAuthorityFile"], ca_out)
                status, _ = post_payment(sandbox.merchant, ssl.create_default_context(cafile=cert_file))
                self.assertEqual(status, 201)
                port = int(sandbox.merchant.rsplit(":", 1)[1])
                served, _ = peer_certificate(port, ssl.create_default_context(cafile=ca_out))
                self.assertEqual(served, certificate)
            # A file the caller named stays.
            self.assertTrue(os.path.exists(ca_out))

    def test_a_tls_1_1_server_is_refused_by_a_default_python_client(self):
        with SandboxProcess("--tls", "--tls-max-version", "1.1", last=TLS_LAST) as sandbox:
            context = ssl.create_default_context(cafile=sandbox.urls["certificateAuthorityFile"])
            self.assertEqual(context.minimum_version, ssl.TLSVersion.TLSv1_2)
            with self.assertRaises(urllib.error.URLError) as refused:
                post_payment(sandbox.merchant, context)
            self.assertIsInstance(refused.exception.reason, ssl.SSLError)

    def test_tls_usage_errors_exit_64(self):
        for args in (["--tls", "--tls-cert", "/nonexistent"], ["--tls-key", "/nonexistent"],
                     ["--tls-max-version", "1.0"]):
            result = subprocess.run([BIN, "--port", "0", *args], capture_output=True, text=True, timeout=30)
            self.assertEqual(result.returncode, 64, args)
        result = subprocess.run([BIN, "--port", "0", "--tls", "--tls-cert", "/nonexistent", "--tls-key", "/nonexistent"],
                                capture_output=True, text=True, timeout=30)
        self.assertEqual(result.returncode, 1)
        self.assertIn("cannot read /nonexistent", result.stderr)


if __name__ == "__main__":
    unittest.main()
