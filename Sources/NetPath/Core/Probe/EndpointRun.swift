#if os(Linux) || os(Android)
/// One endpoint's run in a connectivity check, apart from its I/O: the addresses its name
/// (or its proxy's) resolves to, the connections that race to them, and the way the winner
/// takes to the answer, as ``Phase`` says. A part of ``ProbeStateMachine``, which owns the
/// DNS queries, the NAT64 discovery and the deadlines, and hands each run the events of its
/// sockets (``handle(_:at:)``) and the ends of its queries.
struct EndpointRun {
    typealias Action = ProbeStateMachine.Action

    /// A connection in progress or made: its socket and the address it goes to.
    struct Connection: Equatable {
        var fd: FileDescriptor
        var address: IPAddress
    }

    /// Which answer of a SOCKS5 proxy is awaited.
    enum SOCKSStage { case method, authentication, connect }

    /// Where the run is. Once a connection wins, it goes straight to the endpoint (the
    /// request, or TLS for an `https://` endpoint) or through the proxy (a `CONNECT` tunnel
    /// or a SOCKS5 negotiation first), then sends the request and reads the response.
    enum Phase: Equatable {
        /// No connection started yet: the name is resolved, or an address waits for the
        /// NAT64 prefix.
        case resolving
        /// Connections in progress, one per address: the first made wins. None while
        /// every one so far failed and more addresses may come.
        case connecting([Connection])
        /// The proxy of an `https://` endpoint was sent `CONNECT`: its answer read so far.
        case tunnel(Connection, head: [UInt8])
        /// The SOCKS5 proxy's negotiation: the answer awaited and its bytes so far.
        case socks(Connection, SOCKSStage, answer: [UInt8])
        /// The TLS handshake, waiting for `interest`.
        case handshake(Connection, ProbeStateMachine.Interest)
        /// The request is being sent (in the clear, or in the TLS session).
        case request(Connection)
        /// The response, read so far.
        case response(Connection, [UInt8])
        case finished
    }

    /// How the run ended.
    struct Outcome {
        var verdict: HTTPResponseClassifier.Verdict?
        var error: ConnectivityFailure?
        var finishedAt: Instant?
    }

    /// The run's place among the check's endpoints, which its `connect` actions name.
    let number: Int
    let endpoint: ConnectivityCheck.Endpoint
    let classifier: HTTPResponseClassifier
    /// The proxy its request goes through, when one is configured for it: its name is
    /// resolved and connected to in place of the endpoint's.
    let proxy: ProxyServer?
    private(set) var phase = Phase.resolving
    var lookup = Lookup()
    private(set) var outcome = Outcome()
    /// `connect` actions whose outcome has not been reported yet.
    private var opening = 0

    init(number: Int, endpoint: ConnectivityCheck.Endpoint, limit: Int, proxy: ProxyServer?) {
        self.number = number
        self.endpoint = endpoint
        classifier = HTTPResponseClassifier(expectation: endpoint.expectation, limit: limit)
        self.proxy = proxy
    }

    /// Where the connection goes: the proxy, or the endpoint.
    var host: String { proxy?.host ?? endpoint.target.host }
    var address: IPAddress? { proxy.map(\.address) ?? endpoint.target.address }
    var port: UInt16 { proxy?.port ?? endpoint.target.port }

    /// `address port N`, or `the proxy URL (VARIABLE) at address`, for messages.
    func naming(_ address: IPAddress) -> String {
        proxy.map { "\($0.named) at \(address)" } ?? "\(address) port \(endpoint.target.port)"
    }

    var isFinished: Bool { phase == .finished }

    var answeredAsAPortal: Bool {
        if case .unexpected? = outcome.verdict { true } else { false }
    }

    /// The connection that won, once one did.
    var winner: Connection? {
        switch phase {
        case .tunnel(let connection, _), .socks(let connection, _, _), .handshake(let connection, _),
             .request(let connection), .response(let connection, _):
            connection
        case .resolving, .connecting, .finished:
            nil
        }
    }

    /// The run's open sockets.
    var descriptors: [FileDescriptor] {
        if case .connecting(let attempts) = phase { return attempts.map(\.fd) }
        return winner.map { [$0.fd] } ?? []
    }

    /// What the run's sockets are waited on for.
    var watches: [ProbeStateMachine.Watch] {
        switch phase {
        case .connecting(let attempts): attempts.map { .init(fd: $0.fd, interest: .writable) }
        case .request(let connection): [.init(fd: connection.fd, interest: .writable)]
        case .handshake(let connection, let interest): [.init(fd: connection.fd, interest: interest)]
        case .tunnel(let connection, _), .socks(let connection, _, _), .response(let connection, _):
            [.init(fd: connection.fd, interest: .readable)]
        case .resolving, .finished: []
        }
    }

    // MARK: - Connections

    /// What an event of the run's sockets calls for (its `connect` actions' outcomes,
    /// its connections' readiness, its sends, reads and TLS steps).
    mutating func handle(_ event: ProbeStateMachine.Event, at now: Instant) -> [Action] {
        switch event {
        case .connectStarted(_, let address, let start):
            return connectStarted(to: address, start, at: now)
        case .connectFinished(let fd, let error):
            return connectFinished(fd: fd, error: error, at: now)
        case .requestSent(let fd, let complete):
            return requestSent(fd: fd, complete: complete, at: now)
        case .received(let fd, let received):
            switch phase {
            case .response(let connection, let response) where connection.fd == fd:
                return responded(connection, response, received, at: now)
            case .tunnel(let connection, let head) where connection.fd == fd:
                return tunnelAnswered(connection, head, received, at: now)
            case .socks(let connection, let stage, let answer) where connection.fd == fd:
                return socksAnswered(connection, stage, answer, received, at: now)
            default:
                return []
            }
        case .tlsStepped(let fd, let step):
            return tlsStepped(fd: fd, step, at: now)
        case .started, .querySent, .cancelled:
            return []
        }
    }

    /// Starts connecting to `address`.
    mutating func startConnecting(to address: IPAddress) -> [Action] {
        opening += 1
        return [.connect(endpoint: number, address: address, port: port)]
    }

    private mutating func connectStarted(to address: IPAddress, _ start: ProbeStateMachine.ConnectStart, at now: Instant) -> [Action] {
        opening -= 1
        switch start {
        case .started(let fd):
            let attempt = Connection(fd: fd, address: address)
            switch phase {
            case .resolving: phase = .connecting([attempt])
            case .connecting(let attempts): phase = .connecting(attempts + [attempt])
            default: return [.close(fd: fd)]  // over, or a connection already won
            }
            return []
        case .socketFailed(let error):
            outcome.error = .init(.systemFailure, "cannot open a socket: \(error)")
        case .connectFailed(let error, let noRoute):
            let kind: ConnectivityFailure.Kind = noRoute ? .noRoute : .connectionFailed
            outcome.error = .init(kind == .noRoute || proxy == nil ? kind : .proxyFailed,
                                  "cannot connect to \(proxy.map { "\($0.named) at " } ?? "")\(address): \(error)")
        }
        return finishIfNothingLeft(at: now)
    }

    private mutating func connectFinished(fd: FileDescriptor, error: Errno?, at now: Instant) -> [Action] {
        guard case .connecting(var attempts) = phase, let index = attempts.firstIndex(where: { $0.fd == fd }) else { return [] }
        let attempt = attempts.remove(at: index)
        if let error {
            // The SYN left: an unreachable error now is the network's answer (a router's
            // ICMP), not this machine lacking a route, which fails the connect at once.
            outcome.error = .init(proxy == nil ? .connectionFailed : .proxyFailed, "cannot connect to \(naming(attempt.address)): \(error)")
            phase = .connecting(attempts)
            return [.close(fd: fd)] + finishIfNothingLeft(at: now)
        }
        // The first connection wins; the others are dropped, and addresses that resolve
        // later are not connected to.
        let losers = attempts.map { Action.close(fd: $0.fd) }
        let target = endpoint.target
        if let proxy, proxy.isSOCKS {
            // A SOCKS5 proxy: its negotiation first, then HTTP or TLS through it.
            phase = .socks(attempt, .method, answer: [])
            return losers + [.send(fd: fd, request: SOCKS5.greeting(credentials: proxy.credentials))]
        }
        if target.isTLS, let proxy {
            // Through the proxy: a tunnel first, then TLS inside it.
            phase = .tunnel(attempt, head: [])
            return losers + [.send(fd: fd, request: target.connectRequest(via: proxy))]
        }
        return losers + opened(attempt)
    }

    /// The way to the endpoint is open (connected to it, or through its proxy's tunnel or
    /// SOCKS5 negotiation): TLS for an `https://` endpoint, else the request.
    private mutating func opened(_ connection: Connection) -> [Action] {
        let target = endpoint.target
        guard target.isTLS else { return sendRequest(on: connection) }
        phase = .handshake(connection, .readable)
        return [.startTLS(fd: connection.fd, host: target.host, hostIsAddress: target.address != nil)]
    }

    /// Sends the HTTP request: in absolute form to an HTTP proxy, else (to the endpoint, in
    /// its TLS session or through a SOCKS5 proxy) in origin form.
    private mutating func sendRequest(on connection: Connection) -> [Action] {
        phase = .request(connection)
        let httpProxy = endpoint.target.isTLS ? nil : proxy.flatMap { $0.isSOCKS ? nil : $0 }
        return [.send(fd: connection.fd, request: endpoint.target.request(via: httpProxy))]
    }

    private mutating func requestSent(fd: FileDescriptor, complete: Bool, at now: Instant) -> [Action] {
        guard let connection = winner, connection.fd == fd else { return [] }
        switch phase {
        case .tunnel:
            // CONNECT is out: the proxy's answer is read.
            return complete ? [] : finish(.init(.proxyFailed, "cannot send CONNECT to \(naming(connection.address))"), at: now)
        case .socks:
            return complete ? [] : finish(.init(.proxyFailed, "cannot send to \(naming(connection.address))"), at: now)
        case .request:
            guard complete else {
                return finish(.init(proxy == nil ? .connectionFailed : .proxyFailed, "cannot send the request to \(naming(connection.address))"), at: now)
            }
            phase = .response(connection, [])
            return []
        default:
            return []
        }
    }

    /// A TLS handshake step: wait for what it wants, send the request once it is done, or
    /// end the run. While the response is read, a TLS error ends it as malformed.
    private mutating func tlsStepped(fd: FileDescriptor, _ step: ProbeStateMachine.TLSStep, at now: Instant) -> [Action] {
        if case .response(let connection, _) = phase, connection.fd == fd {
            guard case .failed(let reason) = step else { return [] }
            return finish(.init(.malformedAnswer, "reading the response failed: \(reason)"), at: now)
        }
        guard case .handshake(let connection, _) = phase, connection.fd == fd else { return [] }
        let target = endpoint.target
        let named = proxy.map { "\(target.host) port \(target.port) through \($0.named)" } ?? "\(connection.address) port \(target.port)"
        switch step {
        case .wantRead:
            phase = .handshake(connection, .readable)
            return []
        case .wantWrite:
            phase = .handshake(connection, .writable)
            return []
        case .done:
            return sendRequest(on: connection)
        case .closed(let reason):
            return finish(.init(.connectionFailed, "\(named): \(reason)"), at: now)
        case .failed(let reason):
            return finish(.init(.tlsFailed, "TLS with \(named) failed: \(reason)"), at: now)
        case .unavailable(let reason):
            return finish(.init(.systemFailure, "cannot check \(endpoint.url): \(reason)"), at: now)
        }
    }

    /// More of the HTTP response, its end, or a read error: classified as it comes.
    private mutating func responded(_ connection: Connection, _ response: [UInt8], _ received: Result<[UInt8], Errno>, at now: Instant) -> [Action] {
        let bytes = (try? received.get()) ?? []
        let limit = classifier.limit
        let response = response + bytes.prefix(limit - response.count)
        phase = .response(connection, response)
        let finished = bytes.isEmpty || response.count >= limit
        let verdict = classifier.verdict(response, finished: finished)
        guard verdict != .needMore else {
            return finished ? finish(.init(.malformedAnswer, "the connection closed early"), at: now) : []
        }
        outcome.verdict = verdict
        if case .malformed(let reason) = verdict {
            outcome.error = .init(.malformedAnswer, proxy.map { "\(reason) (through \($0.named))" } ?? reason)
        }
        // Through a tunnel, an HTTP error is the endpoint's own, not the proxy's.
        if case .httpError(let status, _) = verdict, let proxy, !endpoint.target.isTLS, !proxy.isSOCKS {
            outcome.error = Self.proxyAnswer(status, from: proxy)
        }
        let reason: ConnectivityFailure? = if case .failure(let error) = received { .init(.malformedAnswer, "reading failed: \(error)") } else { nil }
        return finish(reason, at: now)
    }

    // MARK: - Proxies

    /// The most bytes of a proxy's answer to `CONNECT` read before it counts as no answer.
    private static let tunnelHeadLimit = 16 * 1024

    /// The proxy's answer to `CONNECT`, as it comes: a 2xx opens the tunnel and TLS starts
    /// in it (what follows the head is the endpoint's); anything else is the proxy's
    /// failure, as curl reports it ("CONNECT tunnel failed").
    private mutating func tunnelAnswered(_ connection: Connection, _ head: [UInt8], _ received: Result<[UInt8], Errno>, at now: Instant) -> [Action] {
        guard let proxy else { return [] }
        let bytes: [UInt8]
        switch received {
        case .failure(let error):
            return finish(.init(.proxyFailed, "\(proxy.named) at \(connection.address) did not answer CONNECT: \(error)"), at: now)
        case .success(let more) where more.isEmpty:
            return finish(.init(.proxyFailed, "\(proxy.named) at \(connection.address) closed the connection before answering CONNECT"), at: now)
        case .success(let more):
            bytes = head + more
        }
        switch HTTPResponseClassifier.parseHead(bytes, limit: Self.tunnelHeadLimit) {
        case nil:
            phase = .tunnel(connection, head: bytes)
            return []
        case .invalid(let reason)?:
            return finish(.init(.proxyFailed, "\(proxy.named) answered CONNECT with \(reason)"), at: now)
        case .head(let parsed)?:
            guard (200...299).contains(parsed.status) else {
                return finish(Self.tunnelRefused(parsed.status, by: proxy), at: now)
            }
            guard parsed.bodyStart == bytes.count else {
                // The endpoint's TLS cannot have spoken before its ClientHello went out.
                return finish(.init(.proxyFailed, "\(proxy.named) sent data after opening the tunnel"), at: now)
            }
            return opened(connection)
        }
    }

    /// A SOCKS5 proxy's answer, as it comes: the method it chose (then the credentials, or
    /// the connection request), the credentials' verdict, then the connection's reply. A
    /// success opens the way: HTTP in origin form, or TLS, to the endpoint. Anything else is
    /// the proxy's failure, naming it and RFC 1928's reason.
    private mutating func socksAnswered(_ connection: Connection, _ stage: SOCKSStage, _ answer: [UInt8],
                                _ received: Result<[UInt8], Errno>, at now: Instant) -> [Action] {
        guard let proxy else { return [] }
        func failed(_ reason: String) -> [Action] {
            finish(.init(.proxyFailed, "\(proxy.named) at \(connection.address) \(reason)"), at: now)
        }
        let bytes: [UInt8]
        switch received {
        case .failure(let error): return failed("failed during the SOCKS5 negotiation: \(error)")
        case .success(let more) where more.isEmpty: return failed("closed the connection during the SOCKS5 negotiation")
        case .success(let more): bytes = answer + more
        }
        let target = endpoint.target
        let parsed = stage == .connect ? SOCKS5.connectAnswer(bytes) : SOCKS5.twoByteAnswer(bytes, version: stage == .method ? 5 : nil)
        let value: UInt8
        switch parsed {
        case .needMore:
            phase = .socks(connection, stage, answer: bytes)
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
            return opened(connection)
        }
        guard let (stage, message) = next else { return failed("cannot be asked for '\(target.host)'") }
        phase = .socks(connection, stage, answer: [])
        return [.send(fd: connection.fd, request: message)]
    }

    /// What a proxy's refusal of a tunnel says: 407, that it wants credentials; 502, 503
    /// and 504, that it cannot reach the endpoint; others, that it refused.
    private static func tunnelRefused(_ status: Int, by proxy: ProxyServer) -> ConnectivityFailure {
        switch status {
        case 407: .init(.proxyFailed, "\(proxy.named) wants credentials (HTTP 407)")
        case 502, 503, 504: .init(.proxyFailed, "\(proxy.named) answered HTTP \(status) to CONNECT: it cannot reach the endpoint")
        default: .init(.proxyFailed, "\(proxy.named) refused the tunnel (HTTP \(status))")
        }
    }

    /// What an HTTP error through a proxy says: 502, 503 and 504 are a proxy's own answer
    /// when it cannot reach the endpoint (curl reports them so), 407 that it wants
    /// credentials; others are the endpoint's, passed on.
    private static func proxyAnswer(_ status: Int, from proxy: ProxyServer) -> ConnectivityFailure {
        switch status {
        case 407: .init(.proxyFailed, "\(proxy.named) wants credentials (HTTP 407)")
        case 502, 503, 504: .init(.proxyFailed, "\(proxy.named) answered HTTP \(status): it cannot reach the endpoint")
        default: .init(.httpError, "the endpoint answered HTTP \(status) through \(proxy.named), an error, not a portal's page")
        }
    }

    // MARK: - Endings

    /// Ends the run with no query, connection or `connect` action left.
    mutating func finishIfNothingLeft(at now: Instant) -> [Action] {
        guard lookup.pendingQueries == 0 && lookup.awaitingPrefix.isEmpty && opening == 0 && descriptors.isEmpty else { return [] }
        return finish(outcome.error ?? .init(.connectionFailed, "cannot connect"), at: now)
    }

    /// Ends the run, closing its sockets; `reason` is its error unless it has one already.
    mutating func finish(_ reason: ConnectivityFailure?, at now: Instant) -> [Action] {
        guard !isFinished else { return [] }
        let open = descriptors
        phase = .finished
        outcome.error = outcome.error ?? reason
        outcome.finishedAt = now
        return open.map { .close(fd: $0) }
    }

    /// Ends the run at the check's end (its timeout, or a verdict elsewhere), with what it
    /// was waiting for; a portal's page still coming is its answer all the same.
    mutating func timedOut(after timeout: Duration, at now: Instant) -> [Action] {
        let through = proxy.map(\.named) ?? "the proxy"
        let reason: ConnectivityFailure
        switch phase {
        case .finished:
            return []
        case .resolving where lookup.awaitsPrefix:
            reason = .init(.noNAT64, "the path has no IPv4, and no NAT64 prefix was found in time (RFC 7050)")
        case .resolving:
            reason = .init(.resolutionTimedOut, "name resolution timed out")
        case .handshake:
            reason = .init(.timedOut, "no TLS handshake with \(endpoint.target.host) within \(timeout)", step: .http)
        case .tunnel:
            reason = .init(.proxyFailed, "no answer to CONNECT from \(through) within \(timeout)")
        case .socks:
            reason = .init(.proxyFailed, "no SOCKS5 answer from \(through) within \(timeout)")
        case .connecting, .request:
            reason = .init(.timedOut, "no connection \(proxy.map { "to \($0.named) " } ?? "")within \(timeout)")
        case .response(_, let response):
            if let portal = classifier.portal(in: response) {
                outcome.verdict = portal
                return finish(nil, at: now)
            }
            reason = .init(.timedOut, "no answer \(proxy.map { "through \($0.named) " } ?? "")within \(timeout)", step: .http)
        }
        return finish(reason, at: now)
    }
}
#endif
