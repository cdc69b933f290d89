#if os(Linux) || os(Android)

/// One connectivity check on Linux, on the package's own non-blocking sockets: names
/// resolved over UDP to the path's DNS servers (over TCP when an answer is truncated), every endpoint and address tried at once,
/// every socket bound to the primary interface (`SO_BINDTODEVICE`), one ``EventLoop``, and
/// every wait bounded. Runs on the calling thread, which must be a thread of our own when
/// a namespace is given (it enters it).
struct LinuxProbe {
    let check: ConnectivityCheck
    let interface: NetworkInterface?
    /// The families the path routes to the Internet (both when no path is given).
    let ipv4: Bool
    let ipv6: Bool
    /// The one family this check decides over its own sockets, or `nil` for both.
    let family: IPFamily?
    let resolver: ResolverConfiguration
    /// The loop the check waits on; stopped when the check must stop.
    let loop: EventLoop

    /// Where DNS servers listen.
    static let dnsPort: UInt16 = 53
    /// The most bytes one `recv` takes.
    static let receiveSize = 16 * 1024

    /// Runs the check to its verdict, the timeout, or cancellation: the result, and each
    /// endpoint's outcome (what the families' checks are combined from); `nil`, without a
    /// packet sent, when the family has nothing to reach (every endpoint an address of the
    /// other family).
    func run() -> ProbeVerdict.FamilyCheck? {
        let start = SystemClock.now()
        // A server of a family the path does not route is left out, unless it is on this
        // machine (a local cache such as systemd-resolved's 127.0.0.53).
        let servers = resolver.servers(read: { Syscall.readFile($0) }).compactMap(IPAddress.init)
            .filter { ($0.family == IPAddress.inet ? ipv4 : ipv6) || isOnThisHost($0) }
        let machine = ProbeStateMachine(check: check, servers: servers, start: start,
                                        firstQueryID: .random(in: 0...UInt16.max), ipv4: ipv4, ipv6: ipv6, family: family)
        guard !machine.reachesNothing else { return nil }
        var loop = Loop(probe: self, machine: machine)
        let result = loop.run()
        return (result, loop.machine.outcomes)
    }

    /// The I/O under ``ProbeStateMachine``: carries out its actions with system calls and
    /// feeds their outcomes and the descriptors' events back to it.
    private struct Loop {
        typealias Action = ProbeStateMachine.Action
        typealias Event = ProbeStateMachine.Event

        let probe: LinuxProbe
        var machine: ProbeStateMachine
        /// Descriptors closed since the last wait: their readiness is stale, and the
        /// number may already name a new socket.
        var closed: Set<FileDescriptor> = []
        var buffer = [UInt8](repeating: 0, count: LinuxProbe.receiveSize)
        /// The sockets registered on the loop, with the interest each was registered for.
        var registered: [FileDescriptor: (registration: EventLoop.Registration, interest: ProbeStateMachine.Interest)] = [:]
        /// The descriptors the last wait found ready.
        let ready = Ready()
        /// The TLS sessions of `https://` endpoints' connections, by their socket.
        var sessions: [FileDescriptor: TLSSession] = [:]

        final class Ready {
            var descriptors: Set<FileDescriptor> = []
        }

        mutating func run() -> ConnectivityResult {
            var actions = machine.handle(.started, at: SystemClock.now())
            while true {
                if let result = perform(actions) { return result }
                actions = machine.next(at: SystemClock.now())
            }
        }

        /// Carries out `actions` in order, each outcome fed back before the next action;
        /// the result once one of them is `finish`.
        mutating func perform(_ actions: [Action]) -> ConnectivityResult? {
            for action in actions {
                let outcome: Event
                switch action {
                case .openQuery(let query):
                    outcome = .querySent(query, fd: probe.sendQuery(query))
                case .connect(let endpoint, let address, let port):
                    outcome = .connectStarted(endpoint: endpoint, address: address, probe.startConnection(to: address, port: port))
                case .startTLS(let fd, let host, let hostIsAddress):
                    outcome = .tlsStepped(fd: fd, startTLS(fd, host: host, hostIsAddress: hostIsAddress))
                case .send(let fd, let request):
                    if let session = sessions[fd] {
                        // A request is far smaller than the socket's buffer: it goes at once.
                        outcome = .requestSent(fd: fd, complete: session.write(request) == .done(request.count))
                    } else {
                        let sent = Syscall.send(fd, request, flags: .noSignal)
                        outcome = .requestSent(fd: fd, complete: sent == .success(request.count))
                    }
                case .close(let fd):
                    sessions[fd] = nil  // freed before its socket is closed
                    if let entry = registered.removeValue(forKey: fd) { probe.loop.deregister(entry.registration) }
                    Syscall.close(fd)
                    closed.insert(fd)
                    continue
                case .wait(let until, let watching):
                    if let result = wait(until: until, watching: watching) { return result }
                    continue
                case .finish(let result):
                    return result
                }
                if let result = perform(machine.handle(outcome, at: SystemClock.now())) { return result }
            }
            return nil
        }

        /// One turn of the loop over `watching` (registered, changed or dropped to match),
        /// and the events of those ready.
        mutating func wait(until deadline: Instant, watching: [ProbeStateMachine.Watch]) -> ConnectivityResult? {
            watch(watching)
            ready.descriptors.removeAll()
            guard probe.loop.runOnce(until: deadline) else {
                return perform(machine.handle(.cancelled, at: SystemClock.now()))
            }
            if ready.descriptors.isEmpty { return nil }
            closed.removeAll()
            for watch in watching where ready.descriptors.contains(watch.fd) && !closed.contains(watch.fd) {
                for event in events(of: watch) {
                    if let result = perform(machine.handle(event, at: SystemClock.now())) { return result }
                }
            }
            return nil
        }

        /// Makes the loop's registrations those of `watching`.
        mutating func watch(_ watching: [ProbeStateMachine.Watch]) {
            let wanted = Dictionary(watching.map { ($0.fd, $0.interest) }, uniquingKeysWith: { first, _ in first })
            for (fd, entry) in registered where wanted[fd] == nil {
                probe.loop.deregister(entry.registration)
                registered[fd] = nil
            }
            for (fd, interest) in wanted {
                let events: EventLoop.Events = interest == .writable ? .writable : .readable
                if let entry = registered[fd] {
                    guard entry.interest != interest else { continue }
                    probe.loop.change(entry.registration, to: events)
                    registered[fd]?.interest = interest
                } else {
                    let ready = ready
                    registered[fd] = (probe.loop.register(fd, for: events) { _ in ready.descriptors.insert(fd) }, interest)
                }
            }
        }

        /// A TLS session on `fd` (OpenSSL loaded now, the first time) and its first step.
        mutating func startTLS(_ fd: FileDescriptor, host: String, hostIsAddress: Bool) -> ProbeStateMachine.TLSStep {
            let context: TLSContext
            switch TLSContext.client {
            case .success(let shared): context = shared
            case .failure(let error): return .unavailable(error.message)
            }
            guard let session = TLSSession(context: context, descriptor: fd, role: .client(host: host, hostIsAddress: hostIsAddress)) else {
                return .failed("OpenSSL refused a session for '\(host)'")
            }
            sessions[fd] = session
            return Self.handshakeStep(session.handshake())
        }

        static func handshakeStep(_ step: TLSSession.Step) -> ProbeStateMachine.TLSStep {
            switch step {
            case .done: .done
            case .wantRead: .wantRead
            case .wantWrite: .wantWrite
            case .closed(let reason): .closed(reason)
            case .failed(let reason): .failed(reason)
            }
        }

        /// What a TLS connection's readiness gives: the handshake's next step, or the
        /// response's bytes, read until OpenSSL wants more (a record it holds would not make
        /// the socket readable again: OpenSSL reads no further ahead than one record, which
        /// one read takes whole), then the end or the failure that stopped it.
        mutating func tlsEvents(of fd: FileDescriptor, _ session: TLSSession) -> [Event] {
            guard session.isHandshaken else { return [.tlsStepped(fd: fd, Self.handshakeStep(session.handshake()))] }
            var bytes: [UInt8] = []
            var events: [Event] {
                bytes.isEmpty ? [] : [.received(fd: fd, .success(bytes))]
            }
            while true {
                switch buffer.withUnsafeMutableBytes({ session.read(into: $0) }) {
                case .done(let count):
                    bytes += buffer[..<count]
                    // The machine stops at its response limit; this stops a fast sender.
                    if bytes.count >= LinuxProbe.receiveSize * 4 { return events }
                case .wantRead, .wantWrite:
                    return events
                case .closed:
                    return events + [.received(fd: fd, .success([]))]
                case .failed(let reason):
                    return events + [.tlsStepped(fd: fd, .failed(reason))]
                }
            }
        }

        /// What a ready descriptor reports; none when it has nothing after all (`EAGAIN`).
        mutating func events(of watch: ProbeStateMachine.Watch) -> [Event] {
            if let session = sessions[watch.fd] { return tlsEvents(of: watch.fd, session) }
            return event(of: watch).map { [$0] } ?? []
        }

        /// What a ready plain socket reports; `nil` when it has nothing after all (`EAGAIN`).
        mutating func event(of watch: ProbeStateMachine.Watch) -> Event? {
            if watch.interest == .writable { return .connectFinished(fd: watch.fd, error: Syscall.pendingError(watch.fd)) }
            switch buffer.withUnsafeMutableBytes({ Syscall.receive(watch.fd, into: $0) }) {
            case .success(let count): return .received(fd: watch.fd, .success(Array(buffer[..<count])))
            case .failure(.wouldBlock): return nil
            case .failure(let error): return .received(fd: watch.fd, .failure(error))
            }
        }
    }

    /// Sends `query` from a UDP socket of its own, or, over TCP, starts connecting a socket
    /// of its own to the server (the machine sends the query once it is made); the socket,
    /// or `nil` when it cannot.
    private func sendQuery(_ query: ProbeStateMachine.Query) -> FileDescriptor? {
        let type: SocketType = query.overTCP ? .stream : .datagram
        guard case .success(let fd) = Syscall.socket(SocketDomain(of: query.server), type, nonBlocking: true) else { return nil }
        // A resolver on this machine (a local cache) is not reached through the interface.
        if !isOnThisHost(query.server) { bindToInterface(fd) }
        // Connected: the kernel then only lets answers from that server through.
        let connected = Syscall.connect(fd, to: socketAddress(query.server, port: LinuxProbe.dnsPort))
        if query.overTCP {
            if case .failure(let error) = connected, error != .inProgress {
                Syscall.close(fd)
                return nil
            }
            return fd
        }
        guard connected.flatMap({ _ in Syscall.send(fd, query.bytes) }) == .success(query.bytes.count) else {
            Syscall.close(fd)
            return nil
        }
        return fd
    }

    /// Opens a non-blocking TCP socket and starts connecting it to `address`.
    private func startConnection(to address: IPAddress, port: UInt16) -> ProbeStateMachine.ConnectStart {
        let fd: FileDescriptor
        switch Syscall.socket(SocketDomain(of: address), .stream, nonBlocking: true) {
        case .success(let opened): fd = opened
        case .failure(let error): return .socketFailed(error)
        }
        // An endpoint on this machine (loopback, or one of its own addresses) is reached
        // through `lo`, never through the primary interface: bound there it could not be.
        if !isOnThisHost(address) { bindToInterface(fd) }
        let connected = Syscall.connect(fd, to: socketAddress(address, port: port))
        if case .failure(let error) = connected, error != .inProgress {
            Syscall.close(fd)
            return .connectFailed(error)
        }
        return .started(fd: fd)
    }

    /// Whether `address` is this machine's (in the namespace the check runs in): loopback,
    /// or an address a socket can bind to (the kernel's own test of a local address).
    private func isOnThisHost(_ address: IPAddress) -> Bool {
        if address.isLoopback { return true }
        if address.isIPv6LinkLocal { return false }
        guard case .success(let probe) = Syscall.socket(SocketDomain(of: address), .datagram) else { return false }
        defer { Syscall.close(probe) }
        let bound = Syscall.bind(probe, to: socketAddress(address, port: 0))
        return (try? bound.get()) != nil
    }

    private func bindToInterface(_ fd: FileDescriptor) {
        guard let name = interface?.name, !name.isEmpty else { return }
        // Needs CAP_NET_RAW on older kernels; without it the socket stays unbound.
        _ = Syscall.bind(fd, toDevice: name)
    }

    /// `address` and `port` as a socket address; an IPv6 link-local address is scoped to
    /// the interface checked through.
    private func socketAddress(_ address: IPAddress, port: UInt16) -> SocketAddress {
        let scope = address.isIPv6LinkLocal ? interface.map { UInt32($0.index) } ?? 0 : 0
        return SocketAddress(address, port: port, scopeID: scope)
    }
}

extension ProbeStateMachine.ConnectStart {
    /// A connect that failed at once with `error`, which says whether for want of a route
    /// (``Errno/isNoRoute``, from the C library's numbers the core does not know).
    static func connectFailed(_ error: Errno) -> Self {
        .connectFailed(error, noRoute: error.isNoRoute)
    }
}
#endif
