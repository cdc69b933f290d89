/// When the reader reads its socket during a storm of events: once per ``pace`` instead of
/// at every event. Pure: each rule takes the time (an ``Instant``) and reads no clock.
///
/// A storm (a container starting, `ip -batch`, a routing daemon loading its table) brings
/// tens of events per millisecond. Woken for each, the reader pays a wake-up and a read
/// per one or two messages, more than what it does with them (BENCHMARKS.md, "Storm
/// pacing"). A turn that ends within ``gap`` of the one before is quick; ``quickTurns``
/// quick turns in a row, each with events, make a storm, and from then on the socket is left
/// alone for ``pace`` after each turn, so the next read takes everything queued meanwhile.
/// A paced turn that reads fewer than ``calmEvents`` events ends the storm.
///
/// An event alone, or the few that one change brings, never waits: pacing starts only on
/// the fourth quick turn in a row. During a storm, a change is seen at most ``pace`` later.
package struct StormPacer: Sendable, Equatable {
    /// Turns that end this close together are quick.
    package static let gap: Duration = .milliseconds(1)
    /// This many quick turns with events in a row make a storm.
    package static let quickTurns = 4
    /// During a storm, the socket is read at most once per this interval.
    package static let pace: Duration = .milliseconds(2)
    /// A paced turn with fewer events than this ends the storm.
    package static let calmEvents = 16

    /// Events read since the last turn ended (replies to the reader's own requests are not
    /// events).
    package private(set) var events = 0
    private var lastTurnEnd: Instant?
    private var quick = 0
    /// Until when the socket is left alone (`nil`: not pacing).
    package private(set) var pauseEnd: Instant?

    package init() {}

    /// Whether a storm is being paced.
    package var isPacing: Bool { pauseEnd != nil }

    /// An event was read.
    package mutating func eventRead() {
        events += 1
    }

    /// A turn ended at `now`, after the events counted since the last one.
    package mutating func turnEnded(at now: Instant) {
        if isPacing {
            // The pause gathered the storm's events: go on while they keep coming.
            quick = 0
            pauseEnd = events >= StormPacer.calmEvents ? now + StormPacer.pace : nil
        } else {
            let isQuick = events > 0 && lastTurnEnd.map { now - $0 < StormPacer.gap } ?? false
            quick = isQuick ? quick + 1 : 0
            // The first turn of a run has no turn before it within the gap: the fourth quick
            // turn is the fifth turn of the run.
            pauseEnd = quick >= StormPacer.quickTurns ? now + StormPacer.pace : nil
        }
        lastTurnEnd = now
        events = 0
    }
}
