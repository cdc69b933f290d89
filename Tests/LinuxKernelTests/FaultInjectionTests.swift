import Foundation
import KernelTestSupport
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// Issue 7's faults, on the real kernel: namespace deletion, churn, flapping, resolver
/// files pulled away, an overrun in the middle of the first dump.
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct FaultInjectionTests {
    @Test func deletingTheWatchedNamespaceEndsTheMonitorWithAnError() async throws {
        let ns = try TestNamespace("nsdel")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.60.0.2/24 dev eth0", "route add default via 10.60.0.1"])
        let monitor = PathMonitor(configuration: .init(namespace: ns.namespace))
        let recorder = PathRecorder(monitor)
        let ended = AsyncStream.makeStream(of: NetPathError.self)
        monitor.terminationHandler = { error in ended.continuation.yield(error) }
        try monitor.start()
        await recorder.expect("satisfied [eth0:wiredEthernet] gw 10.60.0.1 v4")
        try run(Kernel.ipPath, ["netns", "del", ns.name])
        // The last path, then (documented order) the handler with the reason.
        await recorder.expect("unsatisfied/noInterface []")
        let error = try #require(await first(of: ended.stream), "no termination within 10 s")
        #expect(error.code == .namespaceNotFound)
        #expect(error.message == "network namespace '\(ns.name)' was deleted")
        #expect(monitor.terminationError == error && !monitor.isRunning)
        // A terminal state: nothing more, and a restart says the namespace is gone.
        #expect(throws: NetPathError.self) { try monitor.start() }
    }

    @Test func thousandsOfStartsCancelsAndSubscriptionsLeaveNothingBehind() async throws {
        let ns = try TestNamespace("churn")
        defer { ns.remove() }
        // A reader-thread name no other test uses, so this test can count its own threads.
        var options = LinuxSourceOptions()
        options.threadName = "np-churn"
        let monitor = PathMonitor(configuration: .init(namespace: ns.namespace),
                                  backend: PathMonitor.systemSource(namespace: ns.namespace, options: options))
        try monitor.start()
        // One reader thread: its loop also waits on the resolver watch and policy socket.
        #expect(threadsNamed("np-churn") == 1 && threadsNamed("np-churn-r") == 0)
        weak let source = monitor.storage.source
        #expect(source != nil)
        monitor.cancel()
        #expect(threadsGone("np-churn"))
        // Nothing holds a cancelled source: not its thread, not the monitor.
        #expect(source == nil)
        let residentBefore = residentKilobytes()
        for round in 0..<2000 {
            try monitor.start()
            if round % 10 == 0 {
                var iterator = monitor.paths.makeAsyncIterator()
                #expect(await iterator.next()?.diagnosis == .noInterface)
            }
            monitor.cancel()
        }
        #expect(monitor.storage.subscriberCount == 0 && monitor.storage.observerCount == 0 && monitor.storage.source == nil)
        #expect(try netlinkSocketsOfThisProcess(in: ns) == 0)
        #expect(threadsGone("np-churn"))
        // Memory: 2,000 cycles may not leave a per-cycle residue. The bound is loose (other
        // tests run in this process at the same time; ThreadSanitizer's allocator holds on
        // to more) but a leak of one 256 KiB receive buffer per cycle would be 500 MB.
        let bound = (Kernel.underThreadSanitizer ? 256 : 64) * 1024
        #expect(residentKilobytes() - residentBefore < bound)
    }

    @Test func aThousandSubscribersComeAndGoWhileTheLinkFlaps() async throws {
        let ns = try TestNamespace("subflap"), peerNamespace = try TestNamespace("subflap")
        let peer = peerNamespace.name
        defer { ns.remove(); peerNamespace.remove() }
        try ns.ip("link add eth0 type veth peer name p0 netns \(peer)")
        try run(Kernel.ipPath, ["-n", peer, "link", "set", "p0", "up"])
        try ns.batch(["link set eth0 up", "addr add 10.61.0.2/24 dev eth0", "route add default via 10.61.0.1"])
        let monitor = PathMonitor(configuration: .init(namespace: ns.namespace))
        try monitor.start()
        defer { monitor.cancel() }
        let sentinel = "satisfied [eth0:wiredEthernet] gw 10.61.0.9 v4"
        let flaps = (0..<200).flatMap { _ in ["link set p0 down", "link set p0 up"] }.joined(separator: "\n") + "\n"
        let subscriberCount = 1000
        let flapper = Task.detached { try run(Kernel.ipPath, ["-n", peer, "-force", "-batch", "-"], input: flaps) }
        let results = await withTaskGroup(of: (left: Bool, last: String?).self) { group -> [(left: Bool, last: String?)] in
            for index in 0..<subscriberCount {
                group.addTask {
                    var last: String?
                    var count = 0
                    for await path in monitor.paths {
                        last = path.summary
                        count += 1
                        if index % 3 == 0 && count == 2 { return (true, last) }  // leaves early
                        if last == sentinel { break }
                    }
                    return (false, last)
                }
                if index % 100 == 0 { await Task.yield() }
            }
            _ = try? await flapper.value
            // The true final path: carrier back, then another gateway every subscriber must see.
            try? ns.ip("route replace default via 10.61.0.9")
            // A deadline, not a wait: if some subscriber never sees the final path, stop.
            group.addTask {
                try? await Task.sleep(for: .seconds(60))
                return (true, "deadline")
            }
            var results: [(left: Bool, last: String?)] = []
            for await result in group {
                if result.last == "deadline" && result.left { break }
                results.append(result)
                if results.count == subscriberCount { break }
            }
            group.cancelAll()
            return results
        }
        #expect(results.count == subscriberCount)
        let stayed = results.filter { !$0.0 }
        #expect(stayed.count >= subscriberCount * 6 / 10)
        #expect(stayed.allSatisfy { $0.1 == sentinel }, "\(Set(stayed.map { $0.1 ?? "nil" }))")
        #expect(monitor.currentPath?.summary == sentinel)
    }

    @Test func aThousandFlapsEndOnTheTruePathWithoutDuplicates() async throws {
        let ns = try TestNamespace("flap")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.62.0.2/24 dev eth0", "route add default via 10.62.0.1"])
        let monitor = PathMonitor(configuration: .init(namespace: ns.namespace))
        let recorder = PathRecorder(monitor)
        try monitor.start()
        defer { monitor.cancel() }
        await recorder.expect("satisfied [eth0:wiredEthernet] gw 10.62.0.1 v4")
        // Administrative flaps: each down drops the route (kernel), so restore it at the end.
        let flaps = (0..<1000).flatMap { _ in ["link set eth0 down", "link set eth0 up"] }
        try ns.batch(flaps + ["route add default via 10.62.0.1"])
        await recorder.expect("satisfied [eth0:wiredEthernet] gw 10.62.0.1 v4", seconds: 30)
        let summaries = recorder.paths.map(\.summary)
        #expect(zip(summaries, summaries.dropFirst()).allSatisfy { $0 != $1 }, "a duplicate path was delivered")
    }

    @Test func resolverFilesReplacedDeletedOrUnreadable() async throws {
        let ns = try TestNamespace("resolv")
        defer { ns.remove() }
        let file = ns.resolverDirectory + "/resolv.conf"
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.63.0.2/24 dev eth0", "route add default via 10.63.0.1"])
        let monitor = PathMonitor(configuration: .init(namespace: ns.namespace))
        let recorder = PathRecorder(monitor)
        try monitor.start()
        defer { monitor.cancel() }
        await recorder.expect("satisfied [eth0:wiredEthernet] gw 10.63.0.1 v4")
        // Replaced atomically (rename over it), as resolvconf and NetworkManager do.
        try "nameserver 192.0.2.53\n".write(toFile: file, atomically: true, encoding: .utf8)
        await recorder.expect("satisfied [eth0:wiredEthernet] gw 10.63.0.1 v4 dns")
        // Unreadable: a directory where the file was. The namespace falls back to the
        // system's /etc/resolv.conf, as `ip netns exec` would.
        try FileManager.default.removeItem(atPath: file)
        try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: false)
        let system = ResolverConfiguration(candidates: ["/etc/resolv.conf"]).hasServer(read: { Syscall.readFile($0) })
        await recorder.expect("satisfied [eth0:wiredEthernet] gw 10.63.0.1 v4" + (system ? " dns" : ""))
        try FileManager.default.removeItem(atPath: file)
        try "# emptied\n".write(toFile: file, atomically: false, encoding: .utf8)
        await recorder.expect("satisfied [eth0:wiredEthernet] gw 10.63.0.1 v4")
        #expect(monitor.isRunning)
    }

    @Test func otherNamespacesComingAndGoingDoNotWakeTheReader() async throws {
        // /var/run/netns (watched for this namespace's deletion) sees every namespace a
        // container runtime or another test makes: only this namespace's name may wake the
        // reader thread (each wake-up is a netlink round trip and, during a dump, could
        // overflow a small receive buffer).
        let ns = try TestNamespace("quiet")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        // No IPv6 link-local address: its duplicate-address detection ends a second or so
        // after the link comes up, with an address event that would wake the reader inside
        // the window measured below when the machine is loaded.
        try ns.batch(["link set eth0 addrgenmode none", "link set eth0 up", "addr add 10.65.0.2/24 dev eth0",
                      "route add default via 10.65.0.1"])
        // Counted by the reader itself: one per turn (a read of the netlink socket and a
        // question to the kernel). (Its context switches would also count waits on locks,
        // which a loaded machine or ThreadSanitizer's runtime adds.)
        let passes = Shared(0)
        var options = LinuxSourceOptions()
        options.beforeRead = { passes.withLock { $0 += 1 } }
        let (monitor, recorder) = try startMonitor(ns, options: options)
        defer { monitor.cancel() }
        await recorder.expect("satisfied [eth0:wiredEthernet] gw 10.65.0.1 v4")
        let before = passes.withLock { $0 }
        for _ in 0..<10 {
            try TestNamespace("other").remove()
        }
        // Its own resolver file does wake it, after the events above (inotify keeps order):
        // once this path arrives, the reader has seen everything the watcher forwarded.
        try "nameserver 192.0.2.53\n".write(toFile: ns.resolverDirectory + "/resolv.conf", atomically: true, encoding: .utf8)
        await recorder.expect("satisfied [eth0:wiredEthernet] gw 10.65.0.1 v4 dns")
        let after = passes.withLock { $0 }
        #expect(after - before <= 3, "the reader turned \(after - before) times for 20 foreign namespace events and 1 resolver change")
    }

    @Test func anOverrunInTheMiddleOfTheFirstDump() async throws {
        let ns = try TestNamespace("dumpov")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.64.0.2/24 dev eth0", "route add default via 10.64.0.9"])
        let flood = (0..<3000).map { "addr add 10.\(100 + $0 / 250).\($0 % 250).1/32 dev eth0" } + ["route replace default via 10.64.0.1"]
        let flooded = Shared(false)
        let name = ns.name
        var options = LinuxSourceOptions()
        options.receiveBufferSize = 16384
        options.beforeDumpRead = {
            // Before the first read of the dump: the kernel's queue overflows meanwhile.
            let first = flooded.withLock { done in defer { done = true }; return !done }
            if first { _ = try? run(Kernel.ipPath, ["-n", name, "-force", "-batch", "-"], input: flood.joined(separator: "\n") + "\n") }
        }
        let monitor = PathMonitor(configuration: .init(namespace: ns.namespace),
                                  backend: PathMonitor.systemSource(namespace: ns.namespace, options: options))
        let recorder = PathRecorder(monitor)
        try monitor.start()
        defer { monitor.cancel() }
        await recorder.expect("satisfied [eth0:wiredEthernet] gw 10.64.0.1 v4")
        let source = try #require(monitor.storage.source as? LinuxPathSource)
        #expect(source.resyncCount >= 1)
        #expect(recorder.paths.allSatisfy { $0.gateways != ["10.64.0.9"] }, "a stale path from the interrupted dump was delivered")
    }
}

/// How many of this process's threads have this name.
/// Whether no thread of this process is named `name`, once the ones that ended have left
/// `/proc/self/task`. A joined thread has finished its code, but the kernel removes its task
/// entry a moment after the join returns (the thread id is cleared before the task is
/// released), and there is no event for that: the count is read again, yielding the CPU in
/// between, for at most 5 s.
func threadsGone(_ name: String) -> Bool {
    let deadline = Date().addingTimeInterval(5)
    while threadsNamed(name) > 0 {
        guard Date() < deadline else { return false }
        sched_yield()
    }
    return true
}

func threadsNamed(_ name: String) -> Int {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
    return tasks.filter { task in
        (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8))?
            .trimmingCharacters(in: .newlines) == name
    }.count
}

/// This process's resident set, in KiB.
func residentKilobytes() -> Int {
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

/// This process's netlink sockets inside `ns` (by inode, from /proc/net/netlink there).
func netlinkSocketsOfThisProcess(in ns: TestNamespace) throws -> Int {
    let table = try run(Kernel.ipPath, ["netns", "exec", ns.name, "cat", "/proc/net/netlink"])
    let inodes = Set(table.split(separator: "\n").dropFirst().compactMap { $0.split(separator: " ").last.map(String.init) })
    let ours = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { fd -> String? in
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd),
              target.hasPrefix("socket:[") else { return nil }
        return String(target.dropFirst(8).dropLast())
    }
    return ours.filter(inodes.contains).count
}

