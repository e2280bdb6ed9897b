"""Issue 29 (5): the SDK talks only to the hosts the app configured.

Every flow (card frictionless and challenged, hosted, wallet; the headless browser and WebKit; the
REPL binaries; egw-checkout) runs under `strace -f`, which records from the kernel's side every
connect(), sendto()/sendmsg() destination, bound port and exec of the process and all its children
(WebKit's network and web processes included: ptrace follows them into bubblewrap, where an
LD_PRELOAD library would not be visible). Nothing here asks the SDK what it did.

A flow fails on:
- a connection or datagram to anything but a loopback port the traced processes listen on
  themselves (the embedded sandbox: every configured base URL and every page it sends the buyer to);
- a DNS query (any datagram to port 53: the query's name is decoded from the bytes) or a
  connection to a resolver daemon's socket: every host here is a loopback address, so any name
  lookup is a host nobody configured (telemetry, a font, a DNS prefetch);
- an HTTP request in the absolute form a proxy is sent, or for a favicon or a font file;
- any connection reaching the "proxy" the environment names: http_proxy, https_proxy, HTTPS_PROXY,
  HTTP_PROXY, all_proxy and ALL_PROXY all point at a listening recorder (no no_proxy), which no
  flow may reach, because no configuration here opts in (Configuration.proxy is `.direct`).

Environment: EGW_REPL_BIN (with egw-repl-webkit beside it), EGW_ENDTOEND_XCTEST (Tests/EndToEnd's
EndToEndPackageTests.xctest), EGW_CHECKOUT_XCTEST (Apps/egw-checkout's egw-checkoutPackageTests.xctest);
each flow is skipped when its binary is not given. Needs strace and xvfb-run.
"""

import os
import re
import shutil
import socket
import subprocess
import tempfile
import threading
import unittest

from test_repl_support import REPL_BIN, assert_no_card_data, clean_env

ENDTOEND_XCTEST = os.environ.get("EGW_ENDTOEND_XCTEST", "")
CHECKOUT_XCTEST = os.environ.get("EGW_CHECKOUT_XCTEST", "")
HAVE_TOOLS = bool(shutil.which("strace") and shutil.which("xvfb-run"))
needs_tools = unittest.skipUnless(HAVE_TOOLS, "strace or xvfb-run is missing: make deps installs them")

# The suites' own harnesses, one process each (so WebKit's processes start once per run).
ENDTOEND_FLOWS = ",".join([
    "PaymentFlowEndToEndTests.CardEndToEndTests/testFrictionlessAndNoThreeDSecurePaymentsPresentNothing",
    "PaymentFlowEndToEndTests.CardEndToEndTests/testEachTestCard",
    "PaymentFlowEndToEndTests.HostedEndToEndTests/testOneSDKRequestPerHostedPayment",
    "WebKitEndToEndTests.WebKitCardTests/testFrictionlessOpensNoWindow",
    "WebKitEndToEndTests.WebKitCardTests/testChallengeAnsweredRightPays",
    "WebKitEndToEndTests.WebKitHostedTests/testHostedPay",
    "WebKitEndToEndTests.WebKitQuietPageTests/testAPageWithAnIconAndForeignLinksFetchesOnlyWhatItAsksFor",
    "WalletEndToEndTests.WalletEndToEndTests/testFrictionlessWithShippingAndACoupon",
    "WalletEndToEndTests.WalletEndToEndTests/testChallengeWithTheRightCode",
])
CHECKOUT_FLOWS = ",".join(
    f"CheckoutAppTests.CheckoutAppTests/{name}"
    for name in ["testAFrictionlessCard", "testAChallengedCard", "testTheWalletSheet", "testHostedCheckout"])
REPL_SCRIPT = ["payment create", "card test visa-frictionless", "pay card",
               "payment create", "card test mastercard-challenge", "card name Ann Example", "buyer challenge 1234",
               "pay card", "payment create", "buyer hosted pay", "pay hosted"]

SYSCALLS = "execve,bind,getsockname,connect,sendto,sendmsg,sendmmsg"
RESOLVER_SOCKETS = ["/var/run/nscd/socket", "/run/nscd/socket", "/run/systemd/resolve/io.systemd.Resolve"]
LINE = re.compile(r"^(\d+) +(?:<\.\.\. (\w+) resumed>|(\w+)\()(.*)$")
INET = re.compile(r'sa_family=AF_INET, sin_port=htons\((\d+)\), sin_addr=inet_addr\("([0-9.]+)"\)')
INET6 = re.compile(r'sa_family=AF_INET6, sin6_port=htons\((\d+)\),.*?inet_pton\(AF_INET6, "([0-9a-fA-F:.]+)"')
UNIX = re.compile(r'sa_family=AF_UNIX, sun_path=(@?)"((?:[^"\\]|\\.)*)"')
STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')
REQUEST = re.compile(rb"^(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|CONNECT) (\S+) HTTP/1\.[01]\r\n")
FONT_OR_ICON = re.compile(r"(favicon\.ico|\.woff2?|\.ttf|\.otf|\.eot)(\?|$)", re.IGNORECASE)
LOOPBACK = {"127.0.0.1", "::1", "::ffff:127.0.0.1"}
UNFINISHED = "<unfinished ...>"


def unescape(text):
    """The bytes of a string as strace prints it with -x (\\xNN, \\n, \\r, \\t, \\", \\\\)."""
    out, i = bytearray(), 0
    simple = {"n": 10, "r": 13, "t": 9, "v": 11, "f": 12, '"': 34, "\\": 92}
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text):
            n = text[i + 1]
            if n == "x":
                out.append(int(text[i + 2:i + 4], 16))
                i += 4
                continue
            if n in simple:
                out.append(simple[n])
                i += 2
                continue
            if n.isdigit():
                digits = re.match(r"[0-7]{1,3}", text[i + 1:]).group(0)
                out.append(int(digits, 8))
                i += 1 + len(digits)
                continue
        out += c.encode("utf-8")
        i += 1
    return bytes(out)


def dns_name(query):
    """The first question's name of a DNS query, or None."""
    if len(query) < 13:
        return None
    labels, i = [], 12
    while i < len(query) and query[i] != 0:
        size = query[i]
        if size & 0xC0 or i + 1 + size > len(query):
            return None
        labels.append(query[i + 1:i + 1 + size].decode("ascii", "replace"))
        i += 1 + size
    return ".".join(labels) or None


class Trace:
    """What one strace log shows: the ports the traced processes listen on, every destination they
    sent to, every HTTP request line on the wire, every program they ran."""

    def __init__(self, text):
        self.listening, self.destinations, self.requests, self.lookups = set(), [], [], []
        self.programs = {}  # pid -> program
        self.resolver_connects = []
        resolver_fds, bound_fds = set(), set()
        unfinished = {}  # pid -> (call, its arguments up to "<unfinished ...>")
        for raw in text.splitlines():
            match = LINE.match(raw)
            if not match:
                continue
            pid, call, rest = int(match.group(1)), match.group(2) or match.group(3), match.group(4)
            if rest.endswith(UNFINISHED):
                # Another thread's call came between: strace prints the call's head now and its tail,
                # with what the kernel wrote back (getsockname's port), on a "resumed" line later.
                unfinished[pid] = (call, rest[:-len(UNFINISHED)])
                continue
            if match.group(2):
                head = unfinished.pop(pid, None)
                if head is None or head[0] != call:
                    continue
                rest = head[1] + rest
            if call == "execve":
                program = STRING.search(rest)
                if program:
                    self.programs.setdefault(pid, []).append(unescape(program.group(1)).decode("utf-8", "replace"))
                continue
            address = INET.search(rest) or INET6.search(rest)
            fd = re.match(r"(\d+),", rest)
            fd = (pid, int(fd.group(1))) if fd else None
            if call in ("bind", "getsockname"):
                # A server's port: bound by number, or bound to 0 and then read back on that socket
                # (a client's getsockname shows its own ephemeral port, which serves nothing).
                if call == "bind":
                    bound_fds.add(fd)
                if address and int(address.group(1)) != 0 and fd in bound_fds:
                    self.listening.add((address.group(2), int(address.group(1))))
                continue
            if call == "connect":
                unix = UNIX.search(rest)
                if unix and unescape(unix.group(2)).decode("utf-8", "replace") in RESOLVER_SOCKETS:
                    self.resolver_connects.append((pid, unescape(unix.group(2)).decode()))
            if address:
                host, port = address.group(2), int(address.group(1))
                self.destinations.append((pid, call, host, port))
            if call in ("sendto", "sendmsg", "sendmmsg"):
                for payload in STRING.findall(rest):
                    data = unescape(payload)
                    request = REQUEST.match(data)
                    if request:
                        self.requests.append((pid, request.group(1).decode(), request.group(2).decode()))
                    elif (address and int(address.group(1)) == 53) or fd in resolver_fds:
                        self.lookups.append((pid, dns_name(data) or "(a query the recorder cannot read)"))
            if call == "connect" and address and int(address.group(1)) == 53:
                resolver_fds.add(fd)  # glibc connects its UDP socket, then sends without an address

    def pids_running(self, name):
        return {pid for pid, programs in self.programs.items() if any(name in p for p in programs)}

    def problems(self, forbidden_ports=()):
        found = []
        for pid, call, host, port in self.destinations:
            if port == 53:
                found.append(f"pid {pid} {call} to the name server {host}:53")
                continue
            if host not in LOOPBACK:
                found.append(f"pid {pid} {call} to {host}:{port}: not a loopback host")
            elif port in forbidden_ports:
                found.append(f"pid {pid} {call} to {host}:{port}: the environment's proxy")
            elif not any(p == port for _, p in self.listening):
                found.append(f"pid {pid} {call} to {host}:{port}: no traced process listens there")
        for pid, name in self.lookups:
            found.append(f"pid {pid} looked up a host name: {name}")
        for pid, path in self.resolver_connects:
            if os.path.exists(path):
                found.append(f"pid {pid} connected to the resolver at {path}")
        for pid, method, target in self.requests:
            if not target.startswith("/") and target != "*":
                found.append(f"pid {pid} sent a proxy-form request: {method} {target[:80]}")
            elif FONT_OR_ICON.search(target.split("#")[0]):
                found.append(f"pid {pid} fetched {target[:80]}")
        return found


class ProxyRecorder:
    """A listening socket the environment names as every proxy; records each connection's first bytes."""

    def __init__(self):
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(64)
        self.port = self.server.getsockname()[1]
        self.seen = []
        self.thread = threading.Thread(target=self.accept, daemon=True)
        self.thread.start()

    def accept(self):
        while True:
            try:
                connection, _ = self.server.accept()
            except OSError:
                return
            connection.settimeout(2)
            try:
                first = connection.recv(200)
            except OSError:
                first = b""
            self.seen.append(first.split(b"\r\n")[0].decode("latin-1"))
            connection.close()

    def close(self):
        self.server.close()

    def environment(self):
        url = f"http://127.0.0.1:{self.port}"
        names = ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
        return {name: url for name in names}


def traced(command, env, stdin="", timeout=240, display=True):
    """Runs `command` under strace -f (inside xvfb-run, so the X server is not traced); returns
    (CompletedProcess, Trace)."""
    with tempfile.TemporaryDirectory(prefix="egw-trace-") as folder:
        log = os.path.join(folder, "trace")
        strace = ["strace", "-f", "--seccomp-bpf", "-qq", "-x", "-s", "256", "-e", "signal=none",
                  "-e", f"trace={SYSCALLS}", "-o", log]
        prefix = ["xvfb-run", "-a"] if display else []
        result = subprocess.run(prefix + strace + command, input=stdin, capture_output=True, text=True,
                                timeout=timeout, env=env)
        with open(log, encoding="utf-8", errors="replace") as file:
            return result, Trace(file.read())


class TraceReading(unittest.TestCase):
    """Lines as strace -f prints them when threads interleave (copied from a real trace of a threaded
    Python program binding port 0 and reading it back)."""

    def test_a_port_read_back_across_an_interleaved_call_is_a_listening_port(self):
        trace = Trace("\n".join([
            '6321  bind(5, {sa_family=AF_INET, sin_port=htons(0), sin_addr=inet_addr("127.0.0.1")}, 16) = 0',
            '6321  getsockname(5,  <unfinished ...>',
            '6322  bind(6, {sa_family=AF_INET, sin_port=htons(0), sin_addr=inet_addr("127.0.0.1")}, 16 <unfinished ...>',
            '6321  <... getsockname resumed>{sa_family=AF_INET, sin_port=htons(40657), '
            'sin_addr=inet_addr("127.0.0.1")}, [16]) = 0',
            '6322  <... bind resumed>)               = 0',
            '6323  connect(7, {sa_family=AF_INET, sin_port=htons(40657), sin_addr=inet_addr("127.0.0.1")}, 16) = 0',
        ]))
        self.assertIn(("127.0.0.1", 40657), trace.listening)
        self.assertEqual(trace.problems(), [])

    def test_a_connection_to_a_port_nobody_bound_is_still_a_problem(self):
        trace = Trace("\n".join([
            '6321  getsockname(5,  <unfinished ...>',
            '6321  <... getsockname resumed>{sa_family=AF_INET, sin_port=htons(40657), '
            'sin_addr=inet_addr("127.0.0.1")}, [16]) = 0',
            '6323  connect(7, {sa_family=AF_INET, sin_port=htons(40657), sin_addr=inet_addr("127.0.0.1")}, 16) = 0',
        ]))
        self.assertEqual(trace.problems(), ["pid 6323 connect to 127.0.0.1:40657: no traced process listens there"],
                         "a client's own getsockname (no bind on that socket) serves nothing")


@needs_tools
class RecorderSelfTest(unittest.TestCase):
    """The recorder sees what it must catch: a name lookup, a connection to the environment's proxy,
    a proxy-form request and a favicon, from a child of the traced process."""

    def test_the_recorder_catches_lookups_and_the_environments_proxy_in_a_child(self):
        proxy = ProxyRecorder()
        self.addCleanup(proxy.close)
        child = ("import socket, urllib.request\n"
                 "try: socket.getaddrinfo('telemetry.egw-recorder-probe.invalid', 443)\n"
                 "except OSError: pass\n"
                 "for path in ('/favicon.ico', '/page'):\n"
                 "    try: urllib.request.urlopen('http://127.0.0.1:9' + path, timeout=5)\n"
                 "    except Exception: pass\n")
        script = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {child!r}])"
        env = clean_env(**proxy.environment())
        _, trace = traced(["python3", "-c", script], env, display=False)
        problems = trace.problems(forbidden_ports={proxy.port})
        self.assertTrue(any("telemetry.egw-recorder-probe.invalid" in p for p in problems), problems)
        self.assertTrue(any(f":{proxy.port}: the environment's proxy" in p for p in problems), problems)
        self.assertTrue(any("proxy-form request: GET http://127.0.0.1:9/page" in p for p in problems), problems)
        self.assertEqual(len(trace.pids_running("python3")), 2, "the child was followed")
        self.assertEqual(len(proxy.seen), 2, proxy.seen)


@needs_tools
class OnlyConfiguredHosts(unittest.TestCase):
    def setUp(self):
        self.proxy = ProxyRecorder()
        self.addCleanup(self.proxy.close)
        self.env = clean_env(**self.proxy.environment())

    def check(self, result, trace, what, webkit=True):
        problems = trace.problems(forbidden_ports={self.proxy.port})
        self.assertEqual(problems, [], what)
        self.assertEqual(self.proxy.seen, [], f"{what}: the environment's proxy was reached")
        self.assertEqual(result.returncode, 0, f"{what}: {result.stdout[-3000:]}\n{result.stderr[-3000:]}")
        self.assertTrue(trace.destinations, f"{what}: the trace holds no connection at all")
        if webkit:
            # WebKit's network process loads the pages: the recorder must have seen it connect.
            network = trace.pids_running("WebKitNetworkProcess")
            self.assertTrue(network, f"{what}: WebKit's network process was not traced")
            self.assertTrue(any(pid in network for pid, *_ in trace.destinations),
                            f"{what}: no connection from WebKit's network process was recorded")
        return problems

    @unittest.skipUnless(ENDTOEND_XCTEST and os.access(ENDTOEND_XCTEST, os.X_OK), "EGW_ENDTOEND_XCTEST is not set")
    def test_the_end_to_end_flows(self):
        result, trace = traced([ENDTOEND_XCTEST, ENDTOEND_FLOWS], self.env)
        self.check(result, trace, "Tests/EndToEnd")
        self.assertIn("Executed 9 tests, with 0 failures", result.stdout + result.stderr)

    @unittest.skipUnless(CHECKOUT_XCTEST and os.access(CHECKOUT_XCTEST, os.X_OK), "EGW_CHECKOUT_XCTEST is not set")
    def test_egw_checkout(self):
        result, trace = traced([CHECKOUT_XCTEST, CHECKOUT_FLOWS], self.env)
        self.check(result, trace, "egw-checkout")
        self.assertIn("Executed 4 tests, with 0 failures", result.stdout + result.stderr)
        # The shop program itself, from start to its first frame (the bundle's sibling in the build folder).
        shop = os.path.join(os.path.dirname(CHECKOUT_XCTEST), "egw-checkout")
        if os.access(shop, os.X_OK):
            result, trace = traced([shop, "--exit-when-shown"], self.env)
            self.assertEqual(trace.problems(forbidden_ports={self.proxy.port}), [], "egw-checkout --exit-when-shown")
            self.assertEqual(self.proxy.seen, [])
            self.assertEqual(result.returncode, 0, result.stderr[-2000:])
            self.assertTrue(trace.pids_running("egw-checkout"), "the shop was traced")

    @unittest.skipUnless(REPL_BIN and os.access(REPL_BIN, os.X_OK), "EGW_REPL_BIN is not set")
    def test_the_repl_with_the_headless_browser_and_with_webkit(self):
        for browser in ("headless", "webkit"):
            with self.subTest(browser=browser):
                result, trace = traced([REPL_BIN, "--json", "--browser", browser], self.env,
                                       stdin="\n".join(REPL_SCRIPT) + "\n")
                assert_no_card_data(self, result.stdout + result.stderr)
                self.check(result, trace, f"egw-repl --browser {browser}", webkit=browser == "webkit")
                outcomes = [line for line in result.stdout.splitlines() if line.startswith('{"outcome"')]
                self.assertEqual([o.split(",")[0] for o in outcomes], ['{"outcome":"succeeded"'] * 3, result.stdout)


if __name__ == "__main__":
    unittest.main()
