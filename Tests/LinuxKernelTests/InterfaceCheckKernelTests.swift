import Foundation
import KernelTestSupport
import Testing
@testable import NetPath

/// ``ConnectivityCheck/run(on:namespace:)``: a check over a named interface, not only the
/// path's primary one (issue 38, "any interface"). The truth is `curl --interface`.
@Suite(.enabled(if: Kernel.canRun, "needs root, iproute2, python3 and curl"))
struct InterfaceCheckKernelTests {
    /// Each uplink's own verdict, as `curl --interface` finds it; with the primary one dead
    /// too, where the path's own check says the Internet is not there and the other uplink
    /// reaches it.
    @Test(arguments: [true, false])
    func eachUplinkIsJudgedAsCurlThroughItFindsIt(primaryForwards: Bool) async throws {
        try requireProgram("/usr/bin/curl", package: "curl")
        let lab = try TwoUplinkLab(primaryForwards: primaryForwards)
        defer { lab.remove() }
        let check = try ConnectivityCheck(endpoints: [try .init(TwoUplinkLab.url)], timeout: .seconds(2))
        var verdicts: [String: Connectivity] = [:]
        for interface in ["up0", "up1"] {
            let result = try await check.run(on: interface, namespace: lab.client.namespace)
            verdicts[interface] = result.connectivity
            #expect((result.connectivity == .full) == lab.curlReaches(through: interface), "\(interface): \(result)")
            // The uplinks have no IPv6 address: only IPv4 is checked.
            #expect(result.ipv6 == nil, "\(interface): \(result)")
        }
        // The lab is what it says: one uplink reaches the server, the other does not.
        #expect(verdicts == ["up0": .full, "up1": .limited])
        // The path's primary interface is the kernel's choice, and its check is that uplink's.
        let monitor = PathMonitor(configuration: .init(namespace: lab.client.namespace))
        let recorder = PathRecorder(monitor)
        try monitor.start()
        defer { monitor.cancel() }
        let path = try #require(await recorder.wait(seconds: 10) { $0.status == .satisfied })
        #expect(path.primaryInterface?.name == (primaryForwards ? "up0" : "up1"), "\(path)")
        let primary = await check.run(over: path, namespace: lab.client.namespace)
        #expect((primary.connectivity == .full) == primaryForwards, "\(primary)")
    }

    @Test func aNameThatIsNoInterfaceOrIsDownIsRefusedWithoutTraffic() async throws {
        let namespace = try TestNamespace("ifbad")
        defer { namespace.remove() }
        try namespace.addLinks("dn0")
        let check = try ConnectivityCheck(endpoints: [try .init("http://192.0.2.1/204")], timeout: .seconds(1))
        do {
            _ = try await check.run(on: "nosuch", namespace: namespace.namespace)
            Issue.record("a name that is no interface was checked")
        } catch let error as NetPathError {
            #expect(error.code == .interfaceNotFound && error.message.contains("nosuch"))
        }
        do {
            _ = try await check.run(on: "dn0", namespace: namespace.namespace)
            Issue.record("a down interface was checked")
        } catch let error as NetPathError {
            #expect(error.code == .interfaceNotRouted && error.message.contains("dn0"))
        }
        // Up, with an address, but no route to the Internet through it: an IPv4 socket bound
        // to it still connects (the kernel then takes every destination for on-link), while
        // the table has no entry for the flow — the kernel's own answer.
        try namespace.batch(["link add lan0 type veth peer name lan1", "addr add 10.85.0.1/24 dev lan0",
                             "link set lan0 up", "link set lan1 up"])
        let entry = try? run(Kernel.ipPath, ["-n", namespace.name, "route", "get", "fibmatch", "192.0.2.1", "oif", "lan0"])
        #expect(entry == nil, "the kernel has a table entry out of lan0: \(entry ?? "")")
        do {
            _ = try await check.run(on: "lan0", namespace: namespace.namespace)
            Issue.record("an interface with no route to the Internet was checked")
        } catch let error as NetPathError {
            #expect(error.code == .interfaceNotRouted && error.message.contains("lan0"))
        }
    }
}
