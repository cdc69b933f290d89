import Foundation
import KernelTestSupport
import Testing

/// The environment's proxies through the tool, as curl honours them, on a network whose HTTP
/// leaves only through its proxy (``ProxyLab``: the router resets the client's port 80).
@Suite(.enabled(if: Kernel.canRun, "needs root, iproute2, python3 and dnsmasq"))
struct ProxyCLITests {
    /// Every proxy variable unset but those given (the test runner's own never leak in).
    static func environment(_ set: [String: String]) -> [String: String] {
        var variables = Dictionary(uniqueKeysWithValues: ["http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY",
                                                           "no_proxy", "NO_PROXY"].map { ($0, "") })
        variables.merge(set) { _, new in new }
        return variables
    }

    static let url = ["--url", "http://check.test/204"]

    /// `probe --json` in the lab's client; the outcome and its one JSON line.
    static func probe(_ lab: ProxyLab, _ arguments: [String] = url, _ set: [String: String]) throws -> (Outcome, [String: Any]) {
        let outcome = try #require(try runTool(netpathBinary, ["probe", "--json", "--netns", lab.client.name] + arguments,
                                               environment: environment(set)))
        return (outcome, try jsonObject(try #require(outcome.lines.first, "\(outcome.standardError)")))
    }

    /// With `http_proxy` set, the check goes through the proxy (named, resolved with the
    /// check's own resolver) in absolute form and gets the 204 that direct HTTP cannot:
    /// `full`, `via proxy`; `--no-proxy` goes direct and is reset: `limited`. The upper-case
    /// `HTTP_PROXY` is not read (curl's rule), `all_proxy` is.
    @Test func aNetworkThatOnlyLetsHTTPOutThroughItsProxy() throws {
        let lab = try ProxyLab()
        defer { lab.remove() }
        let proxied = ["http_proxy": "http://proxy.test:3128"]
        let (through, result) = try Self.probe(lab, Self.url, proxied)
        #expect(through.status == 0 && result["connectivity"] as? String == "full" && result["httpStatus"] as? Int == 204,
                "\(through.standardOutput)")
        #expect(result["proxy"] as? String == "http://proxy.test:3128", "\(through.standardOutput)")
        #expect(lab.requests().contains("GET http://check.test/204 HTTP/1.1\t-"), "\(lab.requests())")

        let human = try #require(try runTool(netpathBinary, ["probe", "--netns", lab.client.name] + Self.url,
                                             environment: Self.environment(proxied)))
        #expect(human.status == 0 && human.standardOutput.contains("full") && human.standardOutput.contains("via proxy http://proxy.test:3128"),
                "\(human.standardOutput)")

        let (direct, directResult) = try Self.probe(lab, Self.url + ["--no-proxy"], proxied)
        #expect(direct.status == 1 && directResult["connectivity"] as? String == "limited", "\(direct.standardOutput)")
        #expect(directResult["proxy"] == nil && (directResult["error"] as? String)?.hasSuffix("Connection refused") == true,
                "\(direct.standardOutput)")

        let (upper, upperResult) = try Self.probe(lab, Self.url, ["HTTP_PROXY": "http://proxy.test:3128"])
        #expect(upper.status == 1 && upperResult["connectivity"] as? String == "limited" && upperResult["proxy"] == nil,
                "\(upper.standardOutput)")
        let (all, allResult) = try Self.probe(lab, Self.url, ["ALL_PROXY": "\(ProxyLab.proxyAddress):3128"])
        #expect(all.status == 0 && allResult["proxy"] as? String == "http://\(ProxyLab.proxyAddress):3128", "\(all.standardOutput)")

        // The commands that check through a monitor go through it too.
        let status = try #require(try runTool(netpathBinary, ["status", "--probe", "--json", "--netns", lab.client.name] + Self.url,
                                              environment: Self.environment(proxied)))
        let statusPath = try jsonObject(try #require(status.lines.first))
        #expect(statusPath["connectivity"] as? String == "full" && statusPath["connectivityProxy"] as? String == "http://proxy.test:3128",
                "\(status.standardOutput)")
        // The path's line says it too (it named no proxy: only `probe`'s did).
        let line = try #require(try runTool(netpathBinary, ["status", "--probe", "--netns", lab.client.name] + Self.url,
                                            environment: Self.environment(proxied)))
        #expect(line.standardOutput.contains("Internet: full via proxy http://proxy.test:3128"), "\(line.standardOutput)")
        let directLine = try #require(try runTool(netpathBinary, ["status", "--probe", "--json", "--no-proxy", "--netns", lab.client.name] + Self.url,
                                                  environment: Self.environment(proxied)))
        let directPath = try jsonObject(try #require(directLine.lines.first))
        #expect(directPath["connectivity"] as? String == "limited" && directPath["connectivityProxy"] is NSNull, "\(directLine.standardOutput)")
    }

    /// An `https://` endpoint goes through `https_proxy` in a `CONNECT` tunnel, as curl's
    /// request does, with TLS to the endpoint inside it (the router resets direct 443):
    /// `full`, naming the proxy; the proxy's refusal (407 without credentials, 502 for a port
    /// it cannot reach) is `limited`, naming it; with only `http_proxy` set the endpoint is
    /// reached directly, as curl does, and is reset.
    @Test func anHTTPSEndpointGoesThroughTheProxysTunnel() throws {
        let certificates = try HTTPSCLITests.makeCertificates(for: "check.test")
        defer { try? FileManager.default.removeItem(atPath: certificates) }
        let lab = try ProxyLab()
        defer { lab.remove() }
        try lab.startHTTPS(certificate: certificates + "/server.pem", key: certificates + "/server.key")
        let trust = ["SSL_CERT_FILE": certificates + "/ca.pem"]
        let url = ["--url", "https://check.test/204"]

        let (through, result) = try Self.probe(lab, url, trust.merging(["https_proxy": "http://proxy.test:3128"]) { $1 })
        #expect(through.status == 0 && result["connectivity"] as? String == "full" && result["httpStatus"] as? Int == 204
                && result["proxy"] as? String == "http://proxy.test:3128", "\(through.standardOutput) \(through.standardError)")
        #expect(lab.requests().contains("CONNECT check.test:443 HTTP/1.1\t-"), "\(lab.requests())")

        let (authorized, authorizedResult) = try Self.probe(lab, url, trust.merging(["HTTPS_PROXY": "http://user:p%40ss@proxy.test:3130"]) { $1 })
        #expect(authorized.status == 0 && authorizedResult["connectivity"] as? String == "full", "\(authorized.standardOutput)")
        let (refused, refusedResult) = try Self.probe(lab, url, trust.merging(["https_proxy": "http://proxy.test:3130"]) { $1 })
        #expect(refused.status == 1 && refusedResult["connectivity"] as? String == "limited"
                && (refusedResult["error"] as? String)?.contains("wants credentials (HTTP 407)") == true, "\(refused.standardOutput)")
        let (unreachable, unreachableResult) = try Self.probe(lab, ["--url", "https://check.test:444/204"],
                                                              trust.merging(["https_proxy": "http://proxy.test:3128"]) { $1 })
        #expect(unreachable.status == 1 && (unreachableResult["error"] as? String)?.contains("answered HTTP 502 to CONNECT") == true,
                "\(unreachable.standardOutput)")

        let (direct, directResult) = try Self.probe(lab, url, trust.merging(["http_proxy": "http://proxy.test:3128"]) { $1 })
        #expect(direct.status == 1 && directResult["connectivity"] as? String == "limited" && directResult["proxy"] == nil
                && (directResult["error"] as? String)?.hasSuffix("Connection refused") == true, "\(direct.standardOutput)")
    }

    /// `all_proxy=socks5h://…` (an SSH `-D` tunnel's, a SOCKS gateway's): the check's HTTP
    /// and HTTPS go through the SOCKS5 proxy, which resolves the endpoint's name, as curl's
    /// do; with credentials from the URL; the proxy's refusal is its failure, naming it.
    @Test func aSOCKS5ProxyCarriesTheCheck() throws {
        let certificates = try HTTPSCLITests.makeCertificates(for: "check.test")
        defer { try? FileManager.default.removeItem(atPath: certificates) }
        let lab = try ProxyLab()
        defer { lab.remove() }
        try lab.startHTTPS(certificate: certificates + "/server.pem", key: certificates + "/server.key")
        let socks = ["all_proxy": "socks5h://proxy.test:1080", "SSL_CERT_FILE": certificates + "/ca.pem"]
        let (plain, plainResult) = try Self.probe(lab, Self.url, socks)
        #expect(plain.status == 0 && plainResult["connectivity"] as? String == "full" && plainResult["proxy"] as? String == "socks5h://proxy.test:1080",
                "\(plain.standardOutput) \(plain.standardError)")
        let (secure, secureResult) = try Self.probe(lab, ["--url", "https://check.test/204"], socks)
        #expect(secure.status == 0 && secureResult["connectivity"] as? String == "full", "\(secure.standardOutput)")
        #expect(lab.requests().filter { $0 == "SOCKS5 CONNECT check.test:80\t-" || $0 == "SOCKS5 CONNECT check.test:443\t-" }.count == 2,
                "\(lab.requests())")

        let (authorized, authorizedResult) = try Self.probe(lab, Self.url, ["ALL_PROXY": "socks5://user:p%40ss@proxy.test:1081"])
        #expect(authorized.status == 0 && authorizedResult["connectivity"] as? String == "full", "\(authorized.standardOutput)")
        #expect(lab.requests().contains("SOCKS5 CONNECT check.test:80\tuser"), "\(lab.requests())")
        let (refused, refusedResult) = try Self.probe(lab, Self.url, ["all_proxy": "socks5h://proxy.test:1081"])
        #expect(refused.status == 1 && (refusedResult["error"] as? String)?.hasSuffix("wants credentials (SOCKS5)") == true,
                "\(refused.standardOutput)")
        let (unreachable, unreachableResult) = try Self.probe(lab, ["--url", "http://check.test:81/204"], ["all_proxy": "socks5h://proxy.test:1080"])
        #expect(unreachable.status == 1 && unreachableResult["connectivity"] as? String == "limited"
                && (unreachableResult["error"] as? String)?.hasSuffix("cannot reach check.test:81: connection refused") == true,
                "\(unreachable.standardOutput)")
    }

    /// `no_proxy` naming the host (a suffix, any case, with a leading dot, or `*`) sends it
    /// direct even with a dead proxy set: port 8080 is let through, so `full` without a proxy.
    @Test(arguments: ["check.test", ".TEST", "localhost, test", "*", "203.0.113.0/24"])
    func noProxyMatchingTheHostGoesDirect(noProxy: String) throws {
        let lab = try ProxyLab()
        defer { lab.remove() }
        // An address endpoint for the CIDR entry: no_proxy's networks match hosts given as addresses.
        let host = noProxy.contains("/") ? RouterLab.endpointAddress : "check.test"
        let url = ["--url", "http://\(host):8080/204"]
        let (outcome, result) = try Self.probe(lab, url, ["http_proxy": "http://\(ProxyLab.proxyAddress):3129", "no_proxy": noProxy])
        #expect(outcome.status == 0 && result["connectivity"] as? String == "full" && result["proxy"] == nil, "\(outcome.standardOutput)")
        // Not matching: through the dead proxy.
        let (other, otherResult) = try Self.probe(lab, url, ["http_proxy": "http://\(ProxyLab.proxyAddress):3129", "NO_PROXY": "example.test"])
        #expect(other.status == 1 && otherResult["proxy"] as? String == "http://\(ProxyLab.proxyAddress):3129", "\(other.standardOutput)")
    }

    /// A proxy's own failures are its verdict, as curl's would be: one that is down (nothing
    /// listens: a reset) is `limited` at once, naming it; one that cannot reach the endpoint
    /// answers 502: `limited`, saying so; one that wants credentials gets them from the URL
    /// (percent-decoded, `Proxy-Authorization: Basic`) and answers 407 without them.
    @Test func aProxysOwnFailuresAreItsVerdict() throws {
        let lab = try ProxyLab()
        defer { lab.remove() }
        let started = ContinuousClock.now
        let (dead, deadResult) = try Self.probe(lab, Self.url, ["http_proxy": "http://\(ProxyLab.proxyAddress):3129"])
        let wall = ContinuousClock.now - started
        #expect(dead.status == 1 && deadResult["connectivity"] as? String == "limited", "\(dead.standardOutput)")
        let error = deadResult["error"] as? String ?? ""
        #expect(error.contains("the proxy http://\(ProxyLab.proxyAddress):3129 (http_proxy)") && error.hasSuffix("Connection refused"),
                "\(dead.standardOutput)")
        #expect(try #require(deadResult["latencyMs"] as? Double) <= 1000 && wall < .seconds(3), "\(dead.standardOutput) in \(wall)")

        let (unreachable, unreachableResult) = try Self.probe(lab, ["--url", "http://check.test:81/204"], ["http_proxy": "http://proxy.test:3128"])
        #expect(unreachable.status == 1 && unreachableResult["connectivity"] as? String == "limited"
                && unreachableResult["httpStatus"] as? Int == 502, "\(unreachable.standardOutput)")
        #expect((unreachableResult["error"] as? String)?.contains("answered HTTP 502: it cannot reach the endpoint") == true,
                "\(unreachable.standardOutput)")

        let (authorized, authorizedResult) = try Self.probe(lab, Self.url, ["http_proxy": "http://user:p%40ss@proxy.test:3130"])
        #expect(authorized.status == 0 && authorizedResult["proxy"] as? String == "http://proxy.test:3130", "\(authorized.standardOutput)")
        #expect(!authorized.standardOutput.contains("p%40ss") && !authorized.standardOutput.contains("user:"))
        #expect(lab.requests().contains("GET http://check.test/204 HTTP/1.1\tBasic \(Data(ProxyLab.credentials.utf8).base64EncodedString())"),
                "\(lab.requests())")
        let (refused, refusedResult) = try Self.probe(lab, Self.url, ["http_proxy": "http://proxy.test:3130"])
        #expect(refused.status == 1 && refusedResult["httpStatus"] as? Int == 407
                && (refusedResult["error"] as? String)?.contains("wants credentials") == true, "\(refused.standardOutput)")

        // A SOCKS4 proxy cannot be used: the endpoint fails naming it, at once.
        let (socks, socksResult) = try Self.probe(lab, Self.url, ["all_proxy": "socks4a://\(ProxyLab.proxyAddress):1080"])
        #expect(socks.status == 1 && socksResult["connectivity"] as? String == "limited"
                && (socksResult["error"] as? String)?.contains("SOCKS4 proxies are not supported") == true, "\(socks.standardOutput)")
    }
}
