#!/usr/bin/env bash
# The per-event working set (issue 37): `netpath watch --json`, `ip monitor` and the latency
# floor (Benchmarks/latency-floor.c) each run under valgrind's lackey in a namespace whose
# default route is added and removed FLAPS times, 0.2 s apart; Benchmarks/working-set.py counts
# the distinct cache lines and pages of code and data each touches per printed event (from one
# line written to the next, and from the wake-up that brought the event to its line). A count,
# not a time: the same for the same binaries whatever the machine is doing. Root; never run by
# CI.
#   usage: sudo Benchmarks/working-set.sh NETPATH [FLAPS]
set -euo pipefail
netpath=${1:?usage: working-set.sh NETPATH [FLAPS]}; flaps=${2:-20}
here=$(cd "$(dirname "$0")" && pwd)
ns=npws$$
work=$(mktemp -d)
cleanup() { pkill -f "lackey.*$work" 2>/dev/null || true; ip netns del "$ns" 2>/dev/null || true; ip netns del "${ns}p" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
cc -O2 -o "$work/floor" "$here/latency-floor.c"
# valgrind cannot read the release build's debug information: strip a copy.
strip --strip-debug -o "$work/netpath" "$netpath"
ip netns add "$ns"; ip netns add "${ns}p"
ip link add veth0 netns "$ns" type veth peer name veth1 netns "${ns}p"
ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
ip -n "$ns" addr add 192.0.2.2/24 dev veth0; ip -n "$ns" link set veth0 up; ip -n "$ns" link set lo up
ip -n "${ns}p" addr add 192.0.2.1/24 dev veth1; ip -n "${ns}p" link set veth1 up
libc=$(ldd "$work/floor" | awk '/libc.so/ {print $3}')
symbol() { nm -D "$libc" | awk -v s="$1" '{split($3, n, "@")} n[1] == s && ($2 == "W" || $2 == "T") {print $1; exit}'; }
# One watcher under lackey: NAME [ip netns exec NS] COMMAND...
measure() {
  local name=$1; shift
  local inside=()
  if [ "$1" = ip ] && [ "$2" = netns ]; then inside=("$1" "$2" "$3" "$4"); shift 4; fi
  "${inside[@]}" valgrind --tool=lackey --trace-mem=yes --log-file="$work/$name.trace" "$@" >"$work/$name.out" 2>/dev/null &
  local pid=$!
  # Its first line: it has read the namespace and waits (`ip monitor` prints nothing before an
  # event: the route goes and comes until it has printed one).
  local tries=0
  until [ -s "$work/$name.out" ]; do
    kill -0 $pid 2>/dev/null || { echo "working-set: $name ended before its first line" >&2; exit 1; }
    tries=$((tries + 1)); [ $tries -lt 600 ] || { echo "working-set: $name printed nothing in 60 s" >&2; exit 1; }
    if [ "$name" = ip ] && [ $((tries % 10)) = 0 ]; then
      ip -n "$ns" route add default via 192.0.2.1; ip -n "$ns" route del default via 192.0.2.1
    fi
    sleep 0.1
  done
  sleep 1
  for _ in $(seq "$flaps"); do
    ip -n "$ns" route add default via 192.0.2.1; sleep 0.2
    ip -n "$ns" route del default via 192.0.2.1; sleep 0.2
  done
  sleep 1
  local base
  base=$(awk -v l="$(readlink -f "$libc")" '$6 == l && $3 == "00000000" {split($1, r, "-"); print r[1]; exit}' /proc/$pid/maps)
  kill -TERM $pid; wait $pid 2>/dev/null || true
  local wakes=()
  for wake in $WAKE; do wakes+=("$(printf %x $((0x$base + 0x$(symbol "$wake"))))"); done
  for call in ${SPLIT:-}; do wakes+=("$(printf %x $((0x$base + 0x$(symbol "$call"))))=$call"); done
  python3 "$here/working-set.py" "$work/$name.trace" \
    "$(printf %x $((0x$base + 0x$(symbol write))))" "${wakes[@]}" >"$work/$name.json"
  echo "$name $(cat "$work/$name.json")"
}
# WAKE: where each one waits for the next event (the `wake_` figures start there). SPLIT: the
# calls that split `watch`'s turn into steps (`steps`: what each touches first in the turn).
WAKE=epoll_wait SPLIT="recvmmsg connect getsockname sendto" measure netpath "$work/netpath" watch --json --netns "$ns"
WAKE=recvmsg measure ip ip -n "$ns" -o monitor link address route
WAKE=recv measure floor ip netns exec "$ns" "$work/floor"
