/// The monitor's state machine: decoded messages, socket verdicts and the time in; kernel
/// state, requests to send, socket questions to ask, paths to deliver and the next deadline
/// out. The reader (``LinuxPathSource``) only performs the I/O it is told to.
///
/// It owns the dump protocol of SPEC §2.1 and §2.9: links, then addresses, routes, rules
/// and nexthop objects; a dump interrupted by a concurrent change (`NLM_F_DUMP_INTR`) or a
/// receive-buffer overrun (`ENOBUFS`) starts over from an empty state. Then the question
/// protocol: once the tables are complete and something that can change the kernel's
/// decision changed, ``step(now:)`` names the socket questions to ask (a UDP `connect()` per
/// family and bound interface); their verdicts come back through ``answer(_:_:)``, and the
/// next step sends one datagram of route lookups from the sources the kernel picked; their
/// answers come back through ``handle(_:)``. Then its timing rules: an awaited reply that does
/// not come is taken as lost; a route's expiry is asked about again; an answer that
/// contradicts the tables read (the kernel announces some changes just before making them)
/// is asked again shortly; socket errors in a row pause the reader. It does no I/O and
/// reads no clock, so it is tested with byte fixtures and a manual clock.
package struct NetlinkEngine {
    package typealias Dump = DumpMachine.Dump
    package typealias OptionalDump = DumpMachine.OptionalDump
    package typealias Request = DumpMachine.Request
    package typealias LookupKind = QuestionRound.LookupKind
    package typealias PendingLookup = QuestionRound.PendingLookup

    /// What the reader must do after a step, in this order: ask the socket questions (and
    /// pass each verdict to ``answer(_:_:)``, then step again), send the datagrams, deliver
    /// the path; then wait for a message, or until ``wakeTime(now:)``.
    package struct Actions: Equatable, Sendable {
        package var questions: [RouteLookup] = []
        package var requests: [[UInt8]] = []
        package var path: NetworkPath?
    }

    package internal(set) var state = KernelState()
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
    }
    package var context: Context
    /// When the messages being handled were read (CLOCK_MONOTONIC nanoseconds), for
    /// route lifetimes. The reader sets it before each batch; a step sets it too.
    package var now: UInt64 = 0

    /// The question protocol: socket questions, route lookups, the answers.
    package private(set) var round = QuestionRound()
    /// Datagrams to send, queued by the dump protocol and by a step.
    private var outbox: [[UInt8]] = []

    /// The timing rules: the reply clock, expiries, rechecks, the pause after socket errors.
    package internal(set) var timers = EngineTimers()
    /// The last path handed out, `nil` before the first.
    package private(set) var lastDelivered: NetworkPath?

    package init(filter: InterfaceFilter = .none, port: UInt32 = 0, uid: UInt32 = 0,
                 classify: @escaping (LinkMessage) -> NetworkInterface.InterfaceType) {
        context = Context(classify: classify, filter: filter, port: port, uid: uid)
    }

    /// Whether the state is complete (no dump in progress).
    package var isSettled: Bool { dumping == nil }

    /// Whether the tables are complete and every question answered: ``path()`` is current.
    package var isAnswered: Bool { isSettled && round.isIdle && !state.answerStale }

    /// Whether a reply from the kernel is awaited (a dump, or lookups).
    package var isAwaitingReply: Bool { dumping != nil || !round.pendingLookups.isEmpty }

    /// The path from the last complete answers.
    package func path() -> NetworkPath {
        decision.path()
    }

    private var decision: PathDecision {
        PathDecision(state: state, answers: round.answers, filter: context.filter, uid: context.uid)
    }

    /// When to ask again because a route the answers came from expires, if one does.
    package func nextExpiry() -> UInt64? {
        decision.earliestExpiry()
    }

    // MARK: - Steps

    /// The kernel dropped events (`ENOBUFS`): everything is dumped again (after the dump in
    /// progress, if one is: the kernel runs one at a time).
    package mutating func overrun() {
        if let request = resynchronize() { outbox.append(NetlinkRequest.encode(request)) }
    }

    /// The verdict of a socket question that the last step named.
    package mutating func answer(_ lookup: RouteLookup, _ verdict: SocketVerdict) {
        round.answer(lookup, verdict)
    }

    /// Takes the datagrams queued for sending (the reader sends them at once).
    package mutating func takeRequests(now: UInt64) -> [[UInt8]] {
        guard !outbox.isEmpty else { return [] }
        timers.sent(at: now)
        defer { outbox = [] }
        return outbox
    }

    /// Applies the timing rules at `now` and moves the question protocol on.
    ///
    /// - Returns: What the reader must do now.
    package mutating func step(now: UInt64) -> Actions {
        self.now = now
        var actions = Actions()
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
                let path = decision.path()
                if !path.isIdentical(to: lastDelivered) {
                    lastDelivered = path
                    actions.path = path
                }
            }
        }
        actions.requests = takeRequests(now: now)
        return actions
    }

    /// When the reader must step without a message (monotonic nanoseconds), or `nil` to wait
    /// for one: the timers' next deadline (``EngineTimers/wakeTime(now:awaitingReply:answered:)``),
    /// or an optional dump's retry.
    package func wakeTime(now: UInt64) -> UInt64? {
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

    /// Forgets questions and lookups whose answers did not come and marks the answer
    /// stale, so the next round asks again.
    package mutating func abandonLookups() {
        round.abandon()
        state.answerStale = true
    }


    /// An expiry passed: ask the kernel again, and for the lifetimes now in force.
    package mutating func expiryPassed() {
        round.refreshLifetimesNext()
        state.answerStale = true
    }

    /// Throws the state away and starts a full dump, or, while a dump is still running
    /// (the kernel allows one at a time), marks it to start over when that one ends.
    ///
    /// - Returns: The request to send now, if any.
    package mutating func resynchronize() -> Request? {
        dumps.startOverWhenFree() ? startDump() : nil
    }

    /// Abandons a dump or lookups whose answers never came (the request did not reach the
    /// kernel, or its reply was dropped) and starts a full dump afresh.
    package mutating func restart() -> Request {
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
    package mutating func handle(_ envelope: NetlinkEnvelope, at now: UInt64) {
        self.now = now
        if let request = apply(envelope) { outbox.append(NetlinkRequest.encode(request)) }
    }

    private mutating func apply(_ envelope: NetlinkEnvelope) -> Request? {
        let isOurs = envelope.port == context.port && envelope.sequence != 0
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
