#!/usr/bin/env python3
"""Captures real rtnetlink datagrams as seeds for the netlink fuzz target.

Run as root; it makes a network namespace of its own, builds links, addresses and routes
there with iproute2, and writes into OUTDIR (default Fuzz/corpus/netlink):
  sync-*     the whole start-up synchronisation NetPath does (links, addresses, routes,
             rules and nexthop-object dumps with sequence numbers 1 to 5 and their
             NLMSG_DONE), as one input, so the harness's engine walks through the complete
             dump protocol;
  dump-*     single datagrams of each dump, as recv() returned them;
  event-*    datagrams of the multicast groups NetPath subscribes to, one per change;
  answer-*   the kernel's answers to NetPath's route lookups (RTM_GETROUTE for 1.1.1.1 and
             2606:4700:4700::1111, sequences 1 and 2), routes and refusals.
"""
import ctypes, os, socket, struct, subprocess, sys, time

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "corpus", "netlink")
os.makedirs(out, exist_ok=True)
ns = "npfuzz%d" % os.getpid()
# LINK, IPV4_IFADDR, IPV6_IFADDR, IPV4_ROUTE, IPV6_ROUTE, IPV4_RULE, IPV6_RULE (19), NEXTHOP (32)
RTMGRP = 0x1 | 0x10 | 0x100 | 0x40 | 0x400 | 0x80 | (1 << 18) | (1 << 31)


def sh(*commands, check=True):
    for command in commands:
        subprocess.run(["ip", "-n", ns] + command.split(), check=check, stderr=subprocess.DEVNULL)


def nl_socket(groups=0):
    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    s.bind((0, groups))
    s.settimeout(0.5)
    return s


def dump(s, kind, seq):
    body = {18: 16, 22: 8, 26: 12, 34: 12, 106: 8}[kind]
    s.send(struct.pack("=IHHII", 16 + body, kind, 0x301, seq, 0) + b"\0" * body)
    grams = []
    while True:
        data = s.recv(1 << 16)
        grams.append(data)
        # NLMSG_DONE or NLMSG_ERROR ends the dump.
        off, end = 0, False
        while off + 16 <= len(data):
            length, typ = struct.unpack_from("=IH", data, off)
            end = end or typ in (2, 3)
            off += (length + 3) & ~3 if length >= 16 else len(data)
        if end:
            return grams


def save(name, data):
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)


def lookups(label):
    """NetPath's two route lookups in one datagram, and the kernel's answers."""
    s = nl_socket()
    v4 = struct.pack("=BBBBBBBBI", 2, 32, 0, 0, 0, 0, 0, 0, 0x1000) + struct.pack("=HH", 8, 1) + bytes([1, 1, 1, 1])
    v6 = (struct.pack("=BBBBBBBBI", 10, 128, 0, 0, 0, 0, 0, 0, 0x1000) + struct.pack("=HH", 20, 1)
          + bytes.fromhex("26064700470000000000000000001111"))
    s.send(struct.pack("=IHHII", 16 + len(v4), 26, 1, 1, 0) + v4 + struct.pack("=IHHII", 16 + len(v6), 26, 1, 2, 0) + v6)
    grams = []
    for _ in range(2):
        try:
            grams.append(s.recv(1 << 16))
        except socket.timeout:
            break
    for i, g in enumerate(grams):
        save("answer-%s-%d" % (label, i), g)
    save("answers-" + label, b"".join(grams))
    s.close()


def snapshot(label):
    fd = os.open("/var/run/netns/" + ns, os.O_RDONLY)
    s = nl_socket()
    grams = []
    for seq, kind in enumerate((18, 22, 26, 34, 106), start=1):
        part = dump(s, kind, seq)
        for i, g in enumerate(part):
            save("dump-%s-%d-%d" % (label, kind, i), g)
        grams += part
    save("sync-" + label, b"".join(grams))
    s.close()
    os.close(fd)


def main():
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        # Enter the namespace: the sockets made from now on belong to it.
        fd = os.open("/var/run/netns/" + ns, os.O_RDONLY)
        if ctypes.CDLL(None, use_errno=True).setns(fd, 0x40000000) != 0:  # CLONE_NEWNET (os.setns needs 3.12)
            raise OSError(ctypes.get_errno(), "setns")
        sh("link set lo up")
        snapshot("empty")
        lookups("empty")
        sh("link add veth0 type veth peer name veth1", "link add br0 type bridge",
           "link set veth1 master br0", "link set veth0 up", "link set veth1 up", "link set br0 up")
        sh("link add dummy0 type dummy", "link set dummy0 up", check=False)
        sh("link add link veth0 name veth0.7 type vlan id 7", "link set veth0.7 up", check=False)
        sh("addr add 192.0.2.2/24 dev veth0", "addr add 2001:db8::2/64 dev veth0 nodad",
           "addr add 198.51.100.2/24 dev br0", "route add default via 192.0.2.1 dev veth0 metric 100",
           "route add default via 2001:db8::1 dev veth0 metric 1024")
        sh("addr add 203.0.113.2/24 dev dummy0", "route add default via 203.0.113.1 dev dummy0 metric 50", check=False)
        sh("route add default nexthop via 192.0.2.1 dev veth0 nexthop via 198.51.100.1 dev br0 table 100",
           "route add blackhole default table 200", "route add unreachable default metric 9999", check=False)
        time.sleep(0.3)
        snapshot("veth-bridge-multipath")
        lookups("veth-bridge-multipath")
        # Rules, nexthop objects and a kill switch, as VPN clients and routing daemons set them up.
        sh("rule add not fwmark 51820 table 51820 pref 32764", "rule add table main suppress_prefixlength 0 pref 32763",
           "route add default dev veth0 table 51820", "nexthop add id 1 via 192.0.2.1 dev veth0",
           "nexthop add id 2 via 198.51.100.1 dev br0", "nexthop add id 10 group 1/2", "route add default nhid 10 table 300",
           "rule add pref 300 table 300", "route add 0.0.0.0/1 dev veth0", check=False)
        time.sleep(0.3)
        snapshot("rules-nexthops")
        lookups("rules-nexthops")
        sh("route add prohibit default table 400", "rule add pref 10 table 400", check=False)
        lookups("prohibit")

        events = nl_socket(RTMGRP)
        changes = ["link set veth0.7 down", "addr add 192.0.2.3/24 dev veth0", "addr del 192.0.2.3/24 dev veth0",
                   "route replace default via 192.0.2.254 dev veth0 metric 100", "link set dummy0 down",
                   "link set veth0 down", "link set veth0 up", "link set dummy0 name dummyx",
                   "addr add 2001:db8:1::2/64 dev br0", "route del default table 200",
                   "link del veth0.7", "link set veth0 mtu 1400", "rule add pref 5 unreachable", "rule del pref 5",
                   "nexthop del id 1", "nexthop replace id 2 via 192.0.2.1 dev veth0", "route del 0.0.0.0/1",
                   "route append blackhole default", "route del blackhole default",
                   "route add 2000::/3 dev veth0 expires 30", "addr flush dev veth0"]
        n = 0
        for change in changes:
            sh(change, check=False)
            while True:
                try:
                    data = events.recv(1 << 16)
                except socket.timeout:
                    break
                save("event-%02d" % n, data)
                n += 1
        snapshot("after-events")
    finally:
        subprocess.run(["ip", "netns", "del", ns])


main()
