import Foundation
import KernelTestSupport
import Testing
@testable import NetPath

/// SPEC §3, per network: each family's verdict over its own sockets, against `curl -4` and
/// `curl -6` in the same namespace.
@Suite(.enabled(if: Kernel.canRun, "needs root, iproute2, python3, dnsmasq and libnftables"))
struct FamilyKernelTests {
    /// A router that forwards IPv4 and drops forwarded IPv6: the check is `full`, IPv4
    /// `full`, IPv6 `limited` at the connection step, as curl finds; with IPv6 forwarded,
    /// both pass. The monitor shows IPv4's pass at once, not at the end of IPv6's timeout.
    @Test(arguments: [false, true])
    func eachFamilysVerdictIsCurls(forwardsIPv6: Bool) async throws {
        let lab = try DualStackLab(forwardsIPv6: forwardsIPv6)
        defer { lab.remove() }
        let check = try ConnectivityCheck(endpoints: [try .init(DualStackLab.url)], timeout: .seconds(5))
        let monitor = PathMonitor(configuration: .init(namespace: lab.client.namespace, connectivityCheck: check))
        let recorder = PathRecorder(monitor)
        try monitor.start()
        defer { monitor.cancel() }
        let checked = try #require(await recorder.wait(seconds: 20) { path in
            IPFamily.allCases.allSatisfy { path.connectivity(for: $0) != .unknown }
        })
        if !forwardsIPv6 {
            // The first verdict shown came before IPv6's 5 s timeout ended its check.
            let first = try #require(recorder.paths.first { $0.connectivity != .unknown })
            #expect(first.connectivity == .full && first.connectivity(for: .ipv4) == .full
                    && first.connectivity(for: .ipv6) == .unknown, "\(first.familyConnectivity)")
        }
        let path = try #require(recorder.paths.first)
        #expect(path.supportsIPv4 && path.supportsIPv6)
        let result = await check.run(over: path, namespace: lab.client.namespace)
        for family in IPFamily.allCases {
            let truth = lab.curlPasses(family)
            let verdict = try #require(result.family(family), "\(family) not checked")
            #expect((verdict.connectivity == .full) == truth, "\(family): \(verdict) but curl \(truth ? "passes" : "fails")")
            #expect((checked.connectivity(for: family) == .full) == truth, "monitor \(family): \(checked.familyConnectivity)")
            if !truth {
                #expect(verdict.connectivity == .limited && verdict.failedStep == .connection, "\(verdict)")
                #expect(checked.description.contains("\(family): limited — the router forwards nothing"), "\(checked.description)")
            }
        }
        #expect(result.connectivity == .full && checked.connectivity == .full)
        if !forwardsIPv6 {
            #expect(try DualStackLab.counted(in: lab.router, table: "netpath_lab") > 0, "no IPv6 packet reached the router")
        }
    }

    /// A client without an IPv6 address (a default route via the router's link-local
    /// address, from which Linux would send), or with one but no IPv6 route to the Internet,
    /// is not checked over IPv6: not one IPv6 SYN.
    @Test(arguments: ["no address", "no route"])
    func aFamilyWithoutAnAddressOrARouteIsNotChecked(missing: String) async throws {
        let lab = try DualStackLab(forwardsIPv6: true, clientIPv6: missing == "no route")
        defer { lab.remove() }
        if missing == "no route" { try lab.client.ip("-6 route del default") }
        let check = try ConnectivityCheck(endpoints: [try .init(DualStackLab.url)], timeout: .seconds(3))
        let monitor = PathMonitor(configuration: .init(namespace: lab.client.namespace))
        let recorder = PathRecorder(monitor)
        try monitor.start()
        defer { monitor.cancel() }
        let path = try #require(await recorder.wait(seconds: 10) { $0.status == .satisfied })
        #expect(path.supportsIPv4 && !path.supportsIPv6)
        let result = await check.run(over: path, namespace: lab.client.namespace)
        #expect(result.connectivity == .full && result.ipv4?.connectivity == .full && result.ipv6 == nil, "\(result)")
        #expect(try DualStackLab.counted(in: lab.client, table: "netpath_count") == 0)
        #expect(!lab.curlPasses(.ipv6))
        if missing == "no route" {  // the route back, and curl -6 passes
            try lab.client.ip("-6 route add default via fd81::1")
            #expect(lab.curlPasses(.ipv6))
        }
        // The counter counts: curl -6 sends its SYN (from the link-local address without one).
        #expect(try DualStackLab.counted(in: lab.client, table: "netpath_count") > 0)
    }
}
