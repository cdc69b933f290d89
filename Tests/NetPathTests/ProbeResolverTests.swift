#if os(Linux) || os(Android)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

private func t(_ seconds: Double) -> Instant { Instant(nanoseconds: UInt64(seconds * 1e9)) }

/// The check's resolver, driven by hand with byte fixtures (SPEC §3: it follows glibc): a
/// definitive answer from one server is final, TC asks again over TCP, the resolution
/// deadline ends endpoints whose connections all failed, and a loopback or unspecified
/// answer is a filtering resolver's. Two servers, the first of which is dead unless a test
/// says otherwise; timeout 5 s, resolution timeout 3 s.
@Suite struct ProbeResolverTests {
    typealias Machine = ProbeStateMachine
    static let first = IPAddress("10.78.0.9")!
    static let second = IPAddress("10.78.0.1")!
    static let endpoint = IPAddress("10.78.0.1")!

    /// A check of `url` whose queries went out from descriptors 20 (first server, A),
    /// 21 (first, AAAA), 22 (second, A), 23 (second, AAAA).
    func resolving(_ url: String) throws -> (Machine, [Machine.Query]) {
        let check = try ConnectivityCheck(endpoints: [try .init(url)], timeout: .seconds(5), resolutionTimeout: .seconds(3))
        var machine = Machine(check: check, servers: [Self.first, Self.second], start: .zero, firstQueryID: 100)
        let queries = machine.handle(.started, at: .zero).compactMap { action -> Machine.Query? in
            if case .openQuery(let query) = action { query } else { nil }
        }
        #expect(queries.map(\.server) == [Self.first, Self.first, Self.second, Self.second])
        #expect(queries.map(\.type) == [DNSMessage.typeA, DNSMessage.typeAAAA, DNSMessage.typeA, DNSMessage.typeAAAA])
        #expect(queries.allSatisfy { !$0.overTCP })
        for (offset, query) in queries.enumerated() {
            #expect(machine.handle(.querySent(query, fd: FileDescriptor(rawValue: Int32(20 + offset))), at: .zero).isEmpty)
        }
        return (machine, queries)
    }

    /// A server's answer to `query`: `flags` (QR RD and TC), `rcode`, the question, one
    /// record per address.
    func answer(_ query: Machine.Query, _ addresses: [IPAddress] = [], rcode: UInt8 = 0, truncated: Bool = false) -> [UInt8] {
        var bytes = [UInt8(query.id >> 8), UInt8(query.id & 0xFF), truncated ? 0x83 : 0x81, 0x80 | rcode, 0, 1, 0, UInt8(addresses.count), 0, 0, 0, 0]
        bytes += query.bytes[12..<(query.bytes.count - 11)]
        for address in addresses {
            let data = Fixture.addressBytes(address)
            bytes += [0xC0, 12, UInt8(query.type >> 8), UInt8(query.type & 0xFF), 0, 1, 0, 0, 0, 60, 0, UInt8(data.count)] + data
        }
        return bytes
    }

    func finishResult(_ actions: [Machine.Action]) -> ConnectivityResult? {
        guard case .finish(let result)? = actions.last else { return nil }
        return result
    }

    /// NXDOMAIN from the first server is the name's truth: the check ends at once, `local`,
    /// with a not-found failure (it waited for the other server until the resolution
    /// deadline and said "timed out").
    @Test func nxdomainFromOneServerIsFinal() throws {
        var (machine, queries) = try resolving("http://nowhere.test/")
        #expect(machine.handle(.received(fd: 20, .success(answer(queries[0], rcode: 3))), at: t(0.01)) == [.close(fd: 20), .close(fd: 22)])
        #expect(machine.handle(.received(fd: 21, .success(answer(queries[1], rcode: 3))), at: t(0.01)) == [.close(fd: 21), .close(fd: 23)])
        let result = try #require(finishResult(machine.next(at: t(0.01))))
        #expect(result.connectivity == .local && result.failure == ConnectivityFailure(.nameNotResolved, "the name 'nowhere.test' did not resolve"))
        #expect(result.latencyMilliseconds == 10)
    }

    /// A dead first server and an endpoint that resets the connection: the second server's
    /// answer is final, so the reset ends the check at once (it waited 5 s).
    @Test func aDeadServerDoesNotHoldAFailedConnection() throws {
        var (machine, queries) = try resolving("http://check.test:81/204")
        #expect(machine.handle(.received(fd: 22, .success(answer(queries[2], [Self.endpoint]))), at: t(0.01))
                == [.close(fd: 22), .connect(endpoint: 0, address: Self.endpoint, port: 81), .close(fd: 20)])
        #expect(machine.handle(.received(fd: 23, .success(answer(queries[3]))), at: t(0.01)) == [.close(fd: 23), .close(fd: 21)])
        _ = machine.handle(.connectStarted(endpoint: 0, address: Self.endpoint, .started(fd: 30)), at: t(0.01))
        #expect(machine.next(at: t(0.01)) == [.wait(until: t(5), watching: [.init(fd: 30, interest: .writable)])])
        #expect(machine.handle(.connectFinished(fd: 30, error: Errno(ECONNREFUSED)), at: t(0.02)) == [.close(fd: 30)])
        let result = try #require(finishResult(machine.next(at: t(0.02))))
        #expect(result.connectivity == .limited && result.latencyMilliseconds == 20)
        #expect(result.failure == ConnectivityFailure(.connectionFailed, "cannot connect to 10.78.0.1 port 81: Connection refused"))
    }

    /// A server's failure (SERVFAIL, REFUSED, a port unreachable) is not the name's truth:
    /// the other server is waited for, and when every one failed the failure says so.
    @Test func aServersFailureLeavesTheNameToTheOthers() throws {
        var (machine, queries) = try resolving("http://check.test/204")
        #expect(machine.handle(.received(fd: 20, .success(answer(queries[0], rcode: 2))), at: t(0.01)) == [.close(fd: 20)])
        #expect(machine.handle(.received(fd: 21, .failure(Errno(ECONNREFUSED))), at: t(0.01)) == [.close(fd: 21)])
        #expect(machine.next(at: t(0.01)) == [.wait(until: t(3), watching: [.init(fd: 22, interest: .readable), .init(fd: 23, interest: .readable)])])
        #expect(machine.handle(.received(fd: 22, .success(answer(queries[2], rcode: 5))), at: t(0.02)) == [.close(fd: 22)])
        #expect(machine.handle(.received(fd: 23, .success(answer(queries[3], rcode: 2))), at: t(0.02)) == [.close(fd: 23)])
        let result = try #require(finishResult(machine.next(at: t(0.02))))
        #expect(result.connectivity == .local && result.failure == ConnectivityFailure(.dnsFailure, "the DNS server failed (SERVFAIL)"))
    }

    /// A truncated answer asks the same server again over TCP: connect, send the framed
    /// query, read the framed answer (here in two reads), then connect to the endpoint.
    @Test func aTruncatedAnswerIsAskedAgainOverTCP() throws {
        let check = try ConnectivityCheck(endpoints: [try .init("http://check.test/204")], timeout: .seconds(5), resolutionTimeout: .seconds(3))
        var machine = Machine(check: check, servers: [Self.second], start: .zero, firstQueryID: 100)
        let queries = machine.handle(.started, at: .zero).compactMap { if case .openQuery(let query) = $0 { query } else { nil } }
        _ = machine.handle(.querySent(queries[0], fd: 20), at: .zero)
        _ = machine.handle(.querySent(queries[1], fd: 21), at: .zero)
        #expect(machine.handle(.received(fd: 21, .success(answer(queries[1]))), at: t(0.01)) == [.close(fd: 21)])
        var overTCP = queries[0]
        overTCP.overTCP = true
        #expect(machine.handle(.received(fd: 20, .success(answer(queries[0], truncated: true))), at: t(0.01)) == [.close(fd: 20), .openQuery(overTCP)])
        #expect(machine.handle(.querySent(overTCP, fd: 24), at: t(0.01)).isEmpty)
        #expect(machine.next(at: t(0.01)) == [.wait(until: t(3), watching: [.init(fd: 24, interest: .writable)])])
        let framed = DNSMessage.framed(overTCP.bytes)
        #expect(machine.handle(.connectFinished(fd: 24, error: nil), at: t(0.02)) == [.send(fd: 24, request: framed)])
        #expect(machine.handle(.requestSent(fd: 24, complete: true), at: t(0.02)).isEmpty)
        #expect(machine.next(at: t(0.02)) == [.wait(until: t(3), watching: [.init(fd: 24, interest: .readable)])])
        let reply = DNSMessage.framed(answer(overTCP, [Self.endpoint]))
        #expect(machine.handle(.received(fd: 24, .success(Array(reply.prefix(5)))), at: t(0.03)).isEmpty)
        #expect(machine.handle(.received(fd: 24, .success(Array(reply.dropFirst(5)))), at: t(0.03))
                == [.close(fd: 24), .connect(endpoint: 0, address: Self.endpoint, port: 80)])
    }

    /// FORMERR to a query with EDNS0 (a server that predates RFC 6891): the same query, to
    /// the same server, without the OPT record (glibc's fallback); FORMERR to that one is the
    /// server's failure.
    @Test func formerrToEDNSAsksAgainWithoutIt() throws {
        let check = try ConnectivityCheck(endpoints: [try .init("http://check.test/204")], timeout: .seconds(5), resolutionTimeout: .seconds(3))
        var machine = Machine(check: check, servers: [Self.second], start: .zero, firstQueryID: 100)
        let queries = machine.handle(.started, at: .zero).compactMap { if case .openQuery(let query) = $0 { query } else { nil } }
        #expect(queries.allSatisfy { DNSMessage.hasEDNS($0.bytes) })
        _ = machine.handle(.querySent(queries[0], fd: 20), at: .zero)
        _ = machine.handle(.querySent(queries[1], fd: 21), at: .zero)
        var plain = queries[0]
        plain.bytes = DNSMessage.withoutEDNS(queries[0].bytes)
        #expect(!DNSMessage.hasEDNS(plain.bytes) && plain.bytes.count == queries[0].bytes.count - 11 && plain.bytes[11] == 0)
        #expect(machine.handle(.received(fd: 20, .success(answer(queries[0], rcode: 1))), at: t(0.01)) == [.close(fd: 20), .openQuery(plain)])
        _ = machine.handle(.querySent(plain, fd: 24), at: t(0.01))
        // The answer to the plain query carries its question (no OPT to strip).
        var reply = answer(queries[0], [Self.endpoint])
        reply[11] = 0
        #expect(machine.handle(.received(fd: 24, .success(reply)), at: t(0.02))
                == [.close(fd: 24), .connect(endpoint: 0, address: Self.endpoint, port: 80)])
        // FORMERR to the query without EDNS is not asked again.
        var plainAAAA = queries[1]
        plainAAAA.bytes = DNSMessage.withoutEDNS(queries[1].bytes)
        #expect(machine.handle(.received(fd: 21, .success(answer(queries[1], rcode: 1))), at: t(0.02)) == [.close(fd: 21), .openQuery(plainAAAA)])
        _ = machine.handle(.querySent(plainAAAA, fd: 25), at: t(0.02))
        #expect(machine.handle(.received(fd: 25, .success(answer(queries[1], rcode: 1))), at: t(0.03)) == [.close(fd: 25)])
    }

    /// A TCP connection the server refuses, or one closed before the whole answer, is that
    /// server's failure.
    @Test func aFailedTCPQueryIsTheServersFailure() throws {
        let check = try ConnectivityCheck(endpoints: [try .init("http://check.test/204")], timeout: .seconds(5), resolutionTimeout: .seconds(3))
        var machine = Machine(check: check, servers: [Self.second], start: .zero, firstQueryID: 100)
        let queries = machine.handle(.started, at: .zero).compactMap { if case .openQuery(let query) = $0 { query } else { nil } }
        _ = machine.handle(.querySent(queries[0], fd: 20), at: .zero)
        _ = machine.handle(.querySent(queries[1], fd: 21), at: .zero)
        var tcp: [Machine.Query] = []
        for (fd, query) in zip([20, 21] as [FileDescriptor], queries) {
            let actions = machine.handle(.received(fd: fd, .success(answer(query, truncated: true))), at: t(0.01))
            guard case .openQuery(let again)? = actions.last else { Issue.record("no TCP query: \(actions)"); return }
            tcp.append(again)
        }
        _ = machine.handle(.querySent(tcp[0], fd: 24), at: t(0.01))
        _ = machine.handle(.querySent(tcp[1], fd: 25), at: t(0.01))
        #expect(machine.handle(.connectFinished(fd: 24, error: Errno(ECONNREFUSED)), at: t(0.02)) == [.close(fd: 24)])
        _ = machine.handle(.connectFinished(fd: 25, error: nil), at: t(0.02))
        _ = machine.handle(.requestSent(fd: 25, complete: true), at: t(0.02))
        _ = machine.handle(.received(fd: 25, .success([0, 40, 1, 2])), at: t(0.03))
        #expect(machine.handle(.received(fd: 25, .success([])), at: t(0.03)) == [.close(fd: 25)])
        let result = try #require(finishResult(machine.next(at: t(0.03))))
        #expect(result.connectivity == .local && result.failure == ConnectivityFailure(.dnsFailure, "the DNS server closed the connection"))
    }

    /// At the resolution deadline an endpoint whose connections all failed ends (its other
    /// queries are dropped) instead of holding the check to its timeout.
    @Test func theResolutionDeadlineEndsAnEndpointWhoseConnectionsFailed() throws {
        var (machine, queries) = try resolving("http://check.test:81/204")
        _ = machine.handle(.received(fd: 22, .success(answer(queries[2], [Self.endpoint]))), at: t(0.01))
        // The second server fails the AAAA query: the first, dead, is still waited for.
        #expect(machine.handle(.received(fd: 23, .success(answer(queries[3], rcode: 2))), at: t(0.01)) == [.close(fd: 23)])
        _ = machine.handle(.connectStarted(endpoint: 0, address: Self.endpoint, .started(fd: 30)), at: t(0.01))
        #expect(machine.handle(.connectFinished(fd: 30, error: Errno(ECONNREFUSED)), at: t(0.02)) == [.close(fd: 30)])
        #expect(machine.next(at: t(0.02)) == [.wait(until: t(3), watching: [.init(fd: 21, interest: .readable)])])
        let actions = machine.next(at: t(3))
        #expect(actions.first == .close(fd: 21))
        let result = try #require(finishResult(actions))
        #expect(result.connectivity == .limited && result.latencyMilliseconds == 3000 && result.failure?.kind == .connectionFailed)
    }

    /// A loopback or unspecified answer for a public name is a filtering resolver's: never
    /// connected to (a web server on this machine would answer), `limited` with the reason.
    @Test(arguments: [("127.0.0.1", "::1"), ("0.0.0.0", "::"), ("127.1.2.3", "")])
    func aLoopbackOrUnspecifiedAnswerIsFiltered(v4: String, v6: String) throws {
        let check = try ConnectivityCheck(endpoints: [try .init("http://check.test/204")], timeout: .seconds(5), resolutionTimeout: .seconds(3))
        var machine = Machine(check: check, servers: [Self.second], start: .zero, firstQueryID: 100)
        let queries = machine.handle(.started, at: .zero).compactMap { if case .openQuery(let query) = $0 { query } else { nil } }
        _ = machine.handle(.querySent(queries[0], fd: 20), at: .zero)
        _ = machine.handle(.querySent(queries[1], fd: 21), at: .zero)
        #expect(machine.handle(.received(fd: 20, .success(answer(queries[0], [IPAddress(v4)!]))), at: t(0.01)) == [.close(fd: 20)])
        #expect(machine.handle(.received(fd: 21, .success(answer(queries[1], IPAddress(v6).map { [$0] } ?? []))), at: t(0.01)) == [.close(fd: 21)])
        let result = try #require(finishResult(machine.next(at: t(0.01))))
        #expect(result.connectivity == .limited && result.failure?.kind == .filteredAnswer && result.latencyMilliseconds == 10)
        #expect(result.failure?.message == "the name 'check.test' resolved to \(v4): the network's DNS filters it")
        #expect(result.failure?.isLocal == false)
    }

    /// A public address beside a filtered one is connected to; `localhost` names stand for
    /// this machine and are.
    @Test func onlyFilteredAddressesAreLeftOut() throws {
        let check = try ConnectivityCheck(endpoints: [try .init("http://check.test/204"), try .init("http://app.localhost:8080/204")],
                                          timeout: .seconds(5), resolutionTimeout: .seconds(3))
        var machine = Machine(check: check, servers: [Self.second], start: .zero, firstQueryID: 100)
        let queries = machine.handle(.started, at: .zero).compactMap { if case .openQuery(let query) = $0 { query } else { nil } }
        #expect(queries.map(\.endpoint) == [0, 0, 1, 1])
        for (offset, query) in queries.enumerated() { _ = machine.handle(.querySent(query, fd: FileDescriptor(rawValue: Int32(20 + offset))), at: .zero) }
        #expect(machine.handle(.received(fd: 20, .success(answer(queries[0], [IPAddress("127.0.0.1")!, Self.endpoint]))), at: t(0.01))
                == [.close(fd: 20), .connect(endpoint: 0, address: Self.endpoint, port: 80)])
        #expect(machine.handle(.received(fd: 22, .success(answer(queries[2], [IPAddress("127.0.0.1")!]))), at: t(0.01))
                == [.close(fd: 22), .connect(endpoint: 1, address: IPAddress("127.0.0.1")!, port: 8080)])
    }
}
#endif
