#if os(Linux) || os(Android)

/// Settings of the Linux backend that tests change.
struct LinuxSourceOptions: Sendable {
    /// `SO_RCVBUF` of the netlink socket. Large by default, so that only a stalled reader
    /// overruns; tests make it small to provoke `ENOBUFS`.
    var receiveBufferSize: Int32 = 4 * 1024 * 1024
    /// Called on the reader thread at the start of each turn, before it reads; tests block
    /// in it to let the kernel's queue overflow, and count the turns.
    var beforeRead: (@Sendable () -> Void)?
    /// Called on the opening thread before each read until the first path; tests flood the
    /// kernel from it to overrun the socket in the middle of the dump.
    var beforeDumpRead: (@Sendable () -> Void)?
    /// Stands between the reader and each read of the netlink socket (`read` does the read):
    /// a test without root, on the process's own namespace, gives the reader an overrun
    /// (`ENOBUFS`) where it wants one, in the middle of a dump, by dropping what was read.
    var receive: (@Sendable (_ read: () throws -> NetlinkSocket.Received) throws -> NetlinkSocket.Received)?
    /// Resolver files to use instead of the system's (tests).
    var resolver: ResolverConfiguration?
    /// The reader thread's name (at most 15 bytes show); tests give theirs a unique one to
    /// count them.
    var threadName = "netpath-monitor"
    /// Keep watching after the first path: the resolver files (inotify), IPsec policies, and
    /// the gateways' neighbor changes. Off for a one-shot read, which needs none of them
    /// (closing an inotify instance with watches costs the process about 10 ms at exit; a
    /// neighbor socket that only asks needs no group and no filter).
    var keepsWatching = true
    /// The thread that reads for this source along with others, instead of a reader of its
    /// own.
    var sharedReader: SharedReaderThread?
}

/// One running Linux monitor: a ``NetlinkSocket``, a ``NetlinkEngine`` and a
/// ``ResolverWatcher``, read on a ``SharedReaderThread``'s ``EventLoop``.
///
/// The kernel decides (SPEC §2): after each batch of messages that can change its routing
/// decision, the reader asks it again (one route lookup per family, in one datagram; the
/// answers are queued before `sendto` returns) and builds the path from its answers. Its
/// only timer is the loop's, armed for the moment a route the answer came from expires (or
/// a pause after socket errors ends). Idle, with nothing expiring, it never wakes.
///
/// Lifecycle: ``open(namespace:filter:options:deliver:terminate:)`` makes the sockets
/// (inside the namespace, on a short-lived thread), dumps the tables and asks the kernel
/// synchronously, and computes the first path; ``startReading()`` attaches the source to a
/// reader (one of its own, or the shared one in its options), whose loop calls
/// ``join(_:onEnd:)`` and then turns the source when one of its descriptors is readable or
/// its timer fires; ``stop()`` detaches it, and the reader's thread closes its descriptors.
final class LinuxPathSource: @unchecked Sendable {
    // `@unchecked`: `engine`, `watches` and `place` are not behind
    // a lock. Until `startReading`, only the opening thread touches them; afterwards only the
    // reader's thread does. `shared` (one lock) guards what other threads touch.
    private let socket: NetlinkSocket
    private var engine: NetlinkEngine
    /// The resolver's files, and their watch once reading (SPEC §2.8); the default
    /// gateways' neighbor entries (SPEC §3).
    private var watches: (configuration: ResolverConfiguration, watcher: ResolverWatcher?, neighbors: NeighborWatcher)
    private let options: LinuxSourceOptions
    /// Where paths go, and the reason when the source ends on its own.
    private let deliver: (path: @Sendable (NetworkPath) -> Void, end: @Sendable (NetPathError) -> Void)
    private let namespace: NetworkNamespace?
    /// The reader the source attaches to: the shared one in its options, or one of its own
    /// (its thread starts at ``startReading()``).
    private let reader: SharedReaderThread
    /// What the reader shares with the threads that stop the source or read its counts.
    private struct Shared {
        var reader: SharedReaderThread?
        var stopped = false
        /// The engine's re-dump count, copied by the reader when it changes (the engine is
        /// the reader's alone).
        var publishedResyncs = 0
    }
    private let shared: Locked<Shared>
    /// The source's place on its reader's loop: the registrations, the timer, whether a turn
    /// is asked for, what changed since the last turn, whether the source has left, and the
    /// re-dump count last published.
    private struct Place {
        /// For a namespace named by `/proc/PID/ns/net`: that process's pidfd, readable when it
        /// exits (the source then ends, so its sockets do not keep a dead container's
        /// namespace alive).
        var holder: FileDescriptor?
        var registrations: [EventLoop.Registration] = []
        var socketRegistration: EventLoop.Registration?
        var timer: (timer: EventLoop.Timer, at: Instant)?
        var turnAsked = false
        /// What changed since the last turn.
        var changed: Changes = []
        /// Asks for a turn (set at join).
        var ask: (() -> Void)?
        var left = false
        var resyncsSeen = 0
        /// The turn deferred work runs, made once at join (a turn allocates nothing for it).
        var turn: (() -> Void)?
    }
    private var place = Place()

    /// What a turn has to look at besides the netlink socket.
    private struct Changes: OptionSet {
        let rawValue: UInt8
        /// An IPsec policy changed.
        static let policies = Changes(rawValue: 1)
        /// A resolver file changed.
        static let resolver = Changes(rawValue: 2)
        /// The mount table changed: is the namespace still there?
        static let namespace = Changes(rawValue: 4)
        /// The holding process exited.
        static let holderExited = Changes(rawValue: 8)
        /// The machine woke from sleep: read everything again.
        static let resumed = Changes(rawValue: 16)
        /// A gateway's neighbor entry changed.
        static let neighbors = Changes(rawValue: 32)
    }

    /// The key of the network's identity (``NetworkIdentity``): derived from the machine ID,
    /// read once per process; a fixed key when it cannot be read (SECURITY.md).
    static let identityKey: [UInt8] = Syscall.readFile("/etc/machine-id", limit: 64)
        .flatMap(NetworkIdentity.key(machineID:)) ?? NetworkIdentity.fixedKey

    /// The first path, computed by `open` before the reader thread exists.
    private(set) var initialPath: NetworkPath?

    private init(
        socket: NetlinkSocket, filter: InterfaceFilter, resolver: ResolverConfiguration, options: LinuxSourceOptions,
        namespace: NetworkNamespace?, shared: Locked<Shared>,
        deliver: @escaping @Sendable (NetworkPath) -> Void, terminate: @escaping @Sendable (NetPathError) -> Void
    ) {
        self.socket = socket
        watches = (resolver, nil, NeighborWatcher(namespace: namespace, follows: options.keepsWatching))
        self.options = options
        self.deliver = (deliver, terminate)
        self.namespace = namespace
        self.shared = shared
        reader = options.sharedReader ?? SharedReaderThread(threadName: options.threadName)
        let ioctlSocket = socket.ioctlDescriptor, foreign = namespace != nil
        engine = NetlinkEngine(filter: filter, port: socket.port, uid: Syscall.effectiveUserID(),
                               identityKey: LinuxPathSource.identityKey) { link in
            InterfaceClassifier.classify(link, ioctlSocket: ioctlSocket, foreign: foreign)
        }
    }

    // MARK: - Opening

    /// Opens the sockets (in `namespace` when given), dumps the kernel tables, asks the
    /// kernel for its routing decision and computes the first path.
    ///
    /// - Throws: ``NetPathError`` naming the namespace, or the failed netlink call.
    static func open(
        namespace: NetworkNamespace?, filter: InterfaceFilter, options: LinuxSourceOptions,
        deliver: @escaping @Sendable (NetworkPath) -> Void,
        terminate: @escaping @Sendable (NetPathError) -> Void = { _ in }
    ) throws -> LinuxPathSource {
        let socket = try NetlinkSocket.open(in: namespace, receiveBufferSize: options.receiveBufferSize,
                                            watchesPolicies: options.keepsWatching)
        let resolver = options.resolver ?? ResolverConfiguration.forNamespace(namespace)
        let shared = Locked(Shared())
        let source = LinuxPathSource(
            socket: socket, filter: filter, resolver: resolver, options: options, namespace: namespace,
            shared: shared, deliver: deliver, terminate: terminate
        )
        do {
            if options.keepsWatching, let pid = namespace?.processIdentifier {
                source.place.holder = try? Syscall.processDescriptor(pid).get()
            }
            if options.keepsWatching {
                // A named namespace can be deleted (`ip netns del`): its file is watched too.
                source.watches.watcher = ResolverWatcher(
                    paths: resolver.watchedFiles + (namespace.map { [$0.path] } ?? []),
                    contentPaths: resolver.watchedFiles,
                    hub: try source.reader.inotifyHub()
                )
            }
            _ = source.engine.handle(.resolverRead(servers: resolver.servers(read: { Syscall.readFile($0) })),
                                     at: SystemClock.now())
            source.initialPath = try source.synchronizeNow()
            return source
        } catch {
            source.closeDescriptors()
            throw error
        }
    }

    // MARK: - Reading

    /// Dumps the tables and asks the kernel on the calling thread, waiting at most 10 s: the
    /// calling thread blocks in the receive call, bounded by the socket's receive timeout.
    ///
    /// - Returns: The first path.
    private func synchronizeNow() throws -> NetworkPath {
        _ = engine.handle(.start, at: SystemClock.now())
        let deadline = SystemClock.now() + .seconds(10)
        while true {
            if let path = try settle() { return path }
            let now = SystemClock.now()
            guard now < deadline else {
                throw NetPathError(.netlinkFailure, "the kernel did not answer the netlink requests within 10 s")
            }
            let until = min(engine.schedule(now: now).wake ?? deadline, deadline)
            socket.setReceiveTimeout(max(now.duration(until: until), .milliseconds(1)))
            try drain(blocking: true)
        }
    }

    /// Steps the engine until it has nothing more to do now: asks its socket questions,
    /// sends its requests and reads their replies (the kernel queues them before `sendto`
    /// returns).
    ///
    /// - Returns: The path to deliver, if one differs from the last.
    private func settle() throws -> NetworkPath? {
        var delivered: NetworkPath?
        for _ in 0..<32 {
            let now = SystemClock.now()
            var questions: [RouteLookup] = [], asked = false, sent = false, watched = false
            var actions = engine.handle(.step, at: now)
            while !actions.isEmpty {
                for action in actions {
                    switch action {
                    case .ask(let question):
                        asked = true
                        questions.append(question)
                    case .send(let request):
                        sent = true
                        try socket.send(request)
                    case .deliver(let path): delivered = path
                    case .stopReading: break
                    case .watchNeighbors(let gateways):
                        watched = true
                        watchNeighbors(gateways)
                    }
                }
                // A step's questions are asked together; their verdicts send the lookups.
                actions = questions.isEmpty ? [] : engine.handle(.verdicts(questions.map { ($0, socket.questions.ask($0)) }), at: now)
                questions = []
            }
            if !asked && !sent && !watched { break }
            if sent { try drain(blocking: false) }
        }
        return delivered
    }

    /// Watches the neighbor entries of `gateways` only and reads their current entries (the
    /// kernel queues its answers before `sendto` returns); the engine's path waits for them.
    private func watchNeighbors(_ gateways: [GatewayHop]) {
        // Not asked (no socket could be made, its filter failed, the request was refused):
        // tried again when the gateways are next watched.
        if !watches.neighbors.watch(gateways) { _ = engine.handle(.neighborsLost, at: SystemClock.now()) }
        readNeighbors()
        _ = engine.handle(.neighborsRead, at: SystemClock.now())
    }

    /// Reads the neighbor socket into the engine; after an overrun, asks for the watched
    /// entries afresh and reads their answers (none watched: the ones followed are read
    /// when their gateways come back).
    private func readNeighbors() {
        for _ in 0..<2 {
            let now = SystemClock.now()
            if watches.neighbors.read({ engine.handle($0, at: now) }) { return }
            // Asked afresh; when it cannot be, or none is watched, the engine reads them later.
            guard !engine.neighbors.watched.isEmpty, watches.neighbors.watch(engine.neighbors.watched) else {
                _ = engine.handle(.neighborsLost, at: now)
                return
            }
        }
    }

    /// Reads everything queued, in batches of datagrams, applying each message and sending
    /// the requests that follow (a dump's next part). Stops at an empty queue, or after a
    /// bounded number of batches so a storm cannot hide the path for ever.
    ///
    /// - Parameter blocking: Wait for the first datagram (while the first path is made).
    private func drain(blocking: Bool) throws {
        for batch in 0..<256 {
            if initialPath == nil { options.beforeDumpRead?() }
            let receiveNow = { try self.socket.receive(blocking: blocking && batch == 0) }
            let received = try options.receive.map { try $0(receiveNow) } ?? receiveNow()
            let now = SystemClock.now()
            var full = true
            switch received {
            case .empty:
                _ = engine.handle(.readEnded(emptied: true), at: now)
                return
            case .overrun:
                // Events were lost: the state may be stale. Dump everything again.
                _ = engine.handle(.overrun, at: now)
            case .datagrams(let count):
                socket.forEachDatagram(count: count, truncated: { _ = engine.handle(.overrun, at: now) }) { datagram in
                    NetlinkParser.parse(datagram) { envelope in engine.handle(envelope, at: now) }
                }
                full = count == NetlinkSocket.slotCount
            }
            var stop = false
            for action in engine.handle(.batchEnded(full: full), at: now) {
                switch action {
                case .send(let request): try socket.send(request)
                case .stopReading: stop = true
                case .ask, .deliver, .watchNeighbors: break
                }
            }
            if stop { return }
        }
        _ = engine.handle(.readEnded(emptied: false), at: SystemClock.now())
    }

    /// Starts reading: attaches the source to a reader of its own, or to the shared one in
    /// its options. Paths that differ from the last are passed to `deliver`.
    func startReading() -> Bool {
        shared.withLock { control in
            guard control.reader == nil, !control.stopped else { return false }
            place.resyncsSeen = engine.dumps.resyncCount
            control.publishedResyncs = place.resyncsSeen
            guard reader.attach(self) else { return false }
            control.reader = reader
            return true
        }
    }

    /// On the reader's thread: registers the source's descriptors on `loop` and arms its
    /// timer. `onEnd` is called there when the source ends on its own.
    func join(_ loop: EventLoop, onEnd: @escaping () -> Void) {
        guard !place.left else { return }
        let ask = { [self] in askTurn(loop, onEnd: onEnd) }
        let netlink = loop.register(socket.descriptor, for: .readable) { _ in ask() }
        place.socketRegistration = netlink
        place.registrations = [netlink]
        place.ask = ask
        if let holder = place.holder {
            place.registrations.append(loop.register(holder, for: .readable) { [self] _ in
                place.changed.insert(.holderExited)
                // Readable for good: the turn ends the source.
                if let registration = place.registrations.last { loop.change(registration, to: []) }
                ask()
            })
        }
        watches.neighbors.join(loop) { [self] in
            guard !place.left else { return }
            place.changed.insert(.neighbors)
            ask()
        }
        watches.watcher?.join { [self] in
            guard !place.left else { return }
            place.changed.insert(.resolver)
            ask()
        }
        if let policies = socket.policyDescriptor {
            place.registrations.append(loop.register(policies, for: .readable) { [self] _ in
                if socket.drainPolicies() { place.changed.insert(.policies) }
                ask()
            })
        }
        arm(loop, onEnd: onEnd)
    }

    /// Asks for one turn after the loop's current batch: a message and a resolver change
    /// that arrive together make one turn.
    private func askTurn(_ loop: EventLoop, onEnd: @escaping () -> Void) {
        guard !place.turnAsked else { return }
        place.turnAsked = true
        if place.turn == nil {
            place.turn = { [self] in
                place.turnAsked = false
                guard !place.left else { return }
                if turn() { arm(loop, onEnd: onEnd) } else { onEnd() }
            }
        }
        if let work = place.turn { loop.deferred(work) }
    }

    /// Arms the timer for the engine's next deadline (an expiry, an awaited answer taken as
    /// lost, the end of a pause after socket errors); while paused, the netlink socket is
    /// not waited on.
    private func arm(_ loop: EventLoop, onEnd: @escaping () -> Void) {
        let (wake, paused) = engine.schedule(now: SystemClock.now())
        if let registration = place.socketRegistration { loop.change(registration, to: paused ? [] : .readable) }
        // Most turns leave the deadline as it was: the armed timer stays.
        guard wake != place.timer?.at else { return }
        if let armed = place.timer { loop.cancel(armed.timer) }
        place.timer = wake.map { at in
            (loop.schedule(at: at) { [self] in
                place.timer = nil  // fired: the next arm schedules again, whatever the deadline
                askTurn(loop, onEnd: onEnd)
            }, at)
        }
    }

    /// On the reader's thread: deregisters the source from `loop` and closes its
    /// descriptors. Again, it does nothing.
    func leave(_ loop: EventLoop) {
        guard !place.left else { return }
        place.left = true
        for registration in place.registrations { loop.deregister(registration) }
        place.registrations = []
        place.socketRegistration = nil
        if let armed = place.timer { loop.cancel(armed.timer) }
        place.timer = nil
        place.turn = nil
        place.ask = nil
        watches.neighbors.leave()
        closeDescriptors()
    }

    /// On the reader's thread: the mount table changed (a namespace's bind mount may be
    /// gone, `umount` without `rm`). One `statfs` of the file; a turn only when it is gone
    /// (every `ip netns add` on the host changes the table).
    func mountsChanged() {
        guard let namespace, place.holder == nil, let ask = place.ask, namespaceGone(namespace) else { return }
        place.changed.insert(.namespace)
        ask()
    }

    /// Whether the namespace is gone: its holding process exited, its file was removed, or
    /// what is mounted there is no namespace any more. A file that cannot be examined is
    /// taken as there.
    private func namespaceGone(_ namespace: NetworkNamespace) -> Bool {
        if place.changed.contains(.holderExited) { return true }
        if place.holder != nil { return false }
        switch Syscall.fileSystemType(namespace.path) {
        case .success(let type): return type != Syscall.nsfsMagic
        case .failure(let error): return error == .noSuchFile
        }
    }

    /// Whether the namespace needs watching of the mount table (a bind-mounted file).
    var watchesMounts: Bool { namespace != nil && place.holder == nil && options.keepsWatching }

    /// One turn of the reader: reads what is queued, applies it, lets the engine ask the
    /// kernel again, and delivers a path that differs from the last.
    ///
    /// - Returns: `false` when the source has ended (stopped, or its namespace deleted).
    func turn() -> Bool {
        if shared.withLock({ $0.stopped }) { return false }
        options.beforeRead?()
        var path: NetworkPath?
        do {
            if place.changed.contains(.resumed) {
                place.changed.remove(.resumed)
                for case .send(let request) in engine.handle(.resumed, at: SystemClock.now()) { try socket.send(request) }
            }
            try drain(blocking: false)
            if place.changed.contains(.neighbors) {
                place.changed.remove(.neighbors)
                readNeighbors()
            }
            if place.changed.contains(.policies) { _ = engine.handle(.policiesChanged, at: SystemClock.now()) }
            place.changed.remove(.policies)
            if !place.changed.isDisjoint(with: [.resolver, .namespace, .holderExited]) {
                place.changed.remove(.namespace)
                if let namespace, namespaceGone(namespace) {
                    // Deleted: its interfaces are gone for everyone else; a defined last path,
                    // then the reason, then the source ends.
                    for case .deliver(let gone) in engine.handle(.namespaceDeleted, at: SystemClock.now()) {
                        deliver.path(gone)
                    }
                    let reason = place.changed.contains(.holderExited)
                        ? "\(namespace) is gone: its process exited" : "\(namespace) was deleted"
                    deliver.end(NetPathError(.namespaceNotFound, reason))
                    return false
                }
            }
            if place.changed.contains(.resolver) {
                place.changed.remove(.resolver)
                _ = engine.handle(.resolverRead(servers: watches.configuration.servers(read: { Syscall.readFile($0) })),
                                  at: SystemClock.now())
            }
            path = try settle()
            _ = engine.handle(.turnEnded(socketFailed: false), at: SystemClock.now())
        } catch {
            // A socket error other than an overrun: resynchronise and carry on (the engine
            // spaces the turns while it persists).
            for case .send(let request) in engine.handle(.turnEnded(socketFailed: true), at: SystemClock.now()) {
                try? socket.send(request)
            }
        }
        if shared.withLock({ $0.stopped }) { return false }
        if engine.dumps.resyncCount != place.resyncsSeen {
            place.resyncsSeen = engine.dumps.resyncCount
            shared.withLock { [seen = place.resyncsSeen] in $0.publishedResyncs = seen }
        }
        if let path { deliver.path(path) }
        // After the path is out (`watch`'s line written): the next turn's questions start on
        // disconnected sockets.
        socket.questions.disconnect()
        return true
    }

    /// The machine woke from sleep: the reader dumps the tables again and asks the kernel
    /// afresh, on its next turn. From any thread; nothing while the source is not reading.
    func refresh() {
        guard let loop = shared.withLock({ $0.reader })?.loop else { return }
        loop.execute { [self] in
            guard !place.left, let ask = place.ask else { return }
            place.changed.insert(.resumed)
            ask()
        }
    }

    /// How many full re-dumps happened (overruns, interrupted dumps, resumes), as the reader
    /// last published it: safe from any thread.
    var resyncCount: Int { shared.withLock { $0.publishedResyncs } }

    /// Timers on the reader's loop, while the source reads.
    var loopClock: (any ProbeClock)? {
        shared.withLock { $0.reader }?.loop.map(LoopProbeClock.init)
    }

    /// How many rounds of route lookups were asked. Read by tests after the reader settled.
    var lookupRounds: Int { engine.round.lookupRounds }

    /// How many neighbor messages reached the engine (the socket filter keeps those of
    /// other neighbors away). Read by tests after the reader settled.
    var neighborMessagesSeen: Int { engine.neighbors.messagesSeen }

    /// Detaches the source from its reader, which closes its descriptors: waits for that
    /// (and, for a reader of its own, for its thread to end), unless called on the reader's
    /// thread. Without a reader, closes them here. Safe to call more than once.
    func stop() {
        let (reader, wasStopped): (SharedReaderThread?, Bool) = shared.withLock { control in
            defer { control.stopped = true }
            return (control.reader, control.stopped)
        }
        guard !wasStopped else { return }
        if let reader { reader.detach(self) } else { closeDescriptors() }
    }

    /// Closes the socket and the resolver watch: by the reader as the source ends.
    func closeDescriptors() {
        watches.watcher?.close()
        watches.neighbors.close()
        if let holder = place.holder { Syscall.close(holder) }
        place.holder = nil
        socket.close()
    }
}
#endif
