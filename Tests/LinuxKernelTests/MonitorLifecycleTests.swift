import Foundation
import Observation
import KernelTestSupport
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// The monitor's life on the real kernel: errors, restarts, subscribers, descriptors.
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct MonitorLifecycleTests {
    @Test func missingOrBogusNamespacesThrowErrorsThatNameThem() throws {
        let missing = PathMonitor(configuration: .init(namespace: .named("np-no-such-namespace")))
        let error = try #require(throws: NetPathError.self) { try missing.start() }
        #expect(error.code == .namespaceNotFound && error.description.contains("np-no-such-namespace"))
        #expect(!missing.isRunning && missing.currentPath == nil)
        let notANamespace = PathMonitor(configuration: .init(namespace: .path("/etc/hostname")))
        let bogus = try #require(throws: NetPathError.self) { try notANamespace.start() }
        #expect(bogus.code == .namespaceNotFound && bogus.message.contains("is not a network namespace"))
    }

    @Test func restartsAndReleasesLeaveNoDescriptorBehind() async throws {
        let ns = try TestNamespace("fds")
        defer { ns.remove() }
        let monitor = PathMonitor(configuration: .init(namespace: ns.namespace))
        for _ in 0..<100 {
            try monitor.start()
            #expect(monitor.currentPath?.diagnosis == .noInterface)
            monitor.cancel()
        }
        for _ in 0..<100 {
            // Released while running, without cancel.
            let temporary = PathMonitor(configuration: .init(namespace: ns.namespace))
            try temporary.start()
        }
        // Other tests open descriptors in parallel, so count exactly ours: this process's
        // netlink sockets that live in this test's namespace.
        #expect(try netlinkSocketsOfThisProcess(in: ns) == 0)
        try monitor.start()
        // The route socket and, as root, the IPsec policy socket.
        #expect(try netlinkSocketsOfThisProcess(in: ns) == 2)
        monitor.cancel()
        #expect(try netlinkSocketsOfThisProcess(in: ns) == 0)
    }


    @Test func oneShotCurrentPathReadsTheKernelAndKeepsNothingOpen() async throws {
        let ns = try TestNamespace("once")
        defer { ns.remove() }
        #expect(try PathMonitor.snapshot(namespace: ns.namespace).summary == "unsatisfied/noInterface []")
        try ns.addLinks("eth0")
        try ns.batch(["addr add 10.31.0.2/24 dev eth0", "link set eth0 up", "route add default via 10.31.0.1"])
        let recorder = PathRecorder()
        let monitor = PathMonitor(configuration: .init(namespace: ns.namespace))
        monitor.pathUpdateHandler = { recorder.record($0) }
        try monitor.start()
        _ = await recorder.wait(seconds: 10) { $0.status == .satisfied }  // the veth carrier comes late
        monitor.cancel()
        #expect(try PathMonitor.snapshot(namespace: ns.namespace).summary == "satisfied [eth0:wiredEthernet] gw 10.31.0.1 v4")
        #expect(try PathMonitor.snapshot(requiredInterfaceType: .wifi, namespace: ns.namespace).status == .unsatisfied)
        #expect(try netlinkSocketsOfThisProcess(in: ns) == 0)
        #expect(throws: NetPathError.self) { try PathMonitor.snapshot(namespace: .named("np-no-such-namespace")) }
    }

    @Test func asyncSubscribersOnTheKernelMonitorSeeEveryChange() async throws {
        let ns = try TestNamespace("subs")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.ip("addr add 10.30.0.2/24 dev eth0")
        let monitor = PathMonitor(configuration: .init(namespace: ns.namespace))
        try monitor.start()
        defer { monitor.cancel() }
        let subscribed = Subscribed()
        let loops = (0..<20).map { _ in
            Task { () -> [NetworkPath.Diagnosis?] in
                var seen: [NetworkPath.Diagnosis?] = []
                var first = true
                for await path in monitor.paths {
                    seen.append(path.diagnosis)
                    if first { first = false; subscribed.arrive() }
                    if path.status == .satisfied { break }
                }
                return seen
            }
        }
        await subscribed.wait(for: 20)
        try ns.ip("link set eth0 up")
        try ns.ip("route add default via 10.30.0.1")
        for loop in loops {
            let seen = await loop.value
            #expect(seen.first == .noInterface && seen.last == .some(nil))
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 != $1 })
        }
        #expect(monitor.storage.subscriberCount == 0)
    }
}

/// Counts subscribers that have their first path; lets the test wait for all of them.
actor Subscribed {
    private var count = 0
    private var waiters: [(Int, CheckedContinuation<Void, Never>)] = []

    nonisolated func arrive() { Task { await self.increment() } }

    private func increment() {
        count += 1
        waiters.removeAll { target, continuation in
            guard count >= target else { return false }
            continuation.resume()
            return true
        }
    }

    func wait(for target: Int) async {
        if count >= target { return }
        await withCheckedContinuation { waiters.append((target, $0)) }
    }
}

/// `NetworkMonitor` on the real Linux backend: updates hop from the reader thread to the
/// main actor.
@MainActor
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct NetworkMonitorKernelTests {
    @Test func followsTheKernelOnTheMainActor() async throws {
        let ns = try TestNamespace("nmon")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.31.0.2/24 dev eth0"])
        let monitor = NetworkMonitor(monitor: PathMonitor(configuration: .init(namespace: ns.namespace)), assumeConnected: false)
        monitor.start()
        #expect(monitor.lastError == nil && monitor.isMonitoring)
        try ns.ip("route add default via 10.31.0.1")
        while !monitor.isConnected {
            await withCheckedContinuation { (changed: CheckedContinuation<Void, Never>) in
                withObservationTracking { _ = monitor.isConnected } onChange: { changed.resume() }
            }
            await Task.yield()
        }
        #expect(monitor.connectionType == .ethernet && monitor.path?.gateways == ["10.31.0.1"])
        monitor.stop()
        // A failed start claims nothing: not the optimistic assumption, not an old path.
        let missing = NetworkMonitor(configuration: .init(namespace: .named("np-missing-\(getpid())")))
        #expect(missing.isConnected)
        var reported: [Bool] = []
        missing.startMonitoring { reported.append($0) }
        #expect(missing.lastError?.code == .namespaceNotFound && !missing.isMonitoring)
        #expect(!missing.isConnected && missing.connectionType == .unknown && missing.path == nil && !missing.isNetworkAvailable)
        #expect(reported == [false])
        // The initializer takes what PathMonitor's does.
        let configured = NetworkMonitor(configuration: .init(namespace: ns.namespace, meteredInterfaces: ["eth*"], constrainedInterfaces: ["eth0"]))
        #expect(configured.monitor.namespace == ns.namespace && configured.monitor.meteredInterfaces == ["eth*"]
                && configured.monitor.constrainedInterfaces == ["eth0"])
    }
}
