import Foundation
import KernelTestSupport
import Testing

/// `netpath` on a real IPv6-only network with NAT64 (tayga) and DNS64 (unbound): `probe`
/// reports the NAT64 prefix in both forms and reaches an IPv4 literal through it, and
/// `wait --probe` ends once the Internet answers through NAT64.
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct NAT64CLITests {
    @Test func probeAndWaitOnAnIPv6OnlyNetwork() throws {
        let lab = try NAT64Lab(prefix: "2001:db8:64::/96")
        defer { lab.remove() }
        let literal = "http://\(lab.serverIPv4)/204"
        let json = try #require(try netpath("probe", "--json", "--netns", lab.clientName, "--url", literal))
        let result = try jsonObject(try #require(json.lines.first))
        #expect(json.status == 0 && result["connectivity"] as? String == "full" && result["nat64Prefix"] as? String == "2001:db8:64::/96",
                "\(json.standardOutput)\(json.standardError)")
        let words = try #require(try netpath("probe", "--netns", lab.clientName, "--url", "http://check.test/204"))
        #expect(words.status == 0 && words.standardOutput.contains("  full: Internet reachable  http://check.test/204 answered 204 in ")
                && words.standardOutput.hasSuffix("  NAT64 2001:db8:64::/96\n"), "\(words.standardOutput)")
        let waited = try #require(try netpath("wait", "--probe", "--netns", lab.clientName, "--url", literal, "--timeout", "20"))
        #expect(waited.status == 0, "\(waited.standardError)")
        let status = try #require(try netpath("status", "--json", "--netns", lab.clientName))
        let path = try jsonObject(try #require(status.lines.first))
        #expect(path["supportsIPv6"] as? Bool == true && path["supportsIPv4"] as? Bool == false && path["supportsDNS"] as? Bool == true)
    }

    @Test func withoutNAT64ProbeSaysWhy() throws {
        let lab = try NAT64Lab(prefix: "64:ff9b::/96", nat64: false)
        defer { lab.remove() }
        let outcome = try #require(try netpath("probe", "--netns", lab.clientName, "--url", "http://\(lab.serverIPv4)/204"))
        #expect(outcome.status == 1 && outcome.standardOutput.contains(
            "  limited: no Internet (no endpoint gave the expected answer) — cannot reach \(lab.serverIPv4): the path has no IPv4 and the network no NAT64 (ipv4only.arpa has no AAAA record)"),
                "\(outcome.standardOutput)")
        #expect(outcome.standardOutput.hasSuffix("  endpoint http://\(lab.serverIPv4)/204\n"), "\(outcome.standardOutput)")
    }
}
