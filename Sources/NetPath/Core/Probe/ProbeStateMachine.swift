#if os(Linux) || os(Android)
/// The decisions of one connectivity check on Linux, apart from its I/O: events in, actions
/// out (swift-async-algorithms' state machines). It names the DNS queries to send and the
/// connections to open, reads the answers and responses it is given, and says when to wait
/// and when the check is over. It makes no system call and reads no clock: every event
/// comes with the time, so it is tested with fixtures and a hand-set clock.
///
/// It owns what the endpoints share: the deadlines, the DNS queries (``DNSQueries``), the
/// NAT64 prefix's discovery and the families the path routes (``ProbeRoutes``), and the
/// verdict; each endpoint's run (its addresses, the connections that race, the way the
/// winner takes to the answer) is an ``EndpointRun`` of its own, handed its sockets' events.
///
/// The caller (``LinuxProbe``) carries out each action in order and reports the outcome of
/// `openQuery`, `connect` and `send` at once, before the next action; after the events of a
/// wait it calls ``next(at:)``, which ends in `wait` or `finish`.
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
        /// then call ``next(at:)``. Only ``next(at:)`` returns it.
        case wait(until: Instant, watching: [Watch])
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

    /// The `endpoint` of a discovery query.
    package static let discoveryEndpoint = -1

    /// Why a query could not be sent.
    private static let unreachableServers = "the DNS servers cannot be reached"

    /// How long the other endpoints may still answer once one passed: a portal's answer
    /// comes from the local network in milliseconds, so a blocked or silent endpoint makes
    /// `full` at most this late instead of at the timeout.
    package static let passGrace: Duration = .seconds(1)

    private let check: ConnectivityCheck
    private let start: Instant
    private var runs: [EndpointRun]
    private var queries: DNSQueries
    private var routes: ProbeRoutes
    /// The record types each name is asked for.
    private let recordTypes: [UInt16]

    /// - Parameters:
    ///   - servers: The resolver's DNS servers, in order.
    ///   - start: When the check starts, on the clock the events' times are on.
    ///   - firstQueryID: The first DNS query's id (random in use); each query takes the next.
    ///   - ipv4: The path routes IPv4 to the Internet.
    ///   - ipv6: The path routes IPv6 to the Internet. When only IPv6 is routed, the NAT64
    ///     prefix is discovered (RFC 7050) and reported, and IPv4 literals are reached
    ///     through it (RFC 6052).
    ///   - family: The one family this check decides (SPEC §3, per network): names asked
    ///     for its records only (A, or AAAA and, on an IPv6-only path, A for NAT64), only
    ///     its addresses connected to. `nil`: both families, as the path routes them.
    package init(check: ConnectivityCheck, servers: [IPAddress], start: Instant, firstQueryID: UInt16,
                 ipv4: Bool = true, ipv6: Bool = true, family: IPFamily? = nil) {
        self.check = check
        self.start = start
        queries = DNSQueries(servers: servers, firstID: firstQueryID)
        routes = ProbeRoutes(pathIPv4: ipv4, pathIPv6: ipv6, family: family)
        // Both types when the path routes the one family only: an answer of the other
        // still tells that the name resolves (and, IPv6-only, gives NAT64 its addresses).
        recordTypes = switch family {
        case .ipv4? where ipv6: [DNSMessage.typeA]
        case .ipv6? where ipv4: [DNSMessage.typeAAAA]
        default: [DNSMessage.typeA, DNSMessage.typeAAAA]
        }
        runs = check.endpoints.enumerated().map { number, endpoint in
            // An https endpoint's proxy is asked for a tunnel (CONNECT).
            EndpointRun(number: number, endpoint: endpoint, limit: check.maximumResponseSize,
                        proxy: check.proxy.server(for: endpoint.target, scheme: endpoint.target.scheme))
        }
    }

    /// Whether this family's check has nothing to reach: every endpoint (or its proxy) is
    /// an address of the other family, not reached through NAT64. Such a check is not
    /// run: the family is not checked.
    package var reachesNothing: Bool {
        routes.checked != nil && runs.allSatisfy { run in
            guard let address = run.address, !address.isLoopback else { return false }
            return !routes.routes(address) && !(address.family == IPAddress.inet && routes.needsNAT64)
        }
    }

    private var deadline: Instant { start + check.timeout }
    private var resolutionDeadline: Instant { start + check.resolutionTimeout }

    /// When the check ends at the latest: the timeout, or ``passGrace`` after the first pass.
    private var end: Instant {
        let passed = runs.compactMap { run -> Instant? in
            if case .pass? = run.outcome.verdict { return run.outcome.finishedAt }
            return nil
        }.min()
        return passed.map { min(deadline, $0 + Self.passGrace) } ?? deadline
    }

    /// Whether an endpoint answered as a portal does or every endpoint is done. A pass does
    /// not end the check: another endpoint may still answer in place of its expected answer,
    /// which makes it `portal` (``ProbeVerdict``). The NAT64 prefix's discovery holds no
    /// verdict: the result reports the prefix when it was found in time.
    private var isComplete: Bool {
        runs.allSatisfy(\.isFinished) || runs.contains(where: \.answeredAsAPortal)
    }

    /// The socket actions an event calls for (never `wait`; `finish` only on cancellation
    /// or a failed wait).
    package mutating func handle(_ event: Event, at now: Instant) -> [Action] {
        switch event {
        case .started:
            return started(at: now)
        case .querySent(let query, let fd):
            return querySent(query, fd: fd, at: now)
        case .connectStarted(let index, _, _):
            return runs[index].handle(event, at: now)
        case .connectFinished(let fd, _), .requestSent(let fd, _), .received(let fd, _), .tlsStepped(let fd, _):
            if queries.contains(fd) {
                let (actions, ended) = queries.handle(event)
                return actions + (ended.map { queryEnded($0, at: now) } ?? [])
            }
            guard let index = runs.firstIndex(where: { $0.descriptors.contains(fd) }) else { return [] }
            return runs[index].handle(event, at: now)
        case .cancelled:
            return finishAll(at: now, cancelled: true)
        }
    }

    /// What to do once the events of a wait are handled: the queries given up at the
    /// resolution deadline, then `wait` or `finish`.
    package mutating func next(at now: Instant) -> [Action] {
        let end = self.end
        if isComplete || now >= end { return finishAll(at: now, cancelled: false) }
        if now >= resolutionDeadline && !queries.isEmpty {
            // The endpoints this ends may be the last: decide again rather than wait on
            // nothing but cancellation until the deadline.
            let dropped = dropQueries(at: now)
            return dropped + next(at: now)
        }
        let watching = (queries.watches + runs.flatMap(\.watches)).sorted { $0.fd < $1.fd }
        return [.wait(until: queries.isEmpty ? end : min(end, resolutionDeadline), watching: watching)]
    }

    // MARK: - Names and the NAT64 prefix

    /// Literal addresses connect at once (an IPv4 one on an IPv6-only path once the NAT64
    /// prefix is known); names are resolved; on an IPv6-only path the prefix is looked for.
    private mutating func started(at now: Instant) -> [Action] {
        var actions = discoveryQueries()
        for index in runs.indices {
            if let proxy = runs[index].proxy, let reason = proxy.unusable {
                // As curl's request would, the endpoint fails on the proxy it must use.
                runs[index].lookup.resolved = true
                actions += runs[index].finish(.init(.proxyFailed, "cannot use \(proxy.named): \(reason)"), at: now)
            } else if let address = runs[index].address {
                actions += runs[index].reach(address, routes: routes, at: now)
            } else if queries.servers.isEmpty {
                actions += runs[index].finish(.init(.noDNSServer, "no DNS server is configured"), at: now)
            } else {
                let asked = queries.ask(runs[index].host, types: recordTypes, endpoint: index)
                runs[index].lookup.pendingQueries += asked.count
                actions += asked.map(Action.openQuery)
                if asked.isEmpty { actions += runs[index].finish(.init(.dnsFailure, Self.unreachableServers), at: now) }
            }
        }
        return actions
    }

    /// An AAAA query for `ipv4only.arpa` to each server asked (RFC 7050 §3), when the prefix
    /// is looked for; without a server, it cannot be.
    private mutating func discoveryQueries() -> [Action] {
        guard routes.isDiscovering else { return [] }
        let asked = queries.ask(NAT64Prefix.discoveryName, types: [DNSMessage.typeAAAA], endpoint: Self.discoveryEndpoint)
        routes.discovery = asked.isEmpty ? .failed("no DNS server is configured to discover it with (RFC 7050)") : .asking(pending: asked.count)
        return asked.map(Action.openQuery)
    }

    private mutating func querySent(_ query: Query, fd: FileDescriptor?, at now: Instant) -> [Action] {
        guard let fd else { return queryEnded(.init(query: query, answer: .invalid, failure: Self.unreachableServers), at: now) }
        // Asked again over TCP after the question was settled some other way.
        if query.endpoint == Self.discoveryEndpoint {
            guard routes.isDiscovering else { return [.close(fd: fd)] }
        } else if runs[query.endpoint].isFinished || runs[query.endpoint].lookup.settled.contains(query.type) {
            runs[query.endpoint].lookup.pendingQueries -= 1
            return [.close(fd: fd)]
        }
        queries.sent(query, fd: fd)
        return []
    }

    /// A query ended: its endpoint's run takes the answer, the other servers' queries for
    /// a record type answered definitively are dropped, and the run ends if its
    /// resolution did with nothing to connect to.
    private mutating func queryEnded(_ ended: DNSQueries.Ended, at now: Instant) -> [Action] {
        let index = ended.query.endpoint
        guard index != Self.discoveryEndpoint else { return discovered(ended, at: now) }
        var actions = runs[index].queryEnded(ended, routes: routes)
        guard !runs[index].isFinished else { return actions }
        if ended.answer.isDefinitive { actions += dropQueries(of: index, type: ended.query.type) }
        return actions + runs[index].lookupEnded(routes: routes, at: now)
    }

    /// A discovery query ended: a prefix, or a definitive answer without one, ends the
    /// discovery; a server's failure leaves it to the others.
    private mutating func discovered(_ ended: DNSQueries.Ended, at now: Instant) -> [Action] {
        routes.discoveryQueryEnded()
        guard case .asking(let pending) = routes.discovery else { return [] }
        let answer = ended.answer
        if case .addresses(let found) = answer, let prefix = NAT64Prefix.discover(in: found) {
            return discoveryEnded(.found(prefix), at: now)
        }
        guard answer.isDefinitive || pending == 0 else { return [] }
        let reason = switch answer {
        case .addresses: "ipv4only.arpa resolved to no well-known address"
        case .noAddress where answer.isDefinitive: "ipv4only.arpa has no AAAA record"
        default: ended.failure == Self.unreachableServers ? Self.unreachableServers : "the DNS servers did not answer for ipv4only.arpa"
        }
        return discoveryEnded(.failed(reason), at: now)
    }

    /// Every IPv4 literal and answer waiting for the prefix, now that discovery has ended;
    /// the other discovery queries are dropped.
    private mutating func discoveryEnded(_ outcome: ProbeRoutes.Discovery, at now: Instant) -> [Action] {
        guard routes.isDiscovering else { return [] }
        routes.discovery = outcome
        var actions = dropQueries(of: Self.discoveryEndpoint)
        for index in runs.indices { actions += runs[index].discoveryEnded(routes: routes, at: now) }
        return actions
    }

    /// Closes the queries still out for `endpoint` (of `type` only, when given): a server
    /// answered definitively, or the discovery ended.
    private mutating func dropQueries(of endpoint: Int, type: UInt16? = nil) -> [Action] {
        let dropped = queries.drop(endpoint: endpoint, type: type)
        if endpoint != Self.discoveryEndpoint { runs[endpoint].lookup.pendingQueries -= dropped.count }
        return dropped.map { .close(fd: $0) }
    }

    /// Gives up every query still waiting (the resolution deadline passed): the discovery
    /// fails, and endpoints with no address, or whose connections all failed, end.
    private mutating func dropQueries(at now: Instant) -> [Action] {
        var actions: [Action] = []
        if routes.isDiscovering { actions += discoveryEnded(.failed("ipv4only.arpa did not resolve in time"), at: now) }
        for index in runs.indices {
            let dropped = dropQueries(of: index)
            guard !dropped.isEmpty else { continue }
            actions += dropped + runs[index].lookupEnded(routes: routes, timedOut: true, at: now)
        }
        return actions
    }

    // MARK: - The verdict

    /// Each endpoint's outcome so far (all of them final once the check finished): what
    /// ``ProbeVerdict`` decides from, and what the families' checks are combined from.
    package var outcomes: [ProbeVerdict.Outcome] {
        runs.map { run in
            (run.endpoint, run.lookup.resolved, run.outcome.verdict, run.outcome.error, run.outcome.finishedAt.map { start.duration(until: $0) })
        }
    }

    /// Ends the check: the endpoints still running with what they were waiting for, every
    /// descriptor closed, and the result.
    private mutating func finishAll(at now: Instant, cancelled: Bool) -> [Action] {
        var actions: [Action] = []
        for index in runs.indices { actions += runs[index].timedOut(after: check.timeout, at: now) }
        actions += queries.dropAll().map { .close(fd: $0) }
        if cancelled { return actions + [.finish(ConnectivityResult(connectivity: .unknown, failure: .init(.cancelled, "the check was cancelled")))] }
        var result = ProbeVerdict.of(outcomes, elapsed: start.duration(until: now))
        result.proxy = runs.first { $0.endpoint.url == result.url }?.proxy?.url
        if case .found(let prefix) = routes.discovery { result.nat64Prefix = prefix.description }
        return actions + [.finish(result)]
    }
}
#endif
