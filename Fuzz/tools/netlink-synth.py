#!/usr/bin/env python3
"""Writes hand-made rtnetlink inputs for cases a namespace cannot show (Wi-Fi-less
machines, no wireguard module): tunnel and cellular kinds, DORMANT, RTA_VIA,
IPv6 multipath, NLM_F_DUMP_INTR, an NLMSG_ERROR in a dump, truncated attributes.
Layouts as in Tests/NetPathTests/Fixtures.swift. Output: OUTDIR (default Fuzz/corpus/netlink)."""
import os, socket, struct, sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "corpus", "netlink")
pad = lambda b: b + b"\0" * (-len(b) % 4)
attr = lambda t, p: pad(struct.pack("=HH", 4 + len(p), t) + p)
msg = lambda typ, body, flags=0, seq=0: struct.pack("=IHHII", 16 + len(body), typ, flags, seq, 0) + body
UP = 0x1 | 0x40 | 0x10000


def link(index, name, hw=1, flags=UP, oper=6, kind=None, typ=16, seq=0, mflags=0):
    body = struct.pack("=BBHiII", 0, 0, hw, index, flags, 0xFFFFFFFF) + attr(3, name.encode() + b"\0") + attr(16, bytes([oper]))
    if kind:
        body += attr(18, attr(1, kind.encode() + b"\0"))
    return msg(typ, body, mflags, seq)


def addr(index, text, prefix=24, flags=0, scope=0, typ=20, seq=0):
    fam = socket.AF_INET6 if ":" in text else socket.AF_INET
    raw = socket.inet_pton(fam, text)
    body = struct.pack("=BBBBi", fam, prefix, flags & 0xFF, scope, index) + attr(1, raw)
    if fam == socket.AF_INET:
        body += attr(2, raw)
    return msg(typ, body + attr(8, struct.pack("=I", flags)), 0, seq)


def route(oif=None, gw=None, fam=socket.AF_INET, metric=None, rtype=1, table=254, via=None, hops=(), typ=24, seq=0, mflags=0):
    body = struct.pack("=BBBBBBBBI", fam, 0, 0, 0, min(table, 252), 3, 0, rtype, 0) + attr(15, struct.pack("=I", table))
    if metric is not None:
        body += attr(6, struct.pack("=I", metric))
    if oif is not None:
        body += attr(4, struct.pack("=i", oif))
    if gw:
        body += attr(5, socket.inet_pton(fam, gw))
    if via:
        body += attr(18, struct.pack("=H", socket.AF_INET6) + socket.inet_pton(socket.AF_INET6, via))
    if hops:
        data = b""
        for index, hop in hops:
            a = attr(5, socket.inet_pton(fam, hop)) if hop else b""
            data += struct.pack("=HBBi", 8 + len(a), 0, 0, index) + a
        body += attr(9, data)
    return msg(typ, body, mflags, seq)


done = lambda seq, flags=2: msg(3, struct.pack("=i", 0), flags, seq)
error = lambda code, seq: msg(2, struct.pack("=i", code) + b"\0" * 16, 0, seq)

seeds = {
    "synth-sync-wifi-cellular-tunnels": link(1, "lo", hw=772, flags=UP | 0x8, oper=0, seq=1, mflags=2)
        + link(2, "wlan0", seq=1, mflags=2) + link(3, "wwan0", hw=519, seq=1, mflags=2)
        + link(4, "wg0", hw=0xFFFE, oper=0, kind="wireguard", seq=1, mflags=2)
        + link(5, "tun0", hw=0xFFFE, oper=0, kind="tun", seq=1, mflags=2) + link(6, "wlan1", oper=5, seq=1, mflags=2)
        + done(1) + addr(2, "192.168.1.20", seq=2) + addr(3, "10.64.0.2", prefix=30, seq=2)
        + addr(4, "fd00::2", prefix=64, seq=2) + addr(2, "fe80::1", prefix=64, scope=253, seq=2)
        + addr(5, "2001:db8::5", prefix=64, flags=0x40, seq=2) + done(2)
        + route(oif=2, gw="192.168.1.1", metric=600, seq=3) + route(oif=3, metric=700, seq=3)
        + route(fam=socket.AF_INET6, hops=[(4, "fd00::1"), (2, None)], metric=50, seq=3)
        + route(oif=5, via="fe80::1", metric=10, seq=3) + route(rtype=6, metric=1, seq=3)
        + route(oif=2, gw="192.168.1.1", table=255, seq=3) + done(3),
    "synth-dump-interrupted": link(2, "eth0", seq=1, mflags=0x12) + done(1, 0x12) + link(2, "eth0", seq=2),
    "synth-dump-enobufs": link(2, "eth0", seq=1, mflags=2) + error(-105, 1) + error(0, 1) + done(1),
    "synth-events-replace-rename-delete": link(2, "eth0") + addr(2, "192.0.2.2")
        + route(oif=2, gw="192.0.2.1", metric=100) + route(oif=2, gw="192.0.2.254", metric=100, mflags=0x100)
        + link(2, "eth1") + addr(2, "192.0.2.2", typ=21) + link(2, "eth1", typ=17) + link(2, "wwan0", hw=519),
    "synth-truncated": link(2, "eth0")[:-3] + b"\x08\x00\x03\x00",
}
for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
