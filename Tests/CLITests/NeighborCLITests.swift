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

    /// `serve` carries both: the gateway's entry (`netpath_gateway_up`) and the network
    /// (`netpath_path_network_info`), the same identifier `status --json` gives.
    @Test func serveShowsTheGatewayAndTheNetwork() throws {
        let lab = try GatewayLab("nbsrv")
        defer { lab.remove() }
        try lab.client.sendTraffic()
        let status = try #require(try netpath("status", "--json", "--netns", lab.client.name))
        let network = try #require(try jsonObject(String(status.standardOutput.split(separator: "\n").first ?? ""))["network"] as? String)
        let serving = try Serving(["--netns", lab.client.name])
        defer { _ = serving.stop() }
        let info = "netpath_path_network_info{netns=\"\(lab.client.name)\",network=\"\(network)\"} 1"
        let up = "netpath_gateway_up{netns=\"\(lab.client.name)\",gateway=\"192.0.2.1\",family=\"ipv4\"} 1"
        let text = try serving.metrics(until: { $0.contains(info) && $0.contains(up) })
        #expect(text.contains(info) && text.contains(up), "\(text.split(separator: "\n").filter { $0.contains("network_info") || $0.contains("gateway_up") })")
        // The router stops answering: its gateway reads 0, without a check.
        try lab.router.ip("addr del 192.0.2.1/24 dev r0")
        try lab.client.ip("neigh flush dev c0")
        try lab.client.sendTraffic()
        let down = up.replacingOccurrences(of: "} 1", with: "} 0")
        let after = try serving.metrics(until: { $0.contains(down) })
        #expect(after.contains(down), "\(after.split(separator: "\n").filter { $0.contains("gateway_up") })")
        #expect(try lab.client.neighbor("192.0.2.1")?.states.contains("FAILED") == true)
    }
}
