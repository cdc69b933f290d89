#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// Proxy URLs, `no_proxy` and the environment's variables read as curl reads them, the
/// request a proxy gets, and the check's decisions through a proxy. Pure: no sockets.
@Suite struct ProxyTests {
    typealias Proxy = ConnectivityCheck.Proxy

    @Test(arguments: [
        // curl: no scheme is http://, no port is 1080; the path is ignored; case ignored.
        ("proxy.corp:3128", "http://proxy.corp:3128", "proxy.corp", 3128, nil),
        ("http://proxy.corp", "http://proxy.corp:1080", "proxy.corp", 1080, nil),
        ("HTTP://Proxy.Corp:8080/ignored?x#y", "http://proxy.corp:8080", "proxy.corp", 8080, nil),
        ("http://user:p%40ss@[fd00::1]:3128/", "http://[fd00::1]:3128", "fd00::1", 3128, "user:p@ss"),
        ("http://user@10.0.0.1:3128", "http://10.0.0.1:3128", "10.0.0.1", 3128, "user:"),
        ("http://a:b:c@10.0.0.1:3128", "http://10.0.0.1:3128", "10.0.0.1", 3128, "a:b:c"),
        // SOCKS5: both forms; the proxy resolves the endpoint's name.
        ("socks5h://u:secret@10.0.0.1:1080", "socks5h://10.0.0.1:1080", "10.0.0.1", 1080, "u:secret"),
        ("SOCKS5://proxy.corp", "socks5://proxy.corp:1080", "proxy.corp", 1080, nil),
    ] as [(String, String, String, Int, String?)])
    func proxyURLsAsCurlReadsThem(text: String, url: String, host: String, port: Int, credentials: String?) {
        let server = ProxyServer.parse(text, variable: "http_proxy")
        #expect(server.unusable == nil && server.url == url && server.host == host && Int(server.port) == port && server.credentials == credentials)
        #expect(server.isSOCKS == url.hasPrefix("socks5"))
    }

    @Test(arguments: [
        ("socks4a://u:secret@10.0.0.1:1080", "SOCKS4 proxies are not supported", "socks4a://10.0.0.1:1080"),
        ("https://proxy:443", "HTTPS proxies are not supported", "https://proxy:443"),
        ("ftp://proxy", "unsupported proxy scheme 'ftp'", "ftp://proxy"),
        ("http://", "is not a host name", "http://"),
        ("http://proxy:99999", "is not a port", "http://proxy:99999"),
        ("http://proxy :1", "spaces or control characters", "http://proxy :1"),
        ("http://u:%zz@proxy", "percent-encoding", "http://proxy"),
        ("http://u:%ff@proxy", "percent-encoding", "http://proxy"),
        ("http://[fd00::1:3128", "unclosed [", "http://[fd00::1:3128"),
        // Found by the proxy fuzzer: a zone, and a group with a sign, are no address.
        ("0::%]:8080/", "is not a host name", "0::%]:8080/"),
        ("::101:1080:+1:1", "is not a host name", "::101:1080:+1:1"),
        ("http://[fe80::1%eth0]:3128", "is not an IPv6 address", "http://[fe80::1%eth0]:3128"),
    ])
    func proxiesThatCannotBeUsedSayWhyAndNeverShowCredentials(text: String, reason: String, shown: String) {
        let server = ProxyServer.parse(text, variable: "all_proxy")
        #expect(server.unusable?.contains(reason) == true, "\(server)")
        #expect(server.url == shown && server.named == "the proxy \(shown) (all_proxy)")
        #expect(throws: NetPathError.self) { try Proxy(http: text) }
    }

    @Test func theEnvironmentAsCurlReadsIt() throws {
        let target = try HTTPTarget("http://check.test/204")
        // HTTP_PROXY may be a CGI request's Proxy: header: never read (httpoxy).
        #expect(Proxy(environment: ["HTTP_PROXY": "http://evil:1"]) == .none)
        #expect(Proxy(environment: [:]) == .none)
        #expect(Proxy(environment: ["http_proxy": "http://p:1"]).server(for: target)?.url == "http://p:1")
        // The scheme's own first, then all_proxy (lower case first); an empty value is none.
        #expect(Proxy(environment: ["http_proxy": "http://p:1", "all_proxy": "http://a:2"]).server(for: target)?.url == "http://p:1")
        #expect(Proxy(environment: ["http_proxy": "", "ALL_PROXY": "http://a:2"]).server(for: target)?.url == "http://a:2")
        #expect(Proxy(environment: ["all_proxy": "http://a:2", "ALL_PROXY": "http://b:3"]).server(for: target)?.url == "http://a:2")
        // https_proxy is for https:// only.
        let https = Proxy(environment: ["https_proxy": "http://s:4", "HTTPS_PROXY": "http://t:5"])
        #expect(https.server(for: target) == nil && https.server(for: target, scheme: "https")?.url == "http://s:4")
        #expect(Proxy(environment: ["HTTPS_PROXY": "http://t:5"]).server(for: target, scheme: "https")?.url == "http://t:5")
        // no_proxy before NO_PROXY.
        #expect(Proxy(environment: ["http_proxy": "http://p:1", "no_proxy": "other.test", "NO_PROXY": "check.test"]).server(for: target) != nil)
        #expect(Proxy(environment: ["http_proxy": "http://p:1", "NO_PROXY": "check.test"]).server(for: target) == nil)
        // An unresolved `environment` is direct in the pure core, and `none` is.
        #expect(Proxy.environment.server(for: target) == nil && Proxy.none.server(for: target) == nil)
        #expect(try Proxy(http: "p:3128", noProxy: "localhost,.corp").description == "http: http://p:3128; no proxy for localhost,corp")
        #expect(try Proxy(noProxy: "*") == .none && Proxy.none.description == "none")
    }

    @Test(arguments: [
        // curl's own examples: a name and its subdomains, never a name that merely ends alike.
        ("example.com", "example.com", true), ("example.com", "www.example.com", true), ("example.com", "nonexample.com", false),
        (".example.com", "www.example.com", true), (".example.com", "example.com", true), ("example.com.", "example.com.", true),
        ("EXAMPLE.com", "example.com", true), ("www.example.com", "example.com", false),
        ("localhost, .corp ,x", "proxy.corp", true), ("a,,b\tc", "c", true), ("*", "anything", true), ("*,a", "anything", false),
        ("", "example.com", false), ("10.0.0.1", "example.com", false),
        // Addresses match hosts given as addresses, whole or by CIDR; names never do.
        ("10.0.0.1", "10.0.0.1", true), ("10.0.0.0/8", "10.1.2.3", true), ("10.0.0.0/8", "11.0.0.1", false), ("10.0.0.0/33", "10.0.0.0", false),
        ("10.0.0.0/0", "10.0.0.0", true), ("10.0.0.0/0", "10.0.0.1", false), ("localhost", "127.0.0.1", false),
        ("fd00::/8", "fd12::1", true), ("::1", "::1", true), ("fd00::1", "fd00::2", false),
    ])
    func noProxyAsCurlMatchesIt(list: String, host: String, matches: Bool) {
        #expect(NoProxyList(list).matches(host: host, address: IPAddress(host)) == matches)
    }

    @Test func theRequestToAProxyIsInAbsoluteFormWithCredentialsOnlyWhenGiven() throws {
        let target = try HTTPTarget("http://check.test:8080/a?b=1")
        let tail = "User-Agent: NetPath/0.1 (connectivity check)\r\nAccept: */*\r\nCache-Control: no-cache\r\nConnection: close\r\n\r\n"
        #expect(String(decoding: target.request(via: ProxyServer.parse("p:3128", variable: "http_proxy")), as: UTF8.self)
                == "GET http://check.test:8080/a?b=1 HTTP/1.1\r\nHost: check.test:8080\r\nProxy-Connection: close\r\n" + tail)
        #expect(String(decoding: target.request(via: ProxyServer.parse("http://Aladdin:open%20sesame@p", variable: "http_proxy")), as: UTF8.self)
                == "GET http://check.test:8080/a?b=1 HTTP/1.1\r\nHost: check.test:8080\r\n"
                + "Proxy-Authorization: Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==\r\nProxy-Connection: close\r\n" + tail)
        #expect(target.request(via: nil) == target.request)
        #expect(String(decoding: try HTTPTarget("http://[fd00::1]/").request(via: ProxyServer.parse("p", variable: "x")), as: UTF8.self)
            .hasPrefix("GET http://[fd00::1]/ HTTP/1.1\r\nHost: [fd00::1]\r\n"))
    }

    @Test(arguments: [("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"), ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy")])
    func base64AsRFC4648(text: String, encoded: String) {
        #expect(Base64.encode(Array(text.utf8)) == encoded)
    }

    @Test func theCheckKeepsItsProxySetting() throws {
        #expect(ConnectivityCheck.default.proxy == .environment)
        let check = try ConnectivityCheck(proxy: .none)
        #expect(check.proxy == .none && check != ConnectivityCheck.default)
        #expect(Proxy.environment.resolved == Proxy.processEnvironment && Proxy.none.resolved == .none)
    }
}

#if os(Linux) || os(Android)
/// The Linux check through a proxy, driven by hand (the check starts at 0 s).
@Suite struct ProxyStateMachineTests {
    typealias Machine = ProbeStateMachine
    static let proxy = IPAddress("10.0.0.3")!
    static let url = "http://check.test/204"

    private func t(_ seconds: Double) -> Instant { Instant(nanoseconds: UInt64(seconds * 1e9)) }

    func machine(_ proxy: ConnectivityCheck.Proxy, servers: [IPAddress] = []) throws -> Machine {
        let check = try ConnectivityCheck(endpoints: [try .init(Self.url)], timeout: .seconds(5), proxy: proxy)
        return Machine(check: check, servers: servers, start: .zero, firstQueryID: 100)
    }

    /// A server's answer to `query`: its question (without the query's EDNS0 record), then
    /// one record per address.
    func answer(_ query: Machine.Query, _ addresses: [IPAddress] = [], rcode: UInt8 = 0) -> [UInt8] {
        var bytes = [UInt8(query.id >> 8), UInt8(query.id & 0xFF), 0x81, 0x80 | rcode, 0, 1, 0, UInt8(addresses.count), 0, 0, 0, 0]
        bytes += query.bytes[12..<(query.bytes.count - 11)]
        for address in addresses {
            let data = Fixture.addressBytes(address)
            bytes += [0xC0, 12, UInt8(query.type >> 8), UInt8(query.type & 0xFF), 0, 1, 0, 0, 0, 60, 0, UInt8(data.count)] + data
        }
        return bytes
    }

    func result(_ actions: [Machine.Action]) -> ConnectivityResult? {
        actions.lazy.compactMap { if case .finish(let result) = $0 { result } else { nil } }.first
    }

    /// The proxy is connected to (its address; the endpoint's name is not resolved here, as
    /// curl leaves it to the proxy) and gets the absolute-form request; its 204 is `full`,
    /// with the proxy named in the result.
    @Test func aPassThroughTheProxyIsFullAndNamesIt() throws {
        var machine = try machine(try .init(http: "http://10.0.0.3:3128"), servers: [IPAddress("10.0.0.53")!])
        #expect(machine.handle(.started, at: .zero) == [.connect(endpoint: 0, address: Self.proxy, port: 3128)])
        #expect(machine.handle(.connectStarted(endpoint: 0, address: Self.proxy, .started(fd: 10)), at: .zero).isEmpty)
        let request = try HTTPTarget(Self.url).request(via: ProxyServer.parse("http://10.0.0.3:3128", variable: "http"))
        #expect(machine.handle(.connectFinished(fd: 10, error: nil), at: t(0.01)) == [.send(fd: 10, request: request)])
        #expect(machine.handle(.requestSent(fd: 10, complete: true), at: t(0.01)).isEmpty)
        #expect(machine.handle(.received(fd: 10, .success(Array("HTTP/1.1 204 No Content\r\n\r\n".utf8))), at: t(0.02)) == [.close(fd: 10)])
        #expect(result(machine.next(at: t(0.02))) == ConnectivityResult(connectivity: .full, url: Self.url, httpStatus: 204,
                                                                          latencyMilliseconds: 20, proxy: "http://10.0.0.3:3128"))
    }

    /// A proxy's name is resolved with the check's own resolver, and may stand for this
    /// machine (no filtered-answer rule for it); not resolving, it is `local`, naming it.
    @Test func aProxysNameIsResolvedByTheCheck() throws {
        var machine = try machine(try .init(http: "proxy.test:3128"), servers: [IPAddress("10.0.0.53")!])
        let queries = machine.handle(.started, at: .zero).compactMap { if case .openQuery(let query) = $0 { query } else { nil } }
        #expect(queries.count == 2 && queries.allSatisfy { $0.bytes.count > 12 })
        var notFound = machine
        for (offset, query) in queries.enumerated() { _ = machine.handle(.querySent(query, fd: FileDescriptor(rawValue: Int32(20 + offset))), at: .zero) }
        for (offset, query) in queries.enumerated() { _ = notFound.handle(.querySent(query, fd: FileDescriptor(rawValue: Int32(20 + offset))), at: .zero) }
        // 127.0.0.1 for the proxy's name: connected to (a local proxy), not filtered.
        #expect(machine.handle(.received(fd: 20, .success(answer(queries[0], [IPAddress("127.0.0.1")!]))), at: t(0.01)).contains(.connect(endpoint: 0, address: IPAddress("127.0.0.1")!, port: 3128)))
        // NXDOMAIN for both: the proxy's name did not resolve.
        _ = notFound.handle(.received(fd: 20, .success(answer(queries[0], rcode: 3))), at: t(0.01))
        _ = notFound.handle(.received(fd: 21, .success(answer(queries[1], rcode: 3))), at: t(0.01))
        let ended = notFound.next(at: t(0.01))
        let failed = try #require(result(ended), "\(ended)")
        #expect(failed.connectivity == .local && failed.proxy == "http://proxy.test:3128"
                && failed.failure?.message == "the name of the proxy http://proxy.test:3128 (http), 'proxy.test', did not resolve")
    }

    /// A proxy that is down (a reset), or that answers 502/504 or 407, is the proxy's
    /// verdict: `limited`, `proxyFailed`, naming it. The endpoint's own error through it
    /// (a 404) stays an HTTP error.
    @Test(arguments: [
        (nil, ConnectivityFailure.Kind.proxyFailed, "cannot connect to the proxy http://10.0.0.3:3128 (http) at 10.0.0.3: Connection refused"),
        (502, .proxyFailed, "the proxy http://10.0.0.3:3128 (http) answered HTTP 502: it cannot reach the endpoint"),
        (504, .proxyFailed, "the proxy http://10.0.0.3:3128 (http) answered HTTP 504: it cannot reach the endpoint"),
        (407, .proxyFailed, "the proxy http://10.0.0.3:3128 (http) wants credentials (HTTP 407)"),
        (404, .httpError, "the endpoint answered HTTP 404 through the proxy http://10.0.0.3:3128 (http), an error, not a portal's page"),
    ] as [(Int?, ConnectivityFailure.Kind, String)])
    func aProxysFailureIsLimitedAndNamesIt(status: Int?, kind: ConnectivityFailure.Kind, message: String) throws {
        var machine = try machine(try .init(http: "http://10.0.0.3:3128"))
        _ = machine.handle(.started, at: .zero)
        _ = machine.handle(.connectStarted(endpoint: 0, address: Self.proxy, .started(fd: 10)), at: .zero)
        if let status {
            _ = machine.handle(.connectFinished(fd: 10, error: nil), at: t(0.01))
            _ = machine.handle(.requestSent(fd: 10, complete: true), at: t(0.01))
            _ = machine.handle(.received(fd: 10, .success(Array("HTTP/1.1 \(status) X\r\nContent-Length: 0\r\n\r\n".utf8))), at: t(0.02))
        } else {
            _ = machine.handle(.connectFinished(fd: 10, error: Errno(ECONNREFUSED)), at: t(0.02))
        }
        let ended = try #require(result(machine.next(at: t(0.02))))
        #expect(ended.connectivity == .limited && ended.httpStatus == status && ended.proxy == "http://10.0.0.3:3128")
        #expect(ended.failure == ConnectivityFailure(kind, message))
    }

    /// A proxy that cannot be used (SOCKS4) fails its endpoint at once, naming it; `no_proxy`
    /// sends the endpoint direct.
    @Test func anUnusableProxyFailsAtOnceAndNoProxyGoesDirect() throws {
        var socks = try machine(.init(environment: ["all_proxy": "socks4://10.0.0.3"]))
        let ended = try #require(result(socks.handle(.started, at: .zero) + socks.next(at: .zero)))
        #expect(ended.connectivity == .limited && ended.failure?.kind == .proxyFailed
                && ended.failure?.message == "cannot use the proxy socks4://10.0.0.3 (all_proxy): SOCKS4 proxies are not supported (only http://, socks5:// and socks5h://)")
        var direct = try machine(.init(environment: ["http_proxy": "10.0.0.3:3128", "no_proxy": "test"]), servers: [IPAddress("10.0.0.53")!])
        let queries = direct.handle(.started, at: .zero).compactMap { if case .openQuery(let query) = $0 { query } else { nil } }
        #expect(queries.count == 2 && queries[0].bytes.count > 12)
        let name = Array("check".utf8)
        #expect(queries[0].bytes[13..<(13 + name.count)].elementsEqual(name))
    }

    /// Through a SOCKS5 proxy (`all_proxy=socks5h://…`): the greeting, the connection request
    /// by the endpoint's name, then the request in origin form over the same connection; the
    /// endpoint's 204 is `full`, naming the proxy.
    @Test func aPassThroughASOCKS5ProxyIsFull() throws {
        var machine = try machine(.init(environment: ["all_proxy": "socks5h://10.0.0.3"]))
        #expect(machine.handle(.started, at: .zero) == [.connect(endpoint: 0, address: Self.proxy, port: 1080)])
        _ = machine.handle(.connectStarted(endpoint: 0, address: Self.proxy, .started(fd: 10)), at: .zero)
        #expect(machine.handle(.connectFinished(fd: 10, error: nil), at: t(0.01)) == [.send(fd: 10, request: [5, 1, 0])])
        #expect(machine.handle(.requestSent(fd: 10, complete: true), at: t(0.01)).isEmpty)
        #expect(machine.next(at: t(0.01)).first == .wait(until: t(5), watching: [.init(fd: 10, interest: .readable)]))
        #expect(machine.handle(.received(fd: 10, .success([5, 0])), at: t(0.01))
                == [.send(fd: 10, request: [5, 1, 0, 3, 10] + Array("check.test".utf8) + [0, 80])])
        _ = machine.handle(.requestSent(fd: 10, complete: true), at: t(0.01))
        // The reply in two reads: its bound address is IPv4.
        #expect(machine.handle(.received(fd: 10, .success([5, 0, 0, 1, 10])), at: t(0.02)).isEmpty)
        #expect(machine.handle(.received(fd: 10, .success([0, 0, 3, 0x9C, 0x40])), at: t(0.02))
                == [.send(fd: 10, request: try HTTPTarget(Self.url).request)])
        _ = machine.handle(.requestSent(fd: 10, complete: true), at: t(0.02))
        // An HTTP error through it is the endpoint's own.
        #expect(machine.handle(.received(fd: 10, .success(Array("HTTP/1.1 204 No Content\r\n\r\n".utf8))), at: t(0.03)) == [.close(fd: 10)])
        #expect(result(machine.next(at: t(0.03))) == ConnectivityResult(connectivity: .full, url: Self.url, httpStatus: 204,
                                                                          latencyMilliseconds: 30, proxy: "socks5h://10.0.0.3:1080"))
    }

    /// Credentials in the proxy's URL: offered, sent as RFC 1929 asks when the proxy picks
    /// them; an https endpoint's TLS starts once the proxy connected it (by address here).
    @Test func aSOCKS5ProxyGetsItsCredentialsAndCarriesTLS() throws {
        let check = try ConnectivityCheck(endpoints: [try .init("https://10.77.0.1/204")], timeout: .seconds(5),
                                          proxy: .init(environment: ["https_proxy": "socks5://u:secret@10.0.0.3:1081"]))
        var machine = Machine(check: check, servers: [], start: .zero, firstQueryID: 1)
        _ = machine.handle(.started, at: .zero)
        _ = machine.handle(.connectStarted(endpoint: 0, address: Self.proxy, .started(fd: 10)), at: .zero)
        #expect(machine.handle(.connectFinished(fd: 10, error: nil), at: t(0.01)) == [.send(fd: 10, request: [5, 2, 0, 2])])
        #expect(machine.handle(.received(fd: 10, .success([5, 2])), at: t(0.01))
                == [.send(fd: 10, request: [1, 1] + Array("u".utf8) + [6] + Array("secret".utf8))])
        // The credentials' status after a version byte of 5, as some servers send it (curl
        // ignores that byte too).
        #expect(machine.handle(.received(fd: 10, .success([5, 0])), at: t(0.01)) == [.send(fd: 10, request: [5, 1, 0, 1, 10, 77, 0, 1, 1, 0xBB])])
        #expect(machine.handle(.received(fd: 10, .success([5, 0, 0, 4] + [UInt8](repeating: 0, count: 18))), at: t(0.02))
                == [.startTLS(fd: 10, host: "10.77.0.1", hostIsAddress: true)])
    }

    /// What a SOCKS5 proxy refuses, or sends that is not SOCKS5, fails the endpoint at once
    /// as the proxy's failure, naming it.
    @Test(arguments: [
        ([[5, 0], [5, 5, 0, 1, 0, 0, 0, 0, 0, 0]], "cannot reach check.test: connection refused"),
        // A failure's code is read before its (here odd) address.
        ([[5, 0], [5, 2, 0, 0]], "cannot reach check.test: connection not allowed by ruleset"),
        ([[5, 0], [5, 4, 0, 3, 1, 0x61, 0, 0]], "cannot reach check.test: host unreachable"),
        ([[5, 0xFF]], "wants credentials (SOCKS5)"),
        ([Array("HTTP/1.1 400 Bad Request\r\n\r\n".utf8)], "answered with not a SOCKS5 answer"),
        ([[5, 0, 9]], "answered with more bytes than its answer"),
        ([[5, 0], [5, 0, 0, 9, 0, 0]], "answered with an answer with address type 9"),
        ([[5, 0], []], "closed the connection during the SOCKS5 negotiation"),
    ] as [([[UInt8]], String)])
    func aSOCKS5ProxysRefusalIsItsFailure(answers: [[UInt8]], reason: String) throws {
        var machine = try machine(.init(environment: ["all_proxy": "socks5h://10.0.0.3"]))
        _ = machine.handle(.started, at: .zero)
        _ = machine.handle(.connectStarted(endpoint: 0, address: Self.proxy, .started(fd: 10)), at: .zero)
        _ = machine.handle(.connectFinished(fd: 10, error: nil), at: t(0.01))
        for answer in answers { _ = machine.handle(.received(fd: 10, .success(answer)), at: t(0.02)) }
        let ended = try #require(result(machine.next(at: t(0.02))))
        #expect(ended.connectivity == .limited && ended.latencyMilliseconds == 20
                && ended.failure == ConnectivityFailure(.proxyFailed, "the proxy socks5h://10.0.0.3:1080 (all_proxy) at 10.0.0.3 \(reason)"), "\(ended)")
    }
}
#endif
