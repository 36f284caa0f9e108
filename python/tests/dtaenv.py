# SPDX-License-Identifier: BSD-3-Clause
"""A private DTA system for the tests and bench/bench_python.py: a
dta-collector and a dta-translator on loopback with their sockets and
snapshots in a temporary directory, fed by dta-gen with ground truth, as
tests/e2e/lib.sh does for the shell tests.

The programs are found in $DTA_BUILD_DIR (collector/, translator/, gen/,
query/ below it) or on PATH. Loss-free by construction: dta-gen sends
with --sync against the translator's stats file, and stop() checks the
translator's accounting (sent = received, nothing lost).
"""
import glob
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time


def program(name):
    """The path of program dta-NAME: $DTA_BUILD_DIR's, else PATH's."""
    build = os.environ.get("DTA_BUILD_DIR")
    if build:
        sub = {"collector": "collector", "translator": "translator",
               "gen": "gen", "query": "query"}[name]
        p = os.path.join(build, sub, "dta-" + name)
        if os.access(p, os.X_OK):
            return p
    p = shutil.which("dta-" + name)
    if not p:
        raise RuntimeError("dta-%s not found (set DTA_BUILD_DIR or PATH)"
                           % name)
    return p


def child_env():
    """The environment for the programs: without the sanitizer runtimes
    run.sh preloads into the interpreter (DTA_PY_PRELOAD), which the
    programs of a sanitizer build link themselves."""
    env = dict(os.environ)
    if env.get("DTA_PY_PRELOAD"):
        env.pop("LD_PRELOAD", None)
        env.pop("ASAN_OPTIONS", None)
    return env


def read_truth(path):
    """dta-gen's truth file as a list of (kind, fields...) tuples."""
    out = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            out.append(tuple(line.split()))
    return out


_next_port = [32000 + (os.getpid() % 3000) * 2]


def free_ports(n):
    """The first of @n consecutive UDP ports on 127.0.0.1 that nothing
    holds now, from a range (32000-39999) the shell tests (42000-62001,
    tests/e2e/lib.sh) never use; each call of one process starts past the
    last one's, so two systems of one test run never share a port. (The
    translator binds with SO_REUSEPORT: a second one on the same port would
    take half the datagrams instead of failing.)"""
    import socket
    port = _next_port[0]
    while True:
        if port + n > 40000:
            port = 32000
        socks = []
        try:
            for i in range(n):
                s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                socks.append(s)
                s.bind(("127.0.0.1", port + i))
        except OSError:
            port += n
            continue
        finally:
            for s in socks:
                s.close()
        _next_port[0] = port + n
        return port


def tcp_port():
    """A TCP port on 127.0.0.1 that nothing holds now (for the collector's
    query_listen and api_listen)."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DtaSystem:
    """One collector (and translator while sending) with structures
    STRUCTURES (the [structure ...] sections' text)."""

    def __init__(self, structures, name="py", east=False, collector_extra=""):
        self.dir = tempfile.mkdtemp(prefix="dta-py-%s." % name)
        self.conf = os.path.join(self.dir, "dta.conf")
        self.sock = os.path.join(self.dir, "collector.sock")
        self.snapdir = os.path.join(self.dir, "snapshots")
        self.stats = os.path.join(self.dir, "translator.json")
        self.port = free_ports(2)
        self.name = "py-%s-%d" % (name, os.getpid())
        self.collector = None
        self.translator = None
        self.sent = 0
        # east: a second collector, [collector east] (structures name
        # "collector = default, east" to be partitioned over both); each
        # collector's snapshots go to SNAPDIR/ITS_NAME/, where the client's
        # snapshot: target looks for them.
        self.east = east
        self.names = [self.name] + (["%s-east" % self.name] if east else [])
        self.socks = [self.sock] + ([os.path.join(self.dir, "east.sock")]
                                    if east else [])
        self.extra = []
        head = "[collector]\nname = %s\nsocket = %s\nsnapshot_dir = %s\n" % (
            self.name, self.sock,
            os.path.join(self.snapdir, self.name) if east else self.snapdir)
        # collector_extra: more [collector] lines (e.g. query_listen)
        head += collector_extra
        if east:
            head += ("[collector east]\nname = %s\nsocket = %s\n"
                     "snapshot_dir = %s\n" % (
                         self.names[1], self.socks[1],
                         os.path.join(self.snapdir, self.names[1])))
        for n in self.names if east else []:
            os.makedirs(os.path.join(self.snapdir, n))
        with open(self.conf, "w") as f:
            f.write("%s\n[translator]\nport = %d\nbind = 127.0.0.1\n\n%s"
                    % (head, self.port, structures))

    def _start(self, args, log, ready_in):
        with open(os.path.join(self.dir, log), "w") as logf:
            p = subprocess.Popen(args, stdout=logf if ready_in == log else
                                 subprocess.DEVNULL, stderr=logf,
                                 env=child_env())
        path = os.path.join(self.dir, ready_in)
        end = time.monotonic() + 60
        while True:
            try:
                with open(path) as f:
                    if any(line.startswith("ready") for line in f):
                        return p
            except FileNotFoundError:
                pass
            if p.poll() is not None or time.monotonic() > end:
                p.kill()
                p.wait()
                with open(os.path.join(self.dir, log)) as f:
                    raise RuntimeError("%s did not start:\n%s"
                                       % (args[0], f.read()))
            time.sleep(0.05)

    def start(self):
        self.collector = self._start(
            [program("collector"), "-c", self.conf], "collector.log",
            "collector.log")
        if self.east:
            self.extra.append(self._start(
                [program("collector"), "-c", self.conf, "--collector",
                 "east"], "east.log", "east.log"))
        out = os.path.join(self.dir, "translator.out")
        tlog = os.path.join(self.dir, "translator.log")
        with open(out, "w") as o, open(tlog, "w") as e:
            self.translator = subprocess.Popen(
                [program("translator"), "-c", self.conf, "-o", self.stats,
                 "-q"], stdout=o, stderr=e, env=child_env())
        end = time.monotonic() + 60
        while not os.path.exists(self.stats):
            if self.translator.poll() is not None or time.monotonic() > end:
                with open(tlog) as f:
                    raise RuntimeError("dta-translator did not start: "
                                       + f.read())
            time.sleep(0.05)
        return self

    def gen(self, *args):
        """dta-gen ARGS to the translator (--sync); returns its truth file
        when ARGS has -T."""
        r = subprocess.run([program("gen"), "-d", "127.0.0.1:%d" % self.port,
                            "--sync", self.stats] + list(args),
                           capture_output=True, text=True, env=child_env())
        if r.returncode != 0:
            raise RuntimeError("dta-gen %s failed: %s" % (args, r.stderr))
        for line in r.stderr.splitlines():
            if line.startswith("dta-gen: ") and " reports in" in line:
                self.sent += int(line.split()[1])

    def stop_translator(self):
        """SIGTERM the translator (its last Append batches are written
        then) and check its accounting: every report sent arrived."""
        t, self.translator = self.translator, None
        t.send_signal(signal.SIGTERM)
        t.wait(60)
        if t.returncode != 0:
            raise RuntimeError("dta-translator exited %d" % t.returncode)
        with open(os.path.join(self.dir, "translator.out")) as f:
            text = f.read()
        st = json.loads(text[text.index("{"):])
        got = st["reports_in"] - st.get("seq_duplicates", 0) - \
            st.get("seq_suspect", 0)
        if got != self.sent or st.get("seq_lost", 0) or \
                st.get("socket_drops", 0):
            raise RuntimeError("translator accounting: sent %d, got %d, "
                               "stats %s" % (self.sent, got, text))

    def query(self, *args, check=True):
        """dta-query -c CONF ARGS; its stdout."""
        r = subprocess.run([program("query"), "-c", self.conf] + list(args),
                           capture_output=True, text=True, env=child_env())
        if check and r.returncode not in (0, 1):
            raise RuntimeError("dta-query %s: %d %s" % (args, r.returncode,
                                                        r.stderr))
        return r.stdout

    def snapshot(self):
        """Make the collectors write snapshots (dta-query snapshot)."""
        for extra in [[]] + ([["--collector", "east"]] if self.east else []):
            out = self.query(*extra, "snapshot")
            if not json.loads(out.strip().splitlines()[-1]).get("ok"):
                raise RuntimeError("snapshot failed: %s" % out)

    def stop(self):
        for p in [self.translator, self.collector] + self.extra:
            if p and p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(30)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self.translator = self.collector = None
        self.extra = []
        shutil.rmtree(self.dir, ignore_errors=True)
        # A collector keeps its regions when a snapshot fails: leave none
        # of this system's behind (as tests/e2e/lib.sh does).
        for n in self.names:
            for f in glob.glob("/dev/shm/dta-%s.*" % n):
                try:
                    os.unlink(f)
                except OSError:
                    pass
