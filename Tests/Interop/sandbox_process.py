"""Helpers for the sandbox interop tests: start the built egw-sandbox, speak its HTTP API.

The binary path comes from EGW_SANDBOX_BIN (set by the Makefile). The server is started with
--port 0 and its base URLs are read from the `name=value` lines it prints on stdout.
"""
import json
import os
import subprocess
import time
import urllib.error
import urllib.request
import uuid

BIN = os.environ.get("EGW_SANDBOX_BIN", "")


class SandboxProcess:
    """A running egw-sandbox; use as a context manager (stops it with SIGTERM)."""

    def __init__(self, *args, last="seed"):
        """`last` is the banner line to read up to (`serverPublicKeyPin` with --tls)."""
        self.process = subprocess.Popen(
            [BIN, "--port", "0", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.urls = {}
        deadline = time.monotonic() + 30
        while last not in self.urls:
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("egw-sandbox did not print its URLs in time")
            line = self.process.stdout.readline()
            if not line:
                err = self.process.stderr.read()
                raise RuntimeError(f"egw-sandbox exited early: {err}")
            name, _, value = line.strip().partition("=")
            self.urls[name] = value

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            if stream:
                stream.close()
        return self.process.returncode

    @property
    def merchant(self):
        return self.urls["merchantBaseURL"]

    @property
    def control_headers(self):
        """What the control endpoints (faults, log, key rotation) require: the banner's controlToken."""
        return {"X-Sandbox-Token": self.urls["controlToken"]}

    @property
    def api(self):
        return self.urls["apiBaseURL"]

    @property
    def checkout_api(self):
        return self.urls["checkoutAPIBaseURL"]

    @property
    def checkout(self):
        return self.urls["checkoutBaseURL"]


def http(method, url, body=None, headers=None, form=None):
    """One request; returns (status, headers dict with lower-case names, body bytes). No redirects followed."""
    data = None
    all_headers = dict(headers or {})
    if body is not None:
        data = json.dumps(body).encode() if not isinstance(body, (bytes, str)) else (
            body.encode() if isinstance(body, str) else body)
        all_headers.setdefault("Content-Type", "application/json")
    if form is not None:
        data = urllib.parse.urlencode(form).encode()
        all_headers["Content-Type"] = "application/x-www-form-urlencoded"
    request = urllib.request.Request(url, data=data, method=method, headers=all_headers)

    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=30) as response:
            return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()
    except urllib.error.HTTPError as error:
        return error.code, {k.lower(): v for k, v in error.headers.items()}, error.read()


def api_headers(verification_key):
    return {
        "Obp-Verification-Key": verification_key,
        "X-Request-Id": str(uuid.uuid4()),
        "Accept": "application/json",
        "User-Agent": "egw-interop-tests/1",
    }
