#!/usr/bin/python3
"""NetPath benchmarks (issue 6). Run through Benchmarks/run, which builds the binaries.

Every figure is taken in one run, beside a reference tool measured at the same time
(`ip monitor`, `ip -j addr show`, GLib's GNetworkMonitor), and reported as a ratio.
Needs root (network namespaces). Creates namespaces named npb-<run>-*, deletes them on exit.
"""
import argparse
import ctypes
import json
import os
import platform
import select
import signal
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_ID = os.environ.get("NPB_RUN", str(os.getpid()))
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNET = 0x40000000
CLK_TCK = os.sysconf("SC_CLK_TCK")


def mono():
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC)


def log(*parts):
    print("[bench]", *parts, file=sys.stderr, flush=True)


def sh(*argv, check=True, stdin=None):
    result = subprocess.run(argv, input=stdin, capture_output=True, text=True)
    if check and result.returncode != 0:
        raise RuntimeError("%s: %s" % (" ".join(argv), result.stderr.strip()))
    return result.stdout


# ---------------------------------------------------------------- namespaces

NAMESPACES = []
PROCS = []


def make_ns(tag):
    name = "npb-%s-%s" % (RUN_ID, tag)
    sh("ip", "netns", "add", name)
    NAMESPACES.append(name)
    sh("ip", "-n", name, "link", "set", "lo", "up")
    # No IPv6: its link-local and DAD events would land in the idle window.
    sh("ip", "netns", "exec", name, "sysctl", "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1",
       "net.ipv6.conf.default.disable_ipv6=1")
    return name


def cleanup():
    for proc in PROCS:
        if proc.popen.poll() is None:
            try:
                proc.popen.send_signal(signal.SIGCONT)
                proc.popen.kill()
                proc.popen.wait(timeout=5)
            except Exception:
                pass
    for name in reversed(NAMESPACES):
        subprocess.run(["ip", "netns", "delete", name], capture_output=True)
    NAMESPACES.clear()


def batch(ns, lines):
    with tempfile.NamedTemporaryFile("w", suffix=".batch", delete=False) as f:
        f.write("\n".join(lines) + "\n")
        path = f.name
    try:
        sh("ip", "-n", ns, "-batch", path)
    finally:
        os.unlink(path)


def uplink_ns(tag):
    """A namespace NS with veth0 (carrier: its peer is up in NS-peer), 192.0.2.2/24, no default route."""
    ns = make_ns(tag)
    peer = make_ns(tag + "p")
    sh("ip", "-n", ns, "link", "add", "veth0", "type", "veth", "peer", "name", "veth1", "netns", peer)
    sh("ip", "-n", peer, "link", "set", "veth1", "up")
    sh("ip", "-n", peer, "addr", "add", "192.0.2.1/24", "dev", "veth1")
    sh("ip", "-n", ns, "addr", "add", "192.0.2.2/24", "dev", "veth0")
    sh("ip", "-n", ns, "link", "set", "veth0", "up")
    for _ in range(200):  # wait for carrier
        if "LOWER_UP" in sh("ip", "-n", ns, "link", "show", "veth0") and "state UP" in sh("ip", "-n", ns, "link", "show", "veth0"):
            break
        time.sleep(0.01)
    return ns


def ifindex(ns, dev):
    out = sh("ip", "-n", ns, "-o", "link", "show", dev)
    return int(out.split(":", 1)[0])


# ---------------------------------------------------------------- raw rtnetlink sender


class RawNetlink:
    """A NETLINK_ROUTE socket made inside a namespace; each change is one sendto()."""

    def __init__(self, ns):
        own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
        target = os.open("/var/run/netns/" + ns, os.O_RDONLY)
        try:
            if libc.setns(target, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns " + ns)
            try:
                self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
                self.sock.bind((0, 0))
            finally:
                libc.setns(own, CLONE_NEWNET)
        finally:
            os.close(own)
            os.close(target)
        self.sock.setblocking(False)
        self.seq = 1

    @staticmethod
    def _attr(kind, payload):
        length = 4 + len(payload)
        return struct.pack("HH", length, kind) + payload + b"\0" * ((4 - length % 4) % 4)

    def route(self, add, oif, dst="0.0.0.0", plen=0, gateway=None):
        """RTM_NEWROUTE / RTM_DELROUTE, main table, IPv4. Returns CLOCK_MONOTONIC just before sendto."""
        scope = 0 if gateway else 253  # universe / link
        body = struct.pack("BBBBBBBBI", socket.AF_INET, plen, 0, 0, 254, 4, scope, 1, 0)
        if plen:
            body += self._attr(1, socket.inet_aton(dst))  # RTA_DST
        if gateway:
            body += self._attr(5, socket.inet_aton(gateway))  # RTA_GATEWAY
        body += self._attr(4, struct.pack("I", oif))  # RTA_OIF
        kind = 24 if add else 25
        flags = 0x1 | (0x400 | 0x200 if add else 0)  # REQUEST (| CREATE | EXCL); no ACK
        self.seq += 1
        message = struct.pack("IHHII", 16 + len(body), kind, flags, self.seq, 0) + body
        t = mono()
        self.sock.send(message)
        return t

    def errors(self):
        """Kernel NLMSG_ERRORs for earlier requests (only failures are reported without ACK)."""
        found = []
        while True:
            try:
                data = self.sock.recv(65536)
            except BlockingIOError:
                return found
            offset = 0
            while offset + 16 <= len(data):
                length, kind = struct.unpack_from("IH", data, offset)
                if kind == 2:
                    found.append(-struct.unpack_from("i", data, offset + 16)[0])
                offset += max(16, (length + 3) & ~3)


# ---------------------------------------------------------------- processes and their lines


class Proc:
    """A child whose stdout lines are timestamped (CLOCK_MONOTONIC) as the driver receives them."""

    def __init__(self, argv, name, stdin=False):
        self.name = name
        self.popen = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      stdin=subprocess.PIPE if stdin else subprocess.DEVNULL)
        PROCS.append(self)
        self.fd = self.popen.stdout.fileno()
        os.set_blocking(self.fd, False)
        self.partial = b""
        self.lines = []  # (t, text)
        self.eof = False

    @property
    def pid(self):
        return self.popen.pid

    def stop(self):
        if self.popen.poll() is None:
            self.popen.send_signal(signal.SIGCONT)
            self.popen.terminate()
            try:
                self.popen.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()


class Stoppable:
    """A child that writes elsewhere than to the driver; stopped at exit like a Proc."""

    def __init__(self, popen):
        self.popen = popen

    stop = Proc.stop


def pump(procs, until=lambda: False, timeout=5.0):
    """Reads every proc's output until `until()` holds or `timeout` seconds pass. Returns until()."""
    deadline = time.monotonic() + timeout
    while not until():
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        live = [p for p in procs if not p.eof]
        if not live:
            return until()
        ready, _, _ = select.select([p.fd for p in live], [], [], remaining)
        t = mono()
        for p in live:
            if p.fd in ready:
                try:
                    data = os.read(p.fd, 1 << 20)
                except BlockingIOError:
                    continue
                if not data:
                    p.eof = True
                    continue
                chunks = (p.partial + data).split(b"\n")
                p.partial = chunks.pop()
                for chunk in chunks:
                    p.lines.append((t, chunk.decode(errors="replace")))
    return True


def lines_after(proc, index, predicate=lambda text: True):
    return [(t, text) for t, text in proc.lines[index:] if predicate(text)]


def status_of(text):
    try:
        return json.loads(text)["status"]
    except (ValueError, KeyError):
        return None


# ---------------------------------------------------------------- /proc readings


def tasks(pid):
    return os.listdir("/proc/%d/task" % pid)


def context_switches(pid):
    """{tid: (name, voluntary+involuntary context switches)} of every thread."""
    found = {}
    for tid in tasks(pid):
        try:
            total, name = 0, "?"
            with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
                for line in f:
                    if line.startswith("Name:"):
                        name = line.split(None, 1)[1].strip()
                    if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                        total += int(line.split()[1])
            found[tid] = (name, total)
        except FileNotFoundError:
            pass
    return found


def wakeups(before, after):
    """Context switches between two snapshots; a thread that ended counts 1 (it woke to exit),
    a thread that began counts all of its own. Returns (count, notes)."""
    count, notes = 0, []
    for tid, (name, n) in after.items():
        delta = n - before[tid][1] if tid in before else n
        count += delta
        if delta:
            notes.append("%s%s +%d" % (name, "" if tid in before else " (new thread)", delta))
    for tid, (name, n) in before.items():
        if tid not in after:
            count += 1
            notes.append("%s exited" % name)
    return count, notes


def cpu_ms(pid, thread=None):
    """CPU time in ms of all threads of `pid`, or of those named `thread`; precise
    (se.sum_exec_runtime from /proc/PID/task/*/sched)."""
    total = 0.0
    for tid in tasks(pid):
        try:
            if thread is not None:
                with open("/proc/%d/task/%s/comm" % (pid, tid)) as f:
                    if f.read().strip() != thread:
                        continue
            with open("/proc/%d/task/%s/sched" % (pid, tid)) as f:
                for line in f:
                    if line.startswith("se.sum_exec_runtime"):
                        total += float(line.split(":")[1])
        except FileNotFoundError:
            pass
    return total


def ticks_ms(pid):
    """utime+stime of the process from /proc/PID/stat, in ms (resolution 1/CLK_TCK s)."""
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000.0 / CLK_TCK


def vm(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])  # kB
    return None


def netlink_drops(ns, pid):
    """Drops of the process's netlink sockets, from /proc/net/netlink inside `ns`."""
    inodes = set()
    for fd in os.listdir("/proc/%d/fd" % pid):
        try:
            target = os.readlink("/proc/%d/fd/%s" % (pid, fd))
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    drops = 0
    for line in sh("ip", "netns", "exec", ns, "cat", "/proc/net/netlink").splitlines()[1:]:
        fields = line.split()
        if len(fields) >= 10 and fields[1] == "0" and fields[9] in inodes:
            drops += int(fields[8])
    return drops


def pct(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100.0 * (len(ordered) - 1))))]


def us(ns_value):
    return ns_value / 1000.0


# ---------------------------------------------------------------- benchmarks

RESULTS = {}


def watch(netpath, ns, extra=()):
    proc = Proc([netpath, "watch", "--json", "--netns", ns, *extra], "netpath")
    if not pump([proc], lambda: len(proc.lines) >= 1, 10):
        raise RuntimeError("netpath watch printed nothing: " + proc.popen.stderr.read().decode()
                           if proc.popen.poll() is not None else "netpath watch printed nothing")
    return proc


def ip_monitor(ns):
    # The same 4 MB receive buffer as netpath, so that neither overruns when the other does not.
    return Proc(["ip", "-n", ns, "-rcvbuf", "4194304", "-o", "monitor", "link", "address", "route"], "ip monitor")


def bench_latency(netpath, samples, glib):
    ns = uplink_ns("lat")
    oif = ifindex(ns, "veth0")
    nl = RawNetlink(ns)
    np_proc = watch(netpath, ns)
    ip_proc = ip_monitor(ns)
    procs = [np_proc, ip_proc]
    gl_proc = None
    # Warm up until ip monitor is listening: a change both must report.
    for _ in range(50):
        i_ip = len(ip_proc.lines)
        nl.route(True, oif, gateway="192.0.2.1")
        ok = pump(procs, lambda: len(ip_proc.lines) > i_ip, 0.2)
        nl.route(False, oif, gateway="192.0.2.1")
        pump(procs, lambda: False, 0.1)
        if ok:
            break
    pump(procs, lambda: False, 0.3)
    lat = {"netpath": [], "ip": [], "glib": []}
    glib_right = glib_missed = 0
    present = False
    # The kernel delivers a multicast event to the most recently bound socket first, and on
    # 2 CPUs whoever is woken first usually runs first. So half the samples are taken with
    # netpath bound before ip monitor and half after (netpath restarted), and each half's
    # median is kept: the order favours one tool by about one wake-up either way.
    halves = {"netpath first": {"netpath": [], "ip": []}, "netpath second": {"netpath": [], "ip": []}}
    half = "netpath first"
    for n in range(samples):
        if n == samples // 2:
            np_proc.stop()
            np_proc = watch(netpath, ns)
            procs[0] = np_proc
            pump(procs, lambda: len(np_proc.lines) > 0, 5.0)
            pump(procs, lambda: False, 0.3)
            half = "netpath second"
        present = not present
        expected = "satisfied" if present else "unsatisfied"
        i_np, i_ip = len(np_proc.lines), len(ip_proc.lines)
        i_gl = len(gl_proc.lines) if gl_proc else 0
        t0 = nl.route(present, oif, gateway="192.0.2.1")

        def done():
            return (lines_after(np_proc, i_np, lambda s: status_of(s) == expected)
                    and len(ip_proc.lines) > i_ip
                    and (gl_proc is None or len(gl_proc.lines) > i_gl))

        pump(procs, done, 1.0)
        hit = lines_after(np_proc, i_np, lambda s: status_of(s) == expected)
        if hit:
            lat["netpath"].append(hit[0][0] - t0)
            halves[half]["netpath"].append(hit[0][0] - t0)
        if len(ip_proc.lines) > i_ip:
            lat["ip"].append(ip_proc.lines[i_ip][0] - t0)
            halves[half]["ip"].append(ip_proc.lines[i_ip][0] - t0)
        if gl_proc:
            pump(procs, lambda: False, 0.03)  # let GLib send any follow-up signal for this step
            got = gl_proc.lines[i_gl:]
            if got:
                lat["glib"].append(got[0][0] - t0)
                if got[-1][1].strip() == ("1" if present else "0"):
                    glib_right += 1
            else:
                glib_missed += 1
        else:
            pump(procs, lambda: False, 0.01)
        errors = nl.errors()
        if errors:
            raise RuntimeError("netlink change %d failed: errno %s" % (n, errors))
    extra_np = len(np_proc.lines) - 1 - len(halves["netpath second"]["netpath"])
    RESULTS["latency"] = {
        "samples": samples,
        "netpath_n": len(lat["netpath"]), "ip_n": len(lat["ip"]),
        "netpath_median_us": us(statistics.median(lat["netpath"])), "netpath_p99_us": us(pct(lat["netpath"], 99)),
        "ip_median_us": us(statistics.median(lat["ip"])), "ip_p99_us": us(pct(lat["ip"], 99)),
        "netpath_extra_lines": extra_np,
        "halves": {name: {tool: us(statistics.median(values)) for tool, values in half_lat.items() if values}
                   for name, half_lat in halves.items()},
    }
    log("latency: netpath %.0f us, ip %.0f us" % (RESULTS["latency"]["netpath_median_us"], RESULTS["latency"]["ip_median_us"]))

    # Idle: the same processes, 10 s without a change, from 1 s after the last one.
    pump(procs, lambda: False, 1.0)
    before = {p.name: context_switches(p.pid) for p in procs}
    time.sleep(RESULTS_IDLE_SECONDS)
    after = {p.name: context_switches(p.pid) for p in procs}
    idle = {}
    for p in procs:
        idle[p.name], idle[p.name + " notes"] = wakeups(before[p.name], after[p.name])
    idle["seconds"] = RESULTS_IDLE_SECONDS
    RESULTS["idle"] = idle
    log("idle:", idle)
    for p in procs:
        p.stop()
    if glib:
        bench_glib(ns, oif, nl, max(20, samples // 2))


def bench_glib(ns, oif, nl, samples):
    """GLib's GNetworkMonitor beside ip monitor, on the same route toggles (a pass of its own)."""
    ip_proc = ip_monitor(ns)
    gl_proc = Proc(["ip", "netns", "exec", ns, "/usr/bin/python3", os.path.join(HERE, "glib_peer.py")], "glib")
    procs = [ip_proc, gl_proc]
    pump([gl_proc], lambda: len(gl_proc.lines) >= 1, 10)
    settle(procs, 0.5)
    lat = {"ip": [], "glib": []}
    right = missed = 0
    present = False
    for n in range(samples):
        present = not present
        i_ip, i_gl = len(ip_proc.lines), len(gl_proc.lines)
        t0 = nl.route(present, oif, gateway="192.0.2.1")
        pump(procs, lambda: len(ip_proc.lines) > i_ip and len(gl_proc.lines) > i_gl, 1.0)
        settle(procs, 0.03)  # any follow-up signal for this step
        if len(ip_proc.lines) > i_ip:
            lat["ip"].append(ip_proc.lines[i_ip][0] - t0)
        got = gl_proc.lines[i_gl:]
        if got:
            lat["glib"].append(got[0][0] - t0)
            right += got[-1][1].strip() == ("1" if present else "0")
        else:
            missed += 1
    glib_idle_before = context_switches(gl_proc.pid)
    time.sleep(RESULTS_IDLE_SECONDS)
    idle, _ = wakeups(glib_idle_before, context_switches(gl_proc.pid))
    RESULTS["glib"] = {
        "class": gl_proc.lines[0][1].split()[-1] if gl_proc.lines else "?",
        "n": len(lat["glib"]), "right": right, "missed": missed, "samples": samples, "idle": idle,
        "median_us": us(statistics.median(lat["glib"])) if lat["glib"] else None,
        "p99_us": us(pct(lat["glib"], 99)) if lat["glib"] else None,
        "ip_median_us": us(statistics.median(lat["ip"])), "ip_p99_us": us(pct(lat["ip"], 99)),
    }
    log("glib:", RESULTS["glib"])
    for p in procs:
        p.stop()


def glib_pid(proc):
    # `ip netns exec` execs the command: the pid is python's own.
    return proc.pid


RESULTS_IDLE_SECONDS = 10


def settle(procs, seconds=0.3):
    pump(procs, lambda: False, seconds)


def drop_page_cache():
    """Empties the page cache, so that the binary's pages are read back as a fresh start reads
    them: on kernels with large folios, fault-around maps what a cached folio holds, and how
    the file came into the cache (the linker's writes, a copy) moved RSS by 0.5 MB."""
    os.sync()
    with open("/proc/sys/vm/drop_caches", "w") as f:
        f.write("3\n")


def bench_storm(netpath, events, overrun_events):
    drop_page_cache()
    ns = uplink_ns("storm")
    oif = ifindex(ns, "veth0")
    nl = RawNetlink(ns)
    nl.route(True, oif, gateway="192.0.2.1")
    np_proc = watch(netpath, ns)
    # ip monitor writes to a file, not to this driver: a Python reader timestamping 16,000
    # lines falls behind, ip then blocks on the pipe, its socket overflows and it drops
    # events (it printed ~11,600 of 16,000 lines that way), which is less work, not a fair
    # reference. Its kernel drops are reported beside its CPU time.
    ip_out = tempfile.NamedTemporaryFile(prefix="npb-storm-ip-", delete=False)
    ip_popen = subprocess.Popen(["ip", "-n", ns, "-rcvbuf", "4194304", "-o", "monitor", "link", "address", "route"],
                                stdout=ip_out, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    PROCS.append(Stoppable(ip_popen))  # stopped on any exit, like every Proc
    procs = [np_proc]
    settle(procs, 0.5)
    if status_of(np_proc.lines[-1][1]) != "satisfied":
        raise RuntimeError("storm: not satisfied at the start: " + np_proc.lines[-1][1])
    half = events // 2
    lines = ["address add 10.%d.%d.%d/32 dev veth0" % (100 + i // 65536, (i // 256) % 256, i % 256) for i in range(half)]
    lines += ["address del 10.%d.%d.%d/32 dev veth0" % (100 + i // 65536, (i // 256) % 256, i % 256) for i in range(half)]
    i_np = len(np_proc.lines)
    ip_size0 = os.path.getsize(ip_out.name)
    pids = {"netpath": np_proc.pid, "ip monitor": ip_popen.pid}
    drops0 = netlink_drops(ns, ip_popen.pid)
    cpu0 = {name: (cpu_ms(pid), ticks_ms(pid)) for name, pid in pids.items()}
    t_start = mono()
    batcher = subprocess.Popen(["ip", "-n", ns, "-batch", "-"], stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    batcher.stdin.write("\n".join(lines) + "\n")
    batcher.stdin.close()
    while batcher.poll() is None:
        pump(procs, lambda: batcher.poll() is not None, 0.05)
    if batcher.returncode != 0:
        raise RuntimeError("storm batch failed: " + batcher.stderr.read())
    t_loss = nl.route(False, oif, gateway="192.0.2.1")
    pump(procs, lambda: lines_after(np_proc, i_np, lambda s: status_of(s) == "unsatisfied"), 30)
    settle(procs, 1.0)  # let both finish reading the storm
    cpu1 = {name: (cpu_ms(pid), ticks_ms(pid)) for name, pid in pids.items()}
    ip_drops = netlink_drops(ns, ip_popen.pid) - drops0
    with open(ip_out.name, "rb") as f:
        f.seek(ip_size0)
        ip_events = f.read().count(b"\n")
    storm_lines = np_proc.lines[i_np:]
    final = json.loads(storm_lines[-1][1]) if storm_lines else {}
    first_unsat = lines_after(np_proc, i_np, lambda s: status_of(s) == "unsatisfied")
    RESULTS["storm"] = {
        "address_events": events, "ip_monitor_lines": ip_events, "ip_monitor_drops": ip_drops,
        "netpath_cpu_ms": cpu1["netpath"][0] - cpu0["netpath"][0],
        "ip_cpu_ms": cpu1["ip monitor"][0] - cpu0["ip monitor"][0],
        "netpath_ticks_ms": cpu1["netpath"][1] - cpu0["netpath"][1],
        "ip_ticks_ms": cpu1["ip monitor"][1] - cpu0["ip monitor"][1],
        "netpath_lines": len(storm_lines), "real_changes": 1,
        "final_right": final.get("status") == "unsatisfied" and final.get("diagnosis") == "noDefaultRoute",
        "final": {k: final.get(k) for k in ("status", "diagnosis")},
        "ms_from_loss": (first_unsat[0][0] - t_loss) / 1e6 if first_unsat else None,
        "ms_from_storm_start": (first_unsat[0][0] - t_start) / 1e6 if first_unsat else None,
        "batch_ms": (t_loss - t_start) / 1e6,
        "netpath_vmhwm_kb": vm(np_proc.pid, "VmHWM"), "ip_vmhwm_kb": vm(ip_popen.pid, "VmHWM"),
        "netpath_vmrss_kb": vm(np_proc.pid, "VmRSS"),
    }
    log("storm:", RESULTS["storm"])
    Proc.stop(Stoppable(ip_popen))
    ip_out.close()
    os.unlink(ip_out.name)

    # Overrun: the same watch, stopped through `overrun_events` address events and a route change.
    nl.route(True, oif, gateway="192.0.2.1")
    pump([np_proc], lambda: status_of(np_proc.lines[-1][1]) == "satisfied", 5)
    settle([np_proc], 0.2)
    i_np = len(np_proc.lines)
    drops0 = netlink_drops(ns, np_proc.pid)
    np_proc.popen.send_signal(signal.SIGSTOP)
    half = overrun_events // 2
    lines = ["address add 10.%d.%d.%d/32 dev veth0" % (100 + i // 65536, (i // 256) % 256, i % 256) for i in range(half)]
    lines += ["address del 10.%d.%d.%d/32 dev veth0" % (100 + i // 65536, (i // 256) % 256, i % 256) for i in range(half)]
    batch(ns, lines)
    nl.route(False, oif, gateway="192.0.2.1")
    drops1 = netlink_drops(ns, np_proc.pid)
    t_cont = mono()
    np_proc.popen.send_signal(signal.SIGCONT)
    pump([np_proc], lambda: lines_after(np_proc, i_np, lambda s: status_of(s) == "unsatisfied"), 30)
    settle([np_proc], 1.0)
    got = lines_after(np_proc, i_np, lambda s: status_of(s) == "unsatisfied")
    after = np_proc.lines[i_np:]
    final = json.loads(after[-1][1]) if after else {}
    RESULTS["overrun"] = {
        "events": overrun_events, "kernel_drops": drops1 - drops0,
        "ms_to_true_path": (got[0][0] - t_cont) / 1e6 if got else None,
        "lines_after_resume": len(after),
        "final_right": final.get("status") == "unsatisfied" and final.get("diagnosis") == "noDefaultRoute",
        "alive": np_proc.popen.poll() is None,
        "netpath_vmhwm_kb": vm(np_proc.pid, "VmHWM"),
    }
    log("overrun:", RESULTS["overrun"])
    np_proc.stop()


def hyperfine(commands, runs, name):
    out = os.path.join(tempfile.gettempdir(), "npb-%s-%s.json" % (RUN_ID, name))
    argv = ["hyperfine", "-N", "-i", "--style", "none", "--warmup", "5", "--runs", str(runs), "--export-json", out]
    for label, command in commands:
        argv += ["-n", label, command]
    subprocess.run(argv, check=True, capture_output=True)
    with open(out) as f:
        data = json.load(f)
    os.unlink(out)
    return {r["command"]: r["median"] * 1000.0 for r in data["results"]}


def median_wall(argv, runs):
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(argv, capture_output=True)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000.0


def bench_startup(variants, runs):
    commands = [("netpath (%s)" % label, "%s status --json" % path) for label, path in variants]
    commands.append(("ip -j addr show", "ip -j addr show"))
    if has_hyperfine():
        RESULTS["startup"] = {"tool": "hyperfine", "runs": runs, "median_ms": hyperfine(commands, runs, "startup")}
    else:
        RESULTS["startup"] = {"tool": "loop", "runs": runs,
                              "median_ms": {label: median_wall(c.split(), runs) for label, c in commands}}
    RESULTS["startup"]["size_bytes"] = {label: os.path.getsize(path) for label, path in variants}
    log("startup:", RESULTS["startup"])


def has_hyperfine():
    return subprocess.run(["sh", "-c", "command -v hyperfine"], capture_output=True).returncode == 0


def bench_scale(netpath, pairs, routes, paced_events, runs):
    big = make_ns("big")
    small = uplink_ns("small")
    t0 = time.monotonic()
    batch(big, ["link add sa%d type veth peer name sb%d" % (i, i) for i in range(pairs)])
    batch(big, ["link set sa%d up" % i for i in range(pairs)] + ["link set sb%d up" % i for i in range(pairs)])
    batch(big, ["address add 192.0.2.2/24 dev sa0", "route add default via 192.0.2.1 dev sa0"]
          + ["route add 10.%d.%d.0/24 dev sa%d" % (i // 256, i % 256, i % pairs) for i in range(routes)])
    links = len(sh("ip", "-n", big, "-o", "link", "show").splitlines())
    route_count = len(sh("ip", "-n", big, "route", "show", "table", "all").splitlines())
    log("scale namespace: %d links, %d routes (all tables), built in %.1f s" % (links, route_count, time.monotonic() - t0))
    oif_small = ifindex(small, "veth0")
    RawNetlink(small).route(True, oif_small, gateway="192.0.2.1")
    commands = [("status big", "%s status --json --netns %s" % (netpath, big)),
                ("status small", "%s status --json --netns %s" % (netpath, small)),
                ("ip addr big", "ip -n %s -j addr show" % big)]
    walls = hyperfine(commands, runs, "scale") if has_hyperfine() else {
        label: median_wall(c.split(), runs) for label, c in commands}
    per_event = {}
    for label, ns, dev in (("small", small, "veth0"), ("big", big, "sa0")):
        oif = ifindex(ns, dev)
        nl = RawNetlink(ns)
        np_proc = watch(netpath, ns)
        ip_proc = ip_monitor(ns)
        settle([np_proc, ip_proc], 0.5)
        c0 = (cpu_ms(np_proc.pid), cpu_ms(ip_proc.pid))
        # Paced: one route change at a time, so each is its own wake-up (the worst case per event).
        for i in range(paced_events):
            nl.route(i % 2 == 0, oif, dst="198.51.100.%d" % (i // 2 % 250 + 1), plen=32)
            pump([np_proc, ip_proc], lambda: False, 0.0005)
        settle([np_proc, ip_proc], 0.3)
        c1 = (cpu_ms(np_proc.pid), cpu_ms(ip_proc.pid))
        if nl.errors():
            raise RuntimeError("scale: a paced route change failed")
        per_event[label] = {"netpath_us": (c1[0] - c0[0]) * 1000.0 / paced_events,
                            "ip_us": (c1[1] - c0[1]) * 1000.0 / paced_events,
                            "netpath_vmhwm_kb": vm(np_proc.pid, "VmHWM")}
        np_proc.stop()
        ip_proc.stop()
    RESULTS["scale"] = {"links": links, "routes": route_count, "status_ms": walls, "per_event": per_event,
                        "paced_events": paced_events}
    log("scale:", RESULTS["scale"])


def scrape(port):
    """One GET /metrics: (milliseconds, body)."""
    t0 = mono()
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(b"GET /metrics HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
        chunks = []
        while True:
            data = conn.recv(1 << 16)
            if not data:
                break
            chunks.append(data)
    text = b"".join(chunks).decode(errors="replace")
    return (mono() - t0) / 1e6, text.split("\r\n\r\n", 1)[-1]


def scrape_until(port, predicate, timeout=30.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        _, text = scrape(port)
        if predicate(text):
            return text
        time.sleep(0.01)
    raise RuntimeError("serve: the scrape never showed the expected state")


def bench_serve(netpath, count, idle_seconds, scrapes):
    """One `netpath serve` watching `count` namespaces, beside one `ip monitor` per namespace."""
    names = []
    t0 = time.monotonic()
    for i in range(count):
        ns = make_ns("srv%d" % i)
        batch(ns, ["link add eth0 type veth peer name peer0", "link set eth0 up", "link set peer0 up",
                   "address add 192.0.2.2/24 dev eth0", "route add default via 192.0.2.1 dev eth0"])
        names.append(ns)
    log("serve: %d namespaces made in %.1f s" % (count, time.monotonic() - t0))
    argv = [netpath, "serve", "--listen", "127.0.0.1:0"]
    for ns in names:
        argv += ["--netns", ns]
    t0 = mono()
    proc = Proc(argv, "serve")
    if not pump([proc], lambda: any("serving http://" in t for _, t in proc.lines), 60):
        raise RuntimeError("serve did not start: " + proc.popen.stderr.read().decode())
    port = int([t for _, t in proc.lines if "serving http://" in t][0].rsplit(":", 1)[1].split("/")[0])
    ready_ms = (mono() - t0) / 1e6
    monitors = [Proc(["ip", "-n", ns, "monitor", "route", "link", "address"], "ipmon") for ns in names]
    satisfied = lambda ns: 'netpath_path_status{netns="%s",status="satisfied"} 1' % ns
    unsatisfied = lambda ns: 'netpath_path_status{netns="%s",status="unsatisfied"} 1' % ns
    scrape_until(port, lambda text: all(satisfied(ns) in text for ns in names))
    settle([proc] + monitors, 1.0)
    threads = len(tasks(proc.pid))
    # Idle: nothing changes; every thread's context switches over the window.
    before = context_switches(proc.pid)
    ip_before = sum(n for m in monitors for _, n in context_switches(m.pid).values())
    time.sleep(idle_seconds)
    idle, notes = wakeups(before, context_switches(proc.pid))
    ip_idle = sum(n for m in monitors for _, n in context_switches(m.pid).values()) - ip_before
    # A flap in every namespace: the default route deleted, then added back. The process's
    # CPU includes the scrapes that wait for the result; the reader thread's is the
    # monitoring alone, the counterpart of the `ip monitor`s'.
    c0 = (cpu_ms(proc.pid), sum(cpu_ms(m.pid) for m in monitors), cpu_ms(proc.pid, "netpath-reader"))
    for ns in names:
        sh("ip", "-n", ns, "route", "del", "default")
    scrape_until(port, lambda text: all(unsatisfied(ns) in text for ns in names))
    for ns in names:
        sh("ip", "-n", ns, "route", "add", "default", "via", "192.0.2.1", "dev", "eth0")
    scrape_until(port, lambda text: all(satisfied(ns) in text for ns in names))
    settle([proc] + monitors, 0.5)
    c1 = (cpu_ms(proc.pid), sum(cpu_ms(m.pid) for m in monitors), cpu_ms(proc.pid, "netpath-reader"))
    # A change in one namespace: the time from `ip route del` returning to the first scrape
    # that shows it (scraping back to back).
    visible = []
    for ns in names[:20]:
        sh("ip", "-n", ns, "route", "del", "default")
        t0 = mono()
        _, text = scrape(port)
        first_text = text
        while unsatisfied(ns) not in text:
            if (mono() - t0) / 1e9 > 30:
                raise RuntimeError("serve: a change in %s never showed in a scrape" % ns)
            _, text = scrape(port)
        visible.append(((mono() - t0) / 1e6, unsatisfied(ns) in first_text))
        sh("ip", "-n", ns, "route", "add", "default", "via", "192.0.2.1", "dev", "eth0")
    scrape_until(port, lambda text: all(satisfied(ns) in text for ns in names))
    times = sorted(scrape(port)[0] for _ in range(scrapes))
    _, text = scrape(port)
    RESULTS["serve"] = {
        "namespaces": count, "threads": threads, "ready_ms": ready_ms,
        "vmhwm_kb": vm(proc.pid, "VmHWM"), "vmrss_kb": vm(proc.pid, "VmRSS"),
        "ip_monitor_rss_kb": sum(vm(m.pid, "VmRSS") for m in monitors),
        "idle_seconds": idle_seconds, "idle_wakeups": idle, "idle_notes": notes[:5], "ip_monitor_idle_wakeups": ip_idle,
        "flap_cpu_ms_per_namespace": (c1[0] - c0[0]) / count, "ip_monitor_flap_cpu_ms_per_namespace": (c1[1] - c0[1]) / count,
        "reader_flap_cpu_ms_per_namespace": (c1[2] - c0[2]) / count,
        "visible_median_ms": statistics.median(v[0] for v in visible), "visible_max_ms": max(v[0] for v in visible),
        "visible_in_first_scrape": sum(1 for v in visible if v[1]), "visible_samples": len(visible),
        "scrape_median_ms": statistics.median(times), "scrape_p99_ms": pct(times, 99),
        "scrape_bytes": len(text.encode()), "series": sum(1 for line in text.splitlines() if line and not line.startswith("#")),
    }
    log("serve:", RESULTS["serve"])
    proc.stop()
    for m in monitors:
        m.stop()


def bench_fanout(fanout, subscribers, rounds):
    ns = uplink_ns("fan")
    oif = ifindex(ns, "veth0")
    nl = RawNetlink(ns)
    proc = Proc([fanout, ns, str(subscribers), str(rounds)], "fanout")
    if not pump([proc], lambda: any(t.startswith("SUBSCRIBED") for _, t in proc.lines), 60):
        raise RuntimeError("fan-out did not subscribe: " + proc.popen.stderr.read().decode())
    all_ms, first_ms = [], []
    present = False
    for k in range(1, rounds + 1):
        pump([proc], lambda: any(t == "READY %d" % k for _, t in proc.lines), 30)
        time.sleep(0.05)
        present = not present
        t0 = nl.route(present, oif, gateway="192.0.2.1")
        if not pump([proc], lambda: any(t.startswith("DONE %d " % k) for _, t in proc.lines), 30):
            raise RuntimeError("fan-out round %d timed out" % k)
        line = [t for _, t in proc.lines if t.startswith("DONE %d " % k)][0].split()
        first_ms.append((int(line[2]) - t0) / 1e6)
        all_ms.append((int(line[3]) - t0) / 1e6)
    pump([proc], lambda: any(t == "END" for _, t in proc.lines), 10)
    RESULTS["fanout"] = {"subscribers": subscribers, "rounds": rounds,
                         "all_median_ms": statistics.median(all_ms), "all_max_ms": max(all_ms),
                         "first_median_ms": statistics.median(first_ms)}
    log("fanout:", RESULTS["fanout"])
    proc.stop()


# ---------------------------------------------------------------- report


def machine():
    cpu = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    mem = int(open("/proc/meminfo").readline().split()[1]) // 1024
    swift = subprocess.run(["swift", "--version"], capture_output=True, text=True).stdout.splitlines()
    swift = next((l for l in swift if "Swift version" in l), "?")
    ip = sh("ip", "-V").strip()
    try:
        glib = subprocess.run(["/usr/bin/python3", "-c", "from gi.repository import GLib; print('%d.%d.%d' % GLib.glib_version)"],
                              capture_output=True, text=True).stdout.strip()
    except Exception:
        glib = "?"
    return "%s, %d CPUs, %d MiB; Linux %s; %s; %s; GLib %s" % (
        cpu, os.cpu_count(), mem, platform.release(), swift, ip, glib)


def ratio(a, b):
    return a / b if a is not None and b else float("nan")


def table(variant):
    rows = []

    def row(name, netpath, reference, r, target, met):
        rows.append("| %s | %s | %s | %s | %s | %s |" % (name, netpath, reference, r, target, met))

    mark = lambda ok: "met" if ok else "**missed**"
    if "latency" in RESULTS:
        l = RESULTS["latency"]
        r = ratio(l["netpath_median_us"], l["ip_median_us"])
        row("latency, median (%d changes)" % l["samples"], "%.0f µs" % l["netpath_median_us"], "%.0f µs (ip monitor)" % l["ip_median_us"],
            "%.2f×" % r, "≤ 1.15×", mark(r <= 1.15))
        r99 = ratio(l["netpath_p99_us"], l["ip_p99_us"])
        row("latency, p99", "%.0f µs" % l["netpath_p99_us"], "%.0f µs (ip monitor)" % l["ip_p99_us"], "%.2f×" % r99, "—", "—")
        for name, half in l.get("halves", {}).items():
            if "netpath" in half and "ip" in half:
                row("latency, median, %s (bound %s)" % (name, "before ip monitor" if name == "netpath first" else "after ip monitor"),
                    "%.0f µs" % half["netpath"], "%.0f µs (ip monitor)" % half["ip"], "%.2f×" % ratio(half["netpath"], half["ip"]), "—", "—")
    if "idle" in RESULTS:
        i = RESULTS["idle"]
        row("idle wake-ups in %d s, all threads (from 1 s after a change)" % i["seconds"], "%d" % i["netpath"],
            "%d (ip monitor)" % i["ip monitor"], "—", "0", mark(i["netpath"] == 0))
    if "glib" in RESULTS:
        g = RESULTS["glib"]
        l = RESULTS["latency"]
        med = "%.0f µs (ip monitor in that pass: %.0f µs)" % (g["median_us"], g["ip_median_us"]) if g["median_us"] is not None else "no signal"
        row("peer: GLib GNetworkMonitor latency, median (own pass, %d changes)" % g["samples"],
            "%.2f× ip monitor" % ratio(l["netpath_median_us"], l["ip_median_us"]), med,
            "GLib %.2f× ip monitor" % ratio(g["median_us"], g["ip_median_us"]) if g["median_us"] else "—", "—", "—")
        row("peer: steps right (path/availability = true state)", "%d/%d" % (l["netpath_n"], l["samples"]),
            "%d/%d (GLib; %d without a signal; %d idle wake-ups in %d s)" % (g["right"], g["samples"], g["missed"], g["idle"], RESULTS_IDLE_SECONDS), "—", "—", "—")
    if "storm" in RESULTS:
        s = RESULTS["storm"]
        r = ratio(s["netpath_cpu_ms"], s["ip_cpu_ms"])
        row("storm CPU (%d address events + route loss)" % s["address_events"], "%.1f ms" % s["netpath_cpu_ms"],
            "%.1f ms (ip monitor, %d lines, %d dropped)" % (s["ip_cpu_ms"], s["ip_monitor_lines"], s.get("ip_monitor_drops", 0)), "%.2f×" % r, "≤ 1.0×", mark(r <= 1.0))
        row("storm lines emitted (real changes: 1)", "%d" % s["netpath_lines"], "—", "—", "≤ 2", mark(s["netpath_lines"] <= 2))
        row("storm final path right", "yes" if s["final_right"] else "**no** %s" % s["final"], "—", "—", "right", mark(s["final_right"]))
        row("storm time to final path", "%.1f ms after the loss (%.0f ms after storm start)" % (s["ms_from_loss"] or -1, s["ms_from_storm_start"] or -1),
            "—", "—", "—", "—")
        kb = s["netpath_vmhwm_kb"]
        row("peak RSS (VmHWM) of watch after the storm", "%.1f MB" % (kb / 1024.0), "%.1f MB (ip monitor)" % (s["ip_vmhwm_kb"] / 1024.0),
            "—", "≤ 8 MB", mark(kb <= 8 * 1024))
    if "overrun" in RESULTS:
        o = RESULTS["overrun"]
        row("overrun: SIGSTOP through %d events, then SIGCONT" % o["events"],
            "true path %.1f ms after SIGCONT; final right: %s; kernel drops %d" % (
                o["ms_to_true_path"] or -1, "yes" if o["final_right"] else "**no**", o["kernel_drops"]),
            "—", "—", "recovers", mark(o["final_right"] and o["alive"]))
    if "startup" in RESULTS:
        st = RESULTS["startup"]["median_ms"]
        ref = st["ip -j addr show"]
        for label, value in st.items():
            if label.startswith("netpath"):
                r = ratio(value, ref)
                size = RESULTS["startup"]["size_bytes"][label[9:-1]]
                # The target is for the build the README installs (static stdlib); the
                # dynamic build is shown for comparison.
                targeted = "static" in label
                row("start-up: `status --json`, %s, %.1f MB binary" % (label, size / 1e6), "%.2f ms" % value,
                    "%.2f ms (ip -j addr show)" % ref, "%.2f×" % r, "≤ 1.3×" if targeted else "— (not the README's build)",
                    mark(r <= 1.3) if targeted else "—")
    if "scale" in RESULTS:
        c = RESULTS["scale"]
        w = c["status_ms"]
        row("scale: `status` with %d links, %d routes" % (c["links"], c["routes"]), "%.1f ms" % w["status big"],
            "%.1f ms (same, small namespace); %.1f ms (ip -j addr show, big)" % (w["status small"], w["ip addr big"]),
            "%.1f× of small" % ratio(w["status big"], w["status small"]), "—", "—")
        pe = c["per_event"]
        r = ratio(pe["big"]["netpath_us"], pe["small"]["netpath_us"])
        row("scale: CPU per event, big vs small table (%d paced route changes)" % c["paced_events"],
            "%.0f µs vs %.0f µs" % (pe["big"]["netpath_us"], pe["small"]["netpath_us"]),
            "%.0f µs vs %.0f µs (ip monitor)" % (pe["big"]["ip_us"], pe["small"]["ip_us"]),
            "%.1f× (%.2f µs more per event per extra link)" % (r, (pe["big"]["netpath_us"] - pe["small"]["netpath_us"]) / max(1, c["links"] - 3)),
            "not linear", mark(r < 2.0))
    if "serve" in RESULTS:
        v = RESULTS["serve"]
        n = v["namespaces"]
        row("serve, %d namespaces: threads" % n, "%d" % v["threads"], "%d processes (one `ip monitor` per namespace)" % n,
            "—", "not growing with namespaces", mark(v["threads"] < 16))
        row("serve: peak RSS (VmHWM)", "%.1f MB" % (v["vmhwm_kb"] / 1024.0),
            "%.1f MB (the %d `ip monitor`s together)" % (v["ip_monitor_rss_kb"] / 1024.0, n), "—", "≤ 32 MB", mark(v["vmhwm_kb"] <= 32 * 1024))
        row("serve: idle wake-ups in %d s" % v["idle_seconds"], "%d" % v["idle_wakeups"], "%d (the `ip monitor`s)" % v["ip_monitor_idle_wakeups"],
            "—", "0", mark(v["idle_wakeups"] == 0))
        row("serve: CPU per namespace for a flap (default route deleted and added), reader thread",
            "%.3f ms" % v["reader_flap_cpu_ms_per_namespace"], "%.3f ms (ip monitor)" % v["ip_monitor_flap_cpu_ms_per_namespace"],
            "%.2f×" % ratio(v["reader_flap_cpu_ms_per_namespace"], v["ip_monitor_flap_cpu_ms_per_namespace"]), "—", "—")
        row("serve: the same, whole process (with the scrapes that waited for the result)", "%.3f ms" % v["flap_cpu_ms_per_namespace"],
            "—", "—", "—", "—")
        row("serve: a change in one namespace, in the first scrape after `ip route del` returns",
            "%d of %d (%.1f ms median until seen)" % (v["visible_in_first_scrape"], v["visible_samples"], v["visible_median_ms"]),
            "—", "—", "next scrape", mark(v["visible_in_first_scrape"] == v["visible_samples"]))
        row("serve: scrape time (%d series, %d bytes)" % (v["series"], v["scrape_bytes"]), "%.2f ms median, %.2f ms p99" % (v["scrape_median_ms"], v["scrape_p99_ms"]),
            "—", "—", "—", "—")
        row("serve: start until listening, %d namespaces" % n, "%.0f ms" % v["ready_ms"], "—", "—", "—", "—")
    if "fanout" in RESULTS:
        f = RESULTS["fanout"]
        row("fan-out: %d `paths` subscribers, all received (%d changes)" % (f["subscribers"], f["rounds"]),
            "%.2f ms median (first %.2f ms, worst %.2f ms)" % (f["all_median_ms"], f["first_median_ms"], f["all_max_ms"]),
            "—", "—", "—", "—")
    head = ["| measure | netpath (%s) | reference, same run | ratio | target | |" % variant,
            "| --- | --- | --- | --- | --- | --- |"]
    return "\n".join(head + rows)


def main():
    parser = argparse.ArgumentParser(prog="Benchmarks/bench.py")
    parser.add_argument("--netpath", required=True, help="the netpath binary measured")
    parser.add_argument("--variant", default="dynamic", help="the name of that build in the table (default: dynamic)")
    parser.add_argument("--startup", action="append", default=[], help="LABEL=PATH of a netpath binary for the start-up race")
    parser.add_argument("--fanout", help="the Benchmarks/FanOut binary (without it, no fan-out benchmark)")
    parser.add_argument("--samples", type=int, default=200, help="route changes in the latency pass (default: 200)")
    parser.add_argument("--only", default="latency,storm,startup,scale,fanout,serve",
                        help="comma-separated benchmarks to run (default: latency,storm,startup,scale,fanout,serve)")
    parser.add_argument("--namespaces", type=int, default=100, help="namespaces watched by one `netpath serve` (default: 100)")
    parser.add_argument("--no-glib", action="store_true", help="skip the GLib GNetworkMonitor peer")
    parser.add_argument("--json-out", help="also write the results as JSON to this file")
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("Benchmarks/run needs root (network namespaces)")
    only = set(args.only.split(","))
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, lambda *_: sys.exit(130))
    try:
        if "latency" in only:
            bench_latency(args.netpath, args.samples, not args.no_glib)
        if "storm" in only:
            bench_storm(args.netpath, 8000, 20000)
        if "startup" in only:
            variants = [v.split("=", 1) for v in args.startup] or [(args.variant, args.netpath)]
            bench_startup(variants, 100)
        if "scale" in only:
            bench_scale(args.netpath, 500, 10000, 2000, 20)
        if "fanout" in only and args.fanout:
            bench_fanout(args.fanout, 1000, 10)
        if "serve" in only:
            bench_serve(args.netpath, args.namespaces, 5, 50)
    finally:
        cleanup()
    print()
    print("Machine: " + machine())
    print()
    print(table(args.variant))
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(RESULTS, f, indent=1)


if __name__ == "__main__":
    main()
