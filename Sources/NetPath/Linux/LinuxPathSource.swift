#if os(Linux) || os(Android)
import CNetlink
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Settings of the Linux backend that tests change.
struct LinuxSourceOptions: Sendable {
    /// `SO_RCVBUF` of the netlink socket. Large by default, so that only a stalled reader
    /// overruns; tests make it small to provoke `ENOBUFS`.
    var receiveBufferSize: Int32 = 4 * 1024 * 1024
    /// Called on the reader thread before each wait for the kernel; tests block in it to let
    /// the kernel's queue overflow.
    var beforeRead: (@Sendable () -> Void)?
    /// Called on the opening thread before each read of the initial dump; tests flood the
    /// kernel from it to overrun the socket in the middle of the dump.
    var beforeDumpRead: (@Sendable () -> Void)?
    /// Resolver files to use instead of the system's (tests).
    var resolver: ResolverConfiguration?
    /// The reader thread's name (at most 15 bytes show); tests give theirs a unique one to
    /// count them.
    var threadName = "netpath-monitor"
    /// Watch the resolver files with inotify; off for a one-shot read (closing an inotify
    /// instance with watches costs the process about 10 ms at exit).
    var watchesResolverFiles = true
    /// The thread that reads for this source along with others, instead of a reader (and a
    /// resolver watch thread) of its own.
    var sharedReader: SharedReaderThread?
}

/// One running Linux monitor: the reader loop over a ``NetlinkSocket``, a ``NetlinkEngine``
/// and a ``ResolverWatcher``.
///
/// The kernel decides (SPEC §2): after each batch of messages that can change its routing
/// decision, the reader asks it again (one route lookup per family, in one datagram; the
/// answers are queued before `sendto` returns) and builds the path from its answers. The
/// reader thread blocks in `recvmmsg` on the socket itself; its only timer is the socket's
/// receive timeout, armed for the moment a route the answer came from expires. Idle, with
/// nothing expiring, it never wakes.
///
/// Lifecycle: ``open(namespace:filter:options:deliver:terminate:)`` makes the sockets
/// (inside the namespace, on a short-lived thread), dumps the tables and asks the kernel
/// synchronously, and computes the first path; ``startReading()`` starts the reader and the
/// watcher; ``stop()`` wakes the reader with a request the kernel answers on the socket, and
/// the reader ends the watcher and closes every descriptor as it ends.
///
/// With a ``SharedReaderThread`` in its options, the source has no thread of its own: that
/// thread polls its netlink socket and its resolver watch with those of other sources and
/// calls ``turn(blocking:)`` when either is readable or its expiry comes; ``stop()`` detaches
/// it, and the shared thread closes its descriptors.
final class LinuxPathSource: @unchecked Sendable {
    // Until `startReading`, only the opening thread touches `engine`, `lastPath`, `expiry`,
    // `failures` and `resyncsSeen`; afterwards only the reader thread does (its own, or the
    // shared one). `control` and `resolverChanged` (locks of their own) guard the rest.
    private let socket: NetlinkSocket
    private var engine: NetlinkEngine
    private let resolver: ResolverConfiguration
    private let options: LinuxSourceOptions
    private let deliver: @Sendable (NetworkPath) -> Void
    private let terminate: @Sendable (NetPathError) -> Void
    private let namespace: NetworkNamespace?
    private var watcher: ResolverWatcher?
    private var lastPath: NetworkPath
    /// When to ask again because a route expires, and how many times in a row the answer
    /// still came from a route past its expiry (bounded: then that lifetime is forgotten,
    /// so a clock that disagrees with the kernel's cannot make the reader spin, nor hide a
    /// later expiry).
    private var expiry: (deadline: UInt64?, retries: Int) = (nil, 0)
    /// Who reads for the source, and whether it was stopped.
    private enum Reader {
        case none
        case ownThread(pthread_t)
        case shared(SharedReaderThread)
    }
    private let control = Locked<(reader: Reader, stopped: Bool)>((.none, false))
    /// Socket errors in a row (0 after a turn that went well).
    private var failures = 0
    /// Until when (monotonic nanoseconds) the reader leaves the source alone after socket
    /// errors in a row.
    private(set) var pauseEnd: UInt64?
    /// The re-dump count last published.
    private var resyncsSeen = 0
    /// When the reader last sent a request (monotonic nanoseconds): an awaited answer is
    /// taken as lost a ``stallTimeout`` after the later of this and the last reply
    /// (``lostAnswerTime``), once the queue has been read empty without it; other events
    /// do not postpone that.
    private var lastSent: UInt64 = 0
    /// Whether the last read ended at an empty queue (not at the batch limit of a storm):
    /// only then can an awaited answer be missing rather than queued behind events.
    private var queueEmptied = true
    /// How long the reader waits for the kernel's answer to a dump or a lookup before it
    /// takes the request as lost (a failed send, a dropped reply) and dumps afresh.
    static let stallTimeout: UInt64 = 1_000_000_000
    /// Set by the resolver watcher when a file may have changed; taken by the reader.
    private let resolverChanged: Locked<Bool>
    /// The engine's re-dump count, copied by the reader when it changes (the engine is the
    /// reader's alone).
    private let publishedResyncs = Locked(0)

    /// The first path, computed by `open` before the reader thread exists.
    private(set) var initialPath: NetworkPath?

    /// Looked up this long after a route's expiry: the kernel's clock ticks are coarser than
    /// the lifetime it reports (1/100 s).
    static let expiryMargin: UInt64 = 20_000_000
    static let maximumExpiryRetries = 50

    private init(
        socket: NetlinkSocket, filter: InterfaceFilter, resolver: ResolverConfiguration, options: LinuxSourceOptions,
        namespace: NetworkNamespace?, resolverChanged: Locked<Bool>,
        deliver: @escaping @Sendable (NetworkPath) -> Void, terminate: @escaping @Sendable (NetPathError) -> Void
    ) {
        self.socket = socket
        self.resolver = resolver
        self.options = options
        self.deliver = deliver
        self.terminate = terminate
        self.namespace = namespace
        self.resolverChanged = resolverChanged
        lastPath = NetworkPath(status: .unsatisfied)
        let ioctlSocket = socket.ioctlDescriptor, foreign = namespace != nil
        engine = NetlinkEngine(filter: filter) { link in
            InterfaceClassifier.classify(link, ioctlSocket: ioctlSocket, foreign: foreign)
        }
        engine.port = socket.port
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
        let socket = try NetlinkSocket.open(in: namespace, receiveBufferSize: options.receiveBufferSize)
        let resolver = options.resolver ?? ResolverConfiguration.forNamespace(namespace)
        let changed = Locked(false)
        let source = LinuxPathSource(
            socket: socket, filter: filter, resolver: resolver, options: options, namespace: namespace,
            resolverChanged: changed, deliver: deliver, terminate: terminate
        )
        do {
            if options.watchesResolverFiles {
                // A named namespace can be deleted (`ip netns del`): its file is watched too.
                let descriptor = socket.descriptor
                source.watcher = try ResolverWatcher(
                    paths: resolver.watchedFiles + (namespace.map { [$0.path] } ?? []),
                    contentPaths: resolver.watchedFiles
                ) {
                    // One wake-up outstanding at most: the reader takes the flag when it runs.
                    let pending = changed.withLock { value in defer { value = true }; return value }
                    if !pending { NetlinkSocket.wake(descriptor) }
                }
            }
            source.engine.setHasDNSServer(resolver.hasServer(read: { Syscall.readFile($0) }))
            try source.synchronizeNow()
            _ = source.engine.takeChanges()
            source.lastPath = source.engine.path()
            source.initialPath = source.lastPath
            source.expiry.deadline = source.engine.nextExpiry()
            return source
        } catch {
            source.closeDescriptors()
            throw error
        }
    }

    // MARK: - Reading

    /// Dumps the tables and asks the kernel on the calling thread, waiting at most 10 s.
    private func synchronizeNow() throws {
        if let request = engine.resynchronize() { try send(NetlinkEngine.encode(request)) }
        let deadline = LinuxPathSource.monotonicNow() + 10_000_000_000
        while true {
            if engine.isSettled { try settle() }
            if engine.isAnswered { return }
            let now = LinuxPathSource.monotonicNow()
            var descriptor = pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0)
            let waited = Syscall.retrying { poll(&descriptor, 1, Int32(deadline > now ? (deadline - now) / 1_000_000 : 0)) }
            switch waited {
            case .success(0):
                throw NetPathError(.netlinkFailure, "the kernel did not answer the netlink requests within 10 s")
            case .failure(let error):
                throw NetPathError(.netlinkFailure, "poll on the netlink socket failed", errno: error.rawValue)
            case .success:
                break
            }
            options.beforeDumpRead?()
            _ = try drain(blocking: false)
        }
    }

    /// Asks the kernel until its answers match the tables: the answers are queued on the
    /// socket before `sendto` returns, so they are read at once. An answer that does not
    /// come (dropped by a full receive buffer) is asked again.
    private func settle() throws {
        var rounds = 0
        while engine.isSettled && !engine.isAnswered && rounds < 4 {
            rounds += 1
            let lookups = engine.startLookups()
            if !lookups.isEmpty { try send(NetlinkEngine.encode(lookups: lookups)) }
            let received = try drain(blocking: false)
            if !received && !engine.pendingLookups.isEmpty { engine.abandonLookups() }
        }
    }

    private func resynchronize() throws {
        if let request = engine.resynchronize() { try send(NetlinkEngine.encode(request)) }
    }

    /// Sends a request whose answer the reader then awaits.
    private func send(_ bytes: [UInt8]) throws {
        try socket.send(bytes)
        lastSent = LinuxPathSource.monotonicNow()
    }

    /// Reads everything queued, in batches of datagrams, applying each message. Stops at
    /// an empty queue, or after a bounded number of batches so a storm cannot hide the path
    /// for ever.
    ///
    /// - Parameter blocking: Wait for the first datagram (the reader thread's only wait).
    /// - Returns: Whether any datagram was read.
    private func drain(blocking: Bool) throws -> Bool {
        var receivedAny = false
        for batch in 0..<256 {
            let received = try socket.receive(blocking: blocking && batch == 0)
            engine.now = LinuxPathSource.monotonicNow()
            switch received {
            case .empty:
                queueEmptied = true
                return receivedAny
            case .overrun:
                // Events were lost: the state may be stale. Dump everything again (after the
                // dump in progress, if one is: the kernel runs one at a time).
                try resynchronize()
                continue
            case .datagrams(let count):
                receivedAny = true
                var requests: [NetlinkEngine.Request] = []
                try socket.forEachDatagram(count: count, truncated: resynchronize) { datagram in
                    NetlinkParser.parse(datagram) { envelope in
                        if let request = engine.handle(envelope) { requests.append(request) }
                    }
                }
                for request in requests { try send(NetlinkEngine.encode(request)) }
                // A batch that did not fill every slot emptied the queue: back to waiting,
                // without a read that would only say EAGAIN (a storm is mostly single events).
                if count < NetlinkSocket.slotCount && engine.isSettled {
                    queueEmptied = true
                    return true
                }
            }
        }
        queueEmptied = false
        return receivedAny
    }

    /// Starts reading: a reader thread (and the watcher's) of its own, or a place on the
    /// shared reader's thread. Paths that differ from the last are passed to `deliver`.
    func startReading() -> Bool {
        control.withLock { control in
            guard case .none = control.reader, !control.stopped else { return false }
            resyncsSeen = engine.resyncCount
            publishedResyncs.withLock { $0 = resyncsSeen }
            if let shared = options.sharedReader {
                guard shared.attach(self) else { return false }
                control.reader = .shared(shared)
                return true
            }
            if let watcher, !watcher.start(name: String(options.threadName.prefix(13)) + "-r") { return false }
            guard let thread = OwnThread.start(name: options.threadName, { [self] in runLoop() }) else {
                watcher?.stop()
                watcher = nil
                return false
            }
            control.reader = .ownThread(thread)
            return true
        }
    }

    /// The reader thread of the source's own. ``stop()`` and the resolver watcher wake it
    /// with a request the kernel answers on the socket; a route's expiry, with the socket's
    /// receive timeout.
    private func runLoop() {
        defer { closeDescriptors() }
        while true {
            options.beforeRead?()
            let now = LinuxPathSource.monotonicNow()
            socket.setReceiveTimeout(nanoseconds: wakeTime(now: now).map { $0 - now } ?? 0)
            guard turn(blocking: true) else { return }
            if let pauseEnd, case let now = LinuxPathSource.monotonicNow(), pauseEnd > now {
                var interval = timespec(tv_sec: Int((pauseEnd - now) / 1_000_000_000), tv_nsec: Int((pauseEnd - now) % 1_000_000_000))
                _ = nanosleep(&interval, nil)
            }
        }
    }

    /// One turn of the reader: reads what is queued (waiting for the first datagram when
    /// `blocking`), applies it, asks the kernel again when the answer may have changed, and
    /// delivers a path that differs from the last.
    ///
    /// - Returns: `false` when the source has ended (stopped, or its namespace deleted):
    ///   the reader then closes its descriptors.
    func turn(blocking: Bool) -> Bool {
        if control.withLock({ $0.stopped }) { return false }
        do {
            _ = try drain(blocking: blocking)
            let now = LinuxPathSource.monotonicNow()
            if !engine.isAnswered, queueEmptied, now >= lostAnswerTime {
                // Waiting for an answer that did not come: ask for everything again.
                try send(NetlinkEngine.encode(engine.restart()))
            }
            // At the deadline plus the margin, not before: a turn that a message brings in
            // the last tick of a lifetime would ask while the route still counts.
            // Counted only on a turn that can ask (tables complete, nothing awaited).
            if let deadline = expiry.deadline, engine.isAnswered, now >= deadline &+ LinuxPathSource.expiryMargin {
                expiry.retries += 1
                if expiry.retries < LinuxPathSource.maximumExpiryRetries {
                    engine.expiryPassed()
                } else {
                    // Still used long past its end by our clock: stop asking about it.
                    engine.forgetExpiries(through: deadline)
                    expiry = (engine.nextExpiry(), 0)
                }
            }
            if engine.isSettled { try settle() }
            failures = 0
            pauseEnd = nil
        } catch {
            // A socket error other than an overrun: resynchronise, as after an overrun, and
            // carry on; while it persists, the turns are spaced by a pause of 1 ms doubling
            // to about 1 s, so a broken socket cannot spin the reader.
            failures += 1
            if failures > 1 {
                pauseEnd = LinuxPathSource.monotonicNow() + UInt64(1 << min(failures - 2, 10)) * 1_000_000
            }
            try? resynchronize()
        }
        if control.withLock({ $0.stopped }) { return false }
        if resolverChanged.withLock({ changed in defer { changed = false }; return changed }) {
            if let namespace, !Syscall.exists(namespace.path) {
                // Deleted: its interfaces are gone for everyone else; a defined last path,
                // then the reason, then the source ends.
                let gone = NetworkPath(status: .unsatisfied, unsatisfiedReason: .notAvailable, diagnosis: .noInterface)
                if gone != lastPath { deliver(gone) }
                terminate(NetPathError(.namespaceNotFound, "\(namespace) was deleted"))
                return false
            }
            engine.setHasDNSServer(resolver.hasServer(read: { Syscall.readFile($0) }))
        }
        if engine.resyncCount != resyncsSeen {
            resyncsSeen = engine.resyncCount
            publishedResyncs.withLock { $0 = resyncsSeen }
        }
        guard engine.isAnswered, engine.takeChanges() else { return true }
        let path = engine.path()
        let deadline = engine.nextExpiry()
        if deadline != expiry.deadline { expiry.retries = 0 }
        expiry.deadline = deadline
        if path != lastPath {
            lastPath = path
            deliver(path)
        }
        return true
    }

    /// When to turn without a message (monotonic nanoseconds): the next expiry plus a
    /// margin, or, while an answer from the kernel is awaited, the moment it is taken as
    /// lost; `nil` to wait for a message.
    func wakeTime(now: UInt64) -> UInt64? {
        // While an answer is awaited, its arrival brings the next turn; an expiry waits.
        guard engine.isAnswered else { return max(lostAnswerTime, now + 1_000_000) }
        guard let deadline = expiry.deadline else { return nil }
        return max(deadline + LinuxPathSource.expiryMargin, now + 1_000_000)
    }

    /// When an awaited answer is taken as lost: a ``stallTimeout`` after the last request
    /// or reply.
    private var lostAnswerTime: UInt64 {
        max(lastSent, engine.lastReplyAt) + LinuxPathSource.stallTimeout
    }

    /// What the shared reader polls for the source, and when the source must turn without
    /// a message.
    func pollState(now: UInt64) -> SharedPollPlan.Member {
        SharedPollPlan.Member(socket: socket.descriptor, watcher: watcher?.descriptor, expiryWake: wakeTime(now: now),
                              pauseEnd: pauseEnd)
    }

    /// Called by the shared reader when the resolver watch is readable.
    func resolverReadable() {
        watcher?.handleReadable()
    }

    static func monotonicNow() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// How many full re-dumps happened (overruns, interrupted dumps), as the reader last
    /// published it: safe from any thread.
    var resyncCount: Int { publishedResyncs.withLock { $0 } }

    /// How many rounds of route lookups were asked. Read by tests after the reader settled.
    var lookupRounds: Int { engine.lookupRounds }

    /// Wakes the reader thread and waits for it to end (unless called on it); the thread
    /// closes the descriptors. On a shared reader, detaches from it (waiting, unless called
    /// on its thread). Without a reader, closes them here. Safe to call more than once.
    func stop() {
        let (reader, wasStopped): (Reader, Bool) = control.withLock { control in
            defer { control.stopped = true }
            return (control.reader, control.stopped)
        }
        guard !wasStopped else { return }
        switch reader {
        case .none:
            closeDescriptors()
        case .shared(let shared):
            shared.detach(self)
        case .ownThread(let thread):
            NetlinkSocket.wake(socket.descriptor)
            if pthread_equal(thread, pthread_self()) != 0 {
                pthread_detach(thread)
            } else {
                pthread_join(thread, nil)
            }
        }
    }

    /// Closes the socket and the resolver watch: by the reader as the source ends.
    func closeDescriptors() {
        watcher?.stop()
        socket.close()
    }
}
#endif
