import Dispatch
import Observation
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem
import NetPathTestKit

/// `NetworkMonitor` and the public test kit, on Linux, without a network and without sleeps.
@MainActor
@Suite struct NetworkMonitorTests {
    @Test func optimisticUntilTheFirstPathAndConfigurable() {
        let network = SimulatedNetwork(.offline())
        let optimistic = NetworkMonitor(simulating: network)
        #expect(optimistic.isConnected && optimistic.path == nil && optimistic.connectionType == .unknown)
        let pessimistic = NetworkMonitor(simulating: network, assumeConnected: false)
        #expect(!pessimistic.isConnected)
        optimistic.start()
        #expect(!optimistic.isConnected && optimistic.status == .unsatisfied && optimistic.isMonitoring)
    }

    /// Given a `PathMonitor` that runs already (its path known, no change coming), the
    /// monitor shows that path at `start`, not only after the next change.
    @Test func aPathMonitorThatRunsAlreadyIsShownAtStart() throws {
        let network = SimulatedNetwork(.offline(.noCarrier))
        let paths = PathMonitor(simulating: network)
        try paths.start()
        var seen: [Bool] = []
        let monitor = NetworkMonitor(monitor: paths)
        monitor.startMonitoring { seen.append($0) }
        #expect(!monitor.isConnected && monitor.path?.diagnosis == .noCarrier && seen == [false])
        network.send(.online(.wifi))
        #expect(monitor.isConnected && seen == [false, true])
    }

    @Test func eachTransitionUpdatesTheArticlesProperties() {
        let network = SimulatedNetwork(.online(.wifi))
        let monitor = NetworkMonitor(simulating: network)
        monitor.start()
        #expect(monitor.isConnected && monitor.connectionType == .wifi && !monitor.isExpensive)
        network.send(.online(.cellular))
        #expect(monitor.connectionType == .cellular && monitor.isExpensive && monitor.isNetworkAvailable)
        network.send(.online(.wiredEthernet))
        #expect(monitor.connectionType == .ethernet)
        network.send(.online(.other))
        #expect(monitor.connectionType == .other)
        network.send(.offline(.noCarrier))
        #expect(!monitor.isConnected && monitor.connectionType == .unknown && monitor.path?.diagnosis == .noCarrier)
        #expect(!monitor.isNetworkAvailable)
        var constrained = NetworkPath.online(.wifi)
        constrained.isConstrained = true
        network.send(constrained)
        #expect(monitor.isConstrained && monitor.isConnected && !monitor.isUltraConstrained && monitor.linkQuality == .unknown)
        // A VPN: the transport beneath the tunnel, and the monitor says a VPN is in use.
        network.send(.vpn(over: .wifi))
        #expect(monitor.connectionType == .wifi && monitor.usesVPN && !monitor.isExpensive)
        network.send(.vpn(over: .cellular, tunnel: "wg0"))
        #expect(monitor.connectionType == .cellular && monitor.usesVPN && monitor.isExpensive)
        var satellite = NetworkPath.online(.other, name: "sat0")
        satellite.isUltraConstrained = true
        satellite.linkQuality = .minimal
        network.send(satellite)
        #expect(monitor.connectionType == .other && !monitor.usesVPN && monitor.isUltraConstrained && monitor.linkQuality == .minimal)
    }

    /// Under `.internetReachable` a satisfied path the check has not decided (`unknown`, as
    /// every change is until its check ends) keeps what is shown: no offline at launch, none
    /// at an IPv6 address or a roam, and a portal stays offline until the check says `full`.
    @Test func aCheckNotYetDecidedKeepsWhatIsShown() {
        let network = SimulatedNetwork(.online(.wifi))
        let monitor = NetworkMonitor(simulating: network, isConnectedMeans: .internetReachable)
        var seen: [Bool] = []
        monitor.startMonitoring { seen.append($0) }
        #expect(monitor.isConnected && monitor.connectivity == .unknown)  // assumed until a verdict
        network.send(NetworkPath.online(.wifi).checked(.full))
        network.send(.online(.wifi, name: "wlan1"))  // a roam: the check starts over
        #expect(monitor.isConnected && monitor.path?.primaryInterface?.name == "wlan1")
        network.send(NetworkPath.online(.wifi, name: "wlan1").checked(.portal))
        #expect(!monitor.isConnected)
        network.send(.online(.wifi, name: "wlan1"))  // still undecided: offline stays
        #expect(!monitor.isConnected)
        network.send(NetworkPath.online(.wifi, name: "wlan1").checked(.full))
        network.send(.offline(.noCarrier))  // not satisfied: offline whatever was shown
        #expect(seen == [true, true, true, false, false, true, false])
        let pessimistic = NetworkMonitor(simulating: SimulatedNetwork(.online(.wifi)), assumeConnected: false,
                                         isConnectedMeans: .internetReachable)
        pessimistic.start()
        #expect(!pessimistic.isConnected)
    }

    /// A blip shorter than the grace never shows as offline; a real loss shows when the
    /// grace ends; online shows at once. Time moves only with the network's simulated clock.
    @Test func anOfflineGraceHidesBlipsAndShowsRealLosses() {
        let network = SimulatedNetwork(.online(.wifi))
        let monitor = NetworkMonitor(simulating: network, offlineGrace: .milliseconds(800))
        var seen: [Bool] = []
        monitor.startMonitoring { seen.append($0) }
        #expect(monitor.isConnected && seen == [true] && monitor.offlineGrace == .milliseconds(800))
        // A Wi-Fi roam: offline for 300 ms, then back.
        network.send(.offline(.noCarrier))
        #expect(monitor.isConnected && monitor.connectionType == .wifi && monitor.path?.status == .satisfied)
        network.advance(by: .milliseconds(300))
        network.send(.online(.wifi, name: "wlan1"))
        #expect(monitor.isConnected && monitor.path?.primaryInterface?.name == "wlan1")  // online at once
        network.advance(by: .seconds(10))
        #expect(monitor.isConnected && seen == [true, true])  // the held path never showed
        // A real loss: held for the grace, through a change of why, then shown.
        network.send(.offline(.noCarrier))
        network.advance(by: .milliseconds(500))
        network.send(.offline(.noInterface))
        network.advance(by: .milliseconds(299))
        #expect(monitor.isConnected)
        network.advance(by: .milliseconds(1))  // 800 ms after the first offline path
        #expect(!monitor.isConnected && monitor.path?.diagnosis == .noInterface && monitor.connectionType == .unknown)
        #expect(seen == [true, true, false])
        // Offline already: a new reason shows at once.
        network.send(.offline(.noAddress))
        #expect(monitor.path?.diagnosis == .noAddress)
        // Stopped during a grace: nothing shows later.
        network.send(.online(.cellular))
        network.send(.offline())
        monitor.stop()
        network.advance(by: .seconds(1))
        #expect(monitor.isConnected && monitor.connectionType == .cellular)
        // The underlying monitor stays exact.
        let exact = NetworkMonitor(simulating: network)
        exact.start()
        network.send(.offline(.noCarrier))
        #expect(!exact.isConnected)
    }

    @Test(arguments: [
        (true, true, false, 0.8, OfflineGrace.show), (true, false, false, 0.8, .show), (false, true, false, 0, .show),
        (false, true, false, 0.8, .startHolding), (false, true, true, 0.8, .hold), (false, false, false, 0.8, .show),
        (true, true, true, 0.8, .show),
    ])
    func theGraceRule(connected: Bool, shownConnected: Bool, holding: Bool, grace: Double, expected: OfflineGrace) {
        #expect(OfflineGrace.decide(connected: connected, shownConnected: shownConnected, holding: holding,
                                    grace: .milliseconds(Int(grace * 1000))) == expected)
    }

    /// The test kit scripts what issue 38 added: each family's verdict, a dead router and
    /// another network behind the same gateway address, each a change a monitor shows.
    @Test func theKitScriptsFamilyVerdictsADeadRouterAndAnotherNetwork() {
        let dualStack = NetworkPath.online(.wifi).onNetwork("a1").checked(.full, ipv4: .full, ipv6: .limited)
        let network = SimulatedNetwork(dualStack, script: [dualStack.onNetwork("b2"), dualStack.withUnresponsiveGateways().checked(.local, ipv4: .local)])
        let monitor = NetworkMonitor(simulating: network)
        monitor.start()
        #expect(monitor.path?.connectivity == .full && monitor.path?.connectivity(for: .ipv6) == .limited)
        #expect(monitor.path?.familyConnectivity[.ipv6]?.failedStep == .http && monitor.path?.network == "a1")
        network.step()
        #expect(monitor.path?.network == "b2" && monitor.path?.gateways == dualStack.gateways)
        network.step()
        #expect(monitor.path?.unresponsiveGateways == ["192.0.2.1"] && monitor.path?.familyConnectivity[.ipv4]?.failedStep == .gateway)
        #expect(monitor.path?.connectivity(for: .ipv6) == .unknown && monitor.isConnected)
    }

    @Test func observationFiresOnChangeOnly() {
        let network = SimulatedNetwork(.online(.wifi))
        let monitor = NetworkMonitor(simulating: network)
        monitor.start()
        let fired = Flag()
        withObservationTracking { _ = monitor.isConnected } onChange: { fired.set() }
        network.send(.online(.cellular))  // isConnected stays true: no change to it
        #expect(!fired.isSet)
        network.send(.offline())
        #expect(fired.isSet)
    }

    @Test func pathsFromAnotherThreadArriveOnTheMainActor() async {
        let network = SimulatedNetwork(.online(.wifi))
        let monitor = NetworkMonitor(simulating: network)
        monitor.start()
        await withCheckedContinuation { (changed: CheckedContinuation<Void, Never>) in
            withObservationTracking { _ = monitor.isConnected } onChange: { changed.resume() }
            DispatchQueue.global().async { network.send(.offline()) }
        }
        // onChange runs before the store; the value is set once the main actor runs again.
        await Task.yield()
        #expect(!monitor.isConnected)
    }

    @Test func stopAndStartAgain() {
        let network = SimulatedNetwork(.online(.wifi))
        let monitor = NetworkMonitor(simulating: network)
        for _ in 0..<3 {
            monitor.start()
            monitor.start()
            #expect(network.activeMonitors == 1)
            network.send(.offline())
            #expect(!monitor.isConnected)
            monitor.stop()
            #expect(network.activeMonitors == 0 && !monitor.isMonitoring)
            network.send(.online(.wifi))
            #expect(!monitor.isConnected)  // stopped: keeps its last value
            monitor.start()
            #expect(monitor.isConnected)  // the current path first
            monitor.stop()
        }
    }

    @Test func callbackTrio() {
        let network = SimulatedNetwork(.online(.wifi))
        let monitor = NetworkMonitor(simulating: network)
        var calls: [Bool] = []
        monitor.startMonitoring { calls.append($0) }
        network.send(.offline())
        network.send(.online(.cellular))
        #expect(calls == [true, false, true])
        monitor.stopMonitoring()
        network.send(.offline())
        #expect(calls == [true, false, true] && !monitor.isMonitoring)
    }

    @Test func aStartedMonitorIsFreedWhenItsOwnerLetsGo() {
        let network = SimulatedNetwork(.online(.wifi))
        weak var weakMonitor: NetworkMonitor?
        do {
            let monitor = NetworkMonitor(simulating: network)
            monitor.startMonitoring { _ in _ = monitor }  // even a completion that captures it
            monitor.stopMonitoring()
            monitor.start()
            weakMonitor = monitor
            #expect(network.activeMonitors == 1)
        }
        #expect(weakMonitor == nil)
        #expect(network.activeMonitors == 0)
    }

    @Test func manySubscribersOfOneSimulatedMonitor() async throws {
        let network = SimulatedNetwork(.offline(), script: [.online(.wifi), .online(.cellular), .offline(.noAddress)])
        let monitor = PathMonitor(simulating: network)
        try monitor.start()
        let loops = (0..<100).map { _ in
            Task { () -> NetworkPath? in
                var last: NetworkPath?
                for await path in monitor.paths {
                    last = path
                    if path == .offline(.noAddress) { break }
                }
                return last
            }
        }
        while monitor.storage.subscriberCount < 100 { await Task.yield() }
        network.playAll()
        for loop in loops { #expect(await loop.value == .offline(.noAddress)) }
        #expect(network.remainingSteps == 0)
    }

    @Test func replaysARecordedTrace() throws {
        let trace = """
        {"time":"2026-11-30T05:02:46.464Z","status":"unsatisfied","unsatisfiedReason":"notAvailable","diagnosis":"noInterface","interfaces":[],"isExpensive":false,"isConstrained":false,"supportsIPv4":false,"supportsIPv6":false,"supportsDNS":false,"gateways":[]}

        {"time":"2026-11-30T05:02:47.070Z","status":"satisfied","unsatisfiedReason":null,"diagnosis":null,"interfaces":[{"name":"eth0","index":3,"type":"wiredEthernet"}],"isExpensive":false,"isConstrained":false,"supportsIPv4":true,"supportsIPv6":false,"supportsDNS":true,"gateways":["192.0.2.1"]}
        {"time":"2026-11-30T05:02:48.070Z","status":"satisfied","unsatisfiedReason":null,"diagnosis":null,"interfaces":[{"name":"wwan0","index":4,"type":"cellular"}],"isExpensive":true,"isConstrained":false,"supportsIPv4":true,"supportsIPv6":true,"supportsDNS":true,"gateways":["100.64.0.1","fe80::1"],"connectivity":"full","portalURL":null}
        """
        let network = try SimulatedNetwork(trace: trace)
        let monitor = NetworkMonitor(simulating: network)
        monitor.start()
        #expect(!monitor.isConnected && monitor.path?.diagnosis == .noInterface)
        #expect(network.step()?.gateways == ["192.0.2.1"])
        #expect(monitor.isConnected && monitor.connectionType == .ethernet)
        network.step()
        #expect(monitor.connectionType == .cellular && monitor.isExpensive && monitor.path?.gateways == ["100.64.0.1", "fe80::1"])
        #expect(network.step() == nil)
    }

    @Test func badTracesNameTheLine() {
        #expect(throws: NetPathError.self) { try SimulatedNetwork(trace: "") }
        let bad = #"{"status":"satisfied"}"# + "\n" + #"{"status":"maybe"}"#
        let error = try? #require(throws: NetPathError.self) { try SimulatedNetwork(trace: bad) }
        #expect(error?.message == "trace line 2: unknown status 'maybe'")
        for line in ["[1]", "{", #"{"status":1}"#, #"{"status":"satisfied","interfaces":[{"name":"x"}]}"#, "nul"] {
            #expect(throws: NetPathError.self) { try NetworkPath(jsonLine: line) }
        }
    }

    @Test func filtersApplyToSimulatedPaths() throws {
        let network = SimulatedNetwork(.online(.cellular))
        let noCellular = PathMonitor(simulating: network, prohibitedInterfaceTypes: [.cellular])
        try noCellular.start()
        #expect(noCellular.currentPath?.diagnosis == .filtered)
        network.send(.online(.wifi))
        #expect(noCellular.currentPath?.status == .satisfied)
        noCellular.cancel()
    }
}

/// A flag set from an observation callback.
final class Flag: @unchecked Sendable {
    // Set and read on the main actor only (the tests are main-actor isolated).
    private var value = false
    var isSet: Bool { value }
    func set() { value = true }
}
