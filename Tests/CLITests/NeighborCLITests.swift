import Foundation
import KernelTestSupport
import NetPath
import NetPathSystem
import Testing

/// The real binary shows the gateway step (SPEC §3, "Per network"): `status --json` carries
/// `unresponsiveGateways` and `network`; `watch --json` reports a router that stops
/// answering, as `ip -j neigh` sees it, without a connectivity check.
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct NeighborCLITests {
    @Test func statusAndWatchShowTheGatewaysEntry() throws {
        let lab = try GatewayLab("nbcli")
        defer { lab.remove() }
        try lab.client.sendTraffic()
        #expect(try lab.client.neighbor("192.0.2.1")?.lladdr != nil)
        let status = try #require(try netpath("status", "--json", "--netns", lab.client.name))
        let line = try #require(status.standardOutput.split(separator: "\n").first.map(String.init))
        let keys = jsonKeys(line)
        #expect(Array(keys.drop { $0 != "gateways" }.prefix(4)) == ["gateways", "unresponsiveGateways", "network", "expensiveSource"])
        let object = try jsonObject(line)
        #expect(object["unresponsiveGateways"] as? [String] == [])
        let network = try #require(object["network"] as? String)
        #expect(network.count == 16 && network.allSatisfy(\.isHexDigit))

        let tool = try RunningTool(["watch", "--json", "--netns", lab.client.name])
        defer { tool.signal(SIGTERM) }
        let first = try jsonObject(try #require(tool.nextLine()))
        #expect(first["network"] as? String == network, "the same network, from a monitor of its own")
        try lab.router.ip("addr del 192.0.2.1/24 dev r0")
        try lab.client.ip("neigh flush dev c0")
        try lab.client.sendTraffic()
        var failed: [String: Any]?
        while failed == nil, let next = tool.nextLine() {
            let object = try jsonObject(next)
            if (object["unresponsiveGateways"] as? [String]) == ["192.0.2.1"] { failed = object }
        }
        #expect(failed?["status"] as? String == "satisfied")
        #expect(try lab.client.neighbor("192.0.2.1")?.states.contains("FAILED") == true)
    }
}
