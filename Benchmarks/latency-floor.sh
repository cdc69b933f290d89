#!/usr/bin/env bash
# Latency beside its floor (issue 37): bench.py's latency pass (the default route added and
# removed through a gateway, each change timed from the netlink request to the line read from
# the watcher's pipe, `ip monitor` watching beside it) run for `netpath watch --json` and for a
# C program that asks the kernel the same questions and nothing else (Benchmarks/latency-
# floor.c), alternating. Prints each pass's medians and their ratios: what is NetPath's, and
# what any monitor that asks the kernel after an event pays. Root; never run by CI.
#   usage: sudo Benchmarks/latency-floor.sh NETPATH [ROUNDS] [SAMPLES]
# With FLOOR_LINES="CODE DATA" the floor also touches that many lines of code and data per
# event (Benchmarks/working-set.sh counts a watcher's).
# FLOOR_LINES="CODE DATA CODE_PER_PAGE DATA_PER_PAGE" also sets how many lie on a page (default 10
# and 6; 64 puts them side by side).
set -euo pipefail
netpath=${1:?usage: latency-floor.sh NETPATH [ROUNDS] [SAMPLES]}; rounds=${2:-3}; samples=${3:-200}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cc -O2 -o "$work/floor" "$here/latency-floor.c"
# bench.py starts its watcher as `WATCHER watch --json --netns NS`: the floor runs in NS.
cat >"$work/floor-watch" <<SCRIPT
#!/bin/sh
exec ip netns exec "\$4" "$work/floor" ${FLOOR_LINES:-}
SCRIPT
chmod +x "$work/floor-watch"
# One latency pass with WATCHER: "WATCHER_MEDIAN IP_MONITOR_MEDIAN" (µs) in $work/median.$2.
pass() {
  if ! python3 "$here/bench.py" --netpath "$1" --only latency --samples "$samples" --no-glib \
      --json-out "$work/out.json" >"$work/log" 2>&1; then
    echo "latency-floor: the latency pass of $1 failed:" >&2
    tail -20 "$work/log" >&2
    exit 1
  fi
  python3 -c 'import json, sys; l = json.load(open(sys.argv[1]))["latency"]; print(l["netpath_median_us"], l["ip_median_us"])' \
    "$work/out.json" >"$work/median.$2"
}
for round in $(seq "$rounds"); do
  pass "$netpath" netpath
  pass "$work/floor-watch" floor
  read -r np np_ip <"$work/median.netpath"
  read -r fl fl_ip <"$work/median.floor"
  awk -v n="$np" -v ni="$np_ip" -v f="$fl" -v fi="$fl_ip" 'BEGIN {
    printf "netpath %.0f us (ip monitor %.0f: %.2fx), floor %.0f us (ip monitor %.0f: %.2fx): netpath/floor %.2fx\n",
      n, ni, n / ni, f, fi, f / fi, (n / ni) / (f / fi) }'
done
