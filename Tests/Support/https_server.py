#!/usr/bin/env python3
"""A test HTTPS server: answers 204 to every GET over TLS with the given certificate and key.

  https_server.py --bind ADDRESS --port PORT --cert FILE --key FILE
  https_server.py --bind ADDRESS --port PORT --plain

With --plain, no TLS: whatever comes is answered with a plain HTTP 400, as a web server
answers a request it cannot parse (an interceptor that speaks only HTTP on port 443).

Prints "ready" once it listens. Each connection is served on a thread of its own; a
handshake that fails (a client that does not trust the certificate) only ends that one."""
import argparse, socket, ssl, threading

parser = argparse.ArgumentParser()
parser.add_argument("--bind", required=True)
parser.add_argument("--port", type=int, default=443)
parser.add_argument("--cert")
parser.add_argument("--key")
parser.add_argument("--plain", action="store_true")
options = parser.parse_args()

if not options.plain:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(options.cert, options.key)
family = socket.AF_INET6 if ":" in options.bind else socket.AF_INET
listener = socket.socket(family, socket.SOCK_STREAM)
listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
listener.bind((options.bind, options.port))
listener.listen(64)


def serve(connection):
    if options.plain:
        try:
            connection.recv(4096)
            connection.sendall(b"HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
        except OSError:
            pass
        connection.close()
        return
    try:
        with context.wrap_socket(connection, server_side=True) as tls:
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = tls.recv(4096)
                if not chunk:
                    return
                request += chunk
            tls.sendall(b"HTTP/1.1 204 No Content\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
    except (ssl.SSLError, OSError):
        pass
    finally:
        connection.close()


print("ready", flush=True)
while True:
    connection, _ = listener.accept()
    threading.Thread(target=serve, args=(connection,), daemon=True).start()
