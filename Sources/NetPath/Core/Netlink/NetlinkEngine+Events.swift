/// The engine as its reader drives it (STYLE: `handle(event, at:) -> [Action]`): every
/// event the reader sees goes in with the time it was seen, and what the reader must do
/// comes out, in order. The reader (``LinuxPathSource``) uses nothing else of the engine but
/// ``schedule(now:)``, ``counts`` and, for each message read, ``handle(_:at:)`` (the event
/// without its copy).
extension NetlinkEngine {
    /// What the reader tells the engine.
    package enum Event: Sendable {
        /// The monitor starts: dump the tables, then ask the kernel.
        case start
        /// A message read from the socket.
        case message(NetlinkEnvelope)
        /// Events were lost (`ENOBUFS`, or a datagram larger than its slot): dump everything
        /// again.
        case overrun
        /// A batch read was applied; `full` when it filled every slot (more may be queued).
        case batchEnded(full: Bool)
        /// A read found the queue empty (`true`), or the reader stopped at its batch limit.
        case readEnded(emptied: Bool)
        /// The verdict of a socket question the engine asked for.
        case verdict(RouteLookup, SocketVerdict)
        /// The time passed, or something was answered: apply the timing rules and move the
        /// protocols on.
        case step
        /// An IPsec policy changed (no rtnetlink message says so).
        case policiesChanged
        /// The resolver files were read again: the servers they name, in order.
        case resolverRead(servers: [String])
        /// The watched namespace was deleted: a last path.
        case namespaceDeleted
        /// A turn of the reader ended, with a socket error or without.
        case turnEnded(socketFailed: Bool)
    }

    /// What the reader must do, in order.
    package enum Action: Equatable, Sendable {
        /// Ask what an app's socket gets for this lookup; pass the verdict back.
        case ask(RouteLookup)
        /// Send this datagram to the kernel.
        case send([UInt8])
        /// Deliver this path (it differs from the last one delivered).
        case deliver(NetworkPath)
        /// The queue is empty: stop reading until the socket is readable again.
        case stopReading
    }

    /// Takes one event seen at `now` (monotonic nanoseconds).
    ///
    /// - Returns: What the reader must do now.
    package mutating func handle(_ event: Event, at now: UInt64) -> [Action] {
        self.now = now
        switch event {
        case .start:
            // The tables are dumped, then the kernel asked.
            overrun()
        case .message(let envelope):
            handle(envelope, at: now)
        case .overrun:
            overrun()
        case .batchEnded(let full):
            let sends = takeRequests(now: now).map(Action.send)
            // A batch that did not fill every slot emptied the queue: back to waiting, without
            // a read that would only say EAGAIN (a storm is mostly single events).
            guard !full && isSettled else { return sends }
            timers.readEnded(emptied: true)
            return sends + [.stopReading]
        case .readEnded(let emptied):
            // Only after an empty read can an awaited reply be missing rather than queued.
            timers.readEnded(emptied: emptied)
        case .verdict(let lookup, let verdict):
            answer(lookup, verdict)
        case .step:
            let actions = step(now: now)
            return actions.questions.map(Action.ask) + actions.requests.map(Action.send) + (actions.path.map { [.deliver($0)] } ?? [])
        case .policiesChanged:
            // Ask both families again.
            state.answerStale = true
        case .resolverRead(let servers):
            // A change of servers alone makes a path that differs only in them: a check in
            // flight starts over with the new servers.
            state.dnsServers = servers
        case .namespaceDeleted:
            // Its interfaces are gone for everyone else.
            let gone = NetworkPath(status: .unsatisfied, unsatisfiedReason: .notAvailable, diagnosis: .noInterface)
            return gone.isIdentical(to: lastDelivered) ? [] : [.deliver(gone)]
        case .turnEnded(let socketFailed):
            guard socketFailed else {
                timers.turnSucceeded()
                return []
            }
            // Resynchronise, as after an overrun; while errors persist, the reader pauses 1 ms
            // doubling to about 1 s between turns, so a broken socket cannot spin it.
            timers.socketFailed(at: now)
            overrun()
            return takeRequests(now: now).map(Action.send)
        }
        return []
    }

    /// When the reader must turn without a message (an expiry, an awaited reply taken as
    /// lost, a recheck, an optional dump's retry, the end of a pause), and whether it leaves
    /// the socket alone until then (paused after socket errors).
    /// `mutating` only so that a caller holding the engine in a class property passes it
    /// by reference: a non-mutating call would copy the whole engine (every table) first.
    package mutating func schedule(now: UInt64) -> (wake: UInt64?, paused: Bool) {
        (wakeTime(now: now), timers.pauseEnd.map { $0 > now } ?? false)
    }

    /// How many times the tables were dumped again, and how many rounds of questions were
    /// asked (tests check the coalescing).
    package var counts: (resyncs: Int, lookupRounds: Int) { (dumps.resyncCount, round.lookupRounds) }
}
