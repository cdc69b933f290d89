#!/usr/bin/env python3
"""Issue 28's measures, in a real NetworkManager lab (Tests/Support/desktop-lab.sh):

- `status --json` wall time with the desktop ignored, no bus, a dead socket, a bus that
  accepts and never answers, and NetworkManager's bus (interleaved rounds, median);
- a running `watch`: peak RSS (VmHWM) with and without the desktop, wake-ups of all its
  threads in 10 s while idle with the bus connected, and the time from NetworkManager's own
  property change (busctl sees Metered flip) to the watch line.

Usage: sudo Benchmarks/desktop.py --netpath BIN [--rounds N]   (prints a Markdown table)
"""
import argparse, os, select, statistics, subprocess, sys, time

LAB = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Support", "desktop-lab.sh")
NAME = "npdbench%d" % (os.getpid() % 10000)


def lab(*args):
    return subprocess.run(["bash", LAB, args[0], NAME] + list(args[1:]), check=True, capture_output=True, text=True).stdout


def value(output, key):
    return next(l.split("=", 1)[1] for l in output.splitlines() if l.startswith(key + "="))


def in_lab(command, env=()):
    return ["bash", LAB, "exec", NAME] + (["/usr/bin/env"] + list(env) if env else []) + command


def switches(pid):
    total = 0
    for tid in os.listdir("/proc/%d/task" % pid):
        with open("/proc/%d/task/%s/status" % (pid, tid)) as f:
            for line in f:
                if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                    total += int(line.split()[1])
    return total


def vm(pid, key):
    with open("/proc/%d/status" % pid) as f:
        return next(int(l.split()[1]) for l in f if l.startswith(key + ":"))


def read_line(proc, seconds):
    ready, _, _ = select.select([proc.stdout], [], [], seconds)
    return proc.stdout.readline() if ready else None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--netpath", required=True)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    binary = os.path.abspath(args.netpath)
    lab("up", "--metered", "yes")
    try:
        stalled = value(lab("stalled-bus"), "bus")
        dead = value(lab("dead-bus"), "bus")
        variants = [
            ("desktop ignored (--ignore-desktop)", [], ["--ignore-desktop"]),
            ("no bus (no socket)", ["DBUS_SYSTEM_BUS_ADDRESS=unix:path=/tmp/%s/none" % NAME], []),
            ("dead socket (ECONNREFUSED)", ["DBUS_SYSTEM_BUS_ADDRESS=" + dead], []),
            ("stalled bus (accepts, never answers)", ["DBUS_SYSTEM_BUS_ADDRESS=" + stalled], []),
            ("NetworkManager's bus", [], []),
        ]
        times = {label: [] for label, _, _ in variants}
        for _ in range(args.rounds):
            for label, env, extra in variants:
                start = time.monotonic()
                subprocess.run(in_lab([binary, "status", "--json"] + extra, env), check=True, capture_output=True)
                times[label].append((time.monotonic() - start) * 1000)
        base = statistics.median(times[variants[0][0]])
        print("| `status --json` in the lab (%d interleaved rounds) | median | vs desktop ignored |" % args.rounds)
        print("| --- | --- | --- |")
        for label, _, _ in variants:
            median = statistics.median(times[label])
            print("| %s | %.1f ms | %+.1f ms |" % (label, median, median - base))

        results = {}
        for label, extra in [("with the desktop", []), ("desktop ignored", ["--ignore-desktop"])]:
            proc = subprocess.Popen(in_lab([binary, "watch", "--json"] + extra), stdout=subprocess.PIPE, text=True)
            try:
                read_line(proc, 20)
                time.sleep(1)
                before = switches(proc.pid)
                time.sleep(10)
                idle = switches(proc.pid) - before
                flip = None
                if not extra:
                    lab("metered", "no")
                    read_line(proc, 20)
                    start = time.monotonic()
                    subprocess.run(in_lab(["nmcli", "con", "modify", "lab", "connection.metered", "yes"]), check=True, capture_output=True)
                    line = read_line(proc, 20)
                    flip = (time.monotonic() - start) * 1000 if line else None
                results[label] = (vm(proc.pid, "VmHWM"), idle, flip)
            finally:
                proc.terminate()
                proc.wait()
        print()
        print("| running `watch` | peak RSS | wake-ups in 10 s idle | `nmcli` metered change to the line |")
        print("| --- | --- | --- | --- |")
        for label, (hwm, idle, flip) in results.items():
            print("| %s | %.1f MB | %d | %s |" % (label, hwm / 1024, idle, "%.0f ms" % flip if flip else "—"))
    finally:
        lab("down")


if __name__ == "__main__":
    sys.exit(main())
