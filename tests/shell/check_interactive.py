#!/usr/bin/env python3
"""Drives the `minigraf` shell in a pseudo-terminal (docs/shell.md): the
prompt and the continuation prompt, history recall (also across sessions,
through the history file), completion, and Ctrl-C at an idle prompt, while
typing a command and while a long answer streams.

    check_interactive.py <minigraf-binary>

Only generous timeouts (no timing assertions). History and completion need
the libedit build; without it (see `minigraf --version`) those checks are
skipped. Prints one line per check and "N passed, N failed".
"""

import os
import pty
import re
import select
import signal
import subprocess
import sys
import tempfile
import time

SHELL = sys.argv[1]
TIMEOUT = 15.0
results = {"passed": 0, "failed": 0, "skipped": 0}
LIBEDIT = (
    "line editing: libedit"
    in subprocess.run([SHELL, "--version"], stdout=subprocess.PIPE).stdout.decode()
)


class Session:
    """One shell on a pseudo-terminal; `expect` waits for a regex."""

    def __init__(self, history, args=()):
        env = dict(
            os.environ, TERM="xterm", MINIGRAF_HISTORY=history, HOME=os.path.dirname(history)
        )
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execve(SHELL, [SHELL] + list(args), env)
        self.seen = ""
        self.mark = 0

    def read_some(self, wait):
        ready, _, _ = select.select([self.fd], [], [], wait)
        if not ready:
            return False
        try:
            data = os.read(self.fd, 1 << 20)
        except OSError:
            return None
        if not data:
            return None
        self.seen += data.decode("utf-8", "replace")
        if len(self.seen) > (4 << 20) and self.mark > (1 << 20):  # keep memory bounded
            cut = self.mark - 1024
            self.seen, self.mark = self.seen[cut:], self.mark - cut
        return True

    def expect(self, pattern, timeout=TIMEOUT):
        """Waits until `pattern` appears after the last match; True if it did.
        Only new text (and a short overlap) is searched each time, so a long
        answer streaming in costs little."""
        end = time.time() + timeout
        regex = re.compile(pattern)
        start = self.mark
        while True:
            found = regex.search(self.seen, start)
            if found:
                self.mark = found.end()
                return True
            start = max(self.mark, len(self.seen) - 256)
            left = end - time.time()
            if left <= 0 or self.read_some(min(left, 0.2)) is None:
                found = regex.search(self.seen, start)
                if found:
                    self.mark = found.end()
                return bool(found)

    def send(self, text):
        os.write(self.fd, text.encode("utf-8"))

    def wait_exit(self, timeout=TIMEOUT):
        end = time.time() + timeout
        while time.time() < end:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            self.read_some(0.1)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        return None

    def close(self):
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
        os.close(self.fd)


def check(name, ok, session=None, needs_libedit=False):
    if needs_libedit and not LIBEDIT:
        results["skipped"] += 1
        print("skip %s (built without libedit)" % name)
        return
    results["passed" if ok else "failed"] += 1
    print("%s %s" % ("ok  " if ok else "FAIL", name))
    if not ok and session is not None:
        print("    terminal at the end:\n    " + repr(session.seen[-1500:]))


PROMPT = r"minigraf> "
CONT = r"   \.\.\.> "

with tempfile.TemporaryDirectory() as tmp:
    history = os.path.join(tmp, "history")

    s = Session(history)
    check("banner_and_prompt", s.expect(r"Enter \.help") and s.expect(PROMPT), s)
    s.send('(transact [[:alice :person/name "Alice"]\r')
    check("continuation_prompt_while_incomplete", s.expect(CONT), s)
    s.send(' [:bob :person/name "Bob"]])\r')
    check(
        "command_runs_when_balanced", s.expect(r"Transacted successfully") and s.expect(PROMPT), s
    )
    s.send("(query [:find ?n :where [?e :person/name ?n] :order-by [?n]])\r")
    check(
        "table_mode_is_the_terminal_default",
        s.expect(r"\| \?n +\|")
        and s.expect(r'\| "Alice" \|')
        and s.expect(r"\(2 rows\)")
        and s.expect(PROMPT),
        s,
    )

    # History: Up recalls the last command.
    s.send("\x1b[A\r")
    check(
        "up_arrow_recalls_the_last_command",
        s.expect(r"\(2 rows\)") and s.expect(PROMPT),
        s,
        needs_libedit=True,
    )

    # Completion: dot-commands and attributes.
    s.send(".headers off\r.hea\ton\r.show\r")
    check(
        "completes_dot_commands",
        s.expect(r"headers: on") and s.expect(PROMPT),
        s,
        needs_libedit=True,
    )
    s.send('(query [:find ?n :where [?e :person/na\t ?n] [(= ?n "Bob")]])\r')
    check(
        "completes_known_attributes",
        s.expect(r'\| "Bob" \|') and s.expect(PROMPT),
        s,
        needs_libedit=True,
    )

    # Ctrl-C while typing a command discards it; the prompt is fresh.
    s.send("(query [:find ?n\r")
    s.expect(CONT)
    time.sleep(1.0)  # as a user would: the line editor is reading again
    s.send("\x03")
    check("ctrl_c_discards_the_command_being_typed", s.expect(PROMPT), s)
    s.send(".changes\r")
    check("after_ctrl_c_commands_run", s.expect(r"transactions: 1") and s.expect(PROMPT), s)

    # Ctrl-C while a long answer streams: it stops (minigraf_interrupt, or
    # at the next batch) and the prompt comes back.
    s.send("(transact [" + " ".join("[:e%d :n %d]" % (i, i) for i in range(60)) + "])\r")
    s.expect(r"Transacted successfully")
    s.expect(PROMPT)
    s.send(".mode csv\r")
    s.expect(PROMPT)
    s.send(
        "(query [:find ?a ?b ?c ?d :where [?w :n ?a] [?x :n ?b] [?y :n ?c] [?z :n ?d]])\r"
    )  # 60^4 rows
    streaming = s.expect(r"\n\d+,\d+,\d+,\d+\r*\n", timeout=TIMEOUT)
    time.sleep(1.0)  # well into the answer, as a user would be
    s.send("\x03")
    check(
        "ctrl_c_stops_a_streaming_answer",
        streaming and s.expect(r"Error: (\[API-013\] )?interrupted") and s.expect(PROMPT),
        s,
    )
    # Ctrl-C while a query computes its whole answer before the first row
    # (an aggregate over 60^6 solutions, hours of work): minigraf_interrupt
    # stops it.
    s.send(
        "(query [:find (count ?a) :where [?u :n ?a] [?v :n ?b] [?w :n ?c] [?x :n ?d] [?y :n ?f]"
        " [?z :n ?g]])\r"
    )
    time.sleep(1.0)  # the query is running (on a loaded machine it may start late)
    s.send("\x03")
    check(
        "ctrl_c_interrupts_a_query_computing_its_answer",
        s.expect(r"Error: \[API-013\] interrupted") and s.expect(PROMPT),
        s,
    )
    s.send(".mode table\r")
    s.send(".changes\r")
    check(
        "shell_lives_on_after_the_interrupt", s.expect(r"transactions: 2") and s.expect(PROMPT), s
    )

    # Ctrl-C at an idle prompt says how to leave; a second one leaves.
    time.sleep(1.0)  # the line editor is reading again (before that, ^C discards the line)
    s.send("\x03")
    check("ctrl_c_at_idle_prompt_explains", s.expect(r"Ctrl-C again") and s.expect(PROMPT), s)
    s.send("\x03")
    code = s.wait_exit()
    check("second_ctrl_c_at_empty_prompt_exits", code == 0, s)
    s.close()

    # The history file keeps the commands for the next session.
    saved = open(history).read() if os.path.exists(history) else ""
    check(
        "history_file_is_written",
        ".changes" in saved and ".mode\\040csv" in saved,  # libedit's encoding
        needs_libedit=True,
    )
    s = Session(history)
    s.expect(PROMPT)
    s.send("\x1b[A\x1b[A\x1b[A")
    check(
        "history_recalled_in_a_new_session",
        s.expect(r"\.changes|\.mode table"),
        s,
        needs_libedit=True,
    )
    s.send("\x15.quit\r")  # Ctrl-U clears the recalled line
    check("quit_exits_zero", s.wait_exit() == 0, s)
    s.close()

    # End of input (Ctrl-D) at the prompt leaves too.
    s = Session(history)
    s.expect(PROMPT)
    time.sleep(1.0)  # a ^D typed before the line editor reads is the terminal's own EOF
    s.send("\x04")
    check("ctrl_d_exits", s.wait_exit() == 0, s)
    s.close()

print(
    "%d passed, %d failed, %d skipped" % (results["passed"], results["failed"], results["skipped"])
)
sys.exit(1 if results["failed"] else 0)
