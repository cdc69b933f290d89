#!/usr/bin/env python3
"""A small forward HTTP proxy for NetPath's proxy tests, as squid answers: a request in
absolute form (GET http://host[:port]/path) is sent on to that host with the path alone, and
its answer relayed; CONNECT host:port opens a tunnel to that host (200, then bytes relayed
both ways until either side closes); a host it cannot reach gets 502 Bad Gateway, a request
in neither form 400, a missing or wrong Proxy-Authorization (with --auth) 407.

With --socks it is a SOCKS5 proxy instead (RFC 1928; with --auth, RFC 1929's username and
password): CONNECT to a name (looked up in --resolve) or an address; a name it does not know
gets reply 4 (host unreachable), a refused connection 5; then bytes are relayed both ways.

usage: proxy_server.py --port N --bind ADDR [--resolve NAME=ADDR ...] [--auth USER:PASSWORD]
                       [--log FILE] [--socks]
Names are looked up in --resolve only (the proxy's own DNS). Each request's first line and
its Proxy-Authorization value (or "-") are appended to --log. Prints "ready" once listening.
"""
import argparse, base64, select, socket, struct, sys, threading


def reply(conn, status, reason):
    body = ("%d %s\n" % (status, reason)).encode()
    head = "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: close\r\n" % (status, reason, len(body))
    if status == 407:
        head += 'Proxy-Authenticate: Basic realm="lab"\r\n'
    conn.sendall(head.encode() + b"\r\n" + body)


def tunnel(conn, authority, names):
    host, _, port = authority.rpartition(":")
    address = names.get(host.lower())
    if address is None or not port.isdigit():
        return reply(conn, 502, "Bad Gateway")
    try:
        upstream = socket.create_connection((address, int(port)), timeout=5)
    except OSError:
        return reply(conn, 502, "Bad Gateway")
    with upstream:
        conn.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
        relay(conn, upstream)


def relay(conn, upstream):
    conn.settimeout(None)
    upstream.settimeout(None)
    while True:
        readable, _, _ = select.select([conn, upstream], [], [], 10)
        if not readable:
            return
        for source in readable:
            data = source.recv(65536)
            if not data:
                return
            (upstream if source is conn else conn).sendall(data)


def read_exactly(conn, count):
    data = b""
    while len(data) < count:
        chunk = conn.recv(count - len(data))
        if not chunk:
            raise OSError("closed")
        data += chunk
    return data


def handle_socks(conn, args, names, lock):
    try:
        conn.settimeout(10)
        version, count = read_exactly(conn, 2)
        methods = read_exactly(conn, count)
        wanted = 2 if args.auth else 0
        if version != 5 or wanted not in methods:
            conn.sendall(bytes([5, 0xFF]))
            return
        conn.sendall(bytes([5, wanted]))
        user = "-"
        if args.auth:
            _, length = read_exactly(conn, 2)
            name = read_exactly(conn, length).decode("latin-1")
            (length,) = read_exactly(conn, 1)
            password = read_exactly(conn, length).decode("latin-1")
            user = name
            if name + ":" + password != args.auth:
                conn.sendall(bytes([1, 1]))
                return
            conn.sendall(bytes([1, 0]))
        _, command, _, kind = read_exactly(conn, 4)
        if kind == 1:
            host = socket.inet_ntop(socket.AF_INET, read_exactly(conn, 4))
        elif kind == 4:
            host = socket.inet_ntop(socket.AF_INET6, read_exactly(conn, 16))
        else:
            (length,) = read_exactly(conn, 1)
            host = read_exactly(conn, length).decode("latin-1")
        port = struct.unpack("!H", read_exactly(conn, 2))[0]
        if args.log:
            with lock, open(args.log, "a") as log:
                log.write("SOCKS5 CONNECT %s:%d\t%s\n" % (host, port, user))
        address = names.get(host.lower(), host if kind != 3 else None)
        failure = b"\x05\x04\x00\x01\x00\x00\x00\x00\x00\x00"
        if command != 1 or address is None:
            conn.sendall(failure)
            return
        try:
            upstream = socket.create_connection((address, port), timeout=5)
        except OSError:
            conn.sendall(b"\x05\x05\x00\x01\x00\x00\x00\x00\x00\x00")
            return
        with upstream:
            conn.sendall(b"\x05\x00\x00\x01\x00\x00\x00\x00\x00\x00")
            relay(conn, upstream)
    except (OSError, ValueError):
        pass
    finally:
        conn.close()


def handle(conn, args, names, lock):
    try:
        conn.settimeout(10)
        request = b""
        while b"\r\n\r\n" not in request and len(request) < 65536:
            chunk = conn.recv(4096)
            if not chunk:
                return
            request += chunk
        head = request.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
        parts = head[0].split(" ")
        authorization = "-"
        for line in head[1:]:
            if line.lower().startswith("proxy-authorization:"):
                authorization = line.split(":", 1)[1].strip()
        if args.log:
            with lock, open(args.log, "a") as log:
                log.write("%s\t%s\n" % (head[0], authorization))
        if args.auth and authorization != "Basic " + base64.b64encode(args.auth.encode()).decode():
            return reply(conn, 407, "Proxy Authentication Required")
        if len(parts) == 3 and parts[0] == "CONNECT":
            return tunnel(conn, parts[1], names)
        if len(parts) != 3 or not parts[1].lower().startswith("http://"):
            return reply(conn, 400, "Bad Request")
        rest = parts[1][7:]
        authority, _, path = rest.partition("/")
        host, _, port = authority.partition(":")
        address = names.get(host.lower())
        if address is None:
            return reply(conn, 502, "Bad Gateway")
        try:
            upstream = socket.create_connection((address, int(port or 80)), timeout=5)
        except OSError:
            return reply(conn, 502, "Bad Gateway")
        with upstream:
            lines = ["%s /%s %s" % (parts[0], path, parts[2])]
            lines += [line for line in head[1:] if not line.lower().startswith(("proxy-", "connection:"))]
            lines += ["Connection: close", "Via: 1.1 lab-proxy"]
            upstream.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
            while True:
                chunk = upstream.recv(65536)
                if not chunk:
                    break
                conn.sendall(chunk)
    except OSError:
        pass
    finally:
        conn.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--bind", required=True)
    parser.add_argument("--resolve", action="append", default=[])
    parser.add_argument("--auth")
    parser.add_argument("--log")
    parser.add_argument("--socks", action="store_true")
    args = parser.parse_args()
    names = dict(entry.lower().split("=", 1) for entry in args.resolve)
    listener = socket.socket(socket.AF_INET6 if ":" in args.bind else socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind((args.bind, args.port))
    listener.listen(64)
    lock = threading.Lock()
    print("ready", flush=True)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=handle_socks if args.socks else handle, args=(conn, args, names, lock), daemon=True).start()


if __name__ == "__main__":
    main()
