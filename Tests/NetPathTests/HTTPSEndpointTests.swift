#if os(Linux) || os(Android)
import Testing
@testable import NetPath
@testable import NetPathCore

/// `https://` endpoints (issue 29, item 3), without sockets: the URL, the verdict rules
/// (Android's: a certificate that does not verify is no pass, whatever else passed), and the
/// machine's handshake steps. The check starts at 0 s; timeout 5 s.
@Suite struct HTTPSEndpointTests {
    typealias Machine = ProbeStateMachine
    static func t(_ seconds: Double) -> Instant { Instant(nanoseconds: UInt64(seconds * 1e9)) }

    @Test func httpsURLsAreParsedWithTheirPort() throws {
        let target = try HTTPTarget("HTTPS://Secure.Test/204")
        #expect(target.isTLS && target.host == "secure.test" && target.port == 443 && target.hostHeader == "secure.test" && target.path == "/204")
        let other = try HTTPTarget("https://[fd77::1]:8443")
        #expect(other.isTLS && other.port == 8443 && other.hostHeader == "[fd77::1]:8443" && other.path == "/")
        #expect(try HTTPTarget("http://x:443/").hostHeader == "x:443")
        #expect(ProbeVerdict.absolute("/login", from: target) == "https://secure.test/login")
        #expect(ProbeVerdict.absolute("//portal/", from: target) == "https://portal/")
    }

    /// Through `https_proxy`, an https endpoint's connection goes to the proxy, which is asked
    /// for a tunnel (`CONNECT host:port`, credentials as for HTTP); its 2xx starts TLS inside
    /// the tunnel for the endpoint's name, and the request then goes over it, in origin form.
    @Test func anHTTPSEndpointGoesThroughItsProxyInACONNECTTunnel() throws {
        let proxy = try ConnectivityCheck.Proxy(http: "http://10.0.0.3:3128", https: "http://u:p@10.0.0.4:3129")
        let check = try ConnectivityCheck(endpoints: [try .init("https://10.77.0.1/204"), try .init("http://10.77.0.1/204")],
                                          timeout: .seconds(5), proxy: proxy)
        var machine = Machine(check: check, servers: [], start: .zero, firstQueryID: 1)
        let proxyAddress = IPAddress("10.0.0.4")!
        #expect(machine.handle(.started, at: .zero) == [.connect(endpoint: 0, address: proxyAddress, port: 3129),
                                                     .connect(endpoint: 1, address: IPAddress("10.0.0.3")!, port: 3128)])
        _ = machine.handle(.connectStarted(endpoint: 0, address: proxyAddress, .started(fd: 10)), at: .zero)
        let connect = try HTTPTarget("https://10.77.0.1/204").connectRequest(via: try #require(proxy.server(for: try HTTPTarget("https://10.77.0.1/204"), scheme: "https")))
        #expect(String(decoding: connect, as: UTF8.self) == "CONNECT 10.77.0.1:443 HTTP/1.1\r\nHost: 10.77.0.1:443\r\nProxy-Authorization: Basic dTpw\r\n"
                + "User-Agent: NetPath/0.1 (connectivity check)\r\nProxy-Connection: Keep-Alive\r\n\r\n")
        #expect(machine.handle(.connectFinished(fd: 10, error: nil), at: Self.t(0.01)) == [.send(fd: 10, request: connect)])
        #expect(machine.handle(.requestSent(fd: 10, complete: true), at: Self.t(0.01)).isEmpty)
        #expect(machine.next(at: Self.t(0.01)).first == .wait(until: Self.t(5), watching: [.init(fd: 10, interest: .readable)]))
        // The proxy's answer in two reads.
        #expect(machine.handle(.received(fd: 10, .success(Array("HTTP/1.1 200 Connection established\r\n".utf8))), at: Self.t(0.02)).isEmpty)
        #expect(machine.handle(.received(fd: 10, .success(Array("\r\n".utf8))), at: Self.t(0.02))
                == [.startTLS(fd: 10, host: "10.77.0.1", hostIsAddress: true)])
        #expect(machine.handle(.tlsStepped(fd: 10, .done), at: Self.t(0.03)) == [.send(fd: 10, request: try HTTPTarget("https://10.77.0.1/204").request)])
        #expect(machine.handle(.requestSent(fd: 10, complete: true), at: Self.t(0.03)).isEmpty)
        // An HTTP error inside the tunnel is the endpoint's, not the proxy's.
        #expect(machine.handle(.received(fd: 10, .success(Array("HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n".utf8))), at: Self.t(0.04)) == [.close(fd: 10)])
        _ = machine.handle(.connectStarted(endpoint: 1, address: IPAddress("10.0.0.3")!, .connectFailed(Errno(111))), at: Self.t(0.04))
        guard case .finish(let result)? = machine.next(at: Self.t(0.04)).last else { Issue.record("no result"); return }
        #expect(result.connectivity == .limited && result.httpStatus == 503 && result.failure?.kind == .httpError
                && result.proxy == "http://10.0.0.4:3129", "\(result)")
    }

    /// A proxy that refuses the tunnel (407, 403), cannot reach the endpoint (502), closes,
    /// or sends bytes after its 200 fails the endpoint as the proxy's failure, at once; one
    /// that never answers, at the timeout.
    @Test(arguments: [
        ("HTTP/1.1 407 Proxy Authentication Required\r\n\r\n", "the proxy http://10.0.0.4:3129 (https) wants credentials (HTTP 407)"),
        ("HTTP/1.1 403 Forbidden\r\n\r\n", "the proxy http://10.0.0.4:3129 (https) refused the tunnel (HTTP 403)"),
        ("HTTP/1.1 502 Bad Gateway\r\n\r\n", "the proxy http://10.0.0.4:3129 (https) answered HTTP 502 to CONNECT: it cannot reach the endpoint"),
        ("HTTP/1.1 200 OK\r\n\r\nHTTP/1.1 204", "the proxy http://10.0.0.4:3129 (https) sent data after opening the tunnel"),
        ("SSH-2.0-OpenSSH\r\n", "the proxy http://10.0.0.4:3129 (https) answered CONNECT with not an HTTP response"),
        ("", "the proxy http://10.0.0.4:3129 (https) at 10.0.0.4 closed the connection before answering CONNECT"),
    ])
    func aProxyThatDoesNotOpenTheTunnelIsTheVerdict(answer: String, message: String) throws {
        let check = try ConnectivityCheck(endpoints: [try .init("https://10.77.0.1/204")], timeout: .seconds(5),
                                          proxy: try .init(https: "http://10.0.0.4:3129"))
        var machine = Machine(check: check, servers: [], start: .zero, firstQueryID: 1)
        let proxyAddress = IPAddress("10.0.0.4")!
        _ = machine.handle(.started, at: .zero)
        _ = machine.handle(.connectStarted(endpoint: 0, address: proxyAddress, .started(fd: 10)), at: .zero)
        _ = machine.handle(.connectFinished(fd: 10, error: nil), at: Self.t(0.01))
        _ = machine.handle(.requestSent(fd: 10, complete: true), at: Self.t(0.01))
        #expect(machine.handle(.received(fd: 10, .success(Array(answer.utf8))), at: Self.t(0.02)) == [.close(fd: 10)])
        guard case .finish(let result)? = machine.next(at: Self.t(0.02)).last else { Issue.record("no result"); return }
        #expect(result.connectivity == .limited && result.failure == ConnectivityFailure(.proxyFailed, message)
                && result.latencyMilliseconds == 20, "\(result)")
    }

    @Test func aSilentProxyIsNamedAtTheTimeout() throws {
        let check = try ConnectivityCheck(endpoints: [try .init("https://10.77.0.1/204")], timeout: .seconds(5),
                                          proxy: try .init(https: "http://10.0.0.4:3129"))
        var machine = Machine(check: check, servers: [], start: .zero, firstQueryID: 1)
        _ = machine.handle(.started, at: .zero)
        _ = machine.handle(.connectStarted(endpoint: 0, address: IPAddress("10.0.0.4")!, .started(fd: 10)), at: .zero)
        _ = machine.handle(.connectFinished(fd: 10, error: nil), at: Self.t(0.01))
        _ = machine.handle(.requestSent(fd: 10, complete: true), at: Self.t(0.01))
        guard case .finish(let result)? = machine.next(at: Self.t(5)).last else { Issue.record("no result"); return }
        #expect(result.connectivity == .limited
                && result.failure == ConnectivityFailure(.proxyFailed, "no answer to CONNECT from the proxy http://10.0.0.4:3129 (https) within 5.0 seconds"),
                "\(result)")
    }

    typealias Outcome = (endpoint: ConnectivityCheck.Endpoint, resolved: Bool, verdict: HTTPResponseClassifier.Verdict?, error: ConnectivityFailure?, latency: Duration?)

    @Test func aCertificateThatDoesNotVerifyOutweighsAPassButNotAPortal() throws {
        let http = try ConnectivityCheck.Endpoint("http://check.test/204")
        let https = try ConnectivityCheck.Endpoint("https://secure.test/204")
        let intercepted = ConnectivityFailure(.tlsFailed, "TLS with 10.0.0.1 port 443 failed: certificate verify failed: self-signed certificate")
        let pass: Outcome = (http, true, .pass(status: 204), nil, .milliseconds(3))
        let tls: Outcome = (https, true, nil, intercepted, .milliseconds(5))
        let limited = ProbeVerdict.of([pass, tls])
        #expect(limited.connectivity == .limited && limited.failure == intercepted && limited.url == https.url)
        let portal = ProbeVerdict.of([(http, true, .unexpected(status: 302, location: "http://portal/", reason: "r"), nil, .milliseconds(3)), tls])
        #expect(portal.connectivity == .portal && portal.portalURL == "http://portal/")
        // A TLS endpoint that only ended (reset, silent) counts neither way.
        let ended: Outcome = (https, true, nil, ConnectivityFailure(.connectionFailed, "10.0.0.1 port 443: the connection ended during the TLS handshake"), .milliseconds(5))
        #expect(ProbeVerdict.of([pass, ended]).connectivity == .full)
        let unavailable: Outcome = (https, true, nil, ConnectivityFailure(.systemFailure, "cannot check https://secure.test/204: TLS needs OpenSSL 3"), .milliseconds(5))
        #expect(ProbeVerdict.of([pass, unavailable]).connectivity == .full)
        #expect(ProbeVerdict.of([(https, true, .pass(status: 204), nil, .milliseconds(4))]).connectivity == .full)
    }

    /// Connects to an https literal and returns the machine with its connection (fd 10) made
    /// and `startTLS` asked for.
    func connected(_ url: String = "https://10.77.0.1/204") throws -> Machine {
        let check = try ConnectivityCheck(endpoints: [try .init(url)], timeout: .seconds(5), proxy: .none)
        var machine = Machine(check: check, servers: [], start: .zero, firstQueryID: 1)
        let address = IPAddress("10.77.0.1")!
        _ = machine.handle(.started, at: .zero)
        _ = machine.handle(.connectStarted(endpoint: 0, address: address, .started(fd: 10)), at: .zero)
        #expect(machine.handle(.connectFinished(fd: 10, error: nil), at: Self.t(0.01)) == [.startTLS(fd: 10, host: "10.77.0.1", hostIsAddress: true)])
        return machine
    }

    @Test func theHandshakeIsWaitedForThenTheRequestGoesOverIt() throws {
        var machine = try connected()
        #expect(machine.handle(.tlsStepped(fd: 10, .wantRead), at: Self.t(0.01)).isEmpty)
        #expect(machine.next(at: Self.t(0.01)) == [.wait(until: Self.t(5), watching: [.init(fd: 10, interest: .readable)])])
        #expect(machine.handle(.tlsStepped(fd: 10, .wantWrite), at: Self.t(0.02)).isEmpty)
        #expect(machine.next(at: Self.t(0.02)) == [.wait(until: Self.t(5), watching: [.init(fd: 10, interest: .writable)])])
        #expect(machine.handle(.tlsStepped(fd: 10, .done), at: Self.t(0.03)) == [.send(fd: 10, request: try HTTPTarget("https://10.77.0.1/204").request)])
        #expect(machine.handle(.requestSent(fd: 10, complete: true), at: Self.t(0.03)).isEmpty)
        #expect(machine.handle(.received(fd: 10, .success(Array("HTTP/1.1 204 No Content\r\n\r\n".utf8))), at: Self.t(0.04)) == [.close(fd: 10)])
        #expect(machine.next(at: Self.t(0.04)) == [.finish(ConnectivityResult(connectivity: .full, url: "https://10.77.0.1/204", httpStatus: 204, latencyMilliseconds: 40))])
    }

    @Test func aFailedHandshakeIsLimitedWithOpenSSLsReason() throws {
        var machine = try connected("https://10.77.0.1:8443/204")
        #expect(machine.handle(.tlsStepped(fd: 10, .failed("certificate verify failed: self-signed certificate")), at: Self.t(0.02)) == [.close(fd: 10)])
        guard case .finish(let result)? = machine.next(at: Self.t(0.02)).last else { Issue.record("no result"); return }
        #expect(result.connectivity == .limited
                && result.failure == ConnectivityFailure(.tlsFailed, "TLS with 10.77.0.1 port 8443 failed: certificate verify failed: self-signed certificate"))
    }

    @Test func aHandshakeThatNeverEndsTimesOutAndSaysSo() throws {
        var machine = try connected()
        _ = machine.handle(.tlsStepped(fd: 10, .wantRead), at: Self.t(0.01))
        guard case .finish(let result)? = machine.next(at: Self.t(5)).last else { Issue.record("no result"); return }
        #expect(result.connectivity == .limited && result.failure == ConnectivityFailure(.timedOut, "no TLS handshake with 10.77.0.1 within 5.0 seconds"))
    }
}
#endif
