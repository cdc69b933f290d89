#!/usr/bin/env python3
"""HTTP endpoints for NetPath's connectivity-check tests: well-behaved, captive-portal and
hostile servers. Started by the tests inside a network namespace they create.

usage: probe_server.py --mode-file FILE --port N [--port N ...] [--bind ADDR ...]
Prints "ready" on stdout once every socket listens. The mode file holds how the default
endpoints are answered: "portal" or "online" (a hotel network before and after login),
"bypass" (a Cisco WLC's captive bypass: Apple's URL gets its success, every other URL a
redirect to the portal), "proxy204" (a transparent proxy answering 204 to every URL),
"stale-portal" (NetworkManager's requests still see the portal, NetPath's the Internet).
"""
import argparse, os, socket, sys, threading, time

DEFAULT_ANSWERS = {
    ("connectivitycheck.gstatic.com", "/generate_204"): (204, [], b""),
    ("nmcheck.gnome.org", "/check_network_status.txt"): (200, [("X-NetworkManager-Status", "online")], b"NetworkManager is online\n"),
    ("detectportal.firefox.com", "/success.txt"): (200, [], b"success\n"),
    ("www.msftconnecttest.com", "/connecttest.txt"): (200, [], b"Microsoft Connect Test"),
    ("captive.apple.com", "/hotspot-detect.html"): (200, [], b"<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>"),
}
REASONS = {200: "OK", 204: "No Content", 302: "Found", 404: "Not Found", 500: "Internal Server Error",
           511: "Network Authentication Required"}


def answer(conn, status, headers=(), body=b"", length=True):
    head = "HTTP/1.1 %d %s\r\n" % (status, REASONS.get(status, "X"))
    for name, value in headers:
        head += "%s: %s\r\n" % (name, value)
    if length:
        head += "Content-Length: %d\r\n" % len(body)
    head += "Connection: close\r\n\r\n"
    conn.sendall(head.encode() + body)


def handle(conn, mode_file):
    try:
        conn.settimeout(30)
        request = b""
        while b"\r\n\r\n" not in request and len(request) < 65536:
            chunk = conn.recv(4096)
            if not chunk:
                return
            request += chunk
        lines = request.decode("latin-1").split("\r\n")
        path = lines[0].split(" ")[1] if len(lines[0].split(" ")) > 1 else "/"
        host = ""
        agent = ""
        for line in lines[1:]:
            if line.lower().startswith("host:"):
                host = line.split(":", 1)[1].strip().split(":")[0].lower()
            if line.lower().startswith("user-agent:"):
                agent = line.split(":", 1)[1].strip()
        mode = open(mode_file).read().strip() if mode_file and os.path.exists(mode_file) else "online"
        if path == "/204":
            answer(conn, 204)
        elif path == "/empty200":
            answer(conn, 200)
        elif path == "/redirect":
            answer(conn, 302, [("Location", "http://portal.test/login")])
        elif path == "/login":
            answer(conn, 200, [("Content-Type", "text/html")], b"<html><body>Please log in</body></html>")
        elif path == "/login/accept":
            with open(mode_file, "w") as f:
                f.write("online\n")
            answer(conn, 200, [], b"welcome\n")
        elif path == "/meta-refresh":
            answer(conn, 200, [("Content-Type", "text/html")],
                   b"<html><head><title>Guest Wi-Fi</title>\n<META HTTP-EQUIV='Refresh' CONTENT='0; URL=/portal/login?from=probe&amp;lang=en'>"
                   b"</head><body>Redirecting to the login page</body></html>")
        elif path == "/early-hints":
            conn.sendall(b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n")
            answer(conn, 204)
        elif path == "/continue-redirect":
            conn.sendall(b"HTTP/1.1 100 Continue\r\n\r\n")
            answer(conn, 302, [("Location", "http://portal.test/login")])
        elif path == "/success":
            answer(conn, 200, [], b"success\n")
        elif path == "/nm":
            answer(conn, 200, [("X-NetworkManager-Status", "online")], b"NetworkManager is online\n")
        elif path == "/never":
            time.sleep(60)
        elif path == "/endless":
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n")
            while True:
                conn.sendall(b"x" * 65536)
        elif path.startswith("/status/") and path[8:].isdigit():
            answer(conn, int(path[8:]), [], b"status page\n")
        elif path == "/garbage":
            conn.sendall(os.urandom(3000))
        elif path == "/hugeheader":
            conn.sendall(b"HTTP/1.1 200 OK\r\nX-Big: " + b"a" * 200000 + b"\r\n\r\n")
        elif mode == "proxy204":
            answer(conn, 204)
        elif (host, path) in DEFAULT_ANSWERS:
            # stale-portal: NetworkManager's checks still see the portal, NetPath's do not
            # (a portal left behind the user's login, before NM looks again).
            if mode == "online" or (mode == "bypass" and host == "captive.apple.com") \
                    or (mode == "stale-portal" and agent.startswith("NetPath/")):
                status, headers, body = DEFAULT_ANSWERS[(host, path)]
                answer(conn, status, headers, body)
            else:
                answer(conn, 302, [("Location", "http://portal.test/login")])
        else:
            if mode in ("portal", "bypass"):
                answer(conn, 302, [("Location", "http://portal.test/login")])
            else:
                answer(conn, 404, [], b"not here\n")
    except (OSError, ValueError):
        pass
    finally:
        try:
            conn.close()
        except OSError:
            pass


def serve(listener, mode_file):
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=handle, args=(conn, mode_file), daemon=True).start()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, action="append", required=True)
    parser.add_argument("--bind", action="append", default=[])
    parser.add_argument("--mode-file")
    args = parser.parse_args()
    listeners = []
    for address in args.bind or ["0.0.0.0"]:
        family = socket.AF_INET6 if ":" in address else socket.AF_INET
        for port in args.port:
            listener = socket.socket(family, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                listener.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            listener.bind((address, port))
            listener.listen(64)
            listeners.append(listener)
    for listener in listeners:
        threading.Thread(target=serve, args=(listener, args.mode_file), daemon=True).start()
    print("ready", flush=True)
    try:
        sys.stdin.read()  # ends when the test closes our stdin (or dies)
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
