#!/usr/bin/env bash
# Builds the Debian package from a release binary and checks it as an operator meets it:
# lintian (no error, no warning that is not overridden with a reason), the files and the
# control fields, then — as root, on a machine where netpath is not installed — installed
# with dpkg: the system user, the enabled socket, the units (systemd-analyze verify), the
# man page (man -l, no warnings), the completions (bash, zsh, fish read them), the
# installed binary, and the exporter's socket handoff run as the unit runs it (the
# installed unit's ExecStart, as its user with its one capability, started by
# systemd-socket-activate as the .socket unit starts it). Removed and purged at the end,
# even on failure; the _netpath user too when it did not exist before.
#
#   scripts/check-deb.sh [BINARY]    (BINARY: a release netpath; default: build one)
#
# Needs dpkg-dev (dpkg-shlibdeps), lintian, systemd (systemd-analyze,
# systemd-socket-activate), man-db, util-linux (setpriv), curl. PID 1 need not be systemd:
# without it the maintainer scripts enable but start nothing, as in a chroot.
set -euo pipefail
cd "$(dirname "$0")/.."
start=$(date +%s)
fail() { echo "check-deb: $*" >&2; exit 1; }

NETPATH_BINARY=${1:-} bash scripts/build-deb.sh
deb=$(ls -t .build/deb/netpath_*.deb | head -1)
version=$(dpkg-deb -f "$deb" Version)

echo "== lintian"
# (As root it says so on stderr: not a finding.)
lintian_status=0
lintian --fail-on error,warning "$deb" 2> >(grep -v 'running with root privileges' >&2) || lintian_status=$?
[ "$lintian_status" -eq 0 ] || fail "lintian reports an error or a warning"
echo "check-deb: lintian: no error, no warning (overrides: Deploy/debian/lintian-overrides)"

echo "== contents and control"
expected="./usr/bin/netpath
./usr/lib/systemd/system/netpath-exporter.service
./usr/lib/systemd/system/netpath-exporter.socket
./usr/lib/systemd/system/netpath-online.service
./usr/lib/sysusers.d/netpath.conf
./usr/share/bash-completion/completions/netpath
./usr/share/doc/netpath/changelog.Debian.gz
./usr/share/doc/netpath/changelog.gz
./usr/share/doc/netpath/copyright
./usr/share/fish/vendor_completions.d/netpath.fish
./usr/share/lintian/overrides/netpath
./usr/share/man/man1/netpath.1.gz
./usr/share/zsh/vendor-completions/_netpath"
listing=$(dpkg-deb -c "$deb")
files=$(awk '$1 !~ /^d/ { print $6 }' <<<"$listing" | sort)
[ "$files" = "$expected" ] || fail "unexpected contents:"$'\n'"$(diff <(echo "$expected") <(echo "$files") || true)"
awk '$2 != "root/root" { bad = 1 } END { exit bad }' <<<"$listing" || fail "a file not owned by root:root"
grep -q '^-rwxr-xr-x .* ./usr/bin/netpath$' <<<"$listing" || fail "/usr/bin/netpath is not 0755"
[[ $(dpkg-deb -f "$deb" Depends) == *"libc6 (>= "* ]] || fail "no versioned libc6 dependency"
[ "$(dpkg-deb -f "$deb" Architecture)" = "$(dpkg --print-architecture)" ] || fail "wrong architecture"
echo "check-deb: $deb: $(dpkg-deb -f "$deb" Package) $version, $(du -k "$deb" | cut -f1) KiB, installed $(dpkg-deb -f "$deb" Installed-Size) KiB; Depends: $(dpkg-deb -f "$deb" Depends)"

[ "$(id -u)" -eq 0 ] || { echo "check-deb: not root: installation not checked"; exit 0; }
if dpkg-query -W -f '${Status}' netpath 2>/dev/null | grep -q installed; then
  fail "netpath is already installed here: not touching it"
fi
user_existed=false
getent passwd _netpath >/dev/null && user_existed=true
activated=
cleanup() {
  [ -n "$activated" ] && kill "$activated" 2>/dev/null && wait "$activated" 2>/dev/null
  dpkg --purge netpath >/dev/null 2>&1 || true
  if ! $user_existed; then
    userdel _netpath 2>/dev/null || true
    groupdel _netpath 2>/dev/null || true
  fi
}
trap cleanup EXIT

echo "== dpkg -i"
dpkg -i "$deb"
[ "$(/usr/bin/netpath --version)" = "netpath ${version%-*}" ] || fail "the installed binary says $(/usr/bin/netpath --version)"
/usr/bin/netpath status >/dev/null || [ $? -eq 1 ] || fail "the installed 'netpath status' failed"
entry=$(getent passwd _netpath) || fail "no _netpath user"
[[ $entry == *:/nonexistent:/usr/sbin/nologin ]] || fail "the _netpath user: $entry"
[ "$(id -u _netpath)" -lt 1000 ] || fail "_netpath is not a system user"
[ -L /etc/systemd/system/sockets.target.wants/netpath-exporter.socket ] || fail "netpath-exporter.socket is not enabled"
[ ! -e /etc/systemd/system/network-online.target.wants/netpath-online.service ] || fail "netpath-online.service was enabled"
systemd-analyze verify /usr/lib/systemd/system/netpath-exporter.socket /usr/lib/systemd/system/netpath-exporter.service \
  /usr/lib/systemd/system/netpath-online.service || fail "systemd-analyze verify"
warnings=$(MANWIDTH=80 man --warnings -l /usr/share/man/man1/netpath.1.gz 2>&1 >/dev/null)
[ -z "$warnings" ] || fail "man: $warnings"
man -l /usr/share/man/man1/netpath.1.gz 2>/dev/null | grep -q -- '--systemd-socket' || fail "the man page lacks --systemd-socket"
bash -c 'source /usr/share/bash-completion/completions/netpath && complete -p netpath' >/dev/null || fail "bash cannot load the completion"
if command -v zsh >/dev/null; then zsh -n /usr/share/zsh/vendor-completions/_netpath || fail "zsh cannot read _netpath"; fi
if command -v fish >/dev/null; then fish -n /usr/share/fish/vendor_completions.d/netpath.fish || fail "fish cannot read netpath.fish"; fi

echo "== the socket handoff, as netpath-exporter.socket and .service make it"
unit=/usr/lib/systemd/system/netpath-exporter.service
exec_start=$(sed -n 's/^ExecStart=//p' "$unit")
listen=$(sed -n 's/^ListenStream=//p' /usr/lib/systemd/system/netpath-exporter.socket)
user=$(sed -n 's/^User=//p' "$unit")
caps=$(sed -n 's/^AmbientCapabilities=//p' "$unit" | tr 'A-Z' 'a-z' | sed 's/cap_/+/g; s/ /,/g')
# The unit's host, on a free port: a netpath on 9737 elsewhere on this machine stays.
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
address=${listen%:*}:$port
log=$(mktemp)
# shellcheck disable=SC2086  # ExecStart's words, as systemd splits them
systemd-socket-activate -l "$address" setpriv --reuid="$user" --regid="$user" --clear-groups \
  --inh-caps=-all,"$caps" --ambient-caps=-all,"$caps" --bounding-set=-all,"$caps" $exec_start >"$log" 2>&1 &
activated=$!
for _ in $(seq 100); do grep -q "Listening on $address" "$log" && break; sleep 0.1; done
metrics=$(curl -sS --max-time 15 "http://$address/metrics") || fail "no answer on $address: $(cat "$log")"
grep -q '^netpath_path_status{netns="",status="satisfied"}' <<<"$metrics" || fail "the scrape has no netpath_path_status"
# The ready line follows the servers' start, so the first scrape can be answered before it
# is written: wait for it (at most 10 s) rather than read the log once.
for _ in $(seq 100); do grep -q "netpath: serving http://$address/metrics" "$log" && break; sleep 0.1; done
grep -q "netpath: serving http://$address/metrics" "$log" || fail "no ready line: $(cat "$log")"
uid=$(awk '/^Uid:/ { print $2 }' "/proc/$activated/status")
[ "$uid" = "$(id -u "$user")" ] || fail "serve runs as uid $uid, not $user"
capabilities=$(awk '/^CapEff:/ { print $2 }' "/proc/$activated/status")
[ "$capabilities" = "0000000000200000" ] || fail "serve's effective capabilities are $capabilities, not CAP_SYS_ADMIN alone"
kill "$activated" && wait "$activated" || true
activated=
echo "check-deb: $exec_start on $address (systemd-socket-activate, as $user with $caps): scraped"

echo "== netpath-online.service's command, as its user with no capability"
online=/usr/lib/systemd/system/netpath-online.service
# shellcheck disable=SC2046  # ExecStart's words, as systemd splits them
if /usr/bin/netpath status >/dev/null; then
  setpriv --reuid="$(sed -n 's/^User=//p' "$online")" --regid="$(sed -n 's/^Group=//p' "$online")" --clear-groups \
    --inh-caps=-all --bounding-set=-all $(sed -n 's/^ExecStart=//p' "$online") || fail "netpath-online's command failed on a satisfied path"
  echo "check-deb: $(sed -n 's/^ExecStart=//p' "$online"): exit 0 (the path here is satisfied)"
else
  echo "check-deb: the path here is not satisfied: netpath-online's command not run"
fi

echo "== dpkg -r, dpkg --purge"
dpkg -r netpath >/dev/null
[ ! -e /usr/bin/netpath ] && [ ! -e /usr/lib/systemd/system/netpath-exporter.socket ] || fail "files left after dpkg -r"
dpkg --purge netpath >/dev/null
[ ! -e /etc/systemd/system/sockets.target.wants/netpath-exporter.socket ] || fail "the socket's enablement left after purge"
echo "check-deb: passed in $(( $(date +%s) - start )) s"
