import Foundation
import NetPath
import NetPathSystem

/// Two namespaces joined by a veth link, for connectivity-check tests: `client` (10.77.0.2,
/// fd77::2, default routes via the server) and `server` (10.77.0.1, fd77::1) running the
/// test HTTP server (probe_server.py, ports 80 and 8080) and a real DNS server (dnsmasq)
/// that the client's resolver file names. ``remove()`` stops both and deletes everything.
public final class ProbeLab: @unchecked Sendable {
    // Set up in init, torn down in remove(); used by one test.
    public let client: TestNamespace
    public let server: TestNamespace
    public let modeFile: String
    private let programs = Programs()

    public static let serverScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("probe_server.py").path

    /// - Parameters:
    ///   - hijackDNS: every name resolves to the server (a DNS-hijacking captive portal);
    ///     otherwise only `check.test` and `portal.test` do.
    ///   - mode: `portal` or `online`: how the server answers the default endpoints.
    public init(hijackDNS: Bool = false, mode: String = "online") throws {
        try requireProgram(ProbeLab.dnsmasqPath, package: "dnsmasq-base")
        client = try TestNamespace("pcli")
        server = try TestNamespace("psrv")
        modeFile = "/tmp/netpath-probe-mode-\(client.name)"
        do {
            try client.ip("link add v0 type veth peer name v1 netns \(server.name)")
            try server.batch(["addr add 10.77.0.1/24 dev v1", "addr add fd77::1/64 dev v1 nodad", "link set v1 up"])
            try client.batch(["addr add 10.77.0.2/24 dev v0", "addr add fd77::2/64 dev v0 nodad", "link set v0 up"])
            try client.ip("route add default via 10.77.0.1")
            try client.ip("-6 route add default via fd77::1")
            try "nameserver 10.77.0.1\n".write(toFile: client.resolverDirectory + "/resolv.conf", atomically: true, encoding: .utf8)
            try setMode(mode)
            try start([Kernel.ipPath, "netns", "exec", server.name, "/usr/bin/env", "python3", ProbeLab.serverScript,
                       "--port", "80", "--port", "8080", "--bind", "10.77.0.1", "--bind", "fd77::1", "--mode-file", modeFile],
                      readyWhenOutputContains: "ready")
            var dns = [Kernel.ipPath, "netns", "exec", server.name, ProbeLab.dnsmasqPath, "--no-daemon", "--no-resolv", "--no-hosts",
                       "--bind-interfaces", "--listen-address=10.77.0.1", "--user=root", "--pid-file", "--log-facility=-",
                       "--address=/check.test/10.77.0.1", "--address=/portal.test/10.77.0.1"]
            if hijackDNS { dns.append("--address=/#/10.77.0.1") }
            try start(dns, readyWhenOutputContains: "started")
            try waitUntilOnline()
        } catch {
            remove()
            throw error
        }
    }

    public static let dnsmasqPath = ["/usr/sbin/dnsmasq", "/usr/bin/dnsmasq", "/sbin/dnsmasq"]
        .first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/sbin/dnsmasq"

    /// Waits (at most 30 s) for the client's path to be satisfied: the veth carrier comes
    /// a moment after the link is set up.
    public func waitUntilOnline() throws {
        try ProbeLab.waitUntilOnline(client)
    }

    /// Waits (at most 30 s: the kernel's link watch, which brings the veth carrier, is a work
    /// item that a loaded machine runs late; once seen under the parallel suite after 10 s)
    /// for `client`'s path to be satisfied.
    public static func waitUntilOnline(_ client: TestNamespace) throws {
        let monitor = PathMonitor(configuration: .init(namespace: client.namespace))
        let online = DispatchSemaphore(value: 0)
        monitor.pathUpdateHandler = { path in if path.status == .satisfied { online.signal() } }
        try monitor.start()
        defer { monitor.cancel() }
        guard online.wait(timeout: .now() + 30) == .success else {
            throw CommandFailure(description: "the client namespace did not come online: \(String(describing: monitor.currentPath))")
        }
    }

    /// `portal` or `online` (after "logging in").
    public func setMode(_ mode: String) throws {
        try (mode + "\n").write(toFile: modeFile, atomically: true, encoding: .utf8)
    }

    /// Starts a program and waits, at most 10 s, until its output shows it is ready. Its
    /// standard input stays open until ``remove()``, which stops it.
    public func start(_ command: [String], readyWhenOutputContains marker: String) throws {
        try programs.start(command, readyWhenOutputContains: marker)
    }

    public func remove() {
        programs.stopAll()
        client.remove()
        server.remove()
        try? FileManager.default.removeItem(atPath: modeFile)
    }

    /// The programs a lab runs, stopped together.
    public final class Programs: @unchecked Sendable {
        // Changed only by the test that owns the lab, on its thread.
        private var children: [Child] = []

        public init() {}

        /// Starts a program and waits, at most 10 s, until its output shows it is ready. Its
        /// standard input stays open until ``stopAll()``, which stops it.
        public func start(_ command: [String], readyWhenOutputContains marker: String) throws {
            let child = try Child(command[0], Array(command.dropFirst()), pipeInput: true, errorsToOutput: true)
            children.append(child)
            let descriptor = child.output
            var seen = ""
            let deadline = Date().addingTimeInterval(10)
            while !seen.contains(marker) {
                let left = deadline.timeIntervalSinceNow
                var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                guard left > 0, poll(&poller, 1, Int32(left * 1000) + 1) > 0 else {
                    throw CommandFailure(description: "\(command.joined(separator: " ")) did not become ready: \(seen)")
                }
                var chunk = [UInt8](repeating: 0, count: 4096)
                let count = read(descriptor, &chunk, chunk.count)
                if count <= 0 {
                    throw CommandFailure(description: "\(command[0]) ended: \(seen)")
                }
                seen += String(decoding: chunk[0..<count], as: UTF8.self)
            }
            // Keep draining its output so it never blocks on a full pipe; the thread (which keeps
            // the child, and so the descriptor, alive) ends at end of file.
            Thread.detachNewThread {
                var sink = [UInt8](repeating: 0, count: 4096)
                while read(child.output, &sink, sink.count) > 0 {}
            }
        }

        public func stopAll() {
            for child in children {
                child.closeInput()
                child.kill()
            }
            children.removeAll()
        }
    }
}
