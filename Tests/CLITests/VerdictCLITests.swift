import Foundation
import KernelTestSupport
import Testing
import NetPath

/// SPEC §3's verdict rules through the tool, against real servers, routers and nftables in
/// namespaces the tests make.
@Suite(.enabled(if: Kernel.canRun, "needs root, iproute2, python3 and dnsmasq"))
struct VerdictCLITests {
    /// A router whose uplink is down answers the client's SYN with ICMP unreachable: the
    /// network's answer, `limited` at once for `probe` and for every command that checks
    /// through a monitor (`watch`, `status`, `wait`), which take it as a verdict.
    @Test(arguments: [
        (RouterLab.Uplink.unreachableRoute, "No route to host"),
        (.noRoute, "Network is unreachable"),
        (.rejected, "Network is unreachable"),
    ])
    func aRouterWithoutUplinkIsLimitedEverywhere(uplink: RouterLab.Uplink, error: String) throws {
        let lab = try RouterLab(uplink: uplink)
        defer { lab.remove() }
        let url = ["--url", "http://check.test/204"]
        let probe = try #require(try runTool(netpathBinary, ["probe", "--json", "--netns", lab.client.name] + url))
        let result = try jsonObject(try #require(probe.lines.first, "\(probe.standardError)"))
        #expect(probe.status == 1 && result["connectivity"] as? String == "limited", "\(probe.standardOutput)")
        #expect((result["error"] as? String)?.hasSuffix(error) == true, "\(probe.standardOutput)")
        // ICMP is an answer at once: no waiting out a timeout.
        #expect(try #require(result["latencyMs"] as? Double) <= 1000, "\(probe.standardOutput)")

        let watch = try RunningTool(["watch", "--probe", "--json", "--netns", lab.client.name] + url)
        let first = try jsonObject(try #require(watch.nextLine()))
        #expect(first["connectivity"] as? String == "unknown")
        let checked = try jsonObject(try #require(watch.nextLine(), "watch --probe gave no verdict"))
        #expect(checked["connectivity"] as? String == "limited" && checked["connectivitySource"] as? String == "check")
        watch.signal(SIGTERM)
        #expect(watch.finish()?.status == 0)

        let status = try #require(try runTool(netpathBinary, ["status", "--probe", "--json", "--netns", lab.client.name] + url))
        #expect(try jsonObject(try #require(status.lines.first))["connectivity"] as? String == "limited", "\(status.standardOutput)")
        let wait = try #require(try runTool(netpathBinary, ["wait", "--probe", "--netns", lab.client.name, "--timeout", "3"] + url))
        #expect(wait.status == 1 && wait.standardError.contains("Internet: limited"), "\(wait.standardError)")
        #expect(wait.standardError.components(separatedBy: "Internet:").count == 2, "the verdict named twice: \(wait.standardError)")
    }

    /// The same lab with the uplink up: the Internet answers (the lab itself is sound).
    @Test func aRouterWithItsUplinkUpIsFull() throws {
        let lab = try RouterLab(uplink: .up)
        defer { lab.remove() }
        let status = try #require(try runTool(netpathBinary, ["status", "--probe", "--json", "--netns", lab.client.name,
                                                              "--url", "http://check.test/204"]))
        let line = try jsonObject(try #require(status.lines.first))
        #expect(status.status == 0 && line["connectivity"] as? String == "full", "\(status.standardOutput)")
    }

    /// The default check asks Google's endpoint over HTTPS beside the five over HTTP (as
    /// Android does). A network that answers every HTTP endpoint as the Internet does but
    /// intercepts TLS (a certificate the trust store does not verify) is `limited`, naming
    /// the HTTPS endpoint and OpenSSL's reason; with a certificate the trust store verifies
    /// (the test CA through `SSL_CERT_FILE`) it is `full`.
    @Test(arguments: [("rogue", "limited"), ("server", "full")])
    func theDefaultCheckSeesATLSInterceptor(certificate: String, connectivity: String) throws {
        let certificates = try HTTPSCLITests.makeCertificates(for: "www.google.com")
        defer { try? FileManager.default.removeItem(atPath: certificates) }
        let lab = try ProbeLab(hijackDNS: true, mode: "online")
        defer { lab.remove() }
        try lab.start([Kernel.ipPath, "netns", "exec", lab.server.name, "/usr/bin/env", "python3", HTTPSCLITests.script,
                       "--bind", "10.77.0.1", "--port", "443", "--cert", "\(certificates)/\(certificate).pem",
                       "--key", "\(certificates)/\(certificate).key"], readyWhenOutputContains: "ready")
        let probe = try #require(try runTool(netpathBinary, ["probe", "--json", "--netns", lab.client.name],
                                             environment: ["SSL_CERT_FILE": certificates + "/ca.pem"]))
        let result = try jsonObject(try #require(probe.lines.first, "\(probe.standardError)"))
        #expect(result["connectivity"] as? String == connectivity, "\(probe.standardOutput)")
        if connectivity == "limited" {
            #expect(probe.status == 1 && result["url"] as? String == "https://www.google.com/generate_204"
                    && (result["error"] as? String)?.contains("certificate verify failed") == true, "\(probe.standardOutput)")
        } else {
            #expect(probe.status == 0 && result["url"] as? String == "http://connectivitycheck.gstatic.com/generate_204", "\(probe.standardOutput)")
        }
    }

    /// Against the default endpoints, a network that lets one operator's URL through and
    /// redirects the others (a Cisco WLC's captive bypass), or answers 204 to every URL (a
    /// transparent proxy), is a portal: the result names the endpoint that showed it (the
    /// first to answer so), and `portalURL` is the redirect's target, else that endpoint's URL.
    @Test(arguments: [
        ("bypass", "http://portal.test/login", 302),
        ("proxy204", nil, 204),
    ] as [(String, String?, Int)])
    func aPortalAnswerBesideAPassIsAPortal(mode: String, portalURL: String?, status: Int) throws {
        let lab = try ProbeLab(hijackDNS: true, mode: mode)
        defer { lab.remove() }
        let probe = try #require(try runTool(netpathBinary, ["probe", "--json", "--netns", lab.client.name]))
        let result = try jsonObject(try #require(probe.lines.first, "\(probe.standardError)"))
        #expect(probe.status == 1 && result["connectivity"] as? String == "portal", "\(probe.standardOutput)")
        let url = try #require(result["url"] as? String)
        let passing = mode == "bypass" ? "http://captive.apple.com/hotspot-detect.html" : "http://connectivitycheck.gstatic.com/generate_204"
        #expect(url != passing && result["httpStatus"] as? Int == status, "\(probe.standardOutput)")
        #expect(result["portalURL"] as? String == portalURL ?? url, "\(probe.standardOutput)")
        let checked = try #require(try runTool(netpathBinary, ["status", "--probe", "--json", "--netns", lab.client.name]))
        let line = try jsonObject(try #require(checked.lines.first))
        #expect(line["connectivity"] as? String == "portal" && (line["portalURL"] as? String)?.isEmpty == false, "\(checked.standardOutput)")
    }

    static let server = "http://10.77.0.1:8080"

    /// What a portal's page names, interim responses, and the endpoint a portal answered.
    @Test(arguments: [
        // A 200 login page with a meta refresh: its target, made absolute against the probe URL.
        (["--url", "\(server)/meta-refresh"], "portal", 200, "http://10.77.0.1:8080/portal/login?from=probe&lang=en"),
        // A login page that names no target: the probe URL itself, what Android and Apple open.
        (["--url", "\(server)/login"], "portal", 200, "http://10.77.0.1:8080/login"),
        // 103 Early Hints before the 204, and 100 Continue before a redirect: skipped.
        (["--url", "\(server)/early-hints"], "full", 204, nil),
        (["--url", "\(server)/continue-redirect"], "portal", 302, "http://portal.test/login"),
        // A pass beside a portal's answer, the other way round, and beside a silent endpoint.
        (["--url", "\(server)/204", "--url", "\(server)/redirect"], "portal", 302, "http://portal.test/login"),
        (["--url", "\(server)/redirect", "--url", "\(server)/204"], "portal", 302, "http://portal.test/login"),
        (["--url", "\(server)/204", "--url", "\(server)/never", "--timeout", "2"], "full", 204, nil),
        (["--url", "\(server)/204", "--url", "http://10.77.0.1:8081/"], "full", 204, nil),
    ] as [([String], String, Int, String?)])
    func answersAreClassified(arguments: [String], connectivity: String, status: Int, portalURL: String?) throws {
        let lab = try ProbeLab()
        defer { lab.remove() }
        let outcome = try #require(try runTool(netpathBinary, ["probe", "--json", "--netns", lab.client.name] + arguments, seconds: 15))
        let result = try jsonObject(try #require(outcome.lines.first, "\(outcome.standardError)"))
        #expect(result["connectivity"] as? String == connectivity && result["httpStatus"] as? Int == status, "\(outcome.standardOutput)")
        #expect(result["portalURL"] as? String == portalURL, "\(outcome.standardOutput)")
    }
}

/// `probe --json`'s per-family objects against `curl -4`/`curl -6`, and the words.
@Suite(.enabled(if: Kernel.canRun, "needs root, iproute2, python3, dnsmasq and libnftables"))
struct FamilyCLITests {
    @Test func probeGivesEachFamilysVerdictAsCurlFindsIt() throws {
        let lab = try DualStackLab(forwardsIPv6: false)
        defer { lab.remove() }
        let arguments = ["--netns", lab.client.name, "--url", DualStackLab.url, "--timeout", "3"]
        let probe = try #require(try runTool(netpathBinary, ["probe", "--json"] + arguments))
        let result = try jsonObject(try #require(probe.lines.first, "\(probe.standardError)"))
        #expect(probe.status == 0 && result["connectivity"] as? String == "full", "\(probe.standardOutput)")
        for family in IPFamily.allCases {
            let object = try #require(result[family.rawValue] as? [String: Any], "\(probe.standardOutput)")
            let truth = lab.curlPasses(family)
            #expect((object["connectivity"] as? String == "full") == truth, "\(family): \(object), curl \(truth)")
            if !truth { #expect(object["step"] as? String == "connection", "\(object)") }
        }
        let words = try #require(try runTool(netpathBinary, ["probe"] + arguments))
        #expect(words.standardOutput.contains("IPv6: limited — the router forwards nothing"), "\(words.standardOutput)")
    }

    /// `status --probe`, `watch --probe` and `serve --probe` on a network whose router drops
    /// IPv6: IPv4 `full`, IPv6 `limited`, as curl -4 and curl -6 find. `watch` shows IPv4's
    /// pass before IPv6's timeout ends its check; `status` prints once, both families decided.
    @Test func statusWatchAndServeGiveEachFamilyAsCurlFindsIt() throws {
        let lab = try DualStackLab(forwardsIPv6: false)
        defer { lab.remove() }
        #expect(lab.curlPasses(.ipv4) && !lab.curlPasses(.ipv6))
        let check = ["--netns", lab.client.name, "--url", DualStackLab.url, "--probe-timeout", "5", "--ignore-desktop"]
        let status = try #require(try runTool(netpathBinary, ["status", "--json", "--probe"] + check, seconds: 20))
        let path = try jsonObject(try #require(status.lines.first, "\(status.standardError)"))
        #expect(status.lines.count == 1 && path["connectivity"] as? String == "full" && path["connectivityIPv4"] as? String == "full"
                && path["connectivityIPv6"] as? String == "limited", "\(status.standardOutput)")
        let watch = try RunningTool(["watch", "--json", "--probe"] + check)
        var lines: [[String: Any]] = []
        while lines.last?["connectivityIPv6"] as? String != "limited", let line = watch.nextLine(seconds: 20) {
            lines.append(try jsonObject(line))
        }
        watch.signal(SIGTERM)
        _ = watch.finish()
        let early = lines.first { $0["connectivity"] as? String == "full" }
        #expect(early?["connectivityIPv4"] as? String == "full" && early?["connectivityIPv6"] as? String == "unknown", "\(lines)")
        #expect(lines.last?["connectivity"] as? String == "full" && lines.last?["connectivityIPv6"] as? String == "limited", "\(lines)")
        let serving = try Serving(["--netns", lab.client.name, "--probe", "--url", DualStackLab.url, "--probe-timeout", "5", "--ignore-desktop"])
        defer { _ = serving.stop() }
        let limited = #"family="ipv6",connectivity="limited"} 1"#, full = #"family="ipv4",connectivity="full"} 1"#
        let text = try serving.metrics { $0.contains(limited) }
        let families = text.split(separator: "\n").filter {
            $0.hasPrefix("netpath_connectivity_family{netns=\"\(lab.client.name)\"") && $0.hasSuffix("} 1")
        }
        #expect(families.count == 2 && families.contains { $0.hasSuffix(limited) } && families.contains { $0.hasSuffix(full) }, "\(families)")
    }

    /// A check that fails names, for each family, the first step that failed as curl fails
    /// there: a name the resolver does not know (curl's exit 6) at `dns`, a server error
    /// (curl gets the 500) at `http`.
    @Test(arguments: [("http://nothere.test/204", "dns", "000 6"), ("http://check.test/status/500", "http", "500 0")])
    func eachFamilyNamesTheStepCurlFailsAt(url: String, step: String, curl: String) throws {
        let lab = try DualStackLab(forwardsIPv6: true)
        defer { lab.remove() }
        let probe = try #require(try runTool(netpathBinary, ["probe", "--json", "--netns", lab.client.name, "--url", url,
                                                             "--timeout", "3"]))
        let result = try jsonObject(try #require(probe.lines.first, "\(probe.standardError)"))
        #expect(probe.status != 0 && result["connectivity"] as? String != "full", "\(probe.standardOutput)")
        for family in IPFamily.allCases {
            #expect(try lab.curlOutcome(family, url: url) == curl, "curl \(family)")
            let object = try #require(result[family.rawValue] as? [String: Any], "\(probe.standardOutput)")
            #expect(object["step"] as? String == step, "\(family): \(object)")
        }
    }
}
