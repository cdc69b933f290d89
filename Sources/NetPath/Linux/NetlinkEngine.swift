/// The monitor's state machine: decoded messages in, kernel state and requests out.
///
/// It owns the dump protocol of SPEC §2.1 and §2.9: links, then addresses, routes, rules
/// and nexthop objects; a dump interrupted by a concurrent change (`NLM_F_DUMP_INTR`) or a
/// receive-buffer overrun (`ENOBUFS`) starts over from an empty state. Then the lookup
/// protocol: once the tables are complete and something that can change the kernel's routing
/// decision changed, ``startLookups()`` names the route lookups to send; their answers come
/// back through ``handle(_:)``, and ``path()`` is the path once all are in. It does no I/O,
/// so it is tested with byte fixtures.
struct NetlinkEngine {
    /// The dumps of a synchronisation, in order.
    enum Dump: UInt16, Sendable {
        case links = 18  // RTM_GETLINK
        case addresses = 22  // RTM_GETADDR
        case routes = 26  // RTM_GETROUTE
        case rules = 34  // RTM_GETRULE
        case nexthops = 106  // RTM_GETNEXTHOP

        var next: Dump? {
            switch self {
            case .links: .addresses
            case .addresses: .routes
            case .routes: .rules
            case .rules: .nexthops
            case .nexthops: nil
            }
        }

        /// Kernels without nexthop objects (before 5.3) refuse this dump; nothing is lost.
        var isOptional: Bool { self == .rules || self == .nexthops }
    }

    /// A dump request the caller must send.
    struct Request: Hashable, Sendable {
        var dump: Dump
        var sequence: UInt32
    }

    private(set) var state = KernelState()
    /// The dump in progress, or `nil` when the state is complete and current.
    private(set) var dumping: Dump?
    private(set) var dumpSequence: UInt32 = 0
    private var dumpInterrupted = false
    private var resyncPending = false
    private var lastSequence: UInt32 = 0
    /// How many times the state was thrown away and dumped again (overruns, interrupted dumps).
    private(set) var resyncCount = 0
    /// Names a link's type; called when a link appears, or its name, kind or hardware
    /// type changes.
    var classify: (LinkMessage) -> NetworkInterface.InterfaceType
    /// The monitor's interface-type filter (which lookups are asked, and the path).
    var filter: InterfaceFilter
    /// The port id of our socket: answers to our requests carry it.
    var port: UInt32 = 0
    /// When the messages being handled were read (CLOCK_MONOTONIC nanoseconds), for
    /// route lifetimes. The reader sets it before each batch.
    var now: UInt64 = 0

    /// The lookups sent and not answered yet, by sequence number.
    private(set) var pendingLookups: [UInt32: RouteLookup] = [:]
    /// The answers of the last complete round of lookups.
    private(set) var answers: [RouteLookup: KernelAnswer] = [:]
    private var collecting: [RouteLookup: KernelAnswer] = [:]
    /// Ask for the table entries too (an expiry passed: learn the lifetimes now in force,
    /// which router advertisements renew without a message).
    private var refreshLifetimes = false
    /// How many lookup rounds were asked (tests check the coalescing).
    private(set) var lookupRounds = 0

    init(filter: InterfaceFilter = .none, classify: @escaping (LinkMessage) -> NetworkInterface.InterfaceType) {
        self.filter = filter
        self.classify = classify
    }

    /// Whether the state is complete (no dump in progress).
    var isSettled: Bool { dumping == nil }

    /// Whether the tables are complete and every lookup answered: ``path()`` is current.
    var isAnswered: Bool { isSettled && pendingLookups.isEmpty && !state.answerStale }

    /// When a reply to our own requests (a dump part, a lookup's answer) was last handled
    /// (``now`` then): the reader takes a request as lost when none comes for a while.
    private(set) var lastReplyAt: UInt64 = 0

    /// Whether anything that can change the path changed since the last call; clears it.
    mutating func takeChanges() -> Bool {
        defer { state.changed = false }
        return state.changed
    }

    /// The lookups to send now, or none: only with complete tables, no round in flight, and
    /// something changed that can change the kernel's answer (or an expiry passed). At most
    /// one round per family per batch of messages.
    mutating func startLookups() -> [(sequence: UInt32, lookup: RouteLookup)] {
        guard isSettled, pendingLookups.isEmpty, state.answerStale else { return [] }
        let stale = state.staleFamilies
        state.staleFamilies = 0
        lookupRounds += 1
        // The other family's answers still hold.
        collecting = answers.filter { KernelState.familyBit($0.key.family) & stale == 0 }
        var lookups = PathDecision.lookups(for: state, filter: filter).filter { KernelState.familyBit($0.family) & stale != 0 }
        if refreshLifetimes {
            // Each IPv6 question again for the table entry that answers it, bound as it is
            // (a filtered monitor's answers may come from routes an unbound one never uses).
            refreshLifetimes = false
            for lookup in lookups where lookup.family == IPAddress.inet6 {
                lookups.append(RouteLookup(family: lookup.family, interfaceIndex: lookup.interfaceIndex, tableEntry: true))
            }
        }
        return lookups.map { lookup in
            let sequence = nextSequence()
            pendingLookups[sequence] = lookup
            return (sequence, lookup)
        }
    }

    /// The path from the last complete answers.
    func path() -> NetworkPath {
        PathDecision(state: state, answers: answers, filter: filter).path()
    }

    /// When to ask again because a route the answers came from expires, if one does.
    func nextExpiry() -> UInt64? {
        PathDecision(state: state, answers: answers, filter: filter).earliestExpiry()
    }

    /// Forgets lookups whose answers did not come (a full receive buffer drops them) and
    /// marks the answer stale, so the next round asks again.
    mutating func abandonLookups() {
        pendingLookups.removeAll()
        state.answerStale = true
    }

    /// An expiry passed: ask the kernel again, and for the lifetimes now in force.
    mutating func expiryPassed() {
        refreshLifetimes = true
        state.answerStale = true
    }

    /// The kernel went on using routes past the lifetimes that end by `deadline`: stop
    /// counting on them (see ``KernelState/forgetExpiries(through:)``).
    mutating func forgetExpiries(through deadline: UInt64) {
        state.forgetExpiries(through: deadline)
    }

    private mutating func handleAnswer(_ lookup: RouteLookup, _ message: NetlinkMessage) {
        switch message {
        case .newRoute(let route) where lookup.tableEntry:
            // The table entry itself, with the lifetime in force now: not a change.
            state.refreshLifetime(route, now: now)
        case .newRoute(let route):
            collecting[lookup] = .route(route)
        case .error(let code) where code < 0:
            if !lookup.tableEntry { collecting[lookup] = .refused(errno: -code) }
        default:
            break
        }
        if pendingLookups.isEmpty {
            answers = collecting
            state.changed = true
        }
    }

    /// Sets whether the resolver configuration names a server.
    mutating func setHasDNSServer(_ value: Bool) {
        state.hasDNSServer = value
    }

    /// Throws the state away and starts a full dump, or, while a dump is still running
    /// (the kernel allows one at a time), marks it to start over when that one ends.
    ///
    /// - Returns: The request to send now, if any.
    mutating func resynchronize() -> Request? {
        if dumping != nil {
            resyncPending = true
            return nil
        }
        return startDump()
    }

    /// Abandons a dump or lookups whose answers never came (the request did not reach the
    /// kernel, or its reply was dropped) and starts a full dump afresh.
    mutating func restart() -> Request {
        dumping = nil
        return startDump()
    }

    private mutating func startDump() -> Request {
        if lastSequence != 0 { resyncCount += 1 }
        resyncPending = false
        dumpInterrupted = false
        state.removeAll()
        // Answers to lookups asked before are about tables that no longer exist.
        pendingLookups.removeAll()
        return request(.links)
    }

    private mutating func nextSequence() -> UInt32 {
        lastSequence &+= 1
        // 0 is the kernel's sequence for events; UInt32.max marks the reader's wake-ups.
        if lastSequence == 0 || lastSequence == UInt32.max { lastSequence = 1 }
        return lastSequence
    }

    private mutating func request(_ dump: Dump) -> Request {
        dumping = dump
        dumpSequence = nextSequence()
        return Request(dump: dump, sequence: dumpSequence)
    }

    /// Applies one message.
    ///
    /// - Returns: The dump request to send next, if the message ended a dump.
    mutating func handle(_ envelope: NetlinkEnvelope) -> Request? {
        let isOurs = envelope.port == port && envelope.sequence != 0
        if isOurs, let lookup = pendingLookups.removeValue(forKey: envelope.sequence) {
            lastReplyAt = now
            handleAnswer(lookup, envelope.message)
            return nil
        }
        let isDumpReply = isOurs && dumping != nil && envelope.sequence == dumpSequence
        if isDumpReply { lastReplyAt = now }
        if isDumpReply && envelope.flags & NetlinkParser.flagDumpInterrupted != 0 {
            dumpInterrupted = true
        }
        // A late answer to a lookup of tables since thrown away is not an event.
        if isOurs && !isDumpReply { return nil }
        switch envelope.message {
        case .newLink(let link):
            guard link.family != Netlink.familyBridge else { return nil }  // bridge-port news, not a link
            let previous = state.links[link.index]
            var updated = LinkState(
                index: link.index,
                name: link.name ?? previous?.name ?? "if\(link.index)",
                hardwareType: link.hardwareType,
                flags: link.flags,
                operationalState: link.operationalState ?? previous?.operationalState ?? KernelState.operUnknown,
                kind: link.kind ?? previous?.kind,
                type: .other
            )
            if let previous, previous.name == updated.name, previous.kind == updated.kind,
               previous.hardwareType == updated.hardwareType {
                updated.type = previous.type
            } else {
                updated.type = classify(link)
            }
            state.updateLink(updated)
        case .deleteLink(let link):
            guard link.family != Netlink.familyBridge else { return nil }
            state.removeLink(index: link.index)
        case .newAddress(let address):
            state.addAddress(address)
        case .deleteAddress(let address):
            state.removeAddress(address)
        case .newRoute(let route):
            state.addRoute(route, replace: envelope.flags & NetlinkParser.flagReplace != 0 && !isDumpReply, now: now)
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
        case .done, .error:
            guard isDumpReply else { return nil }
            if case .error(let code) = envelope.message, code == 0 { return nil }  // an ACK
            let failed = envelope.message != .done && !(dumping?.isOptional ?? false)
            return finishDump(failed: failed)
        case .other:
            break
        }
        return nil
    }

    private mutating func finishDump(failed: Bool) -> Request? {
        guard let current = dumping else { return nil }
        if failed || dumpInterrupted || resyncPending {
            dumping = nil
            return startDump()
        }
        if let next = current.next { return request(next) }
        dumping = nil
        // Complete: the lifetimes known before it are in the tables again, or gone.
        state.formerExpiries = [:]
        return nil
    }

    /// The bytes of `request`: a netlink header and the family-neutral body of its type.
    static func encode(_ request: Request) -> [UInt8] {
        // ifinfomsg is 16 bytes, ifaddrmsg 8, rtmsg and fib_rule_hdr 12, nhmsg 8; all zero
        // means AF_UNSPEC, no filter.
        let bodyLength = switch request.dump {
        case .links: 16
        case .addresses, .nexthops: 8
        case .routes, .rules: 12
        }
        let length = UInt32(NetlinkParser.headerLength + bodyLength)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(length))
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
        }
        append(length)
        append(request.dump.rawValue)
        append(Netlink.HeaderFlag.request | Netlink.HeaderFlag.dump)
        append(request.sequence)
        append(UInt32(0))  // port id: the kernel fills it in
        bytes.append(contentsOf: repeatElement(0, count: bodyLength))
        return bytes
    }

    /// The bytes of route lookups, all in one datagram (the kernel answers each in turn):
    /// `RTM_GETROUTE` with an `rtmsg` for the family's Internet destination, `RTA_DST`, and
    /// `RTA_OIF` when bound. The answer names the table it came from (`RTM_F_LOOKUP_TABLE`).
    static func encode(lookups: [(sequence: UInt32, lookup: RouteLookup)]) -> [UInt8] {
        var bytes: [UInt8] = []
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
        }
        for (sequence, lookup) in lookups {
            let destination = Netlink.internetDestination(family: lookup.family)
            let addressLength = lookup.family == IPAddress.inet ? 4 : 16
            let length = NetlinkParser.headerLength + 12 + 4 + addressLength + (lookup.interfaceIndex == nil ? 0 : 8)
            append(UInt32(length))
            append(Netlink.MessageType.getRoute)
            append(Netlink.HeaderFlag.request)
            append(sequence)
            append(UInt32(0))
            // struct rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags.
            bytes.append(contentsOf: [lookup.family, UInt8(addressLength * 8), 0, 0, 0, 0, 0, 0])
            append(Netlink.RouteFlag.lookupTable | (lookup.tableEntry ? Netlink.RouteFlag.fibMatch : 0))
            append(UInt16(4 + addressLength))
            append(Netlink.RouteAttribute.destination)
            for index in 0..<addressLength {
                let word = index < 8 ? destination.high : destination.low
                bytes.append(UInt8(truncatingIfNeeded: word >> (56 - 8 * UInt64(index % 8))))
            }
            if let index = lookup.interfaceIndex {
                append(UInt16(8))
                append(Netlink.RouteAttribute.outputInterface)
                append(index)
            }
        }
        return bytes
    }
}
