#!/usr/bin/env python3
"""A soak of route operations and link flaps under a running `netpath watch` and
`netpath serve`, beside `ip monitor` (issue 30): memory, descriptors and threads before and
after, and whether the last answer is still the kernel's.

Needs root (it makes namespaces).

  python3 Benchmarks/soak.py NETPATH [--routes 150000] [--flaps 20000] [--chunk 5000]

A namespace with a veth whose peer (in a second namespace) is up, 192.0.2.2/24 and a
default route. Started in it: `netpath watch --json`, `netpath serve --listen
127.0.0.1:0` (scraped once per chunk) and `ip monitor all`, each reading everything. Then
`--routes` /32 routes are added and deleted again (2 × routes operations, `ip -batch`
chunks of `--chunk`) and the veth is taken down and up `--flaps` times. Reported for each
process: RSS and peak RSS (VmHWM), descriptors and threads after start-up and at the end;
for netpath, the lines written and whether its last line equals a fresh `netpath status
--json`.
"""
import argparse, json, os, select, subprocess, sys, time, urllib.request

TAG = "npsoak%d" % (os.getpid() % 100000)
NS, PEER = TAG + "-a", TAG + "-b"


def run(*command, stdin=None):
    subprocess.run(list(command), input=stdin, text=True, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def batch(ns, lines):
    run("ip", "-n", ns, "-force", "-batch", "-", stdin="\n".join(lines) + "\n")


def fields(pid):
    values = {}
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            key, _, value = line.partition(":")
            values[key] = value.strip()
    return {"rss": int(values["VmRSS"].split()[0]), "hwm": int(values["VmHWM"].split()[0]),
            "threads": int(values["Threads"]), "fds": len(os.listdir("/proc/%d/fd" % pid))}


class Drain:
    """Reads a process's standard output as it comes, counting lines, keeping the last."""

    def __init__(self, process):
        self.process, self.lines, self.last, self.buffer = process, 0, None, b""
        os.set_blocking(process.stdout.fileno(), False)

    def pump(self, seconds=0.0):
        deadline = time.monotonic() + seconds
        while True:
            left = max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([self.process.stdout], [], [], left)
            if not ready:
                return
            chunk = os.read(self.process.stdout.fileno(), 1 << 20)
            if not chunk:
                return
            self.buffer += chunk
            *complete, self.buffer = self.buffer.split(b"\n")
            self.lines += len(complete)
            if complete:
                self.last = complete[-1].decode()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("netpath")
    parser.add_argument("--routes", type=int, default=150000)
    parser.add_argument("--flaps", type=int, default=20000)
    parser.add_argument("--chunk", type=int, default=5000)
    args = parser.parse_args()
    binary = os.path.abspath(args.netpath)
    processes = []
    try:
        run("ip", "netns", "add", NS)
        run("ip", "netns", "add", PEER)
        batch(NS, ["link add v0 type veth peer name v1 netns %s" % PEER, "addr add 192.0.2.2/24 dev v0", "link set v0 up",
                   "link set lo up"])
        batch(PEER, ["link set v1 up"])
        run("ip", "-n", NS, "route", "add", "default", "via", "192.0.2.1")
        subprocess.run([binary, "wait", "--netns", NS, "--timeout", "10"], check=True, stdout=subprocess.DEVNULL)
        watch = subprocess.Popen([binary, "watch", "--json", "--netns", NS], stdout=subprocess.PIPE)
        serve = subprocess.Popen([binary, "serve", "--listen", "127.0.0.1:0", "--netns", NS], stdout=subprocess.PIPE,
                                 stderr=subprocess.DEVNULL, text=True)
        monitor_errors = open("/tmp/%s-ip-monitor.err" % TAG, "w+")
        monitor = subprocess.Popen(["ip", "-n", NS, "monitor", "all"], stdout=subprocess.PIPE, stderr=monitor_errors)
        processes = [watch, serve, monitor]
        port = None
        while port is None:
            line = serve.stdout.readline()  # "netpath: serving http://127.0.0.1:PORT/metrics"
            if not line:
                raise SystemExit("serve did not start")
            if "127.0.0.1:" in line:
                port = int(line.split("127.0.0.1:")[1].split("/")[0])
        drains = {"watch": Drain(watch), "ip monitor": Drain(monitor)}
        for drain in drains.values():
            drain.pump(0.5)

        def scrape():
            return urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10).read()

        scrape()
        pids = {"watch": watch.pid, "serve": serve.pid, "ip monitor": monitor.pid}
        before = {name: fields(pid) for name, pid in pids.items()}
        started = time.monotonic()
        operations = 0
        for verb in ("add", "del"):
            for first in range(0, args.routes, args.chunk):
                lines = ["route %s 10.%d.%d.%d/32 via 192.0.2.1" % (verb, n >> 16 & 255, n >> 8 & 255, n & 255)
                         for n in range(first, min(args.routes, first + args.chunk))]
                batch(NS, lines)
                operations += len(lines)
                for drain in drains.values():
                    drain.pump()
                scrape()
        for first in range(0, args.flaps, args.chunk // 2):
            lines = []
            for _ in range(min(args.chunk // 2, args.flaps - first)):
                lines += ["link set v0 down", "link set v0 up"]
            batch(NS, lines)
            batch(NS, ["route replace default via 192.0.2.1"])
            for drain in drains.values():
                drain.pump()
            scrape()
        elapsed = time.monotonic() - started
        # Let every reader catch up: the last answer settles, and the queue drains.
        for drain in drains.values():
            drain.pump(2.0)
        metrics = scrape().decode()
        resyncs = sum(float(line.split()[-1]) for line in metrics.splitlines() if line.startswith("netpath_resyncs_total"))
        after = {name: fields(pid) for name, pid in pids.items()}
        monitor_errors.seek(0)
        overruns = sum(1 for line in monitor_errors if "No buffer space" in line)
        fresh = json.loads(subprocess.run([binary, "status", "--json", "--netns", NS], capture_output=True, text=True).stdout)
        last = json.loads(drains["watch"].last)
        for line in (fresh, last):
            line.pop("time", None)
        print("%d route operations and %d flaps in %.1f s (ip -batch chunks of %d)\n" % (operations, args.flaps, elapsed, args.chunk))
        print("| process | RSS before → after | peak RSS | descriptors | threads | lines |")
        print("| --- | --- | --- | --- | --- | --- |")
        for name in pids:
            b, a = before[name], after[name]
            lines = drains[name].lines if name in drains else "—"
            print("| %s | %.1f → %.1f MiB | %.1f MiB | %d → %d | %d → %d | %s |" % (
                name, b["rss"] / 1024, a["rss"] / 1024, a["hwm"] / 1024, b["fds"], a["fds"], b["threads"], a["threads"], lines))
        print("\nwatch's last line %s a fresh `status --json`. Queue overruns (ENOBUFS): ip monitor reported %d and"
              " went on without the lost events; serve resynchronised %d times (netpath_resyncs_total)."
              % ("equals" if last == fresh else "DIFFERS FROM", overruns, resyncs))
        if last != fresh:
            print("last:  %s\nfresh: %s" % (last, fresh))
    finally:
        for process in processes:
            process.kill()
        subprocess.run(["ip", "netns", "delete", NS], capture_output=True)
        subprocess.run(["ip", "netns", "delete", PEER], capture_output=True)
        try:
            os.unlink("/tmp/%s-ip-monitor.err" % TAG)
        except OSError:
            pass


if __name__ == "__main__":
    main()
