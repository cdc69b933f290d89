/// The ``NetlinkEngine``'s question protocol (SPEC §2.1): a round asks, per family (and per
/// admitted interface when filtered), what an app's socket gets — a UDP `connect()`, whose
/// verdict and source come back through ``answer(_:_:)`` — then the route lookups from the
/// sources the kernel picked (for IPv6 also without one, and the table entry when an expiry
/// passed), whose replies come back through ``reply(to:_:)``. Each question's answer is where
/// the socket's packets go. Pure: the engine numbers and sends the lookups.
package struct QuestionRound: Sendable {
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

    /// The socket questions of the round in progress, and the verdicts given so far.
    package private(set) var questions: [RouteLookup] = []
    private var verdicts: SmallMap<RouteLookup, SocketVerdict> = [:]
    /// The lookups sent and not answered yet, by sequence number.
    package private(set) var pendingLookups: SmallMap<UInt32, PendingLookup> = [:]
    private var replies: SmallMap<PendingLookup, KernelAnswer> = [:]
    /// The answers of the last complete round.
    package private(set) var answers: SmallMap<RouteLookup, KernelAnswer> = [:]
    private var collecting: SmallMap<RouteLookup, KernelAnswer> = [:]
    /// Ask for the table entries too (an expiry passed: learn the lifetimes now in force,
    /// which router advertisements renew without a message).
    private var refreshLifetimes = false
    /// How many rounds of questions were asked (tests check the coalescing).
    package private(set) var lookupRounds = 0

    package init() {}

    /// Whether no question waits for a verdict and no lookup for its reply.
    package var isIdle: Bool { questions.isEmpty && pendingLookups.isEmpty }

    /// Whether every question of the round has its verdict.
    package var hasEveryVerdict: Bool { questions.allSatisfy { verdicts[$0] != nil } }

    /// Starts a round with `questions`, for the families in `stale` (bits of
    /// ``KernelState/familyBit(_:)``); the other families' answers still hold.
    package mutating func start(_ questions: [RouteLookup], stale: UInt8) {
        lookupRounds += 1
        collecting = answers.filter { KernelState.familyBit($0.key.family) & stale == 0 }
        self.questions = questions
        verdicts = [:]
        replies = [:]
    }

    /// The verdict of a socket question of this round.
    package mutating func answer(_ lookup: RouteLookup, _ verdict: SocketVerdict) {
        guard questions.contains(lookup) else { return }
        verdicts[lookup] = verdict
    }

    /// The next expiry passed: the next round also asks for the table entries.
    package mutating func refreshLifetimesNext() {
        refreshLifetimes = true
    }

    /// Every verdict is in: the route lookups to send — for the sockets that connected, from
    /// their source (for IPv6 also without one, which decides when it succeeds), the table
    /// entries when an expiry passed; without a source, whether a route exists at all.
    /// A refusal is the question's answer at once.
    package mutating func plannedLookups() -> [(lookup: RouteLookup, kind: LookupKind, source: IPAddress?)] {
        var lookups: [(lookup: RouteLookup, kind: LookupKind, source: IPAddress?)] = []
        let refresh = refreshLifetimes
        refreshLifetimes = false
        for lookup in questions {
            switch verdicts[lookup] {
            case .connected(let source)?:
                if lookup.family == IPAddress.inet6 { lookups.append((lookup, .sourceless, nil)) }
                lookups.append((lookup, .fromSource, source))
                if refresh && lookup.family == IPAddress.inet6 {
                    // Each IPv6 question again for the table entry that answers it, bound as
                    // it is (a filtered monitor's answers may come from routes an unbound one
                    // never uses).
                    lookups.append((RouteLookup(family: lookup.family, interfaceIndex: lookup.interfaceIndex, tableEntry: true), .tableEntry, nil))
                }
            case .refused(LinuxErrno.addressNotAvailable)?:
                // No source (IPv6 off, or only tentative addresses): whether a route exists
                // at all decides between noAddress and noDefaultRoute.
                lookups.append((lookup, .sourceless, nil))
            case .refused(let code)?:
                collecting[lookup] = .refused(errno: code)
            case nil:
                break
            }
        }
        return lookups
    }

    /// A planned lookup went out with `sequence`.
    package mutating func sent(_ sequence: UInt32, _ pending: PendingLookup) {
        pendingLookups[sequence] = pending
    }

    /// What a reply to one of the round's lookups was.
    package enum Reply: Equatable, Sendable {
        /// Not a lookup of this round.
        case notOurs
        /// The table entry of a route, with its lifetime now in force (not a change).
        case tableEntry(RouteMessage)
        /// Recorded; `complete` when it was the last one awaited (then ``finish()``).
        case recorded(complete: Bool)
    }

    /// A reply with `sequence`.
    package mutating func reply(to sequence: UInt32, _ message: NetlinkMessage) -> Reply {
        guard let pending = pendingLookups.removeValue(forKey: sequence) else { return .notOurs }
        switch message {
        case .newRoute(let route) where pending.kind == .tableEntry:
            return .tableEntry(route)
        case .newRoute(let route):
            replies[pending] = .route(route)
        case .error(let code) where code < 0:
            if pending.kind != .tableEntry { replies[pending] = .refused(errno: LinuxErrno(-code)) }
        default:
            break
        }
        return .recorded(complete: pendingLookups.isEmpty)
    }

    /// Whether the last reply awaited has come (after a ``Reply/tableEntry(_:)``).
    package var isComplete: Bool { pendingLookups.isEmpty }

    /// Every reply is in: each question's answer is where the socket's packets go; they
    /// become ``answers``.
    package mutating func finish() {
        for lookup in questions {
            let sourceless = replies[PendingLookup(lookup: lookup, kind: .sourceless)]
            guard case .connected(let source)? = verdicts[lookup] else {
                // A socket with no source: a route without one is noAddress; no route, noRoute.
                if case .route(var route)? = sourceless {
                    route.source = nil
                    collecting[lookup] = .route(route)
                } else if let sourceless {
                    collecting[lookup] = sourceless
                }
                continue
            }
            let fromSource = replies[PendingLookup(lookup: lookup, kind: .fromSource)]
            // A connected IPv6 socket keeps the route of its source-less lookup when that one
            // succeeds; IPv4 looks again from the source it picked.
            var chosen = fromSource
            if case .route(let route)? = sourceless, route.type == Netlink.RouteType.unicast { chosen = sourceless }
            if case .route(var route)? = chosen {
                if !source.isUnspecified { route.source = source }
                collecting[lookup] = .route(route)
            } else if let chosen {
                collecting[lookup] = chosen
            }
        }
        questions = []
        verdicts = [:]
        replies = [:]
        answers = collecting
    }

    /// Forgets questions and lookups whose answers did not come (or that asked about tables
    /// since thrown away).
    package mutating func abandon() {
        pendingLookups.removeAll()
        questions = []
        verdicts = [:]
        replies = [:]
    }
}
