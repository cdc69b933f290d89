#!/usr/bin/env bash
# Writes Sources/netpath/StaticLink/hot-functions.txt: first the functions a `watch` turn touches
# from its wake-up to its line (valgrind's lackey, over default-route flaps), in the order it
# first does; then the other functions a one-shot `status` and a `watch` through a few kernel
# events execute, most shared first, as valgrind's callgrind sees them (mangled names); then
# the data a turn touches, then the data a `status` touches, in the order each first does.
# The release link of `netpath` on Linux gives the file to lld
# (`--symbol-ordering-file`, Package.swift), which puts those functions side by side at the
# head of the text: the pages a run touches, and the 64 KiB the kernel maps around each
# fault, hold hot code instead of code that never runs (BENCHMARKS.md, "Hot functions
# first"). Names the binary no longer has are skipped by the linker; CI fails when fewer
# than 80% of them are found (.ci/run). Run it again after large changes.
#
#   sudo Benchmarks/hot-functions.sh [BINARY]     (default: a release build made as the README says)
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="/opt/swift/usr/bin:$PATH"
[ "$(id -u)" -eq 0 ] || { echo "hot-functions: needs root (network namespaces)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "hot-functions: needs valgrind" >&2; exit 1; }
binary=${1:-}
if [ -z "$binary" ]; then
  swift build -c release --static-swift-stdlib --disable-local-rpath --product netpath
  binary=.build/release/netpath
fi
work=$(mktemp -d)
fresh=nphot-fresh-$$ link=nphot-link-$$
cleanup() { ip netns del "$fresh" 2>/dev/null || true; ip netns del "$link" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
# callgrind reads symbols from the binary itself: a copy without debug sections loads fast.
strip --strip-debug -o "$work/netpath" "$binary"
# valgrind runs netpath itself (given `ip netns exec`, it would profile `ip`); `status` exits 1
# when the path is not satisfied, which is a profile as good as any.
profile() { valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.$1" "${@:2}" >/dev/null 2>&1 || true; }

ip netns add "$fresh"
ip netns add "$link"
ip -n "$link" link add veth0 type veth peer name veth1
ip -n "$link" link set veth0 up
ip -n "$link" link set veth1 up
ip -n "$link" addr add 192.0.2.2/24 dev veth0
ip -n "$link" route add default via 192.0.2.1 dev veth0
ip netns exec "$fresh" bash -c "$(declare -f profile); work=$work; profile fresh $work/netpath status --json"
profile host "$work/netpath" status --json
profile text "$work/netpath" status
for run in fresh host text; do [ -s "$work/cg.$run" ] || { echo "hot-functions: no profile of $run" >&2; exit 1; }; done
# valgrind starts slowly: each change waits for the line it causes (at most 60 s): lines N.
out=
lines() {
  for _ in $(seq 600); do [ "$(wc -l < "$out")" -ge "$1" ] && return; sleep 0.1; done
  echo "hot-functions: $out has no line $1 within 60 s" >&2
  exit 1
}
for format in --json ""; do
  out="$work/watch.out"
  ip netns exec "$link" valgrind --tool=callgrind --demangle=no --callgrind-out-file="$work/cg.watch$format" \
    "$work/netpath" watch $format > "$work/watch.out" 2>/dev/null &
  pid=$!
  lines 1
  for i in $(seq 1 20); do ip -n "$link" addr add "10.9.0.$i/32" dev veth0; done
  ip -n "$link" route del default
  lines 2
  ip -n "$link" route add default via 192.0.2.1 dev veth0
  lines 3
  ip -n "$link" link set veth0 down
  lines 4
  ip -n "$link" link set veth0 up
  ip -n "$link" route add default via 192.0.2.1 dev veth0
  lines 5
  for i in $(seq 1 20); do ip -n "$link" addr del "10.9.0.$i/32" dev veth0; done
  kill -INT "$pid"
  wait "$pid" || true
done

# The functions and data a `watch` turn touches from its wake-up (epoll_wait) to its line
# (write), as valgrind's lackey traces them over default-route flaps. They go first, in the
# order a turn first touches them: side by side they lie on fewer pages, and after an idle
# gap a turn's cost follows the pages and lines it touches (BENCHMARKS.md, "A turn
# on fewer pages").
out="$work/turn.out"
ip netns exec "$link" valgrind --tool=lackey --trace-mem=yes --log-file="$work/turn.trace" \
  "$work/netpath" watch --json > "$out" 2>/dev/null &
pid=$!
lines 1
for flap in 1 2 3 4 5; do
  ip -n "$link" route del default
  lines $((flap * 2))
  ip -n "$link" route add default via 192.0.2.1 dev veth0
  lines $((flap * 2 + 1))
done
cp "/proc/$pid/maps" "$work/turn.maps"
kill -INT "$pid"
wait "$pid" || true
python3 - "$work/netpath" "$work/turn.trace" "$work/turn.maps" > "$work/turn-symbols" <<'PY'
import bisect, subprocess, sys
binary, trace, maps = sys.argv[1:]
# libc as loaded: where its write() and epoll_wait() begin.
libc = next(line.split() for line in open(maps) if "/libc.so" in line and line.split()[2] == "00000000")
base = int(libc[0].split("-")[0], 16)
entry = {}
for line in subprocess.run(["nm", "-D", "--defined-only", libc[5]], capture_output=True, text=True, check=True).stdout.splitlines():
    fields = line.split()
    if len(fields) == 3 and fields[1] in "TW":
        entry.setdefault(fields[2].split("@")[0], base + int(fields[0], 16))
write, wait = entry["write"], entry["epoll_wait"]
symbols = []
for line in subprocess.run(["nm", "-n", "-S", "--defined-only", binary], capture_output=True, text=True, check=True).stdout.splitlines():
    fields = line.split()
    if len(fields) == 4:
        kind = "function" if fields[2] in "tTwW" else "data"
        symbols.append((int(fields[0], 16), int(fields[1], 16), kind + " " + fields[3]))
starts = [start for start, _, _ in symbols]
order, seen, turn, writes = [], set(), [], 0
def close(addresses):
    for address in addresses:
        index = bisect.bisect_right(starts, address) - 1
        if index >= 0:
            start, size, name = symbols[index]
            if address < start + max(size, 1) and name not in seen:
                seen.add(name)
                order.append(name)
for line in open(trace, errors="replace"):
    if len(line) < 4 or line[0] not in " I":
        continue
    try:
        address = int(line[3:].split(",", 1)[0], 16)
    except ValueError:
        continue
    if line[0] == "I" and address == wait:
        turn = []
    elif line[0] == "I" and address == write:
        writes += 1
        if writes > 2:  # the start-up's line and the first change's are not a steady turn
            close(turn)
        turn = []
    turn.append(address)
print("\n".join(order))
PY
[ -s "$work/turn-symbols" ] || { echo "hot-functions: no turn found in the trace of watch" >&2; exit 1; }

# Only the binary's own functions (not the C library's, which the linker cannot place).
nm "$work/netpath" | awk '{ print $3 }' > "$work/symbols"
python3 - "$work/symbols" "$work/turn-symbols" "$work"/cg.* > "$work/hot-functions.txt" <<'PY'
import collections, re, sys
symbols = set(open(sys.argv[1]).read().split())
turn = [line.split()[1] for line in open(sys.argv[2]) if line.startswith("function ") and line.split()[1] in symbols]
count, first = collections.Counter(), {}
for index, path in enumerate(sys.argv[3:]):
    names = set()
    for line in open(path, errors="replace"):
        match = re.match(r"^c?fn=\(\d+\) (.+)$", line.rstrip("\n"))
        if match:
            if match.group(1) in symbols:
                names.add(match.group(1))
    for name in names:
        count[name] += 1
        first.setdefault(name, index)
for name in turn + sorted(set(count) - set(turn), key=lambda name: (-count[name], first[name], name)):
    print(name)
PY
[ -s "$work/hot-functions.txt" ] || { echo "hot-functions: no function found in the profiles" >&2; exit 1; }
functions=$(wc -l < "$work/hot-functions.txt")

# Then the data a one-shot `status` reads or writes, in the order it first does, as valgrind's
# lackey traces it: the linker puts it side by side too (BENCHMARKS.md, "Start-up
# without the runtime's argv scan, hot data side by side"). Each page of .bss or .data a run writes costs it a fault of
# its own (no fault-around for a write), and before this the metadata caches and once-tokens
# a `status` touches lay across some 40 pages of .bss. The one large object (the runtime's
# 64 KiB first metadata pool, filled from its start) goes after the small ones.
trace() { valgrind --tool=lackey --trace-mem=yes --log-file="$work/lk.$1" "${@:2}" >/dev/null 2>&1 || true; }
ip netns exec "$fresh" bash -c "$(declare -f trace); work=$work; trace fresh $work/netpath status --json"
trace host "$work/netpath" status --json
for run in fresh host; do [ -s "$work/lk.$run" ] || { echo "hot-functions: no memory trace of $run" >&2; exit 1; }; done
python3 - "$work/netpath" "$work/turn-symbols" "$work"/lk.* >> "$work/hot-functions.txt" <<'PY'
import bisect, subprocess, sys
binary, traces = sys.argv[1], sys.argv[3:]
turn = [line.split()[1] for line in open(sys.argv[2]) if line.startswith("data ")]
sections = {}
for line in subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True, check=True).stdout.splitlines():
    fields = line.split("]", 1)[1].split() if "]" in line and "Name" not in line else []
    if len(fields) > 5 and fields[0] in (".data", ".bss", ".rodata", ".data.rel.ro"):
        sections[fields[0]] = (int(fields[2], 16), int(fields[4], 16))
low = min(start for start, _ in sections.values())
high = max(start + size for start, size in sections.values())
symbols = []
for line in subprocess.run(["nm", "-n", "-S", "--defined-only", binary], capture_output=True, text=True, check=True).stdout.splitlines():
    fields = line.split()
    if len(fields) == 4 and fields[2] in "bBdDrR":
        symbols.append((int(fields[0], 16), int(fields[1], 16), fields[3]))
starts = [start for start, _, _ in symbols]
# A turn's data first (its small objects, then its large), then a `status`'s.
size_of = {name: size for _, size, name in symbols}
order = [(size_of[name] >= 16384, name) for name in turn if name in size_of]
seen = {name for _, name in order}
turns = len(order)
for path in traces:
    for line in open(path, errors="replace"):
        # " S 0abc1234,8", " L …", " M …" (lackey's stores, loads and modifies)
        if len(line) < 4 or line[1] not in "SLM":
            continue
        try:
            address = int(line[3:].split(",", 1)[0], 16)
        except ValueError:
            continue
        if not low <= address < high:
            continue
        index = bisect.bisect_right(starts, address) - 1
        if index < 0:
            continue
        start, size, name = symbols[index]
        if address < start + max(size, 1) and name not in seen:
            seen.add(name)
            order.append((size >= 16384, name))
for _, name in sorted(order[:turns], key=lambda entry: entry[0]) + sorted(order[turns:], key=lambda entry: entry[0]):
    print(name)
PY
mv "$work/hot-functions.txt" Sources/netpath/StaticLink/hot-functions.txt
echo "hot-functions: $functions functions, then $(( $(wc -l < Sources/netpath/StaticLink/hot-functions.txt) - functions )) data symbols"
