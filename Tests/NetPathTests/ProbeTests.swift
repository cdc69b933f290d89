import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem
import NetPathTestKit

@Suite struct HTTPClassifierTests {
    func verdict(_ response: String, _ expectation: ConnectivityCheck.Expectation = .noContent, finished: Bool = true,
                 limit: Int = 65536) -> HTTPResponseClassifier.Verdict {
        HTTPResponseClassifier(expectation: expectation, limit: limit).verdict(Array(response.utf8), finished: finished)
    }

    @Test func defaultExpectationIs204OrEmpty200() {
        #expect(verdict("HTTP/1.1 204 No Content\r\n\r\n") == .pass(status: 204))
        #expect(verdict("HTTP/1.1 204 No Content\r\n\r\n", finished: false) == .pass(status: 204))
        #expect(verdict("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", finished: false) == .pass(status: 200))
        #expect(verdict("HTTP/1.0 200 OK\r\n\r\n") == .pass(status: 200))
        #expect(verdict("HTTP/1.1 200 OK\r\n\r\n", finished: false) == .needMore)
        #expect(verdict("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", finished: false) == .pass(status: 200))
        #expect(verdict("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nlogin") ==
                .unexpected(status: 200, location: nil, reason: "HTTP 200 with content, expected an empty answer"))
        #expect(verdict("HTTP/1.1 302 Found\r\nLocation: http://portal/login\r\n\r\n") ==
                .unexpected(status: 302, location: "http://portal/login", reason: "HTTP 302, expected 204 or an empty 200"))
    }

    @Test func statusBodyAndHeaderExpectations() {
        let body = ConnectivityCheck.Expectation(status: 200, bodyPrefix: "success")
        #expect(verdict("HTTP/1.1 200 OK\r\n\r\nsuccess\n", body) == .pass(status: 200))
        #expect(verdict("HTTP/1.1 200 OK\r\n\r\nsucc", body, finished: false) == .needMore)
        #expect(verdict("HTTP/1.1 200 OK\r\n\r\nsucc", body) == .unexpected(status: 200, location: nil, reason: "the body is shorter than the expected text"))
        // Not the expected text: the rest of the page may name the portal (a meta refresh).
        #expect(verdict("HTTP/1.1 200 OK\r\n\r\n<html>", body, finished: false) == .needMore)
        #expect(verdict("HTTP/1.1 200 OK\r\n\r\n<html>", body) == .unexpected(status: 200, location: nil, reason: "the body is not the expected text"))
        #expect(verdict("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nsuc\r\n5\r\ncess\n\r\n0\r\n\r\n", body) == .pass(status: 200))
        let header = ConnectivityCheck.Expectation(status: 200, header: .init(name: "X-NetworkManager-Status", value: "online"))
        #expect(verdict("HTTP/1.1 200 OK\r\nx-networkmanager-status:  online \r\n\r\nNetworkManager is online\n", header) == .pass(status: 200))
        #expect(verdict("HTTP/1.1 200 OK\r\n\r\n", header) == .unexpected(status: 200, location: nil, reason: "no 'X-NetworkManager-Status: online' header"))
        #expect(verdict("HTTP/1.1 204 No Content\r\n\r\n", ConnectivityCheck.Expectation(status: 200)) ==
                .unexpected(status: 204, location: nil, reason: "HTTP 204, expected 200"))
    }

    /// Bounds are checked, not clamped: a value out of range throws, naming it.
    @Test func aCheckOutOfBoundsThrows() throws {
        for make in [{ try ConnectivityCheck(timeout: .zero) }, { try ConnectivityCheck(timeout: .seconds(301)) },
                     { try ConnectivityCheck(timeout: .seconds(2), resolutionTimeout: .seconds(3)) },
                     { try ConnectivityCheck(resolutionTimeout: .milliseconds(-1)) }, { try ConnectivityCheck(maximumResponseSize: 10) },
                     { try ConnectivityCheck(interval: .zero) }, { try ConnectivityCheck(endpoints: []) }] as [() throws -> ConnectivityCheck] {
            #expect(throws: NetPathError.self) { try make() }
        }
        let short = try ConnectivityCheck(timeout: .seconds(1))
        #expect(short.timeout == .seconds(1) && short.resolutionTimeout == .seconds(1))
        let standard = try ConnectivityCheck()
        #expect(standard.timeout == .seconds(5) && standard.resolutionTimeout == .seconds(3) && standard.interval == nil)
        #expect(ConnectivityCheck.default.timeout == standard.timeout && ConnectivityCheck.default.endpoints == standard.endpoints)
    }

    /// An endpoint's own HTTP error is not a portal's answer; 511 is; an expected error passes.
    @Test func httpErrorsAreTheEndpointsNotAPortal() throws {
        let reason404 = "the endpoint answered HTTP 404, an error, not a portal's page"
        #expect(verdict("HTTP/1.1 404 Not Found\r\nContent-Length: 9\r\n\r\nnot here\n") == .httpError(status: 404, reason: reason404))
        #expect(verdict("HTTP/1.1 503 Busy\r\n\r\n", finished: false) ==
                .httpError(status: 503, reason: "the endpoint answered HTTP 503, an error, not a portal's page"))
        #expect(verdict("HTTP/1.1 511 Network Authentication Required\r\n\r\n") ==
                .unexpected(status: 511, location: nil, reason: "HTTP 511, expected 204 or an empty 200"))
        #expect(verdict("HTTP/1.1 404 Not Found\r\n\r\n", ConnectivityCheck.Expectation(status: 404)) == .pass(status: 404))
        let a = try ConnectivityCheck.Endpoint("http://a.test/"), b = try ConnectivityCheck.Endpoint("http://b.test/")
        let limited = ProbeVerdict.of([(a, true, .httpError(status: 404, reason: reason404), nil, .milliseconds(4)), (b, true, nil, ConnectivityFailure(.connectionFailed, "refused"), nil)])
        #expect(limited.connectivity == .limited && limited.httpStatus == 404 && limited.failure == ConnectivityFailure(.httpError, reason404) && limited.url == "http://a.test/")
        let portal = ProbeVerdict.of([(a, true, .httpError(status: 404, reason: reason404), nil, .milliseconds(4)),
                                      (b, true, .unexpected(status: 302, location: "/login", reason: "r"), nil, .milliseconds(3))])
        #expect(portal.connectivity == .portal)
    }

    @Test func brokenServersAreMalformedNotCrashes() {
        #expect(verdict("\u{7}\u{1}garbage") == .malformed(reason: "not an HTTP response"))
        #expect(verdict("", finished: true) == .malformed(reason: "no answer before the connection closed"))
        #expect(verdict("HTTP/1.1 200 OK\r\nX: y", finished: true) == .malformed(reason: "the HTTP header was cut short"))
        #expect(verdict("HTTP/1.1 2000 OK\r\n\r\n") == .malformed(reason: "not an HTTP response"))
        #expect(verdict("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n") == .malformed(reason: "malformed HTTP header line"))
        // The fuzzer's find (Fuzz/regressions/http-1): a negative chunk size once trapped.
        #expect(verdict("HTTP/1.1 200\nTransfer-Encoding:chunked\n\n-1\n") ==
                .unexpected(status: 200, location: nil, reason: "HTTP 200 with content, expected an empty answer"))
        #expect(verdict("HTTP/1.1 200\nTransfer-Encoding:chunked\n\nzz\nsuccess", .init(status: 200, bodyPrefix: "success")) ==
                .unexpected(status: 200, location: nil, reason: "the body is not the expected text"))
        let huge = "HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "a", count: 70_000)
        #expect(verdict(String(huge.prefix(65536)), limit: 65536) == .malformed(reason: "no complete HTTP header within 65536 bytes"))
        var generator = SplitMix(seed: 7)
        let classifier = HTTPResponseClassifier(expectation: .init(status: 200, bodyPrefix: "ok"), limit: 4096)
        for _ in 0..<20_000 {
            var bytes = Array("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n2\r\nok\r\n".utf8)
            for _ in 0..<3 { bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next()) }
            bytes = Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count + 1))))
            _ = classifier.verdict(bytes, finished: generator.next() % 2 == 0)
        }
    }
}

@Suite struct DNSAndURLTests {
    @Test func queriesAndAnswersRoundTrip() throws {
        let query = try #require(DNSMessage.query(id: 0x1234, name: "check.test", type: DNSMessage.typeA))
        let question = Array(query[12..<(query.count - 11)])
        #expect(question == [5] + Array("check".utf8) + [4] + Array("test".utf8) + [0, 0, 1, 0, 1])
        // The server's answer: the question, then a CNAME (skipped) and an A record, both
        // with compressed names.
        var answer = [0x12, 0x34, 0x81, 0x80, 0, 1, 0, 2, 0, 0, 0, 0] + question
        answer += [0xC0, 12, 0, 5, 0, 1, 0, 0, 0, 60, 0, 2, 0xC0, 12]
        answer += [0xC0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 10, 77, 0, 1]
        #expect(DNSMessage.parse(answer, id: 0x1234, type: DNSMessage.typeA) == .addresses([IPAddress("10.77.0.1")!]))
        #expect(DNSMessage.parse(answer, id: 0x9999, type: DNSMessage.typeA) == .invalid)
        var nxdomain = Array(answer[0..<12]) + question
        nxdomain[3] = 0x83
        nxdomain[7] = 0
        #expect(DNSMessage.parse(nxdomain, id: 0x1234, type: DNSMessage.typeA) == .noAddress(rcode: 3))
        #expect(DNSMessage.query(id: 1, name: String(repeating: "a", count: 64) + ".test", type: 1) == nil)
        var generator = SplitMix(seed: 53)
        for _ in 0..<20_000 {
            var bytes = answer
            for _ in 0..<4 { bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next()) }
            _ = DNSMessage.parse(Array(bytes.prefix(Int(generator.next() % UInt64(bytes.count + 1)))), id: 0x1234, type: 1)
        }
    }

    /// Every query offers EDNS0 with a 1232-byte payload (one OPT record, version 0, no
    /// flags), as DNS Flag Day 2020 settled.
    @Test func queriesCarryAnEDNS0Record() throws {
        let query = try #require(DNSMessage.query(id: 0x0102, name: "check.test.", type: DNSMessage.typeAAAA))
        #expect(Array(query[0..<12]) == [0x01, 0x02, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 1])
        #expect(Array(query.suffix(11)) == [0, 0, 41, 0x04, 0xD0, 0, 0, 0, 0, 0, 0])
        #expect(Array(query[12..<(query.count - 11)]) == [5] + Array("check".utf8) + [4] + Array("test".utf8) + [0, 0, 28, 0, 1])
    }

    /// glibc's rules, read from the header: TC asks again over TCP; NOERROR and NXDOMAIN
    /// settle the name, a server's failure does not.
    @Test func truncatedAndDefinitiveAnswersAreTold() throws {
        let query = try #require(DNSMessage.query(id: 7, name: "big.test", type: DNSMessage.typeA))
        let question = Array(query[12..<(query.count - 11)])
        func header(_ flags: UInt8, _ rcode: UInt8) -> [UInt8] { [0, 7, flags, 0x80 | rcode, 0, 1, 0, 0, 0, 0, 0, 0] + question }
        #expect(DNSMessage.parse(header(0x83, 0), id: 7, type: DNSMessage.typeA) == .truncated)  // QR, TC, RD
        #expect(DNSMessage.parse(header(0x81, 3), id: 7, type: DNSMessage.typeA) == .noAddress(rcode: 3))
        #expect(DNSMessage.Answer.noAddress(rcode: 3).isDefinitive && DNSMessage.Answer.noAddress(rcode: 0).isDefinitive)
        #expect(DNSMessage.Answer.addresses([IPAddress("10.0.0.1")!]).isDefinitive)
        for rcode: UInt8 in [1, 2, 4, 5] { #expect(!DNSMessage.Answer.noAddress(rcode: rcode).isDefinitive) }
        #expect(!DNSMessage.Answer.truncated.isDefinitive && !DNSMessage.Answer.invalid.isDefinitive)
        #expect(DNSMessage.rcodeName(2) == "SERVFAIL" && DNSMessage.rcodeName(5) == "REFUSED" && DNSMessage.rcodeName(9) == "rcode 9")
    }

    /// Over TCP a message follows its length in two bytes; one read may hold part of it.
    @Test func tcpFramingRoundTrips() throws {
        let message = try #require(DNSMessage.query(id: 9, name: "check.test", type: DNSMessage.typeA))
        let framed = DNSMessage.framed(message)
        #expect(framed.prefix(2) == [0, UInt8(message.count)] && Array(framed.dropFirst(2)) == message)
        #expect(DNSMessage.unframed(Array(framed.prefix(1))) == nil)
        #expect(DNSMessage.unframed(Array(framed.dropLast())) == nil)
        #expect(DNSMessage.unframed(framed + [0xFF]) == message)
        let long = [UInt8](repeating: 0xAB, count: 300)
        #expect(DNSMessage.framed(long).prefix(2) == [1, 44] && DNSMessage.unframed(DNSMessage.framed(long)) == long)
    }

    @Test func urlsAreParsedOrRejectedWithTheirReason() throws {
        let target = try HTTPTarget("http://Check.Test:8080/a/b?x=1#frag")
        #expect(target.host == "check.test" && target.port == 8080 && target.path == "/a/b?x=1" && target.hostHeader == "check.test:8080")
        let v6 = try HTTPTarget("http://[fd77::1]/204")
        #expect(v6.address == IPAddress("fd77::1") && v6.hostHeader == "[fd77::1]" && v6.port == 80)
        #expect(try HTTPTarget("http://10.0.0.1").path == "/")
        for (url, reason) in [
            ("https://", "is not a host name"), ("ftp://x/", "must start with http:// or https://"),
            ("http://", "is not a host name"), ("http://a b/", "spaces"), ("http://x:99999/", "is not a port"),
            ("http://[fd77::1/", "unclosed"), ("http://user@x/", "user information"), ("http://bad_host!/", "is not a host name"),
        ] {
            let error = try #require(throws: NetPathError.self) { try HTTPTarget(url) }
            #expect(error.message.contains(url) && error.message.contains(reason), "\(error.message)")
        }
        #expect(throws: NetPathError.self) { try ConnectivityCheck.Endpoint("http://x/", expecting: .init(status: 700)) }
        #expect(ConnectivityCheck.defaultEndpoints.count == 6)
        #expect(Set(ConnectivityCheck.defaultEndpoints.map(\.target.host)).count == 6)
        // Five operators over HTTP, and Google's over HTTPS (Android's pair).
        #expect(ConnectivityCheck.defaultEndpoints.filter(\.target.isTLS).map(\.url) == ["https://www.google.com/generate_204"])
    }

    @Test func verdictsFollowSpecOrder() throws {
        let a = try ConnectivityCheck.Endpoint("http://a.test/"), b = try ConnectivityCheck.Endpoint("http://b.test/")
        // A portal's answer from one endpoint while another passes is a portal (SPEC §3).
        let bypass = ProbeVerdict.of([(a, true, .unexpected(status: 302, location: "/login", reason: "r"), nil, .milliseconds(5)), (b, true, .pass(status: 204), nil, .milliseconds(9))])
        #expect(bypass.connectivity == .portal && bypass.url == "http://a.test/" && bypass.httpStatus == 302 && bypass.portalURL == "http://a.test/login")
        let full = ProbeVerdict.of([(a, true, nil, ConnectivityFailure(.timedOut, "t"), nil), (b, true, .pass(status: 204), nil, .milliseconds(9))])
        #expect(full.connectivity == .full && full.url == "http://b.test/" && full.httpStatus == 204 && full.latencyMilliseconds == 9)
        let portal = ProbeVerdict.of([(a, true, .malformed(reason: "x"), ConnectivityFailure(.malformedAnswer, "x"), nil), (b, true, .unexpected(status: 302, location: "/login", reason: "r"), nil, .milliseconds(3))])
        #expect(portal.connectivity == .portal && portal.portalURL == "http://b.test/login")
        let limited = ProbeVerdict.of([(a, false, nil, ConnectivityFailure(.dnsFailure, "no DNS"), nil), (b, true, nil, ConnectivityFailure(.connectionFailed, "refused"), nil)])
        #expect(limited.connectivity == .limited && limited.failure?.message == "refused")
        let local = ProbeVerdict.of([(a, false, nil, ConnectivityFailure(.nameNotResolved, "the name 'a.test' did not resolve"), nil)])
        #expect(local.connectivity == .local && local.failure?.message == "the name 'a.test' did not resolve")
    }
}

/// The check's schedule, with a hand-driven clock and checker: no sleeps, no network.
@Suite struct ConnectivityScheduleTests {
    final class ManualClock: ProbeClock, @unchecked Sendable {
        struct Timer { var at: Instant; var work: @Sendable () -> Void; var cancelled: Locked<Bool> }
        // Guarded by `mutex`.
        private let mutex = Locked<(now: Instant, timers: [Timer])>((.zero, []))
        final class Handle: ScheduledWork { let flag: Locked<Bool>; init(_ f: Locked<Bool>) { flag = f }; func cancel() { flag.withLock { $0 = true } } }

        func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> any ScheduledWork {
            let flag = Locked(false)
            mutex.withLock { $0.timers.append(Timer(at: $0.now + delay, work: work, cancelled: flag)) }
            return Handle(flag)
        }

        /// Pending timers' delays from now, in order.
        var pending: [Duration] {
            mutex.withLock { state in state.timers.filter { !$0.cancelled.withLock { $0 } }.map { $0.at - state.now } }
        }

        func advance(by duration: Duration) {
            let due: [Timer] = mutex.withLock { state in
                state.now += duration
                let due = state.timers.filter { $0.at <= state.now }
                state.timers.removeAll { $0.at <= state.now }
                return due
            }
            for timer in due where !timer.cancelled.withLock({ $0 }) { timer.work() }
        }
    }

    final class ManualChecker: @unchecked Sendable {
        // Guarded by `mutex`.
        private let mutex = Locked<[(path: NetworkPath, early: @Sendable (ConnectivityResult) -> Void,
                                     completion: @Sendable (ConnectivityResult) -> Void, cancelled: Locked<Bool>)]>([])
        var checker: ConnectivityChecker {
            { [self] path, early, completion in
                let flag = Locked(false)
                mutex.withLock { $0.append((path, early, completion, flag)) }
                return ManualClock.Handle(flag)
            }
        }
        /// The last check's one family passing while the other still runs.
        func answerEarly(_ result: ConnectivityResult) {
            let early = mutex.withLock { $0.last!.early }
            early(result)
        }
        var count: Int { mutex.withLock { $0.count } }
        func isCancelled(_ index: Int) -> Bool { mutex.withLock { $0[index].cancelled.withLock { $0 } } }
        var lastCompletion: @Sendable (ConnectivityResult) -> Void { mutex.withLock { $0.last!.completion } }
        func answer(_ connectivity: Connectivity, portal: String? = nil, failure: ConnectivityFailure? = nil) {
            let completion = mutex.withLock { $0.last!.completion }
            completion(ConnectivityResult(connectivity: connectivity, portalURL: portal, failure: failure))
        }
    }

    func make(interval: Duration? = nil, allowingUltraConstrained: Bool = false, costs: InterfaceCosts = InterfaceCosts())
        throws -> (PathMonitor, SimulatedNetwork, ManualClock, ManualChecker, Locked<[NetworkPath]>) {
        let network = SimulatedNetwork(.online(.wifi))
        let clock = ManualClock(), checker = ManualChecker()
        let check = try ConnectivityCheck(interval: interval,
                                          allowsUltraConstrainedPaths: allowingUltraConstrained)
        let configuration = PathMonitor.Configuration(
            connectivityCheck: check, meteredInterfaces: costs.metered, constrainedInterfaces: costs.constrained,
            ultraConstrainedInterfaces: costs.ultraConstrained
        )
        let monitor = PathMonitor(configuration: configuration, backend: network.factory, clock: clock, checker: checker.checker)
        let seen = Locked<[NetworkPath]>([])
        monitor.pathUpdateHandler = { path in seen.withLock { $0.append(path) } }
        try monitor.start()
        return (monitor, network, clock, checker, seen)
    }

    /// A path that differs only in its DNS servers (resolv.conf rewritten after the routes
    /// came up) cancels the check in flight and starts another at once, as a path change
    /// does, but users see no new path: the verdict shown stays until the new check's.
    @Test func otherDNSServersRestartTheCheckWithoutANewPath() throws {
        let (monitor, network, clock, checker, seen) = try make()
        defer { monitor.cancel() }
        var path = NetworkPath.online(.wifi)
        path.dnsServers = ["10.78.0.9"]
        network.send(path)
        #expect(checker.count == 2 && checker.isCancelled(0))
        let before = seen.withLock { $0.count }
        path.dnsServers = ["10.78.0.1"]
        network.send(path)
        #expect(checker.count == 3 && checker.isCancelled(1) && seen.withLock { $0.count } == before)
        checker.answer(.full)
        #expect(monitor.currentPath?.connectivity == .full && seen.withLock { $0.count } == before + 1)
        // With a verdict in: other servers check again, and `full` stays shown meanwhile.
        path.dnsServers = ["10.78.0.1", "10.78.0.2"]
        network.send(path)
        #expect(checker.count == 4 && monitor.currentPath?.connectivity == .full && seen.withLock { $0.count } == before + 1)
        #expect(clock.pending.isEmpty)
        checker.answer(.full)
        #expect(seen.withLock { $0.count } == before + 1)
    }

    /// One family passing while the other's check runs (IPv6 forwarding nothing, which only
    /// its timeout ends) shows `full` at once, the other family `unknown`, and the check goes
    /// on: its end gives the other family's verdict, with no new check started meanwhile.
    @Test func oneFamilysPassIsShownBeforeTheOthersTimeout() throws {
        let (monitor, network, clock, checker, seen) = try make()
        defer { monitor.cancel() }
        network.send(.online(.wifi))
        let checks = checker.count
        var ipv4 = ConnectivityResult(connectivity: .full)
        ipv4.ipv4 = FamilyConnectivity(connectivity: .full)
        checker.answerEarly(ipv4)
        #expect(monitor.currentPath?.connectivity == .full)
        #expect(monitor.currentPath?.connectivity(for: .ipv4) == .full && monitor.currentPath?.connectivity(for: .ipv6) == .unknown)
        #expect(checker.count == checks && !checker.isCancelled(checks - 1) && clock.pending.isEmpty)
        let shown = seen.withLock { $0.count }
        var whole = ipv4
        whole.ipv6 = FamilyConnectivity(connectivity: .limited, failedStep: .connection)
        let completion = checker.lastCompletion
        completion(whole)
        #expect(monitor.currentPath?.connectivity == .full && monitor.currentPath?.connectivity(for: .ipv6) == .limited)
        #expect(seen.withLock { $0.count } == shown + 1 && checker.count == checks)
        // Only a pass is shown early: a family that failed waits for the other.
        network.send(.online(.wiredEthernet))
        checker.answerEarly(ConnectivityResult(connectivity: .limited))
        #expect(monitor.currentPath?.connectivity == .unknown)
    }

    /// A family that passes before the checker has returned its handle (its thread outran
    /// the one that started it; seen under ThreadSanitizer) is shown all the same, and the
    /// check's end still gives the other family's verdict.
    @Test func aPassBeforeTheCheckerReturnsIsShown() throws {
        let network = SimulatedNetwork(.online(.wifi))
        var ipv4 = ConnectivityResult(connectivity: .full)
        ipv4.ipv4 = FamilyConnectivity(connectivity: .full)
        let completions = Locked<[@Sendable (ConnectivityResult) -> Void]>([])
        let passed = ipv4
        let checker: ConnectivityChecker = { _, early, completion in
            early(passed)
            completions.withLock { $0.append(completion) }
            return nil
        }
        let monitor = PathMonitor(configuration: .init(connectivityCheck: try ConnectivityCheck()), backend: network.factory,
                                  clock: ManualClock(), checker: checker)
        try monitor.start()
        defer { monitor.cancel() }
        #expect(monitor.currentPath?.connectivity == .full && monitor.currentPath?.connectivity(for: .ipv6) == .unknown)
        var whole = ipv4
        whole.ipv6 = FamilyConnectivity(connectivity: .limited, failedStep: .connection)
        let completion = try #require(completions.withLock { $0.last })
        completion(whole)
        #expect(monitor.currentPath?.connectivity(for: .ipv6) == .limited)
    }

    /// The network's identity becoming known (the kernel learned the gateway's address, often
    /// from the check's own packets) is a new path, but the same network: the check in flight
    /// is not started again, and a verdict shown stays. Another network checks again.
    @Test func aNetworkThatBecomesKnownKeepsTheCheck() throws {
        let (monitor, network, _, checker, seen) = try make()
        defer { monitor.cancel() }
        var path = NetworkPath.online(.wifi)
        network.send(path)
        let checks = checker.count
        path.network = "0123456789abcdef"
        network.send(path)
        #expect(checker.count == checks && !checker.isCancelled(checks - 1))
        #expect(monitor.currentPath?.network == "0123456789abcdef" && monitor.currentPath?.connectivity == .unknown)
        checker.answer(.full)
        #expect(monitor.currentPath?.connectivity == .full)
        let shown = seen.withLock { $0.count }
        path.network = "fedcba9876543210"
        network.send(path)
        #expect(checker.count == checks + 1 && monitor.currentPath?.connectivity == .unknown && seen.withLock { $0.count } == shown + 1)
        // Forgotten, then learned again: the verdict shown stays.
        checker.answer(.full)
        path.network = nil
        network.send(path)
        checker.answer(.full)
        path.network = "fedcba9876543210"
        network.send(path)
        #expect(checker.count == checks + 2 && monitor.currentPath?.connectivity == .full)
    }

    /// The desktop checks (NetworkManager's verdict on the path): nothing is sent with the
    /// default endpoints, and its verdict stands; configured endpoints are asked anyway.
    @Test func theDesktopsVerdictStandsForTheDefaultEndpoints() throws {
        var verdict = NetworkPath.online(.wifi)
        verdict.connectivity = .full
        verdict.connectivitySource = .networkManager
        let network = SimulatedNetwork(verdict)
        let clock = ManualClock(), checker = ManualChecker()
        let monitor = PathMonitor(configuration: .init(connectivityCheck: .default), backend: network.factory,
                                  clock: clock, checker: checker.checker)
        try monitor.start()
        defer { monitor.cancel() }
        #expect(checker.count == 0 && clock.pending.isEmpty)
        #expect(monitor.currentPath?.connectivity == .full && monitor.currentPath?.connectivitySource == .networkManager)
        // NM says portal, and has no address to log in at: one check of ours finds it; NM's
        // verdict stands, and nothing more is sent once it is found.
        var portal = verdict
        portal.connectivity = .portal
        network.send(portal)
        #expect(checker.count == 1 && monitor.currentPath?.connectivity == .portal && monitor.currentPath?.portalURL == nil)
        checker.answer(.portal, portal: "http://portal.test/login")
        #expect(monitor.currentPath?.connectivity == .portal && monitor.currentPath?.portalURL == "http://portal.test/login"
                && monitor.currentPath?.connectivitySource == .networkManager && clock.pending.isEmpty)
        // A check that saw nothing is tried again, with back-off, until it sees the portal.
        network.send(verdict)
        network.send(portal)
        #expect(checker.count == 2)
        checker.answer(.limited)
        #expect(monitor.currentPath?.portalURL == nil && monitor.currentPath?.connectivity == .portal && clock.pending.count == 1)
        // The user switched NM's check off: still nothing sent, and no verdict.
        var off = NetworkPath.online(.wifi)
        off.connectivitySource = .networkManager
        network.send(off)
        #expect(checker.count == 2 && monitor.currentPath?.connectivity == .unknown && clock.pending.isEmpty)

        let configured = try ConnectivityCheck(endpoints: [.init("http://check.test/204")])
        let own = PathMonitor(configuration: .init(connectivityCheck: configured), backend: SimulatedNetwork(verdict).factory,
                              clock: clock, checker: checker.checker)
        try own.start()
        defer { own.cancel() }
        #expect(checker.count == 3 && own.currentPath?.connectivity == .unknown)
        checker.answer(.full)
        #expect(own.currentPath?.connectivity == .full && own.currentPath?.connectivitySource == .check)
    }

    /// A captive-portal URL the network announced (networkd) is `portal` with that URL until
    /// a check passes: a walled garden that drops the check reads `portal`, not `limited`.
    @Test func anAnnouncedPortalStandsUntilACheckPasses() throws {
        var announced = NetworkPath.online(.wifi)
        announced.connectivity = .portal
        announced.portalURL = "http://10.202.0.1/portal"
        announced.connectivitySource = .systemdNetworkd
        let clock = ManualClock(), checker = ManualChecker()
        let monitor = PathMonitor(configuration: .init(connectivityCheck: .default), backend: SimulatedNetwork(announced).factory,
                                  clock: clock, checker: checker.checker)
        try monitor.start()
        defer { monitor.cancel() }
        #expect(checker.count == 1 && monitor.currentPath?.portalURL == "http://10.202.0.1/portal")
        checker.answer(.limited)
        #expect(monitor.currentPath?.connectivity == .portal && monitor.currentPath?.connectivitySource == .systemdNetworkd)
        clock.advance(by: .seconds(1))
        checker.answer(.full)
        #expect(monitor.currentPath?.connectivity == .full && monitor.currentPath?.connectivitySource == .check)
    }

    @Test func checksOnStartBacksOffWhileNotFullAndStopsWhenFull() throws {
        let (monitor, _, clock, checker, seen) = try make()
        defer { monitor.cancel() }
        #expect(monitor.currentPath?.connectivity == .unknown && checker.count == 1)
        checker.answer(.portal, portal: "http://portal.test/login")
        #expect(monitor.currentPath?.connectivity == .portal && monitor.currentPath?.portalURL == "http://portal.test/login")
        var delays: [Duration] = []
        for _ in 0..<12 {
            delays.append(clock.pending.first ?? .seconds(-1))
            clock.advance(by: clock.pending.first ?? .zero)
            checker.answer(.limited)
        }
        #expect(delays == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300, 300].map { Duration.seconds($0) })
        clock.advance(by: .seconds(300))
        checker.answer(.full)
        #expect(monitor.currentPath?.connectivity == .full)
        // While full: no timer, no traffic.
        #expect(clock.pending.isEmpty)
        let checks = checker.count
        clock.advance(by: .seconds(86_400))
        #expect(checker.count == checks)
        #expect(seen.withLock { $0 }.map(\.connectivity) == [.unknown, .portal, .limited, .full])
    }

    @Test func aPathChangeCancelsTheCheckInFlightAndResetsTheBackoff() throws {
        let (monitor, network, clock, checker, _) = try make()
        defer { monitor.cancel() }
        checker.answer(.limited)
        clock.advance(by: .seconds(1))
        checker.answer(.limited)
        #expect(clock.pending == [.seconds(2)])
        clock.advance(by: .seconds(2))  // a third check is in flight…
        #expect(checker.count == 3 && !checker.isCancelled(2))
        network.send(.online(.cellular))  // …when the path changes: it is cancelled, a new one starts
        #expect(checker.isCancelled(2) && checker.count == 4 && !checker.isCancelled(3))
        #expect(monitor.currentPath?.connectivity == .unknown && monitor.currentPath?.availableInterfaces.first?.type == .cellular)
        checker.answer(.limited)
        #expect(clock.pending == [.seconds(1)])
        // The path is lost: `offline` at once, the timer cancelled, nothing sent.
        network.send(.offline(.noCarrier))
        #expect(monitor.currentPath?.connectivity == Connectivity.offline && clock.pending.isEmpty)
        clock.advance(by: .seconds(1000))
        #expect(checker.count == 4)
    }

    @Test func anIntervalRechecksWhileFull() throws {
        let (monitor, _, clock, checker, _) = try make(interval: .seconds(600))
        defer { monitor.cancel() }
        checker.answer(.full)
        #expect(clock.pending == [.seconds(600)])
        clock.advance(by: .seconds(600))
        #expect(checker.count == 2)
    }

    /// No check on an ultra-constrained path (a satellite link) unless the check allows it,
    /// as an app must opt in with `allowUltraConstrainedPaths`: the verdict stays `unknown`.
    @Test func anUltraConstrainedPathIsCheckedOnlyWhenAllowed() throws {
        // Configured by name: the monitor's own costs mark the path before the check looks.
        let (monitor, network, clock, checker, _) = try make(costs: InterfaceCosts(ultraConstrained: ["sat*"]))
        defer { monitor.cancel() }
        checker.answer(.full)
        #expect(checker.count == 1)
        network.send(.online(.wiredEthernet, name: "sat0"))
        #expect(checker.count == 1 && clock.pending.isEmpty)
        #expect(monitor.currentPath?.isUltraConstrained == true && monitor.currentPath?.connectivity == .unknown)
        clock.advance(by: .seconds(86_400))
        #expect(checker.count == 1)
        // Reported so by the system (iOS 26): the same.
        var satellite = NetworkPath.online(.cellular)
        satellite.isUltraConstrained = true
        network.send(satellite)
        #expect(checker.count == 1 && monitor.currentPath?.connectivity == .unknown)
        network.send(.online(.wifi))
        #expect(checker.count == 2)

        let (allowed, allowedNetwork, _, allowedChecker, _) = try make(allowingUltraConstrained: true)
        defer { allowed.cancel() }
        allowedNetwork.send(satellite)
        #expect(allowedChecker.count == 2)
        allowedChecker.answer(.full)
        #expect(allowed.currentPath?.connectivity == .full && allowed.currentPath?.isUltraConstrained == true)
    }

    /// A check that fails because this machine has no route for it (the path is being lost:
    /// `ENETUNREACH` at connect) gives no verdict: connectivity stays `unknown`, and the
    /// check runs again after the back-off.
    @Test func aLocalFailureIsNoVerdict() throws {
        let (monitor, _, clock, checker, seen) = try make()
        defer { monitor.cancel() }
        checker.answer(.limited, failure: ConnectivityFailure(.noRoute, "cannot connect to 10.77.0.1: Network is unreachable"))
        #expect(monitor.currentPath?.connectivity == .unknown && clock.pending == [.seconds(1)])
        clock.advance(by: .seconds(1))
        #expect(checker.count == 2)
        checker.answer(.limited, failure: ConnectivityFailure(.timedOut, "no answer within 5 s"))
        #expect(monitor.currentPath?.connectivity == .limited)
        #expect(seen.withLock { $0 }.map(\.connectivity) == [.unknown, .limited])
        #expect(ConnectivityFailure(.noRoute, "").isLocal && !ConnectivityFailure(.noNAT64, "").isLocal)
    }

    @Test func cancelStopsEverything() throws {
        let (monitor, _, clock, checker, _) = try make()
        checker.answer(.limited)
        monitor.cancel()
        clock.advance(by: .seconds(10))
        #expect(checker.count == 1 && clock.pending.isEmpty)
    }
}
