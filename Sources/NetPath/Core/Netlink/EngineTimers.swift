/// The ``NetlinkEngine``'s timing rules, apart from its tables: when an awaited reply is taken
/// as lost, when the expiry of a route the answers came from is asked about, when answers that
/// contradict the tables are asked again, and how long the reader pauses after socket errors.
/// Each rule takes the time (an ``Instant``) as an argument and reads no clock, so it
/// is tested on its own with a manual clock. Pure.
package struct EngineTimers: Sendable {
    /// How long an awaited reply may take before it is taken as lost (a failed send, a
    /// dropped reply) and everything is dumped afresh.
    package static let stallTimeout: Duration = .seconds(1)
    /// Looked up this long after a route's expiry: the kernel's clock ticks are coarser
    /// than the lifetime it reports (1/100 s).
    package static let expiryMargin: Duration = .milliseconds(20)
    /// How many times in a row the answer may still come from a route past its expiry
    /// before that lifetime is forgotten.
    package static let maximumExpiryRetries = 50
    /// The first wait before asking again after answers that contradict the tables
    /// (doubling), and how many times; then the answer is believed. The kernel finishes the
    /// change it announced within microseconds unless its thread was preempted.
    package static let recheckDelay: Duration = .milliseconds(1)
    package static let maximumRechecks = 7
    /// The shortest wait the reader is given (1 ms), so a deadline just past never spins it.
    package static let minimumWait: Duration = .milliseconds(1)

    /// When the last datagram was handed to the reader to send, and when a reply to our own
    /// requests (a dump part, a lookup's answer) was last handled: an awaited reply is taken
    /// as lost a ``stallTimeout`` after the later of the two, once a read has emptied the
    /// queue without it (``readEnded(emptied:)``).
    package private(set) var lastSent: Instant = .zero
    package private(set) var lastReplyAt: Instant = .zero
    private var queueEmptied = true
    /// When to ask again because a route the answers came from expires, and how many times
    /// in a row the answer still came from a route past its expiry (bounded: then that
    /// lifetime is forgotten, so a clock that disagrees with the kernel's cannot make the
    /// reader spin, nor hide a later expiry).
    package private(set) var expiry: (deadline: Instant?, retries: Int) = (nil, 0)
    /// When to ask again because the answers contradicted the tables, and how many times
    /// in a row that happened.
    package private(set) var recheck: (at: Instant?, count: Int) = (nil, 0)
    /// Socket errors in a row, and until when the reader leaves the socket alone.
    private var failures = 0
    package private(set) var pauseEnd: Instant?
    /// When the socket is read during a storm of events.
    package private(set) var storm = StormPacer()

    package init() {}

    // MARK: The reply clock

    /// Datagrams were handed to the reader to send at `now`.
    package mutating func sent(at now: Instant) {
        lastSent = now
    }

    /// A reply to our own requests was handled at `now`.
    package mutating func replied(at now: Instant) {
        lastReplyAt = now
    }

    /// A read ended: at an empty queue, or at the batch limit with more queued (only after
    /// an empty read can an awaited reply be missing rather than queued behind events).
    package mutating func readEnded(emptied: Bool) {
        queueEmptied = emptied
    }

    /// When an awaited reply is taken as lost: a ``stallTimeout`` after the last request or
    /// reply.
    package var lostReplyTime: Instant {
        max(lastSent, lastReplyAt) + EngineTimers.stallTimeout
    }

    /// Whether an awaited reply is lost at `now`: its time has passed and a read emptied the
    /// queue without it.
    package func isReplyLost(at now: Instant) -> Bool {
        queueEmptied && now >= lostReplyTime
    }

    // MARK: Rechecks and expiries

    /// Whether a recheck of contradicting answers is due at `now`; taking it clears it.
    package mutating func takeRecheck(at now: Instant) -> Bool {
        guard let at = recheck.at, now >= at else { return false }
        recheck.at = nil
        return true
    }

    /// What the expiry rule asks at `now`, with the tables complete and nothing awaited.
    package enum ExpiryStep: Equatable, Sendable {
        /// Nothing is due.
        case none
        /// The deadline plus the margin passed: ask the kernel again.
        case askAgain
        /// Still used long past its end by our clock: stop counting on the lifetimes that end
        /// by this deadline, then ``setExpiry(_:)`` with the next one.
        case forget(through: Instant)
    }

    /// The expiry rule at `now`: at the deadline plus the margin, not before (a turn that a
    /// message brings in the last tick of a lifetime would ask while the route still counts).
    package mutating func expiryStep(at now: Instant) -> ExpiryStep {
        guard let deadline = expiry.deadline, now >= deadline + EngineTimers.expiryMargin else { return .none }
        expiry.retries += 1
        if expiry.retries < EngineTimers.maximumExpiryRetries { return .askAgain }
        expiry.retries = 0
        return .forget(through: deadline)
    }

    /// The deadline the answers depend on now (`nil`: none expires).
    package mutating func setExpiry(_ deadline: Instant?) {
        if deadline != expiry.deadline { expiry.retries = 0 }
        expiry.deadline = deadline
    }

    /// A complete set of answers at `now`: whether they may be delivered. Answers that
    /// contradict the tables are held back and asked again (after 1 ms, doubling) up to
    /// ``maximumRechecks`` times in a row; then they are believed.
    package mutating func answersComplete(consistent: Bool, at now: Instant) -> Bool {
        if !consistent && recheck.count < EngineTimers.maximumRechecks {
            recheck.at = now + EngineTimers.recheckDelay * (1 << recheck.count)
            recheck.count += 1
            return false
        }
        if consistent { recheck = (nil, 0) }
        return true
    }

    // MARK: Socket errors

    /// A socket error at `now`: from the second in a row on, the reader pauses 1 ms,
    /// doubling to about 1 s, so a broken socket cannot spin it.
    package mutating func socketFailed(at now: Instant) {
        failures += 1
        if failures > 1 { pauseEnd = now + .milliseconds(1 << min(failures - 2, 10)) }
        // A turn ended all the same: its events are counted, and not again with the next.
        storm.turnEnded(at: now)
    }

    /// A turn ended at `now` without a socket error (during a storm, the socket is then left
    /// alone for ``StormPacer/pace``).
    package mutating func turnSucceeded(at now: Instant) {
        failures = 0
        pauseEnd = nil
        storm.turnEnded(at: now)
    }

    /// An event (not a reply to the reader's own requests) was read.
    package mutating func eventRead() {
        storm.eventRead()
    }

    /// Whether the reader leaves the socket alone at `now`: after socket errors, or between
    /// a storm's paced reads.
    package func isPaused(at now: Instant) -> Bool {
        (pauseEnd.map { $0 > now } ?? false) || (storm.pauseEnd.map { $0 > now } ?? false)
    }

    // MARK: The next wake-up

    /// When the reader must step without a message, or `nil` to wait for one: while a reply
    /// is awaited, the moment it is taken as lost; else, with the answers complete, the next
    /// expiry plus its margin; a recheck of contradicting answers; the end of a pause (after
    /// socket errors, or a storm's).
    package func wakeTime(now: Instant, awaitingReply: Bool, answered: Bool) -> Instant? {
        var wake: Instant?
        if awaitingReply {
            // While a reply is awaited, its arrival brings the next step; an expiry waits.
            wake = max(lostReplyTime, now + EngineTimers.minimumWait)
        } else if answered, let deadline = expiry.deadline {
            wake = max(deadline + EngineTimers.expiryMargin, now + EngineTimers.minimumWait)
        }
        if let at = recheck.at { wake = min(wake ?? at, at) }
        if let pauseEnd, pauseEnd > now { wake = min(wake ?? pauseEnd, pauseEnd) }
        if let paceEnd = storm.pauseEnd, paceEnd > now { wake = min(wake ?? paceEnd, paceEnd) }
        return wake
    }
}
