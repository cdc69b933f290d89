#!/usr/bin/env bash
# The storm's CPU beside its floor (issue 37): `netpath watch`, `ip monitor` and a C reader that
# only reads (Benchmarks/netlink-floor.c) watch one namespace at once while `ip -batch` adds and
# deletes 4,000 /32 addresses and the default route goes. Prints each one's CPU time (all its
# threads, se.sum_exec_runtime) and the ratios. Root; never run by CI.
#   usage: sudo Benchmarks/storm-floor.sh NETPATH [ROUNDS]
set -euo pipefail
netpath=${1:?usage: storm-floor.sh NETPATH [ROUNDS]}; rounds=${2:-3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d); trap 'ip netns del "stf$$" 2>/dev/null; ip netns del "stf$$r" 2>/dev/null; rm -rf "$work"' EXIT
cc -O2 -o "$work/floor" "$here/netlink-floor.c"
for i in $(seq 0 3999); do echo "addr add 10.$((100 + i / 65536)).$((i / 256 % 256)).$((i % 256))/32 dev eth0"; done >"$work/add"
sed 's/^addr add/addr del/' "$work/add" >"$work/del"
cpu() { awk '/se.sum_exec_runtime/ {s += $3} END {printf "%.1f", s}' /proc/"$1"/task/*/sched; }
for round in $(seq "$rounds"); do
  ns=stf$$; ip netns add "$ns"; ip netns add "${ns}r"
  ip link add eth0 netns "$ns" type veth peer name p0 netns "${ns}r"
  ip -n "${ns}r" link set p0 up; ip -n "$ns" link set lo up; ip -n "$ns" link set eth0 up
  ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
  ip -n "$ns" addr add 192.0.2.2/24 dev eth0; ip -n "$ns" route add default via 192.0.2.1
  "$netpath" watch --netns "$ns" --json >/dev/null & np=$!
  ip netns exec "$ns" "$work/floor" >/dev/null 2>&1 & floor=$!
  ip -n "$ns" -rcvbuf 4194304 -o monitor link address route >/dev/null & mon=$!
  # Each has read the namespace's state and waits (the floor prints nothing until the end).
  until grep -q . <(ip netns pids "$ns" 2>/dev/null) && [ -e /proc/$floor ]; do :; done
  sleep 1
  n0=$(cpu $np); f0=$(cpu $floor); m0=$(cpu $mon)
  ip -n "$ns" -batch "$work/add"; ip -n "$ns" -batch "$work/del"; ip -n "$ns" route del default
  sleep 2
  n=$(awk -v a="$(cpu $np)" -v b="$n0" 'BEGIN {print a - b}'); f=$(awk -v a="$(cpu $floor)" -v b="$f0" 'BEGIN {print a - b}')
  m=$(awk -v a="$(cpu $mon)" -v b="$m0" 'BEGIN {print a - b}')
  awk -v n="$n" -v f="$f" -v m="$m" 'BEGIN {printf "netpath %.1f ms, ip monitor %.1f ms, floor %.1f ms: netpath/ip %.2fx, netpath/floor %.2fx, floor/ip %.2fx\n", n, m, f, n / m, n / f, f / m}'
  kill $np $mon; kill -TERM $floor; wait 2>/dev/null || true
  ip netns del "$ns"; ip netns del "${ns}r"
done
