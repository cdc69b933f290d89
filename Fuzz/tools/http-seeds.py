#!/usr/bin/env python3
"""Writes seeds for the http fuzz target: responses captured off a real socket from
Python's http.server answering as each default endpoint and as captive portals do, plus
the odd shapes HTTP allows (HTTP/1.0, bare LF, chunked with extensions, 511).

Each seed starts with the harness's selector byte: selector % 8 picks the expectation
(0-4: the default endpoints' answers in ConnectivityCheck.defaultEndpoints order, 5: status
204, 6: a 302 with a Location, 7: body prefix "ok"), (selector >> 3) % 7 the endpoint whose
URL a Location is resolved against, bit 7 a 1 KiB size limit instead of 64 KiB.
Output: OUTDIR (default Fuzz/corpus/http)."""
import http.server, os, socket, sys, threading

out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "corpus", "http")
os.makedirs(out, exist_ok=True)

ANSWERS = {  # path: (status, headers, body, chunked)
    "/generate_204": (204, [("Content-Length", "0"), ("Cross-Origin-Resource-Policy", "cross-origin")], b"", False),
    "/check_network_status.txt": (200, [("Content-Type", "text/plain"), ("X-NetworkManager-Status", "online")],
                                  b"NetworkManager is online\n", False),
    "/success.txt": (200, [("Content-Type", "text/plain"), ("Cache-Control", "no-cache, no-store, must-revalidate")],
                     b"success\n", False),
    "/connecttest.txt": (200, [("Content-Type", "text/plain")], b"Microsoft Connect Test", False),
    "/hotspot-detect.html": (200, [("Content-Type", "text/html")],
                             b"<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>\n", False),
    "/portal-redirect": (302, [("Location", "https://login.hotel.example/portal?orig=http%3A%2F%2Fconnectivitycheck.gstatic.com%2F")], b"", False),
    "/portal-relative": (307, [("Location", "../login.html?x=1")], b"<a href=login>moved</a>", False),
    "/portal-page": (200, [("Content-Type", "text/html; charset=utf-8")],
                     b"<!doctype html><html><head><title>Welcome</title></head><body><form method=post action=/login>"
                     b"<input name=room><input type=submit value=Connect></form></body></html>", False),
    "/portal-511": (511, [("Content-Type", "text/html")],
                    b"<html><head><meta http-equiv=\"refresh\" content=\"0; url=http://10.0.0.1/login\"></head></html>", False),
    "/chunked-ok": (200, [("Content-Type", "text/plain")], [b"succ", b"ess\n"], True),
    "/chunked-portal": (200, [], [b"<html>", b"login required</html>"], True),
    "/not-found": (404, [("Content-Type", "text/plain")], b"not here\n", False),
}


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        status, headers, body, chunked = ANSWERS[self.path]
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        elif not any(n == "Content-Length" for n, _ in headers):
            self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if chunked:
            for i, part in enumerate(body):
                self.wfile.write(b"%x%s\r\n%s\r\n" % (len(part), b";ext=1" if i == 0 else b"", part))
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.wfile.write(body)

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()


def fetch(path):
    with socket.create_connection(("127.0.0.1", server.server_address[1])) as s:
        s.sendall(b"GET %s HTTP/1.1\r\nHost: example\r\nConnection: close\r\n\r\n" % path.encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
        return data


seeds = [  # (name, selector, response)
    ("google-204", 0, fetch("/generate_204")),
    ("gnome-nm-online", 1, fetch("/check_network_status.txt")),
    ("firefox-success", 2, fetch("/success.txt")),
    ("msft-connecttest", 3, fetch("/connecttest.txt")),
    ("apple-success", 4, fetch("/hotspot-detect.html")),
    ("portal-302-absolute", 0, fetch("/portal-redirect")),
    ("portal-307-relative", 8 * 5 + 1, fetch("/portal-relative")),
    ("portal-login-page", 0, fetch("/portal-page")),
    ("portal-511", 2, fetch("/portal-511")),
    ("chunked-success", 2, fetch("/chunked-ok")),
    ("chunked-portal", 0, fetch("/chunked-portal")),
    ("expected-302", 6, fetch("/portal-redirect")),
    ("not-found-limit-1k", 0x80 | 5, fetch("/not-found")),
    ("http10-bare-lf", 7, b"HTTP/1.0 200 OK\nContent-Type: text/plain\nContent-Length: 2\n\nok"),
    ("cut-short", 0, b"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n<html"),
    ("not-http", 0, b"SSH-2.0-OpenSSH_9.6\r\n"),
]
for name, selector, data in seeds:
    with open(os.path.join(out, name), "wb") as f:
        f.write(bytes([selector]) + data)
server.shutdown()
