#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The daemons' side of systemd's notify protocol, checked without PID 1.

This script plays the service manager: it binds the AF_UNIX datagram
socket systemd would pass in $NOTIFY_SOCKET, sets $WATCHDOG_USEC and
$WATCHDOG_PID as systemd does for a unit with WatchdogSec=, starts
dta-collector and dta-translator on a private configuration and port, and
reads what they send (sd_notify(3), sd_watchdog_enabled(3)):

  - READY=1 only once the collector's query socket answers and its shared
    memory exists, and once the translator's UDP port is bound; READY=1
    carries a STATUS= line. Checked twice: frozen (SIGSTOP) as soon as
    READY=1 arrives, the daemon must already have them, which catches an
    early READY=1 only when the daemon is slower than this script; and,
    when strace is installed, in the order of the daemon's own system
    calls (listen and the shared-memory open before the READY=1 sendmsg;
    the UDP bind before it), which catches it always;
  - WATCHDOG=1 keep-alives, again and again, while the daemon runs; none
    when $WATCHDOG_PID names another process (the variable is then not
    meant for it);
  - a STATUS= line that follows the translator's counters;
  - STOPPING=1 after SIGTERM, and a clean exit;
  - the translator holds its keep-alives back while a worker thread is
    stuck with datagrams waiting (the worker is stopped alone with
    ptrace), and sends them again once it goes on;
  - log lines with "<N>" priority prefixes when $JOURNAL_STREAM names the
    daemon's stderr, plain "dta-collector: ..." lines when it names
    something else; info <6>, a warning <4>, an error <3>.

Every wait has a generous deadline (a loaded 2-core machine) and ends as
soon as the awaited message arrives; no step depends on speed.

Usage: notify.py BUILD_DIR
"""
import ctypes
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

DEADLINE = 120.0  # seconds for anything awaited: only ever a failure's cost


class Manager:
    """The notify socket and the messages that came through it."""

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(path)
        self.msgs = []  # (sender pid or None, {key: value}) in arrival order

    def _recv(self, timeout):
        self.sock.settimeout(max(timeout, 0.001))
        try:
            data = self.sock.recv(4096)
        except socket.timeout:
            return None
        kv = {}
        for line in data.decode().split("\n"):
            if "=" in line:
                k, v = line.split("=", 1)
                kv[k] = v
        self.msgs.append(kv)
        return kv

    def wait_for(self, pred, what, proc=None):
        """Read messages until one satisfies pred; fail after DEADLINE."""
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end:
            if proc is not None and proc.poll() is not None:
                fail("%s: the daemon exited (status %s) first" %
                     (what, proc.returncode))
            m = self._recv(min(1.0, end - time.monotonic()))
            if m is not None and pred(m):
                return m
        fail("%s: not received within %.0f s; got %r" %
             (what, DEADLINE, self.msgs[-10:]))

    def drain(self):
        while self._recv(0.001) is not None:
            pass


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def start(argv, env_extra, watchdog_pid_self=True, stderr=None):
    """Start argv with the manager's variables; WATCHDOG_PID is the
    daemon's own PID (sh's $$ survives exec) unless told otherwise."""
    env = dict(os.environ)
    env.pop("JOURNAL_STREAM", None)
    env.pop("DTA_LOG_FORMAT", None)
    env.update(env_extra)
    if watchdog_pid_self:
        argv = ["sh", "-c", 'WATCHDOG_PID=$$; export WATCHDOG_PID; exec "$@"',
                "sh"] + argv
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                            stderr=stderr if stderr is not None
                            else subprocess.DEVNULL)


def stop(proc, mgr, what):
    """SIGTERM: STOPPING=1 must come, then a clean exit."""
    proc.send_signal(signal.SIGTERM)
    mgr.wait_for(lambda m: m.get("STOPPING") == "1", what + " STOPPING=1")
    try:
        rc = proc.wait(DEADLINE)
    except subprocess.TimeoutExpired:
        proc.kill()
        fail(what + ": did not exit after SIGTERM")
    if rc != 0:
        fail("%s: exit status %d after SIGTERM" % (what, rc))


def count_watchdogs(mgr, n, what, proc):
    for i in range(n):
        mgr.wait_for(lambda m: m.get("WATCHDOG") == "1",
                     "%s WATCHDOG=1 #%d" % (what, i + 1), proc)


def strace_order(argv, conf, work, shm, port, what):
    """Run argv under strace until READY=1 and SIGTERM; require READY=1's
    sendmsg after the calls that make the daemon serve."""
    trace = os.path.join(work, "strace.out")
    mgr = Manager(os.path.join(work, "notify-strace.sock"))
    env = {"NOTIFY_SOCKET": mgr.path,
           # LeakSanitizer cannot run under ptrace (sanitizer builds)
           "ASAN_OPTIONS": os.environ.get("ASAN_OPTIONS", "") +
           ":detect_leaks=0"}
    p = start(["strace", "-f", "-qq", "-o", trace, "-s", "256", "-e",
               "trace=listen,bind,openat,sendmsg"] + argv, env, False)
    try:
        mgr.wait_for(lambda m: m.get("READY") == "1", what + " READY=1", p)
        # The daemon is strace's child: SIGTERM it, not strace.
        with open("/proc/%d/task/%d/children" % (p.pid, p.pid)) as f:
            daemon = int(f.read().split()[0])
        os.kill(daemon, signal.SIGTERM)
        mgr.wait_for(lambda m: m.get("STOPPING") == "1",
                     what + " (strace) STOPPING=1")
        if p.wait(DEADLINE) != 0:
            fail("%s: exit status %d under strace" % (what, p.returncode))
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        mgr.sock.close()
        os.unlink(mgr.path)
    with open(trace) as f:
        lines = f.read().splitlines()
    os.unlink(trace)

    def first(pred, name):
        for i, x in enumerate(lines):
            if pred(x):
                return i
        fail("%s: no %s in its system calls" % (what, name))
    ready = first(lambda x: "sendmsg(" in x and "READY=1" in x, "READY=1")
    if shm:
        need = [("listen on its socket", lambda x: " listen(" in x and
                 "= 0" in x),
                ("open of " + shm, lambda x: "openat(" in x and
                 shm[len("/dev/shm"):] in x and "O_CREAT" in x and
                 "= -1" not in x)]
    else:
        need = [("bind of UDP port %d" % port, lambda x: " bind(" in x and
                 "AF_INET" in x and "htons(%d)" % port in x and
                 x.endswith("= 0"))]
    for name, pred in need:
        if first(pred, name) > ready:
            fail("%s: READY=1 was sent before the %s" % (what, name))
    print("%s: READY=1 after %s, in its system calls" %
          (what, " and ".join(n for n, _ in need)))


PTRACE_DETACH, PTRACE_SEIZE, PTRACE_INTERRUPT = 17, 0x4206, 0x4207
WALL = 0x40000000


def ptrace(req, tid):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p,
                            ctypes.c_void_p]
    libc.ptrace.restype = ctypes.c_long
    if libc.ptrace(req, tid, None, None) < 0:
        fail("ptrace(%#x, %d): %s" % (req, tid,
                                       os.strerror(ctypes.get_errno())))


def wait_line(pipe, text, what, buf):
    """Read the daemon's stderr until a line containing text arrives."""
    end = time.monotonic() + DEADLINE
    while time.monotonic() < end:
        for line in buf:
            if text in line:
                buf.remove(line)
                return line
        r, _, _ = select.select([pipe], [], [], 1.0)
        if r:
            chunk = os.read(pipe.fileno(), 65536)
            if not chunk:
                break
            buf.extend(chunk.decode().splitlines())
    fail("%s: no log line with %r within %.0f s; got %r" %
         (what, text, DEADLINE, buf[-10:]))


def stuck_worker(collector, translator, conf, port, mgr):
    """Stop the translator's one worker thread alone, with datagrams
    waiting for it: the keep-alives must be held back, then resume."""
    c = start([collector, "-c", conf], {}, False)
    if not c.stdout.readline().startswith(b"ready"):
        fail("collector did not start (stuck worker test)")
    env = {"NOTIFY_SOCKET": mgr.path, "WATCHDOG_USEC": "200000",
           "DTA_LOG_FORMAT": "plain"}
    t = start([translator, "-c", conf], env, stderr=subprocess.PIPE)
    buf = []
    try:
        mgr.wait_for(lambda m: m.get("READY") == "1",
                     "translator READY=1 (stuck worker)", t)
        count_watchdogs(mgr, 2, "translator", t)
        tids = [int(x) for x in os.listdir("/proc/%d/task" % t.pid)
                if int(x) != t.pid]
        if len(tids) != 1:
            fail("expected one worker thread, found %r" % tids)
        ptrace(PTRACE_SEIZE, tids[0])
        ptrace(PTRACE_INTERRUPT, tids[0])
        os.waitpid(tids[0], WALL)  # it is stopped now
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for _ in range(4):
            u.sendto(b"not a report", ("127.0.0.1", port))
        u.close()
        mgr.wait_for(lambda m: "worker 0 stuck" in m.get("STATUS", ""),
                     "translator STATUS= worker 0 stuck", t)
        wait_line(t.stderr, "holding back the watchdog keep-alive",
                  "stopped worker", buf)
        # From that STATUS= on, no WATCHDOG=1 until the worker goes on:
        # the daemon's messages arrive in the order it sent them.
        n = len(mgr.msgs)
        ptrace(PTRACE_DETACH, tids[0])
        mgr.wait_for(lambda m: "worker 0 going again" in
                     m.get("STATUS", ""), "translator STATUS= going again",
                     t)
        if any(m.get("WATCHDOG") == "1" for m in mgr.msgs[n:]):
            fail("WATCHDOG=1 while the worker was stopped: %r" %
                 mgr.msgs[n:])
        wait_line(t.stderr, "worker 0 is going again", "resumed worker",
                  buf)
        mgr.wait_for(lambda m: m.get("WATCHDOG") == "1",
                     "translator WATCHDOG=1 after the worker resumed", t)
        print("translator: keep-alives held back while its worker was "
              "stopped with datagrams waiting, sent again once it ran")
        stop(t, mgr, "translator (stuck worker)")
    finally:
        for p in (t, c):
            if p.poll() is None:
                p.kill()
                p.wait()


def collector_answers(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(DEADLINE)
    try:
        s.connect(path)
    except OSError as e:
        fail("collector socket %s: %s" % (path, e))
    s.sendall(b"stats\n")
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = s.recv(4096)
        if not chunk:
            break
        buf += chunk
    s.close()
    return buf.startswith(b"{\"name\"")


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    build = sys.argv[1]
    collector = os.path.join(build, "collector", "dta-collector")
    translator = os.path.join(build, "translator", "dta-translator")
    work = tempfile.mkdtemp(prefix="dta-notify.")
    name = "notify-%d" % os.getpid()
    # A port free now (the e2e tests' ports follow their PIDs instead).
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    conf = os.path.join(work, "dta.conf")
    qsock = os.path.join(work, "collector.sock")
    with open(conf, "w") as f:
        f.write("[collector]\nname = %s\nsocket = %s\n"
                "[translator]\nport = %d\nbind = 127.0.0.1\n"
                "[structure paths]\nprimitive = key-write\nslots = 4K\n"
                "data = 20\n" % (name, qsock, port))
    shm = "/dev/shm/dta-%s.paths" % name
    procs = []
    try:
        mgr = Manager(os.path.join(work, "notify.sock"))
        env = {"NOTIFY_SOCKET": mgr.path, "WATCHDOG_USEC": "200000"}

        # -- collector: READY=1 only when it serves
        c = start([collector, "-c", conf], env)
        procs.append(c)
        ready = mgr.wait_for(lambda m: m.get("READY") == "1",
                             "collector READY=1", c)
        # Freeze it at once: what must exist when READY=1 was sent must
        # exist now, without the collector's help from here on.
        os.kill(c.pid, signal.SIGSTOP)
        if not os.path.exists(shm):
            fail("collector READY=1 before its shared memory %s" % shm)
        if not os.path.exists(qsock):
            fail("collector READY=1 before its socket %s" % qsock)
        os.kill(c.pid, signal.SIGCONT)
        if not collector_answers(qsock):
            fail("collector READY=1 but its socket does not answer stats")
        if "serving 1 structures" not in ready.get("STATUS", ""):
            fail("collector READY=1 without a useful STATUS=: %r" % ready)
        count_watchdogs(mgr, 3, "collector", c)
        print("collector: READY=1 with STATUS=%r after its socket and "
              "shared memory existed; WATCHDOG=1 x3" % ready["STATUS"])

        # -- translator: READY=1 when its port is bound
        t = start([translator, "-c", conf], env)
        procs.append(t)
        ready = mgr.wait_for(lambda m: m.get("READY") == "1",
                             "translator READY=1", t)
        os.kill(t.pid, signal.SIGSTOP)
        probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            probe.bind(("127.0.0.1", port))
            fail("translator READY=1 before UDP port %d was bound" % port)
        except OSError:
            pass  # taken: by the translator
        finally:
            probe.close()
        os.kill(t.pid, signal.SIGCONT)
        if "shared memory" not in ready.get("STATUS", ""):
            fail("translator READY=1 without a useful STATUS=: %r" % ready)
        count_watchdogs(mgr, 3, "translator", t)
        # The STATUS= line follows the counters: one datagram that is no
        # DTA report shows up as 1 packet, 1 malformed.
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.sendto(b"not a report", ("127.0.0.1", port))
        u.close()
        st = mgr.wait_for(lambda m: "1 packets" in m.get("STATUS", ""),
                          "translator STATUS= with the datagram", t)
        if "1 malformed" not in st["STATUS"]:
            fail("translator STATUS= miscounts: %r" % st["STATUS"])
        print("translator: READY=1 after its port was bound; WATCHDOG=1 "
              "x3; STATUS=%r" % st["STATUS"])
        stop(t, mgr, "translator")
        procs.remove(t)
        stop(c, mgr, "collector")
        procs.remove(c)
        print("both: STOPPING=1 on SIGTERM, exit status 0")

        # -- a stuck worker thread holds the translator's keep-alives back
        stuck_worker(collector, translator, conf, port, mgr)

        # -- $WATCHDOG_PID of another process: no keep-alives at all, with
        # a 2 us interval that would otherwise send one per loop turn.
        mgr.drain()
        mgr.msgs = []
        env2 = {"NOTIFY_SOCKET": mgr.path, "WATCHDOG_USEC": "2",
                "WATCHDOG_PID": str(os.getpid())}
        c = start([collector, "-c", conf], env2, watchdog_pid_self=False)
        procs.append(c)
        mgr.wait_for(lambda m: m.get("READY") == "1",
                     "collector READY=1 (other WATCHDOG_PID)", c)
        for _ in range(5):  # five requests: five turns of its loop
            if not collector_answers(qsock):
                fail("collector does not answer stats")
        stop(c, mgr, "collector (other WATCHDOG_PID)")
        procs.remove(c)
        mgr.drain()
        if any(m.get("WATCHDOG") == "1" for m in mgr.msgs):
            fail("collector sent WATCHDOG=1 although WATCHDOG_PID named "
                 "another process")
        print("collector: no WATCHDOG=1 when WATCHDOG_PID is not its own")

        # -- the order of READY=1 among the daemons' system calls
        if shutil.which("strace"):
            c = start([collector, "-c", conf], {}, False)
            procs.append(c)
            if not c.stdout.readline().startswith(b"ready"):
                fail("collector did not start (strace test)")
            strace_order([translator, "-c", conf], conf, work, None, port,
                         "translator")
            c.send_signal(signal.SIGTERM)
            c.wait(DEADLINE)
            procs.remove(c)
            strace_order([collector, "-c", conf], conf, work, shm, port,
                         "collector")
        else:
            print("strace is not installed: READY=1 order checked by "
                  "SIGSTOP only")

        # -- log prefixes: only when JOURNAL_STREAM is stderr
        for journal in (True, False):
            r, w = os.pipe()
            st = os.fstat(w)
            ino = st.st_ino if journal else st.st_ino + 1
            env3 = {"JOURNAL_STREAM": "%d:%d" % (st.st_dev, ino)}
            c = start([collector, "-c", conf], env3, False, stderr=w)
            os.close(w)
            procs.append(c)
            line = c.stdout.readline()
            if not line.startswith(b"ready"):
                fail("collector did not start (JOURNAL_STREAM test)")
            c.send_signal(signal.SIGTERM)
            c.wait(DEADLINE)
            procs.remove(c)
            with os.fdopen(r, "rb") as f:
                log = f.read().decode().splitlines()
            want = "<6>serving 1 structures" if journal else \
                   "dta-collector: serving 1 structures"
            if not any(x.startswith(want) for x in log):
                fail("JOURNAL_STREAM %s stderr: no line starting %r in %r" %
                     ("naming" if journal else "not naming", want, log))
            if journal and any(not x[:1] == "<" for x in log):
                fail("a journal line without a priority prefix: %r" % log)
        print("log: <N> prefixes when JOURNAL_STREAM is stderr, plain "
              "lines when it is not")

        # -- each level its priority: a warning (a socket in a directory
        # anyone can write) is <4>, an error (no configuration) is <3>
        open_dir = os.path.join(work, "open")
        os.mkdir(open_dir)
        os.chmod(open_dir, 0o1777)
        conf2 = os.path.join(work, "open.conf")
        with open(conf) as f, open(conf2, "w") as g:
            g.write(f.read().replace(qsock, os.path.join(open_dir, "c.sock")))
        env4 = {"DTA_LOG_FORMAT": "journal"}
        c = start([collector, "-c", conf2], env4, False,
                  stderr=subprocess.PIPE)
        procs.append(c)
        if not c.stdout.readline().startswith(b"ready"):
            fail("collector did not start (warning test)")
        c.send_signal(signal.SIGTERM)
        err = c.communicate(timeout=DEADLINE)[1].decode().splitlines()
        procs.remove(c)
        if not any(x.startswith("<4>anyone can write") for x in err):
            fail("no <4> warning for a world-writable socket directory: %r"
                 % err)
        c = start([collector, "-c", os.path.join(work, "missing.conf")],
                  env4, False, stderr=subprocess.PIPE)
        procs.append(c)
        err = c.communicate(timeout=DEADLINE)[1].decode().splitlines()
        procs.remove(c)
        if c.returncode != 1 or not err or not err[0].startswith("<3>"):
            fail("a missing configuration is not a <3> error: %r" % err)
        print("log: a warning is <4>, an error <3> (DTA_LOG_FORMAT=journal)")
        print("PASS")
        return 0
    finally:
        for p in procs:
            try:
                os.kill(p.pid, signal.SIGCONT)
                p.kill()
                p.wait(30)
            except (OSError, subprocess.TimeoutExpired):
                pass
        shutil.rmtree(work, ignore_errors=True)
        if os.path.exists(shm):
            os.unlink(shm)


if __name__ == "__main__":
    sys.exit(main())
