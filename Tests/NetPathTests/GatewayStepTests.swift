import NetPath
import Testing

/// The gateway step comes from the path's unresponsive gateways, by family.
@Suite struct GatewayStepTests {
    @Test func aFamilysUnresponsiveGatewayIsItsGatewayStep() {
        var path = NetworkPath(status: .satisfied)
        #expect(!path.gatewayUnresponsive(for: .ipv4) && !path.gatewayUnresponsive(for: .ipv6))
        path.unresponsiveGateways = ["fe80::1"]
        #expect(!path.gatewayUnresponsive(for: .ipv4) && path.gatewayUnresponsive(for: .ipv6))
        path.unresponsiveGateways = ["192.0.2.1"]
        #expect(path.gatewayUnresponsive(for: .ipv4) && !path.gatewayUnresponsive(for: .ipv6))
    }
}
