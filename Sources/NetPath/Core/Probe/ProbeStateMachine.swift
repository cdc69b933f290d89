#if os(Linux) || os(Android)
/// The decisions of one connectivity check on Linux, apart from its I/O: events in, actions
/// out (swift-async-algorithms' state machines). It names the DNS queries to send and the
/// connections to open, reads the answers and responses it is given, and says when to wait
/// and when the check is over. It makes no system call and reads no clock: every event
/// comes with the time, so it is tested with fixtures and a hand-set clock.
///
/// The caller (``LinuxProbe``) carries out each action in order and reports the outcome of
/// `openQuery`, `connect` and `send` at once, before the next action; after the events of a
/// wait it calls ``next(now:)``, which ends in `wait` or `finish`.
package struct ProbeStateMachine {
    /// A DNS query to send to `server`, for the name of endpoint `endpoint` (or, as
    /// ``discoveryEndpoint``, for `ipv4only.arpa`): over UDP, or over TCP when the answer
    /// over UDP came truncated.
    package struct Query: Equatable {
        package var endpoint: Int
        package var server: IPAddress
        package var id: UInt16
        package var type: UInt16
        /// The message, unframed.
        package var bytes: [UInt8]
        package var overTCP = false
    }

    /// What a descriptor is waited on for.
    package enum Interest: Equatable {
        case readable
        /// A connection in progress: writable once it is made or has failed.
        case writable
    }

    /// A descriptor to wait on.
    package struct Watch: Equatable {
        package var fd: FileDescriptor
        package var interest: Interest
    }

    package enum Action: Equatable {
        /// Open a UDP socket to the query's server and send the query, or, for a query over
        /// TCP, open a non-blocking TCP socket and start connecting it to the server's port 53
        /// (the query is sent with `send` once it is made); report ``Event/querySent(_:fd:)``.
        case openQuery(Query)
        /// Open a non-blocking TCP socket and start connecting; report ``Event/connectStarted(endpoint:address:_:)``.
        case connect(endpoint: Int, address: IPAddress, port: UInt16)
        /// Start TLS on the connected socket of an `https://` endpoint, for `host` (sent in
        /// SNI unless it is an address, and checked against the certificate), and take its
        /// first handshake step; report ``Event/tlsStepped(fd:_:)``. The descriptor's later
        /// `send` and reads go through TLS, and it is waited on for what the handshake wants.
        case startTLS(fd: FileDescriptor, host: String, hostIsAddress: Bool)
        /// Send the HTTP request; report ``Event/requestSent(fd:complete:)``.
        case send(fd: FileDescriptor, request: [UInt8])
        case close(fd: FileDescriptor)
        /// Wait until `until` (or cancellation) for the descriptors, report what they have,
        /// then call ``next(now:)``. Only ``next(now:)`` returns it.
        case wait(until: UInt64, watching: [Watch])
        /// The check is over. Every descriptor has been closed by the actions before it.
        case finish(ConnectivityResult)
    }

    /// How a `connect` action went.
    package enum ConnectStart: Equatable {
        case started(fd: FileDescriptor)
        case socketFailed(Errno)
        /// The connect failed at once; `noRoute`: because this machine has no route for it
        /// now (the path is changing), as the system layer tells from the errno
        /// (`Errno.isNoRoute`: the core does not know the C library's numbers).
        case connectFailed(Errno, noRoute: Bool)
    }

    /// How a TLS handshake step went.
    package enum TLSStep: Equatable {
        case done
        case wantRead
        case wantWrite
        /// The peer closed or reset the connection during the handshake: no answer.
        case closed(String)
        /// TLS failed: a certificate that does not verify, or a peer that does not speak TLS.
        case failed(String)
        /// TLS cannot be used on this machine (no OpenSSL 3): the endpoint counts neither way.
        case unavailable(String)
    }

    package enum Event: Equatable {
        /// The check begins: names are resolved, literal addresses connected to.
        case started
        /// An `openQuery` action's outcome: the socket that sent the query, or `nil`.
        case querySent(Query, fd: FileDescriptor?)
        /// A `connect` action's outcome.
        case connectStarted(endpoint: Int, address: IPAddress, ConnectStart)
        /// A `send` action's outcome: whether the whole request went out.
        case requestSent(fd: FileDescriptor, complete: Bool)
        /// A connection in progress ended: `nil` when it is made, else its error.
        case connectFinished(fd: FileDescriptor, error: Errno?)
        /// What a readable descriptor gave: bytes (none at end of stream), or the errno.
        case received(fd: FileDescriptor, Result<[UInt8], Errno>)
        /// A TLS handshake step's outcome (after `startTLS`, or when its descriptor was
        /// ready); while reading the response, `failed` is a TLS error in it.
        case tlsStepped(fd: FileDescriptor, TLSStep)
        /// The check must stop now.
        case cancelled
    }

    /// How many of the resolver's servers are asked.
    package static let serversAsked = 3

    private enum Phase { case resolving, connecting, reading, done }

    /// One endpoint's progress.
    private struct Run {
        package let endpoint: ConnectivityCheck.Endpoint
        package let classifier: HTTPResponseClassifier
        /// The HTTP proxy its request goes through, when one is configured for it: its name
        /// is resolved and connected to in place of the endpoint's.
        package let proxy: ProxyServer?
        package var phase = Phase.resolving
        package var lookup = Lookup()
        /// `connect` actions whose outcome has not been reported yet.
        package var opening = 0
        package var connecting: [FileDescriptor] = []
        /// The connection that won, once the request is sent.
        package var active: FileDescriptor?
        package var response: [UInt8] = []
        package var outcome = Outcome()

        var answeredAsAPortal: Bool {
            if case .unexpected? = outcome.verdict { true } else { false }
        }

        /// Where the connection goes: the proxy, or the endpoint.
        var host: String { proxy?.host ?? endpoint.target.host }
        var address: IPAddress? { proxy.map(\.address) ?? endpoint.target.address }
        var port: UInt16 { proxy?.port ?? endpoint.target.port }

        /// `address port N`, or `the proxy URL (VARIABLE) at address`, for messages.
        func naming(_ address: IPAddress) -> String {
            proxy.map { "\($0.named) at \(address)" } ?? "\(address) port \(endpoint.target.port)"
        }
    }

    /// What the resolution of an endpoint's name found.
    private struct Lookup {
        var resolved = false
        var addresses: [IPAddress] = []
        /// Queries asked for and neither answered nor given up on.
        var pendingQueries = 0
        /// The record types a server answered definitively (``DNSMessage/Answer/isDefinitive``):
        /// the other servers' queries for them are dropped.
        var settled: Set<UInt16> = []
        /// An IPv4 literal on an IPv6-only path, waiting for the NAT64 prefix.
        var awaitsPrefix = false
        /// IPv4 addresses the name resolved to on an IPv6-only path while the NAT64 prefix
        /// is still looked for.
        var awaitingPrefix: [IPAddress] = []
        /// An address the name resolved to in a family the path does not route.
        var unroutable: IPAddress?
        /// A loopback or unspecified address the name resolved to: a filtering resolver's
        /// answer, never connected to.
        var filtered: IPAddress?
        /// A server said the name has no address (NXDOMAIN, or no data).
        var notFound = false
        /// Why the last query that was no answer ended (a server's failure, a read error).
        var failure: String?
    }

    /// How an endpoint ended.
    private struct Outcome {
        var verdict: HTTPResponseClassifier.Verdict?
        var error: ConnectivityFailure?
        var finishedAt: UInt64?
    }

    /// RFC 7050's discovery of the network's NAT64 prefix, on an IPv6-only path.
    private enum Discovery: Equatable {
        /// The path has IPv4 (or is not known): nothing to discover.
        case notNeeded
        /// Queries for `ipv4only.arpa` are out.
        case asking
        case found(NAT64Prefix)
        /// No query revealed a prefix: the reason, for the endpoints that needed one.
        case failed(String)
    }

    /// A query out.
    private struct Asked {
        var query: Query
        /// Over TCP: whether the query went out, and the bytes of the answer read so far.
        var sent = false
        var stream: [UInt8] = []
    }

    /// Which answer of a SOCKS5 proxy is awaited.
    private enum SOCKSStage { case method, authentication, connect }

    /// Where an endpoint's connection is on its way to the response, once it won: straight
    /// to the endpoint or through its proxy (a `CONNECT` tunnel, a SOCKS5 negotiation), then
    /// TLS for an `https://` endpoint, then the request and the response.
    private enum Way: Equatable {
        /// The proxy of an `https://` endpoint was sent `CONNECT`: its answer read so far.
        case tunnel(head: [UInt8])
        /// The SOCKS5 proxy's negotiation: the answer awaited and its bytes so far.
        case socks(SOCKSStage, answer: [UInt8])
        /// The TLS handshake, waiting for `interest`.
        case handshake(Interest)
        /// The request is being sent (in the clear, or in the TLS session).
        case request
        /// The response is read.
        case response
    }

    private enum Role {
        /// A DNS query (for `ipv4only.arpa` when its endpoint is ``discoveryEndpoint``).
        case query(Asked)
        /// One of an endpoint's connections in progress (its addresses race).
        case connect(endpoint: Int, address: IPAddress)
        /// The connection that won, on its way (``Way``).
        case way(endpoint: Int, address: IPAddress, Way)
    }

    private let check: ConnectivityCheck
    private let servers: [IPAddress]
    private let start: UInt64
    private var runs: [Run]
    /// Every open descriptor and what it is for.
    private var roles: [FileDescriptor: Role] = [:]
    private var nextQueryID: UInt16
    private var cancelled = false
    private var discovery: Discovery
    /// Discovery queries sent and neither answered nor given up on.
    private var pendingDiscoveries = 0
    /// The families the path routes to the Internet: only those are asked for and
    /// connected to (a socket bound to an interface without a route of its family takes
    /// every address as on-link, and waits out the timeout instead of failing).
    private let routes: (ipv4: Bool, ipv6: Bool)

    /// - Parameters:
    ///   - servers: The resolver's DNS servers, in order.
    ///   - start: When the check starts, on the clock the events' times are on.
    ///   - firstQueryID: The first DNS query's id (random in use); each query takes the next.
    ///   - ipv4: The path routes IPv4 to the Internet.
    ///   - ipv6: The path routes IPv6 to the Internet. When only IPv6 is routed, the NAT64
    ///     prefix is discovered (RFC 7050) and reported, and IPv4 literals are reached
    ///     through it (RFC 6052).
    package init(check: ConnectivityCheck, servers: [IPAddress], start: UInt64, firstQueryID: UInt16, ipv4: Bool = true, ipv6: Bool = true) {
        self.check = check
        self.servers = servers
        self.start = start
        routes = (ipv4, ipv6)
        discovery = ipv6 && !ipv4 ? .asking : .notNeeded
        nextQueryID = firstQueryID
        runs = check.endpoints.map {
            Run(endpoint: $0, classifier: HTTPResponseClassifier(expectation: $0.expectation, limit: check.maximumResponseSize),
                // An https endpoint's proxy is asked for a tunnel (CONNECT).
                proxy: check.proxy.server(for: $0.target, scheme: $0.target.scheme))
        }
    }

    private var deadline: UInt64 { start &+ Self.nanoseconds(check.timeoutSeconds) }

    /// How long the other endpoints may still answer once one passed: a portal's answer
    /// comes from the local network in milliseconds, so a blocked or silent endpoint makes
    /// `full` at most this late instead of at the timeout.
    package static let passGrace: UInt64 = 1_000_000_000

    /// When the check ends at the latest: the timeout, or ``passGrace`` after the first pass.
    private var end: UInt64 {
        let passed = runs.compactMap { run -> UInt64? in
            if case .pass? = run.outcome.verdict { return run.outcome.finishedAt }
            return nil
        }.min()
        return passed.map { min(deadline, $0 &+ Self.passGrace) } ?? deadline
    }
    private var resolutionDeadline: UInt64 { start &+ Self.nanoseconds(check.resolutionTimeoutSeconds) }

    /// The milliseconds from the start to `time`.
    private func milliseconds(at time: UInt64) -> Double {
        Double(time > start ? time - start : 0) / 1e6
    }

    /// A configured time in seconds as the machine's time unit (monotonic nanoseconds).
    private static func nanoseconds(_ seconds: Double) -> UInt64 {
        seconds > 0 ? UInt64(min(seconds, 1e9) * 1e9) : 0
    }
    private var hasQueries: Bool {
        roles.values.contains {
            switch $0 {
            case .query: true
            case .connect, .way: false
            }
        }
    }

    /// Whether an endpoint answered as a portal does or every endpoint is done. A pass does
    /// not end the check: another endpoint may still answer in place of its expected answer,
    /// which makes it `portal` (``ProbeVerdict``). The NAT64 prefix's discovery holds no
    /// verdict: the result reports the prefix when it was found in time.
    private var isComplete: Bool {
        runs.allSatisfy { $0.phase == .done } || runs.contains(where: \.answeredAsAPortal)
    }

    /// The socket actions an event calls for (never `wait`; `finish` only on cancellation
    /// or a failed wait).
    package mutating func handle(_ event: Event, now: UInt64) -> [Action] {
        switch event {
        case .started:
            return started(now: now)
        case .querySent(let query, let fd):
            return querySent(query, fd: fd, now: now)
        case .connectStarted(let index, let address, let outcome):
            return connectStarted(index, to: address, outcome, now: now)
        case .requestSent(let fd, let complete):
            return requestSent(fd: fd, complete: complete, now: now)
        case .connectFinished(let fd, let error):
            return connectFinished(fd: fd, error: error, now: now)
        case .received(let fd, let received):
            switch roles[fd] {
            case .query(let asked)?: return queryReceived(fd, asked, received, now: now)
            case .way(let index, _, .response)?: return responded(endpoint: index, received, now: now)
            case .way(let index, let address, .tunnel(let head))?: return tunnelAnswered(fd: fd, index, address, head, received, now: now)
            case .way(let index, let address, .socks(let stage, let answer))?:
                return socksAnswered(fd: fd, index, address, stage, answer, received, now: now)
            case .connect?, .way?, nil: return []
            }
        case .tlsStepped(let fd, let step):
            return tlsStepped(fd: fd, step, now: now)
        case .cancelled:
            cancelled = true
            return finishAll(now: now)
        }
    }

    /// What to do once the events of a wait are handled: the queries given up at the
    /// resolution deadline, then `wait` or `finish`.
    package mutating func next(now: UInt64) -> [Action] {
        let end = self.end
        if isComplete || now >= end { return finishAll(now: now) }
        if now >= resolutionDeadline && hasQueries {
            // The endpoints this ends may be the last: decide again rather than wait on
            // nothing but cancellation until the deadline.
            let dropped = dropQueries(now: now)
            return dropped + next(now: now)
        }
        let watching = roles.keys.sorted().map { fd in
            switch roles[fd] {
            case .connect?, .way(_, _, .request)?: Watch(fd: fd, interest: .writable)
            case .query(let asked)? where asked.query.overTCP && !asked.sent: Watch(fd: fd, interest: .writable)
            case .way(_, _, .handshake(let interest))?: Watch(fd: fd, interest: interest)
            default: Watch(fd: fd, interest: .readable)
            }
        }
        return [.wait(until: hasQueries ? min(end, resolutionDeadline) : end, watching: watching)]
    }

    // MARK: - Events

    /// Literal addresses connect at once (an IPv4 one on an IPv6-only path once the NAT64
    /// prefix is known); names are resolved; on an IPv6-only path the prefix is looked for.
    private mutating func started(now: UInt64) -> [Action] {
        var actions = discoveryQueries()
        for index in runs.indices {
            if let proxy = runs[index].proxy, let reason = proxy.unusable {
                // As curl's request would, the endpoint fails on the proxy it must use.
                runs[index].lookup.resolved = true
                actions += finish(index, .init(.proxyFailed, "cannot use \(proxy.named): \(reason)"), now: now)
            } else if let address = runs[index].address {
                runs[index].lookup.resolved = true
                if address.isLoopback || routes(address) {
                    actions += startConnecting(index, to: address)
                } else if address.family == IPAddress.inet && discovery != .notNeeded {
                    runs[index].lookup.awaitsPrefix = true
                    actions += reachThroughNAT64(index, now: now)
                } else {
                    actions += finish(index, unroutable(address), now: now)
                }
            } else if servers.isEmpty {
                actions += finish(index, .init(.noDNSServer, "no DNS server is configured"), now: now)
            } else {
                actions += queries(for: index)
                if runs[index].lookup.pendingQueries == 0 { actions += finish(index, .init(.dnsFailure, "the DNS servers cannot be reached"), now: now) }
            }
        }
        return actions
    }

    /// Why `address` is not tried: the path does not route its family (and, for IPv4 on
    /// an IPv6-only path, `why` discovery found no NAT64, when known).
    private func unroutable(_ address: IPAddress, why: String? = nil) -> ConnectivityFailure {
        if address.family == IPAddress.inet && discovery != .notNeeded {
            return .init(.noNAT64, "cannot reach \(address): the path has no IPv4 and the network no NAT64" + (why.map { " (\($0))" } ?? ""))
        }
        return .init(.connectionFailed, "cannot reach \(address): the path has no \(address.family == IPAddress.inet ? "IPv4" : "IPv6")")
    }

    /// Whether the path routes `address`'s family.
    private func routes(_ address: IPAddress) -> Bool {
        address.family == IPAddress.inet ? routes.ipv4 : routes.ipv6
    }

    /// An A and an AAAA query to each server asked (both: an answer of a family the path
    /// does not route still tells that the name resolves).
    private mutating func queries(for index: Int) -> [Action] {
        var actions: [Action] = []
        for server in servers.prefix(ProbeStateMachine.serversAsked) {
            for type in [DNSMessage.typeA, DNSMessage.typeAAAA] {
                let id = nextQueryID
                nextQueryID &+= 1
                guard let bytes = DNSMessage.query(id: id, name: runs[index].host, type: type) else { continue }
                runs[index].lookup.pendingQueries += 1
                actions.append(.openQuery(Query(endpoint: index, server: server, id: id, type: type, bytes: bytes)))
            }
        }
        return actions
    }

    /// An AAAA query for `ipv4only.arpa` to each server asked (RFC 7050 §3), when the prefix
    /// is looked for; without a server, it cannot be.
    private mutating func discoveryQueries() -> [Action] {
        guard discovery == .asking else { return [] }
        var actions: [Action] = []
        for server in servers.prefix(ProbeStateMachine.serversAsked) {
            let id = nextQueryID
            nextQueryID &+= 1
            guard let bytes = DNSMessage.query(id: id, name: NAT64Prefix.discoveryName, type: DNSMessage.typeAAAA) else { continue }
            pendingDiscoveries += 1
            actions.append(.openQuery(Query(endpoint: ProbeStateMachine.discoveryEndpoint, server: server, id: id,
                                            type: DNSMessage.typeAAAA, bytes: bytes)))
        }
        if pendingDiscoveries == 0 { discovery = .failed("no DNS server is configured to discover it with (RFC 7050)") }
        return actions
    }

    /// Why a query could not be sent.
    private static let unreachableServers = "the DNS servers cannot be reached"

    /// The `endpoint` of a discovery query.
    package static let discoveryEndpoint = -1

    /// Connects an IPv4 literal through the NAT64 prefix once it is known; ends it when
    /// there is none. Nothing while the prefix is still being looked for.
    private mutating func reachThroughNAT64(_ index: Int, now: UInt64) -> [Action] {
        guard runs[index].lookup.awaitsPrefix, runs[index].phase != .done, let address = runs[index].address else { return [] }
        switch discovery {
        case .asking, .notNeeded:
            return []
        case .found(let prefix):
            runs[index].lookup.awaitsPrefix = false
            return startConnecting(index, to: prefix.synthesize(address))
        case .failed(let reason):
            runs[index].lookup.awaitsPrefix = false
            return finish(index, unroutable(address, why: reason), now: now)
        }
    }

    /// Every IPv4 literal and answer waiting for the prefix, now that discovery has ended;
    /// the other discovery queries are dropped.
    private mutating func discoveryEnded(_ outcome: Discovery, now: UInt64) -> [Action] {
        guard discovery == .asking else { return [] }
        discovery = outcome
        var actions = dropQueries(of: ProbeStateMachine.discoveryEndpoint, now: now)
        for index in runs.indices {
            actions += reachThroughNAT64(index, now: now)
            let waiting = runs[index].lookup.awaitingPrefix
            guard !waiting.isEmpty, runs[index].phase != .done else { continue }
            runs[index].lookup.awaitingPrefix = []
            if case .found(let prefix) = outcome {
                for address in waiting { actions += tryAddress(index, prefix.synthesize(address)) }
            } else {
                runs[index].lookup.unroutable = runs[index].lookup.unroutable ?? waiting[0]
            }
            actions += lookupEnded(index, now: now)
        }
        return actions
    }

    /// Closes the queries still out for `endpoint` (of `type` only, when given): a server
    /// answered definitively, or the discovery ended.
    private mutating func dropQueries(of endpoint: Int, type: UInt16? = nil, now: UInt64) -> [Action] {
        var actions: [Action] = []
        for fd in roles.keys.sorted() {
            guard case .query(let asked)? = roles[fd], asked.query.endpoint == endpoint, type == nil || asked.query.type == type else { continue }
            roles[fd] = nil
            actions.append(.close(fd: fd))
            if endpoint == ProbeStateMachine.discoveryEndpoint { pendingDiscoveries -= 1 } else { runs[endpoint].lookup.pendingQueries -= 1 }
        }
        return actions
    }

    private mutating func querySent(_ query: Query, fd: FileDescriptor?, now: UInt64) -> [Action] {
        guard let fd else { return queryEnded(query, .invalid, failure: ProbeStateMachine.unreachableServers, now: now) }
        // Asked again over TCP after the question was settled some other way.
        let settled = query.endpoint == ProbeStateMachine.discoveryEndpoint ? discovery != .asking
            : runs[query.endpoint].phase == .done || runs[query.endpoint].lookup.settled.contains(query.type)
        if settled {
            if query.endpoint == ProbeStateMachine.discoveryEndpoint { pendingDiscoveries -= 1 } else { runs[query.endpoint].lookup.pendingQueries -= 1 }
            return [.close(fd: fd)]
        }
        roles[fd] = .query(Asked(query: query))
        return []
    }

    /// What a query's socket gave: over UDP a datagram (one that is not the answer is
    /// ignored), over TCP the next bytes of the framed answer.
    private mutating func queryReceived(_ fd: FileDescriptor, _ asked: Asked, _ received: Result<[UInt8], Errno>, now: UInt64) -> [Action] {
        let query = asked.query
        let answer: DNSMessage.Answer
        switch received {
        case .failure(let error):
            roles[fd] = nil
            return [.close(fd: fd)] + queryEnded(query, .invalid, failure: "the DNS server did not answer: \(error)", now: now)
        case .success(let bytes) where bytes.isEmpty:
            roles[fd] = nil
            return [.close(fd: fd)] + queryEnded(query, .invalid, failure: "the DNS server closed the connection", now: now)
        case .success(let bytes) where query.overTCP:
            var asked = asked
            asked.stream += bytes
            guard let message = DNSMessage.unframed(asked.stream) else {
                // A message is at most 64 KiB and its 2-byte length: more without one is not DNS.
                roles[fd] = asked.stream.count > 0x1_0001 ? nil : .query(asked)
                return roles[fd] == nil ? [.close(fd: fd)] + queryEnded(query, .invalid, failure: "the DNS server's answer is malformed", now: now) : []
            }
            answer = DNSMessage.parse(message, id: query.id, type: query.type)
        case .success(let bytes):
            answer = DNSMessage.parse(bytes, id: query.id, type: query.type)
            if answer == .invalid { return [] }
        }
        roles[fd] = nil
        var actions: [Action] = [.close(fd: fd)]
        if answer == .truncated && !query.overTCP {
            // The answer did not fit: the same query over TCP, to the same server (glibc).
            var again = query
            again.overTCP = true
            actions.append(.openQuery(again))
            return actions
        }
        if answer == .noAddress(rcode: DNSMessage.rcodeFormatError) && DNSMessage.hasEDNS(query.bytes) {
            // A server that does not know EDNS0: the same query without it (glibc's fallback).
            var again = query
            again.bytes = DNSMessage.withoutEDNS(query.bytes)
            actions.append(.openQuery(again))
            return actions
        }
        let failure: String? = switch answer {
        case .noAddress(let rcode) where !answer.isDefinitive: "the DNS server failed (\(DNSMessage.rcodeName(rcode)))"
        case .truncated, .invalid: "the DNS server's answer is malformed"
        default: nil
        }
        return actions + queryEnded(query, answer, failure: failure, now: now)
    }

    /// A query ended: with an answer, definitive or not, or with `failure`.
    private mutating func queryEnded(_ query: Query, _ answer: DNSMessage.Answer, failure: String?, now: UInt64) -> [Action] {
        guard query.endpoint != ProbeStateMachine.discoveryEndpoint else { return discovered(answer, failure: failure, now: now) }
        let index = query.endpoint
        runs[index].lookup.pendingQueries -= 1
        guard runs[index].phase != .done else { return [] }
        var actions: [Action] = []
        if case .addresses(let found) = answer {
            runs[index].lookup.resolved = true
            for address in found { actions += resolved(index, address) }
        }
        if answer.isDefinitive {
            // glibc's rule: one server's definitive answer is the name's; the others are not waited for.
            runs[index].lookup.settled.insert(query.type)
            if case .noAddress = answer { runs[index].lookup.notFound = true }
            actions += dropQueries(of: index, type: query.type, now: now)
        } else if let failure {
            runs[index].lookup.failure = failure
        }
        return actions + lookupEnded(index, now: now)
    }

    /// An address the name resolved to: connected to, unless it is loopback or unspecified
    /// (a filtering resolver's answer for a public name), or of a family the path does not
    /// route (through NAT64 when its prefix is known, once it is when it is looked for).
    private mutating func resolved(_ index: Int, _ address: IPAddress) -> [Action] {
        // A proxy's name may well stand for this machine (a local proxy such as cntlm).
        if (address.isLoopback || address.isUnspecified) && !runs[index].endpoint.target.isLocalhostName && runs[index].proxy == nil {
            runs[index].lookup.filtered = runs[index].lookup.filtered ?? address
            return []
        }
        guard !routes(address) else { return tryAddress(index, address) }
        if address.family == IPAddress.inet {
            switch discovery {
            case .found(let prefix): return tryAddress(index, prefix.synthesize(address))
            case .asking:
                if !runs[index].lookup.awaitingPrefix.contains(address) { runs[index].lookup.awaitingPrefix.append(address) }
                return []
            case .notNeeded, .failed: break
            }
        }
        // A bound socket would wait out the timeout on it.
        runs[index].lookup.unroutable = runs[index].lookup.unroutable ?? address
        return []
    }

    /// Connects to a new address of the endpoint, unless a connection already won.
    private mutating func tryAddress(_ index: Int, _ address: IPAddress) -> [Action] {
        guard !runs[index].lookup.addresses.contains(address) else { return [] }
        runs[index].lookup.addresses.append(address)
        return runs[index].active == nil ? startConnecting(index, to: address) : []
    }

    /// Ends an endpoint whose resolution is over with nothing to connect to, or whose
    /// connections all failed.
    private mutating func lookupEnded(_ index: Int, timedOut: Bool = false, now: UInt64) -> [Action] {
        let lookup = runs[index].lookup
        guard runs[index].phase != .done, lookup.pendingQueries == 0, lookup.awaitingPrefix.isEmpty else { return [] }
        guard lookup.addresses.isEmpty else { return finishIfNothingLeft(index, now: now) }
        let host = runs[index].host
        let name = runs[index].proxy.map { "the name of \($0.named), '\(host)'," } ?? "the name '\(host)'"
        let reason: ConnectivityFailure = if let address = lookup.filtered {
            .init(.filteredAnswer, "the name '\(host)' resolved to \(address): the network's DNS filters it")
        } else if let address = lookup.unroutable { unroutable(address) }
        else if lookup.notFound || lookup.resolved { .init(.nameNotResolved, "\(name) did not resolve") }
        else if timedOut { .init(.resolutionTimedOut, "name resolution timed out") }
        else if let failure = lookup.failure { .init(.dnsFailure, failure) }
        else { .init(.nameNotResolved, "\(name) did not resolve") }
        return finish(index, reason, now: now)
    }

    /// A discovery query ended: a prefix, or a definitive answer without one, ends the
    /// discovery; a server's failure leaves it to the others.
    private mutating func discovered(_ answer: DNSMessage.Answer, failure: String?, now: UInt64) -> [Action] {
        pendingDiscoveries -= 1
        guard discovery == .asking else { return [] }
        if case .addresses(let found) = answer, let prefix = NAT64Prefix.discover(in: found) {
            return discoveryEnded(.found(prefix), now: now)
        }
        guard answer.isDefinitive || pendingDiscoveries == 0 else { return [] }
        let reason = switch answer {
        case .addresses: "ipv4only.arpa resolved to no well-known address"
        case .noAddress where answer.isDefinitive: "ipv4only.arpa has no AAAA record"
        default: failure == ProbeStateMachine.unreachableServers ? failure ?? "" : "the DNS servers did not answer for ipv4only.arpa"
        }
        return discoveryEnded(.failed(reason), now: now)
    }

    private mutating func startConnecting(_ index: Int, to address: IPAddress) -> [Action] {
        runs[index].opening += 1
        return [.connect(endpoint: index, address: address, port: runs[index].port)]
    }

    private mutating func connectStarted(_ index: Int, to address: IPAddress, _ outcome: ConnectStart, now: UInt64) -> [Action] {
        runs[index].opening -= 1
        switch outcome {
        case .started(let fd):
            guard runs[index].phase != .done else { return [.close(fd: fd)] }
            roles[fd] = .connect(endpoint: index, address: address)
            runs[index].connecting.append(fd)
            runs[index].phase = .connecting
            return []
        case .socketFailed(let error):
            runs[index].outcome.error = .init(.systemFailure, "cannot open a socket: \(error)")
        case .connectFailed(let error, let noRoute):
            let kind: ConnectivityFailure.Kind = noRoute ? .noRoute : .connectionFailed
            runs[index].outcome.error = .init(kind == .noRoute || runs[index].proxy == nil ? kind : .proxyFailed,
                                              "cannot connect to \(runs[index].proxy.map { "\($0.named) at " } ?? "")\(address): \(error)")
        }
        return finishIfNothingLeft(index, now: now)
    }

    private mutating func connectFinished(fd: FileDescriptor, error: Errno?, now: UInt64) -> [Action] {
        if case .query(let asked)? = roles[fd] {
            // A query over TCP: send it once connected.
            guard let error else { return [.send(fd: fd, request: DNSMessage.framed(asked.query.bytes))] }
            roles[fd] = nil
            return [.close(fd: fd)] + queryEnded(asked.query, .invalid, failure: "cannot connect to the DNS server over TCP: \(error)", now: now)
        }
        guard case .connect(let index, let address)? = roles[fd] else { return [] }
        runs[index].connecting.removeAll { $0 == fd }
        if error != nil || runs[index].active != nil {
            if let error {
                // The SYN left: an unreachable error now is the network's answer (a router's
                // ICMP), not this machine lacking a route, which fails the connect at once.
                runs[index].outcome.error = .init(runs[index].proxy == nil ? .connectionFailed : .proxyFailed,
                                                  "cannot connect to \(runs[index].naming(address)): \(error)")
            }
            roles[fd] = nil
            return [.close(fd: fd)] + finishIfNothingLeft(index, now: now)
        }
        // The first connection wins; the others for this endpoint are dropped.
        var actions: [Action] = []
        for other in runs[index].connecting where roles.removeValue(forKey: other) != nil { actions.append(.close(fd: other)) }
        runs[index].connecting.removeAll()
        // Active from now: addresses that resolve later are not connected to.
        runs[index].active = fd
        let target = runs[index].endpoint.target
        if let proxy = runs[index].proxy, proxy.isSOCKS {
            // A SOCKS5 proxy: its negotiation first, then HTTP or TLS through it.
            roles[fd] = .way(endpoint: index, address: address, .socks(.method, answer: []))
            return actions + [.send(fd: fd, request: SOCKS5.greeting(credentials: proxy.credentials))]
        }
        if target.isTLS, let proxy = runs[index].proxy {
            // Through the proxy: a tunnel first, then TLS inside it.
            roles[fd] = .way(endpoint: index, address: address, .tunnel(head: []))
            return actions + [.send(fd: fd, request: target.connectRequest(via: proxy))]
        }
        return actions + opened(fd: fd, index, address)
    }

    /// The way to the endpoint is open (connected to it, or through its proxy's tunnel or
    /// SOCKS5 negotiation): TLS for an `https://` endpoint, else the request, in absolute
    /// form to an HTTP proxy.
    private mutating func opened(fd: FileDescriptor, _ index: Int, _ address: IPAddress) -> [Action] {
        let target = runs[index].endpoint.target
        if target.isTLS {
            roles[fd] = .way(endpoint: index, address: address, .handshake(.readable))
            return [.startTLS(fd: fd, host: target.host, hostIsAddress: target.address != nil)]
        }
        roles[fd] = .way(endpoint: index, address: address, .request)
        let proxy = runs[index].proxy.flatMap { $0.isSOCKS ? nil : $0 }
        return [.send(fd: fd, request: target.request(via: proxy))]
    }

    /// A TLS handshake step: wait for what it wants, send the request once it is done, or
    /// end the endpoint. While the response is read, a TLS error ends it as malformed.
    private mutating func tlsStepped(fd: FileDescriptor, _ step: TLSStep, now: UInt64) -> [Action] {
        if case .way(let index, _, .response)? = roles[fd] {
            guard case .failed(let reason) = step else { return [] }
            return finish(index, .init(.malformedAnswer, "reading the response failed: \(reason)"), now: now)
        }
        guard case .way(let index, let address, .handshake)? = roles[fd] else { return [] }
        let target = runs[index].endpoint.target
        let named = runs[index].proxy.map { "\(target.host) port \(target.port) through \($0.named)" } ?? "\(address) port \(target.port)"
        switch step {
        case .wantRead:
            roles[fd] = .way(endpoint: index, address: address, .handshake(.readable))
            return []
        case .wantWrite:
            roles[fd] = .way(endpoint: index, address: address, .handshake(.writable))
            return []
        case .done:
            // `requestSent` takes it from here, as for a plain connection.
            roles[fd] = .way(endpoint: index, address: address, .request)
            return [.send(fd: fd, request: runs[index].endpoint.target.request)]
        case .closed(let reason):
            return finish(index, .init(.connectionFailed, "\(named): \(reason)"), now: now)
        case .failed(let reason):
            return finish(index, .init(.tlsFailed, "TLS with \(named) failed: \(reason)"), now: now)
        case .unavailable(let reason):
            return finish(index, .init(.systemFailure, "cannot check \(runs[index].endpoint.url): \(reason)"), now: now)
        }
    }

    /// The most bytes of a proxy's answer to `CONNECT` read before it counts as no answer.
    package static let tunnelHeadLimit = 16 * 1024

    /// The proxy's answer to `CONNECT`, as it comes: a 2xx opens the tunnel and TLS starts
    /// in it (what follows the head is the endpoint's); anything else is the proxy's
    /// failure, as curl reports it ("CONNECT tunnel failed").
    private mutating func tunnelAnswered(fd: FileDescriptor, _ index: Int, _ address: IPAddress, _ head: [UInt8],
                                         _ received: Result<[UInt8], Errno>, now: UInt64) -> [Action] {
        guard let proxy = runs[index].proxy else { return [] }
        let bytes: [UInt8]
        switch received {
        case .failure(let error):
            return finish(index, .init(.proxyFailed, "\(proxy.named) at \(address) did not answer CONNECT: \(error)"), now: now)
        case .success(let more) where more.isEmpty:
            return finish(index, .init(.proxyFailed, "\(proxy.named) at \(address) closed the connection before answering CONNECT"), now: now)
        case .success(let more):
            bytes = head + more
        }
        switch HTTPResponseClassifier.parseHead(bytes, limit: Self.tunnelHeadLimit) {
        case nil:
            roles[fd] = .way(endpoint: index, address: address, .tunnel(head: bytes))
            return []
        case .invalid(let reason)?:
            return finish(index, .init(.proxyFailed, "\(proxy.named) answered CONNECT with \(reason)"), now: now)
        case .head(let parsed)?:
            guard (200...299).contains(parsed.status) else {
                return finish(index, ProbeStateMachine.tunnelRefused(parsed.status, by: proxy), now: now)
            }
            guard parsed.bodyStart == bytes.count else {
                // The endpoint's TLS cannot have spoken before its ClientHello went out.
                return finish(index, .init(.proxyFailed, "\(proxy.named) sent data after opening the tunnel"), now: now)
            }
            return opened(fd: fd, index, address)
        }
    }

    /// A SOCKS5 proxy's answer, as it comes: the method it chose (then the credentials, or
    /// the connection request), the credentials' verdict, then the connection's reply. A
    /// success opens the way: HTTP in origin form, or TLS, to the endpoint. Anything else is
    /// the proxy's failure, naming it and RFC 1928's reason.
    private mutating func socksAnswered(fd: FileDescriptor, _ index: Int, _ address: IPAddress, _ stage: SOCKSStage, _ answer: [UInt8],
                                        _ received: Result<[UInt8], Errno>, now: UInt64) -> [Action] {
        guard let proxy = runs[index].proxy else { return [] }
        func failed(_ reason: String) -> [Action] {
            finish(index, .init(.proxyFailed, "\(proxy.named) at \(address) \(reason)"), now: now)
        }
        let bytes: [UInt8]
        switch received {
        case .failure(let error): return failed("failed during the SOCKS5 negotiation: \(error)")
        case .success(let more) where more.isEmpty: return failed("closed the connection during the SOCKS5 negotiation")
        case .success(let more): bytes = answer + more
        }
        let target = runs[index].endpoint.target
        let parsed = stage == .connect ? SOCKS5.connectAnswer(bytes) : SOCKS5.twoByteAnswer(bytes, version: stage == .method ? 5 : nil)
        let value: UInt8
        switch parsed {
        case .needMore:
            roles[fd] = .way(endpoint: index, address: address, .socks(stage, answer: bytes))
            return []
        case .invalid(let reason): return failed("answered with \(reason)")
        case .complete(let code): value = code
        }
        var next: (SOCKSStage, [UInt8])?
        switch stage {
        case .method where value == 0:
            next = SOCKS5.connect(to: target).map { (.connect, $0) }
        case .method where value == 2 && proxy.credentials != nil:
            next = proxy.credentials.flatMap(SOCKS5.authentication).map { (.authentication, $0) }
            if next == nil { return failed("cannot be sent credentials over 255 bytes") }
        case .method:
            return failed(value == 0xFF && proxy.credentials == nil ? "wants credentials (SOCKS5)" : "accepts none of the offered SOCKS5 methods")
        case .authentication:
            guard value == 0 else { return failed("refused the credentials (SOCKS5)") }
            next = SOCKS5.connect(to: target).map { (.connect, $0) }
        case .connect:
            guard value == 0 else { return failed("cannot reach \(target.hostHeader): \(SOCKS5.reason(value))") }
            return opened(fd: fd, index, address)
        }
        guard let (stage, message) = next else { return failed("cannot be asked for '\(target.host)'") }
        roles[fd] = .way(endpoint: index, address: address, .socks(stage, answer: []))
        return [.send(fd: fd, request: message)]
    }

    /// What a proxy's refusal of a tunnel says: 407, that it wants credentials; 502, 503
    /// and 504, that it cannot reach the endpoint; others, that it refused.
    package static func tunnelRefused(_ status: Int, by proxy: ProxyServer) -> ConnectivityFailure {
        switch status {
        case 407: .init(.proxyFailed, "\(proxy.named) wants credentials (HTTP 407)")
        case 502, 503, 504: .init(.proxyFailed, "\(proxy.named) answered HTTP \(status) to CONNECT: it cannot reach the endpoint")
        default: .init(.proxyFailed, "\(proxy.named) refused the tunnel (HTTP \(status))")
        }
    }

    private mutating func requestSent(fd: FileDescriptor, complete: Bool, now: UInt64) -> [Action] {
        if case .query(var asked)? = roles[fd] {
            guard complete else {
                roles[fd] = nil
                return [.close(fd: fd)] + queryEnded(asked.query, .invalid, failure: "cannot send the query to the DNS server over TCP", now: now)
            }
            asked.sent = true
            roles[fd] = .query(asked)
            return []
        }
        if case .way(let index, let address, .tunnel)? = roles[fd] {
            // CONNECT is out: the proxy's answer is read (the role stays).
            return complete ? [] : finish(index, .init(.proxyFailed, "cannot send CONNECT to \(runs[index].naming(address))"), now: now)
        }
        if case .way(let index, let address, .socks)? = roles[fd] {
            return complete ? [] : finish(index, .init(.proxyFailed, "cannot send to \(runs[index].naming(address))"), now: now)
        }
        guard case .way(let index, let address, .request)? = roles[fd] else { return [] }
        guard complete else {
            roles[fd] = nil
            return [.close(fd: fd)] + finish(index, .init(runs[index].proxy == nil ? .connectionFailed : .proxyFailed,
                                                          "cannot send the request to \(runs[index].naming(address))"), now: now)
        }
        roles[fd] = .way(endpoint: index, address: address, .response)
        runs[index].active = fd
        runs[index].phase = .reading
        return []
    }

    /// More of the HTTP response, its end, or a read error: classified as it comes.
    private mutating func responded(endpoint index: Int, _ received: Result<[UInt8], Errno>, now: UInt64) -> [Action] {
        let bytes = (try? received.get()) ?? []
        let limit = check.maximumResponseSize
        runs[index].response += bytes.prefix(limit - runs[index].response.count)
        let finished = bytes.isEmpty || runs[index].response.count >= limit
        let verdict = runs[index].classifier.verdict(runs[index].response, finished: finished)
        if verdict != .needMore {
            runs[index].outcome.verdict = verdict
            if case .malformed(let reason) = verdict {
                runs[index].outcome.error = .init(.malformedAnswer, runs[index].proxy.map { "\(reason) (through \($0.named))" } ?? reason)
            }
            // Through a tunnel, an HTTP error is the endpoint's own, not the proxy's.
            if case .httpError(let status, _) = verdict, let proxy = runs[index].proxy, !runs[index].endpoint.target.isTLS, !proxy.isSOCKS {
                runs[index].outcome.error = ProbeStateMachine.proxyAnswer(status, from: proxy)
            }
            let reason: ConnectivityFailure? = if case .failure(let error) = received { .init(.malformedAnswer, "reading failed: \(error)") } else { nil }
            return finish(index, reason, now: now)
        }
        return finished ? finish(index, .init(.malformedAnswer, "the connection closed early"), now: now) : []
    }

    /// What an HTTP error through a proxy says: 502, 503 and 504 are a proxy's own answer
    /// when it cannot reach the endpoint (curl reports them so), 407 that it wants
    /// credentials; others are the endpoint's, passed on.
    package static func proxyAnswer(_ status: Int, from proxy: ProxyServer) -> ConnectivityFailure {
        switch status {
        case 407: .init(.proxyFailed, "\(proxy.named) wants credentials (HTTP 407)")
        case 502, 503, 504: .init(.proxyFailed, "\(proxy.named) answered HTTP \(status): it cannot reach the endpoint")
        default: .init(.httpError, "the endpoint answered HTTP \(status) through \(proxy.named), an error, not a portal's page")
        }
    }

    // MARK: - Endings

    /// Gives up every query still waiting (the resolution deadline passed): the discovery
    /// fails, and endpoints with no address, or whose connections all failed, end.
    private mutating func dropQueries(now: UInt64) -> [Action] {
        var actions: [Action] = []
        if discovery == .asking { actions += discoveryEnded(.failed("ipv4only.arpa did not resolve in time"), now: now) }
        for index in runs.indices {
            let dropped = dropQueries(of: index, now: now)
            guard !dropped.isEmpty else { continue }
            actions += dropped + lookupEnded(index, timedOut: true, now: now)
        }
        return actions
    }

    /// Ends an endpoint with no query, connection or `connect` action left.
    private mutating func finishIfNothingLeft(_ index: Int, now: UInt64) -> [Action] {
        let run = runs[index]
        guard run.lookup.pendingQueries == 0 && run.lookup.awaitingPrefix.isEmpty && run.opening == 0 && run.connecting.isEmpty
                && run.active == nil else { return [] }
        return finish(index, run.outcome.error ?? .init(.connectionFailed, "cannot connect"), now: now)
    }

    /// Ends an endpoint; `reason` is its error unless it has one already.
    private mutating func finish(_ index: Int, _ reason: ConnectivityFailure?, now: UInt64) -> [Action] {
        guard runs[index].phase != .done else { return [] }
        runs[index].phase = .done
        runs[index].outcome.error = runs[index].outcome.error ?? reason
        runs[index].outcome.finishedAt = now
        var actions: [Action] = []
        for fd in runs[index].connecting + [runs[index].active].compactMap({ $0 }) where roles.removeValue(forKey: fd) != nil {
            actions.append(.close(fd: fd))
        }
        runs[index].connecting.removeAll()
        runs[index].active = nil
        return actions
    }

    /// Where endpoint `index`'s winning connection is, if it has one.
    private func way(of index: Int) -> Way? {
        guard let fd = runs[index].active, case .way(_, _, let way)? = roles[fd] else { return nil }
        return way
    }

    /// Ends the check: the endpoints still running with what they were waiting for, every
    /// descriptor closed, and the result.
    private mutating func finishAll(now: UInt64) -> [Action] {
        var actions: [Action] = []
        for index in runs.indices {
            let reason: ConnectivityFailure = switch runs[index].phase {
            case .resolving where runs[index].lookup.awaitsPrefix:
                .init(.noNAT64, "the path has no IPv4, and no NAT64 prefix was found in time (RFC 7050)")
            case .resolving: .init(.resolutionTimedOut, "name resolution timed out")
            case .connecting where way(of: index).map({ if case .handshake = $0 { true } else { false } }) == true:
                .init(.timedOut, "no TLS handshake with \(runs[index].endpoint.target.host) within \(check.timeout)")
            case .connecting where way(of: index).map({ if case .tunnel = $0 { true } else { false } }) == true:
                .init(.proxyFailed, "no answer to CONNECT from \(runs[index].proxy.map(\.named) ?? "the proxy") within \(check.timeout)")
            case .connecting where way(of: index).map({ if case .socks = $0 { true } else { false } }) == true:
                .init(.proxyFailed, "no SOCKS5 answer from \(runs[index].proxy.map(\.named) ?? "the proxy") within \(check.timeout)")
            case .connecting: .init(.timedOut, "no connection \(runs[index].proxy.map { "to \($0.named) " } ?? "")within \(check.timeout)")
            case .reading, .done: .init(.timedOut, "no answer \(runs[index].proxy.map { "through \($0.named) " } ?? "")within \(check.timeout)")
            }
            // A portal's page still coming when the time is up is its answer all the same.
            if runs[index].phase == .reading, let portal = runs[index].classifier.portal(in: runs[index].response) {
                runs[index].outcome.verdict = portal
                actions += finish(index, nil, now: now)
                continue
            }
            actions += finish(index, reason, now: now)
        }
        actions += roles.keys.sorted().map { .close(fd: $0) }
        roles.removeAll()
        if cancelled { return actions + [.finish(ConnectivityResult(connectivity: .unknown, failure: .init(.cancelled, "the check was cancelled")))] }
        let outcomes = runs.map { ($0.endpoint, $0.lookup.resolved, $0.outcome.verdict, $0.outcome.error, $0.outcome.finishedAt.map(milliseconds)) }
        var result = ProbeVerdict.of(outcomes, elapsed: milliseconds(at: now))
        result.proxy = runs.first { $0.endpoint.url == result.url }?.proxy?.url
        if case .found(let prefix) = discovery { result.nat64Prefix = prefix.description }
        return actions + [.finish(result)]
    }
}
#endif
