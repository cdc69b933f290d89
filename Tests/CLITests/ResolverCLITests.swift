import Foundation
import KernelTestSupport
import Testing

/// The check's resolver through the tool (issue 29, items 2, 4, 6 and 7), against the
/// resolver lab's DNS servers: what `probe`, `status --probe` and `watch --probe` say, and
/// how soon where the truth is "at once" (an upper bound only). One lab at a time.
@Suite(.serialized, .enabled(if: Kernel.canRun, "needs root, iproute2 and python3"))
struct ResolverCLITests {
    func probe(_ lab: ResolverLab, _ url: String) throws -> (status: Int32, result: [String: Any], line: String) {
        let outcome = try #require(try runTool(netpathBinary, ["probe", "--json", "--netns", lab.client.name, "--url", url]))
        let line = try #require(outcome.lines.first, "\(outcome.standardError)")
        return (outcome.status, try jsonObject(line), line)
    }

    /// NXDOMAIN from the first server, a dead second one: `local`, "did not resolve", at once
    /// (it took 3 s and said "name resolution timed out").
    @Test func nxdomainIsLocalAtOnce() throws {
        let lab = try ResolverLab(rules: ["--nxdomain", "nowhere.test"], servers: [ResolverLab.liveServer, ResolverLab.deadServer])
        defer { lab.remove() }
        let (status, result, line) = try probe(lab, "http://nowhere.test/204")
        #expect(status == 1 && result["connectivity"] as? String == "local", "\(line)")
        #expect(result["error"] as? String == "the name 'nowhere.test' did not resolve", "\(line)")
        #expect(try #require(result["latencyMs"] as? Double) <= 1000, "\(line)")
    }

    /// A dead first server and an endpoint that resets: `limited` at once (it took 5 s).
    @Test func aDeadFirstServerAndAResetAreLimitedAtOnce() throws {
        let lab = try ResolverLab(rules: ["--answer", "check.test=\(ResolverLab.liveServer)"],
                                  servers: [ResolverLab.deadServer, ResolverLab.liveServer])
        defer { lab.remove() }
        let (status, result, line) = try probe(lab, "http://check.test:81/204")
        #expect(status == 1 && result["connectivity"] as? String == "limited", "\(line)")
        #expect((result["error"] as? String)?.hasSuffix("Connection refused") == true, "\(line)")
        #expect(try #require(result["latencyMs"] as? Double) <= 1000, "\(line)")
    }

    /// UDP answers truncated, the real one over TCP: `full` (it read `local`).
    @Test func aResolverThatAnswersOnlyOverTCPWorks() throws {
        let lab = try ResolverLab(rules: ["--answer", "big.test=\(ResolverLab.liveServer)", "--truncate", "big.test"],
                                  servers: [ResolverLab.liveServer])
        defer { lab.remove() }
        let (status, result, line) = try probe(lab, "http://big.test/204")
        #expect(status == 0 && result["connectivity"] as? String == "full" && result["httpStatus"] as? Int == 204, "\(line)")
    }

    /// 127.0.0.1 for the probe's name while this machine serves 204 on port 80: `limited`
    /// with the reason, for `probe` and `status --probe` (it read `full` or `portal`).
    @Test func aLoopbackAnswerIsLimited() throws {
        let lab = try ResolverLab(rules: ["--answer", "check.test=127.0.0.1"], servers: [ResolverLab.liveServer])
        defer { lab.remove() }
        try lab.startInClient(["/usr/bin/env", "python3", ProbeLab.serverScript, "--port", "80", "--bind", "127.0.0.1"],
                              readyWhenOutputContains: "ready")
        let (status, result, line) = try probe(lab, "http://check.test/204")
        #expect(status == 1 && result["connectivity"] as? String == "limited" && result["httpStatus"] is NSNull, "\(line)")
        #expect(result["error"] as? String == "the name 'check.test' resolved to 127.0.0.1: the network's DNS filters it", "\(line)")
        let checked = try #require(try runTool(netpathBinary, ["status", "--probe", "--json", "--netns", lab.client.name,
                                                               "--url", "http://check.test/204"]))
        let path = try jsonObject(try #require(checked.lines.first, "\(checked.standardError)"))
        #expect(path["connectivity"] as? String == "limited", "\(checked.standardOutput)")
    }

    /// IPv6 only, ipv4only.arpa never answered: the name endpoint's `full` at once (the
    /// discovery held it to the resolution deadline, then to the pass's grace second). A
    /// pass's `latencyMs` is the endpoint's, so the run itself is timed.
    @Test func nat64DiscoveryDoesNotHoldFull() throws {
        let lab = try ResolverLab(rules: ["--answer", "check.test=\(ResolverLab.liveServer6)", "--drop", "ipv4only.arpa"],
                                  servers: [ResolverLab.liveServer6], ipv6Only: true)
        defer { lab.remove() }
        // The same run with the address itself (no name, no discovery) is the baseline: the
        // process's own start (slow under ThreadSanitizer) is not the check's time. Held,
        // the name's run would take at least the pass's grace second more.
        let baselineStart = Date()
        let (baselineStatus, _, baselineLine) = try probe(lab, "http://[\(ResolverLab.liveServer6)]/204")
        let baseline = Date().timeIntervalSince(baselineStart)
        try #require(baselineStatus == 0, "\(baselineLine)")
        let start = Date()
        let (status, result, line) = try probe(lab, "http://check.test/204")
        let seconds = Date().timeIntervalSince(start)
        #expect(status == 0 && result["connectivity"] as? String == "full" && result["nat64Prefix"] is NSNull, "\(line)")
        #expect(seconds < baseline + 0.9, "netpath probe ran \(seconds) s (\(baseline) s with the address): \(line)")
    }

    /// resolv.conf rewritten while `watch --probe` checks with a dead server: the next line
    /// is `full`, at once after the write (it was `local` after 3 s, then `full`); the
    /// servers alone make no line.
    @Test func aDNSChangeReachesWatchAtOnce() throws {
        let lab = try ResolverLab(rules: ["--answer", "check.test=\(ResolverLab.liveServer)"], servers: [ResolverLab.deadServer])
        defer { lab.remove() }
        let watch = try RunningTool(["watch", "--probe", "--json", "--netns", lab.client.name, "--url", "http://check.test/204"])
        let first = try jsonObject(try #require(watch.nextLine()))
        #expect(first["status"] as? String == "satisfied" && first["connectivity"] as? String == "unknown")
        let written = Date()
        try lab.writeResolver([ResolverLab.liveServer])
        // The check's own packets make the kernel learn the gateway's address: a line that
        // names the network (`network`, still unchecked) may come first.
        var next = try #require(watch.nextLine(seconds: 10), "watch --probe gave no verdict")
        while try jsonObject(next)["connectivity"] as? String == "unknown" {
            next = try #require(watch.nextLine(seconds: 10), "watch --probe gave no verdict")
        }
        let seconds = Date().timeIntervalSince(written)
        let checked = try jsonObject(next)
        #expect(checked["connectivity"] as? String == "full" && seconds <= 1, "\(next) after \(seconds) s")
        watch.signal(SIGTERM)
        #expect(watch.finish()?.status == 0)
    }
}
