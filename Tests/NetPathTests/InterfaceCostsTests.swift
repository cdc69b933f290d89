import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

@Suite struct InterfaceCostsTests {
    @Test(arguments: [
        ("usb0", "usb0", true), ("usb0", "usb1", false), ("usb0", "usb", false), ("usb", "usb0", false),
        ("usb?", "usb0", true), ("usb?", "usb10", false), ("enx*", "enx0250b6c3a1f2", true), ("enx*", "enx", true),
        ("enx*", "eth0", false), ("*", "eth0", true), ("*0", "wwan0", true), ("*0", "wwan1", false),
        ("w*n*", "wwan0", true), ("w*n?", "wan0", true), ("*a*a*", "aa", true), ("*a*a*", "ab", false),
        ("e*h*", "eth0", true), ("**", "", true), ("", "", true), ("", "x", false), ("?", "", false),
        ("eth*0", "eth10", true), ("eth*0", "eth01", false), ("usb\\*", "usb0", false),
    ])
    func patternsMatchWholeNames(pattern: String, name: String, matches: Bool) {
        #expect(InterfaceCosts.matches(pattern, name) == matches)
    }

    @Test func onlyThePrimaryInterfaceOfASatisfiedPathCounts() {
        let usb = NetworkInterface(name: "usb0", index: 4, type: .wiredEthernet)
        let eth = NetworkInterface(name: "eth0", index: 2, type: .wiredEthernet)
        let costs = InterfaceCosts(metered: ["usb*"], constrained: ["usb0"])
        let throughUSB = NetworkPath(status: .satisfied, availableInterfaces: [usb, eth], supportsIPv4: true)
        let marked = costs.apply(to: throughUSB)
        #expect(marked.isExpensive && marked.isConstrained)
        var expected = throughUSB
        expected.isExpensive = true
        expected.expensiveSource = .configuration
        expected.isConstrained = true
        #expect(marked == expected)  // nothing else changes
        // USB is there, but the traffic leaves through eth0: neither.
        let throughEthernet = NetworkPath(status: .satisfied, availableInterfaces: [eth, usb], supportsIPv4: true)
        #expect(costs.apply(to: throughEthernet) == throughEthernet)
        // Not satisfied: no primary interface, nothing to mark.
        let down = NetworkPath(status: .unsatisfied, unsatisfiedReason: .notAvailable, diagnosis: .noDefaultRoute,
                               availableInterfaces: [usb])
        #expect(costs.apply(to: down) == down)
        // The backend's own answer stays: cellular is expensive whatever the configuration says.
        let cellular = NetworkPath(status: .satisfied, availableInterfaces: [NetworkInterface(name: "wwan0", index: 5, type: .cellular)],
                                   isExpensive: true)
        #expect(InterfaceCosts(metered: ["usb0"]).apply(to: cellular).isExpensive)
        #expect(InterfaceCosts().isEmpty && !costs.isEmpty)
    }

    @Test func underAVPNTheInterfaceBeneathTheTunnelCounts() {
        let tunnel = NetworkInterface(name: "wg0", index: 7, type: .other)
        let usb = NetworkInterface(name: "usb0", index: 4, type: .wiredEthernet)
        let costs = InterfaceCosts(metered: ["usb*"], constrained: ["usb0"], ultraConstrained: ["usb0"])
        let vpn = NetworkPath(status: .satisfied, availableInterfaces: [tunnel, usb], tunnelInterface: tunnel,
                              underlyingInterface: usb, supportsIPv4: true)
        let marked = costs.apply(to: vpn)
        #expect(marked.isExpensive && marked.isConstrained && marked.isUltraConstrained)
        #expect(costs.apply(to: marked) == marked)  // applying twice changes nothing more
        // A pattern naming the tunnel marks nothing: the tunnel is not what costs.
        #expect(InterfaceCosts(metered: ["wg*"], ultraConstrained: ["wg0"]).apply(to: vpn) == vpn)
    }

    @Test func aMonitorMarksEveryPathItDelivers() async throws {
        let backend = ManualBackend(initial: online)
        let monitor = PathMonitor(configuration: .init(meteredInterfaces: ["eth0"], constrainedInterfaces: ["wlan*"]),
                                  backend: backend.factory)
        #expect(monitor.meteredInterfaces == ["eth0"] && monitor.constrainedInterfaces == ["wlan*"])
        try monitor.start()
        var paths = monitor.paths.makeAsyncIterator()
        let first = try #require(monitor.currentPath)
        #expect(first.isExpensive && !first.isConstrained)
        #expect(await paths.next() == first)
        backend.send(onlineTwo)
        let second = try #require(await paths.next())
        #expect(!second.isExpensive && second.isConstrained && second.availableInterfaces == onlineTwo.availableInterfaces)
        backend.send(offline)
        #expect(await paths.next() == offline)
        monitor.cancel()
    }
}
