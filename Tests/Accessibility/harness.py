"""What a screen reader and a keyboard-only buyer see of egw-checkout, read over AT-SPI.

Run by `make test-a11y` (a prerequisite of `make test`) through run.sh, which starts a private session
bus (`dbus-run-session`; the AT-SPI bus and registry are activated on it) and a private X server
(`xvfb-run`): nothing of a desktop is used. Key presses are real X events (XTest, `xdotool key`); what
the tests know of the windows they learn only through AT-SPI (pyatspi), as Orca would.

The binaries come from the environment (set by the Makefile from the root build): EGW_CHECKOUT_BIN
(egw-checkout) and EGW_SANDBOX_BIN (egw-sandbox, the gateway whose own record each payment is read back
from). The buyer's words are BuyerText's tables (Packages/BuyerText/Sources/BuyerText/Resources), for
every language BuyerText.languages lists, so a new language is covered without touching these tests.
"""
import json
import os
import re
import subprocess
import sys
import time

import pyatspi

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Interop"))
import sandbox_process  # noqa: E402  (egw-sandbox's HTTP API, shared with the interop suites)

CHECKOUT_BIN = os.environ.get("EGW_CHECKOUT_BIN", "")
BUYER_TEXT = os.path.join(ROOT, "Packages", "BuyerText", "Sources", "BuyerText")
WAIT = 60  # seconds a window or a state may take to appear on a loaded 2-core machine (never asserted)


def require_private_session():
    """The harness never reads a desktop's bus: run.sh sets EGW_A11Y_PRIVATE_BUS inside dbus-run-session."""
    if os.environ.get("EGW_A11Y_PRIVATE_BUS") != os.environ.get("DBUS_SESSION_BUS_ADDRESS") or not os.environ.get(
            "DBUS_SESSION_BUS_ADDRESS"):
        raise RuntimeError("run the accessibility suites through Tests/Accessibility/run.sh (a private bus)")


# MARK: - BuyerText's tables

def languages():
    """BuyerText.languages, read from its source, English first."""
    with open(os.path.join(BUYER_TEXT, "BuyerText.swift"), encoding="utf-8") as f:
        source = f.read()
    found = re.search(r"static let languages\s*=\s*\[([^\]]*)\]", source)
    return re.findall(r'"([a-z]+)"', found.group(1))


def table(language):
    """`language`'s table with English beneath it, as BuyerText looks keys up."""
    def load(code):
        with open(os.path.join(BUYER_TEXT, "Resources", f"{code}.json"), encoding="utf-8") as f:
            return json.load(f)
    merged = dict(load("en"))
    merged.update(load(language))
    return merged


def locale_environment(language):
    """What a buyer of `language` runs with: LANGUAGE first, as gettext and BuyerText read it."""
    return {"LANGUAGE": language, "LANG": "C.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}


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
            stack.extend(reversed([a.getChildAtIndex(i) for i in range(a.childCount)]))
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
        try:
            node = Node(a)
            out.append(node)
            if node.role not in CONTROLS:
                stack.extend(reversed([a.getChildAtIndex(i) for i in range(a.childCount)]))
        except Exception:
            continue
    return out


def dump(accessible, depth=0, skip_labels_of_buttons=True):
    """The tree as indented lines (a button's own child label, which Orca does not read, left out)."""
    lines = []
    try:
        node = Node(accessible)
    except Exception:
        return lines
    lines.append("  " * depth + node.line())
    if skip_labels_of_buttons and node.role in ("push button", "toggle button", "radio button", "check box"):
        return lines
    for i in range(accessible.childCount):
        lines += dump(accessible.getChildAtIndex(i), depth + 1, skip_labels_of_buttons)
    return lines


def wait_for(what, probe, timeout=WAIT):
    """Polls `probe` until it gives something true; raises naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = probe()
        except Exception as error:  # the tree changes while being read
            last = error
            last = None
        if last:
            return last
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


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
        # Its messages go to a file: a pipe nobody reads fills up and then blocks GTK's thread.
        import tempfile
        self.log = tempfile.TemporaryFile()
        self.process = subprocess.Popen([CHECKOUT_BIN, *args], env=environment, stdout=subprocess.DEVNULL,
                                        stderr=self.log)
        self.app = wait_for("egw-checkout on the accessibility bus", self._find_app)

    def _find_app(self):
        desktop = pyatspi.Registry.getDesktop(0)
        for i in range(desktop.childCount):
            app = desktop.getChildAtIndex(i)
            if app is not None and app.get_process_id() == self.process.pid and app.childCount > 0:
                return app
        return None

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
        self.log.close()

    def windows(self):
        return [self.app.getChildAtIndex(i) for i in range(self.app.childCount)]

    def window(self, predicate, what):
        """The first top-level window (as an accessible) `predicate(node)` accepts."""
        def probe():
            for w in self.windows():
                if w is not None and predicate(Node(w)):
                    return w
            return None
        return wait_for(what, probe)

    def shop(self):
        return self.window(lambda n: n.role == "frame" and n.name == "EGW shop", "the shop window")

    def focused(self):
        """The node with the focused state in any of the application's windows, or None."""

        for w in self.windows():
            for n in nodes(w):
                if "focused" in n.states and n.role not in ("frame", "dialog", "window", "application"):
                    return n
        return None


def find(accessible, predicate, what):
    """The first node under `accessible` `predicate` accepts, waited for."""
    return wait_for(what, lambda: next((n for n in nodes(accessible) if predicate(n)), None))


# MARK: - The keyboard (XTest)

def xdotool(*args):
    subprocess.run(["xdotool", *args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def focus_x_window(pid, title):
    """Gives X input focus to the process's window titled `title` (no window manager runs under Xvfb;
    a desktop's would do this when the window appears). The only X-side step: nothing is read from X."""
    def probe():
        out = subprocess.run(["xdotool", "search", "--onlyvisible", "--pid", str(pid), "--name", f"^{re.escape(title)}$"],
                             capture_output=True, text=True).stdout.split()
        return out[-1] if out else None
    window = wait_for(f"the X window {title!r}", probe)
    xdotool("windowfocus", "--sync", window)


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
        import ssl
        if not sandbox_process.BIN:
            raise RuntimeError("EGW_SANDBOX_BIN is not set (make test-a11y sets it)")
        self.sandbox = sandbox_process.SandboxProcess("--tls", last="serverPublicKeyPin")
        self.ca_file = self.sandbox.urls["certificateAuthorityFile"]
        self.context = ssl.create_default_context(cafile=self.ca_file)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.sandbox.stop()

    def checkout_args(self):
        """egw-checkout's options for paying here (live mode, only this sandbox's CA trusted)."""
        s = self.sandbox
        return ["--no-sandbox", "--api-base-url", s.api, "--checkout-api-base-url", s.checkout_api,
                "--checkout-base-url", s.checkout, "--merchant-base-url", s.merchant, "--ca-file", self.ca_file]

    def _get(self, path):
        import urllib.request
        request = urllib.request.Request(self.sandbox.merchant + path, headers=self.sandbox.control_headers)
        with urllib.request.urlopen(request, context=self.context, timeout=30) as response:
            return json.loads(response.read())

    def paid_payment_ids(self):
        """The payments a card session was created for (from the sandbox's request log), in order."""
        ids = []
        for entry in self._get("/sandbox/log")["requests"]:
            found = re.search(r"/payments/([^/]+)/card-sessions$", entry["path"])
            if entry["endpoint"] == "card-session-create" and found and found.group(1) not in ids:
                ids.append(found.group(1))
        return ids

    def record(self, payment_id):
        """The sandbox's own record of a payment (GET /sandbox/payments/ID)."""
        return self._get(f"/sandbox/payments/{payment_id}")


def focused_where(app, predicate):
    """The focused node if `predicate` accepts it, else None (for wait_for)."""
    node = app.focused()
    return node if node is not None and predicate(node) else None


def tab_to(app, predicate, what, limit=20):
    """Presses Tab until the focused node is what `predicate` accepts (at most `limit` times), each time
    waiting for the focus to arrive somewhere new."""
    for _ in range(limit):
        node = focused_where(app, predicate)
        if node is not None:
            return node
        before = app.focused()
        key("Tab")
        wait_for(f"focus to move on the way to {what}", lambda: focused_where(
            app, lambda n: before is None or (n.name, n.role) != (before.name, before.role)))
    raise AssertionError(f"Tab never reached {what}")


def assert_targets_at_least_24_by_24(test, tree):
    """WCAG 2.2 2.5.8: every button and field a buyer clicks is at least 24 by 24 pixels (AT-SPI's extents
    of the widget, at the scale Xvfb runs). Not yet the sheet's radio rows: GTK 4.8 reports them 16 px
    high whatever their size request (PaymentUI README, conformance table)."""
    for node in tree:
        if "focusable" in node.states and node.extents and node.role in ("push button", "text"):
            _, _, width, height = node.extents
            test.assertGreaterEqual(min(width, height), 24, f"target smaller than 24x24 ({width}x{height}): {node.line()}")
