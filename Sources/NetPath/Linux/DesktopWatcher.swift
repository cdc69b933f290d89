#if os(Linux) || os(Android)
import Dispatch

/// What the desktop knows about the network (``DesktopKnowledge``), kept up to date from
/// its message buses: NetworkManager and logind's sleep signals on the system bus (two
/// connections: one client each), the Flatpak portal on the session bus. One thread of its
/// own runs one ``EventLoop`` with up to three connections (``BusConnection``); idle, it
/// waits on their sockets only and never wakes.
///
/// A bus that cannot be reached, fails or stops answering is tried again after 0.5 s,
/// then twice as long each time up to 30 s; meanwhile its part of the knowledge is `nil`.
/// A bus whose socket file does not exist (a server or container without one) is tried
/// again when it appears (inotify), never on a timer: idle, the thread does not wake.
final class DesktopWatcher: Sendable {
    /// How long a call may wait for its reply, and the handshake for its end.
    static let callTimeout: Duration = .seconds(2)
    static let handshakeTimeout: Duration = .seconds(2)

    private let storage: DesktopWatcherStorage
    private let loop: EventLoop
    private let thread: Locked<OwnThread.Handle?>

    /// Starts watching.
    /// - Parameters:
    ///   - systemBus: the system bus's address (``DBusAddress``), for NetworkManager; `nil`
    ///     watches no system bus.
    ///   - sessionBus: the session bus's address, for the Flatpak portal; `nil` watches none.
    ///   - purpose: what the knowledge is for (``Purpose``): what is followed, and for how long.
    ///   - onChange: called on the watcher's thread with the knowledge each time it changes.
    /// - Throws: The ``Errno`` of the event loop's making, or `pthread_create`'s.
    init(systemBus: String?, sessionBus: String?, purpose: Purpose = .watching,
         onChange: @escaping @Sendable (DesktopKnowledge) -> Void) throws {
        let system = systemBus.map(DBusAddress.endpoints)
        let session = sessionBus.map(DBusAddress.endpoints)
        // A command that ends: a failed bus is not tried again, and no file watch waits for a
        // missing socket (closing an inotify instance costs an SRCU grace period).
        let once = purpose != .watching
        // logind's sleep signals, on a second system-bus connection: only for a watch.
        let sleeps = system != nil && purpose == .watching
        // networkd's files count as one more source to wait for (read at once).
        let storage = DesktopWatcherStorage(buses: (system == nil ? 0 : 1) + (sleeps ? 1 : 0) + (session == nil ? 0 : 1)
                                                + 1,
                                            onChange: onChange)
        let loop = try EventLoop()
        let started = OwnThread.start(name: "netpath-desktop") {
            var connections: [any BusConnectionClosing] = []
            if let system {
                let connection = BusConnection<NetworkManagerClient>(endpoints: system, loop: loop, storage: storage, once: once) { answer in
                    storage.update { $0.networkManager = answer }
                }
                connections.append(connection)
                connection.open()
            }
            if let system, sleeps {
                let connection = BusConnection<LogindClient>(endpoints: system, loop: loop, storage: storage, once: false) { answer in
                    storage.update { $0.logind = answer }
                }
                connections.append(connection)
                connection.open()
            }
            if let session {
                let connection = BusConnection<PortalClient>(endpoints: session, loop: loop, storage: storage, once: once) { answer in
                    storage.update { $0.portal = answer }
                }
                connections.append(connection)
                connection.open()
            }
            let links = purpose == .watching ? try? NetworkdLinks() : nil
            links?.start(on: loop) { portals in storage.update { $0.captivePortals = portals } }
            storage.update { $0.captivePortals = links?.captivePortals ?? NetworkdLinks.read() }
            storage.settle()
            loop.run()
            for connection in connections { connection.close() }
            links?.stop(on: loop)
            loop.close()
        }
        let thread: OwnThread.Handle
        switch started {
        case .success(let handle): thread = handle
        case .failure(let error):
            loop.close()
            throw error
        }
        self.storage = storage
        self.loop = loop
        self.thread = Locked(thread)
    }

    /// What a watcher's knowledge is for.
    enum Purpose: Sendable, Equatable {
        /// A command that ends (`status`, which stops the watcher at its first answer;
        /// `wait --probe`, `status --probe`): the buses followed while it runs, but one that
        /// fails is not tried again (nor waited for), networkd's files read once, and no
        /// sleep signals.
        case command
        /// A monitor that lasts (an app's, `watch`, `serve`): everything followed, a bus that
        /// fails tried again, networkd's files watched, logind's sleep signals.
        case watching
    }

    /// Watches the buses the environment names: the system bus of `DBUS_SYSTEM_BUS_ADDRESS`
    /// (unset: `/run/dbus/system_bus_socket`; empty: none), and inside a Flatpak sandbox
    /// (`/.flatpak-info` exists, or `GTK_USE_PORTAL=1` as GLib takes it) the session bus of
    /// `DBUS_SESSION_BUS_ADDRESS`; and networkd's link files.
    /// - Throws: as ``init(systemBus:sessionBus:purpose:onChange:)``.
    convenience init(purpose: Purpose = .watching, onChange: @escaping @Sendable (DesktopKnowledge) -> Void) throws {
        let (system, session) = DesktopWatcher.environmentBuses()
        try self.init(systemBus: system, sessionBus: session, purpose: purpose, onChange: onChange)
    }

    /// The buses the environment names (see ``init(purpose:onChange:)``), `nil` for none.
    static func environmentBuses() -> (system: String?, session: String?) {
        let system = Syscall.environment("DBUS_SYSTEM_BUS_ADDRESS") ?? DBusAddress.defaultSystemBus
        // As GLib chooses its portal backend: inside a sandbox, or when asked to.
        let sandboxed = Syscall.exists("/.flatpak-info") || Syscall.environment("GTK_USE_PORTAL") == "1"
        let session = sandboxed ? Syscall.environment("DBUS_SESSION_BUS_ADDRESS") : nil
        return (system.isEmpty ? nil : system, session?.isEmpty == false ? session : nil)
    }

    /// What the desktop knows, asked once (`status`): no thread at all where no bus the
    /// environment names has a socket to connect to (a server, a container), only
    /// networkd's files read; else a watcher for one answer, bounded by the deadlines, and
    /// stopped without waiting for its thread to end.
    /// - Parameters:
    ///   - between: runs while the buses are asked (the kernel's dump).
    static func askOnce<T>(authenticatedBy: Instant, answeredBy: Instant,
                                   between work: () throws -> T) rethrows -> (T, DesktopKnowledge) {
        let (system, session) = environmentBuses()
        let reachable = [system, session].compactMap { $0 }.contains { address in
            DBusAddress.endpoints(address).contains { endpoint in
                if case .path(let path) = endpoint { return Syscall.exists(path) }
                return true
            }
        }
        guard reachable, let watcher = try? DesktopWatcher(systemBus: system, sessionBus: session, purpose: .command, onChange: { _ in }) else {
            let value = try work()
            var knowledge = DesktopKnowledge()
            knowledge.captivePortals = NetworkdLinks.read()
            return (value, knowledge)
        }
        defer { watcher.stop(waiting: false) }
        let value = try work()
        watcher.waitForFirstAnswer(authenticatedBy: authenticatedBy, answeredBy: answeredBy)
        return (value, watcher.knowledge)
    }

    deinit { stop() }

    /// What the buses said last.
    var knowledge: DesktopKnowledge { storage.knowledge }

    /// How many buses wait for their socket file to appear (no timer runs for them).
    var busesWaitingForTheirSocket: Int { storage.waitingForSocket }

    /// Why a bus connection failed last, with its address; `nil` when none has.
    var lastFailure: String? { storage.lastFailure }

    /// Blocks the calling thread until every bus watched has answered, failed or been
    /// given up, or until `deadline`, whichever comes first. Not on the watcher's thread.
    /// - Parameter deadline: an instant of ``SystemClock/now()``'s clock.
    /// - Returns: Whether every bus answered or failed (`false` when the deadline came first).
    func waitForFirstAnswer(until deadline: Instant) -> Bool {
        storage.waitUntilSettled(deadline: deadline)
    }

    /// Waits for the first answers as a path that is about to be reported does: until
    /// `answeredBy` for a bus that authenticated (it answers; NM's properties take a few
    /// round trips), but no later than `authenticatedBy` while none has (a bus that accepts
    /// and never answers holds the path only that long; a dead socket not at all).
    func waitForFirstAnswer(authenticatedBy: Instant, answeredBy: Instant) {
        if storage.waitUntilSettled(deadline: min(authenticatedBy, answeredBy)) { return }
        if storage.isAuthenticated { _ = storage.waitUntilSettled(deadline: answeredBy) }
    }

    /// Stops watching and closes the connections; from any thread, again is harmless. Off
    /// the watcher's thread it returns once that thread has ended, unless `waiting` is
    /// `false` (a one-shot answer: closing an inotify instance can take the kernel tens of
    /// milliseconds, an SRCU grace period, which `status` need not wait for).
    func stop(waiting: Bool = true) {
        guard let running = thread.withLock({ thread -> OwnThread.Handle? in
            defer { thread = nil }
            return thread
        }) else { return }
        loop.stop()
        storage.settleAll()
        running.end(waiting: waiting)
    }
}

/// The watcher's state shared between its thread and its callers: the knowledge, which
/// buses have settled, and the callers waiting for them. Its `state` is a ``Locked``.
private final class DesktopWatcherStorage: Sendable {
    private struct State: Sendable {
        var knowledge = DesktopKnowledge()
        var unsettled: Int
        var waiters: [DispatchSemaphore] = []
        var lastFailure: String?
        /// Connections waiting for their socket file to appear, with no timer.
        var waitingForSocket = 0
        /// Whether some bus finished its handshake: it answers, so its answer is worth
        /// waiting for.
        var authenticated = false
    }

    private let state: Locked<State>
    private let onChange: @Sendable (DesktopKnowledge) -> Void

    init(buses: Int, onChange: @escaping @Sendable (DesktopKnowledge) -> Void) {
        state = Locked(State(unsettled: buses))
        self.onChange = onChange
    }

    var knowledge: DesktopKnowledge { state.withLock { $0.knowledge } }

    /// Changes the knowledge; calls `onChange` (outside the lock) when it is new.
    func update(_ change: (inout DesktopKnowledge) -> Void) {
        let changed = state.withLock { state -> DesktopKnowledge? in
            var knowledge = state.knowledge
            change(&knowledge)
            guard knowledge != state.knowledge else { return nil }
            state.knowledge = knowledge
            return knowledge
        }
        if let changed { onChange(changed) }
    }

    /// Why a connection failed last (tests, diagnostics).
    func recordFailure(_ reason: String) {
        state.withLock { $0.lastFailure = reason }
    }

    var lastFailure: String? { state.withLock { $0.lastFailure } }

    func waitsForSocket(_ waiting: Bool) { state.withLock { $0.waitingForSocket += waiting ? 1 : -1 } }
    var waitingForSocket: Int { state.withLock { $0.waitingForSocket } }

    /// A bus finished its handshake and said `Hello`.
    func authenticate() {
        state.withLock { $0.authenticated = true }
    }

    var isAuthenticated: Bool { state.withLock { $0.authenticated } }

    /// One bus has answered or failed for the first time.
    func settle() {
        let waiters = state.withLock { state -> [DispatchSemaphore] in
            state.unsettled -= 1
            return state.unsettled <= 0 ? state.waiters : []
        }
        for waiter in waiters { waiter.signal() }
    }

    /// Every bus is settled (the watcher stopped).
    func settleAll() {
        let waiters = state.withLock { state -> [DispatchSemaphore] in
            state.unsettled = 0
            return state.waiters
        }
        for waiter in waiters { waiter.signal() }
    }

    func waitUntilSettled(deadline: Instant) -> Bool {
        let semaphore = DispatchSemaphore(value: 0)
        let settled = state.withLock { state -> Bool in
            if state.unsettled <= 0 { return true }
            state.waiters.append(semaphore)
            return false
        }
        if settled { return true }
        let left = SystemClock.now().duration(until: deadline)
        if left > .zero { _ = semaphore.wait(timeout: .now() + .nanoseconds(Int(clamping: left.nanoseconds))) }
        return state.withLock { state in
            state.waiters.removeAll { $0 === semaphore }
            return state.unsettled <= 0
        }
    }
}

/// What the watcher's thread does with its connections when the loop ends.
private protocol BusConnectionClosing: AnyObject {
    func close()
}

/// One client's connection to one bus, on the watcher's loop: it connects (to each of the
/// address's endpoints in turn), feeds what it reads to a ``DBusConnectionMachine`` and
/// the machine's calls and signals to the client (``DesktopBusClient``), writes what they
/// send (keeping what the socket does not take, and waiting for it to become writable),
/// arms one timer at the machine's next deadline, and starts again after a failure.
/// Used on the loop's thread only.
private final class BusConnection<Client: DesktopBusClient>: BusConnectionClosing {
    private static var initialBackOff: Duration { .milliseconds(500) }
    private static var maximumBackOff: Duration { .seconds(30) }

    /// Where the connection is.
    private enum Phase {
        /// Not connected and not trying: before ``open()``, or failed for good (one answer).
        case idle
        /// A socket to the bus, connecting or connected.
        case open(Link)
        /// Failed: tried again when the back-off timer fires.
        case backingOff(EventLoop.Timer)
        /// No endpoint's socket file exists (a container or server without a bus): an
        /// inotify watch for the next missing name on its way, instead of a timer, so the
        /// watcher never wakes until the bus appears.
        case awaitingSocket(Inotify, EventLoop.Registration)
        /// Stopped for good (the watcher stopped).
        case closed
    }

    /// One connection's socket and protocol, from its `connect` to its failure.
    private struct Link {
        let socket: FileDescriptor
        let registration: EventLoop.Registration
        var isConnecting: Bool
        var machine = DBusConnectionMachine(uid: Syscall.effectiveUserID(), handshakeTimeout: DesktopWatcher.handshakeTimeout)
        var client = Client()
        /// What the socket has not taken yet.
        var outbox: [UInt8] = []
        /// The one timer, at the machine's next deadline.
        var timer: (timer: EventLoop.Timer, deadline: Instant)?
    }

    private let endpoints: [DBusAddress.Endpoint]
    private let loop: EventLoop
    private let storage: DesktopWatcherStorage
    private let answer: (Client.Answer?) -> Void
    /// For one answer: a failure is final (no watch, no reconnection).
    private let once: Bool
    private var phase = Phase.idle
    private var backOff = BusConnection.initialBackOff
    private var hasSettled = false

    init(endpoints: [DBusAddress.Endpoint], loop: EventLoop, storage: DesktopWatcherStorage, once: Bool,
         answer: @escaping (Client.Answer?) -> Void) {
        self.endpoints = endpoints
        self.once = once
        self.loop = loop
        self.storage = storage
        self.answer = answer
    }

    /// Connects to the first endpoint that accepts (or has started to).
    func open() {
        var failure = "the address names no Unix socket"
        // The socket files that do not exist, while every endpoint failed for that.
        var missing: [String] = []
        for endpoint in endpoints {
            let descriptor: FileDescriptor
            switch Syscall.socket(.unix, .stream, nonBlocking: true) {
            case .success(let made): descriptor = made
            case .failure(let error):
                failure = "\(error)"
                continue
            }
            let connected = switch endpoint {
            case .path(let path): Syscall.connect(descriptor, unixPath: path, abstract: false)
            case .abstract(let name): Syscall.connect(descriptor, unixPath: name, abstract: true)
            }
            switch connected {
            case .success:
                return begin(descriptor, connecting: false)
            case .failure(.inProgress):
                return begin(descriptor, connecting: true)
            case .failure(let error):
                failure = "cannot connect to \(endpoint): \(error)"
                Syscall.close(descriptor)
                if case .path(let path) = endpoint, error == .noSuchFile { missing.append(path) }
            }
        }
        fail(failure, missing: missing.count == endpoints.count ? missing.first : nil)
    }

    /// Stops for good (the watcher stopped).
    func close() {
        leavePhase()
        phase = .closed
    }

    private func begin(_ descriptor: FileDescriptor, connecting: Bool) {
        let registration = loop.register(descriptor, for: connecting ? .writable : .readable) { [weak self] events in
            self?.ready(events)
        }
        phase = .open(Link(socket: descriptor, registration: registration, isConnecting: connecting))
        if !connecting { connected() }
    }

    private func connected() {
        guard let actions = withLink({ $0.machine.handle(.connected, at: SystemClock.now()) }) else { return }
        process(actions)
    }

    /// Runs `body` on the open connection's link, which it may change; `nil` when none is
    /// open. (`body` does no I/O and calls nothing that could end the connection.)
    private func withLink<T>(_ body: (inout Link) -> T) -> T? {
        guard case .open(var link) = phase else { return nil }
        phase = .idle  // the link is held uniquely while `body` runs
        let result = body(&link)
        phase = .open(link)
        return result
    }

    private var link: Link? {
        if case .open(let link) = phase { link } else { nil }
    }

    private func ready(_ events: EventLoop.Events) {
        guard let link else { return }
        if link.isConnecting {
            if let error = Syscall.pendingError(link.socket) { return fail("\(error)") }
            withLink { $0.isConnecting = false }
            return connected()
        }
        if events.contains(.writable) { flush() }
        if self.link != nil && !events.isDisjoint(with: [.readable, .hangup, .error]) { read(link.socket) }
    }

    private func read(_ socket: FileDescriptor) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let received = buffer.withUnsafeMutableBytes { Syscall.receive(socket, into: $0) }
        switch received {
        case .success(0):
            fail("the bus closed the connection")
        case .success(let count):
            let bytes = Array(buffer[0..<count])
            if let actions = withLink({ $0.machine.handle(.bytes(bytes), at: SystemClock.now()) }) { process(actions) }
        case .failure(.wouldBlock):
            break
        case .failure(let error):
            fail("\(error)")
        }
    }

    /// What the client's actions call for outside the link: answers to hand on, or why the
    /// connection failed.
    private struct Outcome {
        var answers: [Client.Answer?] = []
        var failure: String?
    }

    /// Takes the machine's actions: bytes to send, and events for the client, whose own
    /// actions follow; then writes and arms the timer.
    private func process(_ actions: [DBusConnectionMachine.Action]) {
        for action in actions {
            if case .failed(let reason) = action { return fail(reason) }
            if case .ready? = DesktopBusEvent(action) { storage.authenticate() }
            let outcome = withLink { link -> Outcome in
                if case .send(let bytes) = action {
                    link.outbox += bytes
                    return Outcome()
                }
                guard let event = DesktopBusEvent(action) else { return Outcome() }
                return take(link.client.handle(event), into: &link)
            } ?? Outcome()
            for value in outcome.answers {
                backOff = BusConnection.initialBackOff
                answer(value)
                settle()
            }
            if let failure = outcome.failure { return fail(failure) }
        }
        flush()
        armTimer()
    }

    /// Takes the client's actions into the link: its calls, written to the outbox.
    private func take(_ actions: [DesktopBusAction<Client.Answer>], into link: inout Link) -> Outcome {
        var outcome = Outcome()
        for action in actions {
            switch action {
            case .call(let message, let token):
                do {
                    link.outbox += try link.machine.call(message, token: token, deadline: SystemClock.now() + DesktopWatcher.callTimeout)
                } catch {
                    outcome.failure = "cannot write a call: \(error)"
                    return outcome
                }
            case .answer(let value):
                outcome.answers.append(value)
            case .failed(let reason):
                outcome.failure = reason
                return outcome
            }
        }
        return outcome
    }

    /// Sends what the socket takes; waits for it to become writable while some is left.
    private func flush() {
        guard let link, !link.isConnecting else { return }
        var outbox = link.outbox
        defer { withLink { $0.outbox = outbox } }
        while !outbox.isEmpty {
            switch Syscall.send(link.socket, outbox, flags: .noSignal) {
            case .success(let count):
                outbox.removeFirst(count)
            case .failure(.wouldBlock):
                loop.change(link.registration, to: [.readable, .writable])
                return
            case .failure(let error):
                outbox = []
                return fail("\(error)")
            }
        }
        loop.change(link.registration, to: .readable)
    }

    /// One timer, at the machine's next deadline (none when nothing is awaited).
    private func armTimer() {
        guard let link else { return }
        let next = link.machine.nextDeadline
        guard link.timer?.deadline != next else { return }
        if let timer = link.timer { loop.cancel(timer.timer) }
        let timer = next.map { next in (loop.schedule(at: next) { [weak self] in self?.tick() }, next) }
        withLink { $0.timer = timer }
    }

    private func tick() {
        guard let actions = withLink({ link -> [DBusConnectionMachine.Action] in
            link.timer = nil
            return link.machine.handle(.tick, at: SystemClock.now())
        }) else { return }
        process(actions)
    }

    private func settle() {
        guard !hasSettled else { return }
        hasSettled = true
        storage.settle()
    }

    /// Closes the socket, says nothing is known, and tries again when `missing` (the socket
    /// file that does not exist) appears, or else after the back-off.
    private func fail(_ reason: String, missing: String? = nil) {
        if case .closed = phase { return }
        leavePhase()
        storage.recordFailure("\(endpoints.first.map { "\($0)" } ?? "a bus"): \(reason)")
        if !once, let missing, let watch = watchForSocket(missing) {
            phase = watch
        } else if !once {
            phase = .backingOff(loop.schedule(at: SystemClock.now() + backOff) { [weak self] in self?.reconnect() })
            backOff = min(backOff * 2, BusConnection.maximumBackOff)
        }
        answer(nil)
        settle()
    }

    /// Watches the nearest existing directory on the way to `path` for the next name (the
    /// bus's directory may not exist yet either); any change there tries the bus again.
    /// - Returns: The phase that waits, or `nil` when no watch can be laid (the back-off
    ///   timer is used then).
    private func watchForSocket(_ path: String) -> Phase? {
        var directory = ResolverConfiguration.directory(of: path), name = String(path.split(separator: "/").last ?? "")
        while !Syscall.exists(directory) && directory != "/" {
            name = String(directory.split(separator: "/").last ?? "")
            directory = ResolverConfiguration.directory(of: directory)
        }
        guard let inotify = try? Inotify() else { return nil }
        guard case .success = inotify.watch(directory, mask: [.create, .movedTo, .deleteSelf, .moveSelf]) else {
            inotify.close()
            return nil
        }
        let registration = loop.register(inotify.descriptor, for: .readable) { [weak self] _ in
            let events = inotify.readEvents()
            guard events.contains(where: { $0.name == name || !$0.mask.isDisjoint(with: [.deleteSelf, .moveSelf, .queueOverflow]) })
            else { return }
            self?.reconnect()
        }
        storage.waitsForSocket(true)
        // It may have appeared before the watch was laid.
        let next = directory == "/" ? "/" + name : directory + "/" + name
        if Syscall.exists(next) {
            loop.deferred { [weak self] in
                guard let self, case .awaitingSocket = phase else { return }
                reconnect()
            }
        }
        return .awaitingSocket(inotify, registration)
    }

    private func reconnect() {
        if case .closed = phase { return }
        leavePhase()
        open()
    }

    /// Ends what the current phase holds (the socket and its timer, the back-off timer, the
    /// socket file's watch); the phase is `idle` after it.
    private func leavePhase() {
        switch phase {
        case .idle, .closed:
            break
        case .open(let link):
            loop.deregister(link.registration)
            Syscall.close(link.socket)
            if let timer = link.timer { loop.cancel(timer.timer) }
        case .backingOff(let timer):
            loop.cancel(timer)
        case .awaitingSocket(let inotify, let registration):
            loop.deregister(registration)
            inotify.close()
            storage.waitsForSocket(false)
        }
        if case .closed = phase { return }
        phase = .idle
    }
}
#endif
