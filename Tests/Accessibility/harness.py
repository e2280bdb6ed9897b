"""What a screen reader and a keyboard-only buyer see of egw-checkout, read over AT-SPI.

Run by `make test-a11y` (lane A of `make test`) through run.sh, which starts a private X server (Xvfb on
a display it picks itself, `-displayfd`) and a private session bus (`dbus-run-session`; the AT-SPI bus and
registry are activated on it): nothing of a desktop is used. Key presses are real X events (XTest,
`xdotool key`); what the tests know of the windows they learn only through AT-SPI (pyatspi), as Orca
would.

Nothing here can hang: every wait is a poll with a deadline that fails naming what it waited for and
what it saw last; every AT-SPI call is bounded by libatspi's D-Bus timeout (`Atspi.set_timeout`); every
xdotool run by `subprocess`'s timeout; each test by an alarm (``A11yTest``) and a traceback dump that
ends the process after it; the whole suite by `timeout` in run.sh. The children (egw-checkout,
egw-sandbox) die with this process (`PR_SET_PDEATHSIG`) and are killed by each test's exit.

The binaries come from the environment (set by the Makefile from the root build): EGW_CHECKOUT_BIN
(egw-checkout) and EGW_SANDBOX_BIN (egw-sandbox, the gateway whose own record each payment is read back
from). The buyer's words are BuyerText's tables (Packages/BuyerText/Sources/BuyerText/Resources), for
every language BuyerText.languages lists, so a new language is covered without touching these tests.
"""
import ctypes
import faulthandler
import json
import os
import re
import select
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.request
from decimal import ROUND_HALF_UP, Decimal

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi  # noqa: E402

import pyatspi  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHECKOUT_BIN = os.environ.get("EGW_CHECKOUT_BIN", "")
SANDBOX_BIN = os.environ.get("EGW_SANDBOX_BIN", "")
BUYER_TEXT = os.path.join(ROOT, "Packages", "BuyerText", "Sources", "BuyerText")
# Seconds a window or a state may take to appear on a loaded 2-core machine; a wait that runs out fails.
WAIT = float(os.environ.get("EGW_A11Y_WAIT", "20"))
# Seconds one test method may take in all (its alarm); the traceback dump ends the process 20 s later.
TEST_SECONDS = int(os.environ.get("EGW_A11Y_TEST_SECONDS", "90"))
POLL = 0.05
# egw-checkout's cart (CheckoutWindow.cart): BuyerText key of each item and its price in EUR.
CART = [("shop.item.book", "12.50"), ("shop.item.mug", "8.00")]

# One AT-SPI call waits at most 3 s for an answer (an application's first answer 10 s): a frozen
# egw-checkout fails the wait around the call instead of blocking it (libatspi's default is 25 s).
Atspi.set_timeout(3000, 10000)


def require_private_session():
    """The harness never reads a desktop's bus: run.sh sets EGW_A11Y_PRIVATE_BUS inside dbus-run-session."""
    if os.environ.get("EGW_A11Y_PRIVATE_BUS") != os.environ.get("DBUS_SESSION_BUS_ADDRESS") or not os.environ.get(
            "DBUS_SESSION_BUS_ADDRESS"):
        raise RuntimeError("run the accessibility suites through Tests/Accessibility/run.sh (a private bus)")


# MARK: - Bounded tests

class TestTimeout(AssertionError):
    """A test ran past its alarm (``TEST_SECONDS``)."""


class A11yTest(unittest.TestCase):
    """A test with an overall deadline: SIGALRM fails it after TEST_SECONDS (as a failure naming the test,
    then every second, so the subtests left fail at once),
    and if even that does not return (a call stuck in C), faulthandler prints every thread's stack and
    ends the process 20 s later, so run.sh's children are torn down rather than waited for."""

    seconds = TEST_SECONDS

    def setUp(self):
        def expired(signum, frame):
            signal.alarm(1)  # and again each second: a subTest that catches it does not let the rest run on
            raise TestTimeout(f"{self.id()} ran past its {self.seconds} s deadline")
        signal.signal(signal.SIGALRM, expired)
        signal.alarm(self.seconds)
        faulthandler.dump_traceback_later(self.seconds + 20, exit=True)
        self.addCleanup(self._disarm)

    def _disarm(self):
        signal.alarm(0)
        faulthandler.cancel_dump_traceback_later()


# MARK: - BuyerText's tables

def languages():
    """BuyerText.languages, read from its source, English first."""
    with open(os.path.join(BUYER_TEXT, "BuyerText.swift"), encoding="utf-8") as f:
        source = f.read()
    found = re.search(r"static let languages\s*=\s*\[([^\]]*)\]", source)
    return re.findall(r'"([a-z]+)"', found.group(1))


def _load(code):
    with open(os.path.join(BUYER_TEXT, "Resources", f"{code}.json"), encoding="utf-8") as f:
        return json.load(f)


class Text(dict):
    """`language`'s table with English beneath it, as BuyerText looks keys up; with BuyerText's formats
    (`format`, `plural`, `money`), written after Packages/BuyerText/Sources/BuyerText/Formats.swift."""

    def __init__(self, language):
        super().__init__(_load("en"))
        self.update(_load(language))
        self.language = language
        self.own = _load(language)

    def format(self, key, argument):
        return self[key].replace("%@", argument)

    def plural_category(self, n):
        n = abs(n)
        mod10, mod100 = n % 10, n % 100
        if self.language == "lv":
            if mod10 == 0 or 11 <= mod100 <= 19:
                return "zero"
            return "one" if mod10 == 1 and mod100 != 11 else "other"
        if self.language == "lt":
            if 11 <= mod100 <= 19:
                return "other"
            return "one" if mod10 == 1 else ("few" if mod10 >= 2 else "other")
        if self.language == "ru":
            if mod10 == 1 and mod100 != 11:
                return "one"
            return "few" if 2 <= mod10 <= 4 and not 12 <= mod100 <= 14 else "many"
        return "one" if n == 1 else "other"

    def plural(self, key, count):
        form = self.own.get(f"{key}#{self.plural_category(count)}") or self.own.get(f"{key}#other") \
            or self.get(f"{key}#{'one' if abs(count) == 1 else 'other'}") or key
        return form.replace("%@", str(count))  # counts here are below 1000: no grouping

    def money(self, amount, currency="EUR"):
        """`amount` (a string or Decimal, 2 fraction digits) as BuyerText.money writes it in this language."""
        digits = str(Decimal(amount).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP))
        whole, fraction = digits.split(".")
        symbol = {"EUR": "€"}.get(currency, currency)
        if self.language == "en":
            return f"{symbol}{int(whole):,}.{fraction}"
        group = len(whole) >= (5 if self.language in ("lv", "et") else 4)
        if group:
            whole = f"{int(whole):,}".replace(",", "\u00a0")
        return f"{whole},{fraction}\u00a0{symbol}"


def table(language):
    return Text(language)


def locale_environment(language):
    """What a buyer of `language` runs with: LANGUAGE first, as gettext and BuyerText read it."""
    return {"LANGUAGE": language, "LANG": "C.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}


# MARK: - Waiting

def wait_for(what, probe, timeout=None):
    """Polls `probe` until it gives something true; fails naming `what` (and what it last saw) after
    `timeout` seconds (WAIT by default)."""
    deadline = time.monotonic() + (WAIT if timeout is None else timeout)
    last = None
    while True:
        try:
            value = probe()
            if value:
                return value
            last = value
        except TestTimeout:
            raise
        except Exception as error:  # the tree changes while being read, a call timed out
            last = f"{type(error).__name__}: {error}"
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {WAIT if timeout is None else timeout:g} s waiting for {what}"
                                 f" (last seen: {describe(last)})")
        time.sleep(POLL)


def describe(value):
    if isinstance(value, Node):
        return value.line()
    return repr(value)


# MARK: - The tree

class Node:
    """One accessible as a screen reader reads it: role, name, description, states, actions, bounds."""

    def __init__(self, accessible):
        self.accessible = accessible
        self.role = accessible.getRoleName()
        self.name = accessible.name or ""
        self.description = accessible.description or ""
        self.states = {pyatspi.stateToString(s).replace(" ", "-") for s in accessible.getState().getStates()}
        try:
            action = accessible.queryAction()
            self.actions = [action.getName(i) for i in range(action.nActions)]
        except NotImplementedError:
            self.actions = []
        try:
            e = accessible.queryComponent().getExtents(pyatspi.WINDOW_COORDS)
            self.extents = (e.x, e.y, e.width, e.height)
        except NotImplementedError:
            self.extents = None

    def line(self):
        shown = sorted(self.states & {"focusable", "focused", "sensitive", "editable", "invalid", "required",
                                       "checked", "selectable"})
        parts = [f"[{self.role}] {self.name!r}"]
        if self.description:
            parts.append(f"description={self.description!r}")
        parts.append("states=" + ",".join(shown))
        interesting = [a for a in self.actions if a in ("click", "activate", "press", "toggle", "jump")]
        if interesting:
            parts.append("action=" + ",".join(interesting))
        return " ".join(parts)

    def __repr__(self):
        return self.line()


def children(accessible):
    return [accessible.getChildAtIndex(i) for i in range(accessible.childCount)]


def nodes(accessible):
    """Every accessible under `accessible` (itself first), depth first, in the tree's order."""
    out = []
    stack = [accessible]
    while stack:
        a = stack.pop()
        if a is None:
            continue
        try:
            out.append(Node(a))
            stack.extend(reversed(children(a)))
        except TestTimeout:
            raise
        except Exception:  # a widget destroyed while walking
            continue
    return out


CONTROLS = ("push button", "toggle button", "radio button", "check box")


def readable_nodes(accessible):
    """The nodes a screen reader reads: as `nodes`, without the insides of a control (a button's own
    label, a radio button's indicator), which it reads by the control's name."""
    out = []
    stack = [accessible]
    while stack:
        a = stack.pop()
        if a is None:
            continue
        try:
            node = Node(a)
            out.append(node)
            if node.role not in CONTROLS:
                stack.extend(reversed(children(a)))
        except TestTimeout:
            raise
        except Exception:
            continue
    return out


def dump(accessible, depth=0):
    """The tree as indented lines, as a screen reader reads it (a control's own child label left out)."""
    try:
        node = Node(accessible)
    except TestTimeout:
        raise
    except Exception:
        return []
    if "visible" not in node.states and depth > 0:
        return []
    lines = ["  " * depth + node.line()]
    if node.role in CONTROLS:
        return lines
    for child in children(accessible):
        lines += dump(child, depth + 1)
    return lines


def find(accessible, predicate, what, timeout=None):
    """The first node under `accessible` `predicate` accepts, waited for."""
    return wait_for(what, lambda: next((n for n in nodes(accessible) if predicate(n)), None), timeout)


# MARK: - Processes

_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG = 1


def _die_with_parent():
    """In the child before exec: SIGKILL when the test process dies, however it dies."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def stop_process(process, grace=5):
    """SIGTERM, then SIGKILL after `grace` seconds; always reaped."""
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


# MARK: - The application

class Checkout:
    """egw-checkout in `language`, its AT-SPI application and its windows; a context manager.

    `args` are egw-checkout's options (for instance `--no-sandbox` and the sandbox's URLs).
    """

    def __init__(self, language, args=(), env=None):
        require_private_session()
        if not CHECKOUT_BIN:
            raise RuntimeError("EGW_CHECKOUT_BIN is not set (make test-a11y sets it)")
        environment = dict(os.environ)
        environment.update(locale_environment(language))
        environment.update(env or {})
        environment.pop("GTK_A11Y", None)  # GTK's own default: AT-SPI
        environment["GDK_BACKEND"] = "x11"
        self.language = language
        self.text = Text(language)
        # Its messages go to a file: a pipe nobody reads fills up and then blocks GTK's thread.
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen([CHECKOUT_BIN, *args], env=environment, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL, stderr=self.log, preexec_fn=_die_with_parent)
        try:
            self.app = wait_for("egw-checkout on the accessibility bus", self._find_app)
        except BaseException:
            self.stop()
            raise

    def _find_app(self):
        if self.process.poll() is not None:
            raise AssertionError(f"egw-checkout exited with {self.process.returncode}: {self.messages()[-2000:]}")
        desktop = pyatspi.Registry.getDesktop(0)
        for app in children(desktop):
            if app is not None and app.get_process_id() == self.process.pid and app.childCount > 0:
                return app
        return None

    def messages(self):
        """What egw-checkout wrote to stderr so far."""
        self.log.seek(0)
        return self.log.read().decode("utf-8", "replace")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        stop_process(self.process)
        self.log.close()

    def windows(self):
        return [w for w in children(self.app) if w is not None]

    def window(self, predicate, what):
        """The first top-level window (as an accessible) `predicate(node)` accepts."""
        def probe():
            for w in self.windows():
                if predicate(Node(w)):
                    return w
            return None
        return wait_for(what, probe)

    def window_names(self):
        return [Node(w).name for w in self.windows()]

    def shop(self):
        name = self.text["shop.name"]
        return self.window(lambda n: n.role == "frame" and n.name == name, f"the shop window {name!r}")

    def focus_shop(self):
        """X input focus on the shop window (what a window manager does when it appears)."""
        focus_x_window(self.process.pid, self.text["shop.name"])

    def focused(self):
        """The node with the focused state in any of the application's windows, or None."""
        for w in self.windows():
            for n in nodes(w):
                if "focused" in n.states and n.role not in ("frame", "dialog", "window", "application"):
                    return n
        return None


# MARK: - The keyboard (XTest)

def xdotool(*args, check=True):
    return subprocess.run(["xdotool", *args], check=check, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                          text=True, timeout=10).stdout


def x_tool(*command):
    """Another X tool of the private server (xprop), bounded like xdotool; fails on a non-zero exit."""
    return subprocess.run(list(command), check=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=10).stdout


def x_window(pid, title):
    """The id of the process's visible X window titled `title`, waited for."""
    def probe():
        out = xdotool("search", "--onlyvisible", "--pid", str(pid), "--name", f"^{re.escape(title)}$",
                      check=False).split()
        return out[-1] if out else None
    return wait_for(f"the X window {title!r}", probe)


def focus_x_window(pid, title):
    """Gives X input focus to the process's window titled `title` (no window manager runs under Xvfb;
    a desktop's would do this when the window appears). The only X-side step besides the pixel tests'
    window geometry: nothing else is read from X."""
    xdotool("windowfocus", "--sync", x_window(pid, title))


def key(*names):
    """Presses and releases each key (xdotool key names: Tab, shift+Tab, Return, Escape, Down...)."""
    for name in names:
        xdotool("key", "--clearmodifiers", name)


def type_text(text):
    xdotool("type", "--delay", "15", text)


# MARK: - The gateway (egw-sandbox over TLS, its own record of each payment)

class Gateway:
    """egw-sandbox --tls (egw-checkout's live mode needs https) and what it recorded; a context manager."""

    def __init__(self):
        if not SANDBOX_BIN:
            raise RuntimeError("EGW_SANDBOX_BIN is not set (make test-a11y sets it)")
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen([SANDBOX_BIN, "--port", "0", "--tls"], stdin=subprocess.DEVNULL,
                                        stdout=subprocess.PIPE, stderr=self.log, preexec_fn=_die_with_parent)
        self.urls = {}
        try:
            self._read_banner(deadline=time.monotonic() + WAIT)
        except BaseException:
            self.stop()
            raise
        self.ca_file = self.urls["certificateAuthorityFile"]
        self.context = ssl.create_default_context(cafile=self.ca_file)
        self.control_headers = {"X-Sandbox-Token": self.urls["controlToken"]}

    def _read_banner(self, deadline):
        """The `name=value` lines up to `serverPublicKeyPin`, each read with the time left."""
        pending = b""
        fd = self.process.stdout.fileno()
        while "serverPublicKeyPin" not in self.urls:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"egw-sandbox printed no URLs in {WAIT:g} s (got {sorted(self.urls)})")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 4096)
            if not chunk:
                self.log.seek(0)
                raise AssertionError(f"egw-sandbox exited early: {self.log.read().decode(errors='replace')[-2000:]}")
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                name, _, value = line.decode().strip().partition("=")
                self.urls[name] = value

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        stop_process(self.process)
        self.process.stdout.close()
        self.log.close()

    @property
    def checkout(self):
        return self.urls["checkoutBaseURL"]

    def checkout_args(self):
        """egw-checkout's options for paying here (live mode, only this sandbox's CA trusted)."""
        u = self.urls
        return ["--no-sandbox", "--api-base-url", u["apiBaseURL"], "--checkout-api-base-url", u["checkoutAPIBaseURL"],
                "--checkout-base-url", u["checkoutBaseURL"], "--merchant-base-url", u["merchantBaseURL"],
                "--ca-file", self.ca_file]

    def _get(self, path):
        request = urllib.request.Request(self.urls["merchantBaseURL"] + path, headers=self.control_headers)
        with urllib.request.urlopen(request, context=self.context, timeout=10) as response:
            return json.loads(response.read())

    def requests(self):
        """The sandbox's request log: one entry per request it answered (endpoint, path, status, ...)."""
        return self._get("/sandbox/log")["requests"]

    def paid_payment_ids(self):
        """The payments a card session was created for (from the sandbox's request log), in order."""
        ids = []
        for entry in self.requests():
            found = re.search(r"/payments/([^/]+)/card-sessions$", entry["path"])
            if entry["endpoint"] == "card-session-create" and found and found.group(1) not in ids:
                ids.append(found.group(1))
        return ids

    def created_payment_ids(self):
        """Every payment the merchant backend created (POST /sandbox/payments, answered 201), in order."""
        return [e for e in self.requests() if e["endpoint"] == "merchant-payments"]

    def record(self, payment_id):
        """The sandbox's own record of a payment (GET /sandbox/payments/ID)."""
        return self._get(f"/sandbox/payments/{payment_id}")


# MARK: - Focus and keys

def focused_where(app, predicate):
    """The focused node if `predicate` accepts it, else None (for wait_for)."""
    node = app.focused()
    return node if node is not None and predicate(node) else None


def press_and_wait_for_focus(app, key_name, before, what):
    """Presses `key_name` and waits until the focus is on a node other than `before`; returns it."""
    key(key_name)
    return wait_for(what, lambda: focused_where(
        app, lambda n: before is None or (n.name, n.role, n.extents) != (before.name, before.role, before.extents)))


def tab_to(app, predicate, what, limit=20):
    """Presses Tab until the focused node is what `predicate` accepts (at most `limit` times), each time
    waiting for the focus to arrive somewhere new."""
    seen = []
    for _ in range(limit):
        node = focused_where(app, predicate)
        if node is not None:
            return node
        before = app.focused()
        seen.append(before.line() if before else None)
        press_and_wait_for_focus(app, "Tab", before, f"focus to move on the way to {what}")
    raise AssertionError(f"Tab never reached {what} in {limit} presses (passed: {seen})")


def assert_targets_at_least_24_by_24(test, tree):
    """WCAG 2.2 2.5.8: every button, field and radio row a buyer clicks is at least 24 by 24 pixels
    (AT-SPI's extents of the widget, at the scale Xvfb runs)."""
    for node in tree:
        if "focusable" in node.states and node.extents and \
                node.role in ("push button", "text", "radio button", "check box"):
            _, _, width, height = node.extents
            test.assertGreaterEqual(min(width, height), 24, f"target smaller than 24x24 ({width}x{height}): {node.line()}")
