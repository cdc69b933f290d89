#!/usr/bin/env python3
"""A small DNS server for NetPath's resolver tests (issue 29): answers as the test says,
over UDP and TCP on port 53 of each --bind address. Started by ResolverLab.swift inside a
network namespace.

usage: dns_server.py --bind ADDR [--bind ADDR ...] [RULE ...]

Rules, for a name (case-insensitive, without the final dot):
  --answer NAME=ADDR[,ADDR...]  A records for the IPv4 addresses, AAAA for the IPv6 ones
                                (a type with none: NOERROR, no data)
  --nxdomain NAME               NXDOMAIN
  --servfail NAME               SERVFAIL
  --truncate NAME               over UDP an empty answer with TC set; over TCP the real one
  --drop NAME                   never answered
  --silent                      nothing is ever answered (a dead server)
  --no-edns                     a query with an EDNS0 record (any additional record) gets
                                FORMERR, as a server that predates RFC 6891 answers
Any other name is NXDOMAIN. Queries may carry EDNS0 (an OPT record), which is ignored
unless --no-edns.
Prints "ready" on stdout once every socket listens, then a line per query:
"udp|tcp NAME TYPE -> what".
"""
import argparse, ipaddress, socket, struct, sys, threading

TYPE_A, TYPE_AAAA = 1, 28


def parse_question(message):
    """The id, flags, name and type of a query, or None."""
    if len(message) < 12:
        return None
    ident, flags, qdcount = struct.unpack("!HHH", message[:6])
    if qdcount < 1:
        return None
    labels, at = [], 12
    while at < len(message):
        length = message[at]
        if length == 0:
            at += 1
            break
        labels.append(message[at + 1:at + 1 + length].decode("ascii", "replace"))
        at += 1 + length
    if at + 4 > len(message):
        return None
    qtype, qclass = struct.unpack("!HH", message[at:at + 4])
    return ident, flags, ".".join(labels).lower(), qtype, message[12:at + 4]


def response(ident, flags, question, rcode, records=(), truncated=False):
    out_flags = 0x8000 | (flags & 0x0100) | 0x0080 | rcode  # QR, RD copied, RA
    if truncated:
        out_flags |= 0x0200
    body = question
    for qtype, data in records:
        body += struct.pack("!HHHIH", 0xC00C, qtype, 1, 60, len(data)) + data
    return struct.pack("!HHHHHH", ident, out_flags, 1, len(records), 0, 0) + body


def decide(rules, message, over_tcp):
    """The answer to `message`, None to drop it, and a word for the log."""
    parsed = parse_question(message)
    if parsed is None:
        return None, "?"
    ident, flags, name, qtype, question = parsed
    rule = rules.get(name, ("nxdomain", None))
    kind = rule[0]
    if kind == "drop" or rules.get("*silent*"):
        return None, "%s %d -> dropped" % (name, qtype)
    if rules.get("*no-edns*") and struct.unpack("!H", message[10:12])[0] > 0:
        return response(ident, flags, question, 1), "%s %d -> FORMERR (EDNS)" % (name, qtype)
    if kind == "nxdomain":
        return response(ident, flags, question, 3), "%s %d -> NXDOMAIN" % (name, qtype)
    if kind == "servfail":
        return response(ident, flags, question, 2), "%s %d -> SERVFAIL" % (name, qtype)
    if kind == "truncate" and not over_tcp:
        return response(ident, flags, question, 0, truncated=True), "%s %d -> TC" % (name, qtype)
    records = []
    for address in rule[1] or []:
        parsed_address = ipaddress.ip_address(address)
        if qtype == TYPE_A and parsed_address.version == 4:
            records.append((TYPE_A, parsed_address.packed))
        if qtype == TYPE_AAAA and parsed_address.version == 6:
            records.append((TYPE_AAAA, parsed_address.packed))
    return response(ident, flags, question, 0, records), "%s %d -> %d records" % (name, qtype, len(records))


def log(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def serve_udp(sock, rules):
    while True:
        message, peer = sock.recvfrom(4096)
        answer, word = decide(rules, message, False)
        log("udp " + word)
        if answer is not None:
            sock.sendto(answer, peer)


def serve_tcp_connection(conn, rules):
    try:
        conn.settimeout(10)
        buffer = b""
        while True:
            chunk = conn.recv(4096)
            if not chunk:
                return
            buffer += chunk
            while len(buffer) >= 2 and len(buffer) >= 2 + struct.unpack("!H", buffer[:2])[0]:
                length = struct.unpack("!H", buffer[:2])[0]
                message, buffer = buffer[2:2 + length], buffer[2 + length:]
                answer, word = decide(rules, message, True)
                log("tcp " + word)
                if answer is not None:
                    conn.sendall(struct.pack("!H", len(answer)) + answer)
    except OSError:
        pass
    finally:
        conn.close()


def serve_tcp(sock, rules):
    while True:
        conn, _ = sock.accept()
        threading.Thread(target=serve_tcp_connection, args=(conn, rules), daemon=True).start()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bind", action="append", required=True)
    parser.add_argument("--answer", action="append", default=[])
    for kind in ("nxdomain", "servfail", "truncate", "drop"):
        parser.add_argument("--" + kind, action="append", default=[])
    parser.add_argument("--silent", action="store_true")
    parser.add_argument("--no-edns", action="store_true")
    args = parser.parse_args()
    rules = {}
    for item in args.answer:
        name, _, addresses = item.partition("=")
        rules[name.lower().rstrip(".")] = ("answer", [a for a in addresses.split(",") if a])
    for kind in ("nxdomain", "servfail", "truncate", "drop"):
        for name in getattr(args, kind):
            existing = rules.get(name.lower().rstrip("."))
            rules[name.lower().rstrip(".")] = (kind, existing[1] if existing else None)
    if args.silent:
        rules["*silent*"] = True
    if args.no_edns:
        rules["*no-edns*"] = True
    for address in args.bind:
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        udp = socket.socket(family, socket.SOCK_DGRAM)
        udp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        udp.bind((address, 53))
        tcp = socket.socket(family, socket.SOCK_STREAM)
        tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        tcp.bind((address, 53))
        tcp.listen(16)
        threading.Thread(target=serve_udp, args=(udp, rules), daemon=True).start()
        threading.Thread(target=serve_tcp, args=(tcp, rules), daemon=True).start()
    log("ready")
    # Until the test closes our standard input.
    sys.stdin.read()


if __name__ == "__main__":
    main()
