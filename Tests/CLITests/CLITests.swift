import Foundation
import KernelTestSupport
import Testing

let pathKeys = ["time", "status", "unsatisfiedReason", "diagnosis", "interfaces", "tunnelInterface", "underlyingInterface",
                "isExpensive", "isConstrained", "isUltraConstrained", "linkQuality", "supportsIPv4", "supportsIPv6", "supportsDNS",
                "gateways", "unresponsiveGateways", "network", "expensiveSource"]

/// The built `netpath` binary, run as a user runs it, against namespaces the tests make.
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct CLIKernelTests {
    @Test func statusJSONHasExactlyTheSpecKeysAndExitStatus() throws {
        let ns = try TestNamespace("clist")
        defer { ns.remove() }
        let offline = try #require(try netpath("status", "--json", "--netns", ns.name))
        #expect(offline.status == 1 && offline.lines.count == 1 && offline.standardError.isEmpty)
        #expect(jsonKeys(offline.lines[0]) == pathKeys)
        let object = try jsonObject(offline.lines[0])
        #expect(object["status"] as? String == "unsatisfied" && object["diagnosis"] as? String == "noInterface")
        #expect(object["unsatisfiedReason"] as? String == "notAvailable" && object["gateways"] as? [Any] != nil)
        #expect((object["time"] as? String)?.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/) != nil)

        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.20.0.2/24 dev eth0", "route add default via 10.20.0.1"])
        // The veth carrier follows IFF_UP asynchronously: wait for it with `netpath wait`.
        let waited = try #require(try netpath("wait", "--netns", ns.name, "--timeout", "10"))
        #expect(waited.status == 0)
        let online = try #require(try netpath("status", "--json", "--netns", ns.name))
        #expect(online.status == 0)
        let path = try jsonObject(online.lines[0])
        #expect(path["status"] as? String == "satisfied" && path["diagnosis"] is NSNull && path["unsatisfiedReason"] is NSNull)
        #expect(path["gateways"] as? [String] == ["10.20.0.1"] && path["supportsIPv4"] as? Bool == true)
        let interfaces = path["interfaces"] as? [[String: Any]]
        #expect(interfaces?.first?["name"] as? String == "eth0" && interfaces?.first?["type"] as? String == "wiredEthernet")
        #expect(jsonKeys(online.lines[0]) == pathKeys)
    }

    @Test func watchPrintsEachChangeAsItHappens() throws {
        let ns = try TestNamespace("cliwa")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.ip("addr add 10.21.0.2/24 dev eth0")
        let tool = try RunningTool(["watch", "--json", "--netns", ns.name])
        let first = try #require(tool.nextLine())
        #expect(try jsonObject(first)["diagnosis"] as? String == "noInterface")
        // Each line arrives while the tool is still running: it is flushed as written.
        try ns.ip("link set eth0 up")
        var diagnoses: [String] = []
        while diagnoses.last != "noDefaultRoute", let line = tool.nextLine() {
            #expect(jsonKeys(line) == pathKeys)
            diagnoses.append(try jsonObject(line)["diagnosis"] as? String ?? "-")
        }
        #expect(diagnoses == ["noDefaultRoute"] || diagnoses == ["noCarrier", "noDefaultRoute"])
        try ns.ip("route add default via 10.21.0.1")
        let online = try jsonObject(try #require(tool.nextLine()))
        #expect(online["status"] as? String == "satisfied" && online["gateways"] as? [String] == ["10.21.0.1"])
        tool.signal(SIGTERM)
        let outcome = try #require(tool.finish())
        #expect(outcome.status == 0 && outcome.lines.isEmpty)
    }

    @Test func watchStopsAfterCountLines() throws {
        let ns = try TestNamespace("clicnt")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        let tool = try RunningTool(["watch", "--netns", ns.name, "--count", "2"])
        #expect(tool.nextLine()?.contains("offline") == true)
        try ns.ip("link set eth0 up")
        let outcome = try #require(tool.finish())
        #expect(outcome.status == 0 && outcome.lines.count == 1)
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func watchEndsCleanlyOnSignal(_ signal: Int32) throws {
        let ns = try TestNamespace("clisig")
        defer { ns.remove() }
        let tool = try RunningTool(["watch", "--netns", ns.name])
        let line = try #require(tool.nextLine())
        #expect(line.contains("offline") && line.contains("no network interface is up"))
        tool.signal(signal)
        let outcome = try #require(tool.finish())
        #expect(outcome.status == 0 && outcome.standardError.isEmpty)
    }

    @Test func waitReturnsWhenSatisfiedAndTimesOutWithOne() throws {
        let ns = try TestNamespace("cliwt")
        defer { ns.remove() }
        let timedOut = try #require(try netpath("wait", "--netns", ns.name, "--timeout", "0.3"))
        // One line on stderr: what it waited for, and the path it saw. Nothing on stdout.
        #expect(timedOut.status == 1 && timedOut.standardOutput.isEmpty)
        #expect(timedOut.standardError == "netpath: waited 0.3 s for a satisfied path; the path: offline  no network interface is up\n")
        let forWifi = try #require(try netpath("wait", "--netns", ns.name, "--timeout", "0.2", "--require", "wifi"))
        #expect(forWifi.standardError.hasPrefix("netpath: waited 0.2 s for a satisfied path through wifi; the path: offline"))
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.22.0.2/24 dev eth0"])
        let waiting = try RunningTool(["wait", "--netns", ns.name, "--timeout", "20"])
        // Not yet: no default route. Add one; wait must return 0.
        try ns.ip("route add default via 10.22.0.1")
        let outcome = try #require(waiting.finish(seconds: 20))
        #expect(outcome.status == 0)
    }

    @Test func missingNamespaceIsARuntimeErrorThatNamesIt() throws {
        let outcome = try #require(try netpath("status", "--netns", "np-does-not-exist"))
        #expect(outcome.status == 3 && outcome.standardOutput.isEmpty)
        #expect(outcome.standardError.split(separator: "\n").count == 1)
        #expect(outcome.standardError.contains("np-does-not-exist") && outcome.standardError.hasPrefix("netpath: "))
        let watch = try #require(try netpath("watch", "--json", "--netns", "np-does-not-exist"))
        #expect(watch.status == 3)
    }
}

@Suite struct CLIUsageTests {
    @Test(arguments: [
        (["bogus"], "bogus"), (["status", "--bogus"], "--bogus"), (["status", "--count", "3"], "--count"),
        (["watch", "--count"], "--count"), (["watch", "--count", "x"], "x"), (["watch", "--count", "0"], "0"),
        (["wait", "--timeout", "-1"], "-1"), (["wait", "--timeout", "1e9"], "1e9"), (["wait", "--timeout", "nan"], "nan"),
        (["status", "--require", "modem"], "modem"), (["status", "--netns", "a/b"], "a/b"), ([], "command"),
        (["status", "extra"], "extra"), (["status", "--json=yes"], "--json"),
        (["status", "--require", "wi\nfi\u{1B}[31m"], "wi\\x0afi\\x1b[31m"),
        (["status", "--metered", ""], "''"), (["watch", "--metered", "usb0,,eth0"], "''"),
        (["status", "--constrained", "a b"], "a b"), (["wait", "--metered", "usb0"], "--metered"),
        (["probe", "--constrained=usb0"], "--constrained"), (["watch", "--metered"], "--metered"),
        (["help", "bogus"], "bogus"), (["status", "--netns", String(repeating: "n", count: 256)], "at most 255 bytes"),
        (["serve", "--listen", "localhost:9737"], "localhost"), (["status", "--allow-ultra-constrained"], "--allow-ultra-constrained"),
    ])
    func usageErrorsExitTwoWithOneLineNamingTheWord(arguments: [String], word: String) throws {
        let outcome = try #require(try RunningTool(arguments).finish())
        #expect(outcome.status == 2)
        #expect(outcome.standardOutput.isEmpty)
        #expect(outcome.standardError.split(separator: "\n").count == 1)
        #expect(outcome.standardError.contains(word))
    }

    /// An error that quotes a huge argument stays a readable line: at most 1,000 characters
    /// of the message, then "…".
    @Test func anErrorQuotingAHugeArgumentIsCut() throws {
        let huge = String(repeating: "x", count: 100_000)
        let outcome = try #require(try netpath("status", "--require", huge))
        #expect(outcome.status == 2 && outcome.standardError.hasPrefix("netpath: unknown interface type 'xxx"))
        #expect(outcome.standardError.count == "netpath: ".count + 1_000 + "…\n".count, "\(outcome.standardError.count)")
    }

    /// An unknown command's error names every command, the text ones too.
    @Test func anUnknownCommandListsThemAll() throws {
        let outcome = try #require(try netpath("man"))
        #expect(outcome.status == 2 && outcome.standardError
                == "netpath: unknown command 'man' (expected status, watch, wait, probe, serve, completions, manpage or help)\n")
    }

    @Test func helpForTheToolAndEachCommand() throws {
        let top = try #require(try netpath("--help"))
        #expect(top.status == 0 && top.standardOutput.contains("netpath status") && top.standardOutput.contains("netpath wait"))
        // The text commands answer `--help` with the tool's help, which describes them.
        for words in [["completions", "--help"], ["manpage", "-h"], ["help", "completions"], ["help", "help"]] {
            let help = try #require(try runTool(netpathBinary, words))
            #expect(help.status == 0 && help.standardOutput == top.standardOutput, "\(words)")
        }
        for command in ["status", "watch", "wait", "probe"] {
            let help = try #require(try netpath(command, "--help"))
            #expect(help.status == 0 && help.standardOutput.hasPrefix("Usage: netpath \(command)"))
        }
        // `status --probe` checks once; the commands that keep watching check again with a back-off.
        let status = try #require(try netpath("status", "--help")).standardOutput
        #expect(status.contains("also check once that the Internet answers") && !status.contains("doubling"))
        for command in ["watch", "wait", "serve"] {
            let help = try #require(try netpath(command, "--help")).standardOutput
            #expect(help.contains("again after 1 s, doubling to 5 min") && !help.contains("check once"), "\(command)")
        }
    }

    /// The DocC article's synopsis is `--help`'s usage, line for line: a new option cannot
    /// be missing from it.
    @Test func theArticlesSynopsisIsTheHelpsUsage() throws {
        let help = try #require(try netpath("--help")).standardOutput.split(separator: "\n", omittingEmptySubsequences: false)
        let start = try #require(help.firstIndex(of: "Usage:"))
        let usage = help[(start + 1)...].prefix { !$0.isEmpty }.map { $0.trimmingCharacters(in: .whitespaces) }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let article = try String(contentsOf: root.appendingPathComponent("Sources/NetPath/NetPath.docc/TheNetpathTool.md"), encoding: .utf8)
        let block = try #require(article.components(separatedBy: "```\n").dropFirst().first, "no code block in the article")
        let synopsis = block.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("netpath --help") }
        #expect(synopsis == usage, "the article shows\n\(synopsis.joined(separator: "\n"))\n--help gives\n\(usage.joined(separator: "\n"))")
    }
}
