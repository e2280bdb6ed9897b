"""Shared helpers for the egw-repl end-to-end tests (no tests in this module).

The tests drive the built binary named by EGW_REPL_BIN (the Makefile sets it):
piped scripts through subprocess, and a real pseudo-terminal through tmux on a
private socket. Every transcript they produce can be scanned for card data.
"""

import os
import re
import shutil
import subprocess
import tempfile
import time
import unittest
import uuid

REPL_BIN = os.environ.get("EGW_REPL_BIN", "")

# The sandbox test cards (GATEWAY.md, "Test cards"): the numbers that must
# never appear in clear in a transcript or a history file.
TEST_CARD_NUMBERS = [
    "4111111111111111",
    "5555555555554444",
    "6759649826438453",
    "4000000000003063",
    "5200828282828210",
    "4000000000000002",
    "6011111111111117",
    "378282246310005",
]

needs_repl = unittest.skipUnless(REPL_BIN and os.access(REPL_BIN, os.X_OK), "EGW_REPL_BIN is not set")
needs_tmux = unittest.skipUnless(shutil.which("tmux"), "tmux is not installed")

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")

# One cache directory for the whole test run: the embedded sandbox keeps its
# RSA key there, so only the first REPL start pays for generating it.
SHARED_CACHE = tempfile.mkdtemp(prefix="egw-repl-cache-")


def clean_env(**extra):
    """A small, predictable environment: no colour, a private HOME."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": extra.pop("HOME", tempfile.mkdtemp(prefix="egw-repl-home-")),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "XDG_CACHE_HOME": SHARED_CACHE,
    }
    env.update(extra)
    return env


def run_repl(script, args=(), env=None, timeout=120):
    """Runs the REPL with `script` piped to stdin; returns the CompletedProcess (text)."""
    return subprocess.run(
        [REPL_BIN, *args],
        input=script,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env if env is not None else clean_env(),
    )


def digits_only(text):
    return re.sub(r"[\s\-]", "", text)


def assert_no_card_data(testcase, text, extra_secrets=()):
    """Fails when `text` holds a test card number (with or without separators),
    any run of 12+ digits, or one of `extra_secrets` (codes, verification keys)."""
    plain = ANSI.sub("", text)
    squeezed = digits_only(plain)
    for number in TEST_CARD_NUMBERS:
        testcase.assertNotIn(number, squeezed, "a test card number appears in clear")
    # Any other run of 12 or more digits (spaces and dashes allowed between them) is a
    # card number to us, unless it is part of an identifier (letters or _ next to it,
    # as in the sandbox's hex ids `cs_733037213230d9e4`).
    for match in re.finditer(r"(?<![A-Za-z0-9_])\d(?:[ \-]?\d){11,}(?![A-Za-z0-9_])", plain):
        testcase.fail(f"a {len(digits_only(match.group()))}-digit run appears in clear: ...{plain[max(0, match.start() - 40):match.start()]}<run>{plain[match.end():match.end() + 20]}...")
    for secret in extra_secrets:
        if not secret:
            continue
        if secret.isdigit():
            # A code: only as a word of its own (ids and ports may hold the same digits).
            pattern = r"(?<![A-Za-z0-9_])" + re.escape(secret) + r"(?![A-Za-z0-9_])"
            testcase.assertIsNone(re.search(pattern, plain), "a security code appears in clear")
        else:
            testcase.assertNotIn(secret, text, "a secret appears in clear")


class Tmux:
    """One tmux server on a private socket, one window running a command."""

    def __init__(self, command, width=160, height=50, env=None):
        # A fresh socket name every time: reusing one races with the previous server's exit.
        self.socket = f"egw-repl-test-{os.getpid()}-{uuid.uuid4().hex[:12]}"
        env_prefix = ""
        if env:
            env_prefix = "env " + " ".join(f"{k}={shquote(v)}" for k, v in env.items()) + " "
        # Keep the pane after the REPL exits and show its exit status.
        wrapped = f"{env_prefix}{command}; echo \"[exited $?]\"; sleep 600"
        for attempt in range(3):
            started = subprocess.run(
                ["tmux", "-L", self.socket, "-f", "/dev/null", "new-session", "-d", "-s", "t",
                 "-x", str(width), "-y", str(height), wrapped],
                capture_output=True, text=True,
            )
            if started.returncode == 0:
                break
            time.sleep(0.2 * (attempt + 1))
        else:
            raise AssertionError(f"tmux did not start: {started.stderr}")

    def send(self, *keys):
        """Sends tmux key names (Tab, Enter, C-c, C-d, Up)."""
        subprocess.run(["tmux", "-L", self.socket, "send-keys", "-t", "t", *keys], check=True)

    def type(self, text):
        """Types `text` literally."""
        subprocess.run(["tmux", "-L", self.socket, "send-keys", "-t", "t", "-l", "--", text], check=True)

    def screen(self, escapes=False):
        """The pane's text (with its colour escape sequences when `escapes`)."""
        flags = ["-e"] if escapes else []
        out = subprocess.run(
            ["tmux", "-L", self.socket, "capture-pane", "-p", "-J", *flags, "-S", "-2000", "-t", "t"],
            capture_output=True, text=True, check=True,
        )
        return out.stdout

    def wait_for(self, predicate, timeout=30.0, what="text"):
        """Polls the screen until `predicate(screen)` (or a substring) holds."""
        if isinstance(predicate, str):
            needle = predicate
            predicate = lambda screen: needle in screen  # noqa: E731
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.screen()
            if predicate(screen):
                return screen
            time.sleep(0.05)
        raise AssertionError(f"timed out waiting for {what}; screen:\n{self.screen()}")

    def close(self):
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True)


def shquote(value):
    return "'" + str(value).replace("'", "'\\''") + "'"
