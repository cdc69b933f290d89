import Foundation
import NetPath

/// A client with two uplinks, only one of which reaches the server (issue 38, "any
/// interface"): `client` has `up0` (10.81.0.2, default route via `routerA`, metric 100) and
/// `up1` (10.82.0.2, default route via `routerB`, metric 200); `routerA` forwards to
/// `server` (10.83.0.2, probe_server.py on port 80), `routerB` forwards nothing (a new
/// namespace's `ip_forward` is 0, and it has no link to the server). No DNS: endpoints are
/// addresses. The truth of each uplink is `curl --interface` in the client namespace. With
/// `primaryForwards` false the metrics are the other way round: the primary uplink (`up1`,
/// the lower metric) reaches nothing and the other one does ("Wi-Fi has no Internet while
/// cellular does").
/// ``remove()`` stops the server and deletes the four namespaces.
public final class TwoUplinkLab: @unchecked Sendable {
    // Set up in init, torn down in remove(); used by one test.
    public let client: TestNamespace
    public let routerA: TestNamespace
    public let routerB: TestNamespace
    public let server: TestNamespace
    private let programs = ProbeLab.Programs()

    /// The endpoint behind `routerA`.
    public static let url = "http://10.83.0.2/204"

    public init(primaryForwards: Bool = true) throws {
        client = try TestNamespace("2ucli")
        routerA = try TestNamespace("2ura")
        routerB = try TestNamespace("2urb")
        server = try TestNamespace("2usrv")
        do {
            try client.ip("link add up0 type veth peer name cl0 netns \(routerA.name)")
            try client.ip("link add up1 type veth peer name cl0 netns \(routerB.name)")
            try routerA.ip("link add side type veth peer name eth0 netns \(server.name)")
            try routerA.batch(["addr add 10.81.0.1/24 dev cl0", "addr add 10.83.0.1/24 dev side", "link set cl0 up", "link set side up"])
            try run(Kernel.ipPath, ["netns", "exec", routerA.name, "sysctl", "-qw", "net.ipv4.ip_forward=1"])
            try routerB.batch(["addr add 10.82.0.1/24 dev cl0", "link set cl0 up"])
            try server.batch(["addr add 10.83.0.2/24 dev eth0", "link set eth0 up", "route add default via 10.83.0.1"])
            try client.batch(["addr add 10.81.0.2/24 dev up0", "addr add 10.82.0.2/24 dev up1", "link set up0 up", "link set up1 up",
                              "route add default via 10.81.0.1 metric \(primaryForwards ? 100 : 200)",
                              "route add default via 10.82.0.1 metric \(primaryForwards ? 200 : 100)"])
            try programs.start([Kernel.ipPath, "netns", "exec", server.name, "/usr/bin/env", "python3", ProbeLab.serverScript,
                                "--port", "80", "--bind", "10.83.0.2"], readyWhenOutputContains: "ready")
            try ProbeLab.waitUntilOnline(client)
        } catch {
            remove()
            throw error
        }
    }

    /// Whether `curl --interface NAME` in the client namespace gets the endpoint's 204: the
    /// truth for that uplink.
    public func curlReaches(through interface: String) -> Bool {
        let code = try? run(Kernel.ipPath, ["netns", "exec", client.name, "curl", "-s", "-o", "/dev/null", "-w", "%{http_code}",
                                            "--max-time", "2", "--interface", interface, TwoUplinkLab.url])
        return code == "204"
    }

    public func remove() {
        programs.stopAll()
        for namespace in [client, routerA, routerB, server] { namespace.remove() }
    }
}
