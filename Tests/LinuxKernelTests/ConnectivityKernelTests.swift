import Foundation
import KernelTestSupport
import Observation
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// The connectivity check through the library, against the lab's real servers.
@Suite(.enabled(if: Kernel.canRun, "needs root, iproute2, python3 and dnsmasq"))
struct ConnectivityKernelTests {
    @Test func headerExpectationAndSeveralEndpoints() async throws {
        let lab = try ProbeLab()
        defer { lab.remove() }
        let header = ConnectivityCheck.Expectation(status: 200, header: .init(name: "X-NetworkManager-Status", value: "online"))
        let check = try ConnectivityCheck(endpoints: [
            try .init("http://10.77.0.1:8080/never"),
            try .init("http://check.test:8080/nm", expecting: header),
        ], timeout: .seconds(3))
        let monitor = PathMonitor(configuration: .init(namespace: lab.client.namespace))
        try monitor.start()
        let path = try #require(monitor.currentPath)
        monitor.cancel()
        let result = await check.run(over: path, namespace: lab.client.namespace)
        #expect(result.connectivity == .full && result.url == "http://check.test:8080/nm" && result.httpStatus == 200)
        let wrongHeader = try ConnectivityCheck(endpoints: [try .init("http://check.test:8080/success", expecting: header)], timeout: .seconds(3))
        let portal = await wrongHeader.run(over: path, namespace: lab.client.namespace)
        #expect(portal.connectivity == .portal && portal.failure == ConnectivityFailure(.unexpectedAnswer, "no 'X-NetworkManager-Status: online' header"))
    }

    /// Behind a VPN selected by a rule, the check must go through the tunnel, where the
    /// kernel sends the traffic: here the "tunnel" is the lab's link, selected by a
    /// wg-quick rule, and the main table's default leads to a dead end.
    @Test func theCheckGoesWhereTheKernelSendsTraffic() async throws {
        let lab = try ProbeLab()
        defer { lab.remove() }
        try lab.client.addLinks("eth9")
        try lab.client.batch([
            "link set eth9 up", "addr add 10.78.0.2/24 dev eth9", "route replace default via 10.78.0.1 dev eth9",
            "route add default via 10.77.0.1 dev v0 metric 100 table 51820", "rule add not fwmark 51820 table 51820 pref 32764",
        ])
        let monitor = PathMonitor(configuration: .init(namespace: lab.client.namespace))
        let recorder = PathRecorder(monitor)
        try monitor.start()
        defer { monitor.cancel() }
        let path = try #require(await recorder.wait { $0.availableInterfaces.map(\.name) == ["v0", "eth9"] })
        #expect(try KernelDecision.read(lab.client.name).primary == "v0")
        let check = try ConnectivityCheck(endpoints: [try .init("http://check.test:8080/204")], timeout: .seconds(3))
        let result = await check.run(over: path, namespace: lab.client.namespace)
        #expect(result.connectivity == .full, "\(result)")
    }

    /// A check that is not `full` is tried again after its back-off (1 s) on the monitor's
    /// own reader loop, the thread and clock its kernel events use: the re-check starts on
    /// the reader's thread (`netpath-monitor`), not on a Dispatch worker.
    @Test func aFailedCheckIsTriedAgainOnTheReadersLoop() throws {
        let lab = try ProbeLab()
        defer { lab.remove() }
        let check = try ConnectivityCheck(endpoints: [try .init("http://check.test:8080/204")], timeout: .seconds(3))
        let threads = Locked<[String]>([])
        let again = DispatchSemaphore(value: 0)
        let configuration = PathMonitor.Configuration(namespace: lab.client.namespace, connectivityCheck: check)
        let monitor = PathMonitor(
            configuration: configuration, backend: PathMonitor.systemSource(namespace: lab.client.namespace, options: LinuxSourceOptions()),
            clock: nil,
            checker: { _, _, completion in
                let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
                if threads.withLock({ $0.append(name.trimmingCharacters(in: .whitespacesAndNewlines)); return $0.count }) == 2 { again.signal() }
                completion(ConnectivityResult(connectivity: .limited, failure: ConnectivityFailure(.connectionFailed, "refused")))
                return nil
            })
        try monitor.start()
        defer { monitor.cancel() }
        #expect(again.wait(timeout: .now() + 15) == .success, "no second check: \(threads.withLock { $0 })")
        #expect(threads.withLock { $0.dropFirst().first } == "netpath-monitor", "\(threads.withLock { $0 })")
    }

    /// A check asked for from a task that is cancelled already ends at once, as cancelled
    /// (the cancellation came before the check had a handle, and it ran to its timeout).
    @Test func aCheckFromACancelledTaskEndsAsCancelled() async throws {
        let lab = try ProbeLab()
        defer { lab.remove() }
        let check = try ConnectivityCheck(endpoints: [try .init("http://10.77.0.1:8080/never")], timeout: .seconds(30))
        let result = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return await check.run(namespace: lab.client.namespace)
        }.value
        #expect(result.connectivity == .unknown && result.failure?.kind == .cancelled, "\(result)")
    }

    @Test func losingThePathDuringACheckGivesNoneAtOnce() async throws {
        let lab = try ProbeLab()
        defer { lab.remove() }
        // An endpoint that never answers keeps the check in flight for 60 s.
        let check = try ConnectivityCheck(endpoints: [try .init("http://10.77.0.1:8080/never")], timeout: .seconds(60))
        let monitor = PathMonitor(configuration: .init(namespace: lab.client.namespace, connectivityCheck: check))
        let recorder = PathRecorder(monitor)
        try monitor.start()
        defer { monitor.cancel() }
        #expect(monitor.currentPath?.connectivity == .unknown)
        try lab.client.ip("link set v0 down")
        let lost = await recorder.wait(seconds: 10) { $0.status != .satisfied }
        #expect(lost?.connectivity == Connectivity.offline)
        #expect(!recorder.paths.contains { $0.connectivity == .limited },
                "paths: \(recorder.paths.map { "\($0.summary) \($0.connectivity.rawValue)" })")
    }

    @MainActor
    @Test func networkMonitorCanMeanInternetReachable() async throws {
        let lab = try ProbeLab(hijackDNS: true, mode: "portal")
        defer { lab.remove() }
        let check = try ConnectivityCheck(timeout: .seconds(3))
        let monitor = NetworkMonitor(monitor: PathMonitor(configuration: .init(namespace: lab.client.namespace, connectivityCheck: check)),
                                     assumeConnected: false, isConnectedMeans: .internetReachable)
        monitor.start()
        #expect(monitor.status == .satisfied && !monitor.isConnected)
        while monitor.connectivity != .portal {
            await withCheckedContinuation { (changed: CheckedContinuation<Void, Never>) in
                withObservationTracking { _ = monitor.connectivity } onChange: { changed.resume() }
            }
            await Task.yield()
        }
        #expect(!monitor.isConnected && monitor.portalURL == "http://portal.test/login")
        try lab.setMode("online")
        while monitor.connectivity != .full {
            await withCheckedContinuation { (changed: CheckedContinuation<Void, Never>) in
                withObservationTracking { _ = monitor.connectivity } onChange: { changed.resume() }
            }
            await Task.yield()
        }
        #expect(monitor.isConnected && monitor.portalURL == nil)
        monitor.stop()
    }
}
