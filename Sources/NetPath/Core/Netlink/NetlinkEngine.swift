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
    /// The dumps of a synchronisation, in order.
    package enum Dump: Hashable, Sendable {
        case links, addresses, routes, rules, nexthops

        /// The request's message type (`RTM_GETLINK`, …).
        package var messageType: UInt16 {
            switch self {
            case .links: Netlink.MessageType.getLink
            case .addresses: Netlink.MessageType.getAddress
            case .routes: Netlink.MessageType.getRoute
            case .rules: Netlink.MessageType.getRule
            case .nexthops: Netlink.MessageType.getNexthop
            }
        }

        package var next: Dump? {
            switch self {
            case .links: .addresses
            case .addresses: .routes
            case .routes: .rules
            case .rules: .nexthops
            case .nexthops: nil
            }
        }

        /// A dump the tables are complete without: a kernel without nexthop objects (before
        /// 5.3) or without policy routing refuses it, and one that fails is asked again
        /// alone (``OptionalDump``).
        package var isOptional: Bool { self == .rules || self == .nexthops }
    }

    /// What is known of an optional dump (rules, nexthop objects). An error answer other
    /// than `EOPNOTSUPP` is not taken as "not supported": the dump is asked again alone
    /// after ``dumpRetryDelay(afterFailures:)``. `EOPNOTSUPP` — the kernel's answer when it
    /// has no handler for the request — is recorded once, and the dump never asked again.
    package struct OptionalDump: Equatable, Sendable {
        /// Error answers in a row.
        package var failures = 0
        /// When to ask for it again (monotonic nanoseconds), after an error answer.
        package var retryAt: UInt64?
        /// The kernel answered `EOPNOTSUPP`.
        package var unsupported = false
    }

    /// A dump request the caller must send.
    package struct Request: Hashable, Sendable {
        package var dump: Dump
        package var sequence: UInt32
    }

    /// What the reader must do after a step, in this order: ask the socket questions (and
    /// pass each verdict to ``answer(_:_:)``, then step again), send the datagrams, deliver
    /// the path; then wait for a message, or until ``wakeTime(now:)``.
    package struct Actions: Equatable, Sendable {
        package var questions: [RouteLookup] = []
        package var requests: [[UInt8]] = []
        package var path: NetworkPath?
    }

    /// What a route lookup in flight asks.
    package enum LookupKind: Hashable, Sendable {
        /// No source: what an IPv6 socket's route is when this succeeds.
        case sourceless
        /// From the source the socket picked (`ip route get DEST from SRC`).
        case fromSource
        /// The table entry with its lifetime (``RouteLookup/tableEntry``).
        case tableEntry
    }

    package struct PendingLookup: Hashable, Sendable {
        package var lookup: RouteLookup
        package var kind: LookupKind
    }

    package private(set) var state = KernelState()
    /// The dump protocol, and the numbering of requests.
    package private(set) var dumps = DumpMachine()
    /// The dump in progress, or `nil` when the state is complete and current.
    package var dumping: Dump? { dumps.current }
    package var dumpSequence: UInt32 { dumps.dumpSequence }
    /// The optional dumps that failed or that the kernel refuses; absent: answered.
    package var optionalDumps: [Dump: OptionalDump] { dumps.optionalDumps }
    /// How many times the state was thrown away and dumped again (overruns, interrupted dumps).
    package var resyncCount: Int { dumps.resyncCount }
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
    package var classify: (LinkMessage) -> NetworkInterface.InterfaceType { context.classify }
    package var filter: InterfaceFilter { context.filter }
    package var port: UInt32 {
        get { context.port }
        set { context.port = newValue }
    }
    package var uid: UInt32 {
        get { context.uid }
        set { context.uid = newValue }
    }
    /// When the messages being handled were read (CLOCK_MONOTONIC nanoseconds), for
    /// route lifetimes. The reader sets it before each batch; a step sets it too.
    package var now: UInt64 = 0

    /// The question protocol: socket questions, route lookups, the answers.
    package private(set) var round = QuestionRound()
    package var questions: [RouteLookup] { round.questions }
    package var pendingLookups: [UInt32: PendingLookup] { round.pendingLookups }
    package var answers: [RouteLookup: KernelAnswer] { round.answers }
    package var lookupRounds: Int { round.lookupRounds }
    /// Datagrams to send, queued by the dump protocol and by a step.
    private var outbox: [[UInt8]] = []

    /// The timing rules: the reply clock, expiries, rechecks, the pause after socket errors.
    package private(set) var timers = EngineTimers()
    /// The last path handed out, `nil` before the first.
    package private(set) var lastDelivered: NetworkPath?

    /// The first wait before asking again for an optional dump that failed, doubling to at
    /// most ``maximumDumpRetry``.
    package static let firstDumpRetry: UInt64 = 100_000_000
    package static let maximumDumpRetry: UInt64 = 5_000_000_000

    /// The wait before asking again for an optional dump that failed `failures` times in a
    /// row: 0.1 s, doubling, at most 5 s.
    package static func dumpRetryDelay(afterFailures failures: Int) -> UInt64 {
        guard failures > 0 else { return 0 }
        return min(firstDumpRetry << UInt64(min(failures - 1, 16)), maximumDumpRetry)
    }

    package init(filter: InterfaceFilter = .none, port: UInt32 = 0, uid: UInt32 = 0,
                 classify: @escaping (LinkMessage) -> NetworkInterface.InterfaceType) {
        context = Context(classify: classify, filter: filter, port: port, uid: uid)
    }

    /// Whether the state is complete (no dump in progress).
    package var isSettled: Bool { dumping == nil }

    /// Whether the tables are complete and every question answered: ``path()`` is current.
    package var isAnswered: Bool { isSettled && round.isIdle && !state.answerStale }

    /// Whether a reply from the kernel is awaited (a dump, or lookups).
    package var isAwaitingReply: Bool { dumping != nil || !pendingLookups.isEmpty }

    /// Whether anything that can change the path changed since the last call; clears it.
    package mutating func takeChanges() -> Bool {
        defer { state.changed = false }
        return state.changed
    }

    /// The path from the last complete answers.
    package func path() -> NetworkPath {
        decision.path()
    }

    private var decision: PathDecision {
        PathDecision(state: state, answers: answers, filter: filter, uid: uid)
    }

    /// When to ask again because a route the answers came from expires, if one does.
    package func nextExpiry() -> UInt64? {
        decision.earliestExpiry()
    }

    // MARK: - Steps

    /// Starts the first synchronisation: the tables are dumped, then the kernel asked.
    package mutating func begin() {
        overrun()
    }

    /// The kernel dropped events (`ENOBUFS`): everything is dumped again (after the dump in
    /// progress, if one is: the kernel runs one at a time).
    package mutating func overrun() {
        if let request = resynchronize() { outbox.append(NetlinkEngine.encode(request)) }
    }

    /// A read ended: at an empty queue, or at the batch limit with more queued (only after
    /// an empty read can an awaited reply be missing rather than queued behind events).
    package mutating func readEnded(emptied: Bool) {
        timers.readEnded(emptied: emptied)
    }

    /// A socket error other than an overrun: resynchronise, as after an overrun; while it
    /// persists, the reader pauses 1 ms doubling to about 1 s between turns, so a broken
    /// socket cannot spin it.
    package mutating func socketFailed(now: UInt64) {
        timers.socketFailed(at: now)
        overrun()
    }

    /// An IPsec policy changed (no rtnetlink message says so): ask both families again.
    package mutating func policiesChanged() {
        state.answerStale = true
    }

    /// A turn went without a socket error.
    package mutating func turnSucceeded() {
        timers.turnSucceeded()
    }

    /// Until when (monotonic nanoseconds) the reader leaves the socket alone after socket
    /// errors in a row.
    package var pauseEnd: UInt64? { timers.pauseEnd }

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
            outbox.append(NetlinkEngine.encode(restart()))
        }
        if let request = dumps.dueOptionalDump(now: now) { outbox.append(NetlinkEngine.encode(request)) }
        if timers.takeRecheck(at: now) { state.answerStale = true }
        // Counted only on a step that can ask (tables complete, nothing awaited).
        if isAnswered {
            switch timers.expiryStep(at: now) {
            case .none: break
            case .askAgain: expiryPassed()
            case .forget(let deadline):
                forgetExpiries(through: deadline)
                timers.setExpiry(nextExpiry())
            }
        }
        if isSettled && pendingLookups.isEmpty {
            if !questions.isEmpty {
                if round.hasEveryVerdict { sendLookups() } else { actions.questions = questions }
            } else if state.answerStale {
                startRound()
                actions.questions = questions
            }
        }
        if isAnswered, takeChanges() {
            // One decision for the check, the expiry and the path.
            let decision = self.decision
            if timers.answersComplete(consistent: decision.isConsistent(), at: now) {
                timers.setExpiry(decision.earliestExpiry())
                let path = decision.path()
                if path != lastDelivered {
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
        round.start(PathDecision.lookups(for: state, filter: filter).filter { KernelState.familyBit($0.family) & stale != 0 }, stale: stale)
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
            outbox.append(NetlinkEngine.encode(lookups: lookups))
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

    /// The kernel went on using routes past the lifetimes that end by `deadline`: stop
    /// counting on them (see ``KernelState/forgetExpiries(through:)``).
    package mutating func forgetExpiries(through deadline: UInt64) {
        state.forgetExpiries(through: deadline)
    }

    /// An expiry passed: ask the kernel again, and for the lifetimes now in force.
    package mutating func expiryPassed() {
        round.refreshLifetimesNext()
        state.answerStale = true
    }

    /// Sets whether the resolver configuration names a server.
    package mutating func setHasDNSServer(_ value: Bool) {
        state.hasDNSServer = value
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

    /// Applies one message; a dump's next request goes to the datagrams to send.
    package mutating func handle(_ envelope: NetlinkEnvelope) {
        if let request = apply(envelope) { outbox.append(NetlinkEngine.encode(request)) }
    }

    private mutating func apply(_ envelope: NetlinkEnvelope) -> Request? {
        let isOurs = envelope.port == port && envelope.sequence != 0
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
        switch envelope.message {
        case .newLink(let link):
            guard link.family != Netlink.familyBridge else { return nil }  // bridge-port news, not a link
            updateLink(link)
        case .deleteLink(let link):
            guard link.family != Netlink.familyBridge else { return nil }
            state.removeLink(index: link.index)
        case .newAddress(let address):
            state.addAddress(address)
        case .deleteAddress(let address):
            state.removeAddress(address)
        case .newRoute(let route):
            state.addRoute(route, replace: envelope.flags & Netlink.HeaderFlag.replace != 0 && !isDumpReply, now: now)
        case .deleteRoute(let route):
            state.removeRoute(route)
        case .newRule(let rule):
            state.updateRule(rule, removed: false)
        case .deleteRule(let rule):
            state.updateRule(rule, removed: true)
        case .newNexthop(let nexthop):
            state.addNexthop(nexthop)
        case .deleteNexthop(let nexthop):
            state.removeNexthop(id: nexthop.id)
        case .netconf(let family):
            // A forwarding setting such as `ignore_routes_with_linkdown` changes the kernel's
            // choice without a route message.
            if family == IPAddress.inet || family == IPAddress.inet6 { state.markStale(family: family) }
        case .done:
            return isDumpReply ? finishDump(refusedWith: nil) : nil
        case .error(let code):
            guard isDumpReply, code != 0 else { return nil }  // 0: an ACK
            guard let dump = dumping, dump.isOptional else { return finishDump(refusedWith: nil, failed: true) }
            return finishDump(refusedWith: Errno(-code))
        case .other:
            break
        }
        return nil
    }

    /// A link appeared or changed: its facts, its type named again only when what names it changed.
    private mutating func updateLink(_ link: LinkMessage) {
        let previous = state.links[link.index]
        var updated = LinkState(
            index: link.index,
            name: link.name ?? previous?.name ?? "if\(link.index)",
            hardwareType: link.hardwareType,
            flags: link.flags,
            operationalState: link.operationalState ?? previous?.operationalState ?? Netlink.Link.operUnknown,
            kind: link.kind ?? previous?.kind,
            type: .other,
            group: link.group ?? previous?.group ?? 0
        )
        if let previous, previous.name == updated.name, previous.kind == updated.kind,
           previous.hardwareType == updated.hardwareType {
            updated.type = previous.type
        } else {
            updated.type = classify(link)
        }
        state.updateLink(updated)
    }

    /// A dump ended: with `DONE`, or refused with an errno (an optional dump), or `failed`
    /// (a required one refused: everything is dumped afresh). The tables follow its end.
    private mutating func finishDump(refusedWith refusal: Errno?, failed: Bool = false) -> Request? {
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

    /// The bytes of `request`: a netlink header and the family-neutral body of its type.
    package static func encode(_ request: Request) -> [UInt8] {
        // ifinfomsg is 16 bytes, ifaddrmsg 8, rtmsg and fib_rule_hdr 12, nhmsg 8; all zero
        // means AF_UNSPEC, no filter.
        let bodyLength = switch request.dump {
        case .links: 16
        case .addresses, .nexthops: 8
        case .routes, .rules: 12
        }
        var message = NetlinkRequest()
        message.begin(type: request.dump.messageType, flags: Netlink.HeaderFlag.request | Netlink.HeaderFlag.dump,
                      sequence: request.sequence)
        message.append(contentsOf: repeatElement(0, count: bodyLength))
        message.end()
        return message.bytes
    }

    /// The bytes of route lookups, all in one datagram (the kernel answers each in turn):
    /// `RTM_GETROUTE` with an `rtmsg` for the family's Internet destination, `RTA_DST`, the
    /// socket's flow (`RTA_IP_PROTO` UDP, `RTA_DPORT` 53), `RTA_SRC` from the source the socket
    /// picked, and `RTA_OIF` when bound. The answer names the table it came from
    /// (`RTM_F_LOOKUP_TABLE`).
    package static func encode(lookups: [(sequence: UInt32, lookup: RouteLookup, tableEntry: Bool, source: IPAddress?)]) -> [UInt8] {
        var message = NetlinkRequest()
        for (sequence, lookup, tableEntry, source) in lookups {
            let destination = Netlink.internetDestination(family: lookup.family)
            let prefixLength = UInt8(destination.bytes.count * 8)
            let source = source.flatMap { $0.family == lookup.family && !$0.isUnspecified ? $0 : nil }
            message.begin(type: Netlink.MessageType.getRoute, flags: Netlink.HeaderFlag.request, sequence: sequence)
            // struct rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags.
            message.append(contentsOf: [lookup.family, prefixLength, source == nil ? 0 : prefixLength, 0, 0, 0, 0, 0])
            message.append(Netlink.RouteFlag.lookupTable | (tableEntry ? Netlink.RouteFlag.fibMatch : 0))
            message.attribute(Netlink.RouteAttribute.destination, destination.bytes)
            if let source { message.attribute(Netlink.RouteAttribute.sourcePrefix, source.bytes) }
            message.attribute(Netlink.RouteAttribute.ipProtocol, [Netlink.udpProtocol])
            message.attribute(Netlink.RouteAttribute.destinationPort, Netlink.questionPort.bigEndian)
            if let index = lookup.interfaceIndex { message.attribute(Netlink.RouteAttribute.outputInterface, index) }
            message.end()
        }
        return message.bytes
    }
}
