/// The ``NetlinkEngine``'s dump protocol (SPEC §2.1, §2.9): links, then addresses, routes,
/// rules and nexthop objects, one dump at a time as the kernel allows; a dump interrupted by
/// a concurrent change (`NLM_F_DUMP_INTR`), or an overrun while one runs, starts over when it
/// ends; an optional dump (rules, nexthops) that fails is asked again alone later, or never
/// again when the kernel has no handler for it. It also numbers the engine's requests. Pure.
package struct DumpMachine: Sendable {
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
        /// When to ask for it again, after an error answer.
        package var retryAt: Instant?
        /// The kernel answered `EOPNOTSUPP`.
        package var unsupported = false
    }

    /// A dump request the caller must send.
    package struct Request: Hashable, Sendable {
        package var dump: Dump
        package var sequence: UInt32
    }

    /// The first wait before asking again for an optional dump that failed, doubling to at
    /// most ``maximumDumpRetry``.
    package static let firstDumpRetry: Duration = .milliseconds(100)
    package static let maximumDumpRetry: Duration = .seconds(5)

    /// The wait before asking again for an optional dump that failed `failures` times in a
    /// row: 0.1 s, doubling, at most 5 s.
    package static func dumpRetryDelay(afterFailures failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        return min(firstDumpRetry * (1 << min(failures - 1, 16)), maximumDumpRetry)
    }

    /// Where the protocol is.
    package enum State: Equatable, Sendable {
        /// No dump runs: the tables are complete.
        case idle
        /// A dump runs, with the sequence number its replies carry; `alone` when it is an
        /// optional dump asked again by itself (it ends no synchronisation); `startOver` when
        /// it was interrupted, or an overrun came, and everything is dumped again at its end.
        case dumping(Dump, sequence: UInt32, alone: Bool, startOver: Bool)
    }

    /// How a dump ended, and what the engine does next.
    package enum End: Equatable, Sendable {
        /// Throw the tables away and dump everything again (``start()``).
        case startOver
        /// Send the next dump of the synchronisation.
        case next(Request)
        /// A synchronisation is complete.
        case complete
        /// An optional dump asked alone ended; `refused` when the kernel refused it again.
        case aloneEnded(refused: Bool)
    }

    package private(set) var state = State.idle
    /// The optional dumps that failed or that the kernel refuses; absent: answered.
    package private(set) var optionalDumps: [Dump: OptionalDump] = [:]
    /// How many times the tables were thrown away and dumped again (overruns, interrupted
    /// dumps, lost replies).
    package private(set) var resyncCount = 0
    /// The sequence number of the last dump request.
    package private(set) var dumpSequence: UInt32 = 0
    private var lastSequence: UInt32 = 0

    package init() {}

    /// The dump in progress, or `nil`.
    package var current: Dump? {
        if case .dumping(let dump, _, _, _) = state { return dump }
        return nil
    }

    /// A sequence number for a request (never 0, the kernel's for events).
    package mutating func nextSequence() -> UInt32 {
        lastSequence &+= 1
        if lastSequence == 0 || lastSequence == UInt32.max { lastSequence = 1 }
        return lastSequence
    }

    /// A full dump starts: the first request. The engine throws its tables away first.
    package mutating func start() -> Request {
        if lastSequence != 0 { resyncCount += 1 }
        return request(.links, alone: false)
    }

    /// Everything must be dumped again: now (the request), or, while a dump runs, when it
    /// ends (`nil`).
    package mutating func startOverWhenFree() -> Bool {
        guard case .dumping(let dump, let sequence, let alone, _) = state else { return true }
        state = .dumping(dump, sequence: sequence, alone: alone, startOver: true)
        return false
    }

    /// A dump whose replies never came is abandoned.
    package mutating func abandon() {
        state = .idle
    }

    /// Whether a message with `sequence` belongs to the dump in progress.
    package func isReply(sequence: UInt32) -> Bool {
        if case .dumping(_, let expected, _, _) = state { return sequence == expected }
        return false
    }

    /// A reply said the dump was interrupted by a change: it starts over when it ends.
    package mutating func interrupted() {
        _ = startOverWhenFree()
    }

    /// The optional dump to ask for again alone at `now`, if one is due (only while no dump
    /// runs); its request.
    package mutating func dueOptionalDump(now: Instant) -> Request? {
        guard case .idle = state,
              let dump = [Dump.rules, .nexthops].first(where: { optionalDumps[$0]?.retryAt.map { now >= $0 } ?? false })
        else { return nil }
        return request(dump, alone: true)
    }

    /// When an optional dump is asked again, if one waits (only while no dump runs).
    package func nextRetry(now: Instant) -> Instant? {
        guard case .idle = state, let at = optionalDumps.values.compactMap(\.retryAt).min() else { return nil }
        return max(at, now)
    }

    /// The dump in progress ended: with `DONE` (`refusal` nil), refused with an errno (an
    /// optional dump), or `failed` (a required one refused: everything is dumped afresh).
    /// - Returns: What follows, or `nil` when no dump runs.
    package mutating func finish(refusedWith refusal: LinuxErrno?, failed: Bool, now: Instant) -> End? {
        guard case .dumping(let dump, _, let alone, let startOver) = state else { return nil }
        if failed || startOver {
            state = .idle
            return .startOver
        }
        if let refusal {
            optionalDumpRefused(dump, refusal, now: now)
        } else if dump.isOptional {
            optionalDumps[dump] = nil
        }
        if alone {
            state = .idle
            return .aloneEnded(refused: refusal != nil)
        }
        var next = dump.next
        while let skipped = next, optionalDumps[skipped]?.unsupported == true { next = skipped.next }
        if let next { return .next(request(next, alone: false)) }
        state = .idle
        return .complete
    }

    private mutating func request(_ dump: Dump, alone: Bool) -> Request {
        dumpSequence = nextSequence()
        state = .dumping(dump, sequence: dumpSequence, alone: alone, startOver: false)
        return Request(dump: dump, sequence: dumpSequence)
    }

    /// An optional dump was refused: for good with `EOPNOTSUPP`, else asked again later.
    private mutating func optionalDumpRefused(_ dump: Dump, _ error: LinuxErrno, now: Instant) {
        var record = optionalDumps[dump] ?? OptionalDump()
        if error == .notSupported {
            record.unsupported = true
            record.retryAt = nil
        } else {
            record.failures += 1
            record.retryAt = now + DumpMachine.dumpRetryDelay(afterFailures: record.failures)
        }
        optionalDumps[dump] = record
    }
}
