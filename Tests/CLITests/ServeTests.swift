import Foundation
import KernelTestSupport
import Testing
@testable import netpath
import NetPathCore
import NetPathSystem

// `netpath serve` with the real engine: promtool, a Prometheus server scraping it and
// evaluating the shipped alert rules, node_exporter reading its textfile, namespaces made
// and deleted while it runs, hostile HTTP clients.

/// A running `netpath serve --listen 127.0.0.1:0 …`, with the port the kernel chose.
final class Serving: @unchecked Sendable {
    let tool: RunningTool
    let port: UInt16

    /// - Parameter launcher: A program and its arguments that run the tool (`setpriv …`).
    init(_ arguments: [String], launcher: [String] = []) throws {
        let serve = ["serve", "--listen", "127.0.0.1:0"] + arguments
        if let program = launcher.first {
            tool = try RunningTool(Array(launcher.dropFirst()) + [netpathBinary] + serve, executable: program)
        } else {
            tool = try RunningTool(serve)
        }
        let line = try #require(tool.nextLine(seconds: 15), "serve did not start")
        let prefix = "netpath: serving http://127.0.0.1:"
        guard line.hasPrefix(prefix), let port = UInt16(line.dropFirst(prefix.count).prefix { $0.isNumber }) else {
            throw ServeFailure(description: "unexpected first line: \(line)")
        }
        self.port = port
    }

    func metrics() throws -> String {
        let answer = try HTTPExchange.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", port: port)
        guard answer.status == 200 else { throw ServeFailure(description: "GET /metrics: \(answer.status)") }
        return answer.body
    }

    /// Scrapes until `condition` holds (at most `seconds`); the last text.
    func metrics(until condition: (String) -> Bool, seconds: Double = 15) throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        var text = try metrics()
        while !condition(text) && Date() < deadline {
            HTTPExchange.pause()
            text = try metrics()
        }
        return text
    }

    func stop() -> Outcome? {
        tool.signal(SIGTERM)
        return tool.finish()
    }
}

/// One HTTP exchange over a plain socket, as a scraper or a hostile client makes it.
enum HTTPExchange {
    struct Answer {
        var status: Int
        var head: String
        var body: String
    }

    /// A connected socket to 127.0.0.1:`port`, with a receive timeout.
    static func connect(port: UInt16, timeout seconds: Int = 5) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw ServeFailure(description: "cannot connect to port \(port): \(String(cString: strerror(errno)))")
        }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    static func write(_ fd: Int32, _ bytes: [UInt8]) {
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return }
            sent += count
        }
    }

    /// Reads to the end of the answer (the server closes), at most the socket's timeout.
    static func readAnswer(_ fd: Int32) -> Answer? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            bytes += chunk[..<count]
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { return nil }
        let head = String(text[..<split.lowerBound])
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        var body = String(text[split.upperBound...])
        // Another server's answer (node_exporter's, Prometheus') may come in chunks, whose
        // size lines would otherwise split a line of the text in two: decoded as the check's
        // classifier decodes them.
        if case .head(let parsed)? = HTTPResponseClassifier.parseHead(bytes, limit: bytes.count + 1),
           parsed.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            body = String(decoding: HTTPResponseClassifier.body(bytes, head: parsed).bytes, as: UTF8.self)
        }
        return Answer(status: status, head: head, body: body)
    }

    static func send(_ request: String, port: UInt16) throws -> Answer {
        let fd = try connect(port: port)
        defer { close(fd) }
        write(fd, Array(request.utf8))
        return try #require(readAnswer(fd), "no answer to \(request.debugDescription)")
    }

    /// A short pause between two polls of something we cannot be told about (a scrape).
    static func pause() {
        var interval = timespec(tv_sec: 0, tv_nsec: 100_000_000)
        nanosleep(&interval, nil)
    }
}

/// Runs a program with `input` on its standard input; its status and combined output.
func runWithInput(_ program: String, _ arguments: [String], input: String) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    let stdin = Pipe(), stdout = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stdout
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self))
}

/// A tool the test needs: under CI it must be there (CI installs it); elsewhere its absence
/// skips the test.
func requiredTool(_ path: String) -> Bool {
    FileManager.default.isExecutableFile(atPath: path) || Kernel.isCI
}

/// A free TCP port on loopback, for a program that needs one named.
func freePort() throws -> UInt16 {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw ServeFailure(description: "no free port") }
    return UInt16(bigEndian: address.sin_port)
}

/// A namespace with a satisfied wired path (10.90.0.2 via 10.90.0.1).
func onlineServeNamespace(_ label: String) throws -> TestNamespace {
    let ns = try TestNamespace(label)
    try ns.addLinks("eth0")
    try ns.batch(["link set eth0 up", "addr add 10.90.0.2/24 dev eth0", "route add default via 10.90.0.1"])
    return ns
}

@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct ServeTests {
    static let promtool = "/usr/bin/promtool"

    @Test(.enabled(if: requiredTool(ServeTests.promtool), "needs promtool (Debian: prometheus)"))
    func promtoolFindsNothingToSay() throws {
        let online = try onlineServeNamespace("srvon")
        let offline = try TestNamespace("srvoff")
        defer { online.remove(); offline.remove() }
        let lab = try ProbeLab()
        defer { lab.remove() }
        let plain = try Serving(["--netns", online.name, "--netns", offline.name])
        let withProbe = try Serving(["--netns", lab.client.name, "--netns", offline.name, "--probe",
                                     "--url", "\(ProbeCLITests.server)/204", "--probe-timeout", "2"])
        defer { _ = plain.stop(); _ = withProbe.stop() }
        let satisfied = "netpath_path_status{netns=\"\(online.name)\",status=\"satisfied\"} 1"
        let full = ["netpath_connectivity{netns=\"\(lab.client.name)\",connectivity=\"full\"} 1",
                    "netpath_connectivity_family{netns=\"\(lab.client.name)\",family=\"ipv4\",connectivity=\"full\"} 1"]
        let texts = [
            try plain.metrics { $0.contains(satisfied) },
            try withProbe.metrics { text in full.allSatisfy(text.contains) },
        ]
        if !full.allSatisfy(texts[1].contains) {
            // Said in a few lines (a whole scrape is cut short in CI's log): the lab's series,
            // and what a check of its own says now.
            let series = texts[1].split(separator: "\n").filter { line in
                line.contains(lab.client.name) && !line.contains("_bucket") && (line.contains("changes_total") || line.contains("_count")
                                                   || line.contains("netpath_connectivity") && line.hasSuffix(" 1"))
            }
            let probe = try runTool(netpathBinary, ["probe", "--json", "--netns", lab.client.name, "--url", "\(ProbeCLITests.server)/204"])
            Issue.record("no full verdict over IPv4 within 15 s: \(series.joined(separator: "; ")); probe now: \(probe?.standardOutput ?? "hung")")
        }
        #expect(texts[0].contains(satisfied))
        #expect(texts[0].contains("netpath_path_status{netns=\"\(offline.name)\",status=\"unsatisfied\"} 1"))
        #expect(texts[0].contains("netpath_path_diagnosis{netns=\"\(offline.name)\",diagnosis=\"noInterface\"} 1"))
        #expect(texts[0].contains("netpath_path_interface_info{netns=\"\(online.name)\",interface=\"eth0\",type=\"wiredEthernet\",rank=\"0\"} 1"))
        #expect(!texts[0].contains("netpath_connectivity"))
        let checks = "netpath_connectivity_check_duration_seconds_count{netns=\"\(lab.client.name)\"} "
        #expect(texts[1].contains(checks) && !texts[1].contains(checks + "0\n"), "at least one check counted")
        for text in texts {
            let checked = try runWithInput(ServeTests.promtool, ["check", "metrics"], input: text)
            #expect(checked.status == 0 && checked.output.isEmpty, "\(checked.output)")
        }
    }

    /// A real Prometheus (1 s scrape and evaluation) scrapes serve; the status series
    /// follows a namespace losing its route, and the shipped NetPathNotSatisfied rule (its
    /// `for` shortened from 2m to 2s) fires and resolves.
    @Test(.enabled(if: requiredTool("/usr/bin/prometheus"), "needs prometheus"))
    func prometheusFollowsTheStatusAndTheShippedAlertFiresAndResolves() throws {
        let ns = try onlineServeNamespace("srvprom")
        defer { ns.remove() }
        let serving = try Serving(["--netns", ns.name])
        defer { _ = serving.stop() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netpath-prom-\(ns.name)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let rulesSource = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Deploy/netpath.rules.yml")
        let rules = try String(contentsOf: rulesSource, encoding: .utf8)
        #expect(rules.contains("alert: NetPathNotSatisfied") && rules.contains("for: 2m"))
        try rules.replacingOccurrences(of: "for: 2m", with: "for: 2s").write(toFile: directory + "/rules.yml", atomically: true, encoding: .utf8)
        try """
        global:
          scrape_interval: 1s
          evaluation_interval: 1s
        rule_files: [rules.yml]
        scrape_configs:
          - job_name: netpath
            static_configs: [{targets: ["127.0.0.1:\(serving.port)"]}]
        """.write(toFile: directory + "/prometheus.yml", atomically: true, encoding: .utf8)
        let port = try freePort()
        let prometheus = try Child(try requireProgram("/usr/bin/prometheus", package: "prometheus"), ["--config.file=\(directory)/prometheus.yml", "--storage.tsdb.path=\(directory)/data",
                                                           "--web.listen-address=127.0.0.1:\(port)"])
        defer { prometheus.kill() }
        func query(_ path: String) throws -> String {
            try HTTPExchange.send("GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", port: port).body
        }
        func wait(for path: String, until condition: (String) -> Bool, seconds: Double = 30) throws -> String {
            let deadline = Date().addingTimeInterval(seconds)
            var last = ""
            while Date() < deadline {
                last = (try? query(path)) ?? ""
                if condition(last) { return last }
                HTTPExchange.pause()
            }
            return last
        }
        let status = "/api/v1/query?query=netpath_path_status%7Bnetns%3D%22\(ns.name)%22%2Cstatus%3D%22satisfied%22%7D"
        #expect(try wait(for: status) { $0.contains("\"1\"]") }.contains("\"1\"]"), "the satisfied series never reached 1")
        try ns.ip("route del default")
        #expect(try wait(for: status) { $0.contains("\"0\"]") }.contains("\"0\"]"), "the satisfied series never fell to 0")
        let firing = try wait(for: "/api/v1/alerts") { $0.contains("NetPathNotSatisfied") && $0.contains("\"firing\"") && $0.contains(ns.name) }
        #expect(firing.contains("\"firing\"") && firing.contains(ns.name), "the alert did not fire: \(firing)")
        try ns.ip("route add default via 10.90.0.1")
        let resolved = try wait(for: "/api/v1/alerts") { !$0.contains(ns.name) && $0.contains("\"success\"") }
        #expect(!resolved.contains(ns.name), "the alert did not resolve: \(resolved)")
    }

    /// node_exporter with only the textfile collector reads what `--textfile` writes.
    @Test(.enabled(if: requiredTool("/usr/bin/prometheus-node-exporter"), "needs prometheus-node-exporter"))
    func nodeExporterReadsTheTextfile() throws {
        let ns = try onlineServeNamespace("srvtxt")
        defer { ns.remove() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netpath-text-\(ns.name)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let serving = try RunningTool(["serve", "--textfile", directory + "/netpath.prom", "--netns", ns.name])
        defer { serving.signal(SIGTERM); _ = serving.finish() }
        #expect(serving.nextLine(seconds: 60) == "netpath: writing \(directory)/netpath.prom")
        let port = try freePort()
        let exporter = try Child(try requireProgram("/usr/bin/prometheus-node-exporter", package: "prometheus-node-exporter"), [
            "--collector.disable-defaults", "--collector.textfile", "--collector.textfile.directory=\(directory)",
            "--web.listen-address=127.0.0.1:\(port)",
        ])
        defer { exporter.kill() }
        let satisfied = "netpath_path_status{netns=\"\(ns.name)\",status=\"satisfied\"} 1"
        // node_exporter has no event to wait on: asked until it shows the path, for at most
        // a minute (a ceiling for a loaded machine, not a measure; it answers in well under a
        // second here).
        let deadline = Date().addingTimeInterval(60)
        var text = ""
        while !text.contains(satisfied) && Date() < deadline {
            text = (try? HTTPExchange.send("GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", port: port).body) ?? ""
            if !text.contains(satisfied) { HTTPExchange.pause() }
        }
        #expect(text.contains(satisfied), "node_exporter did not show the path: \(text.prefix(2000)); netpath's file: \((try? String(contentsOfFile: directory + "/netpath.prom", encoding: .utf8))?.split(separator: "\n").filter { $0.contains("path_status") } ?? [])")
        #expect(text.contains("node_textfile_scrape_error 0"))
        // No temporary file is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["netpath.prom"])
    }

    /// The textfile is rewritten every `--textfile-interval` with nothing changed, so its
    /// mtime shows netpath is alive (Deploy/'s NetPathTextfileStale): each rewrite is a rename
    /// into place, seen here as inotify's `IN_MOVED_TO`.
    @Test func theTextfileIsRewrittenWithNothingChanged() throws {
        let ns = try onlineServeNamespace("srvlive")
        defer { ns.remove() }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netpath-live-\(ns.name)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let serving = try RunningTool(["serve", "--textfile", directory + "/netpath.prom", "--textfile-interval", "1", "--netns", ns.name])
        defer { serving.signal(SIGTERM); _ = serving.finish() }
        #expect(serving.nextLine(seconds: 15) == "netpath: writing \(directory)/netpath.prom")
        let inotify = try Inotify()
        defer { inotify.close() }
        _ = inotify.watch(directory, mask: .movedTo)
        var renames = 0
        for _ in 0..<3 {
            var ready = [Syscall.PollEntry(inotify.descriptor, events: Int16(POLLIN))]
            guard case .success(1) = Syscall.poll(&ready, timeout: .seconds(15)) else { break }
            renames += inotify.readEvents().filter { $0.name == "netpath.prom" }.count
        }
        #expect(renames >= 3)
    }

    /// `--all-namespaces`: a namespace made while serve runs is watched, a deleted one
    /// disappears with its series.
    @Test func allNamespacesFollowsRunNetns() throws {
        let serving = try Serving(["--all-namespaces"])
        var stopped = false
        defer { if !stopped { _ = serving.stop() } }
        let ns = try onlineServeNamespace("srvall")
        var removed = false
        defer { if !removed { ns.remove() } }
        let series = "netpath_path_status{netns=\"\(ns.name)\",status=\"satisfied\"} 1"
        #expect(try serving.metrics { $0.contains(series) }.contains(series), "the new namespace was not watched")
        ns.remove()
        removed = true
        let gone = try serving.metrics { !$0.contains("netns=\"\(ns.name)\"") }
        #expect(!gone.contains("netns=\"\(ns.name)\""), "the deleted namespace's series stayed")
        #expect(gone.contains("netpath_path_status{netns=\"\",status="))
        // Namespaces coming and going are not errors: nothing on stderr (`ip netns add` makes
        // the name before it mounts the namespace on it; a deleted one ends its monitor).
        stopped = true
        let outcome = try #require(serving.stop())
        #expect(outcome.status == 0 && outcome.standardError.isEmpty, "\(outcome.standardError)")
    }

    /// A namespace whose name is not UTF-8 (`ip netns add` takes any bytes but a slash) is
    /// watched like any other, its label showing the odd bytes as `\xNN`.
    @Test func aNamespaceNamedWithBytesThatAreNotUTF8IsWatched() throws {
        let serving = try Serving(["--all-namespaces"])
        defer { _ = serving.stop() }
        let suffix = "\(getpid())"
        var name = Array("np-bytes-".utf8) + [0xFF, 0xFE] + Array("-\(suffix)".utf8)
        name.append(0)
        let made = name.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { runBytes(Kernel.ipPath, ["netns", "add"], last: $0.baseAddress!) }
        }
        try #require(made, "ip netns add with a non-UTF-8 name failed")
        defer { _ = name.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { runBytes(Kernel.ipPath, ["netns", "del"], last: $0.baseAddress!) }
        } }
        let up = "netpath_namespace_up{netns=\"np-bytes-\\\\xff\\\\xfe-\(suffix)\"} 1"
        let text = try serving.metrics { $0.contains(up) }
        #expect(text.contains(up), "\(text.split(separator: "\n").filter { $0.contains("np-bytes") })")
        // Given on the command line, the same bytes name the same namespace.
        let status = Array("status".utf8) + [0]
        let named = name.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { last in
                status.withUnsafeBufferPointer { command in
                    command.withMemoryRebound(to: CChar.self) { command in
                        runBytesStatus(netpathBinary, [String(cString: command.baseAddress!), "--netns"], last: last.baseAddress!)
                    }
                }
            }
        }
        // An offline namespace: exit 1 (not 3, "does not exist").
        #expect(!named.ok && named.status == 1, "netpath status --netns <the bytes> exited \(named.status)")
    }

    /// A namespace that cannot be watched: one line on stderr, `netpath_namespace_up 0` (the
    /// reason in a comment beside it), and the others watched as before.
    @Test func aNamespaceThatCannotBeWatchedStopsNoOther() throws {
        let ns = try onlineServeNamespace("srvok")
        defer { ns.remove() }
        let missing = ns.name + "-gone"
        let serving = try Serving(["--netns", missing, "--netns", ns.name])
        let satisfied = "netpath_path_status{netns=\"\(ns.name)\",status=\"satisfied\"} 1"
        let text = try serving.metrics { $0.contains(satisfied) && $0.contains("netns=\"\(missing)\"") }
        #expect(text.contains(satisfied))
        #expect(text.contains("netpath_namespace_up{netns=\"\(missing)\"} 0"))
        #expect(text.contains("netpath_namespace_up{netns=\"\(ns.name)\"} 1"))
        #expect(text.contains("# netns \"\(missing)\" cannot be watched: network namespace '\(missing)' does not exist"))
        #expect(!text.contains("netpath_path_status{netns=\"\(missing)\""))
        let outcome = try #require(serving.stop())
        #expect(outcome.status == 0)
        #expect(outcome.standardError.hasPrefix("netpath: network namespace '\(missing)' does not exist"), "\(outcome.standardError)")
    }

    /// One namespace given by its name and by a path to it is watched once, under the label
    /// given first.
    @Test func aNamespaceGivenByNameAndByPathIsWatchedOnce() throws {
        let ns = try onlineServeNamespace("srvtwice")
        defer { ns.remove() }
        let serving = try Serving(["--netns", ns.name, "--netns", "/var/run/netns/" + ns.name])
        let satisfied = "netpath_path_status{netns=\"\(ns.name)\",status=\"satisfied\"} 1"
        let text = try serving.metrics { $0.contains(satisfied) }
        #expect(text.contains(satisfied))
        #expect(!text.contains("netns=\"/var/run/netns/"), "\(text)")
        #expect(try #require(serving.stop()).status == 0)
    }

    /// Slow, silent, huge and garbage clients, and 200 connections held open: another
    /// client is still answered, and the process does not grow.
    @Test func hostileClientsDelayNobody() throws {
        let serving = try Serving([])
        defer { _ = serving.stop() }
        let residentBefore = residentKilobytes(of: serving.tool.processIdentifier)
        var held: [Int32] = []
        defer { for fd in held { close(fd) } }
        for _ in 0..<200 { held.append(try HTTPExchange.connect(port: serving.port)) }
        // Slow headers: a byte of a request now and then, never finished.
        HTTPExchange.write(held[0], Array("GET /metr".utf8))
        // Garbage and a NUL.
        HTTPExchange.write(held[1], [0, 1, 2, 0xFF, 0x0D, 0x0A])
        // A 1 MB request line.
        let huge = try HTTPExchange.connect(port: serving.port)
        defer { close(huge) }
        HTTPExchange.write(huge, Array(("GET /" + String(repeating: "a", count: 1 << 20)).utf8))
        let refused = HTTPExchange.readAnswer(huge)
        #expect(refused?.status == 414)
        // Another client is answered at once, and its answer is whole.
        let answer = try HTTPExchange.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", port: serving.port)
        #expect(answer.status == 200 && answer.body.contains("netpath_build_info{version=\""))
        #expect(answer.head.contains("Content-Type: text/plain; version=0.0.4; charset=utf-8"))
        let residentAfter = residentKilobytes(of: serving.tool.processIdentifier)
        #expect(residentAfter - residentBefore < 8 * 1024, "grew from \(residentBefore) to \(residentAfter) kB")
        // The routes and methods.
        #expect(try HTTPExchange.send("GET / HTTP/1.1\r\n\r\n", port: serving.port).body.contains("href=\"/metrics\""))
        #expect(try HTTPExchange.send("GET /other HTTP/1.1\r\n\r\n", port: serving.port).status == 404)
        let post = try HTTPExchange.send("POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", port: serving.port)
        #expect(post.status == 405 && post.head.contains("Allow: GET, HEAD"))
        let head = try HTTPExchange.send("HEAD /metrics HTTP/1.0\r\n\r\n", port: serving.port)
        #expect(head.status == 200 && head.body.isEmpty)
        #expect(try HTTPExchange.send("\u{1}\u{2}garbage\r\n\r\n", port: serving.port).status == 400)
        #expect(try HTTPExchange.send("GET /metrics HTTP/2.0\r\n\r\n", port: serving.port).status == 505)
        let outcome = try #require(serving.stop())
        #expect(outcome.status == 0)
    }

    /// `--listen` repeated, and under exporter-toolkit's name: one server per address, each
    /// answering, named in the one ready line; an address in use among them is exit 3.
    @Test func everyListenAddressServes() throws {
        let tool = try RunningTool(["serve", "--listen", "127.0.0.1:0", "--web.listen-address=127.0.0.1:0", "--ignore-desktop"])
        defer { tool.signal(SIGTERM); _ = tool.finish() }
        let line = try #require(tool.nextLine(seconds: 15), "serve did not start")
        let ports = line.matches(of: /http:\/\/127\.0\.0\.1:(\d+)\/metrics/).compactMap { UInt16($0.output.1) }
        #expect(line.hasPrefix("netpath: serving http://127.0.0.1:") && line.contains("/metrics and http://"), "\(line)")
        #expect(ports.count == 2 && Set(ports).count == 2, "\(line)")
        for port in ports {
            let answer = try HTTPExchange.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", port: port)
            #expect(answer.status == 200 && answer.body.contains("netpath_path_status"), "\(port)")
        }
        let taken = try #require(try netpath("serve", "--listen", "127.0.0.1:0", "--web.listen-address", "127.0.0.1:\(ports[1])"))
        #expect(taken.status == 3 && taken.standardError == "netpath: cannot listen on 127.0.0.1:\(ports[1]): bind: Address already in use\n")
    }

    /// `--listen :PORT` (every address) announces a URL a client can use.
    @Test func everyAddressIsAnnouncedAsAUsableURL() throws {
        let tool = try RunningTool(["serve", "--listen", ":0", "--ignore-desktop"])
        let line = try #require(tool.nextLine(seconds: 15))
        let prefix = "netpath: serving http://[::]:"
        let port = try #require(line.hasPrefix(prefix) ? UInt16(line.dropFirst(prefix.count).prefix { $0.isNumber }) : nil, "\(line)")
        #expect(line.hasSuffix("/metrics"), "\(line)")
        #expect(try HTTPExchange.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", port: port).status == 200)
        tool.signal(SIGTERM)
        #expect(tool.finish()?.status == 0)
    }

    @Test func badAddressesAndFlags() throws {
        let inUse = try Serving([])
        defer { _ = inUse.stop() }
        let taken = try #require(try netpath("serve", "--listen", "127.0.0.1:\(inUse.port)"))
        #expect(taken.status == 3 && taken.standardError == "netpath: cannot listen on 127.0.0.1:\(inUse.port): bind: Address already in use\n")
        let foreign = try #require(try netpath("serve", "--listen", "192.0.2.1:9737"))
        #expect(foreign.status == 3 && foreign.standardError.hasPrefix("netpath: cannot listen on 192.0.2.1:9737: "))
        // A host that is no IP address is a usage error (2), as a port out of range is.
        let notAnAddress = try #require(try netpath("serve", "--listen", "localhost:9737"))
        #expect(notAnAddress.status == 2 && notAnAddress.standardError == "netpath: invalid address 'localhost:9737' for '--listen': 'localhost' is not an IP address\n")
        let outOfRange = try #require(try netpath("serve", "--listen", "999.1.1.1:9737"))
        #expect(outOfRange.status == 2 && outOfRange.standardError.contains("'999.1.1.1' is not an IP address"))
        // A textfile that cannot be written is as fatal as an address that cannot be listened
        // on: exit 3 before the ready line, not an error at every change.
        let noDirectory = try #require(try netpath("serve", "--textfile", "/nonexistent/dir/x.prom"))
        #expect(noDirectory.status == 3 && noDirectory.standardOutput.isEmpty
                && noDirectory.standardError == "netpath: cannot write /nonexistent/dir/x.prom: open: No such file or directory\n")
        // A full disk: the directory is writable, the first real write is not (it said
        // "writing" and ran with no file before).
        let full = try #require(try runTool("/usr/bin/unshare", ["-m", "/bin/sh", "-c", """
            mount -t tmpfs -o size=4k netpath-full /mnt && (dd if=/dev/zero of=/mnt/fill bs=1k 2>/dev/null; true) \
            && exec \(netpathBinary) serve --textfile /mnt/netpath.prom --ignore-desktop
            """]))
        #expect(full.status == 3 && full.standardOutput.isEmpty
                && full.standardError == "netpath: cannot write /mnt/netpath.prom: write: No space left on device\n", "\(full.standardError)")
        for (arguments, word) in [(["serve"], "--listen"), (["serve", "--listen", "9737"], "9737"), (["serve", "--listen", "[::1:9737"], "[::1:9737"),
                                  (["serve", "--textfile", "metrics.txt"], "metrics.txt"), (["serve", "--json", "--listen", ":0"], "--json")] {
            let outcome = try #require(try runTool(netpathBinary, arguments))
            #expect(outcome.status == 2 && outcome.standardError.contains(word) && outcome.standardError.split(separator: "\n").count == 1,
                    "\(arguments): \(outcome.standardError)")
        }
    }
}

let systemdSocketActivate = "/usr/bin/systemd-socket-activate"

/// `serve --systemd-socket`: the sockets systemd passes, handed over by the real
/// `systemd-socket-activate` (Debian: systemd), as a .socket unit hands them.
@Suite(.enabled(if: requiredTool(systemdSocketActivate), "needs systemd-socket-activate (Debian: systemd)"))
struct SocketActivationTests {

    /// `systemd-socket-activate -l …` running `netpath serve`, once it listens: netpath
    /// itself starts at the first connection.
    func activated(_ listen: [String], _ arguments: [String]) throws -> RunningTool {
        let tool = try RunningTool(listen.flatMap { ["-l", $0] } + [netpathBinary, "serve"] + arguments + ["--ignore-desktop"],
                                   executable: systemdSocketActivate)
        for address in listen {
            let line = try #require(tool.nextErrorLine(seconds: 15), "systemd-socket-activate did not start")
            #expect(line.hasPrefix("Listening on \(address) as "), "\(line)")
        }
        return tool
    }

    /// The first scrape starts netpath (it waited in the socket's queue) and is answered;
    /// the ready line names the passed socket; SIGTERM ends it with 0.
    @Test func aScrapeOfThePassedSocketIsAnswered() throws {
        let port = try freePort()
        let tool = try activated(["127.0.0.1:\(port)"], ["--web.systemd-socket"])
        defer { tool.signal(SIGTERM); _ = tool.finish() }
        let fd = try HTTPExchange.connect(port: port, timeout: 15)
        HTTPExchange.write(fd, Array("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let first = try #require(HTTPExchange.readAnswer(fd), "no answer from the activated netpath")
        close(fd)
        #expect(first.status == 200 && first.body.contains("netpath_path_status"), "\(first.head)")
        #expect(tool.nextLine(seconds: 15) == "netpath: serving http://127.0.0.1:\(port)/metrics")
        let second = try HTTPExchange.send("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n", port: port)
        #expect(second.status == 200 && second.body.contains("netpath_build_info"))
        tool.signal(SIGTERM)
        #expect(tool.finish()?.status == 0)
    }

    /// Two passed sockets and a `--listen` address: three servers, one ready line.
    @Test func everyPassedSocketAndEveryListenAddressServe() throws {
        let ports = [try freePort(), try freePort()]
        let tool = try activated(ports.map { "127.0.0.1:\($0)" }, ["--systemd-socket", "--listen", "127.0.0.1:0"])
        defer { tool.signal(SIGTERM); _ = tool.finish() }
        let fd = try HTTPExchange.connect(port: ports[1], timeout: 15)
        HTTPExchange.write(fd, Array("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(HTTPExchange.readAnswer(fd)?.status == 200)
        close(fd)
        let line = try #require(tool.nextLine(seconds: 15))
        let served = line.matches(of: /http:\/\/127\.0\.0\.1:(\d+)\/metrics/).compactMap { UInt16($0.output.1) }
        #expect(served.count == 3 && Array(served.prefix(2)) == ports, "\(line)")
        for port in served { #expect(try HTTPExchange.send("GET /metrics HTTP/1.1\r\n\r\n", port: port).status == 200, "\(port)") }
    }

    /// Without systemd's sockets the flag is a runtime error (exit 3, one line), as an
    /// address that cannot be listened on is; so is a descriptor that is not a listening
    /// socket, or not open at all.
    @Test func withoutPassedSocketsServeStopsWithOneLine() throws {
        let none = try #require(try netpath("serve", "--systemd-socket", "--ignore-desktop"))
        #expect(none.status == 3 && none.standardOutput.isEmpty && none.standardError
                == "netpath: no socket from systemd: LISTEN_FDS is not set (start it from a .socket unit, or with systemd-socket-activate)\n")
        let other = try #require(try netpath("serve", "--web.systemd-socket", environment: ["LISTEN_FDS": "1", "LISTEN_PID": "1"]))
        #expect(other.status == 3 && other.standardError.hasPrefix("netpath: no socket from systemd: LISTEN_PID is 1, not this process ("))
        for (redirection, reason) in [("3</dev/null", "not a listening stream socket"), ("3<&-", "not a listening stream socket")] {
            let outcome = try #require(try runTool("/bin/sh", ["-c", "LISTEN_PID=$$ LISTEN_FDS=1 exec \(netpathBinary) serve --systemd-socket \(redirection)"]))
            #expect(outcome.status == 3 && outcome.standardError == "netpath: descriptor 3 from systemd is \(reason) (ListenStream= with Accept=no)\n",
                    "\(redirection): \(outcome.standardError)")
        }
        let usage = try #require(try netpath("serve", "--systemd-socket=yes"))
        #expect(usage.status == 2 && usage.standardError == "netpath: option '--systemd-socket' takes no value\n")
    }

    /// sd_listen_fds(3)'s rules on the two variables.
    @Test func theEnvironmentIsReadAsSystemdWritesIt() throws {
        func read(_ pid: String?, _ fds: String?) -> String {
            switch SocketActivation.descriptors(listenPID: pid, listenFDs: fds, processID: 42) {
            case .success(let descriptors): descriptors.map { String($0.rawValue) }.joined(separator: ",")
            case .failure(let failure): failure.message
            }
        }
        #expect(read("42", "1") == "3")
        #expect(read("42", "3") == "3,4,5")
        #expect(read(nil, nil).hasPrefix("no socket from systemd: LISTEN_FDS is not set"))
        #expect(read(nil, "1") == "no socket from systemd: LISTEN_PID is not set")
        #expect(read("43", "1") == "no socket from systemd: LISTEN_PID is 43, not this process (42)")
        for pid in ["", "0", "-42", "+42", " 42", "4x", "99999999999"] {
            #expect(read(pid, "1").hasPrefix("no socket from systemd: LISTEN_PID '\(pid)' is not a process id"), "\(pid)")
        }
        for fds in ["", "-1", "x", "1 ", "2147483645"] {
            #expect(read("42", fds) == "no socket from systemd: LISTEN_FDS '\(fds)' is not a number of sockets", "\(fds)")
        }
        #expect(read("42", "0") == "no socket from systemd: LISTEN_FDS is 0")
    }
}

/// The HTTP request parser and the listen-address parser, on fixtures.
struct ServeParserTests {
    @Test func requestHeads() {
        #expect(HTTPRequest.parse(Array("GET /metrics HTTP/1.1\r\nHost: a\r\n\r\n".utf8)) == .head(method: "GET", path: "/metrics"))
        #expect(HTTPRequest.parse(Array("GET /metrics?x=1 HTTP/1.0\n\n".utf8)) == .head(method: "GET", path: "/metrics"))
        #expect(HTTPRequest.parse(Array("\r\nHEAD http://h:9/ HTTP/1.1\r\n\r\n".utf8)) == .head(method: "HEAD", path: "/"))
        #expect(HTTPRequest.parse(Array("GET /metrics HTTP/1.1\r\nHost: a\r\n".utf8)) == .needMore)
        #expect(HTTPRequest.parse(Array("GET /".utf8) + [UInt8](repeating: 97, count: 9000)) == .invalid(status: 414, reason: "the request line is longer than 8 KiB"))
        #expect(HTTPRequest.parse(Array("GET / HTTP/1.1\r\n".utf8) + [UInt8](repeating: 97, count: 9000)) == .invalid(status: 431, reason: "the request head is longer than 8 KiB"))
        #expect(HTTPRequest.parse([0, 71]) == .invalid(status: 400, reason: "byte 0 in the request head"))
        #expect(HTTPRequest.parse(Array("GET / HTTP/3\r\n\r\n".utf8)) == .invalid(status: 505, reason: "version HTTP/3 is not supported"))
        #expect(HTTPRequest.parse(Array("GET  / HTTP/1.1\r\n\r\n".utf8)) == .invalid(status: 400, reason: "not an HTTP request line"))
        #expect(HTTPRequest.parse(Array("GET / HTTP/1.1\r\nno colon\r\n\r\n".utf8)) == .invalid(status: 400, reason: "a malformed header line"))
        #expect(HTTPRequest.parse(Array("GET * HTTP/1.1\r\n\r\n".utf8)) == .invalid(status: 400, reason: "a request target that is not a path"))
    }

    @Test func answers() {
        let metrics = HTTPResponse.answer(.head(method: "GET", path: "/metrics"), metricsContentType: "text/plain; version=0.0.4") { "a 1\n" }
        #expect(metrics.status == 200 && metrics.body == Array("a 1\n".utf8))
        #expect(String(decoding: metrics.bytes, as: UTF8.self)
                == "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: 4\r\nConnection: close\r\n\r\na 1\n")
        var called = false
        let head = HTTPResponse.answer(.head(method: "HEAD", path: "/x"), metricsContentType: "t") { called = true; return "" }
        #expect(head.status == 404 && head.omitsBody && !called)
        #expect(HTTPResponse.answer(.head(method: "DELETE", path: "/metrics"), metricsContentType: "t") { "" }.status == 405)
        #expect(HTTPResponse.answer(.invalid(status: 431, reason: "r"), metricsContentType: "t") { "" }.status == 431)
    }

    @Test func listenAddresses() {
        #expect(ListenAddress.parse("127.0.0.1:9737") == ListenAddress(host: "127.0.0.1", port: 9737))
        #expect(ListenAddress.parse("[::1]:80") == ListenAddress(host: "::1", port: 80))
        #expect(ListenAddress.parse(":0") == ListenAddress(host: "", port: 0))
        for bad in ["9737", "::1:80", "[::1:80", "a:65536", "a:", "[]:1", "[1.2.3.4]:5", "a:-1", "a:1x"] {
            #expect(ListenAddress.parse(bad) == nil, "\(bad)")
        }
        #expect(ListenAddress(host: "::1", port: 80).description == "[::1]:80")
    }
}

/// VmRSS of a process, in kB.
func residentKilobytes(of pid: pid_t) -> Int {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

/// A failure of the serve tests' own plumbing, with what went wrong.
struct ServeFailure: Error, CustomStringConvertible {
    var description: String
}

/// Runs `program` with `arguments` and a last argument given as raw bytes (not UTF-8); whether
/// it exited 0.
func runBytes(_ program: String, _ arguments: [String], last: UnsafePointer<CChar>) -> Bool {
    runBytesStatus(program, arguments, last: last).ok
}

/// As ``runBytes(_:_:last:)``, with the exit status.
func runBytesStatus(_ program: String, _ arguments: [String], last: UnsafePointer<CChar>) -> (ok: Bool, status: Int32) {
    var pid: pid_t = 0
    var argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [strdup(last), nil]
    defer { for pointer in argv { free(pointer) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    guard posix_spawn(&pid, program, &actions, nil, &argv, environ) == 0 else { return (false, -1) }
    var status: Int32 = 0
    waitpid(pid, &status, 0)
    let code = (status >> 8) & 0xFF
    return (status == 0, code)
}
