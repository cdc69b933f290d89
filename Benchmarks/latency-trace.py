#!/usr/bin/env python3
"""Where a change's latency goes (issue 37), from a `perf script` of the kernel's tracepoints
taken during bench.py's latency pass (Benchmarks/latency-trace.sh): for each route change the
driver sends, when each watcher is woken (sched_wakeup), when it is on a CPU (sched_switch),
when its wait returns (epoll_wait for `netpath watch`, recvmsg for `ip monitor`) and when it
writes its line (write to standard output). Then, for `netpath watch`, the median time of each
step of a turn between its syscalls, per kind of turn (the syscalls it made, in order).

    latency-trace.py PERF_SCRIPT_OUTPUT [floor]

With `floor`, the watcher is Benchmarks/latency-floor.c (its process `floor`, waiting in recv)
instead of `netpath watch` (its reader thread `netpath-monitor`, waiting in epoll_wait).

Times are the kernel's tracepoint clock, in µs; medians over the changes both answered."""
import collections
import itertools
import re
import statistics
import sys

# x86_64 syscall numbers of the calls a turn makes.
NAMES = {0: "read", 1: "write", 42: "connect", 44: "sendto", 45: "recvfrom", 47: "recvmsg", 51: "getsockname",
         232: "epoll_wait", 281: "epoll_pwait", 299: "recvmmsg"}
WATCHERS = {"floor": (45,), "ip": (47,)} if sys.argv[2:] == ["floor"] else {"netpath-monitor": (232, 281), "ip": (47,)}
WATCHER = next(iter(WATCHERS))
LINE = re.compile(r"^\s*(\S.*?)\s+\d+\s+\[\d+\]\s+([\d.]+):\s+(\S+):\s*(.*)$")


def events(path):
    found = []
    with open(path) as text:
        for line in text:
            match = LINE.match(line)
            if match:
                comm, seconds, event, rest = match.groups()
                found.append((float(seconds) * 1e6, comm, event, rest))
    found.sort(key=lambda event: event[0])
    return found


def number(rest):
    return int(rest.split()[1])


def wakes(found):
    """Per watcher, per change: (woken, on a CPU, wait returned, line written), from the send."""
    sends = [i for i, (_, comm, event, rest) in enumerate(found)
             if comm == "python3" and event == "raw_syscalls:sys_enter" and number(rest) == 44]
    rows = {name: [] for name in WATCHERS}
    for k, first in enumerate(sends):
        sent = found[first][0]
        end = found[sends[k + 1]][0] if k + 1 < len(sends) else float("inf")
        for name, waits in WATCHERS.items():
            woken = running = returned = None
            for when, comm, event, rest in itertools.islice(found, first, None):
                if when > end:
                    break
                if event == "sched:sched_wakeup" and woken is None and ("comm=%s " % name) in rest:
                    woken = when
                elif event == "sched:sched_switch" and woken is not None and running is None and ("next_comm=%s " % name) in rest:
                    running = when
                elif comm == name and event == "raw_syscalls:sys_exit" and returned is None and number(rest) in waits:
                    returned = when
                elif comm == name and event == "raw_syscalls:sys_enter" and returned is not None and rest.startswith("NR 1 (1,"):
                    if None not in (woken, running):
                        rows[name].append((woken - sent, running - woken, returned - running, when - returned, when - sent))
                    break
    return rows


def turns(found, name, waits):
    """Each turn of one watcher, from its wait's return to its line: [(when, step)]."""
    every, turn = [], None
    for when, comm, event, rest in found:
        if event == "sched:sched_switch" and turn is not None and ("prev_comm=%s " % name) in rest:
            # Asleep (S: blocked in its wait) or preempted (R: still runnable).
            turn.append((when, "asleep" if "prev_state=S" in rest else "off CPU"))
            continue
        if comm != name or not event.startswith("raw_syscalls"):
            continue
        call = number(rest)
        entering = event.endswith("sys_enter")
        if not entering and call in waits and (turn is None or turn[-1][1] == "asleep"):
            # A turn starts where a wait it slept in returns; a wait that did not block (a
            # drain's recv with MSG_DONTWAIT) is a step of the turn.
            turn = [(when, NAMES.get(call, str(call)) + " returns")]
        elif turn is not None:
            turn.append((when, ("" if entering else "returns from ") + NAMES.get(call, str(call))))
            if entering and call == 1 and rest.startswith("NR 1 (1,"):
                every.append(turn)
                turn = None
    return every


def main():
    found = events(sys.argv[1])
    rows = wakes(found)
    median = statistics.median
    print("median µs per change (changes both answered)   woken  on CPU  wait returns  turn  line")
    for name, values in rows.items():
        if values:
            print("  %-16s (%3d changes)            %6.0f  %6.0f  %12.0f  %4.0f  %4.0f"
                  % ((name, len(values)) + tuple(median([v[i] for v in values]) for i in range(5))))
    kinds = collections.defaultdict(list)
    for turn in turns(found, WATCHER, WATCHERS[WATCHER]):
        kinds[tuple(step for _, step in turn)].append([turn[i + 1][0] - turn[i][0] for i in range(len(turn) - 1)])
    for steps, lengths in sorted(kinds.items(), key=lambda kind: -len(kind[1]))[:3]:
        print("%s turns that go %s (%d):" % (WATCHER, " → ".join(s for s in steps if not s.startswith("returns from")), len(lengths)))
        spans = [median([length[i] for length in lengths]) for i in range(len(steps) - 1)]
        # In user space: from a syscall's return (or the turn's start) to the next call.
        user = [not steps[i + 1].startswith("returns from") and not {"off CPU", "asleep"} & set(steps[i:i + 2])
                for i in range(len(spans))]
        for i, span in enumerate(spans):
            print("  %-40s %5.0f µs%s" % ("%s → %s" % (steps[i], steps[i + 1]), span, "  (user space)" if user[i] else ""))
        print("  %-40s %5.0f µs (user space %.0f)" % ("whole turn", sum(spans),
                                                       sum(span for span, mine in zip(spans, user) if mine)))


main()
