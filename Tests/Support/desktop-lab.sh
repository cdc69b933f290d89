#!/usr/bin/env bash
# A real NetworkManager (and a Flatpak-portal stand-in) in test namespaces, for NetPath's
# desktop-integration tests. Recipe: shared/labs/desktop.md. Usable by hand. Root only.
#
# Packages (Debian 12): network-manager udev dbus-daemon dnsmasq-base iproute2 util-linux
#                       python3-gi gir1.2-glib-2.0 (helpers run with /usr/bin/python3)
#   DEBIAN_FRONTEND=noninteractive apt-get install -y network-manager udev dbus-daemon \
#       dnsmasq-base iproute2 python3-gi gir1.2-glib-2.0
#   On a host where systemd runs: systemctl disable --now NetworkManager (the lab's NM is its own).
#
#   desktop-lab.sh up NAME [--metered yes|no|guess] [--check full|portal|limited|disabled] [--second-uplink]
#   desktop-lab.sh down NAME                       stop everything, delete namespaces and /tmp/NAME (idempotent)
#   desktop-lab.sh metered NAME yes|no|guess|guess-no|unknown   change it at run time, wait for Device.Metered
#   desktop-lab.sh check NAME full|portal|limited|disabled      change the check answer, wait for Connectivity
#   desktop-lab.sh stop-nm NAME | start-nm NAME | restart-nm NAME [--metered yes|no|guess|guess-no|unknown]
#   desktop-lab.sh prop NAME device-metered|connectivity|primary|primary-path|state|check-enabled [DEVICE]
#   desktop-lab.sh exec NAME CMD...                run CMD (exec, same PID) in the lab with its system bus
#   desktop-lab.sh stalled-bus NAME | dead-bus NAME   a bus that accepts and never answers / nothing listens
#   desktop-lab.sh portal-up NAME [--available B] [--metered B] [--connectivity 1-4]   portal stand-in
#   desktop-lab.sh portal-set NAME available|metered|connectivity VALUE
#   desktop-lab.sh up-networkd NAME                systemd-networkd 254 instead of NM (RFC 8910 portal)
#   desktop-lab.sh logind-up NAME                  python3-dbusmock's logind template on the lab's system bus
#   desktop-lab.sh sleep NAME true|false           logind emits PrepareForSleep(true|false) (suspend, resume)
#
# up prints key=value lines (anchor=, bus=, host_ns=, peer_ns=, device=, ifindex=, address=, and
# device2=, ifindex2=, peer2_ns= with --second-uplink; then state=, connectivity=, metered= as seen),
# then "ready". Other commands print the values they waited for, or one value (prop).
#
#   NAME-h  "host": eth0 (veth, DHCP 10.201.0.100-150 from the peer), eth1 with --second-uplink
#           (10.203.0.100-150). The anchor (a sleep) holds a private mount namespace in NAME-h with
#           a tmpfs on /run and binds of /tmp/NAME files on /var/lib/NetworkManager,
#           /etc/resolv.conf and udev's rules directory (only the net rules NM needs), so neither the
#           host's files nor its /dev are touched. udevd and NetworkManager run in it.
#   NAME-p  peer: p0 10.201.0.1/24, dnsmasq (DHCP + DNS: every name is 10.201.0.1), probe_server.py
#           on port 80 (answers NM's http://nmcheck.gnome.org/check_network_status.txt).
#   NAME-q  second peer (--second-uplink): q0 10.203.0.1/24 and the service address 10.201.0.1/32
#           (so DNS and NM's check bound to eth1 work when eth0 is down), dnsmasq without option 43
#           (eth1: profile lab2, metered unknown: Metered 4), a check server. eth1's profile has
#           route metric 200, eth0's 100: eth0's connection is primary until it goes down
#           (desktop-lab.sh exec NAME nmcli con down lab: primary eth1, NM's Metered follows it).
#   /tmp/NAME  bus socket (bus), NM config, keyfiles (nm-conns), logs (*.log), pid files.
#
#   up-networkd: the same pair on 10.202.0.0/24, dnsmasq sending DHCP option 114
#   (http://10.202.0.1/portal), systemd-networkd 254 (bookworm-backports: systemd and
#   libsystemd-shared fetched once with apt-get download and private lists, unpacked with
#   dpkg-deb -x under $DESKTOP_LAB_CACHE, default /var/cache/netpath-desktop-lab) and udevd in
#   the anchor. Prints anchor=, bus=, host_ns=, peer_ns=, device=, ifindex=, address=, links_file=
#   (the path inside the anchor), links_file_host= (the same file from outside), captive_portal=
#   (its CAPTIVE_PORTAL= value), then "ready". "down NAME" removes it like the NM lab.
#
#   NM's Metered: 1 yes, 2 no, 3 guess-yes (profile unknown + DHCP option 43 ANDROID_METERED),
#   4 guess-no (profile unknown, no option 43). Connectivity: 2 portal, 3 limited, 4 full.
#   Check modes: full = the expected body; portal = a 302 to http://portal.test/login; limited =
#   the check server stopped (connection refused); disabled = ConnectivityCheckEnabled false
#   (NM then says full, unchecked). GLib numbers connectivity otherwise: 1 local, 2 limited,
#   3 portal, 4 full (NM's portal 2 is GLib's 3, NM's limited 3 is GLib's 2).
#   stalled-bus: a Unix socket that accepts and never answers (not even the auth handshake);
#   dead-bus: a socket file nobody listens on (connect: ECONNREFUSED). Both print bus=unix:path=...
#   portal-up: a private session bus (session_bus=unix:path=/tmp/NAME/session-bus) with
#   desktop-lab-portal.py owning org.freedesktop.portal.Desktop (NetworkMonitor version 3); its
#   connectivity uses GLib's numbers. A client sees it with DBUS_SESSION_BUS_ADDRESS=that,
#   GTK_USE_PORTAL=1 and DBUS_SYSTEM_BUS_ADDRESS= (empty). portal-set emits "changed".
#   Killed daemons may stay as zombies where PID 1 does not reap orphans (harmless).
#
# Exit status: 0; 1 a step failed (named on stderr; after a failed up everything is removed);
# 2 usage; 3 a program is missing.
set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
HERE=$(dirname "$SELF")
SERVER_SCRIPT="$HERE/probe_server.py"
PORTAL_SCRIPT="$HERE/desktop-lab-portal.py"
SYSPY=/usr/bin/python3   # has gi; pyenv's python3 may not
NM_BUS=org.freedesktop.NetworkManager
NM_PATH=/org/freedesktop/NetworkManager
WAIT=${DESKTOP_LAB_WAIT:-30}         # seconds a step may take
LIFETIME=${DESKTOP_LAB_LIFETIME:-21600}   # the anchor (and so the lab's mounts) ends after this
CHECK_URI=http://nmcheck.gnome.org/check_network_status.txt

die() { echo "desktop-lab: $*" >&2; exit 1; }
usage() {
  echo "usage:" >&2
  sed -n '11,21p' "$SELF" | sed 's/^#  //' >&2
  exit 2
}
export PATH="$PATH:/usr/sbin:/sbin"

have() {
  local dir IFS=:
  for dir in $PATH; do
    if [ -f "$dir/$1" ] && [ -x "$dir/$1" ]; then return 0; fi
  done
  return 1
}
need_programs() {
  local program package
  for program in "$@"; do
    case $program in
      NetworkManager|nmcli) package=network-manager ;; dbus-daemon) package=dbus-daemon ;;
      dnsmasq) package=dnsmasq-base ;; udevadm) package=udev ;; busctl) package=systemd ;;
      ip|ss) package=iproute2 ;; nsenter|unshare) package=util-linux ;; *) package=$program ;;
    esac
    if ! have "$program"; then
      echo "desktop-lab: $program is not installed (apt-get install $package)" >&2
      exit 3
    fi
  done
}
need_gi() {
  [ -x "$SYSPY" ] && "$SYSPY" -c 'from gi.repository import Gio' 2>/dev/null ||
    { echo "desktop-lab: $SYSPY cannot import gi (apt-get install python3-gi gir1.2-glib-2.0)" >&2; exit 3; }
}
UDEVD=/lib/systemd/systemd-udevd

set_names() {
  if ! [[ ${1:-} =~ ^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$ ]]; then
    echo "desktop-lab: bad lab name '${1:-}' (letters, digits, _ . -; at most 40)" >&2
    exit 2
  fi
  NAME=$1
  NS_H=$NAME-h NS_P=$NAME-p NS_Q=$NAME-q
  DIR=/tmp/$NAME
  BUS=unix:path=$DIR/bus
  SBUS=unix:path=$DIR/session-bus
  MARK=$DIR/.netpath-desktop-lab
}

# --- processes -----------------------------------------------------------------------------
# A pid file holds "PID STARTTIME": a recycled pid is never taken for a lab daemon.
start_time() { local s; s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1; s=${s##*) }; set -- $s; echo "${20}"; }
alive() { [ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
lab_pid() { # label
  local pid st
  [ -f "$DIR/$1.pid" ] || return 1
  read -r pid st <"$DIR/$1.pid" || return 1
  [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" && [ "$(start_time "$pid")" = "$st" ] || return 1
  echo "$pid"
}
# Starts a daemon detached from us (own session, output in DIR/LABEL.log, none of our
# descriptors, input /dev/null or INPUT); "$@" execs all the way, so the pid is the daemon's.
start_daemon() { # label command...
  local label=$1 pid
  shift
  (
    for fd in /proc/$BASHPID/fd/*; do
      fd=${fd##*/}
      if [[ $fd =~ ^[0-9]+$ ]] && (( fd > 2 )); then eval "exec $fd>&-"; fi
    done
    exec setsid "$@" 0<>"${INPUT:-/dev/null}" >>"$DIR/$label.log" 2>&1
  ) &
  pid=$!
  echo "$pid $(start_time "$pid")" >"$DIR/$label.pid"
}
kill_wait() { # pid...: TERM, 3 s, KILL
  local pid left i
  for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
  for i in $(seq 150); do
    left=
    for pid in "$@"; do if alive "$pid"; then left=1; fi; done
    [ -n "$left" ] || return 0
    sleep 0.02
  done
  for pid in "$@"; do if alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi; done
  for i in $(seq 100); do
    left=
    for pid in "$@"; do if alive "$pid"; then left=1; fi; done
    [ -n "$left" ] || return 0
    sleep 0.02
  done
}
stop_daemon() { # label
  local pid
  if pid=$(lab_pid "$1"); then kill_wait "$pid"; fi
  rm -f "$DIR/$1.pid"
}
log_tail() {
  if [ -s "$DIR/$1.log" ]; then echo "--- $1 log (last lines):" >&2; tail -n 15 "$DIR/$1.log" >&2; fi
}

now_ms() { local t=${EPOCHREALTIME//[.,]/}; echo $(( t / 1000 )); }
DAEMONS="bus anchor udevd nm networkd dnsmasq server dnsmasq2 server2"
# Runs "$@" until it succeeds (output then in LAST), for at most SECONDS (default WAIT);
# fails at once when one of the lab's started daemons has exited.
LAST=
wait_step() { # seconds description command...
  local seconds=$1 what=$2 deadline label output=
  shift 2
  deadline=$(( $(now_ms) + seconds * 1000 ))
  while true; do
    if output=$("$@" 2>&1); then LAST=$output; return 0; fi
    for label in $DAEMONS; do
      if [ -f "$DIR/$label.pid" ] && ! lab_pid "$label" >/dev/null; then
        echo "desktop-lab: $NAME: $label exited (while waiting for $what)" >&2
        log_tail "$label"
        return 1
      fi
    done
    if (( $(now_ms) >= deadline )); then
      echo "desktop-lab: $NAME: $what: not within $seconds s: $output" >&2
      log_tail nm
      return 1
    fi
    sleep 0.1
  done
}

# --- D-Bus ---------------------------------------------------------------------------------
bctl() { busctl --address="$BUS" --timeout="${BCTL_TIMEOUT:-3}" "$@"; }
value() { local v; v=$("$@") || return 1; v=${v#* }; v=${v#\"}; echo "${v%\"}"; }   # "u 4" -> 4, 'o "/x"' -> /x
nm_get() { value bctl get-property "$NM_BUS" "$1" "$2" "$3"; }
nm_prop() { nm_get "$NM_PATH" "$NM_BUS" "$1"; }
device_path() { value bctl call "$NM_BUS" "$NM_PATH" "$NM_BUS" GetDeviceByIpIface s "${1:-eth0}"; }
device_prop() { local d; d=$(device_path "$1") && nm_get "$d" "$NM_BUS.Device" "$2"; }
nmcli_lab() { DBUS_SYSTEM_BUS_ADDRESS=$BUS nmcli "$@"; }
primary_iface() {
  local c devs
  c=$(nm_prop PrimaryConnection) || return 1
  if [ "$c" = / ]; then echo none; return 0; fi
  devs=$(bctl get-property "$NM_BUS" "$c" "$NM_BUS.Connection.Active" Devices) || return 1
  set -- $devs   # ao 1 "/org/.../Devices/2"
  [ "${2:-0}" != 0 ] || { echo none; return 0; }
  value bctl get-property "$NM_BUS" "${3//\"/}" "$NM_BUS.Device" Interface
}
expect() { # description wanted command...: succeeds when the command prints wanted
  local want=$1 got
  shift
  got=$("$@") || return 1
  [ "$got" = "$want" ] || { echo "is $got, not $want"; return 1; }
}
metered_number() { # profile-metered dhcp-option43 -> what NM's Device.Metered should be
  case $1 in yes) echo 1 ;; no) echo 2 ;; *) if [ "$2" = yes ]; then echo 3; else echo 4; fi ;; esac
}
connectivity_number() { case $1 in full|disabled) echo 4 ;; portal) echo 2 ;; limited) echo 3 ;; esac; }

# --- configuration -------------------------------------------------------------------------
write_bus_config() { # file listen-address type
  cat >"$1" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<!-- NetPath desktop lab $NAME: a private bus, everything allowed, no activation. -->
<busconfig>
  <type>$3</type>
  <listen>$2</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_destination="*" eavesdrop="true"/>
    <allow receive_sender="*"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
EOF
}
write_nm_config() { # check-mode
  local enabled=true
  [ "$1" != disabled ] || enabled=false
  cat >"$DIR/nm.conf" <<EOF
# NetPath desktop lab $NAME (desktop-lab.sh)
[main]
plugins=keyfile
no-auto-default=*
dhcp=internal
dns=none
rc-manager=unmanaged
hostname-mode=none
auth-polkit=false

[keyfile]
path=$DIR/nm-conns

[logging]
level=INFO

[device-desktop-lab]
match-device=interface-name:eth0;interface-name:eth1
managed=1

[connectivity]
enabled=$enabled
uri=$CHECK_URI
response=NetworkManager is online
interval=300
EOF
}
uuid() { cat /proc/sys/kernel/random/uuid; }
write_profile() { # id iface metered(yes|no|unknown) route-metric
  local file=$DIR/nm-conns/$1.nmconnection metered=
  case $3 in yes) metered=1 ;; no) metered=2 ;; *) metered=0 ;; esac
  local id=$(uuid)
  if [ -f "$file" ]; then id=$(sed -n 's/^uuid=//p' "$file"); fi
  (umask 077; cat >"$file.tmp" <<EOF
[connection]
id=$1
uuid=$id
type=ethernet
interface-name=$2
autoconnect=true
metered=$metered

[ethernet]

[ipv4]
method=auto
route-metric=$4

[ipv6]
method=disabled
addr-gen-mode=stable-privacy

[proxy]
EOF
  )
  mv "$DIR/nm-conns/$1.nmconnection.tmp" "$file"
}

# --- the peers -----------------------------------------------------------------------------
peer_net() { case $1 in 1) echo 10.201.0 ;; 2) echo 10.203.0 ;; esac; }
peer_ns() { case $1 in 1) echo "$NS_P" ;; 2) echo "$NS_Q" ;; esac; }
peer_if() { case $1 in 1) echo p0 ;; 2) echo q0 ;; esac; }
suffix() { [ "$1" = 1 ] || echo "$1"; }
start_dnsmasq() { # peer(1|2)
  local n=$1 net ns option=() leases
  net=$(peer_net "$n") ns=$(peer_ns "$n")
  # Only the first uplink's peer: eth1's profile (metered unknown) stays guess-no (4).
  if [ "$n" = 1 ] && [ "$(cat "$DIR/option43")" = yes ]; then option=(--dhcp-option-force=43,ANDROID_METERED); fi
  leases=$DIR/dnsmasq$(suffix "$n").leases
  : >"$leases"
  start_daemon "dnsmasq$(suffix "$n")" ip netns exec "$ns" dnsmasq -k --conf-file=/dev/null \
    --interface="$(peer_if "$n")" --bind-interfaces --no-ping --user=root --group=root \
    --pid-file= --dhcp-leasefile="$leases" --log-facility=- --log-dhcp \
    --dhcp-range="$net.100,$net.150,255.255.255.0,1h" --dhcp-option=3,"$net.1" --dhcp-option=6,10.201.0.1 \
    --address=/#/10.201.0.1 --no-resolv --no-hosts "${option[@]}"
}
dhcp_listening() { # peer
  [ -n "$(ip netns exec "$(peer_ns "$1")" ss -Hlun 'sport = :67')" ] &&
  [ -n "$(ip netns exec "$(peer_ns "$1")" ss -Hlun 'sport = :53')" ]
}
start_server() { # peer
  local n=$1 fifo=$DIR/server$(suffix "$1").stdin
  [ -p "$fifo" ] || mkfifo "$fifo"
  INPUT=$fifo start_daemon "server$(suffix "$n")" ip netns exec "$(peer_ns "$n")" \
    "$SYSPY" "$SERVER_SCRIPT" --port 80 --bind 10.201.0.1 $([ "$n" = 1 ] || echo --bind "$(peer_net "$n").1") \
    --mode-file "$DIR/mode"
}
# The status an HTTP GET of NM's check URL gets from the peer's server, asked inside the peer.
check_status() { # peer
  local ns address
  ns=$(peer_ns "$1") address=$(peer_net "$1").1
  ip netns exec "$ns" "$SYSPY" - "$address" <<'EOF'
import socket, sys
s = socket.create_connection((sys.argv[1], 80), timeout=1)
s.sendall(b"GET /check_network_status.txt HTTP/1.1\r\nHost: nmcheck.gnome.org\r\nConnection: close\r\n\r\n")
head = s.recv(4096)
print(head.split(b" ")[1].decode() if head.count(b" ") else "none")
EOF
}
peers() { if [ -f "$DIR/second" ]; then echo 1 2; else echo 1; fi; }
# Puts the check servers in MODE: full/portal/disabled run with the mode file; limited stops them.
set_check_servers() { # mode
  local n want
  case $1 in portal) echo portal >"$DIR/mode" ;; *) echo online >"$DIR/mode" ;; esac
  for n in $(peers); do
    if [ "$1" = limited ]; then
      stop_daemon "server$(suffix "$n")"
    else
      lab_pid "server$(suffix "$n")" >/dev/null || start_server "$n"
      want=200; [ "$1" != portal ] || want=302
      wait_step "$WAIT" "the check server in $(peer_ns "$n") answering $want" expect "$want" check_status "$n"
    fi
  done
}

# --- NetworkManager ------------------------------------------------------------------------
anchor_pid() { lab_pid anchor || die "$NAME: no anchor (is the lab up? desktop-lab.sh up $NAME)"; }
in_anchor() { nsenter -t "$ANCHOR" -m -n "$@"; }
start_nm() {
  start_daemon nm nsenter -t "$ANCHOR" -m -n env DBUS_SYSTEM_BUS_ADDRESS="$BUS" \
    NetworkManager --no-daemon --debug --config="$DIR/nm.conf" \
    --config-dir="$DIR/empty" --system-config-dir="$DIR/empty"
}
# Waits until NM is on the bus with every lab device activated, State at least 60, Connectivity
# and eth0's Metered as wanted. Asks NM to check again (CheckConnectivity) while it differs.
# A device NetworkManager still calls unmanaged (10) has not been seen initialised by udev (a
# loaded machine: the add event came before NM listened): udev announces the links again.
device_activated() {
  local state
  state=$(device_prop "$1" State) || return 1
  if [ "$state" = 10 ]; then in_anchor udevadm trigger --subsystem-match=net --action=add >/dev/null 2>&1 || true; fi
  [ "$state" = 100 ] || { echo "is $state, not 100"; return 1; }
}
connectivity_is() { # want
  local got
  got=$(nm_prop Connectivity) || return 1
  if [ "$got" != "$1" ]; then
    BCTL_TIMEOUT=25 bctl call "$NM_BUS" "$NM_PATH" "$NM_BUS" CheckConnectivity >/dev/null 2>&1 || true
    got=$(nm_prop Connectivity) || return 1
  fi
  [ "$got" = "$1" ] || { echo "Connectivity is $got, not $1"; return 1; }
}
state_settled() { local s; s=$(nm_prop State) || return 1; (( s >= 60 )) || { echo "State is $s"; return 1; }; }
wait_nm() { # connectivity metered
  wait_step "$WAIT" "NetworkManager on the bus" nm_prop Version
  local dev
  for dev in $(devices); do wait_step "$WAIT" "$dev activated (Device.State 100)" device_activated "$dev"; done
  wait_step "$WAIT" "eth0's Metered $2" expect "$2" device_prop eth0 Metered
  wait_step "$WAIT" "Connectivity $1" connectivity_is "$1"
  wait_step "$WAIT" "State 60 or more" state_settled
}
devices() { if [ -f "$DIR/second" ]; then echo eth0 eth1; else echo eth0; fi; }
report() {
  echo "state=$(nm_prop State)"
  echo "connectivity=$(nm_prop Connectivity)"
  echo "metered=$(device_prop eth0 Metered)"
  if [ -f "$DIR/second" ]; then echo "metered2=$(device_prop eth1 Metered)"; fi
  echo "primary=$(primary_iface)"
}
wanted_connectivity() {
  if [ "$(nm_prop ConnectivityCheckEnabled 2>/dev/null || echo true)" = false ]; then echo 4; else connectivity_number "$(cat "$DIR/check")"; fi
}

# --- commands ------------------------------------------------------------------------------
down_lab() {
  local label pids ns
  for label in portal session-bus stalled nm networkd udevd logind; do stop_daemon "$label"; done
  # Whatever else runs in the lab's namespaces (the anchor, exec'd commands, dnsmasq, servers).
  for ns in "$NS_H" "$NS_P" "$NS_Q"; do
    if [ -e "/run/netns/$ns" ]; then
      pids=$(ip netns pids "$ns" 2>/dev/null || true)
      # shellcheck disable=SC2086
      [ -z "$pids" ] || kill_wait $pids
    fi
  done
  for label in anchor dnsmasq server dnsmasq2 server2 bus; do stop_daemon "$label"; done
  for ns in "$NS_H" "$NS_P" "$NS_Q"; do
    if [ -e "/run/netns/$ns" ]; then ip netns del "$ns" 2>/dev/null || true; fi
  done
  if [ -d "$DIR" ]; then
    if [ -f "$MARK" ]; then rm -rf "$DIR"; else echo "desktop-lab: $DIR is not a lab's; left alone" >&2; fi
  fi
}

make_dir() {
  if [ -e "$DIR" ]; then
    [ -f "$MARK" ] || die "$DIR exists and is not a desktop lab's"
    return 0
  fi
  mkdir -m 755 "$DIR"
  : >"$MARK"
}

cmd_up() {
  [ $# -ge 1 ] || usage
  set_names "$1"
  shift
  local metered=unknown option43=no check=full second=no
  while [ $# -gt 0 ]; do
    case $1 in
      --metered) [ $# -ge 2 ] || usage
        case $2 in yes|no) metered=$2 ;; guess|guess-yes) option43=yes ;; guess-no|unknown) ;; *) usage ;; esac
        shift 2 ;;
      --check) [ $# -ge 2 ] || usage
        case $2 in full|portal|limited|disabled) check=$2 ;; *) usage ;; esac
        shift 2 ;;
      --second-uplink) second=yes; shift ;;
      *) usage ;;
    esac
  done
  need_programs ip ss dnsmasq dbus-daemon busctl NetworkManager nmcli udevadm nsenter unshare setsid
  [ -x "$UDEVD" ] || { echo "desktop-lab: no $UDEVD (apt-get install udev)" >&2; exit 3; }
  [ -x "$SYSPY" ] || { echo "desktop-lab: no $SYSPY (apt-get install python3)" >&2; exit 3; }
  [ -f "$SERVER_SCRIPT" ] || die "no $SERVER_SCRIPT"
  local ns
  for ns in "$NS_H" "$NS_P" "$NS_Q"; do
    [ ! -e "/run/netns/$ns" ] || die "up $NAME: the namespace $ns exists already (desktop-lab.sh down $NAME)"
  done
  [ ! -e "$DIR/bus.pid" ] && [ ! -e "$DIR/anchor.pid" ] || die "up $NAME: the lab is up already (desktop-lab.sh down $NAME)"
  [ ! -e "$DIR" ] || [ -f "$MARK" ] || die "up $NAME: $DIR exists and is not a desktop lab's"

  STEP=start
  trap 'status=$?; if [ $status -ne 0 ]; then echo "desktop-lab: up $NAME failed (step: $STEP)" >&2; down_lab; fi; exit $status' EXIT
  make_dir
  mkdir -p -m 700 "$DIR/nm-conns" "$DIR/nm-varlib"
  mkdir -p "$DIR/empty" "$DIR/udev-rules" "$DIR/udev-etc"
  echo "$option43" >"$DIR/option43"
  echo "$check" >"$DIR/check"
  [ "$second" = no ] || : >"$DIR/second"

  STEP="the private system bus"
  write_bus_config "$DIR/bus.conf" "$BUS" system
  start_daemon bus dbus-daemon --nofork --nopidfile --nosyslog --config-file="$DIR/bus.conf"

  STEP="namespaces and links"
  for ns in "$NS_H" "$NS_P"; do ip netns add "$ns"; ip -n "$ns" link set lo up; done
  ip -n "$NS_H" link add eth0 type veth peer name p0 netns "$NS_P"
  ip -n "$NS_P" addr add 10.201.0.1/24 dev p0
  ip -n "$NS_P" link set p0 up
  if [ "$second" = yes ]; then
    ip netns add "$NS_Q"; ip -n "$NS_Q" link set lo up
    ip -n "$NS_H" link add eth1 type veth peer name q0 netns "$NS_Q"
    ip -n "$NS_Q" addr add 10.203.0.1/24 dev q0
    # The service address too: the one name server in resolv.conf (10.201.0.1) and the address
    # every name resolves to answer through eth1 as well, when eth0 is down, and for NM's
    # check bound to eth1 (routed via 10.203.0.1).
    ip -n "$NS_Q" addr add 10.201.0.1/32 dev q0
    ip -n "$NS_Q" link set q0 up
  fi

  STEP="dnsmasq and the check server"
  local n
  for n in $(peers); do start_dnsmasq "$n"; done
  echo online >"$DIR/mode"
  if [ "$check" != limited ]; then for n in $(peers); do start_server "$n"; done; fi

  STEP="the anchor"
  write_nm_config "$check"
  local rule
  for rule in 80-net-setup-link.rules 85-nm-unmanaged.rules; do
    [ ! -f "/usr/lib/udev/rules.d/$rule" ] || cp "/usr/lib/udev/rules.d/$rule" "$DIR/udev-rules/"
  done
  echo "nameserver 10.201.0.1" >"$DIR/resolv.conf"
  local binds="mount --bind $DIR/nm-varlib /var/lib/NetworkManager; mount --bind $DIR/resolv.conf /etc/resolv.conf;
    mount --bind $DIR/udev-rules /usr/lib/udev/rules.d; if [ -d /etc/udev/rules.d ]; then mount --bind $DIR/udev-etc /etc/udev/rules.d; fi"
  [ -d /var/lib/NetworkManager ] || die "no /var/lib/NetworkManager (is network-manager installed?)"
  start_daemon anchor ip netns exec "$NS_H" unshare -m --propagation private bash -ec "
    mount -t tmpfs -o mode=755 desktop-lab-$NAME /run
    mkdir -p /run/udev /run/NetworkManager
    $binds
    : >$DIR/anchor.ready
    exec -a 'desktop-lab-anchor $DIR/' sleep $LIFETIME"
  wait_step "$WAIT" "the anchor's mounts" test -f "$DIR/anchor.ready"
  ANCHOR=$(lab_pid anchor)

  STEP="udevd"
  start_daemon udevd nsenter -t "$ANCHOR" -m -n "$UDEVD"
  wait_step "$WAIT" "udevd's control socket" in_anchor test -S /run/udev/control
  in_anchor udevadm trigger --subsystem-match=net --action=add
  in_anchor udevadm settle --timeout="$WAIT"

  STEP="the private bus answering"
  wait_step "$WAIT" "the bus at $BUS" bctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetId

  STEP="the check server"
  if [ "$check" != limited ]; then
    for n in $(peers); do
      wait_step "$WAIT" "the check server in $(peer_ns "$n")" expect 200 check_status "$n"
    done
  fi
  echo "$check" >"$DIR/check"
  [ "$check" != portal ] || echo portal >"$DIR/mode"
  for n in $(peers); do wait_step "$WAIT" "dnsmasq in $(peer_ns "$n")" dhcp_listening "$n"; done

  STEP="NetworkManager"
  write_profile lab eth0 "$metered" 100
  [ "$second" = no ] || write_profile lab2 eth1 unknown 200
  start_nm
  wait_nm "$(connectivity_number "$check")" "$(metered_number "$metered" "$option43")"

  STEP="done"
  trap - EXIT
  local ifindex
  echo "anchor=$ANCHOR"
  echo "bus=$BUS"
  echo "host_ns=$NS_H"
  echo "peer_ns=$NS_P"
  echo "device=eth0"
  echo "ifindex=$(cat "/proc/$ANCHOR/root/sys/class/net/eth0/ifindex" 2>/dev/null || in_anchor cat /sys/class/net/eth0/ifindex)"
  echo "address=$(ip -n "$NS_H" -4 -o addr show dev eth0 | awk '{print $4; exit}')"
  if [ "$second" = yes ]; then
    echo "peer2_ns=$NS_Q"
    echo "device2=eth1"
    echo "ifindex2=$(in_anchor cat /sys/class/net/eth1/ifindex)"
    echo "address2=$(ip -n "$NS_H" -4 -o addr show dev eth1 | awk '{print $4; exit}')"
  fi
  report
  echo "ready"
}

cmd_down() {
  [ $# -eq 1 ] || usage
  set_names "$1"
  down_lab
}

# Profile change for "metered" and "restart-nm --metered": yes/no/unknown on the profile;
# guess(-yes)/guess-no also switch the peers' DHCP option 43 (and restart dnsmasq).
apply_metered_files() { # value; sets PROFILE_METERED and whether DHCP must be renewed
  RENEW=no
  case $1 in
    yes|no) PROFILE_METERED=$1 ;;
    unknown) PROFILE_METERED=unknown ;;
    guess|guess-yes|guess-no)
      PROFILE_METERED=unknown
      local want=yes
      [ "$1" != guess-no ] || want=no
      if [ "$(cat "$DIR/option43")" != "$want" ]; then
        echo "$want" >"$DIR/option43"
        stop_daemon dnsmasq
        start_dnsmasq 1
        wait_step "$WAIT" "dnsmasq in $NS_P" dhcp_listening 1
        RENEW=yes
      fi ;;
    *) usage ;;
  esac
}

cmd_metered() {
  [ $# -eq 2 ] || usage
  set_names "$1"
  ANCHOR=$(anchor_pid)
  apply_metered_files "$2"
  local nmvalue=$PROFILE_METERED want
  want=$(metered_number "$PROFILE_METERED" "$(cat "$DIR/option43")")
  nmcli_lab con modify lab connection.metered "$nmvalue"
  if [ "$RENEW" = yes ] || [ "$PROFILE_METERED" = unknown ]; then
    # A new lease (with or without option 43) is what NM's guess comes from.
    nmcli_lab --wait "$WAIT" con up lab >/dev/null
  elif ! wait_step 3 "eth0's Metered $want" expect "$want" device_prop eth0 Metered 2>/dev/null; then
    nmcli_lab device reapply eth0 >/dev/null
  fi
  wait_step "$WAIT" "eth0's Metered $want" expect "$want" device_prop eth0 Metered
  wait_step "$WAIT" "eth0 activated" device_activated eth0
  wait_step "$WAIT" "Connectivity as before" connectivity_is "$(wanted_connectivity)"
  echo "metered=$(device_prop eth0 Metered)"
}

cmd_check() {
  [ $# -eq 2 ] || usage
  set_names "$1"
  ANCHOR=$(anchor_pid)
  case $2 in full|portal|limited|disabled) ;; *) usage ;; esac
  local want
  want=$(connectivity_number "$2")
  set_check_servers "$2"
  echo "$2" >"$DIR/check"
  if [ "$2" = disabled ]; then
    bctl set-property "$NM_BUS" "$NM_PATH" "$NM_BUS" ConnectivityCheckEnabled b false
  else
    bctl set-property "$NM_BUS" "$NM_PATH" "$NM_BUS" ConnectivityCheckEnabled b true
  fi
  wait_step "$WAIT" "Connectivity $want" connectivity_is "$want"
  echo "connectivity=$(nm_prop Connectivity)"
  echo "state=$(nm_prop State)"
}

cmd_stop_nm() {
  [ $# -eq 1 ] || usage
  set_names "$1"
  anchor_pid >/dev/null
  stop_daemon nm
  wait_step "$WAIT" "NetworkManager off the bus" \
    bash -c "! busctl --address='$BUS' --timeout=1 status $NM_BUS >/dev/null 2>&1"
}

cmd_start_nm() { # name [--metered X]
  [ $# -eq 1 ] || [ $# -eq 3 ] || usage
  set_names "$1"
  ANCHOR=$(anchor_pid)
  ! lab_pid nm >/dev/null || die "start-nm $NAME: NetworkManager runs already"
  local metered
  metered=$(sed -n 's/^metered=//p' "$DIR/nm-conns/lab.nmconnection")
  case $metered in 1) metered=yes ;; 2) metered=no ;; *) metered=unknown ;; esac
  if [ $# -eq 3 ]; then
    [ "$2" = --metered ] || usage
    apply_metered_files "$3"
    metered=$PROFILE_METERED
    write_profile lab eth0 "$metered" 100
  fi
  start_nm
  wait_nm "$(wanted_connectivity_file)" "$(metered_number "$metered" "$(cat "$DIR/option43")")"
  report
}
# Before NM is on the bus its ConnectivityCheckEnabled cannot be asked: the lab's own record.
wanted_connectivity_file() { connectivity_number "$(cat "$DIR/check")"; }

cmd_restart_nm() {
  [ $# -eq 1 ] || [ $# -eq 3 ] || usage
  cmd_stop_nm "$1"
  cmd_start_nm "$@"
}

cmd_prop() {
  [ $# -ge 2 ] && [ $# -le 3 ] || usage
  set_names "$1"
  case $2 in
    device-metered) device_prop "${3:-eth0}" Metered ;;
    device-state) device_prop "${3:-eth0}" State ;;
    connectivity) nm_prop Connectivity ;;
    state) nm_prop State ;;
    check-enabled) nm_prop ConnectivityCheckEnabled ;;
    primary) primary_iface ;;
    primary-path) nm_prop PrimaryConnection ;;
    *) usage ;;
  esac
}

cmd_exec() {
  [ $# -ge 2 ] || usage
  set_names "$1"
  shift
  ANCHOR=$(anchor_pid)
  exec nsenter -t "$ANCHOR" -m -n env DBUS_SYSTEM_BUS_ADDRESS="$BUS" "$@"
}

cmd_stalled_bus() {
  [ $# -eq 1 ] || usage
  set_names "$1"
  make_dir
  stop_daemon stalled
  rm -f "$DIR/stalled-bus"
  start_daemon stalled "$SYSPY" -c '
import socket, sys, os
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.bind(sys.argv[1]); s.listen(64)
print("ready", flush=True)
held = []
while True:
    c, _ = s.accept()
    held.append(c)   # accepted, never read, never answered
' "$DIR/stalled-bus"
  wait_step "$WAIT" "the stalled bus" test -S "$DIR/stalled-bus"
  echo "bus=unix:path=$DIR/stalled-bus"
}

cmd_dead_bus() {
  [ $# -eq 1 ] || usage
  set_names "$1"
  make_dir
  rm -f "$DIR/dead-bus"
  # A socket file whose listener has gone (as after a crash): connect() is refused.
  "$SYSPY" -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.close()' "$DIR/dead-bus"
  echo "bus=unix:path=$DIR/dead-bus"
}

cmd_portal_up() {
  [ $# -ge 1 ] || usage
  set_names "$1"
  shift
  need_programs dbus-daemon busctl
  need_gi
  local args=()
  while [ $# -gt 0 ]; do
    case $1 in
      --available|--metered|--connectivity) [ $# -ge 2 ] || usage; args+=("$1" "$2"); shift 2 ;;
      *) usage ;;
    esac
  done
  make_dir
  ! lab_pid portal >/dev/null || die "portal-up $NAME: the portal runs already"
  stop_daemon session-bus
  rm -f "$DIR/session-bus"
  write_bus_config "$DIR/session.conf" "$SBUS" session
  start_daemon session-bus dbus-daemon --nofork --nopidfile --nosyslog --config-file="$DIR/session.conf"
  DAEMONS="session-bus portal"
  if ! wait_step "$WAIT" "the session bus" busctl --address="$SBUS" --timeout=1 call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetId; then
    stop_daemon session-bus; exit 1
  fi
  DBUS_SESSION_BUS_ADDRESS=$SBUS start_daemon portal "$SYSPY" "$PORTAL_SCRIPT" "${args[@]}"
  if ! wait_step "$WAIT" "the portal on the session bus" \
      busctl --address="$SBUS" --timeout=1 call org.freedesktop.portal.Desktop /org/freedesktop/portal/desktop org.netpath.DesktopLab.Portal Get; then
    stop_daemon portal; stop_daemon session-bus; exit 1
  fi
  echo "session_bus=$SBUS"
  echo "status=$LAST"
  echo "ready"
}

cmd_portal_set() {
  [ $# -eq 3 ] || usage
  set_names "$1"
  lab_pid portal >/dev/null || die "portal-set $NAME: no portal (desktop-lab.sh portal-up $NAME)"
  local type value=$3
  case $2 in
    available|metered) type=b
      case $3 in true|yes|1) value=true ;; false|no|0) value=false ;; *) usage ;; esac ;;
    connectivity) type=u; [[ $3 =~ ^[1-4]$ ]] || usage ;;
    *) usage ;;
  esac
  busctl --address="$SBUS" --timeout=3 call org.freedesktop.portal.Desktop /org/freedesktop/portal/desktop \
    org.netpath.DesktopLab.Portal Set sv "$2" "$type" "$value"
  echo "status=$(busctl --address="$SBUS" --timeout=3 call org.freedesktop.portal.Desktop /org/freedesktop/portal/desktop org.freedesktop.portal.NetworkMonitor GetStatus)"
}

# --- logind (python3-dbusmock) -------------------------------------------------------------
# A stand-in for systemd-logind on the lab's system bus: dbusmock's logind template, whose
# Mock interface emits the signals a real logind sends around a suspend.
cmd_logind_up() {
  [ $# -eq 1 ] || usage
  set_names "$1"
  lab_pid bus >/dev/null || die "logind-up $NAME: no lab bus (desktop-lab.sh up $NAME)"
  "$SYSPY" -c 'import dbusmock' 2>/dev/null || { echo "desktop-lab: no dbusmock (apt-get install python3-dbusmock)" >&2; exit 3; }
  ! lab_pid logind >/dev/null || die "logind-up $NAME: logind runs already"
  DBUS_SYSTEM_BUS_ADDRESS=$BUS start_daemon logind "$SYSPY" -m dbusmock --system --template logind
  wait_step "$WAIT" "logind on the lab's bus" \
    bctl --timeout=1 call org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager CanSuspend
  echo "ready"
}

cmd_sleep() {
  [ $# -eq 2 ] || usage
  set_names "$1"
  lab_pid logind >/dev/null || die "sleep $NAME: no logind (desktop-lab.sh logind-up $NAME)"
  case $2 in true|false) ;; *) usage ;; esac
  bctl call org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.DBus.Mock EmitSignal \
    sssav org.freedesktop.login1.Manager PrepareForSleep b 1 b "$2"
  echo "sleeping=$2"
}

# --- systemd-networkd 254 ------------------------------------------------------------------
CACHE=${DESKTOP_LAB_CACHE:-/var/cache/netpath-desktop-lab}
SD=$CACHE/sd254
SD_LIBS=$SD/usr/lib/x86_64-linux-gnu/systemd
have_networkd() { [ -x "$SD/lib/systemd/systemd-networkd" ] && [ -f "$SD_LIBS/libsystemd-shared-254.so" ]; }
# Fetches systemd and libsystemd-shared 254 from bookworm-backports once, without touching the
# host's apt sources, lists or packages (private lists; unpacked, never installed).
fetch_networkd() {
  ! have_networkd || return 0
  need_programs apt-get dpkg-deb flock
  local apt=$CACHE/apt opts deb
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/debs" "$apt/empty"
  exec 9>"$CACHE/.lock"
  flock -w 300 9 || die "up-networkd: another fetch holds $CACHE/.lock"
  if have_networkd; then exec 9>&-; return 0; fi
  echo "deb http://deb.debian.org/debian bookworm-backports main" >"$apt/sources.list"
  opts=(-o Dir::Etc::SourceList="$apt/sources.list" -o Dir::Etc::SourceParts="$apt/empty"
        -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt/cache")
  apt-get "${opts[@]}" -q update >"$CACHE/apt.log" 2>&1 ||
    { cat "$CACHE/apt.log" >&2; die "up-networkd: apt-get update (bookworm-backports) failed"; }
  rm -f "$apt"/debs/*.deb
  (cd "$apt/debs" && apt-get "${opts[@]}" -q download systemd/bookworm-backports libsystemd-shared/bookworm-backports) \
    >>"$CACHE/apt.log" 2>&1 || { cat "$CACHE/apt.log" >&2; die "up-networkd: apt-get download failed"; }
  rm -rf "$SD.tmp"
  mkdir -p "$SD.tmp"
  for deb in "$apt"/debs/systemd_254*.deb "$apt"/debs/libsystemd-shared_254*.deb; do
    [ -f "$deb" ] || die "up-networkd: no version 254 in bookworm-backports ($deb)"
    dpkg-deb -x "$deb" "$SD.tmp"
  done
  rm -rf "$SD"
  mv "$SD.tmp" "$SD"
  exec 9>&-
}

write_networkd_network() {
  cat >"$DIR/networkd/10-dsk.network" <<NETWORK
# NetPath desktop lab $NAME (desktop-lab.sh up-networkd)
[Match]
Name=eth0

[Network]
DHCP=ipv4
LinkLocalAddressing=no
IPv6AcceptRA=no

[DHCPv4]
UseHostname=no
UseDNS=yes
UseCaptivePortal=yes
NETWORK
}

cmd_up_networkd() {
  [ $# -eq 1 ] || usage
  set_names "$1"
  need_programs ip ss dnsmasq dbus-daemon busctl udevadm nsenter unshare setsid
  [ -x "$UDEVD" ] || { echo "desktop-lab: no $UDEVD (apt-get install udev)" >&2; exit 3; }
  id systemd-network >/dev/null 2>&1 || { echo "desktop-lab: no user systemd-network (apt-get install systemd)" >&2; exit 3; }
  local ns
  for ns in "$NS_H" "$NS_P" "$NS_Q"; do
    [ ! -e "/run/netns/$ns" ] || die "up-networkd $NAME: the namespace $ns exists already (desktop-lab.sh down $NAME)"
  done
  [ ! -e "$DIR/bus.pid" ] && [ ! -e "$DIR/anchor.pid" ] || die "up-networkd $NAME: the lab is up already (desktop-lab.sh down $NAME)"
  [ ! -e "$DIR" ] || [ -f "$MARK" ] || die "up-networkd $NAME: $DIR exists and is not a desktop lab's"
  fetch_networkd

  STEP=start
  trap 'status=$?; if [ $status -ne 0 ]; then echo "desktop-lab: up-networkd $NAME failed (step: $STEP)" >&2; down_lab; fi; exit $status' EXIT
  make_dir
  mkdir -p "$DIR/empty" "$DIR/udev-rules" "$DIR/udev-etc" "$DIR/networkd"
  : >"$DIR/networkd-lab"

  STEP="the private system bus"
  write_bus_config "$DIR/bus.conf" "$BUS" system
  start_daemon bus dbus-daemon --nofork --nopidfile --nosyslog --config-file="$DIR/bus.conf"

  STEP="namespaces and links"
  for ns in "$NS_H" "$NS_P"; do ip netns add "$ns"; ip -n "$ns" link set lo up; done
  ip -n "$NS_H" link add eth0 type veth peer name p0 netns "$NS_P"
  ip -n "$NS_P" addr add 10.202.0.1/24 dev p0
  ip -n "$NS_P" link set p0 up

  STEP="dnsmasq"
  : >"$DIR/dnsmasq.leases"
  # No quotes around the URL: dnsmasq would send them (networkd: "Failed to parse captive portal").
  start_daemon dnsmasq ip netns exec "$NS_P" dnsmasq -k --conf-file=/dev/null \
    --interface=p0 --bind-interfaces --no-ping --user=root --group=root \
    --pid-file= --dhcp-leasefile="$DIR/dnsmasq.leases" --log-facility=- --log-dhcp \
    --dhcp-range=10.202.0.100,10.202.0.150,255.255.255.0,1h --dhcp-option=3,10.202.0.1 --dhcp-option=6,10.202.0.1 \
    --dhcp-option-force=114,http://10.202.0.1/portal \
    --address=/#/10.202.0.1 --no-resolv --no-hosts
  wait_step "$WAIT" "dnsmasq in $NS_P" dhcp_listening 1

  STEP="the anchor"
  local rule
  for rule in 80-net-setup-link.rules 99-systemd.rules; do
    [ ! -f "/usr/lib/udev/rules.d/$rule" ] || cp "/usr/lib/udev/rules.d/$rule" "$DIR/udev-rules/"
  done
  write_networkd_network
  echo "nameserver 10.202.0.1" >"$DIR/resolv.conf"
  start_daemon anchor ip netns exec "$NS_H" unshare -m --propagation private bash -ec "
    mount -t tmpfs -o mode=755 desktop-lab-$NAME /run
    mkdir -p /run/udev /run/systemd/netif/links /run/systemd/netif/leases /run/systemd/netif/lldp /run/systemd/network
    chown -R systemd-network:systemd-network /run/systemd/netif
    mount --bind $DIR/networkd /run/systemd/network
    mount --bind $DIR/empty /etc/systemd/network
    mount --bind $DIR/resolv.conf /etc/resolv.conf
    mount --bind $DIR/udev-rules /usr/lib/udev/rules.d
    if [ -d /etc/udev/rules.d ]; then mount --bind $DIR/udev-etc /etc/udev/rules.d; fi
    : >$DIR/anchor.ready
    exec -a 'desktop-lab-anchor $DIR/' sleep $LIFETIME"
  wait_step "$WAIT" "the anchor's mounts" test -f "$DIR/anchor.ready"
  ANCHOR=$(lab_pid anchor)

  STEP="udevd"
  start_daemon udevd nsenter -t "$ANCHOR" -m -n "$UDEVD"
  wait_step "$WAIT" "udevd's control socket" in_anchor test -S /run/udev/control
  in_anchor udevadm trigger --subsystem-match=net --action=add
  in_anchor udevadm settle --timeout="$WAIT"
  wait_step "$WAIT" "the bus at $BUS" bctl call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus GetId

  STEP="systemd-networkd"
  start_daemon networkd nsenter -t "$ANCHOR" -m -n env DBUS_SYSTEM_BUS_ADDRESS="$BUS" \
    LD_LIBRARY_PATH="$SD_LIBS" SYSTEMD_LOG_LEVEL=info SYSTEMD_LOG_TARGET=console \
    "$SD/lib/systemd/systemd-networkd"
  local ifindex file
  ifindex=$(in_anchor cat /sys/class/net/eth0/ifindex)
  file=/run/systemd/netif/links/$ifindex
  wait_step "$WAIT" "$file with ADMIN_STATE=configured" grep -qs '^ADMIN_STATE=configured' "/proc/$ANCHOR/root$file"
  wait_step "$WAIT" "$file with CAPTIVE_PORTAL=" grep -qs '^CAPTIVE_PORTAL=' "/proc/$ANCHOR/root$file"

  STEP="done"
  trap - EXIT
  echo "anchor=$ANCHOR"
  echo "bus=$BUS"
  echo "host_ns=$NS_H"
  echo "peer_ns=$NS_P"
  echo "device=eth0"
  echo "ifindex=$ifindex"
  echo "address=$(ip -n "$NS_H" -4 -o addr show dev eth0 | awk '{print $4; exit}')"
  echo "links_file=$file"
  echo "links_file_host=/proc/$ANCHOR/root$file"
  echo "captive_portal=$(sed -n 's/^CAPTIVE_PORTAL=//p' "/proc/$ANCHOR/root$file")"
  echo "ready"
}

[ $# -ge 1 ] || usage
[ "$(id -u)" = 0 ] || { echo "desktop-lab: needs root (namespaces, mounts)" >&2; exit 1; }
command=$1
shift
case $command in
  up) cmd_up "$@" ;;
  up-networkd) cmd_up_networkd "$@" ;;
  down) cmd_down "$@" ;;
  metered) cmd_metered "$@" ;;
  check) cmd_check "$@" ;;
  stop-nm) cmd_stop_nm "$@" ;;
  start-nm) cmd_start_nm "$@" ;;
  restart-nm) cmd_restart_nm "$@" ;;
  prop) cmd_prop "$@" ;;
  exec) cmd_exec "$@" ;;
  stalled-bus) cmd_stalled_bus "$@" ;;
  dead-bus) cmd_dead_bus "$@" ;;
  portal-up) cmd_portal_up "$@" ;;
  portal-set) cmd_portal_set "$@" ;;
  logind-up) cmd_logind_up "$@" ;;
  sleep) cmd_sleep "$@" ;;
  -h|--help|help) usage ;;
  *) usage ;;
esac
