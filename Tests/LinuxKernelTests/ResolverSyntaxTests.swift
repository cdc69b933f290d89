import Foundation
import Testing
import KernelTestSupport
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// SPEC §2.6: resolv.conf is read as glibc's resolver reads it. Each text is given to glibc
/// itself: written as a namespace's `/etc/netns/NAME/resolv.conf`, which `ip netns exec`
/// bind-mounts over `/etc/resolv.conf`, where Python's ctypes calls `res_init()` and lists
/// the servers of `_res`. glibc keeps at most three (`MAXNS`), and with none it falls back
/// to 127.0.0.1, so no text here names 127.0.0.1 and the comparison is of the first three.
@Suite(.enabled(if: Kernel.canRun, "needs root, iproute2 and python3"))
struct ResolverSyntaxTests {
    /// Prints the size of the file it sees as /etc/resolv.conf, then glibc's servers. The
    /// layout of `struct __res_state` is that of resolv/bits/types/res_state.h on LP64
    /// (568 bytes; the size is checked).
    static let glibcServers = #"""
    import ctypes, socket, sys
    from ctypes import *
    class SIN(Structure): _fields_ = [("family", c_ushort), ("port", c_ushort), ("addr", c_ubyte * 4), ("zero", c_ubyte * 8)]
    class SIN6(Structure): _fields_ = [("family", c_ushort), ("port", c_ushort), ("flow", c_uint32), ("addr", c_ubyte * 16), ("scope", c_uint32)]
    class EXT(Structure): _fields_ = [("nscount", c_uint16), ("nsmap", c_uint16 * 3), ("nssocks", c_int * 3), ("nscount6", c_uint16), ("nsinit", c_uint16), ("nsaddrs", POINTER(SIN6) * 3)]
    class U(Union): _fields_ = [("pad", c_char * 52), ("ext", EXT)]
    class SORT(Structure): _fields_ = [("addr", c_uint32), ("mask", c_uint32)]
    class STATE(Structure): _fields_ = [("retrans", c_int), ("retry", c_int), ("options", c_ulong), ("nscount", c_int), ("nsaddr_list", SIN * 3), ("id", c_ushort), ("dnsrch", c_void_p * 7), ("defdname", c_char * 256), ("pfcode", c_ulong), ("bits", c_uint), ("sort_list", SORT * 10), ("qhook", c_void_p), ("rhook", c_void_p), ("res_h_errno", c_int), ("vcsock", c_int), ("flags", c_uint), ("u", U)]
    assert sizeof(STATE) == 568 and STATE.nscount.offset == 16
    print(len(open("/etc/resolv.conf", "rb").read()))
    libc = CDLL("libc.so.6")
    libc.__res_state.restype = POINTER(STATE)
    state = libc.__res_state().contents
    if libc.__res_init() != 0: sys.exit("res_init failed")
    for i in range(state.nscount):
        if state.nsaddr_list[i].family == socket.AF_INET:
            print(socket.inet_ntop(socket.AF_INET, bytes(state.nsaddr_list[i].addr)))
        else:
            print(socket.inet_ntop(socket.AF_INET6, bytes(state.u.ext.nsaddrs[i].contents.addr)))
    """#

    static let texts: [String] = [
        "nameserver 192.0.2.1\n", " nameserver 192.0.2.1\n", "\tnameserver 192.0.2.1\n", "\rnameserver 192.0.2.1\n",
        "nameserver 192.0.2.1\r\n", "nameserver 192.0.2.1\r\nnameserver 192.0.2.2\n", "nameserver 192.0.2.1 \r\n",
        "nameserver\t\t192.0.2.1\t# office\n", "nameserver   192.0.2.1 and more\n", "nameserver 192.0.2.1",
        "nameserver192.0.2.1\n", "nameservers 192.0.2.1\n", "NAMESERVER 192.0.2.1\n", "nameserver\n", "nameserver \t \n",
        "#nameserver 192.0.2.1\n;nameserver 192.0.2.2\n", "nameserver 192.0.2.1\0junk\n", "nameserver\0 192.0.2.1\n",
        "nameserver 10.53\n", "nameserver 127.2\n", "nameserver 0x7f.0X35\n", "nameserver 010.0.0.1\n", "nameserver 08.1.1.1\n",
        "nameserver 3221225985\n", "nameserver 4294967295\n", "nameserver 4294967296\n", "nameserver 1.2.65535\n",
        "nameserver 1.2.65536\n", "nameserver 1.2.3.256\n", "nameserver 1.2.3.4.5\n", "nameserver 1..2\n", "nameserver 1.2.3.\n",
        "nameserver 0x\n", "nameserver 0b1\n", "nameserver 0x100000000\n", "nameserver 99999999999999999999999\n",
        "nameserver 192.0.2.1%eth0\n", "nameserver 1.2.3.4\u{0B}\n", "nameserver １.2.3.4\n",
        "nameserver fe80::1%eth0\n", "nameserver fe80::1%\n", "nameserver 2001:db8::53\n", "nameserver ::\n",
        "nameserver ::ffff:192.0.2.1\n", "nameserver ::192.0.2.1\n", "nameserver ::ffff:01.2.3.4\n", "nameserver +1::\n",
        "nameserver 1:2:3:4:5:6:7::\n", "nameserver 1:2:3:4:5:6:7:8::\n", "nameserver 12345::\n", "nameserver 1::2::3\n",
        "nameserver :1::\n", "nameserver 1:\n", "nameserver 2001:db8::1\r\n",
        "search example.org\nnameserver bogus\nnameserver 192.0.2.7\noptions edns0\n",
        (1...5).map { "nameserver 192.0.2.\($0)\n" }.joined(),
        "nameserver 2001:db8::1\nnameserver bogus\nnameserver 10.1\nnameserver fd00::53%lo\nnameserver 192.0.2.9\n",
        "# " + String(repeating: "x", count: 70_000) + "\nnameserver 192.0.2.9\n",
        String(repeating: "search example.org\n", count: 5000) + "nameserver 192.0.2.10\n",
        "",
    ]

    @Test func glibcFindsTheServersWeFind() throws {
        let ns = try TestNamespace("glibc")
        defer { ns.remove() }
        let loopback = IPAddress("127.0.0.1")
        var agreed = 0
        for text in ResolverSyntaxTests.texts {
            let bytes = Array(text.utf8)
            #expect(FileManager.default.createFile(atPath: ns.resolverDirectory + "/resolv.conf", contents: Data(bytes)))
            let output = try run(Kernel.ipPath, ["netns", "exec", ns.name, "/usr/bin/env", "python3", "-c", ResolverSyntaxTests.glibcServers])
            let lines = output.split(separator: "\n").map(String.init)
            // The bind mount took effect: glibc read this text.
            try #require(lines.first == String(bytes.count), "\(text.prefix(80).debugDescription): \(output)")
            var glibc = lines.dropFirst().map(IPAddress.init)
            if glibc == [loopback] { glibc = [] }
            let ours = ResolverConfiguration.nameservers(in: bytes).map(IPAddress.init)
            #expect(!ours.contains(loopback), "a text must not name glibc's fallback")
            #expect(Array(ours.prefix(3)) == glibc, "\(text.prefix(80).debugDescription): glibc \(lines.dropFirst()), ours \(ours)")
            #expect(ours.isEmpty == glibc.isEmpty)
            if Array(ours.prefix(3)) == glibc { agreed += 1 }
        }
        #expect(agreed == ResolverSyntaxTests.texts.count)
    }
}
