#!/usr/bin/env bash
# An IPv6-only network with NAT64 (tayga) and DNS64 (unbound), in three network namespaces,
# for NetPath's tests (issue 20). Started and removed by NAT64Lab.swift; usable by hand.
#
#   nat64-lab.sh up NAME PREFIX [--no-nat64]   build the lab; prints key/value lines, then "ready"
#   nat64-lab.sh down NAME                     stop its daemons and delete everything (idempotent)
#   nat64-lab.sh stop-dns NAME                 stop only the DNS64 resolver (unbound)
#   nat64-lab.sh start-dns NAME                start it again, as before
#   nat64-lab.sh query NAME QNAME [A|AAAA]     ask the lab's resolver from the client: one address a
#                                              line (none: no such record), or the error and status 1
#   nat64-lab.sh synth PREFIX IPV4             the IPv6 address PREFIX embeds IPV4 as (RFC 6052)
#
#   NAME-c  client: IPv6 only (2001:db8:6a::2/64 on v0, default via the router), no IPv4 address
#           or route at all; /etc/netns/NAME-c/resolv.conf names the router.
#   NAME-r  router: 2001:db8:6a::1/64 on v1, 45.77.0.1/24 on v2, forwarding both families;
#           tayga on the tun device nat64 (PREFIX <-> IPv4, clients drawn from 10.64.0.0/24),
#           unbound on [2001:db8:6a::1]:53 with the dns64 module and PREFIX.
#   NAME-s  server: IPv4 only, 45.77.0.10/24 on v3 (default via the router), probe_server.py on
#           ports 80 and 8080 in mode "online". The address is globally scoped on purpose:
#           tayga refuses to translate the Well-Known Prefix 64:ff9b::/96 to or from non-global
#           IPv4 (RFC 6052 section 3.1). The traffic never leaves the namespaces.
#
#   The resolver serves, from auth-zones (local-data would answer before the dns64 module
#   runs): check.test and portal.test A 45.77.0.10, the default connectivity-check host
#   names A 45.77.0.10, ipv4only.arpa A 192.0.0.170 and 192.0.0.171 (RFC 7050); none has
#   an AAAA record, so DNS64 synthesizes them. Any other name is NXDOMAIN (the lab's root).
#   With --no-nat64 there is no tayga, and unbound serves the same zones without dns64:
#   an IPv6-only network where IPv4 literals and A-only names have no way out.
#
# Exit status: 0; 1 a step failed (named on stderr, everything already removed); 2 usage;
# 3 a program is missing.
set -euo pipefail

SELF=$(readlink -f "${BASH_SOURCE[0]}")
HERE=$(dirname "$SELF")
SERVER_SCRIPT="$HERE/probe_server.py"

CLIENT6=2001:db8:6a::2
ROUTER6=2001:db8:6a::1
LINK6_LEN=64
ROUTER4=45.77.0.1
SERVER4=45.77.0.10
LINK4_LEN=24
POOL4=10.64.0.0/24
TAYGA4=10.64.0.1
TAYGA6=2001:db8:6a:ffff::1
LAB6=2001:db8:6a::/48   # the lab's own IPv6 addresses, which PREFIX must not overlap
WAIT=10   # seconds each daemon has to become ready

die() { echo "nat64-lab: $*" >&2; exit 1; }
usage() {
  echo "usage:" >&2
  sed -n '5,11p' "$SELF" | sed 's/^#  //' >&2
  exit 2
}

# Python for what plain shell tools here cannot do: RFC 6052 synthesis, a DNS query
# (no dig on a minimal machine), an HTTP request with a deadline (no curl either).
read -r -d '' PY <<'EOF' || true
import ipaddress, os, random, socket, struct, sys

def synth(prefix, v4):
    net = ipaddress.IPv6Network(prefix)
    p, a = bytearray(net.network_address.packed), ipaddress.IPv4Address(v4).packed
    n = net.prefixlen
    if n == 96: p[12:16] = a
    elif n == 64: p[9:13] = a
    elif n == 56: p[7:8], p[9:12] = a[0:1], a[1:4]
    elif n == 48: p[6:8], p[9:11] = a[0:2], a[2:4]
    elif n == 40: p[5:8], p[9:10] = a[0:3], a[3:4]
    elif n == 32: p[4:8] = a
    else: raise SystemExit("nat64-lab: the prefix length must be 32, 40, 48, 56, 64 or 96 (RFC 6052)")
    return str(ipaddress.IPv6Address(bytes(p)))

def check_prefix(prefix, lab):
    try:
        net = ipaddress.IPv6Network(prefix)
    except ValueError as error:
        raise SystemExit("nat64-lab: bad prefix %s: %s" % (prefix, error))
    if net.prefixlen not in (32, 40, 48, 56, 64, 96):
        raise SystemExit("nat64-lab: bad prefix %s: its length must be 32, 40, 48, 56, 64 or 96 (RFC 6052)" % prefix)
    if net.prefixlen != 96 and net.network_address.packed[8] != 0:
        raise SystemExit("nat64-lab: bad prefix %s: bits 64 to 71 must be zero (RFC 6052)" % prefix)
    if net.overlaps(ipaddress.IPv6Network(lab)):
        raise SystemExit("nat64-lab: bad prefix %s: it overlaps the lab's own addresses, %s" % (prefix, lab))
    print(net.compressed)

def skip_name(m, i):
    while True:
        length = m[i]
        if length == 0: return i + 1
        if length & 0xC0 == 0xC0: return i + 2
        i += 1 + length

def query(server, qname, qtype, timeout):
    qtype_number = {"A": 1, "AAAA": 28}[qtype]
    ident = random.randrange(65536)
    question = b"".join(bytes([len(label)]) + label.encode() for label in qname.strip(".").split(".")) + b"\0"
    packet = struct.pack(">HHHHHH", ident, 0x0100, 1, 0, 0, 0) + question + struct.pack(">HH", qtype_number, 1)
    family = socket.AF_INET6 if ":" in server else socket.AF_INET
    s = socket.socket(family, socket.SOCK_DGRAM)
    s.settimeout(timeout)
    s.connect((server, 53))
    s.send(packet)
    while True:
        m = s.recv(4096)
        if len(m) >= 12 and struct.unpack(">H", m[:2])[0] == ident: break
    flags, qd, an = struct.unpack(">HHH", m[2:8])
    rcode = flags & 0xF
    if rcode != 0:
        print({2: "SERVFAIL", 3: "NXDOMAIN", 5: "REFUSED"}.get(rcode, "RCODE%d" % rcode))
        return 1
    i = 12
    for _ in range(qd): i = skip_name(m, i) + 4
    for _ in range(an):
        i = skip_name(m, i)
        rtype, _, _, length = struct.unpack(">HHIH", m[i:i + 10])
        data = m[i + 10:i + 10 + length]
        i += 10 + length
        if rtype == qtype_number:
            print(socket.inet_ntop(socket.AF_INET if rtype == 1 else socket.AF_INET6, data))
    return 0

def http(address, port, host, path, timeout):
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    s = socket.create_connection((address, int(port)), timeout=timeout)
    s.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (path, host)).encode())
    head = b""
    while b"\r\n" not in head:
        chunk = s.recv(4096)
        if not chunk: break
        head += chunk
    print(head.split(b" ")[1].decode() if head.count(b" ") else "none")

command, args = sys.argv[1], sys.argv[2:]
try:
    if command == "synth": print(synth(*args))
    elif command == "prefix": check_prefix(*args)
    elif command == "query": sys.exit(query(args[0], args[1], args[2], float(args[3])))
    elif command == "http": http(*args[:4], float(args[4]))
except (OSError, socket.timeout) as error:
    print("error: %s" % error)
    sys.exit(1)
EOF
py() { python3 -c "$PY" "$@"; }

# Whether an executable file $1 is in PATH, /usr/sbin or /sbin ("command -v" would also
# name a file that is not executable).
have() {
  local dir IFS=:
  for dir in $PATH:/usr/sbin:/sbin; do
    if [ -f "$dir/$1" ] && [ -x "$dir/$1" ]; then return 0; fi
  done
  return 1
}

need_programs() {
  local program package
  for program in "$@"; do
    case $program in
      tayga) package=tayga ;; unbound) package=unbound ;; python3) package=python3 ;; ip) package=iproute2 ;;
      *) package=$program ;;
    esac
    if ! have "$program"; then
      echo "nat64-lab: $program is not installed (apt-get install $package)" >&2
      exit 3
    fi
  done
}
export PATH="$PATH:/usr/sbin:/sbin"

check_name() {
  if ! [[ ${1:-} =~ ^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$ ]]; then
    echo "nat64-lab: bad lab name '${1:-}' (letters, digits, _ . -; at most 40)" >&2
    exit 2
  fi
}

# The lab's names, after checking NAME.
set_names() {
  check_name "$1"
  NAME=$1
  NS_C=$NAME-c NS_R=$NAME-r NS_S=$NAME-s
  RUN=/run/netpath-lab-$NAME
  CONF=/etc/unbound/netpath-lab-$NAME
}

# Starts a daemon in a namespace, detached from us: a session of its own, its output in
# $RUN/LABEL.log, and none of our descriptors (whoever reads our output sees its end when
# we exit, not when the daemon does). Its pid goes into $RUN/LABEL.pid. The input is
# /dev/null unless INPUT names another file (opened read-write).
start_daemon() { # label namespace command...
  local label=$1 namespace=$2
  shift 2
  (
    for fd in /proc/$BASHPID/fd/*; do
      fd=${fd##*/}
      if [[ $fd =~ ^[0-9]+$ ]] && (( fd > 2 )); then eval "exec $fd>&-"; fi
    done
    exec setsid ip netns exec "$namespace" "$@" 0<>"${INPUT:-/dev/null}" >>"$RUN/$label.log" 2>&1
  ) &
  echo $! >"$RUN/$label.pid"
}

alive() { [ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

# Prints the pid in pid file $1 if that is a live process of this lab: its command line
# names the lab's run or configuration directory (or, not yet replaced by the daemon, is
# this script's "up NAME"), so a recycled pid is never taken for it.
lab_pid() {
  local pid line
  [ -f "$1" ] || return 1
  pid=$(cat "$1")
  [[ $pid =~ ^[0-9]+$ ]] && alive "$pid" || return 1
  line=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || return 1
  [[ $line == *"netpath-lab-$NAME/"* || $line == *"nat64-lab.sh up $NAME "* ]] || return 1
  echo "$pid"
}

stop_daemon() { # label
  local file=$RUN/$1.pid pid
  if pid=$(lab_pid "$file"); then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do alive "$pid" || break; sleep 0.02; done
    if alive "$pid"; then kill -KILL "$pid" 2>/dev/null || true; fi
    for _ in $(seq 100); do alive "$pid" || break; sleep 0.02; done
  fi
  rm -f "$file"
}

now_us() { echo "${EPOCHREALTIME//[.,]/}"; }

# Runs "$@" until it succeeds (its output then in $LAST), for at most WAIT seconds, and
# fails at once when one of the lab's daemons has exited. A failure says which step
# failed and shows the daemons' last messages.
LAST=
wait_step() { # description command...
  local what=$1 deadline=$(( $(now_us) + WAIT * 1000000 )) label output=
  shift
  while true; do
    if output=$("$@" 2>&1); then LAST=$output; return 0; fi
    for label in tayga server unbound; do
      if [ -f "$RUN/$label.pid" ] && ! alive "$(cat "$RUN/$label.pid")"; then
        echo "nat64-lab: $NAME: $label exited (while waiting for $what)" >&2
        STEP="$label exited"
        log_tail "$label"
        return 1
      fi
    done
    if (( $(now_us) >= deadline )); then
      echo "nat64-lab: $NAME: $what: not within $WAIT s: $output" >&2
      for label in tayga server unbound; do log_tail "$label"; done
      return 1
    fi
    sleep 0.1
  done
}

log_tail() { # label
  if [ -s "$RUN/$1.log" ]; then
    echo "--- $1 log (last lines):" >&2
    tail -n 15 "$RUN/$1.log" >&2
  fi
}

down_lab() {
  stop_daemon unbound
  stop_daemon tayga
  stop_daemon server
  local namespace
  for namespace in "$NS_C" "$NS_R" "$NS_S"; do
    if [ -e "/run/netns/$namespace" ]; then ip netns del "$namespace" 2>/dev/null || true; fi
    rm -rf "/etc/netns/$namespace"
  done
  rm -rf "$CONF" "$RUN"
}

write_unbound_config() { # nat64 prefix
  local nat64=$1 prefix=$2 host
  mkdir -p "$CONF"
  {
    echo '$ORIGIN .'
    echo '$TTL 60'
    echo '@ SOA ns.lab.invalid. hostmaster.lab.invalid. 1 3600 600 86400 60'
    echo '@ NS ns.lab.invalid.'
    for host in check.test portal.test connectivitycheck.gstatic.com nmcheck.gnome.org \
                detectportal.firefox.com www.msftconnecttest.com captive.apple.com; do
      echo "$host. A $SERVER4"
    done
    echo 'ipv4only.arpa. A 192.0.0.170'
    echo 'ipv4only.arpa. A 192.0.0.171'
  } >"$CONF/root.zone"
  {
    echo "# NetPath NAT64 lab $NAME: written by $SELF; removed by its 'down'."
    echo 'server:'
    echo '    verbosity: 1'
    echo "    interface: $ROUTER6"
    echo '    port: 53'
    echo '    interface-automatic: no'
    echo "    access-control: ::1/128 allow"
    echo "    access-control: ${ROUTER6%::*}::/$LINK6_LEN allow"
    echo '    do-daemonize: no'
    echo '    chroot: ""'
    echo '    username: ""'
    echo "    directory: \"$CONF\""
    echo '    pidfile: ""'
    echo '    use-syslog: no'
    echo '    logfile: ""'
    echo '    log-time-ascii: yes'
    echo '    num-threads: 1'
    echo '    outgoing-range: 64'
    echo '    msg-cache-size: 1m'
    echo '    rrset-cache-size: 1m'
    echo '    qname-minimisation: no'
    # The lab's answers only; no TTL outlives a test.
    echo '    cache-max-ttl: 5'
    echo '    cache-max-negative-ttl: 5'
    # Unbound answers test. itself (RFC 6761) unless told not to.
    echo '    local-zone: "test." nodefault'
    if [ "$nat64" = yes ]; then
      echo '    module-config: "dns64 iterator"'
      echo "    dns64-prefix: $prefix"
    else
      echo '    module-config: "iterator"'
    fi
    echo 'remote-control:'
    echo '    control-enable: no'
    # The lab's root zone, consulted by the iterator (for-upstream), so the dns64 module
    # sees its answers; served for-downstream it would be answered before dns64 runs.
    echo 'auth-zone:'
    echo '    name: "."'
    echo "    zonefile: \"$CONF/root.zone\""
    echo '    for-downstream: no'
    echo '    for-upstream: yes'
    echo '    fallback-enabled: no'
  } >"$CONF/unbound.conf"
}

start_unbound() {
  start_daemon unbound "$NS_R" unbound -d -p -c "$CONF/unbound.conf"
}

dns_answers() { # qname type: succeeds when the resolver answers NOERROR with at least one address
  local out
  out=$(ip netns exec "$NS_C" python3 -c "$PY" query "$ROUTER6" "$1" "$2" 1) || { echo "$out"; return 1; }
  [ -n "$out" ] || { echo "no $2 record"; return 1; }
  echo "$out"
}

wait_unbound() { # nat64
  if [ "$1" = yes ]; then
    STEP="the DNS64 resolver (unbound on [$ROUTER6]:53) answering AAAA check.test"
    wait_step "$STEP" dns_answers check.test AAAA
  else
    STEP="the resolver (unbound on [$ROUTER6]:53) answering A check.test"
    wait_step "$STEP" dns_answers check.test A
  fi
}

cmd_up() {
  [ $# -ge 2 ] || usage
  local name=$1 prefix=$2 nat64=yes
  shift 2
  for option in "$@"; do
    case $option in --no-nat64) nat64=no ;; *) usage ;; esac
  done
  set_names "$name"
  if [ "$nat64" = yes ]; then need_programs ip python3 tayga unbound; else need_programs ip python3 unbound; fi
  [ -f "$SERVER_SCRIPT" ] || die "no $SERVER_SCRIPT"
  prefix=$(py prefix "$prefix" "$LAB6") || exit 2
  for namespace in "$NS_C" "$NS_R" "$NS_S"; do
    [ ! -e "/run/netns/$namespace" ] || die "up $NAME: the namespace $namespace exists already (nat64-lab.sh down $NAME)"
  done
  [ ! -e "$RUN" ] || die "up $NAME: $RUN exists already (nat64-lab.sh down $NAME)"

  # From here on, any failure removes what was made.
  STEP="start"
  trap 'status=$?; if [ $status -ne 0 ]; then echo "nat64-lab: up $NAME failed (step: $STEP)" >&2; down_lab; fi; exit $status' EXIT
  mkdir -p "$RUN"
  echo "$prefix $nat64" >"$RUN/lab"

  STEP="namespaces and links"
  for namespace in "$NS_C" "$NS_R" "$NS_S"; do
    ip netns add "$namespace"
    ip -n "$namespace" link set lo up
  done
  # No duplicate address detection on the lab's links: every address usable at once.
  ip netns exec "$NS_C" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
  ip netns exec "$NS_R" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
  # The server is an IPv4-only host.
  ip netns exec "$NS_S" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
  ip -n "$NS_C" link add v0 type veth peer name v1 netns "$NS_R"
  ip -n "$NS_R" link add v2 type veth peer name v3 netns "$NS_S"
  ip -n "$NS_R" -force -batch - <<EOF
addr add $ROUTER6/$LINK6_LEN dev v1 nodad
link set v1 up
addr add $ROUTER4/$LINK4_LEN dev v2
link set v2 up
EOF
  ip netns exec "$NS_R" sysctl -qw net.ipv6.conf.v2.disable_ipv6=1 \
    net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
  ip -n "$NS_S" -force -batch - <<EOF
addr add $SERVER4/$LINK4_LEN dev v3
link set v3 up
route add default via $ROUTER4
EOF
  ip -n "$NS_C" -force -batch - <<EOF
addr add $CLIENT6/$LINK6_LEN dev v0 nodad
link set v0 up
route add default via $ROUTER6 dev v0
EOF
  mkdir -p "/etc/netns/$NS_C"
  echo "nameserver $ROUTER6" >"/etc/netns/$NS_C/resolv.conf"

  STEP="configuration"
  write_unbound_config "$nat64" "$prefix"
  if [ "$nat64" = yes ]; then
    cat >"$RUN/tayga.conf" <<EOF
# NetPath NAT64 lab $NAME
tun-device nat64
ipv4-addr $TAYGA4
ipv6-addr $TAYGA6
prefix $prefix
dynamic-pool $POOL4
EOF
    STEP="tayga's tun device"
    ip netns exec "$NS_R" tayga --mktun --config "$RUN/tayga.conf" >"$RUN/tayga.log" 2>&1 || { log_tail tayga; false; }
    ip -n "$NS_R" -force -batch - <<EOF
link set nat64 up
route add $prefix dev nat64
route add $TAYGA6/128 dev nat64
route add $POOL4 dev nat64
EOF
    STEP="tayga"
    # -d: in the foreground, its messages on stdout (line-buffered, so the log is current).
    start_daemon tayga "$NS_R" stdbuf -oL tayga -d --config "$RUN/tayga.conf"
  fi

  STEP="the test server"
  echo online >"$RUN/mode"
  # probe_server.py runs until its standard input ends: a FIFO opened read-write never does.
  mkfifo "$RUN/server.stdin"
  INPUT=$RUN/server.stdin start_daemon server "$NS_S" \
    python3 "$SERVER_SCRIPT" --port 80 --port 8080 --bind "$SERVER4" --mode-file "$RUN/mode"

  STEP="unbound"
  start_unbound

  STEP="the test server answering http://$SERVER4/204 (from the router)"
  wait_step "$STEP" ip netns exec "$NS_R" python3 -c "$PY" http "$SERVER4" 80 check.test /204 1
  [ "$LAST" = 204 ] || { echo "nat64-lab: the test server answered $LAST, not 204" >&2; false; }

  wait_unbound "$nat64"

  local server6=
  if [ "$nat64" = yes ]; then
    server6=$(py synth "$prefix" "$SERVER4")
    STEP="NAT64: http://[$server6]/204 from the client through tayga"
    wait_step "$STEP" ip netns exec "$NS_C" python3 -c "$PY" http "$server6" 80 check.test /204 1
    [ "$LAST" = 204 ] || { echo "nat64-lab: through NAT64 the test server answered $LAST, not 204" >&2; false; }
  fi

  STEP="done"
  trap - EXIT
  echo "client $NS_C"
  echo "router $NS_R"
  echo "server $NS_S"
  echo "client6 $CLIENT6"
  echo "router6 $ROUTER6"
  echo "server4 $SERVER4"
  if [ "$nat64" = yes ]; then
    echo "prefix $prefix"
    echo "server6 $server6"
  fi
  echo "ready"
}

cmd_down() {
  [ $# -eq 1 ] || usage
  set_names "$1"
  down_lab
}

cmd_stop_dns() {
  [ $# -eq 1 ] || usage
  set_names "$1"
  [ -d "$RUN" ] || die "no lab $NAME"
  stop_daemon unbound
}

cmd_start_dns() {
  [ $# -eq 1 ] || usage
  set_names "$1"
  [ -f "$RUN/lab" ] || die "no lab $NAME"
  need_programs unbound
  local prefix nat64
  read -r prefix nat64 <"$RUN/lab"
  ! lab_pid "$RUN/unbound.pid" >/dev/null || die "start-dns $NAME: unbound runs already"
  start_unbound
  wait_unbound "$nat64" || { stop_daemon unbound; exit 1; }
  echo ready
}

cmd_query() {
  [ $# -ge 2 ] && [ $# -le 3 ] || usage
  set_names "$1"
  need_programs python3
  local qtype=${3:-AAAA}
  [[ $qtype = A || $qtype = AAAA ]] || usage
  ip netns exec "$NS_C" python3 -c "$PY" query "$ROUTER6" "$2" "$qtype" 2
}

[ $# -ge 1 ] || usage
command=$1
shift
case $command in
  up) cmd_up "$@" ;;
  down) cmd_down "$@" ;;
  stop-dns) cmd_stop_dns "$@" ;;
  start-dns) cmd_start_dns "$@" ;;
  query) cmd_query "$@" ;;
  synth) [ $# -eq 2 ] || usage; need_programs python3; py synth "$@" ;;
  -h|--help|help) usage ;;
  *) usage ;;
esac
