/// The monitor's state machine: decoded messages, socket verdicts and the time in; kernel
/// state, requests to send, socket questions to ask, paths to deliver and the next deadline
/// out. The reader (``LinuxPathSource``) only performs the I/O it is told to.
///
/// It owns the dump protocol of SPEC §2.1 and §2.9: links, then addresses, routes, rules
/// and nexthop objects; a dump interrupted by a concurrent change (`NLM_F_DUMP_INTR`) or a
/// receive-buffer overrun (`ENOBUFS`) starts over from an empty state. Then the question
/// protocol: once the tables are complete and something that can change the kernel's
/// decision changed, a step (``Event/step``) names the socket questions to ask (a UDP
/// `connect()` per family and bound interface); their verdicts come back together
/// (``Event/verdicts(_:)``), which sends one datagram of route lookups from the sources the
/// kernel picked; their answers come back as messages (``handle(_:at:)``). Then its timing rules: an awaited reply that does
/// not come is taken as lost; a route's expiry is asked about again; an answer that
/// contradicts the tables read (the kernel announces some changes just before making them)
/// is asked again shortly; socket errors in a row pause the reader. It does no I/O and
/// reads no clock, so it is tested with byte fixtures and a manual clock.
///
/// Driven only through events (``handle(_:at:)-(Event,_)``), each with the time it was seen;
/// the rest of its surface reads.
package struct NetlinkEngine {
    package typealias Dump = DumpMachine.Dump
    package typealias Request = DumpMachine.Request
    private typealias PendingLookup = QuestionRound.PendingLookup

    /// What a step gives, in this order: the socket questions, the datagrams, the path.
    private struct StepActions {
        var questions: [RouteLookup] = []
        var requests: [[UInt8]] = []
        var path: NetworkPath?
        /// The gateways whose neighbor entries to watch, when they changed.
        var neighbors: [GatewayHop]?
    }

    package private(set) var state = KernelState()
    /// The dump protocol, and the numbering of requests.
    package private(set) var dumps = DumpMachine()
    /// The dump in progress, or `nil` when the state is complete and current.
    package var dumping: Dump? { dumps.current }
    /// What the engine knows of its monitor and socket.
    package struct Context {
        /// Names a link's type; called when a link appears, or its name, kind or hardware
        /// type changes.
        package var classify: (LinkMessage) -> NetworkInterface.InterfaceType
        /// The monitor's interface-type filter (which questions are asked, and the path).
        package var filter: InterfaceFilter
        /// The port id of our socket: answers to our requests carry it.
        package var port: UInt32 = 0
        /// The monitor's effective uid (`uidrange` rules, in the diagnosis).
        package var uid: UInt32 = 0
        /// The key of the network's identity (``NetworkIdentity``).
        package var identityKey: [UInt8] = NetworkIdentity.fixedKey
    }
    package let context: Context
    /// When the last event was seen: every event sets it.
    package private(set) var now: Instant = .zero

    /// The question protocol: socket questions, route lookups, the answers.
    package private(set) var round = QuestionRound()
    /// Datagrams to send, queued by the dump protocol and by a step.
    private var outbox: [[UInt8]] = []

    /// The timing rules: the reply clock, expiries, rechecks, the pause after socket errors.
    package private(set) var timers = EngineTimers()
    /// The last path handed out, `nil` before the first.
    package private(set) var lastDelivered: NetworkPath?
    /// The default gateways' neighbor entries, and the decided path that waits for them.
    package private(set) var neighbors = GatewayNeighbors()

    package init(filter: InterfaceFilter = .none, port: UInt32 = 0, uid: UInt32 = 0,
                 identityKey: [UInt8] = NetworkIdentity.fixedKey,
                 classify: @escaping (LinkMessage) -> NetworkInterface.InterfaceType) {
        context = Context(classify: classify, filter: filter, port: port, uid: uid, identityKey: identityKey)
    }

    /// Whether the state is complete (no dump in progress).
    package var isSettled: Bool { dumping == nil }

    /// Whether the tables are complete and every question answered: ``path()`` is current.
    package var isAnswered: Bool { isSettled && round.isIdle && !state.answerStale }

    /// Whether a reply from the kernel is awaited (a dump, or lookups).
    private var isAwaitingReply: Bool { dumping != nil || !round.pendingLookups.isEmpty }

    /// The path from the last complete answers.
    package func path() -> NetworkPath {
        decision.path()
    }

    private var decision: PathDecision {
        PathDecision(state: state, answers: round.answers, filter: context.filter, uid: context.uid)
    }

    /// When to ask again because a route the answers came from expires, if one does.
    package func nextExpiry() -> Instant? {
        decision.earliestExpiry()
    }

    // MARK: - Steps

    /// The kernel dropped events (`ENOBUFS`): everything is dumped again (after the dump in
    /// progress, if one is: the kernel runs one at a time).
    private mutating func overrun() {
        if let request = resynchronize() { outbox.append(NetlinkRequest.encode(request)) }
    }

    /// The verdicts of the socket questions the last step named; once every one is in,
    /// the route lookups go out.
    private mutating func answer(_ verdicts: [(RouteLookup, SocketVerdict)]) {
        for (lookup, verdict) in verdicts { round.answer(lookup, verdict) }
        if isSettled, round.pendingLookups.isEmpty, !round.questions.isEmpty, round.hasEveryVerdict { sendLookups() }
    }

    /// Takes the datagrams queued for sending (the reader sends them at once).
    private mutating func takeRequests(now: Instant) -> [[UInt8]] {
        guard !outbox.isEmpty else { return [] }
        timers.sent(at: now)
        defer { outbox = [] }
        return outbox
    }

    /// Applies the timing rules at `now` and moves the question protocol on.
    ///
    /// - Returns: What the reader must do now.
    private mutating func step(now: Instant) -> StepActions {
        self.now = now
        var actions = StepActions()
        // A request still in the outbox has not been sent: it cannot have been lost.
        if isAwaitingReply, outbox.isEmpty, timers.isReplyLost(at: now) {
            // Waiting for a reply that did not come: ask for everything again.
            outbox.append(NetlinkRequest.encode(restart()))
        }
        if let request = dumps.dueOptionalDump(now: now) { outbox.append(NetlinkRequest.encode(request)) }
        if timers.takeRecheck(at: now) { state.answerStale = true }
        // Counted only on a step that can ask (tables complete, nothing awaited).
        if isAnswered {
            switch timers.expiryStep(at: now) {
            case .none: break
            case .askAgain: expiryPassed()
            case .forget(let deadline):
                // The kernel went on using routes past these lifetimes: stop counting on them.
                state.forgetExpiries(through: deadline)
                timers.setExpiry(nextExpiry())
            }
        }
        if isSettled && round.pendingLookups.isEmpty {
            if !round.questions.isEmpty {
                if round.hasEveryVerdict { sendLookups() } else { actions.questions = round.questions }
            } else if state.answerStale {
                startRound()
                actions.questions = round.questions
            }
        }
        if isAnswered, state.changed {
            state.changed = false
            // One decision for the check, the expiry and the path.
            let decision = self.decision
            if timers.answersComplete(consistent: decision.isConsistent(), at: now) {
                timers.setExpiry(decision.earliestExpiry())
                let (path, gateways) = decision.pathAndGatewayHops()
                if neighbors.decide(path, gateways: gateways) { actions.neighbors = neighbors.watched }
            }
        }
        // A path waits while the entries of new gateways are read.
        if isAnswered, let path = neighbors.takePath(key: context.identityKey), !path.isIdentical(to: lastDelivered) {
            lastDelivered = path
            actions.path = path
        }
        actions.requests = takeRequests(now: now)
        return actions
    }

    /// When the reader must step without a message, or `nil` to wait
    /// for one: the timers' next deadline (``EngineTimers/wakeTime(now:awaitingReply:answered:)``),
    /// or an optional dump's retry.
    private func wakeTime(now: Instant) -> Instant? {
        var wake = timers.wakeTime(now: now, awaitingReply: isAwaitingReply, answered: isAnswered)
        if let at = dumps.nextRetry(now: now) { wake = min(wake ?? at, at) }
        return wake
    }

    /// Starts a round of socket questions for the families whose answer may have changed.
    private mutating func startRound() {
        let stale = state.staleFamilies
        state.staleFamilies = 0
        round.start(PathDecision.lookups(for: state, filter: context.filter).filter { KernelState.familyBit($0.family) & stale != 0 }, stale: stale)
    }

    /// Every verdict is in: one datagram of the round's route lookups, each numbered.
    private mutating func sendLookups() {
        var lookups: [(sequence: UInt32, lookup: RouteLookup, tableEntry: Bool, source: IPAddress?)] = []
        for planned in round.plannedLookups() {
            let sequence = dumps.nextSequence()
            round.sent(sequence, PendingLookup(lookup: planned.lookup, kind: planned.kind))
            lookups.append((sequence, planned.lookup, planned.kind == .tableEntry, planned.source))
        }
        if lookups.isEmpty {
            finishRound()
        } else {
            outbox.append(NetlinkRequest.encode(lookups: lookups))
        }
    }

    /// Every reply is in: the round's answers are the path's.
    private mutating func finishRound() {
        round.finish()
        state.changed = true
    }

    /// An expiry passed: ask the kernel again, and for the lifetimes now in force.
    private mutating func expiryPassed() {
        round.refreshLifetimesNext()
        state.answerStale = true
    }

    /// Throws the state away and starts a full dump, or, while a dump is still running
    /// (the kernel allows one at a time), marks it to start over when that one ends.
    ///
    /// - Returns: The request to send now, if any.
    private mutating func resynchronize() -> Request? {
        dumps.startOverWhenFree() ? startDump() : nil
    }

    /// Abandons a dump or lookups whose answers never came (the request did not reach the
    /// kernel, or its reply was dropped) and starts a full dump afresh.
    private mutating func restart() -> Request {
        dumps.abandon()
        return startDump()
    }

    private mutating func startDump() -> Request {
        state.removeAll()
        // Answers to lookups asked before are about tables that no longer exist.
        round.abandon()
        return dumps.start()
    }

    /// Applies one message read at `now`; a dump's next request goes to the datagrams to
    /// send (``Event/message(_:)`` without the event's copy: the reader's hot path).
    package mutating func handle(_ envelope: NetlinkEnvelope, at now: Instant) {
        self.now = now
        if let request = apply(envelope) { outbox.append(NetlinkRequest.encode(request)) }
    }

    private mutating func apply(_ envelope: NetlinkEnvelope) -> Request? {
        switch envelope.message {
        case .newNeighbor(let neighbor):
            _ = neighbors.apply(neighbor, deleted: false)
            return nil
        case .deleteNeighbor(let neighbor):
            _ = neighbors.apply(neighbor, deleted: true)
            return nil
        default:
            break
        }
        let isOurs = envelope.port == context.port && envelope.sequence != 0
        switch envelope.message {
        case .done, .error, .other:
            // A reply (the neighbor socket's are from another port), not an event.
            break
        default:
            if !isOurs { timers.eventRead() }
        }
        if isOurs {
            switch round.reply(to: envelope.sequence, envelope.message) {
            case .notOurs:
                break
            case .tableEntry(let route):
                timers.replied(at: now)
                state.refreshLifetime(route, now: now)
                if round.isComplete { finishRound() }
                return nil
            case .recorded(let complete):
                timers.replied(at: now)
                if complete { finishRound() }
                return nil
            }
        }
        let isDumpReply = isOurs && dumps.isReply(sequence: envelope.sequence)
        if isDumpReply { timers.replied(at: now) }
        if isDumpReply && envelope.flags & Netlink.HeaderFlag.dumpInterrupted != 0 { dumps.interrupted() }
        // A late answer to a lookup of tables since thrown away is not an event.
        if isOurs && !isDumpReply { return nil }
        switch state.apply(envelope.message, replace: envelope.flags & Netlink.HeaderFlag.replace != 0 && !isDumpReply,
                           now: now, classify: context.classify) {
        case .applied:
            return nil
        case .done:
            return isDumpReply ? finishDump(refusedWith: nil) : nil
        case .error(let code):
            guard isDumpReply, code != 0 else { return nil }  // 0: an ACK
            guard let dump = dumping, dump.isOptional else { return finishDump(refusedWith: nil, failed: true) }
            return finishDump(refusedWith: LinuxErrno(-code))
        }
    }

    /// A dump ended: with `DONE`, or refused with an errno (an optional dump), or `failed`
    /// (a required one refused: everything is dumped afresh). The tables follow its end.
    private mutating func finishDump(refusedWith refusal: LinuxErrno?, failed: Bool = false) -> Request? {
        let finishing = dumps.current
        guard let end = dumps.finish(refusedWith: refusal, failed: failed, now: now) else { return nil }
        if end != .startOver, refusal == nil, finishing == .rules { state.rulesKnown = true }
        switch end {
        case .startOver:
            return startDump()
        case .next(let request):
            return request
        case .complete:
            // Complete: the lifetimes known before it are in the tables again, or gone.
            state.formerExpiries = [:]
            return nil
        case .aloneEnded(let refused):
            // Asked again alone: its objects came as they would in a synchronisation.
            if !refused { state.answerStale = true }
            return nil
        }
    }

}

/// The engine as its reader drives it (STYLE: `handle(event, at:) -> [Action]`): every
/// event the reader sees goes in with the time it was seen, and what the reader must do
/// comes out, in order. Nothing else changes it: the reader (``LinuxPathSource``) hands it
/// each message read with ``handle(_:at:)`` (the event without its copy), and reads
/// ``schedule(now:)`` and its counters (`dumps.resyncCount`, `round.lookupRounds`: stored,
/// so reading them copies nothing).
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
        /// The verdicts of the socket questions the engine asked for, all of one step's:
        /// the route lookups from their sources follow at once (``Action/send(_:)``).
        case verdicts([(RouteLookup, SocketVerdict)])
        /// The time passed, or something was answered: apply the timing rules and move the
        /// protocols on.
        case step
        /// An IPsec policy changed (no rtnetlink message says so).
        case policiesChanged
        /// The resolver files were read again: the servers they name, in order.
        case resolverRead(servers: [String])
        /// The watched namespace was deleted: a last path.
        case namespaceDeleted
        /// The machine woke from sleep (logind's `PrepareForSleep(false)`): dump everything
        /// again and ask the kernel afresh, as after an overrun (it counts as a re-dump).
        case resumed
        /// A turn of the reader ended, with a socket error or without.
        case turnEnded(socketFailed: Bool)
        /// The reader watches the gateways ``Action/watchNeighbors(_:)`` named and read
        /// their current entries (handed in as messages before), or could not.
        case neighborsRead
        /// The neighbor socket's queue overflowed while no gateway was watched, or the
        /// socket could not be made or filtered (``GatewayNeighbors/followingLost()``).
        case neighborsLost
    }

    /// What the reader must do, in order.
    package enum Action: Equatable, Sendable {
        /// Ask what an app's socket gets for this lookup; pass the verdicts of a step's asks
        /// back together.
        case ask(RouteLookup)
        /// Send this datagram to the kernel.
        case send([UInt8])
        /// Deliver this path (it differs from the last one delivered).
        case deliver(NetworkPath)
        /// The queue is empty: stop reading until the socket is readable again.
        case stopReading
        /// Watch the neighbor entries of these gateways only (none: stop watching), read
        /// their current entries, then say so (``Event/neighborsRead``): the path waits.
        case watchNeighbors([GatewayHop])
    }

    /// Takes one event seen at `now`.
    ///
    /// - Returns: What the reader must do now.
    package mutating func handle(_ event: Event, at now: Instant) -> [Action] {
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
        case .verdicts(let verdicts):
            answer(verdicts)
            return takeRequests(now: now).map(Action.send)
        case .step:
            let taken = step(now: now)
            // One array, in this order (a step runs for every event).
            var actions: [Action] = []
            actions.reserveCapacity(taken.questions.count + taken.requests.count + 2)
            for question in taken.questions { actions.append(.ask(question)) }
            for request in taken.requests { actions.append(.send(request)) }
            if let neighbors = taken.neighbors { actions.append(.watchNeighbors(neighbors)) }
            if let path = taken.path { actions.append(.deliver(path)) }
            return actions
        case .neighborsRead:
            neighbors.readEnded()
        case .neighborsLost:
            neighbors.followingLost()
        case .policiesChanged:
            // Ask both families again.
            state.answerStale = true
        case .resolverRead(let servers):
            // A change of servers alone makes a path that differs only in them: a check in
            // flight starts over with the new servers.
            state.dnsServers = servers
        case .resumed:
            overrun()
            return takeRequests(now: now).map(Action.send)
        case .namespaceDeleted:
            // Its interfaces are gone for everyone else.
            let gone = NetworkPath(status: .unsatisfied, unsatisfiedReason: .notAvailable, diagnosis: .noInterface)
            return gone.isIdentical(to: lastDelivered) ? [] : [.deliver(gone)]
        case .turnEnded(let socketFailed):
            guard socketFailed else {
                timers.turnSucceeded(at: now)
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
    /// the socket alone until then (paused after socket errors, or between a storm's paced
    /// reads: ``StormPacer``).
    /// `mutating` only so that a caller holding the engine in a class property passes it
    /// by reference: a non-mutating call would copy the whole engine (every table) first.
    package mutating func schedule(now: Instant) -> (wake: Instant?, paused: Bool) {
        (wakeTime(now: now), timers.isPaused(at: now))
    }
}
