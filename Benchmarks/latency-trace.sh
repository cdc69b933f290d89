#!/usr/bin/env bash
# Where a change's latency goes (issue 37): bench.py's latency pass for NETPATH, with the
# kernel's scheduler and syscall tracepoints recorded by `perf record` (only the calls a turn
# makes; perf's own left out), then Benchmarks/latency-trace.py: for `netpath watch` and `ip
# monitor`, when each is woken, on a CPU, back from its wait and writing its line, from the
# change's send; and the steps of a `watch` turn between its syscalls. No hardware counter is
# needed (this VM has none). With `floor` for NETPATH, the watcher is the C floor
# (Benchmarks/latency-floor.c): the same syscalls, no other work; FLOOR_LINES as in
# latency-floor.sh adds lines of code and data for it to touch. Root; never run by CI.
# KEEP=FILE keeps the `perf script` text for another look.
#   usage: sudo Benchmarks/latency-trace.sh NETPATH|floor [SAMPLES]
set -euo pipefail
netpath=${1:?usage: latency-trace.sh NETPATH|floor [SAMPLES]}; samples=${2:-200}
here=$(cd "$(dirname "$0")" && pwd)
command -v perf >/dev/null || { echo "latency-trace: needs perf (apt-get install linux-perf)" >&2; exit 1; }
work=$(mktemp -d)
trap '[ -n "${KEEP:-}" ] && cp "$work/trace.txt" "$KEEP" 2>/dev/null; rm -rf "$work"' EXIT
watcher=$netpath mode=
if [ "$netpath" = floor ]; then
  # bench.py starts its watcher as `WATCHER watch --json --netns NS`: the floor runs in NS.
  cc -O2 -o "$work/floor" "$here/latency-floor.c"
  printf '#!/bin/sh\nexec ip netns exec "$4" %s %s\n' "$work/floor" "${FLOOR_LINES:-}" >"$work/floor-watch"
  chmod +x "$work/floor-watch"
  watcher=$work/floor-watch mode=floor
fi
calls='id==0||id==1||id==42||id==44||id==45||id==47||id==51||id==232||id==281||id==299'
perf record -q -a -o "$work/perf.data" \
  -e raw_syscalls:sys_enter --filter "$calls" --exclude-perf \
  -e raw_syscalls:sys_exit --filter "$calls" --exclude-perf \
  -e sched:sched_wakeup -e sched:sched_switch -- \
  /usr/bin/python3 "$here/bench.py" --netpath "$watcher" --only latency --samples "$samples" --no-glib \
  --json-out "$work/results.json" > "$work/bench.log" 2>&1 || { cat "$work/bench.log" >&2; exit 1; }
grep "latency, median" "$work/bench.log"
perf script -i "$work/perf.data" -F comm,tid,cpu,time,event,trace 2>/dev/null > "$work/trace.txt"
python3 "$here/latency-trace.py" "$work/trace.txt" $mode
