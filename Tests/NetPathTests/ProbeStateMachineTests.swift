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

/// The Linux check's decisions, driven by hand: events and times in, actions out. No
/// sockets, no clock (the check starts at 0 s; timeout 5 s, resolution timeout 3 s).
/// The instant `seconds` after the check starts.
private func t(_ seconds: Double) -> Instant { Instant(nanoseconds: UInt64(seconds * 1e9)) }

@Suite struct ProbeStateMachineTests {
    typealias Machine = ProbeStateMachine
    static let server = IPAddress("10.77.0.53")!

    func machine(_ urls: String..., servers: [IPAddress] = [server]) throws -> Machine {
        let check = try ConnectivityCheck(endpoints: try urls.map { try .init($0) }, timeout: .seconds(5), resolutionTimeout: .seconds(3))
        return Machine(check: check, servers: servers, start: .zero, firstQueryID: 100)
    }

    func request(_ url: String) throws -> [UInt8] { try HTTPTarget(url).request }

    /// The server's answer to `query`: its question (without the query's EDNS0 record),
    /// then one record per address.
    func answer(_ query: Machine.Query, _ addresses: [IPAddress]) -> [UInt8] {
        var bytes = [UInt8(query.id >> 8), UInt8(query.id & 0xFF), 0x81, 0x80, 0, 1, 0, UInt8(addresses.count), 0, 0, 0, 0]
        bytes += query.bytes[12..<(query.bytes.count - 11)]
        for address in addresses {
            let data = Fixture.addressBytes(address)
            bytes += [0xC0, 12, UInt8(query.type >> 8), UInt8(query.type & 0xFF), 0, 1, 0, 0, 0, 60, 0, UInt8(data.count)] + data
        }
        return bytes
    }

    /// Starts a check of one name and sends its queries from descriptors 20, 21….
    func resolving(_ url: String) throws -> (Machine, [Machine.Query]) {
        var machine = try machine(url)
        let actions = machine.handle(.started, at: .zero)
        let queries = actions.compactMap { action -> Machine.Query? in
            if case .openQuery(let query) = action { query } else { nil }
        }
        #expect(queries.count == actions.count && queries.map(\.id) == [100, 101] && queries.map(\.type) == [DNSMessage.typeA, DNSMessage.typeAAAA])
        #expect(queries.allSatisfy { $0.server == ProbeStateMachineTests.server && $0.endpoint == 0 })
        for (offset, query) in queries.enumerated() {
            #expect(machine.handle(.querySent(query, fd: FileDescriptor(rawValue: Int32(20 + offset))), at: .zero).isEmpty)
        }
        return (machine, queries)
    }

    @Test func aLiteralAddressIsConnectedToAtOnceAndItsAnswerEndsTheCheck() throws {
        let url = "http://10.77.0.1:8080/204"
        var machine = try machine(url, servers: [])
        #expect(machine.handle(.started, at: .zero) == [.connect(endpoint: 0, address: IPAddress("10.77.0.1")!, port: 8080)])
        #expect(machine.handle(.connectStarted(endpoint: 0, address: IPAddress("10.77.0.1")!, .started(fd: 10)), at: .zero).isEmpty)
        #expect(machine.next(at: t(0.01)) == [.wait(until: t(5), watching: [.init(fd: 10, interest: .writable)])])
        #expect(machine.handle(.connectFinished(fd: 10, error: nil), at: t(0.1)) == [.send(fd: 10, request: try request(url))])
        #expect(machine.handle(.requestSent(fd: 10, complete: true), at: t(0.1)).isEmpty)
        #expect(machine.next(at: t(0.1)) == [.wait(until: t(5), watching: [.init(fd: 10, interest: .readable)])])
        let response = Array("HTTP/1.1 204 No Content\r\n\r\n".utf8)
        #expect(machine.handle(.received(fd: 10, .success(response)), at: t(0.25)) == [.close(fd: 10)])
        #expect(machine.next(at: t(0.25)) == [.finish(ConnectivityResult(connectivity: .full, url: url, httpStatus: 204, latencyMilliseconds: 250))])
    }

    @Test func aRefusedConnectionIsLimitedWithTheReason() throws {
        var machine = try machine("http://10.77.0.1:8081/")
        _ = machine.handle(.started, at: .zero)
        _ = machine.handle(.connectStarted(endpoint: 0, address: IPAddress("10.77.0.1")!, .started(fd: 10)), at: .zero)
        #expect(machine.handle(.connectFinished(fd: 10, error: Errno(ECONNREFUSED)), at: t(0.01)) == [.close(fd: 10)])
        let result = try #require(finishResult(machine.next(at: t(0.01))))
        #expect(result.connectivity == .limited && result.failure == ConnectivityFailure(.connectionFailed, "cannot connect to 10.77.0.1 port 8081: Connection refused"))
    }

    @Test func dnsAnswersAreConnectedToAndStrayDatagramsIgnored() throws {
        var (machine, queries) = try resolving("http://check.test:8080/204")
        #expect(machine.next(at: t(0.01)) == [.wait(until: t(3), watching: [.init(fd: 20, interest: .readable), .init(fd: 21, interest: .readable)])])
        var stray = answer(queries[0], [IPAddress("192.0.2.1")!])
        stray[1] ^= 0xFF
        #expect(machine.handle(.received(fd: 20, .success(stray)), at: t(0.02)).isEmpty)
        let addresses = [IPAddress("10.77.0.1")!, IPAddress("10.77.0.2")!]
        #expect(machine.handle(.received(fd: 20, .success(answer(queries[0], addresses))), at: t(0.02)) ==
                [.close(fd: 20), .connect(endpoint: 0, address: addresses[0], port: 8080), .connect(endpoint: 0, address: addresses[1], port: 8080)])
        #expect(machine.handle(.received(fd: 21, .success(answer(queries[1], []))), at: t(0.03)) == [.close(fd: 21)])
    }

    @Test func theFirstConnectionWinsAndTheOthersAreClosed() throws {
        let url = "http://check.test:8080/204"
        var (machine, queries) = try resolving(url)
        let addresses = [IPAddress("10.77.0.1")!, IPAddress("10.77.0.2")!]
        _ = machine.handle(.received(fd: 20, .success(answer(queries[0], addresses))), at: t(0.02))
        _ = machine.handle(.received(fd: 21, .success(answer(queries[1], []))), at: t(0.02))
        for (fd, address) in zip([30, 31] as [FileDescriptor], addresses) {
            #expect(machine.handle(.connectStarted(endpoint: 0, address: address, .started(fd: fd)), at: t(0.02)).isEmpty)
        }
        #expect(machine.next(at: t(0.02)) == [.wait(until: t(5), watching: [.init(fd: 30, interest: .writable), .init(fd: 31, interest: .writable)])])
        #expect(machine.handle(.connectFinished(fd: 31, error: nil), at: t(0.05)) == [.close(fd: 30), .send(fd: 31, request: try request(url))])
        #expect(machine.handle(.connectFinished(fd: 30, error: nil), at: t(0.05)).isEmpty)
        _ = machine.handle(.requestSent(fd: 31, complete: true), at: t(0.05))
        #expect(machine.next(at: t(0.05)) == [.wait(until: t(5), watching: [.init(fd: 31, interest: .readable)])])
    }

    /// Every address failing at once ends the endpoint after the last, with its reason.
    @Test func anEndpointEndsWhenItsLastAddressFails() throws {
        var (machine, queries) = try resolving("http://check.test:8080/204")
        let addresses = [IPAddress("10.77.0.1")!, IPAddress("10.77.0.2")!]
        _ = machine.handle(.received(fd: 21, .success(answer(queries[1], []))), at: t(0.01))
        _ = machine.handle(.received(fd: 20, .success(answer(queries[0], addresses))), at: t(0.02))
        #expect(machine.handle(.connectStarted(endpoint: 0, address: addresses[0], .connectFailed(Errno(ENETUNREACH))), at: t(0.02)).isEmpty)
        #expect(machine.handle(.connectStarted(endpoint: 0, address: addresses[1], .connectFailed(Errno(EHOSTUNREACH))), at: t(0.02)).isEmpty)
        let result = try #require(finishResult(machine.next(at: t(0.02))))
        #expect(result.connectivity == .limited && result.failure == ConnectivityFailure(.connectionFailed, "cannot connect to 10.77.0.2: No route to host"))
    }

    /// A DNS server that never answers ends the check at the resolution deadline, not the
    /// check's: the machine finishes rather than wait with nothing left to wait for.
    @Test func aSilentDNSServerEndsTheCheckAtTheResolutionDeadline() throws {
        var (machine, _) = try resolving("http://check.test:8080/204")
        #expect(machine.next(at: t(1)) == [.wait(until: t(3), watching: [.init(fd: 20, interest: .readable), .init(fd: 21, interest: .readable)])])
        let actions = machine.next(at: t(3))
        #expect(actions.dropLast() == [.close(fd: 20), .close(fd: 21)])
        let result = try #require(finishResult(actions))
        #expect(result.connectivity == .local && result.failure == ConnectivityFailure(.resolutionTimedOut, "name resolution timed out") && result.url == "http://check.test:8080/204")
    }

    @Test func aNameThatDoesNotResolveIsLocal() throws {
        var (machine, queries) = try resolving("http://nowhere.test/")
        _ = machine.handle(.received(fd: 20, .success(answer(queries[0], []))), at: t(0.01))
        _ = machine.handle(.received(fd: 21, .success(answer(queries[1], []))), at: t(0.01))
        let result = try #require(finishResult(machine.next(at: t(0.01))))
        #expect(result.connectivity == .local && result.failure == ConnectivityFailure(.nameNotResolved, "the name 'nowhere.test' did not resolve"))
    }

    @Test func cancellationClosesEverythingAndSaysSo() throws {
        var machine = try machine("http://10.77.0.1:8080/never", "http://check.test/")
        _ = machine.handle(.started, at: .zero)
        _ = machine.handle(.connectStarted(endpoint: 0, address: IPAddress("10.77.0.1")!, .started(fd: 10)), at: .zero)
        #expect(machine.handle(.cancelled, at: t(0.5)) == [.close(fd: 10), .finish(ConnectivityResult(connectivity: .unknown, failure: ConnectivityFailure(.cancelled, "the check was cancelled")))])
    }

    @Test func theDeadlineEndsAConnectionThatIsNotMade() throws {
        var machine = try machine("http://10.77.0.1:8080/never")
        _ = machine.handle(.started, at: .zero)
        _ = machine.handle(.connectStarted(endpoint: 0, address: IPAddress("10.77.0.1")!, .started(fd: 10)), at: .zero)
        let actions = machine.next(at: t(5))
        #expect(actions.first == .close(fd: 10))
        let result = try #require(finishResult(actions))
        #expect(result.connectivity == .limited && result.failure == ConnectivityFailure(.timedOut, "no connection within 5.0 seconds") && result.latencyMilliseconds == 5000)
    }

    // MARK: - IPv6-only paths: NAT64 (RFC 7050 discovery, RFC 6052 synthesis)

    static let wellKnown = [IPAddress("64:ff9b::c000:aa")!, IPAddress("64:ff9b::c000:ab")!]

    /// Starts a check on an IPv6-only path; the discovery query goes out from descriptor 40.
    func ipv6Only(_ urls: String...) throws -> (Machine, Machine.Query, [Machine.Action]) {
        let check = try ConnectivityCheck(endpoints: try urls.map { try .init($0) }, timeout: .seconds(5), resolutionTimeout: .seconds(3))
        var machine = Machine(check: check, servers: [IPAddress("fd64::53")!], start: .zero, firstQueryID: 100, ipv4: false, ipv6: true)
        let actions = machine.handle(.started, at: .zero)
        guard case .openQuery(let discovery)? = actions.first else { throw CommandLineFailure("no discovery query: \(actions)") }
        #expect(discovery.endpoint == Machine.discoveryEndpoint && discovery.type == DNSMessage.typeAAAA)
        #expect(discovery.bytes == DNSMessage.query(id: discovery.id, name: "ipv4only.arpa", type: DNSMessage.typeAAAA))
        #expect(machine.handle(.querySent(discovery, fd: 40), at: .zero).isEmpty)
        return (machine, discovery, Array(actions.dropFirst()))
    }

    struct CommandLineFailure: Error { var text: String; init(_ text: String) { self.text = text } }

    @Test func anIPv4LiteralOnAnIPv6OnlyPathIsReachedThroughTheDiscoveredPrefix() throws {
        let url = "http://198.51.100.7:8080/204"
        var (machine, discovery, rest) = try ipv6Only(url)
        #expect(rest.isEmpty)  // the literal waits for the prefix
        #expect(machine.next(at: t(0.01)) == [.wait(until: t(3), watching: [.init(fd: 40, interest: .readable)])])
        let synthesized = IPAddress("64:ff9b::c633:6407")!
        #expect(machine.handle(.received(fd: 40, .success(answer(discovery, Self.wellKnown))), at: t(0.02))
                == [.close(fd: 40), .connect(endpoint: 0, address: synthesized, port: 8080)])
        _ = machine.handle(.connectStarted(endpoint: 0, address: synthesized, .started(fd: 10)), at: t(0.02))
        _ = machine.handle(.connectFinished(fd: 10, error: nil), at: t(0.03))
        _ = machine.handle(.requestSent(fd: 10, complete: true), at: t(0.03))
        _ = machine.handle(.received(fd: 10, .success(Array("HTTP/1.1 204 No Content\r\n\r\n".utf8))), at: t(0.05))
        let result = try #require(finishResult(machine.next(at: t(0.05))))
        #expect(result.connectivity == .full && result.nat64Prefix == "64:ff9b::/96")
    }

    @Test func withoutNAT64AnIPv4LiteralIsLimitedAndSaysWhy() throws {
        var (machine, discovery, _) = try ipv6Only("http://198.51.100.7/")
        // The resolver answers: no AAAA for ipv4only.arpa (no DNS64 on this network).
        #expect(machine.handle(.received(fd: 40, .success(answer(discovery, []))), at: t(0.02)) == [.close(fd: 40)])
        let result = try #require(finishResult(machine.next(at: t(0.02))))
        #expect(result.connectivity == .limited && result.nat64Prefix == nil && result.failure?.kind == .noNAT64)
        #expect(result.failure?.message.contains("the path has no IPv4 and the network no NAT64") == true)
        // A resolver that never answers: the literal ends at the resolution deadline.
        var (silent, _, _) = try ipv6Only("http://198.51.100.7/")
        let dropped = silent.next(at: t(3))
        #expect(dropped.first == .close(fd: 40))
        let late = try #require(finishResult(dropped))
        #expect(late.connectivity == .limited && late.failure?.kind == .noNAT64 && late.failure?.message.contains("in time") == true)
    }

    /// Only the families the path routes are asked for and connected to: a socket bound to
    /// an interface with no route of that family would take the address as on-link and wait
    /// out the timeout. Loopback is reached whatever the path.
    @Test func onlyTheFamiliesThePathRoutesAreTried() throws {
        let check = try ConnectivityCheck(endpoints: [try .init("http://[2001:db8::80]/"), try .init("http://check.test/"),
                                                      try .init("http://127.0.0.1:8080/")], timeout: .seconds(5))
        var machine = Machine(check: check, servers: [Self.server], start: .zero, firstQueryID: 100, ipv4: true, ipv6: false)
        let actions = machine.handle(.started, at: .zero)
        let queries = actions.compactMap { if case .openQuery(let query) = $0 { query } else { nil } }
        #expect(queries.map(\.type) == [DNSMessage.typeA, DNSMessage.typeAAAA] && queries.map(\.endpoint) == [1, 1])
        #expect(actions.contains(.connect(endpoint: 2, address: IPAddress("127.0.0.1")!, port: 8080)))
        #expect(!actions.contains { if case .connect(0, _, _) = $0 { true } else { false } })
        _ = machine.handle(.connectStarted(endpoint: 2, address: IPAddress("127.0.0.1")!, .connectFailed(Errno(ECONNREFUSED))), at: .zero)
        _ = machine.handle(.querySent(queries[0], fd: 20), at: .zero)
        _ = machine.handle(.querySent(queries[1], fd: 21), at: .zero)
        _ = machine.handle(.received(fd: 20, .success(answer(queries[0], []))), at: t(0.01))
        // check.test has only an IPv6 address: resolved, not tried.
        #expect(machine.handle(.received(fd: 21, .success(answer(queries[1], [IPAddress("2001:db8::81")!]))), at: t(0.01)) == [.close(fd: 21)])
        let result = try #require(finishResult(machine.next(at: t(0.01))))
        #expect(result.connectivity == .limited)
        #expect(result.failure == ConnectivityFailure(.connectionFailed, "cannot reach 2001:db8::80: the path has no IPv6"))
        // On an IPv6-only path, loopback IPv4 is connected to directly, not through NAT64.
        let local = try ConnectivityCheck(endpoints: [try .init("http://127.0.0.1:8080/")], timeout: .seconds(5))
        var v6 = Machine(check: local, servers: [], start: .zero, firstQueryID: 100, ipv4: false, ipv6: true)
        #expect(v6.handle(.started, at: .zero) == [.connect(endpoint: 0, address: IPAddress("127.0.0.1")!, port: 8080)])
    }

    /// By name, DNS64 synthesizes the address itself; the discovery holds no verdict the
    /// endpoint gave (a network whose ipv4only.arpa query is never answered read `full`
    /// only at the resolution deadline): the result reports the prefix when it was found by
    /// then.
    @Test func aCheckByNameIsNotHeldByTheDiscovery() throws {
        let url = "http://check.test/204"
        let address = IPAddress("64:ff9b::c633:6407")!
        for prefixFirst in [false, true] {
            var (machine, discovery, queries) = try ipv6Only(url)
            let named = queries.compactMap { if case .openQuery(let query) = $0 { query } else { nil } }
            #expect(named.map(\.type) == [DNSMessage.typeA, DNSMessage.typeAAAA])
            for (offset, query) in named.enumerated() { _ = machine.handle(.querySent(query, fd: FileDescriptor(rawValue: Int32(20 + offset))), at: .zero) }
            if prefixFirst { #expect(machine.handle(.received(fd: 40, .success(answer(discovery, Self.wellKnown))), at: t(0.005)) == [.close(fd: 40)]) }
            // The A record is not connected to: the path has no IPv4 (and, without the
            // prefix, it waits for it); the AAAA record is.
            let v4 = machine.handle(.received(fd: 20, .success(answer(named[0], [IPAddress("198.51.100.7")!]))), at: t(0.01))
            #expect(v4 == (prefixFirst ? [.close(fd: 20), .connect(endpoint: 0, address: address, port: 80)] : [.close(fd: 20)]))
            #expect(machine.handle(.received(fd: 21, .success(answer(named[1], [address]))), at: t(0.01))
                    == (prefixFirst ? [.close(fd: 21)] : [.close(fd: 21), .connect(endpoint: 0, address: address, port: 80)]))
            _ = machine.handle(.connectStarted(endpoint: 0, address: address, .started(fd: 10)), at: t(0.01))
            _ = machine.handle(.connectFinished(fd: 10, error: nil), at: t(0.02))
            _ = machine.handle(.requestSent(fd: 10, complete: true), at: t(0.02))
            _ = machine.handle(.received(fd: 10, .success(Array("HTTP/1.1 204 No Content\r\n\r\n".utf8))), at: t(0.03))
            let actions = machine.next(at: t(0.03))
            #expect(actions.contains(.close(fd: 40)) == !prefixFirst)
            let result = try #require(finishResult(actions))
            #expect(result.connectivity == .full && result.latencyMilliseconds == 30)
            #expect(result.nat64Prefix == (prefixFirst ? "64:ff9b::/96" : nil))
        }
    }

    /// An A record that came while the prefix was looked for is reached through it once it
    /// is found, when the name has no AAAA of its own (no DNS64).
    @Test func anARecordWaitsForThePrefix() throws {
        var (machine, discovery, queries) = try ipv6Only("http://check.test/204")
        let named = queries.compactMap { if case .openQuery(let query) = $0 { query } else { nil } }
        for (offset, query) in named.enumerated() { _ = machine.handle(.querySent(query, fd: FileDescriptor(rawValue: Int32(20 + offset))), at: .zero) }
        #expect(machine.handle(.received(fd: 20, .success(answer(named[0], [IPAddress("198.51.100.7")!]))), at: t(0.01)) == [.close(fd: 20)])
        #expect(machine.handle(.received(fd: 21, .success(answer(named[1], []))), at: t(0.01)) == [.close(fd: 21)])
        #expect(machine.next(at: t(0.01)) == [.wait(until: t(3), watching: [.init(fd: 40, interest: .readable)])])
        #expect(machine.handle(.received(fd: 40, .success(answer(discovery, Self.wellKnown))), at: t(0.02))
                == [.close(fd: 40), .connect(endpoint: 0, address: IPAddress("64:ff9b::c633:6407")!, port: 80)])
    }

    func finishResult(_ actions: [Machine.Action]) -> ConnectivityResult? {
        guard case .finish(let result)? = actions.last else { return nil }
        return result
    }
}

/// RFC 6052 §2.4's examples: 192.0.2.33 behind each prefix length, and RFC 7050's discovery
/// finding each prefix again from the well-known addresses.
@Suite struct NAT64PrefixTests {
    @Test(arguments: [
        ("2001:db8::", 32, "2001:db8:c000:221::"),
        ("2001:db8:100::", 40, "2001:db8:1c0:2:21::"),
        ("2001:db8:122::", 48, "2001:db8:122:c000:2:2100::"),
        ("2001:db8:122:300::", 56, "2001:db8:122:3c0:0:221::"),
        ("2001:db8:122:344::", 64, "2001:db8:122:344:c0:2:2100:0"),
        ("2001:db8:122:344::", 96, "2001:db8:122:344::c000:221"),
        ("64:ff9b::", 96, "64:ff9b::c000:221"),
    ])
    func synthesisAndDiscoveryFollowTheRFCs(prefix: String, length: Int, expected: String) throws {
        let nat64 = NAT64Prefix(address: try #require(IPAddress(prefix)), length: length)
        #expect(nat64.synthesize(try #require(IPAddress("192.0.2.33"))) == IPAddress(expected))
        let answers = try [#require(IPAddress("192.0.0.170")), #require(IPAddress("192.0.0.171"))].map(nat64.synthesize)
        #expect(NAT64Prefix.discover(in: answers) == nat64)
        #expect(NAT64Prefix.discover(in: answers)?.description == "\(IPAddress(prefix)!)/\(length)")
    }

    @Test func answersWithoutAWellKnownAddressRevealNothing() throws {
        #expect(NAT64Prefix.discover(in: []) == nil)
        #expect(NAT64Prefix.discover(in: [try #require(IPAddress("2001:db8::1"))]) == nil)
        #expect(NAT64Prefix.discover(in: [try #require(IPAddress("192.0.0.170"))]) == nil)  // an A record
        // The "u" octet set: not an RFC 6052 address for lengths under 96.
        #expect(NAT64Prefix.discover(in: [try #require(IPAddress("2001:db8:122:344:ffc0:0:aa00:0"))]) == nil)
    }
}
#endif
