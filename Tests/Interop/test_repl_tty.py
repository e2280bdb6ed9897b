"""egw-repl on a real pseudo-terminal (tmux): completion, history, Ctrl-C.

tmux runs on a private socket per test; the REPL's history goes to a file in a
temporary directory, which is scanned for card data afterwards.
"""

import os
import tempfile
import unittest

from test_repl_support import REPL_BIN, SHARED_CACHE, Tmux, assert_no_card_data, needs_repl, needs_tmux, shquote

PROMPT = "egw> "


@needs_repl
@needs_tmux
class Terminal(unittest.TestCase):
    def setUp(self):
        self.home = tempfile.mkdtemp(prefix="egw-repl-tty-")
        self.history = os.path.join(self.home, "history")
        self.sessions = []

    def tearDown(self):
        for session in self.sessions:
            session.close()

    def start(self, *args, **env):
        command = " ".join(shquote(part) for part in [REPL_BIN, "--history", self.history, *args])
        environment = {"HOME": self.home, "TERM": "xterm-256color", "LANG": "C.UTF-8", "XDG_CACHE_HOME": SHARED_CACHE}
        environment.update(env)
        session = Tmux(command, env=environment)
        self.sessions.append(session)
        session.wait_for(PROMPT, what="the first prompt")
        return session

    def last_line(self, session):
        lines = [line for line in session.screen().splitlines() if line.strip()]
        return lines[-1] if lines else ""

    def test_banner_says_where_the_sandbox_is_and_how_to_start(self):
        repl = self.start()
        screen = repl.screen()
        self.assertRegex(screen, r"Embedded sandbox gateway on http://127\.0\.0\.1:\d+")
        self.assertIn("payment create", screen)
        self.assertIn("pay card", screen)

    def test_test_card_names_complete(self):
        repl = self.start()
        repl.type("card test mastercard-c")
        repl.send("Tab")
        repl.wait_for(lambda s: s.rstrip().endswith("egw> card test mastercard-challenge"), what="name completion")

    def test_tab_completes_commands_subcommands_flags_and_values(self):
        repl = self.start()
        repl.type("pay ho")
        repl.send("Tab")
        repl.wait_for(lambda s: s.rstrip().endswith("egw> pay hosted"), what="sub-command completion")
        repl.type("--me")
        repl.send("Tab")
        repl.wait_for(lambda s: s.rstrip().endswith("egw> pay hosted --method"), what="flag completion")
        repl.type("cl")
        repl.send("Tab")
        repl.wait_for(lambda s: s.rstrip().endswith("--method click-to-pay"), what="value completion")
        repl.send("C-u")
        repl.type("config set check")
        repl.send("Tab")
        repl.send("Tab")
        # Two candidates share "checkout-": the second Tab lists both.
        screen = repl.wait_for("checkout-api-base-url", what="the candidate list")
        self.assertIn("checkout-base-url", screen)
        self.assertIn("egw> config set checkout-", screen)

    def test_history_is_recalled_in_a_second_run_and_never_holds_card_data(self):
        repl = self.start()
        for number, line in enumerate(("config set timeout 17", "card cvc 123", "brand 4111 1111 1111 1111",
                                       "payment use pay_9 vk_secret_A1b2C3", "help card"), start=2):
            repl.type(line)
            repl.send("Enter")
            # Wait for the next prompt before typing on.
            repl.wait_for(lambda s, n=number: s.count(PROMPT) >= n, what=f"prompt {number}")
        repl.send("C-d")
        repl.wait_for("[exited 0]", what="exit on Ctrl-D")

        with open(self.history, encoding="utf-8", errors="replace") as handle:
            recorded = handle.read()
        self.assertIn("timeout", recorded)
        assert_no_card_data(self, recorded, extra_secrets=["vk_secret_A1b2C3", "cvc\\040123", "cvc 123"])
        self.assertEqual(os.stat(self.history).st_mode & 0o777, 0o600)

        again = self.start()
        again.send("Up")
        again.wait_for(lambda s: s.rstrip().endswith("egw> help card"), what="the last line recalled")
        again.send("Up")
        again.wait_for(lambda s: s.rstrip().endswith("egw> config set timeout 17"), what="the earlier line")
        again.send("Enter")
        again.wait_for("timeout = 17s", what="the recalled command's output")

    def test_card_number_and_security_code_entry_on_the_terminal(self):
        repl = self.start()
        repl.type("card number")
        repl.send("Enter")
        repl.wait_for("card number: ", what="the number prompt")
        repl.type("55555555")
        # Live grouping while typing, brand shown.
        repl.wait_for("card number: 5555 5555  Mastercard", what="live formatting")
        repl.type("55554444")
        repl.send("Enter")
        screen = repl.wait_for("Card number •••• 4444 (Mastercard)", what="the number accepted")
        # Once entered, the line is redrawn masked: the number is gone from the screen.
        self.assertIn("card number: •••• 4444", screen)
        assert_no_card_data(self, screen)

        repl.type("card cvc")
        repl.send("Enter")
        repl.wait_for("security code (3 digits): ", what="the code prompt")
        repl.type("98")
        screen = repl.wait_for("security code (3 digits): ••", what="masked echo")
        self.assertNotIn("98", screen.split("security code (3 digits):")[-1])
        repl.type("7")
        repl.send("Enter")
        screen = repl.wait_for("Security code set (3 digits, not shown)", what="the code accepted")
        # The shared scan, not a bare substring test: the banner's ephemeral port may hold the same digits.
        assert_no_card_data(self, screen, extra_secrets=["987"])
        repl.type("card show")
        repl.send("Enter")
        screen = repl.wait_for("ready to pay", what="card show")
        assert_no_card_data(self, screen, extra_secrets=["987"])
        repl.send("C-d")
        repl.wait_for("[exited 0]", what="exit")
        with open(self.history, encoding="utf-8", errors="replace") as handle:
            assert_no_card_data(self, handle.read(), extra_secrets=["987"])

    def test_ctrl_c_cancels_a_running_payment_and_the_shell_goes_on(self):
        repl = self.start()
        for number, line in enumerate(("sandbox fault hosted-page latency 20000", "payment create",
                                       "buyer hosted pay"), start=2):
            repl.type(line)
            repl.send("Enter")
            repl.wait_for(lambda s, n=number: s.count(PROMPT) >= n, what=f"prompt {number}")
        repl.type("pay hosted")
        repl.send("Enter")
        # The checkout page now takes 20 s to load: progress shows, then Ctrl-C.
        repl.wait_for("payment running", what="the progress line")
        repl.send("C-c")
        screen = repl.wait_for("● cancelled", what="the cancelled result")
        self.assertIn("Cancelling the payment (Ctrl-C)", screen)
        # The page was dismissed before the result (CONTRACT.md, the callback contract).
        self.assertLess(screen.index("page dismissed"), screen.index("● cancelled"))
        repl.wait_for(lambda s: s.rstrip().endswith(PROMPT.rstrip()), what="the prompt after the payment")
        repl.type("result")
        repl.send("Enter")
        repl.wait_for(lambda s: "outcome        cancelled" in s, what="result")

    def test_the_shell_asks_the_buyer_when_nothing_is_scripted(self):
        repl = self.start()
        repl.type("payment create")
        repl.send("Enter")
        repl.wait_for(lambda s: s.count(PROMPT) >= 2, what="prompt")
        repl.type("pay hosted")
        repl.send("Enter")
        repl.wait_for("buyer> ", what="the buyer question")
        repl.type("abandon")
        repl.send("Enter")
        screen = repl.wait_for("● cancelled", what="the result")
        self.assertIn("paymentStatus ABANDONED", screen)

    def test_a_challenged_card_payment_asks_for_the_code(self):
        repl = self.start()
        for number, line in enumerate(("payment create", "card test mastercard-challenge"), start=2):
            repl.type(line)
            repl.send("Enter")
            repl.wait_for(lambda s, n=number: s.count(PROMPT) >= n, what=f"prompt {number}")
        repl.type("pay card")
        repl.send("Enter")
        repl.wait_for("3-D Secure challenge page is open", what="the challenge question")
        repl.type("1234")
        repl.send("Enter")
        screen = repl.wait_for("● succeeded", what="the result")
        self.assertIn("sessionId cs_", screen)
        assert_no_card_data(self, screen)

    def test_ctrl_c_at_the_prompt_does_not_end_the_shell(self):
        repl = self.start()
        repl.send("C-c")
        # The Ctrl-C reaches the shell as a signal, handled on its own thread: keys typed before its
        # fresh prompt shows may be on the line it drops (a CI run typed "config set timeout " first).
        repl.wait_for("^C", what="the ^C on the empty line")
        repl.wait_for(lambda screen: screen.rstrip().endswith("egw>"), what="the prompt after Ctrl-C")
        repl.type("config set timeout 5")
        repl.send("Enter")
        repl.wait_for("timeout = 5s", what="the shell still running after Ctrl-C")
        repl.type("quit")
        repl.send("Enter")
        repl.wait_for("[exited 0]", what="quit")

    def test_ctrl_c_at_the_prompt_drops_the_line_and_twice_says_how_to_leave(self):
        # As bash and psql: the half-typed line is dropped (never run), a fresh prompt follows.
        repl = self.start()
        repl.type("config set timeout 7")
        repl.wait_for("egw> config set timeout 7", what="the typed line")
        repl.send("C-c")
        repl.wait_for("config set timeout 7^C", what="^C after the dropped line")
        repl.type("config set timeout 6")
        repl.send("Enter")
        repl.wait_for("timeout = 6s", what="the next line runs on its own")
        self.assertNotIn("timeout = 7s", repl.screen())
        self.assertNotIn("error", repl.screen())
        # Each Ctrl-C is sent once its prompt is on screen: one typed before the prompt
        # appears is not for that line (the shell drops it), which would make this racy.
        repl.wait_for(lambda screen: screen.rstrip().endswith("egw>"), what="the prompt after the command")
        repl.send("C-c")
        repl.wait_for(lambda screen: screen.count("^C") >= 2, what="the first ^C on the empty line")
        repl.wait_for(lambda screen: screen.rstrip().endswith("egw>"), what="the prompt after one Ctrl-C")
        repl.send("C-c")
        repl.wait_for("To leave, type quit or exit, or press Ctrl-D", what="the hint after two Ctrl-C")
        repl.type("quit")
        repl.send("Enter")
        repl.wait_for("[exited 0]", what="quit")

    def test_colour_on_a_terminal_but_not_with_no_color(self):
        # An error is red (SGR 31) on a terminal...
        repl = self.start()
        repl.type("nope")
        repl.send("Enter")
        repl.wait_for("unknown command", what="an error")
        self.assertRegex(repl.screen(escapes=True), r"\x1b\[(\d+;)*31m")
        # ...but never with NO_COLOR, TERM=dumb or --no-color.
        for args, env in (((), {"NO_COLOR": "1"}), ((), {"TERM": "dumb"}), (("--no-color",), {})):
            with self.subTest(args=args, env=env):
                plain = self.start(*args, **env)
                plain.type("nope")
                plain.send("Enter")
                plain.wait_for("unknown command", what="an error")
                self.assertNotRegex(plain.screen(escapes=True), r"\x1b\[(\d+;)*31m")


if __name__ == "__main__":
    unittest.main()
