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
    /// Called on the opening thread before each read until the first path; tests flood the
    /// kernel from it to overrun the socket in the middle of the dump.
    var beforeDumpRead: (@Sendable () -> Void)?
    /// Resolver files to use instead of the system's (tests).
    var resolver: ResolverConfiguration?
    /// The reader thread's name (at most 15 bytes show); tests give theirs a unique one to
    /// count them.
    var threadName = "netpath-monitor"
    /// Watch the resolver files with inotify, and IPsec policies; off for a one-shot read
    /// (closing an inotify instance with watches costs the process about 10 ms at exit).
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
    // `@unchecked`: `engine`, `resyncsSeen` and `watcher` are not behind a lock. Until
    // `startReading`, only the opening thread touches them; afterwards only the reader thread
    // does (its own, or the shared one). `shared` (one lock) guards what other threads touch.
    private let socket: NetlinkSocket
    private var engine: NetlinkEngine
    private let resolver: ResolverConfiguration
    private let options: LinuxSourceOptions
    private let deliver: @Sendable (NetworkPath) -> Void
    private let terminate: @Sendable (NetPathError) -> Void
    private let namespace: NetworkNamespace?
    private var watcher: ResolverWatcher?
    /// Who reads for the source.
    private enum Reader {
        case none
        case ownThread(pthread_t)
        case shared(SharedReaderThread)
    }
    /// What the reader shares with the threads that stop it or tell it of a change.
    private struct Shared {
        var reader = Reader.none
        var stopped = false
        /// Set when an IPsec policy changed (by the resolver watch thread, or the shared
        /// reader); taken by the reader.
        var policiesChanged = false
        /// Set by the resolver watcher when a file may have changed; taken by the reader.
        var resolverChanged = false
        /// The engine's re-dump count, copied by the reader when it changes (the engine is
        /// the reader's alone).
        var publishedResyncs = 0
    }
    private let shared: Locked<Shared>
    /// The re-dump count last published.
    private var resyncsSeen = 0

    /// The first path, computed by `open` before the reader thread exists.
    private(set) var initialPath: NetworkPath?

    private init(
        socket: NetlinkSocket, filter: InterfaceFilter, resolver: ResolverConfiguration, options: LinuxSourceOptions,
        namespace: NetworkNamespace?, shared: Locked<Shared>,
        deliver: @escaping @Sendable (NetworkPath) -> Void, terminate: @escaping @Sendable (NetPathError) -> Void
    ) {
        self.socket = socket
        self.resolver = resolver
        self.options = options
        self.deliver = deliver
        self.terminate = terminate
        self.namespace = namespace
        self.shared = shared
        let ioctlSocket = socket.ioctlDescriptor, foreign = namespace != nil
        engine = NetlinkEngine(filter: filter) { link in
            InterfaceClassifier.classify(link, ioctlSocket: ioctlSocket, foreign: foreign)
        }
        engine.port = socket.port
        engine.uid = geteuid()
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
                                            watchesPolicies: options.watchesResolverFiles)
        let resolver = options.resolver ?? ResolverConfiguration.forNamespace(namespace)
        let shared = Locked(Shared())
        let source = LinuxPathSource(
            socket: socket, filter: filter, resolver: resolver, options: options, namespace: namespace,
            shared: shared, deliver: deliver, terminate: terminate
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
                    let pending = shared.withLock { shared in
                        defer { shared.resolverChanged = true }
                        return shared.resolverChanged
                    }
                    if !pending { NetlinkSocket.wake(descriptor) }
                }
            }
            source.engine.setHasDNSServer(resolver.hasServer(read: { Syscall.readFile($0) }))
            source.initialPath = try source.synchronizeNow()
            return source
        } catch {
            source.closeDescriptors()
            throw error
        }
    }

    // MARK: - Reading

    /// Dumps the tables and asks the kernel on the calling thread, waiting at most 10 s.
    ///
    /// - Returns: The first path.
    private func synchronizeNow() throws -> NetworkPath {
        engine.begin()
        let deadline = SystemClock.monotonicNanoseconds() + 10_000_000_000
        while true {
            if let path = try settle() { return path }
            let now = SystemClock.monotonicNanoseconds()
            let until = min(engine.wakeTime(now: now) ?? deadline, deadline)
            var descriptors = [pollfd(fd: socket.descriptor, events: Int16(POLLIN), revents: 0)]
            let waited = Syscall.poll(&descriptors, milliseconds: Int32(until > now ? (until - now + 999_999) / 1_000_000 : 0))
            switch waited {
            case .success(0) where SystemClock.monotonicNanoseconds() >= deadline:
                throw NetPathError(.netlinkFailure, "the kernel did not answer the netlink requests within 10 s")
            case .failure(let error):
                throw NetPathError(.netlinkFailure, "poll on the netlink socket failed", errno: error.rawValue)
            case .success:
                break
            }
            try drain(blocking: false)
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
            let actions = engine.step(now: SystemClock.monotonicNanoseconds())
            for question in actions.questions { engine.answer(question, socket.questions.ask(question)) }
            for request in actions.requests { try socket.send(request) }
            if let path = actions.path { delivered = path }
            if actions.questions.isEmpty && actions.requests.isEmpty { break }
            if !actions.requests.isEmpty { try drain(blocking: false) }
        }
        return delivered
    }

    /// Reads everything queued, in batches of datagrams, applying each message and sending
    /// the requests that follow (a dump's next part). Stops at an empty queue, or after a
    /// bounded number of batches so a storm cannot hide the path for ever.
    ///
    /// - Parameter blocking: Wait for the first datagram (the reader thread's only wait).
    private func drain(blocking: Bool) throws {
        for batch in 0..<256 {
            if initialPath == nil { options.beforeDumpRead?() }
            let received = try socket.receive(blocking: blocking && batch == 0)
            engine.now = SystemClock.monotonicNanoseconds()
            switch received {
            case .empty:
                engine.readEnded(emptied: true)
                return
            case .overrun:
                // Events were lost: the state may be stale. Dump everything again.
                engine.overrun()
            case .datagrams(let count):
                socket.forEachDatagram(count: count, truncated: { engine.overrun() }) { datagram in
                    NetlinkParser.parse(datagram) { envelope in engine.handle(envelope) }
                }
                // A batch that did not fill every slot emptied the queue: back to waiting,
                // without a read that would only say EAGAIN (a storm is mostly single events).
                if count < NetlinkSocket.slotCount && engine.isSettled {
                    for request in engine.takeRequests(now: engine.now) { try socket.send(request) }
                    engine.readEnded(emptied: true)
                    return
                }
            }
            for request in engine.takeRequests(now: engine.now) { try socket.send(request) }
        }
        engine.readEnded(emptied: false)
    }

    /// Starts reading: a reader thread (and the watcher's) of its own, or a place on the
    /// shared reader's thread. Paths that differ from the last are passed to `deliver`.
    func startReading() -> Bool {
        // Stopped outside the lock: the watch thread takes it to set its flags.
        var failedWatcher: ResolverWatcher?
        defer { failedWatcher?.stop() }
        return shared.withLock { control in
            guard case .none = control.reader, !control.stopped else { return false }
            resyncsSeen = engine.resyncCount
            control.publishedResyncs = resyncsSeen
            if let sharedReader = options.sharedReader {
                guard sharedReader.attach(self) else { return false }
                control.reader = .shared(sharedReader)
                return true
            }
            // The watch thread also waits on the IPsec policy socket, so the reader sleeps in
            // the receive call on its netlink socket alone.
            let socket = socket, shared = shared
            let policies: (descriptor: Int32, readable: @Sendable () -> Void)? = socket.policyDescriptor < 0 ? nil : (
                socket.policyDescriptor, {
                    guard socket.drainPolicies() else { return }
                    shared.withLock { $0.policiesChanged = true }
                    NetlinkSocket.wake(socket.descriptor)
                }
            )
            if let watcher, !watcher.start(name: String(options.threadName.prefix(13)) + "-r", alsoWatching: policies) { return false }
            guard let thread = OwnThread.start(name: options.threadName, { [self] in runLoop() }) else {
                failedWatcher = watcher
                watcher = nil
                return false
            }
            control.reader = .ownThread(thread)
            return true
        }
    }

    /// The reader thread of the source's own. ``stop()`` and the resolver watcher wake it
    /// with a request the kernel answers on the socket; the engine's deadlines, with the
    /// socket's receive timeout.
    private func runLoop() {
        defer { closeDescriptors() }
        while true {
            options.beforeRead?()
            let now = SystemClock.monotonicNanoseconds()
            socket.setReceiveTimeout(nanoseconds: engine.wakeTime(now: now).map { $0 > now ? $0 - now : 1 } ?? 0)
            guard turn(blocking: true) else { return }
            if let pauseEnd, case let now = SystemClock.monotonicNanoseconds(), pauseEnd > now {
                var interval = timespec(tv_sec: Int((pauseEnd - now) / 1_000_000_000), tv_nsec: Int((pauseEnd - now) % 1_000_000_000))
                _ = nanosleep(&interval, nil)
            }
        }
    }

    /// Until when (monotonic nanoseconds) the reader leaves the source alone after socket
    /// errors in a row.
    var pauseEnd: UInt64? { engine.pauseEnd }

    /// One turn of the reader: reads what is queued (waiting for the first datagram when
    /// `blocking`), applies it, lets the engine ask the kernel again, and delivers a path
    /// that differs from the last.
    ///
    /// - Returns: `false` when the source has ended (stopped, or its namespace deleted):
    ///   the reader then closes its descriptors.
    func turn(blocking: Bool) -> Bool {
        if shared.withLock({ $0.stopped }) { return false }
        var path: NetworkPath?
        do {
            try drain(blocking: blocking)
            let (policiesChanged, resolverChanged) = shared.withLock { shared in
                defer { (shared.policiesChanged, shared.resolverChanged) = (false, false) }
                return (shared.policiesChanged, shared.resolverChanged)
            }
            if policiesChanged { engine.policiesChanged() }
            if resolverChanged {
                if let namespace, !Syscall.exists(namespace.path) {
                    // Deleted: its interfaces are gone for everyone else; a defined last path,
                    // then the reason, then the source ends.
                    let gone = NetworkPath(status: .unsatisfied, unsatisfiedReason: .notAvailable, diagnosis: .noInterface)
                    if gone != engine.lastDelivered { deliver(gone) }
                    terminate(NetPathError(.namespaceNotFound, "\(namespace) was deleted"))
                    return false
                }
                engine.setHasDNSServer(resolver.hasServer(read: { Syscall.readFile($0) }))
            }
            path = try settle()
            engine.turnSucceeded()
        } catch {
            // A socket error other than an overrun: resynchronise and carry on (the engine
            // spaces the turns while it persists).
            engine.socketFailed(now: SystemClock.monotonicNanoseconds())
            for request in engine.takeRequests(now: SystemClock.monotonicNanoseconds()) { try? socket.send(request) }
        }
        if shared.withLock({ $0.stopped }) { return false }
        if engine.resyncCount != resyncsSeen {
            resyncsSeen = engine.resyncCount
            shared.withLock { [resyncsSeen] in $0.publishedResyncs = resyncsSeen }
        }
        if let path { deliver(path) }
        return true
    }

    /// What the shared reader polls for the source, and when the source must turn without
    /// a message.
    func pollState(now: UInt64) -> SharedPollPlan.Member {
        SharedPollPlan.Member(socket: socket.descriptor, watcher: watcher?.descriptor, expiryWake: engine.wakeTime(now: now),
                              pauseEnd: engine.pauseEnd, policies: socket.policyDescriptor >= 0 ? socket.policyDescriptor : nil)
    }

    /// Called by the shared reader when the IPsec policy socket is readable.
    func policySocketReadable() {
        if socket.drainPolicies() { shared.withLock { $0.policiesChanged = true } }
    }

    /// Called by the shared reader when the resolver watch is readable.
    func resolverReadable() {
        watcher?.handleReadable()
    }

    /// How many full re-dumps happened (overruns, interrupted dumps), as the reader last
    /// published it: safe from any thread.
    var resyncCount: Int { shared.withLock { $0.publishedResyncs } }

    /// How many rounds of route lookups were asked. Read by tests after the reader settled.
    var lookupRounds: Int { engine.lookupRounds }

    /// Wakes the reader thread and waits for it to end (unless called on it); the thread
    /// closes the descriptors. On a shared reader, detaches from it (waiting, unless called
    /// on its thread). Without a reader, closes them here. Safe to call more than once.
    func stop() {
        let (reader, wasStopped): (Reader, Bool) = shared.withLock { control in
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
