import Foundation
import Synchronization
import NetPath
import NetPathSystem
import CTestSupport

/// Whether kernel tests can run: root and `ip`. Under `CI=true` they always run, so a
/// machine that cannot run them fails the run instead of skipping.
public enum Kernel {
    public static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"
    public static let canRun: Bool = isCI || (getuid() == 0 && FileManager.default.isExecutableFile(atPath: ipPath))
    public static let ipPath = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]
        .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/sbin/ip"
    /// Whether this process runs under ThreadSanitizer (`swift test --sanitize=thread`),
    /// whose shadow memory and allocator make resident-memory figures several times larger.
    public static let underThreadSanitizer = dlsym(nil, "__tsan_init") != nil
}

public struct CommandFailure: Error, CustomStringConvertible {
    public var description: String
}

/// Fails at once, naming the program and the Debian package, when a test's real program is
/// not installed (rather than "exec … No such file or directory" or a timeout later).
///
/// - Returns: `path`.
@discardableResult
public func requireProgram(_ path: String, package: String) throws -> String {
    guard FileManager.default.isExecutableFile(atPath: path) else {
        throw CommandFailure(description: "\((path as NSString).lastPathComponent) is not installed: \(path) is missing (apt-get install \(package); .ci/run installs it)")
    }
    return path
}

/// Runs a program and returns its standard output; throws with its stderr on failure
/// (or when it has not ended after two minutes).
@discardableResult
public func run(_ program: String, _ arguments: [String], input: String? = nil) throws -> String {
    let child = try Child(program, arguments, pipeInput: input != nil)
    if let input { child.send(input) }
    let deadline = Date().addingTimeInterval(120)
    let (output, errors) = child.readToEnd(until: deadline)
    guard let status = child.wait(seconds: max(0, deadline.timeIntervalSinceNow)) else {
        child.kill()
        throw CommandFailure(description: "\(program) \(arguments.joined(separator: " ")) did not end")
    }
    guard status == 0 else {
        throw CommandFailure(description: "\(program) \(arguments.joined(separator: " ")) failed: \(String(decoding: errors, as: UTF8.self))")
    }
    return String(decoding: output, as: UTF8.self)
}

/// A network namespace made for one test; ``remove()`` deletes it (call it in `defer`).
public final class TestNamespace: Sendable {
    public let name: String
    private static let counter = Atomic<Int>(0)

    public init(_ label: String = "t") throws {
        let number = TestNamespace.counter.add(1, ordering: .relaxed).newValue
        name = "np-\(label.prefix(6))-\(getpid())-\(number)"
        try run(Kernel.ipPath, ["netns", "add", name])
        // Loopback up, as on a real host; it must never count.
        try ip("link set lo up")
        // Hermetic DNS: the namespace's own resolver file, with no server until a test
        // writes one (otherwise the host's /etc/resolv.conf would decide).
        try FileManager.default.createDirectory(atPath: resolverDirectory, withIntermediateDirectories: true)
        try "# NetPath test namespace: no servers\n".write(toFile: resolverDirectory + "/resolv.conf", atomically: true, encoding: .utf8)
    }

    /// Runs `ip -n NAME <command>`.
    public func ip(_ command: String) throws {
        try run(Kernel.ipPath, ["-n", name] + command.split(separator: " ").map(String.init))
    }

    /// Runs many `ip` commands in one process (`ip -n NAME -batch -`).
    public func batch(_ commands: [String]) throws {
        try run(Kernel.ipPath, ["-n", name, "-force", "-batch", "-"], input: commands.joined(separator: "\n") + "\n")
    }

    public var namespace: NetworkNamespace { .named(name) }

    /// Adds Ethernet links (veth, down) whose peers live, up, in a peer namespace of their
    /// own, so each has carrier as soon as it is set up. (This kernel has no `dummy`.)
    public func addLinks(_ names: String..., index: Int? = nil) throws {
        let peer = try peerNamespace()
        for name in names {
            let indexWords = index.map { " index \($0)" } ?? ""
            try ip("link add \(name)\(indexWords) type veth peer name p-\(name) netns \(peer)")
            try run(Kernel.ipPath, ["-n", peer, "link", "set", "p-\(name)", "up"])
        }
    }

    private func peerNamespace() throws -> String {
        let peer = name + "p"
        if !FileManager.default.fileExists(atPath: "/var/run/netns/" + peer) {
            try run(Kernel.ipPath, ["netns", "add", peer])
        }
        return peer
    }

    public var resolverDirectory: String { "/etc/netns/\(name)" }

    public func remove() {
        _ = try? run(Kernel.ipPath, ["netns", "del", name])
        if FileManager.default.fileExists(atPath: "/var/run/netns/\(name)p") {
            _ = try? run(Kernel.ipPath, ["netns", "del", name + "p"])
        }
        _ = try? FileManager.default.removeItem(atPath: "/etc/netns/\(name)")
    }
}

/// Records the paths a monitor delivers and lets a test wait for one, with a deadline.
public final class PathRecorder: Sendable {
    private struct Waiter {
        var predicate: @Sendable (NetworkPath) -> Bool
        var continuation: CheckedContinuation<NetworkPath?, Never>
    }

    private struct State {
        public var paths: [NetworkPath] = []
        /// When each path arrived (on the monitor's thread, whatever the test's executor).
        var times: [Date] = []
        var waiters: [Int: Waiter] = [:]
        var nextID = 0
    }

    private let state = Shared(State())

    /// Attaches to `monitor`'s update handler.
    public init(_ monitor: PathMonitor) {
        monitor.pathUpdateHandler = { [weak self] path in self?.record(path) }
    }

    public init() {}

    public func record(_ path: NetworkPath) {
        let ready: [(CheckedContinuation<NetworkPath?, Never>)] = state.withLock { state in
            state.paths.append(path)
            state.times.append(Date())
            let matched = state.waiters.filter { $0.value.predicate(path) }
            for id in matched.keys { state.waiters[id] = nil }
            return matched.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume(returning: path) }
    }

    public var paths: [NetworkPath] { state.withLock { $0.paths } }

    /// Every path with the time it arrived: a time to a verdict measured so is not
    /// lengthened by a busy test executor that resumes the waiting test late.
    public var arrivals: [(time: Date, path: NetworkPath)] { state.withLock { Array(zip($0.times, $0.paths)) } }

    /// Waits until the latest path satisfies `predicate`; `nil` after `seconds`.
    public func wait(seconds: Double = 10, until predicate: @escaping @Sendable (NetworkPath) -> Bool) async -> NetworkPath? {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            return state.nextID
        }
        let deadline = Task {
            try? await Task.sleep(for: .seconds(seconds))
            self.expire(id)
        }
        defer { deadline.cancel() }
        return await withCheckedContinuation { continuation in
            let immediate: NetworkPath?? = state.withLock { state in
                if let last = state.paths.last, predicate(last) { return .some(last) }
                state.waiters[id] = Waiter(predicate: predicate, continuation: continuation)
                return .none
            }
            if case .some(let path) = immediate { continuation.resume(returning: path) }
        }
    }

    private func expire(_ id: Int) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.continuation.resume(returning: nil)
    }
}

extension NetworkPath {
    /// A compact, complete description for assertions: status or diagnosis, interfaces
    /// with types, gateways, families and DNS.
    public var summary: String {
        var words: [String] = [status == .satisfied ? "satisfied" : "\(status.rawValue)/\(diagnosis?.rawValue ?? "-")"]
        words.append("[" + availableInterfaces.map { "\($0.name):\($0.type.rawValue)" }.joined(separator: ",") + "]")
        if !gateways.isEmpty { words.append("gw " + gateways.joined(separator: ",")) }
        if supportsIPv4 { words.append("v4") }
        if supportsIPv6 { words.append("v6") }
        if supportsDNS { words.append("dns") }
        if isExpensive { words.append("expensive") }
        if status != .satisfied && unsatisfiedReason != .notAvailable { words.append("reason?") }
        return words.joined(separator: " ")
    }
}

/// A descriptor attached to a tun device, as a VPN daemon holds it; closing it (once) drops
/// the device's carrier.
public final class TunAttachment: @unchecked Sendable {
    // Touched only by the test that owns it.
    private var descriptor: Int32
    init(_ descriptor: Int32) { self.descriptor = descriptor }
    public func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }
    deinit { close() }
}

/// Makes a tun device `name` in `ns` and attaches a descriptor to it, so it has carrier
/// (operstate UNKNOWN with LOWER_UP), as with a VPN client running.
public func attachTun(_ ns: TestNamespace, _ name: String) throws -> TunAttachment {
    try ns.ip("tuntap add dev \(name) mode tun")
    let descriptor = ctest_tun_attach_in("/var/run/netns/\(ns.name)", name)
    guard descriptor >= 0 else { throw CommandFailure(description: "cannot attach to the tun device \(name) in \(ns.name)") }
    return TunAttachment(descriptor)
}
