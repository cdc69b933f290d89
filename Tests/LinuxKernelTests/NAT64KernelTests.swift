import Foundation
import Testing
import KernelTestSupport
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// IPv6-only networks, built from Debian's real NAT64 (tayga) and DNS64 (unbound) in
/// namespaces (Tests/Support/nat64-lab.sh): a client with only IPv6, a router translating
/// to an IPv4-only HTTP server. The path, the check by name and by IPv4 literal, the NAT64
/// prefix discovered as RFC 7050 says, for the well-known prefix and a network-specific one;
/// the same network without NAT64; the DNS64 resolver stopped mid-way.
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct NAT64KernelTests {
    func check(_ urls: String...) throws -> ConnectivityCheck {
        try ConnectivityCheck(endpoints: try urls.map { try .init($0) }, timeout: .seconds(5), resolutionTimeout: .seconds(3))
    }

    @Test(arguments: ["64:ff9b::/96", "2001:db8:64::/96"])
    func anIPv6OnlyNetworkReachesTheIPv4InternetThroughNAT64(_ prefix: String) async throws {
        let lab = try NAT64Lab(prefix: prefix)
        defer { lab.remove() }
        let path = try PathMonitor.snapshot(namespace: lab.clientNamespace)
        #expect(path.status == .satisfied && path.supportsIPv6 && !path.supportsIPv4 && path.supportsDNS, "\(path)")

        // By name: DNS64 synthesizes the AAAA record; the prefix is found and reported.
        let byName = try await check("http://check.test/204").run(over: path, namespace: lab.clientNamespace)
        #expect(byName.connectivity == .full && byName.nat64Prefix == prefix, "\(byName)")

        // By IPv4 literal: reached at the address the discovered prefix synthesizes.
        let literal = "http://\(lab.serverIPv4)/204"
        let byLiteral = try await check(literal).run(over: path, namespace: lab.clientNamespace)
        #expect(byLiteral.connectivity == .full && byLiteral.nat64Prefix == prefix && byLiteral.url == literal, "\(byLiteral)")

        // A running monitor with the check: its paths say `full`.
        let monitor = PathMonitor(configuration: .init(namespace: lab.clientNamespace, connectivityCheck: try check(literal)))
        let recorder = PathRecorder(monitor)
        try monitor.start()
        defer { monitor.cancel() }
        #expect(await recorder.wait(seconds: 10) { $0.connectivity == .full } != nil, "\(recorder.paths)")

        // The DNS64 resolver stops: names no longer resolve (`local`), the literal still works.
        try lab.stopDNS()
        let stopped = try await check("http://check.test/204").run(over: path, namespace: lab.clientNamespace)
        #expect(stopped.connectivity == .local && stopped.nat64Prefix == nil, "\(stopped)")
    }

    @Test func withoutNAT64AnIPv4LiteralIsAClearLimited() async throws {
        let lab = try NAT64Lab(prefix: "64:ff9b::/96", nat64: false)
        defer { lab.remove() }
        let path = try PathMonitor.snapshot(namespace: lab.clientNamespace)
        #expect(path.status == .satisfied && path.supportsIPv6 && !path.supportsIPv4)
        let result = try await check("http://\(lab.serverIPv4)/204").run(over: path, namespace: lab.clientNamespace)
        #expect(result.connectivity == .limited && result.nat64Prefix == nil && result.failure?.kind == .noNAT64, "\(result)")
        #expect(result.failure?.message == "cannot reach \(lab.serverIPv4): the path has no IPv4 and the network no NAT64 (ipv4only.arpa has no AAAA record)")
        // (The reason is the resolver's answer, not the check's timeout running out.)
        // By name: only an A record, and no IPv4 route to it.
        let byName = try await check("http://check.test/204").run(over: path, namespace: lab.clientNamespace)
        #expect(byName.connectivity == .limited && byName.nat64Prefix == nil && byName.failure?.kind == .noNAT64, "\(byName)")
        #expect(byName.failure?.message == "cannot reach \(lab.serverIPv4): the path has no IPv4 and the network no NAT64")
    }
}
