#!/usr/bin/env python3
"""Captures real D-Bus messages for the `dbus` fuzz target's seeds and the DBus tests' fixtures.

Starts a private `dbus-daemon --session`, connects two clients over raw sockets (no D-Bus
library: the marshalling below is the spec's, minimal), and records the exact bytes the daemon
sends: the SASL OK line, the Hello reply, the NameAcquired signal, a GetAll reply of the bus
itself, an error reply, and, forwarded by the daemon from the second client, a GetAll reply
with nested variants (little-endian) and a signal in big-endian byte order. The daemon checks
every message it forwards, so these bodies, though written here, are valid by its rules.

    Fuzz/tools/dbus-capture.py [OUTDIR]    (default Fuzz/corpus/dbus); prints each as hex
"""
import os, socket, struct, subprocess, sys

ALIGN = dict(y=1, b=4, n=2, q=2, i=4, u=4, x=8, t=8, d=8, s=4, o=4, g=1, a=4, v=1, h=4)
ALIGN["("] = ALIGN["{"] = 8
FMT = dict(y="B", b="I", n="h", q="H", i="i", u="I", x="q", t="Q", d="d", h="I")

def split(sig):
    """The complete types of a signature."""
    out, i = [], 0
    while i < len(sig):
        j = i
        while sig[j] == "a": j += 1
        if sig[j] in "({":
            depth = 0
            while True:
                depth += sig[j] in "({"; depth -= sig[j] in ")}"; j += 1
                if depth == 0: break
        else: j += 1
        out.append(sig[i:j]); i = j
    return out

class Writer:
    def __init__(self, order): self.o, self.b = order, bytearray()
    def pad(self, n): self.b += b"\0" * (-len(self.b) % n)
    def put(self, t, v):
        self.pad(ALIGN[t[0]])
        if t in FMT: self.b += struct.pack(self.o + FMT[t], v)
        elif t in "so": s = v.encode(); self.b += struct.pack(self.o + "I", len(s)) + s + b"\0"
        elif t == "g": s = v.encode(); self.b += bytes([len(s)]) + s + b"\0"
        elif t == "v": self.put("g", v[0]); self.put(v[0], v[1])
        elif t[0] == "(":
            for ct, cv in zip(split(t[1:-1]), v): self.put(ct, cv)
        elif t[0] == "a":
            at = len(self.b); self.b += b"\0\0\0\0"; self.pad(ALIGN[t[1]]); start = len(self.b)
            items = v.items() if t[1] == "{" else v
            for item in items:
                if t[1] == "{": self.pad(8); k, val = split(t[2:-1]); self.put(k, item[0]); self.put(val, item[1])
                else: self.put(t[1:], item)
            self.b[at:at + 4] = struct.pack(self.o + "I", len(self.b) - start)

def message(order, kind, serial, fields, sig="", body=()):
    """A whole message: `fields` maps a header field code to (signature, value)."""
    w = Writer(order)
    for t, v in zip(split(sig), body): w.put(t, v)
    if sig: fields[8] = ("g", sig)
    h = Writer(order)
    h.b += struct.pack(order + "cBBBII", b"l" if order == "<" else b"B", kind, 0, 1, len(w.b), serial)
    h.put("a(yv)", [(code, value) for code, value in sorted(fields.items())])
    h.pad(8)
    return bytes(h.b + w.b)

def call(serial, path, interface, member, destination, sig="", body=()):
    fields = {1: ("o", path), 3: ("s", member), 6: ("s", destination)}
    if interface: fields[2] = ("s", interface)
    return message("<", 1, serial, fields, sig, body)

class Client:
    def __init__(self, address):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); self.s.connect(address); self.buffer = b""
        self.s.sendall(b"\0AUTH EXTERNAL " + str(os.getuid()).encode().hex().encode() + b"\r\n")
        while b"\r\n" not in self.buffer: self.buffer += self.s.recv(4096)
        self.ok, self.buffer = self.buffer.split(b"\r\n", 1); self.ok += b"\r\n"
        self.s.sendall(b"BEGIN\r\n"); self.serial = 0
    def send(self, data): self.s.sendall(data)
    def next_serial(self): self.serial += 1; return self.serial
    def receive(self):
        """The next whole message's bytes, and its type, reply serial and sender."""
        while True:
            if len(self.buffer) >= 16:
                order = "<" if self.buffer[0:1] == b"l" else ">"
                body, _, fields = struct.unpack(order + "III", self.buffer[4:16])
                total = 16 + fields + (-(16 + fields) % 8) + body
                if len(self.buffer) >= total:
                    data, self.buffer = self.buffer[:total], self.buffer[total:]
                    return data, data[1], header_fields(data, order).get(5)
            self.buffer += self.s.recv(65536)
    def wait_reply(self, serial):
        while True:
            data, kind, reply = self.receive()
            if kind in (2, 3) and reply == serial: return data

def header_fields(data, order):
    """The header fields of a message whose values are strings or integers, by code."""
    end, at, fields = 16 + struct.unpack(order + "I", data[12:16])[0], 16, {}
    while at < end:
        at += -at % 8; code, length = data[at], data[at + 1]
        sig = data[at + 2:at + 2 + length].decode(); at += 3 + length
        if sig in "so":
            at += -at % 4; size = struct.unpack(order + "I", data[at:at + 4])[0]
            fields[code] = data[at + 4:at + 4 + size].decode(); at += 4 + size + 1
        elif sig == "g": fields[code] = data[at + 1:at + 1 + data[at]].decode(); at += 1 + data[at] + 1
        else: at += -at % 4; fields[code] = struct.unpack(order + "I", data[at:at + 4])[0]; at += 4
    return fields

BUS = dict(path="/org/freedesktop/DBus", interface="org.freedesktop.DBus", destination="org.freedesktop.DBus")

def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "Fuzz/corpus/dbus"
    daemon = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address"], stdout=subprocess.PIPE, text=True)
    try:
        line = daemon.stdout.readline().strip()
        spec = dict(part.split("=", 1) for part in line.split(":", 1)[1].split(","))
        address = spec["path"] if "path" in spec else "\0" + spec["abstract"]
        captured = {}
        b = Client(address); captured["auth-ok"] = b.ok
        serial = b.next_serial(); b.send(call(serial, member="Hello", **BUS))
        captured["hello-reply"] = b.wait_reply(serial)
        captured["name-acquired"] = next(d for d, k, _ in iter(b.receive, None) if k == 4)
        serial = b.next_serial(); b.send(call(serial, "/org/freedesktop/DBus", "org.freedesktop.DBus.Properties", "GetAll", "org.freedesktop.DBus", "s", ["org.freedesktop.DBus"]))
        captured["getall-bus-reply"] = b.wait_reply(serial)
        serial = b.next_serial(); b.send(call(serial, member="NoSuchMethod", **BUS))
        captured["error-reply"] = b.wait_reply(serial)
        serial = b.next_serial(); b.send(call(serial, member="AddMatch", sig="s", body=["type='signal',interface='org.example.Device'"], **BUS))
        b.wait_reply(serial)

        a = Client(address)
        serial = a.next_serial(); a.send(call(serial, member="Hello", **BUS))
        a_name = header_fields(a.wait_reply(serial), "<")[6]
        serial = b.next_serial(); b.send(call(serial, "/org/example/Device", "org.freedesktop.DBus.Properties", "GetAll", a_name, "s", ["org.example.Device"]))
        request, _, _ = next(m for m in iter(a.receive, None) if m[1] == 1)
        captured["getall-call-forwarded"] = request
        properties = {
            "Name": ("s", "wlan0 ✓"), "Count": ("u", 42), "Flag": ("b", True), "Ratio": ("d", 0.5),
            "Path": ("o", "/org/example/Device/1"), "Bytes": ("ay", [1, 2, 3]),
            "Deep": ("v", ("v", ("i", -7))),
            "Inner": ("a{sv}", {"Mtu": ("q", 1500), "Empty": ("at", []), "Pair": ("(xs)", (-1, "x"))}),
        }
        request_serial = struct.unpack("<I", request[8:12])[0]
        reply = message("<", 2, a.next_serial(), {5: ("u", request_serial), 6: ("s", header_fields(request, "<")[7])}, "a{sv}", [properties])
        a.send(reply)
        captured["getall-nested-reply"] = b.wait_reply(serial)
        signal = message(">", 4, a.next_serial(), {1: ("o", "/org/example/Device"), 2: ("s", "org.example.Device"), 3: ("s", "Changed")},
                         "sa{sv}as(yqx)", ["wlan0", {"State": ("u", 100), "Ids": ("ai", [-1, 2])}, ["Carrier"], (7, 65535, -2)])
        a.send(signal)
        captured["signal-big-endian"] = next(d for d, k, _ in iter(b.receive, None) if k == 4 and d[0:1] == b"B")
        os.makedirs(outdir, exist_ok=True)
        for key, data in captured.items():
            with open(os.path.join(outdir, key), "wb") as f: f.write(data)
            print(f"{key} ({len(data)} bytes): {data.hex()}")
    finally:
        daemon.terminate(); daemon.wait()

main()
