import Foundation
import Synchronization
import Testing
@testable import NetPath

/// Whether kernel tests can run: root and `ip`. Under `CI=true` they always run, so a
/// machine that cannot run them fails the run instead of skipping.
enum Kernel {
    static let isCI = ProcessInfo.processInfo.environment["CI"] == "true"
    static let canRun: Bool = isCI || (getuid() == 0 && FileManager.default.isExecutableFile(atPath: ipPath))
    static let ipPath = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"]
        .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/sbin/ip"
}

struct CommandFailure: Error, CustomStringConvertible {
    var description: String
}

/// Runs a program and returns its standard output; throws with its stderr on failure.
@discardableResult
func run(_ program: String, _ arguments: [String], input: String? = nil) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    let output = Pipe(), errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    let inputPipe = input.map { _ in Pipe() }
    if let inputPipe { process.standardInput = inputPipe }
    try process.run()
    if let input, let inputPipe {
        inputPipe.fileHandleForWriting.write(Data(input.utf8))
        try inputPipe.fileHandleForWriting.close()
    }
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw CommandFailure(description: "\(program) \(arguments.joined(separator: " ")) failed: \(String(decoding: errData, as: UTF8.self))")
    }
    return String(decoding: outData, as: UTF8.self)
}

/// A network namespace made for one test; ``remove()`` deletes it (call it in `defer`).
final class TestNamespace: Sendable {
    let name: String
    private static let counter = Atomic<Int>(0)

    init(_ label: String = "t") throws {
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
    func ip(_ command: String) throws {
        try run(Kernel.ipPath, ["-n", name] + command.split(separator: " ").map(String.init))
    }

    /// Runs many `ip` commands in one process (`ip -n NAME -batch -`).
    func batch(_ commands: [String]) throws {
        try run(Kernel.ipPath, ["-n", name, "-force", "-batch", "-"], input: commands.joined(separator: "\n") + "\n")
    }

    var namespace: NetworkNamespace { .named(name) }

    /// Adds Ethernet links (veth, down) whose peers live, up, in a peer namespace of their
    /// own, so each has carrier as soon as it is set up. (This kernel has no `dummy`.)
    func addLinks(_ names: String..., index: Int? = nil) throws {
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

    var resolverDirectory: String { "/etc/netns/\(name)" }

    func remove() {
        _ = try? run(Kernel.ipPath, ["netns", "del", name])
        if FileManager.default.fileExists(atPath: "/var/run/netns/\(name)p") {
            _ = try? run(Kernel.ipPath, ["netns", "del", name + "p"])
        }
        _ = try? FileManager.default.removeItem(atPath: "/etc/netns/\(name)")
    }
}

/// Records the paths a monitor delivers and lets a test wait for one, with a deadline.
final class PathRecorder: Sendable {
    private struct Waiter {
        var predicate: @Sendable (NetworkPath) -> Bool
        var continuation: CheckedContinuation<NetworkPath?, Never>
    }

    private struct State {
        var paths: [NetworkPath] = []
        var waiters: [Int: Waiter] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    /// Attaches to `monitor`'s update handler.
    init(_ monitor: PathMonitor) {
        monitor.pathUpdateHandler = { [weak self] path in self?.record(path) }
    }

    init() {}

    func record(_ path: NetworkPath) {
        let ready: [(CheckedContinuation<NetworkPath?, Never>)] = state.withLock { state in
            state.paths.append(path)
            let matched = state.waiters.filter { $0.value.predicate(path) }
            for id in matched.keys { state.waiters[id] = nil }
            return matched.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume(returning: path) }
    }

    var paths: [NetworkPath] { state.withLock { $0.paths } }

    /// Waits until the latest path satisfies `predicate`; `nil` after `seconds`.
    func wait(seconds: Double = 10, until predicate: @escaping @Sendable (NetworkPath) -> Bool) async -> NetworkPath? {
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

    /// Waits for a path whose summary is `expected`; records a test issue when it does not come.
    @discardableResult
    func expect(_ expected: String, seconds: Double = 10, sourceLocation: SourceLocation = #_sourceLocation) async -> NetworkPath? {
        let path = await wait(seconds: seconds) { $0.summary == expected }
        if path == nil {
            Issue.record("no path '\(expected)' within \(seconds) s; got \(paths.map(\.summary))", sourceLocation: sourceLocation)
        }
        return path
    }

    /// Checks the whole sequence delivered; entries written `?…` may be absent (a state
    /// the kernel passes through only sometimes, such as carrier arriving after IFF_UP).
    func expectSequence(_ expected: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        let actual = paths.map(\.summary)
        var index = 0
        var matched = true
        for entry in expected {
            let optional = entry.hasPrefix("?")
            let wanted = optional ? String(entry.dropFirst()) : entry
            if index < actual.count && actual[index] == wanted {
                index += 1
            } else if !optional {
                matched = false
                break
            }
        }
        if !matched || index != actual.count {
            Issue.record("paths delivered: \(actual)\nexpected: \(expected)", sourceLocation: sourceLocation)
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
    var summary: String {
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

/// A started monitor of `namespace` with a recorder attached.
func startMonitor(
    _ namespace: TestNamespace,
    required: NetworkInterface.InterfaceType? = nil,
    prohibited: [NetworkInterface.InterfaceType] = [],
    options: LinuxSourceOptions = .init()
) throws -> (PathMonitor, PathRecorder) {
    let monitor = PathMonitor(
        requiredInterfaceType: required, prohibitedInterfaceTypes: prohibited, namespace: namespace.namespace,
        makeSource: PathMonitor.systemSource(namespace: namespace.namespace, options: options)
    )
    let recorder = PathRecorder(monitor)
    try monitor.start()
    return (monitor, recorder)
}

/// Open descriptors of this process.
func openDescriptorCount() -> Int {
    (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
}
