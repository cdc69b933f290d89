import Foundation
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// SPEC §2.6: a resolv.conf is read as glibc's resolver reads it (resolv/res_init.c). The
/// same texts are given to glibc itself in LinuxKernelTests/ResolverSyntaxTests.
@Suite struct ResolverFileTests {
    func servers(_ text: String) -> [String] {
        ResolverConfiguration.nameservers(in: Array(text.utf8))
    }

    @Test func theKeywordCountsOnlyAtTheStartOfALineFollowedByABlank() {
        #expect(servers("nameserver 192.0.2.1\n") == ["192.0.2.1"])
        #expect(servers(" nameserver 192.0.2.1\n").isEmpty)
        #expect(servers("\tnameserver 192.0.2.1\n").isEmpty)
        #expect(servers("\rnameserver 192.0.2.1\n").isEmpty)
        #expect(servers("nameserver192.0.2.1\n").isEmpty)
        #expect(servers("nameservers 192.0.2.1\n").isEmpty)
        #expect(servers("NAMESERVER 192.0.2.1\n").isEmpty)
        #expect(servers("nameserver\n").isEmpty && servers("nameserver \t \n").isEmpty && servers("nameserver").isEmpty)
    }

    @Test func commentsNameNoServer() {
        #expect(servers("#nameserver 192.0.2.1\n;nameserver 192.0.2.2\n# nameserver 192.0.2.3\n").isEmpty)
        #expect(servers("# comment\nsearch example.org\nnameserver 10.0.0.53\nnameserver\tfd00::53\nnameserver bogus\noptions edns0\n")
                == ["10.0.0.53", "fd00::53"])
    }

    @Test func theAddressEndsAtABlankAndWhatFollowsIsIgnored() {
        #expect(servers("nameserver\t\t192.0.2.1\t# the office\n") == ["192.0.2.1"])
        #expect(servers("nameserver   192.0.2.1 and more words\n") == ["192.0.2.1"])
        #expect(servers("nameserver 192.0.2.1") == ["192.0.2.1"])  // no newline at the end
        // glibc reads a line as a C string: a NUL ends the address.
        #expect(servers("nameserver 192.0.2.1\0junk\n") == ["192.0.2.1"])
    }

    @Test func aTrailingCarriageReturnMakesTheLineInvalid() {
        #expect(servers("nameserver 192.0.2.1\r\n").isEmpty)
        #expect(servers("nameserver 2001:db8::1\r\n").isEmpty)
        #expect(servers("nameserver 192.0.2.1\r\nnameserver 192.0.2.2\n") == ["192.0.2.2"])
        #expect(servers("nameserver 192.0.2.1 \r\n") == ["192.0.2.1"])  // the CR is past the address
    }

    @Test func addressesAreTakenAsInetAtonTakesThem() {
        #expect(servers("nameserver 10.53\n") == ["10.0.0.53"])
        #expect(servers("nameserver 127.1\n") == ["127.0.0.1"])
        #expect(servers("nameserver 0x7f.0X35\n") == ["127.0.0.53"])
        #expect(servers("nameserver 010.0.0.1\n") == ["8.0.0.1"])
        #expect(servers("nameserver 3221225985\n") == ["192.0.2.1"])
    }

    @Test func ipv6AddressesLoseTheirScope() {
        #expect(servers("nameserver fe80::1%eth0\n") == ["fe80::1"])
        #expect(servers("nameserver fe80::1%\n") == ["fe80::1"])
        #expect(servers("nameserver 2001:0db8:0000::53\n") == ["2001:db8::53"])
        #expect(servers("nameserver 192.0.2.1%eth0\n").isEmpty)
    }

    @Test func serversAnywhereInTheFileCount() {
        let filler = "# " + String(repeating: "x", count: 70_000) + "\n" + String(repeating: "search example.org\n", count: 4000)
        #expect(servers(filler + "nameserver 192.0.2.9\n") == ["192.0.2.9"])
        let many = (1...5).map { "nameserver 192.0.2.\($0)\n" }.joined()
        #expect(servers(many).count == 5)
    }

    @Test func aWholeLargeFileIsRead() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("np-resolv-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = String(repeating: "# padding padding padding padding padding padding padding\n", count: 3000) + "nameserver 192.0.2.9\n"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(text.utf8.count > 128 * 1024)
        #expect(ResolverConfiguration(candidates: [path]).servers(read: { Syscall.readFile($0) }) == ["192.0.2.9"])
    }

    @Test func theSystemdStubIsRecognisedInAnyForm() {
        let files = ["/stub": "nameserver 127.53\n", "/upstream": "nameserver 192.0.2.53\n"]
        func read(_ path: String) -> [UInt8]? { files[path].map { Array($0.utf8) } }
        #expect(ResolverConfiguration(candidates: ["/stub"], upstreamFile: "/upstream").servers(read: read) == ["192.0.2.53"])
    }

    @Test(arguments: [
        ("1.2.3.4", "1.2.3.4"), ("10.53", "10.0.0.53"), ("127.1", "127.0.0.1"), ("1.2.65535", "1.2.255.255"),
        ("1.16777215", "1.255.255.255"), ("4294967295", "255.255.255.255"), ("0", "0.0.0.0"), ("00", "0.0.0.0"),
        ("0x0", "0.0.0.0"), ("0xc0.0xA8.1.1", "192.168.1.1"), ("0XFFFFFFFF", "255.255.255.255"), ("017.1.1.1", "15.1.1.1"),
        ("0x000000000000000001", "0.0.0.1"), ("00000000000000000000000010", "0.0.0.8"), ("1.0x10.3.4", "1.16.3.4"),
    ])
    func inetAtonAcceptsWhatGlibcAccepts(text: String, address: String) {
        #expect(ResolverConfiguration.inetAtonExact(Array(text.utf8)[...])?.description == address)
    }

    @Test(arguments: [
        "", ".", "1.", "1.2.3.", ".1", "1..2", "1.2.3.4.5", "1.2.3.256", "1.2.65536", "1.16777216", "4294967296",
        "99999999999999999999999", "256.1", "08", "09.1.1.1", "0x", "0x.1", "0xg", "0b1", "1a", "+1", "-1", " 1",
        "1 ", "1.2.3.4\r", "1.2.3.4%eth0", "0x100000000", "1.0x100.1",
    ])
    func inetAtonRefusesWhatGlibcRefuses(_ text: String) {
        #expect(ResolverConfiguration.inetAtonExact(Array(text.utf8)[...]) == nil)
    }

    @Test(arguments: [
        ("::", "::"), ("::1", "::1"), ("1::", "1::"), ("1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"), ("::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8"),
        ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"), ("FE80::ABCD", "fe80::abcd"), ("0001:0002::", "1:2::"),
        ("::ffff:192.0.2.1", "::ffff:192.0.2.1"), ("::192.0.2.1", "::c000:201"), ("1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304"),
    ])
    func inetPton6AcceptsWhatGlibcAccepts(text: String, address: String) {
        #expect(ResolverConfiguration.inetPton6(Array(text.utf8)[...])?.description == address)
    }

    @Test(arguments: [
        "", ":", ":::", ":1::", "1:", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8::", "::1:2:3:4:5:6:7:8",
        "1:2:3:4:5:6:7", "g::1", "+1::", "::ffff:01.2.3.4", "::ffff:1.2.3", "::ffff:1.2.3.4.5", "::ffff:256.1.1.1",
        "::1.2.3.4:1", "1.2.3.4", "1:2:3:4:5:6:7:1.2.3.4", "::1 ", "fe80::1%eth0",
    ])
    func inetPton6RefusesWhatGlibcRefuses(_ text: String) {
        #expect(ResolverConfiguration.inetPton6(Array(text.utf8)[...]) == nil)
    }
}
