import Foundation
import KernelTestSupport
import Testing

// The README's terminal sessions come from the tool: each block marked
// `<!-- session: NAME -->` is run here, command by command, in the environment NAME names
// (made with namespaces and labs as the other tests make them), and what the tool prints
// must be what the README shows. Times, ISO timestamps and latencies are the only things
// that may differ. So an example cannot drift from the tool.

/// One `$ command` of a README session and the lines the README shows after it.
struct SessionStep: Equatable {
    var command: String
    var output: [String]
}

enum ReadmeSessions {
    static let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("README.md").path

    /// The steps of every block marked `<!-- session: NAME -->`, by name.
    static func sessions(in text: String) -> [String: [SessionStep]] {
        var sessions: [String: [SessionStep]] = [:]
        var name: String?
        var inBlock = false
        var steps: [SessionStep] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if !inBlock, line.hasPrefix("<!-- session: "), line.hasSuffix(" -->") {
                name = String(line.dropFirst(14).dropLast(4))
            } else if !inBlock, name != nil, line.hasPrefix("```") {
                inBlock = true
                steps = []
            } else if inBlock, line.hasPrefix("```") {
                if let name { sessions[name] = steps }
                inBlock = false
                name = nil
            } else if inBlock {
                if line.hasPrefix("$ ") {
                    steps.append(SessionStep(command: String(line.dropFirst(2)), output: []))
                } else if !steps.isEmpty {
                    steps[steps.count - 1].output.append(line)
                } else {
                    // Output without a command: what a running command printed.
                    steps.append(SessionStep(command: "", output: [line]))
                }
            }
        }
        return sessions
    }

    /// What may differ between two runs: clock times, timestamps, latencies.
    static func normalized(_ line: String) -> String {
        var line = line
        let patterns = [
            (#"^\d\d:\d\d:\d\d\.\d\d\d  "#, "HH:MM:SS.mmm  "),
            (#""time":"[0-9T:.\-]+Z""#, #""time":"T""#),
            (#"in \d+ ms"#, "in N ms"),
            (#""latencyMs":\d+"#, #""latencyMs":N"#),
        ]
        for (pattern, replacement) in patterns {
            line = line.replacingOccurrences(of: pattern, with: replacement, options: .regularExpression)
        }
        return line
    }

    /// Runs each step's command with bash (standard error with standard output, the built
    /// `netpath` first on the PATH), `names` replaced by what they stand for here; the
    /// steps as they ran, with the names put back.
    static func run(_ steps: [SessionStep], names: [String: String]) throws -> [SessionStep] {
        let directory = URL(fileURLWithPath: netpathBinary).deletingLastPathComponent().path
        return try steps.map { step in
            var command = step.command
            for (shown, real) in names { command = command.replacingOccurrences(of: shown, with: real) }
            let child = try Child("/bin/bash", ["-c", command], environment: ["PATH": "\(directory):/usr/sbin:/usr/bin:/sbin:/bin", "NO_COLOR": "1"],
                                  errorsToOutput: true)
            let (output, _) = child.readToEnd(until: Date().addingTimeInterval(30))
            _ = child.wait(seconds: 5)
            var text = String(decoding: output, as: UTF8.self)
            for (shown, real) in names { text = text.replacingOccurrences(of: real, with: shown) }
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            return SessionStep(command: step.command, output: lines.last == "" ? Array(lines.dropLast()) : lines)
        }
    }

    /// Expects the run to show what the README shows, step by step.
    static func expectSame(_ shown: [SessionStep], _ ran: [SessionStep], sourceLocation: SourceLocation = #_sourceLocation) {
        for (expected, actual) in zip(shown, ran) {
            let expectedLines = expected.output.map(normalized), actualLines = actual.output.map(normalized)
            #expect(expectedLines == actualLines, "README's `$ \(expected.command)` shows\n\(expected.output.joined(separator: "\n"))\nbut the tool prints\n\(actual.output.joined(separator: "\n"))",
                    sourceLocation: sourceLocation)
        }
    }

    /// The documents whose sessions are run: the README and the DocC articles.
    static var documents: [String] {
        let root = URL(fileURLWithPath: readme).deletingLastPathComponent().path
        let catalogs = ["Sources/NetPath/NetPath.docc", "Sources/NetPathPrometheus/NetPathPrometheus.docc"]
        return [readme] + catalogs.flatMap { catalog in
            ((try? FileManager.default.contentsOfDirectory(atPath: root + "/" + catalog)) ?? [])
                .filter { $0.hasSuffix(".md") }.sorted().map { root + "/" + catalog + "/" + $0 }
        }
    }

    static func session(_ name: String) throws -> [SessionStep] {
        var all: [String: [SessionStep]] = [:]
        for document in documents {
            all.merge(sessions(in: try String(contentsOfFile: document, encoding: .utf8))) { first, _ in first }
        }
        let steps = try #require(all[name], "neither README.md nor a DocC article has a block marked <!-- session: \(name) -->")
        try #require(!steps.isEmpty)
        return steps
    }
}

struct ReadmeSessionParserTests {
    @Test func sessionsAreReadFromMarkedBlocks() {
        let text = """
        <!-- session: a -->
        ```
        $ one; echo "exit $?"
        line 1
        exit 0
        $ two
        ```
        ```
        $ not a session
        ```
        """
        #expect(ReadmeSessions.sessions(in: text) == ["a": [SessionStep(command: "one; echo \"exit $?\"", output: ["line 1", "exit 0"]),
                                                          SessionStep(command: "two", output: [])]])
        #expect(ReadmeSessions.normalized("05:02:47.701  offline") == "HH:MM:SS.mmm  offline")
        #expect(ReadmeSessions.normalized(#"{"time":"2026-11-30T05:02:47.718Z","latencyMs":12}"#) == #"{"time":"T","latencyMs":N}"#)
    }
}

@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct ReadmeSessionTests {
    /// README "The tool": a namespace `demo` online over Ethernet with a DNS server in its
    /// own resolv.conf, and one that does not exist.
    @Test func theToolsExitStatuses() throws {
        let steps = try ReadmeSessions.session("exit-statuses")
        let ns = try TestNamespace("demo")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 192.0.2.10/24 dev eth0", "route add default via 192.0.2.1"])
        try FileManager.default.createDirectory(atPath: ns.resolverDirectory, withIntermediateDirectories: true)
        try "nameserver 192.0.2.53\n".write(toFile: ns.resolverDirectory + "/resolv.conf", atomically: true, encoding: .utf8)
        let ran = try ReadmeSessions.run(steps, names: ["demo": ns.name])
        ReadmeSessions.expectSame(steps, ran)
    }

    /// README "The tool": `netpath watch --netns demo` while a veth link is plugged in,
    /// configured and taken away; after each step the test waits for the line it causes.
    @Test func theWatchSession() throws {
        let shown = try ReadmeSessions.session("watch").flatMap(\.output)
        let ns = try TestNamespace("watchd")
        defer { ns.remove() }
        try FileManager.default.createDirectory(atPath: ns.resolverDirectory, withIntermediateDirectories: true)
        try "nameserver 192.0.2.53\n".write(toFile: ns.resolverDirectory + "/resolv.conf", atomically: true, encoding: .utf8)
        let peer = ns.name + "p"
        try run(Kernel.ipPath, ["netns", "add", peer])
        defer { _ = try? run(Kernel.ipPath, ["netns", "del", peer]) }
        let tool = try RunningTool(["watch", "--netns", ns.name], environment: ["NO_COLOR": "1"])
        defer { tool.signal(SIGTERM); _ = tool.finish() }
        let steps: [() throws -> Void] = [
            { try ns.batch(["link add eth0 type veth peer name p-eth0 netns \(peer)", "addr add 192.0.2.10/24 dev eth0", "link set eth0 up"]) },
            { try run(Kernel.ipPath, ["-n", peer, "link", "set", "p-eth0", "up"]) },
            { try ns.ip("route add default via 192.0.2.1") },
            { try ns.ip("link del eth0") },
        ]
        var printed = [try #require(tool.nextLine(seconds: 15))]
        for step in steps {
            try step()
            printed.append(try #require(tool.nextLine(seconds: 15), "no line after step \(printed.count)"))
        }
        #expect(shown.map(ReadmeSessions.normalized) == printed.map(ReadmeSessions.normalized),
                "README shows\n\(shown.joined(separator: "\n"))\nbut watch printed\n\(printed.joined(separator: "\n"))")
    }

    /// README "Is the Internet really there?": the portal lab, its client namespace `cafe`
    /// there, every name resolving to the portal.
    @Test(.enabled(if: requiredTool("/usr/bin/python3"), "needs python3"))
    func thePortalLab() throws {
        let steps = try ReadmeSessions.session("probe")
        let lab = try ProbeLab(hijackDNS: true, mode: "portal")
        defer { lab.remove() }
        try lab.waitUntilOnline()
        let ran = try ReadmeSessions.run(steps, names: ["cafe": lab.client.name])
        ReadmeSessions.expectSame(steps, ran)
    }

    /// README "IPv6-only networks": the NAT64/DNS64 lab with the well-known prefix; its
    /// client namespace is `rdm-c` there.
    @Test(.enabled(if: NAT64Lab.isAvailable || Kernel.isCI, "needs tayga and unbound"))
    func theNAT64Lab() throws {
        let steps = try ReadmeSessions.session("nat64")
        let lab = try NAT64Lab(prefix: "64:ff9b::/96")
        defer { lab.remove() }
        let ran = try ReadmeSessions.run(steps, names: ["rdm-c": lab.clientName])
        ReadmeSessions.expectSame(steps, ran)
    }
}

/// `--json`'s help points to the README for its keys: every key the tool prints is there.
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct ReadmeJSONKeysTests {
    @Test func everyKeyTheToolPrintsIsInTheReadme() throws {
        let ns = try TestNamespace("jsonkeys")
        defer { ns.remove() }
        let readme = try String(contentsOfFile: ReadmeSessions.readme, encoding: .utf8)
        let runs: [[String]] = [
            ["status", "--json", "--netns", ns.name],
            ["status", "--json", "--probe", "--netns", ns.name, "--url", "http://192.0.2.1/204"],
            ["probe", "--json", "--netns", ns.name, "--url", "http://192.0.2.1/204"],
        ]
        for arguments in runs {
            let outcome = try #require(try runTool(netpathBinary, arguments))
            let line = try #require(outcome.lines.first, "\(arguments): \(outcome.standardError)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            var keys = Set(object.keys)
            for interface in (object["interfaces"] as? [[String: Any]]) ?? [] { keys.formUnion(interface.keys) }
            for key in keys.sorted() {
                #expect(readme.contains("`\(key)`") || readme.contains("\"\(key)\""), "\(arguments): the README does not list `\(key)`")
            }
        }
    }
}
