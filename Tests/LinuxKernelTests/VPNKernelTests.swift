import Foundation
import Testing
import KernelTestSupport
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// SPEC §1: a path through a VPN names the tunnel and the physical interface beneath it, and
/// its costs are the physical interface's (as `NWPath` reports a VPN over cellular as
/// expensive). Each VPN is set up as the real client sets it up — wg-quick, Tailscale,
/// OpenVPN's `def1` — over a link configured as metered and over one typed cellular (a veth
/// named `wwan0`). The tunnel must be the kernel's choice for an app's socket, and the
/// interface beneath must be the kernel's choice for the VPN's own packets (`ip route get
/// ENDPOINT mark M`, with the client's firewall mark), never a hand-written expectation.
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct VPNKernelTests {
    /// The link beneath the VPN and how it comes to be expensive.
    enum Underlay: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// `eth0`, configured as metered (`meteredInterfaces: ["eth0"]`).
        case metered = "eth0"
        /// `wwan0`: cellular by its name (SPEC 2.7), expensive with nothing configured.
        case cellular = "wwan0"

        var testDescription: String { rawValue }
        var connectionType: NetworkMonitor.ConnectionType { self == .cellular ? .cellular : .ethernet }
    }

    /// The VPN server: its packets leave through the physical link.
    static let endpoint = "203.0.113.9"

    /// The device the kernel gives the VPN client's own packets to `endpoint` (with the
    /// client's firewall mark, if it sets one).
    func kernelDevice(_ ns: TestNamespace, mark: String?) throws -> String? {
        let output = try run(Kernel.ipPath, ["-n", ns.name, "-o", "route", "get", Self.endpoint] + (mark.map { ["mark", $0] } ?? []))
        let words = output.split(whereSeparator: \.isWhitespace)
        return words.firstIndex(of: "dev").flatMap { words.index(after: $0) < words.endIndex ? String(words[$0 + 1]) : nil }
    }

    /// Waits for the monitor to agree with the kernel, then checks the VPN facts: the tunnel
    /// the kernel chose, the link the kernel gives the VPN's own packets beneath it, the
    /// costs of that link, and what `NetworkMonitor` makes of it.
    func expectVPN(
        _ recorder: PathRecorder, _ ns: TestNamespace, tunnel: String, mark: String?, underlay: Underlay,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let decision = try await recorder.expectAgreement(ns, sourceLocation: sourceLocation)
        #expect(decision.primary == tunnel, "the test built a VPN the kernel uses", sourceLocation: sourceLocation)
        let beneath = try kernelDevice(ns, mark: mark)
        #expect(beneath == underlay.rawValue, "the VPN's own packets leave through the link", sourceLocation: sourceLocation)
        let path = await recorder.wait(seconds: 5) { $0.underlyingInterface != nil && $0.tunnelInterface?.name == tunnel }
        #expect(path?.tunnelInterface?.name == tunnel && path?.underlyingInterface?.name == beneath,
                "\(recorder.paths.last?.summary ?? "-")", sourceLocation: sourceLocation)
        #expect(path?.tunnelInterface?.type == .other && path?.isExpensive == true, sourceLocation: sourceLocation)
        #expect(path.map { NetworkMonitor.ConnectionType($0) } == underlay.connectionType, sourceLocation: sourceLocation)
        // A fresh one-shot read (`netpath status`) says the same.
        let status = try PathMonitor.snapshot(namespace: ns.namespace, meteredInterfaces: ["eth0"])
        #expect(status.tunnelInterface == path?.tunnelInterface && status.underlyingInterface == path?.underlyingInterface
                && status.isExpensive, sourceLocation: sourceLocation)
    }

    /// No tunnel: the physical link is the primary interface, and still expensive.
    func expectNoVPN(_ recorder: PathRecorder, _ ns: TestNamespace, underlay: Underlay,
                     sourceLocation: SourceLocation = #_sourceLocation) async throws {
        #expect(try await recorder.expectAgreement(ns, sourceLocation: sourceLocation).primary == underlay.rawValue,
                sourceLocation: sourceLocation)
        let last = recorder.paths.last
        #expect(last?.tunnelInterface == nil && last?.underlyingInterface == nil && last?.isExpensive == true,
                sourceLocation: sourceLocation)
        #expect(last.map { NetworkMonitor.ConnectionType($0) } == underlay.connectionType, sourceLocation: sourceLocation)
    }

    @Test(arguments: Underlay.allCases)
    func aVPNNamesTheLinkBeneathAndCostsWhatItCosts(_ underlay: Underlay) async throws {
        let link = underlay.rawValue
        let ns = try TestNamespace("vpn" + String(link.prefix(1)))
        defer { ns.remove() }
        try ns.addLinks(link)
        // IPv4 only, so the link beneath is found by its routes, not by an IPv6 choice.
        try ns.batch(["link set \(link) up", "addr add 10.50.0.2/24 dev \(link)", "route add default via 10.50.0.1"])
        var tunnels: [TunAttachment] = []
        defer { for tunnel in tunnels { tunnel.close() } }
        for name in ["wg0", "tailscale0", "tun0"] {
            tunnels.append(try attachTun(ns, name))
            try ns.batch(["link set \(name) up", "addr add 10.64.0.\(tunnels.count + 1)/32 dev \(name)"])
        }
        let monitor = PathMonitor(
            configuration: .init(namespace: ns.namespace, meteredInterfaces: ["eth0"]),
            backend: PathMonitor.systemSource(namespace: ns.namespace, options: .init())
        )
        let recorder = PathRecorder(monitor)
        try monitor.start()
        defer { monitor.cancel() }
        try await expectNoVPN(recorder, ns, underlay: underlay)

        // Full tunnels selected by rules, as their clients set them up and take them down;
        // the client's own packets carry its firewall mark.
        let ruled: [(tunnel: String, mark: String, up: [String], down: [String])] = [
            // wg-quick: every packet without the tunnel's mark goes to table 51820; the
            // tunnel's own packets (marked 51820) take the main table's default.
            ("wg0", "51820",
             ["route add default dev wg0 table 51820",
              "rule add not fwmark 51820 table 51820 pref 32764", "rule add table main suppress_prefixlength 0 pref 32763"],
             ["rule del pref 32764", "rule del pref 32763", "route flush table 51820"]),
            // Tailscale: table 52 at priority 5270; tailscaled's own packets carry 0x80000
            // and a rule at 5210 sends them to the main table.
            ("tailscale0", "0x80000",
             ["route add default dev tailscale0 table 52",
              "rule add pref 5210 fwmark 0x80000/0xff0000 table main", "rule add pref 5270 table 52"],
             ["rule del pref 5210", "rule del pref 5270", "route flush table 52"]),
        ]
        for vpn in ruled {
            try ns.batch(vpn.up)
            try await expectVPN(recorder, ns, tunnel: vpn.tunnel, mark: vpn.mark, underlay: underlay)
            try ns.batch(vpn.down)
            try await expectNoVPN(recorder, ns, underlay: underlay)
        }

        // OpenVPN's def1: two halves through the tunnel, a host route to the server through
        // the link; the main table's default stays.
        try ns.batch([
            "route add \(Self.endpoint)/32 via 10.50.0.1 dev \(link)",
            "route add 0.0.0.0/1 dev tun0", "route add 128.0.0.0/1 dev tun0",
        ])
        try await expectVPN(recorder, ns, tunnel: "tun0", mark: nil, underlay: underlay)
        // The link's default goes (a DHCP lease lost): only a host route to the server is
        // left on it, which covers none of the Internet. NetPath knows no VPN's server, so
        // nothing lies beneath the tunnel any more: the tunnel is the path's own interface
        // (the documented limit), and it costs what a tunnel costs.
        try ns.ip("route del default via 10.50.0.1")
        #expect(try await recorder.expectAgreement(ns).primary == "tun0")
        let alone = recorder.paths.last
        #expect(alone?.tunnelInterface == nil && alone?.underlyingInterface == nil && alone?.isExpensive == false)
        // The client exits: its routes go with the device.
        tunnels.removeLast().close()
        try ns.ip("link del tun0")
        let gone = try await recorder.expectAgreement(ns)
        #expect(!gone.isSatisfied && recorder.paths.last?.tunnelInterface == nil)
    }

    /// A tunnel with no physical link that carries a route beneath it (a PPP link alone, a
    /// namespace with only a tun device) is the path's primary interface, not a VPN.
    @Test func aTunnelWithNothingBeneathIsNoVPN() async throws {
        let ns = try TestNamespace("vpnnone")
        defer { ns.remove() }
        let tunnel = try attachTun(ns, "tun0")
        defer { tunnel.close() }
        try ns.batch(["link set tun0 up", "addr add 10.65.0.2/32 dev tun0", "route add default dev tun0"])
        let (monitor, recorder) = try startMonitor(ns)
        defer { monitor.cancel() }
        #expect(try await recorder.expectAgreement(ns).primary == "tun0")
        let last = recorder.paths.last
        #expect(last?.tunnelInterface == nil && last?.underlyingInterface == nil && last?.isExpensive == false)
        #expect(last.map { NetworkMonitor.ConnectionType($0) } == .other)
    }
}
