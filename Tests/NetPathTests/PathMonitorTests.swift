import Dispatch
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// A source the test drives by hand.
final class ManualSource: PathSource {
    let initialPath: NetworkPath?
    let deliver: @Sendable (NetworkPath) -> Void
    let stopped = Locked(false)

    init(initialPath: NetworkPath?, deliver: @escaping @Sendable (NetworkPath) -> Void) {
        self.initialPath = initialPath
        self.deliver = deliver
    }

    func startReading() -> Bool { true }
    func stop() { stopped.withLock { $0 = true } }
}

/// Hands out manual sources and remembers them.
final class ManualBackend: Sendable {
    let sources = Locked<[ManualSource]>([])
    let initial: NetworkPath

    init(initial: NetworkPath = offline) { self.initial = initial }

    var factory: PathSourceFactory {
        { [self] _, deliver, _ in
            let source = ManualSource(initialPath: initial, deliver: deliver)
            sources.withLock { $0.append(source) }
            return source
        }
    }

    var latest: ManualSource { sources.withLock { $0.last! } }

    func send(_ path: NetworkPath) { latest.deliver(path) }

    func monitor() -> PathMonitor {
        PathMonitor(configuration: .init(), backend: factory)
    }
}


let offline = NetworkPath(status: .unsatisfied, unsatisfiedReason: .notAvailable, diagnosis: .noInterface)
let online = NetworkPath(status: .satisfied, availableInterfaces: [NetworkInterface(name: "eth0", index: 2, type: .wiredEthernet)],
                         supportsIPv4: true, gateways: ["10.0.0.1"])
let onlineTwo = NetworkPath(status: .satisfied, availableInterfaces: [NetworkInterface(name: "wlan0", index: 3, type: .wifi)],
                            supportsIPv4: true, gateways: ["10.1.0.1"])

@Suite struct PathMonitorTests {
    @Test func startSetsTheCurrentPathAndCallsTheHandlerOnItsQueue() async throws {
        let backend = ManualBackend()
        let monitor = backend.monitor()
        #expect(monitor.currentPath == nil && !monitor.isRunning)
        let queue = DispatchQueue(label: "test.handler")
        let key = DispatchSpecificKey<Int>()
        queue.setSpecific(key: key, value: 7)
        let received = Locked<[NetworkPath]>([])
        let onQueue = Locked(true)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            monitor.pathUpdateHandler = { path in
                if DispatchQueue.getSpecific(key: key) != 7 { onQueue.withLock { $0 = false } }
                let count = received.withLock { $0.append(path); return $0.count }
                if count == 3 { done.resume() }
            }
            try? monitor.start(queue: queue)
            #expect(monitor.currentPath == offline && monitor.isRunning)
            backend.send(online)
            backend.send(online)  // a duplicate: never delivered
            backend.send(offline)
        }
        #expect(received.withLock { $0 } == [offline, online, offline])
        #expect(onQueue.withLock { $0 })
        monitor.cancel()
    }

    @Test func everySubscriberGetsTheCurrentPathFirstThenChanges() async throws {
        let backend = ManualBackend(initial: online)
        let monitor = backend.monitor()
        try monitor.start()
        let subscribers = 50
        let results = await withTaskGroup(of: [NetworkPath].self) { group in
            let ready = Locked(0)
            for _ in 0..<subscribers {
                group.addTask {
                    var seen: [NetworkPath] = []
                    for await path in monitor.paths {
                        seen.append(path)
                        if seen.count == 1 { ready.withLock { $0 += 1 } }
                        if seen.count == 3 { break }
                    }
                    return seen
                }
            }
            // Each has its first path before the changes come (deadline-free: the
            // subscribers count themselves; yielding lets them run).
            while ready.withLock({ $0 }) < subscribers { await Task.yield() }
            backend.send(offline)
            backend.send(onlineTwo)
            var all: [[NetworkPath]] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == subscribers)
        for seen in results {
            // A slow subscriber may skip to the newest, but never sees a duplicate, and
            // every one ends on the true final path.
            #expect(seen.first == online && seen.last == onlineTwo)
            #expect(zip(seen, seen.dropFirst()).allSatisfy { $0 != $1 })
        }
        #expect(monitor.storage.subscriberCount == 0)
        monitor.cancel()
    }

    @Test func cancelEndsLoopsAndStartAgainWorks() async throws {
        let backend = ManualBackend()
        let monitor = backend.monitor()
        for round in 0..<3 {
            try monitor.start()
            try monitor.start()  // a second start while running changes nothing
            #expect(backend.sources.withLock { $0.count } == round + 1)
            let loop = Task {
                var count = 0
                for await _ in monitor.paths { count += 1 }
                return count
            }
            backend.send(online)
            // The loop ends when the monitor is cancelled, whatever it saw.
            while monitor.storage.subscriberCount == 0 { await Task.yield() }
            monitor.cancel()
            let count = await loop.value
            #expect(count >= 1 && count <= 2)
            #expect(backend.latest.stopped.withLock { $0 })
            #expect(!monitor.isRunning)
            // Paths from a cancelled run are dropped.
            backend.send(onlineTwo)
            #expect(monitor.currentPath == online)
        }
    }

    @Test func cancellingASubscribersTaskReleasesIt() async throws {
        let backend = ManualBackend()
        let monitor = backend.monitor()
        try monitor.start()
        let loop = Task { for await _ in monitor.paths {} }
        while monitor.storage.subscriberCount == 0 { await Task.yield() }
        loop.cancel()
        await loop.value
        #expect(monitor.storage.subscriberCount == 0)
        // An iterator made and dropped unsubscribes too.
        do { _ = monitor.paths.makeAsyncIterator() }
        #expect(monitor.storage.subscriberCount == 0)
        monitor.cancel()
    }

    @Test func aReleasedMonitorStopsItsSourceAndIsFreed() throws {
        let backend = ManualBackend()
        weak var weakMonitor: PathMonitor?
        do {
            let monitor = backend.monitor()
            monitor.pathUpdateHandler = { [weak monitor] _ in _ = monitor?.currentPath }
            try monitor.start()
            weakMonitor = monitor
        }
        #expect(weakMonitor == nil)
        #expect(backend.latest.stopped.withLock { $0 })
        // A path the stopped source still sends goes nowhere and does not crash.
        backend.send(online)
    }
}

@Suite struct PathMonitorConfigurationTests {
    @Test func theSettingsAreOneConfiguration() throws {
        let check = try ConnectivityCheck(interval: .seconds(60))
        let configuration = PathMonitor.Configuration(
            requiredInterfaceType: .wifi, prohibitedInterfaceTypes: [.cellular], namespace: .named("blue"),
            connectivityCheck: check, meteredInterfaces: ["usb0"], constrainedInterfaces: ["wlan*"],
            ultraConstrainedInterfaces: ["sat0"]
        )
        let configured = PathMonitor(configuration: configuration)
        #expect(configured.configuration == configuration)
        #expect(configured.requiredInterfaceType == .wifi && configured.prohibitedInterfaceTypes == [.cellular])
        #expect(configured.namespace == .named("blue") && configured.connectivityCheck == check)
        #expect(configured.meteredInterfaces == ["usb0"] && configured.constrainedInterfaces == ["wlan*"]
                && configured.ultraConstrainedInterfaces == ["sat0"])
        #expect(PathMonitor().configuration == PathMonitor.Configuration())
        // NWPathMonitor's two initializers.
        #expect(PathMonitor(requiredInterfaceType: .wifi).configuration == .init(requiredInterfaceType: .wifi))
        #expect(PathMonitor(prohibitedInterfaceTypes: [.cellular]).configuration == .init(prohibitedInterfaceTypes: [.cellular]))
    }

    @MainActor
    @Test func aNetworkMonitorThatMeansInternetReachableAddsTheDefaultCheck() throws {
        let plain = NetworkMonitor(configuration: .init(meteredInterfaces: ["usb0"]))
        #expect(plain.monitor.configuration == .init(meteredInterfaces: ["usb0"]))
        let reachable = NetworkMonitor(configuration: .init(meteredInterfaces: ["usb0"]), isConnectedMeans: .internetReachable)
        #expect(reachable.monitor.configuration == .init(connectivityCheck: .default, meteredInterfaces: ["usb0"]))
        let check = try ConnectivityCheck(timeout: .seconds(2))
        let own = NetworkMonitor(configuration: .init(connectivityCheck: check, meteredInterfaces: ["usb0"]),
                                 isConnectedMeans: .internetReachable)
        #expect(own.monitor.configuration == .init(connectivityCheck: check, meteredInterfaces: ["usb0"]))
        #expect(NetworkMonitor().monitor.configuration == PathMonitor.Configuration())
    }
}
