import Foundation
import KernelTestSupport
import Testing

let probeKeys = ["time", "connectivity", "portalURL", "url", "httpStatus", "latencyMs", "error", "nat64Prefix", "ipv4", "ipv6"]

/// `netpath probe` and `--probe` against real HTTP and DNS servers in a namespace the
/// test makes (SPEC §3, §4).
@Suite(.enabled(if: Kernel.canRun, "needs root, iproute2, python3 and dnsmasq"))
struct ProbeCLITests {
    struct Case: CustomTestStringConvertible, Sendable {
        var arguments: [String]
        var connectivity: String
        var status: Int?
        var portalURL: String?
        var error: String?
        var testDescription: String { arguments.joined(separator: " ") }
    }

    static let server = "http://10.77.0.1:8080"
    static let cases: [Case] = [
        Case(arguments: ["--url", "\(server)/204"], connectivity: "full", status: 204),
        Case(arguments: ["--url", "\(server)/empty200"], connectivity: "full", status: 200),
        Case(arguments: ["--url", "\(server)/redirect"], connectivity: "portal", status: 302, portalURL: "http://portal.test/login"),
        // A portal's answer without a target: `portalURL` is the probe URL (SPEC §3).
        Case(arguments: ["--url", "\(server)/login"], connectivity: "portal", status: 200, portalURL: "\(server)/login"),
        Case(arguments: ["--url", "\(server)/success", "--expect-body", "success"], connectivity: "full", status: 200),
        Case(arguments: ["--url", "\(server)/success", "--expect-status", "200", "--expect-body", "welcome"], connectivity: "portal", status: 200,
             portalURL: "\(server)/success"),
        Case(arguments: ["--url", "\(server)/204", "--expect-status", "200"], connectivity: "portal", status: 204, portalURL: "\(server)/204"),
        // The endpoint's own HTTP errors are not a portal: `limited`, with the status.
        Case(arguments: ["--url", "\(server)/status/404"], connectivity: "limited", status: 404, error: "HTTP 404"),
        Case(arguments: ["--url", "\(server)/status/500"], connectivity: "limited", status: 500, error: "HTTP 500"),
        Case(arguments: ["--url", "\(server)/status/511"], connectivity: "portal", status: 511, portalURL: "\(server)/status/511"),
        Case(arguments: ["--url", "\(server)/status/404", "--expect-status", "404"], connectivity: "full", status: 404),
        Case(arguments: ["--url", "\(server)/status/404", "--url", "\(server)/redirect"], connectivity: "portal", status: 302,
             portalURL: "http://portal.test/login"),
        Case(arguments: ["--url", "\(server)/never", "--timeout", "1"], connectivity: "limited"),
        Case(arguments: ["--url", "http://10.77.0.1:8081/204", "--timeout", "2"], connectivity: "limited"),
        Case(arguments: ["--url", "\(server)/endless"], connectivity: "portal", status: 200, portalURL: "\(server)/endless"),
        Case(arguments: ["--url", "\(server)/garbage"], connectivity: "limited"),
        Case(arguments: ["--url", "\(server)/hugeheader"], connectivity: "limited"),
        Case(arguments: ["--url", "http://nowhere.test/204", "--timeout", "2"], connectivity: "local"),
        Case(arguments: ["--url", "http://check.test:8080/204"], connectivity: "full", status: 204),
        Case(arguments: ["--url", "http://[fd77::1]:8080/204"], connectivity: "full", status: 204),
        Case(arguments: ["--url", "http://10.77.0.1:8081/", "--url", "\(server)/never", "--url", "http://check.test:8080/empty200", "--timeout", "3"],
             connectivity: "full", status: 200),
    ]

    @Test func everyServerBehaviourIsClassified() throws {
        let lab = try ProbeLab()
        defer { lab.remove() }
        for testCase in ProbeCLITests.cases {
            let outcome = try #require(try runTool(netpathBinary, ["probe", "--json", "--netns", lab.client.name] + testCase.arguments, seconds: 15),
                                       "hung: \(testCase.testDescription)")
            let line = try #require(outcome.lines.first, "\(testCase.testDescription): \(outcome.standardError)")
            #expect(jsonKeys(line) == probeKeys)
            let result = try jsonObject(line)
            #expect(result["connectivity"] as? String == testCase.connectivity, "\(testCase.testDescription): \(line)")
            #expect(result["httpStatus"] as? Int == testCase.status, "\(testCase.testDescription): \(line)")
            #expect(result["portalURL"] as? String == testCase.portalURL, "\(testCase.testDescription): \(line)")
            #expect(outcome.status == (testCase.connectivity == "full" ? 0 : 1), "\(testCase.testDescription)")
            if testCase.connectivity != "full" {
                #expect((result["error"] as? String)?.isEmpty == false, "\(testCase.testDescription): \(line)")
            }
            if let error = testCase.error {
                #expect((result["error"] as? String)?.contains(error) == true, "\(testCase.testDescription): \(line)")
            }
        }
    }

    /// SIGINT or SIGTERM ends `probe` and `status --probe` at once, not after the check's
    /// timeout (60 s here, against an endpoint that never answers), with the shell's status
    /// for the signal, as `wait`.
    @Test(arguments: [SIGINT, SIGTERM])
    func aCheckInFlightEndsOnSignal(_ signal: Int32) throws {
        let lab = try ProbeLab()
        defer { lab.remove() }
        for command in [["probe", "--timeout", "60"], ["status", "--probe", "--probe-timeout", "60"]] {
            let tool = try RunningTool(command + ["--netns", lab.client.name, "--url", "\(ProbeCLITests.server)/never"])
            #expect(tool.isHandling(signal))
            tool.signal(signal)
            let outcome = try #require(tool.finish(seconds: 5), "\(command) did not end on signal \(signal)")
            #expect(outcome.status == (signal == SIGINT ? 130 : 143) && outcome.standardError.contains("interrupted"),
                    "\(command): \(outcome.status) \(outcome.standardOutput) \(outcome.standardError)")
        }
    }

    /// A DNS server that never answers: the check ends when name resolution times out
    /// (3 s), with `local`, not when the whole check does (10 s).
    @Test func aSilentDNSServerEndsTheCheckAtTheResolutionTimeout() throws {
        let lab = try ProbeLab()
        defer { lab.remove() }
        try lab.server.ip("addr add 10.77.0.53/24 dev v1")
        try lab.start([Kernel.ipPath, "netns", "exec", lab.server.name, "/usr/bin/env", "python3", "-c",
                       "import socket,sys; s=socket.socket(2,2); s.bind(('10.77.0.53',53)); print('ready', flush=True); sys.stdin.read()"],
                      readyWhenOutputContains: "ready")
        try "nameserver 10.77.0.53\n".write(toFile: lab.client.resolverDirectory + "/resolv.conf", atomically: true, encoding: .utf8)
        let started = Date()
        let outcome = try #require(try runTool(netpathBinary, ["probe", "--json", "--netns", lab.client.name,
                                                               "--url", "http://check.test:8080/204", "--timeout", "10"], seconds: 15))
        let elapsed = Date().timeIntervalSince(started)
        let result = try jsonObject(try #require(outcome.lines.first))
        #expect(result["connectivity"] as? String == "local" && outcome.status == 1, "\(outcome.standardOutput)")
        #expect(elapsed < 8, "ended after \(elapsed) s: the 10 s check timeout, not the 3 s resolution timeout")
    }

    @Test func aDNSHijackingPortalThenLogin() throws {
        let lab = try ProbeLab(hijackDNS: true, mode: "portal")
        defer { lab.remove() }
        // The default endpoints of five operators, every name answered by the portal.
        let probe = try #require(try runTool(netpathBinary, ["probe", "--json", "--netns", lab.client.name]))
        let result = try jsonObject(try #require(probe.lines.first))
        #expect(probe.status == 1 && result["connectivity"] as? String == "portal")
        #expect(result["portalURL"] as? String == "http://portal.test/login")

        let watch = try RunningTool(["watch", "--probe", "--json", "--netns", lab.client.name])
        var line = try jsonObject(try #require(watch.nextLine()))
        #expect(line["status"] as? String == "satisfied" && line["connectivity"] as? String == "unknown")
        line = try jsonObject(try #require(watch.nextLine()))
        #expect(line["connectivity"] as? String == "portal" && line["portalURL"] as? String == "http://portal.test/login")
        // "Log in": the next re-check (after 1 s, then 2 s…) finds the Internet.
        try lab.setMode("online")
        line = try jsonObject(try #require(watch.nextLine(seconds: 15)))
        #expect(line["connectivity"] as? String == "full" && line["portalURL"] is NSNull)
        watch.signal(SIGTERM)
        #expect(watch.finish()?.status == 0)

        let status = try #require(try runTool(netpathBinary, ["status", "--probe", "--json", "--netns", lab.client.name]))
        let keys = jsonKeys(try #require(status.lines.first))
        #expect(keys == pathKeys + ["connectivity", "portalURL", "connectivitySource", "connectivityProxy",
                                    "connectivityIPv4", "connectivityFailureIPv4", "connectivityIPv6", "connectivityFailureIPv6"])
        #expect(try jsonObject(status.lines[0])["connectivity"] as? String == "full")
        let wait = try #require(try runTool(netpathBinary, ["wait", "--probe", "--netns", lab.client.name, "--timeout", "10"]))
        #expect(wait.status == 0)
        try lab.setMode("portal")
        let stuck = try #require(try runTool(netpathBinary, ["wait", "--probe", "--netns", lab.client.name, "--timeout", "1"]))
        #expect(stuck.status == 1)
    }

    @Test func anUnsatisfiedPathIsOfflineWithoutTraffic() throws {
        let ns = try TestNamespace("pnone")
        defer { ns.remove() }
        let outcome = try #require(try runTool(netpathBinary, ["probe", "--json", "--netns", ns.name]))
        let result = try jsonObject(try #require(outcome.lines.first))
        #expect(outcome.status == 1 && result["connectivity"] as? String == "offline" && result["url"] is NSNull)
    }

    @Test(arguments: [
        (["probe", "--url", "ftp://example.org/"], "ftp://example.org/"),
        (["probe", "--url", "https://"], "https://"),
        (["probe", "--url", "example.org"], "example.org"),
        (["probe", "--url", "http://x:70000/"], "70000"),
        (["probe", "--expect-status", "99"], "99"),
        (["probe", "--expect-body", "ok"], "--url"),
        (["probe", "--timeout", "0"], "timeout"),
        (["probe", "--timeout", "301"], "300"),
        (["status", "--url", "http://x/"], "--probe"),
        (["watch", "--probe", "--probe-timeout", "abc"], "abc"),
    ])
    func badProbeInputIsAUsageError(arguments: [String], word: String) throws {
        let outcome = try #require(try RunningTool(arguments).finish())
        #expect(outcome.status == 2 && outcome.standardError.contains(word) && outcome.standardError.split(separator: "\n").count == 1,
                "\(outcome.standardError)")
    }
}

/// An endpoint on the checking machine itself (loopback, or one of its own addresses) is
/// reached through `lo`: the check's sockets are bound to the primary interface only for
/// endpoints elsewhere.
@Suite(.enabled(if: Kernel.canRun, "needs root, iproute2, python3 and dnsmasq"))
struct ProbeLocalEndpointTests {
    @Test func endpointsOnLoopbackAndOnTheMachinesOwnAddressAreReached() throws {
        let lab = try ProbeLab()
        defer { lab.remove() }
        try lab.client.ip("link set lo up")
        try lab.start([Kernel.ipPath, "netns", "exec", lab.client.name, "/usr/bin/env", "python3", ProbeLab.serverScript,
                       "--port", "8090", "--bind", "127.0.0.1", "--bind", "10.77.0.2", "--bind", "::1"],
                      readyWhenOutputContains: "ready")
        for url in ["http://127.0.0.1:8090/204", "http://10.77.0.2:8090/204", "http://[::1]:8090/204"] {
            let outcome = try #require(try runTool(netpathBinary, ["probe", "--json", "--netns", lab.client.name, "--url", url, "--timeout", "3"],
                                                   seconds: 15))
            let result = try jsonObject(try #require(outcome.lines.first, "\(url): \(outcome.standardError)"))
            #expect(outcome.status == 0 && result["connectivity"] as? String == "full" && result["httpStatus"] as? Int == 204,
                    "\(url): \(outcome.standardOutput)")
        }
        // Elsewhere, the bind stays: the server's address is reached through the primary interface.
        let remote = try #require(try runTool(netpathBinary, ["probe", "--json", "--netns", lab.client.name, "--url", "\(ProbeCLITests.server)/204"]))
        #expect(remote.status == 0)
    }
}
