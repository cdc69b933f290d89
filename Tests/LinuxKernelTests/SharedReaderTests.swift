import Foundation
import KernelTestSupport
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// Monitors of several namespaces on one ``SharedReader``: one thread for all of them, each
/// monitor still giving the kernel's answer for its own namespace, expiries still seen, a
/// deleted namespace ending only its own monitor, and the thread gone after the last
/// `cancel()`.
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct SharedReaderTests {
    /// Options that put a monitor on `reader`.
    func options(_ reader: SharedReaderThread) -> LinuxSourceOptions {
        var options = LinuxSourceOptions()
        options.sharedReader = reader
        return options
    }

    func onlineNamespace(_ label: String, _ third: Int) throws -> TestNamespace {
        let ns = try TestNamespace(label)
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.71.\(third).2/24 dev eth0", "route add default via 10.71.\(third).1"])
        return ns
    }

    @Test func oneThreadFollowsEveryNamespaceAsTheKernelDecides() async throws {
        let reader = SharedReaderThread(threadName: "np-shared-a")
        let namespaces = try (0..<6).map { try onlineNamespace("shr\($0)", $0) }
        defer { for ns in namespaces { ns.remove() } }
        var started: [(PathMonitor, PathRecorder)] = []
        for ns in namespaces { started.append(try startMonitor(ns, options: options(reader))) }
        // One thread, whatever the number of monitors; no reader or watch thread of their own.
        #expect(threadsNamed("np-shared-a") == 1)
        for (index, ns) in namespaces.enumerated() {
            #expect(try await started[index].1.expectAgreement(ns).isSatisfied)
        }
        // A change in every other namespace; the others stay as they are.
        for ns in namespaces.enumerated().filter({ $0.offset % 2 == 0 }).map(\.element) {
            try ns.ip("route del default")
        }
        for (index, ns) in namespaces.enumerated() {
            let decision = try await started[index].1.expectAgreement(ns)
            #expect(decision.isSatisfied == (index % 2 == 1))
        }
        try namespaces[0].ip("route add default via 10.71.0.1")
        #expect(try await started[0].1.expectAgreement(namespaces[0]).isSatisfied)
        // Cancelling some leaves the others followed; the last cancel ends the thread.
        for (monitor, _) in started.prefix(5) { monitor.cancel() }
        #expect(threadsNamed("np-shared-a") == 1)
        try namespaces[5].ip("route del default")
        #expect(try await started[5].1.expectAgreement(namespaces[5]).isSatisfied == false)
        started[5].0.cancel()
        #expect(threadsNamed("np-shared-a") == 0 && !reader.isRunning)
        for ns in namespaces { #expect(try netlinkSocketsOfThisProcess(in: ns) == 0) }
        // And it starts again with the next monitor.
        try started[1].0.start()
        #expect(threadsNamed("np-shared-a") == 1)
        #expect(try await started[1].1.expectAgreement(namespaces[1]).isSatisfied)
        started[1].0.cancel()
        #expect(threadsNamed("np-shared-a") == 0)
    }

    /// The shared thread's poll is bounded by the earliest expiry among its monitors.
    @Test func anExpiringRouteIsSeenOnTheSharedThread() async throws {
        let reader = SharedReaderThread(threadName: "np-shared-b")
        let quiet = try onlineNamespace("shrq", 10)
        let ns = try TestNamespace("shrexp")
        defer { ns.remove(); quiet.remove() }
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 2001:db8:71::2/64 dev eth0 nodad"])
        let (other, _) = try startMonitor(quiet, options: options(reader))
        defer { other.cancel() }
        let (monitor, recorder) = try startMonitor(ns, options: options(reader))
        defer { monitor.cancel() }
        try await recorder.expectAgreement(ns)
        try await recorder.expectExpiryFollowed(ns, gateway: "2001:db8:71::1")
        #expect(try await recorder.expectAgreement(ns).isSatisfied == false)
    }

    /// A deleted namespace ends its own monitor (with the reason) and no other; a monitor
    /// cancelled from its own path handler, on the shared thread, does not deadlock it.
    @Test func aDeletedNamespaceOrACancelFromAHandlerEndsOnlyThatMonitor() async throws {
        let reader = SharedReaderThread(threadName: "np-shared-c")
        let doomed = try onlineNamespace("shrdel", 20)
        let handled = try onlineNamespace("shrhnd", 21)
        let survivor = try onlineNamespace("shrsur", 22)
        defer { doomed.remove(); handled.remove(); survivor.remove() }
        let doomedMonitor = PathMonitor(configuration: .init(namespace: doomed.namespace),
                                        backend: PathMonitor.systemSource(namespace: doomed.namespace, options: options(reader)))
        let ended = AsyncStream.makeStream(of: NetPathError.self)
        doomedMonitor.terminationHandler = { error in ended.continuation.yield(error) }
        try doomedMonitor.start()
        // Cancels itself on the first change after start, from the handler.
        let selfCancelling = PathMonitor(configuration: .init(namespace: handled.namespace),
                                         backend: PathMonitor.systemSource(namespace: handled.namespace, options: options(reader)))
        let cancelled = AsyncStream.makeStream(of: NetworkPath.self)
        selfCancelling.pathUpdateHandler = { [weak selfCancelling] path in
            guard path.status != .satisfied else { return }
            selfCancelling?.cancel()
            cancelled.continuation.yield(path)
        }
        try selfCancelling.start()
        let (monitor, recorder) = try startMonitor(survivor, options: options(reader))
        defer { monitor.cancel(); doomedMonitor.cancel(); selfCancelling.cancel() }
        try await recorder.expectAgreement(survivor)

        try run(Kernel.ipPath, ["netns", "del", doomed.name])
        let error = try #require(await first(of: ended.stream), "no termination within 10 s")
        #expect(error.code == .namespaceNotFound && !doomedMonitor.isRunning)
        try handled.ip("route del default")
        #expect(try #require(await first(of: cancelled.stream)).status != .satisfied)
        #expect(!selfCancelling.isRunning)
        // The survivor is still followed, on the one thread.
        try survivor.ip("route del default")
        #expect(try await recorder.expectAgreement(survivor).isSatisfied == false)
        #expect(threadsNamed("np-shared-c") == 1)
        #expect(try netlinkSocketsOfThisProcess(in: handled) == 0)
    }
}
