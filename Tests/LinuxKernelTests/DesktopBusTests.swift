import Dispatch
import Foundation
import Testing
import KernelTestSupport
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// The desktop watcher against a real NetworkManager (1.42, Debian 12) on its own system
/// bus, and against the Flatpak portal's stand-in on a private session bus, both built by
/// Tests/Support/desktop-lab.sh. Serialized: each lab runs NetworkManager, udevd, dnsmasq
/// and a bus daemon.
@Suite(.serialized, .enabled(if: Kernel.canRun, "needs root and iproute2"))
struct DesktopBusTests {
    /// What `onChange` delivered, in order; waits for a value with a deadline.
    final class Recorder: Sendable {
        private let seen = Locked<[DesktopKnowledge]>([])
        private let arrived = DispatchSemaphore(value: 0)

        func record(_ knowledge: DesktopKnowledge) {
            seen.withLock { $0.append(knowledge) }
            arrived.signal()
        }

        var values: [DesktopKnowledge] { seen.withLock { $0 } }

        /// The first value delivered after the first `after` ones that satisfies `predicate`,
        /// waiting up to `seconds` for it.
        func wait(seconds: Double = 20, after: Int = 0, until predicate: (DesktopKnowledge) -> Bool) -> DesktopKnowledge? {
            index(seconds: seconds, after: after, until: predicate).map { values[$0] }
        }

        /// The position of that value among those delivered.
        func index(seconds: Double = 20, after: Int = 0, until predicate: (DesktopKnowledge) -> Bool) -> Int? {
            let deadline = DispatchTime.now() + seconds
            while true {
                if let found = values.indices.dropFirst(after).first(where: { predicate(values[$0]) }) { return found }
                if arrived.wait(timeout: deadline) == .timedOut {
                    return values.indices.dropFirst(after).first { predicate(values[$0]) }
                }
            }
        }
    }

    func eth0(_ knowledge: DesktopKnowledge?) -> NetworkManagerState.Device? {
        knowledge?.networkManager?.devices.values.first { $0.interface == "eth0" }
    }

    func deadline(seconds: Int) -> Instant {
        SystemClock.now() + .seconds(seconds)
    }

    @Test func networkManagersMeteredAndConnectivityAndTheirChanges() throws {
        let lab = try DesktopLab(metered: "yes")
        defer { lab.remove() }
        let recorder = Recorder()
        let watcher = try DesktopWatcher(systemBus: lab.bus, sessionBus: nil, onChange: recorder.record)
        defer { watcher.stop() }
        #expect(watcher.waitForFirstAnswer(until: deadline(seconds: 10)), "\(watcher.lastFailure ?? "")")
        let device = try #require(eth0(watcher.knowledge), "\(watcher.knowledge)")
        #expect(device.metered == 1 && device.ipInterface == "eth0")
        #expect(try "\(device.metered)" == lab.property("device-metered"))
        #expect(watcher.knowledge.networkManager?.connectivity == 4 && watcher.knowledge.networkManager?.state == 70)
        #expect(watcher.knowledge.portal == nil)

        try lab.setMetered("no")
        #expect(recorder.wait { eth0($0)?.metered == 2 } != nil, "\(recorder.values)")
        try lab.setCheck("portal")
        #expect(recorder.wait { $0.networkManager?.connectivity == 2 } != nil, "\(recorder.values)")
        #expect(try lab.property("connectivity") == "2")
        // Every delivery is a change.
        let values = recorder.values
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 != $1 })
    }

    @Test func aRestartedNetworkManagerIsReadAgainAndAStoppedOneIsNil() throws {
        let lab = try DesktopLab(metered: "yes")
        defer { lab.remove() }
        let recorder = Recorder()
        let watcher = try DesktopWatcher(systemBus: lab.bus, sessionBus: nil, onChange: recorder.record)
        defer { watcher.stop() }
        #expect(watcher.waitForFirstAnswer(until: deadline(seconds: 10)), "\(watcher.lastFailure ?? "")")
        let before = recorder.values.count
        try lab.restartNetworkManager()
        // It went away, then came back with its device.
        let gone = try #require(recorder.index(after: before) { $0.networkManager == nil }, "\(recorder.values)")
        #expect(recorder.wait(after: gone + 1) { eth0($0)?.metered == 1 } != nil, "\(recorder.values)")
        #expect(watcher.lastFailure == nil)

        let running = recorder.values.count
        try lab.stopNetworkManager()
        #expect(recorder.wait(after: running) { $0.networkManager == nil } != nil, "\(recorder.values)")
        #expect(watcher.knowledge.networkManager == nil)
    }

    @Test func aCheckThatFindsAPortalSaysSo() throws {
        let lab = try DesktopLab(check: "portal")
        defer { lab.remove() }
        let watcher = try DesktopWatcher(systemBus: lab.bus, sessionBus: nil) { _ in }
        defer { watcher.stop() }
        #expect(watcher.waitForFirstAnswer(until: deadline(seconds: 10)))
        #expect(watcher.knowledge.networkManager?.connectivity == 2, "\(watcher.knowledge)")
        #expect(watcher.knowledge.networkManager?.checkEnabled == true)
    }

    @Test func aDeadBusAnswersAtOnceWithNothing() throws {
        let lab = DesktopLab.withoutNetworkManager()
        defer { lab.remove() }
        let bus = try lab.deadBus()
        let watcher = try DesktopWatcher(systemBus: bus, sessionBus: nil) { _ in }
        defer { watcher.stop() }
        // Settled by the refusal itself, not by the deadline.
        #expect(watcher.waitForFirstAnswer(until: deadline(seconds: 10)))
        #expect(watcher.knowledge == DesktopKnowledge())
        // The failure names the call that failed, not only the system's words.
        #expect(watcher.lastFailure?.contains("connect: Connection refused") == true, "\(watcher.lastFailure ?? "")")
    }

    /// A server or container with no bus at all: no timer retries it (idle, the watcher's
    /// thread never wakes); the bus is reached as soon as its socket file appears, even
    /// where its directory did not exist either.
    @Test func aBusWhoseSocketDoesNotExistIsAwaitedNotPolled() throws {
        let directory = "/tmp/netpath-nobus-\(getpid())"
        let path = directory + "/dbus/system_bus_socket"
        defer { Syscall.unlink(path); rmdir(directory + "/dbus"); rmdir(directory) }
        let watcher = try DesktopWatcher(systemBus: "unix:path=" + path, sessionBus: nil) { _ in }
        defer { watcher.stop() }
        #expect(watcher.waitForFirstAnswer(until: deadline(seconds: 10)))
        #expect(watcher.lastFailure?.contains("connect: No such file") == true, "\(watcher.lastFailure ?? "")")
        // NetworkManager's connection and logind's, both on the system bus.
        #expect(watcher.busesWaitingForTheirSocket == 2)
        mkdir(directory, 0o755)
        mkdir(directory + "/dbus", 0o755)
        // A listener at the path: the watcher connects to it (accepted within 10 s).
        let listener = try #require(try? Syscall.socket(.unix, .stream).get())
        defer { Syscall.close(listener) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Syscall.bind(listener, to: $0, length: socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        _ = try bound.get()
        _ = try Syscall.listen(listener, backlog: 4).get()
        var accepted: [FileDescriptor] = []
        defer { accepted.forEach(Syscall.close) }
        for _ in 0..<2 {
            var ready = [pollfd(fd: listener.rawValue, events: Int16(POLLIN), revents: 0)]
            #expect(Syscall.poll(&ready, timeout: .seconds(10)) == .success(1), "the watcher did not connect when the socket appeared")
            if let connection = try? Syscall.accept(listener).get() { accepted.append(connection) }
        }
        #expect(accepted.count == 2)
        #expect(watcher.busesWaitingForTheirSocket == 0)
    }

    @Test func aStalledBusHoldsTheCallerOnlyUntilTheDeadline() throws {
        let lab = DesktopLab.withoutNetworkManager()
        defer { lab.remove() }
        let bus = try lab.stalledBus()
        let watcher = try DesktopWatcher(systemBus: bus, sessionBus: nil) { _ in }
        let start = SystemClock.now()
        #expect(!watcher.waitForFirstAnswer(until: start + .milliseconds(250)))
        #expect(SystemClock.now() - start >= .milliseconds(250))
        #expect(watcher.knowledge.networkManager == nil)
        // The handshake's own deadline (2 s) then gives the bus up.
        #expect(watcher.waitForFirstAnswer(until: start + .seconds(5)))
        #expect(watcher.lastFailure?.contains("handshake") == true, "\(watcher.lastFailure ?? "")")
        watcher.stop()
    }

    @Test func thePortalsStatusAndItsChange() throws {
        let lab = DesktopLab.withoutNetworkManager()
        defer { lab.remove() }
        let session = try lab.portalUp(metered: false, connectivity: 4)
        let recorder = Recorder()
        let watcher = try DesktopWatcher(systemBus: nil, sessionBus: session, onChange: recorder.record)
        defer { watcher.stop() }
        #expect(watcher.waitForFirstAnswer(until: deadline(seconds: 10)), "\(watcher.lastFailure ?? "")")
        #expect(watcher.knowledge.portal == PortalStatus(available: true, metered: false, connectivity: 4))
        #expect(watcher.knowledge.networkManager == nil)
        try lab.portalSet("metered", "true")
        #expect(recorder.wait { $0.portal?.metered == true } == DesktopKnowledge(portal: PortalStatus(available: true, metered: true, connectivity: 4)))
        try lab.portalSet("connectivity", "3")
        #expect(recorder.wait { $0.portal?.connectivity == 3 } != nil, "\(recorder.values)")
        // Idle wake-ups (0) are measured in Benchmarks/desktop.py, not asserted here.
    }

    @Test func aBusThatGoesAwayIsNilUntilItIsBack() throws {
        let lab = DesktopLab.withoutNetworkManager()
        defer { lab.remove() }
        let session = try lab.portalUp(metered: false, connectivity: 4)
        let recorder = Recorder()
        let watcher = try DesktopWatcher(systemBus: nil, sessionBus: session, onChange: recorder.record)
        defer { watcher.stop() }
        #expect(watcher.waitForFirstAnswer(until: deadline(seconds: 10)), "\(watcher.lastFailure ?? "")")
        try lab.killSessionBus()
        let gone = try #require(recorder.index { $0.portal == nil }, "\(recorder.values)")
        // The portal may take a moment to exit after its bus: until then portal-up refuses.
        let until = Date().addingTimeInterval(10)
        while (try? lab.portalUp(metered: true, connectivity: 3)) == nil && Date() < until {}
        // Reconnected after its back-off (0.5 s, then 1 s, …).
        #expect(recorder.wait(after: gone) { $0.portal == PortalStatus(available: true, metered: true, connectivity: 3) } != nil,
                "\(recorder.values) \(watcher.lastFailure ?? "")")
    }

    @Test func bothBusesAtOnceAndNoDescriptorIsLeft() throws {
        let lab = try DesktopLab(metered: "yes")
        defer { lab.remove() }
        let session = try lab.portalUp(metered: true, connectivity: 2)
        let before = Set(DesktopBusTests.unixSockets())
        for _ in 0..<10 {
            let watcher = try DesktopWatcher(systemBus: lab.bus, sessionBus: session) { _ in }
            #expect(watcher.waitForFirstAnswer(until: deadline(seconds: 10)))
            #expect(eth0(watcher.knowledge)?.metered == 1 && watcher.knowledge.portal?.connectivity == 2, "\(watcher.knowledge)")
            #expect(Set(DesktopBusTests.unixSockets()).subtracting(before).count >= 2, "the watcher's two bus sockets are not seen")
            watcher.stop()
        }
        // Each watcher had two bus sockets: a leak shows as 20. Only Unix sockets are counted:
        // the tests that run meanwhile open and close netlink sockets, pipes and event loops,
        // and no other test of this process talks to a bus.
        let left = Set(DesktopBusTests.unixSockets()).subtracting(before)
        #expect(left.count < 4, "\(left.count) Unix sockets left open: \(left.sorted())")
    }

    /// The process's open Unix sockets, as `socket:[INODE]`: the descriptors whose socket
    /// `/proc/net/unix` lists (netlink and TCP sockets are not there).
    static func unixSockets() -> [String] {
        let unix = Set(((try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8)) ?? "").split(separator: "\n").dropFirst()
            .compactMap { line in line.split(separator: " ", omittingEmptySubsequences: true).dropFirst(6).first.map(String.init) })
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + $0) }
            .filter { $0.hasPrefix("socket:[") && unix.contains(String($0.dropFirst(8).dropLast())) }
    }
}
