#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// SPEC §3's verdict rules on what the endpoints answer: interim responses, a portal's
/// target in its page, and a portal's answer from one endpoint while another passes.
@Suite struct ProbeVerdictRulesTests {
    func verdict(_ response: String, _ expectation: ConnectivityCheck.Expectation = .noContent, finished: Bool = true) -> HTTPResponseClassifier.Verdict {
        HTTPResponseClassifier(expectation: expectation, limit: 65536).verdict(Array(response.utf8), finished: finished)
    }

    /// `103 Early Hints` (and any 1xx but 101) before the final response is skipped.
    @Test func interimResponsesAreSkipped() {
        let hints = "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"
        #expect(verdict(hints + "HTTP/1.1 204 No Content\r\n\r\n", finished: false) == .pass(status: 204))
        #expect(verdict("HTTP/1.1 100 Continue\r\n\r\n" + hints + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", finished: false) == .pass(status: 200))
        #expect(verdict(hints, finished: false) == .needMore)
        #expect(verdict(hints) == .malformed(reason: "the HTTP header was cut short"))
        #expect(verdict(hints + "HTTP/1.1 302 Found\r\nLocation: http://portal/\r\n\r\n") ==
                .unexpected(status: 302, location: "http://portal/", reason: "HTTP 302, expected 204 or an empty 200"))
        #expect(verdict(hints + "HTTP/1.1 200 OK\r\n\r\nsuccess", .init(status: 200, bodyPrefix: "success")) == .pass(status: 200))
        #expect(verdict("HTTP/1.1 101 Switching Protocols\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n") ==
                .malformed(reason: "HTTP 101 to a request that asked for no other protocol"))
        #expect(verdict(hints + "garbage\r\n\r\n") == .malformed(reason: "not an HTTP response"))
    }

    /// A login page that names the portal in a meta refresh: its target is the portal's URL.
    @Test(arguments: [
        (#"<meta http-equiv="refresh" content="0; url=http://portal.test/login">"#, "http://portal.test/login"),
        (#"<META HTTP-EQUIV="Refresh" CONTENT="0;URL='/login?a=1&amp;b=2'">"#, "/login?a=1&b=2"),
        (#"<meta content='5, url = "login.html"' http-equiv=refresh />"#, "login.html"),
        (#"<meta name="viewport" content="width=device-width"><meta http-equiv="refresh" content="0;http://p/">"#, "http://p/"),
        (#"<meta http-equiv="refresh" content="30">"#, nil),
        (#"<meta http-equiv="content-type" content="0; url=http://not/">"#, nil),
        (#"<meta http-equiv="refresh" content="0; url=http://cut"#, nil),
        ("<meta http-equiv=\"refresh\" content=\"0; url=http://a/\u{1B}[2J\">", nil),
    ] as [(String, String?)])
    func aMetaRefreshNamesThePortal(tag: String, target: String?) {
        #expect(HTTPResponseClassifier.refreshTarget(in: Array("<html><head>\(tag)</head></html>".utf8)[...]) == target)
    }

    /// The page is read to its end (or the time's) for its refresh target; a relative one is
    /// resolved against the probe URL; without one, `portalURL` is the probe URL itself.
    @Test func aLoginPagesPortalURLIsItsRefreshTargetElseTheProbeURL() throws {
        let page = #"<html><head><meta http-equiv="refresh" content="0; url=/portal/login?x=1"></head></html>"#
        let head = "HTTP/1.1 200 OK\r\nContent-Length: \(page.utf8.count)\r\n\r\n"
        #expect(verdict(head + page.prefix(20), finished: false) == .needMore)
        let reason = "HTTP 200 with content, expected an empty answer"
        let complete = verdict(head + page, finished: false)
        #expect(complete == .unexpected(status: 200, location: "/portal/login?x=1", reason: reason))
        let endpoint = try ConnectivityCheck.Endpoint("http://10.77.0.1:8080/generate_204")
        let withTarget = ProbeVerdict.of([(endpoint, true, complete, nil, .milliseconds(3))])
        #expect(withTarget.connectivity == .portal && withTarget.portalURL == "http://10.77.0.1:8080/portal/login?x=1")
        let plain = verdict("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nPlease log", finished: false)
        #expect(plain == .needMore)
        let classifier = HTTPResponseClassifier(expectation: .noContent, limit: 65536)
        let early = try #require(classifier.portal(in: Array("HTTP/1.1 200 OK\r\nContent-Length: 11\r\n\r\nPlease log".utf8)))
        let withoutTarget = ProbeVerdict.of([(endpoint, true, early, nil, .milliseconds(3))])
        #expect(withoutTarget.connectivity == .portal && withoutTarget.portalURL == "http://10.77.0.1:8080/generate_204" && withoutTarget.httpStatus == 200)
        #expect(classifier.portal(in: Array("HTTP/1.1 204 No Content\r\n\r\n".utf8)) == nil)
        #expect(ProbeVerdict.absolute("?next=1", from: endpoint.target) == "http://10.77.0.1:8080/generate_204?next=1")
    }

    /// A Cisco WLC's captive bypass (Apple's URL passes, every other a redirect) and a
    /// transparent proxy that answers 204 to every URL: against the default endpoints, each
    /// is a portal, and the result names the endpoint that showed it.
    @Test func aPortalAnswerFromAnyDefaultEndpointBeatsAPass() {
        let endpoints = ConnectivityCheck.defaultEndpoints
        func outcomes(_ answer: (ConnectivityCheck.Endpoint) -> String) -> [(endpoint: ConnectivityCheck.Endpoint, resolved: Bool, verdict: HTTPResponseClassifier.Verdict?, error: ConnectivityFailure?, latency: Duration?)] {
            endpoints.map { endpoint in
                let verdict = HTTPResponseClassifier(expectation: endpoint.expectation, limit: 65536).verdict(Array(answer(endpoint).utf8), finished: true)
                return (endpoint, true, verdict, nil, .milliseconds(10))
            }
        }
        let wlc = ProbeVerdict.of(outcomes { endpoint in
            endpoint.url.contains("apple") ? "HTTP/1.1 200 OK\r\n\r\n<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>"
                : "HTTP/1.1 302 Found\r\nLocation: https://1.1.1.1/login.html?redirect=x\r\n\r\n"
        })
        #expect(wlc.connectivity == .portal && wlc.portalURL == "https://1.1.1.1/login.html?redirect=x" && wlc.httpStatus == 302)
        let proxy = ProbeVerdict.of(outcomes { _ in "HTTP/1.1 204 No Content\r\n\r\n" })
        #expect(proxy.connectivity == .portal && proxy.url == endpoints[1].url && proxy.portalURL == endpoints[1].url && proxy.httpStatus == 204)
        #expect(proxy.failure == ConnectivityFailure(.unexpectedAnswer, "HTTP 204, expected 200"))
        let online = ProbeVerdict.of(outcomes { endpoint in
            switch endpoint.url {
            case endpoints[0].url, endpoints[5].url: "HTTP/1.1 204 No Content\r\n\r\n"
            case endpoints[1].url: "HTTP/1.1 200 OK\r\nX-NetworkManager-Status: online\r\n\r\nNetworkManager is online\n"
            case endpoints[2].url: "HTTP/1.1 200 OK\r\n\r\nsuccess\n"
            case endpoints[3].url: "HTTP/1.1 200 OK\r\n\r\nMicrosoft Connect Test"
            default: "HTTP/1.1 200 OK\r\n\r\n<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>"
            }
        })
        #expect(online.connectivity == .full && online.url == endpoints[0].url)
        // The HTTP endpoints pass, Google's over HTTPS meets a certificate that does not
        // verify (an interceptor): limited, naming it (Android's partial connectivity).
        var intercepted = outcomes { endpoint in
            switch endpoint.url {
            case endpoints[0].url: "HTTP/1.1 204 No Content\r\n\r\n"
            case endpoints[1].url: "HTTP/1.1 200 OK\r\nX-NetworkManager-Status: online\r\n\r\nNetworkManager is online\n"
            case endpoints[2].url: "HTTP/1.1 200 OK\r\n\r\nsuccess\n"
            case endpoints[3].url: "HTTP/1.1 200 OK\r\n\r\nMicrosoft Connect Test"
            default: "HTTP/1.1 200 OK\r\n\r\n<HTML><HEAD><TITLE>Success</TITLE></HEAD><BODY>Success</BODY></HTML>"
            }
        }
        let tls = ConnectivityFailure(.tlsFailed, "TLS with 10.0.0.1 port 443 failed: certificate verify failed: unable to get local issuer certificate")
        intercepted[5] = (endpoints[5], true, nil, tls, .milliseconds(12))
        let partial = ProbeVerdict.of(intercepted)
        #expect(partial.connectivity == .limited && partial.url == "https://www.google.com/generate_204" && partial.failure == tls)
    }
}

#if os(Linux) || os(Android)
/// The Linux check's machine under the same rules: when it ends, and what an unreachable
/// error means at each step of a connection.
@Suite struct ProbeMachineVerdictTests {
    typealias Machine = ProbeStateMachine
    static let a = IPAddress("10.77.0.1")!, b = IPAddress("10.77.0.2")!

    func t(_ seconds: Double) -> Instant { Instant(nanoseconds: UInt64(seconds * 1e9)) }

    /// Two literal endpoints, both connected and asked (descriptors 10 and 11).
    func asking(_ first: String, _ second: String) throws -> Machine {
        let check = try ConnectivityCheck(endpoints: [try .init(first), try .init(second)], timeout: .seconds(5))
        var machine = Machine(check: check, servers: [], start: .zero, firstQueryID: 1)
        _ = machine.handle(.started, at: .zero)
        for (index, (fd, address)) in zip([10, 11] as [FileDescriptor], [Self.a, Self.b]).enumerated() {
            _ = machine.handle(.connectStarted(endpoint: index, address: address, .started(fd: fd)), at: .zero)
            _ = machine.handle(.connectFinished(fd: fd, error: nil), at: t(0.01))
            _ = machine.handle(.requestSent(fd: fd, complete: true), at: t(0.01))
        }
        return machine
    }

    func result(_ actions: [Machine.Action]) -> ConnectivityResult? {
        guard case .finish(let result)? = actions.last else { return nil }
        return result
    }

    let noContent = Array("HTTP/1.1 204 No Content\r\n\r\n".utf8)
    let redirect = Array("HTTP/1.1 302 Found\r\nLocation: http://portal.test/login\r\n\r\n".utf8)

    @Test func aPassWaitsForTheOtherEndpointAndLosesToItsPortalAnswer() throws {
        var machine = try asking("http://10.77.0.1/generate_204", "http://10.77.0.2/hotspot")
        #expect(machine.handle(.received(fd: 10, .success(noContent)), at: t(0.05)) == [.close(fd: 10)])
        // The other endpoint gets ProbeStateMachine.passGrace (1 s) more, not the whole timeout.
        #expect(machine.next(at: t(0.05)) == [.wait(until: t(1.05), watching: [.init(fd: 11, interest: .readable)])])
        #expect(machine.handle(.received(fd: 11, .success(redirect)), at: t(0.08)) == [.close(fd: 11)])
        let portal = try #require(result(machine.next(at: t(0.08))))
        #expect(portal.connectivity == .portal && portal.url == "http://10.77.0.2/hotspot" && portal.portalURL == "http://portal.test/login"
                && portal.latencyMilliseconds == 80)
    }

    /// A portal's answer ends the check at once; the endpoint still out is not waited for.
    @Test func aPortalAnswerEndsTheCheckAtOnce() throws {
        var machine = try asking("http://10.77.0.1/generate_204", "http://10.77.0.2/never")
        #expect(machine.handle(.received(fd: 10, .success(redirect)), at: t(0.05)) == [.close(fd: 10)])
        let actions = machine.next(at: t(0.05))
        #expect(actions.first == .close(fd: 11))
        #expect(result(actions)?.connectivity == .portal)
    }

    /// A pass with the other endpoint silent is `full` a grace after the pass (1 s, not the
    /// timeout), with the pass's latency; with the other refused, as soon as it is.
    @Test func aSilentOrFailedEndpointCountsNeitherWay() throws {
        var silent = try asking("http://10.77.0.1/generate_204", "http://10.77.0.2/never")
        _ = silent.handle(.received(fd: 10, .success(noContent)), at: t(0.05))
        #expect(silent.next(at: t(0.05)) == [.wait(until: t(1.05), watching: [.init(fd: 11, interest: .readable)])])
        let full = try #require(result(silent.next(at: t(1.05))))
        #expect(full.connectivity == .full && full.url == "http://10.77.0.1/generate_204" && full.latencyMilliseconds == 50)

        let check = try ConnectivityCheck(endpoints: [try .init("http://10.77.0.1/generate_204"), try .init("http://10.77.0.2:81/")], timeout: .seconds(5))
        var refused = Machine(check: check, servers: [], start: .zero, firstQueryID: 1)
        _ = refused.handle(.started, at: .zero)
        _ = refused.handle(.connectStarted(endpoint: 0, address: Self.a, .started(fd: 10)), at: .zero)
        _ = refused.handle(.connectStarted(endpoint: 1, address: Self.b, .started(fd: 11)), at: .zero)
        _ = refused.handle(.connectFinished(fd: 10, error: nil), at: t(0.01))
        _ = refused.handle(.requestSent(fd: 10, complete: true), at: t(0.01))
        _ = refused.handle(.received(fd: 10, .success(noContent)), at: t(0.02))
        #expect(refused.next(at: t(0.02)) == [.wait(until: t(1.02), watching: [.init(fd: 11, interest: .writable)])])
        _ = refused.handle(.connectFinished(fd: 11, error: Errno(ECONNREFUSED)), at: t(0.03))
        #expect(result(refused.next(at: t(0.03)))?.connectivity == .full)
    }

    /// A login page still coming when the time is up is a portal, its URL the probe URL.
    @Test func aPortalPageCutShortByTheDeadlineIsAPortal() throws {
        var machine = try asking("http://10.77.0.1/generate_204", "http://10.77.0.2/never")
        let page = Array("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n<html><body>Log in".utf8)
        #expect(machine.handle(.received(fd: 10, .success(page)), at: t(0.05)).isEmpty)
        let portal = try #require(result(machine.next(at: t(5))))
        #expect(portal.connectivity == .portal && portal.portalURL == "http://10.77.0.1/generate_204" && portal.httpStatus == 200)
    }

    /// `ENETUNREACH`/`EHOSTUNREACH` once the SYN has left (a router's ICMP) is the network's
    /// answer: `limited`, and a monitor takes it as a verdict. Only a connect that fails at
    /// once is this machine's lack of a route (local: no verdict).
    @Test(arguments: [ENETUNREACH, EHOSTUNREACH])
    func anUnreachableAfterTheSYNIsTheNetworksAnswer(_ code: Int32) throws {
        let check = try ConnectivityCheck(endpoints: [try .init("http://203.0.113.1/generate_204")], timeout: .seconds(5))
        let address = IPAddress("203.0.113.1")!
        var network = Machine(check: check, servers: [], start: .zero, firstQueryID: 1)
        _ = network.handle(.started, at: .zero)
        _ = network.handle(.connectStarted(endpoint: 0, address: address, .started(fd: 10)), at: .zero)
        #expect(network.handle(.connectFinished(fd: 10, error: Errno(code)), at: t(0.002)) == [.close(fd: 10)])
        let answered = try #require(result(network.next(at: t(0.002))))
        #expect(answered.connectivity == .limited && answered.failure?.kind == .connectionFailed && answered.failure?.isLocal == false)
        #expect(!ConnectivitySource.isNoVerdict(answered))

        var local = Machine(check: check, servers: [], start: .zero, firstQueryID: 1)
        _ = local.handle(.started, at: .zero)
        #expect(local.handle(.connectStarted(endpoint: 0, address: address, .connectFailed(Errno(ENETUNREACH))), at: .zero).isEmpty)
        let noRoute = try #require(result(local.next(at: .zero)))
        #expect(noRoute.failure?.kind == .noRoute && ConnectivitySource.isNoVerdict(noRoute))
    }
}
#endif

/// SPEC §3, per network: the families' checks combined as the endpoint rules combine
/// endpoints, and each family's first failing step.
struct FamilyCombinationTests {
    private static let endpoint = try! ConnectivityCheck.Endpoint("http://check.test/204")

    private static func check(_ verdict: HTTPResponseClassifier.Verdict?, _ error: ConnectivityFailure?, resolved: Bool = true) -> ProbeVerdict.FamilyCheck {
        let outcomes: [ProbeVerdict.Outcome] = [(endpoint, resolved, verdict, error, .milliseconds(5))]
        return (ProbeVerdict.of(outcomes, elapsed: .milliseconds(5)), outcomes)
    }

    private static let pass = check(.pass(status: 204), nil)
    private static let portal = check(.unexpected(status: 302, location: "http://portal.test/", reason: "HTTP 302"), nil)
    private static let silent = check(nil, ConnectivityFailure(.timedOut, "no connection within 3.0 seconds"))
    private static let unresolved = check(nil, ConnectivityFailure(.nameNotResolved, "the name 'check.test' did not resolve"), resolved: false)

    @Test func aPortalFromEitherBeatsAPassElseTheBetterOne() throws {
        #expect(ProbeVerdict.combine(ipv4: Self.pass, ipv6: Self.portal)?.connectivity == .portal)
        #expect(ProbeVerdict.combine(ipv4: Self.portal, ipv6: Self.pass)?.connectivity == .portal)
        #expect(ProbeVerdict.combine(ipv4: Self.pass, ipv6: Self.silent)?.connectivity == .full)
        #expect(ProbeVerdict.combine(ipv4: Self.silent, ipv6: Self.pass)?.connectivity == .full)
        #expect(ProbeVerdict.combine(ipv4: Self.silent, ipv6: Self.unresolved)?.connectivity == .limited)
        #expect(ProbeVerdict.combine(ipv4: Self.unresolved, ipv6: Self.unresolved)?.connectivity == .local)
        #expect(ProbeVerdict.combine(ipv4: nil, ipv6: nil) == nil)
        // One family alone is its result, unchanged but for its own verdict beside it.
        let alone = try #require(ProbeVerdict.combine(ipv4: Self.silent, ipv6: nil))
        #expect(alone.connectivity == Self.silent.result.connectivity && alone.failure == Self.silent.result.failure && alone.ipv6 == nil)
    }

    /// A family that passes while the other runs on is the whole check's `full` at once; one
    /// that failed is not (the other may still pass), and the early verdict names no other family.
    @Test func aPassIsShownBeforeTheOtherFamilyEnds() throws {
        let early = try #require(ProbeVerdict.early(Self.pass, family: .ipv6))
        #expect(early.connectivity == .full && early.ipv6?.connectivity == .full && early.ipv4 == nil)
        #expect(ProbeVerdict.early(Self.silent, family: .ipv4) == nil)
        #expect(ProbeVerdict.early(Self.portal, family: .ipv4) == nil)
        #expect(ProbeVerdict.early(Self.unresolved, family: .ipv6) == nil)
    }

    @Test func eachFamilyNamesItsFirstFailingStep() throws {
        let both = try #require(ProbeVerdict.combine(ipv4: Self.unresolved, ipv6: Self.silent))
        #expect(both.ipv4?.failedStep == .dns && both.ipv6?.failedStep == .connection)
        #expect(both.ipv4?.connectivity == .local && both.ipv6?.connectivity == .limited)
        let answered = try #require(ProbeVerdict.combine(ipv4: Self.pass, ipv6: Self.portal))
        #expect(answered.ipv4?.failedStep == nil && answered.ipv6?.failedStep == .http)
        let timedOutAfterConnecting = Self.check(nil, ConnectivityFailure(.timedOut, "no answer within 3.0 seconds", step: .http))
        #expect(ProbeVerdict.combine(ipv4: timedOutAfterConnecting, ipv6: nil)?.ipv4?.failedStep == .http)
        // A gateway that does not answer is the first step, for that family only.
        let gateway = try #require(ProbeVerdict.combine(ipv4: Self.pass, ipv6: Self.silent, gatewayUnresponsive: { $0 == .ipv6 }))
        #expect(gateway.ipv4?.failedStep == nil && gateway.ipv6?.failedStep == .gateway)
        #expect(FamilyConnectivity(connectivity: .limited, failedStep: .gateway).summary(of: .ipv6) == "IPv6: limited — the router does not answer on the link")
    }
}
