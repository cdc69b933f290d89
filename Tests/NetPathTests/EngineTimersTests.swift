import Testing
@testable import NetPathCore

/// The engine's timing rules on their own, on a manual clock (instants from its origin).
@Suite struct EngineTimersTests {
    @Test func anAwaitedReplyIsLostAStallAfterTheLastRequestOrReplyOnceTheQueueEmptied() {
        var timers = EngineTimers()
        timers.sent(at: .at(milliseconds: 100))
        timers.replied(at: .at(milliseconds: 400))
        #expect(timers.lostReplyTime == .at(milliseconds: 1_400))
        #expect(!timers.isReplyLost(at: .at(milliseconds: 1_399)) && timers.isReplyLost(at: .at(milliseconds: 1_400)))
        // A read that stopped at the batch limit: the reply may be queued behind events.
        timers.readEnded(emptied: false)
        #expect(!timers.isReplyLost(at: .at(milliseconds: 5_000)))
        #expect(timers.wakeTime(now: .at(milliseconds: 5_000), awaitingReply: true, answered: false) == .at(milliseconds: 5_001))
        #expect(timers.wakeTime(now: .zero, awaitingReply: true, answered: false) == .at(milliseconds: 1_400))
    }

    @Test func anExpiryIsAskedAfterItsMarginThenForgottenAfterFiftyRetries() {
        var timers = EngineTimers()
        timers.setExpiry(.at(milliseconds: 1_000))
        #expect(timers.wakeTime(now: .zero, awaitingReply: false, answered: true) == .at(milliseconds: 1_020))
        #expect(timers.wakeTime(now: .zero, awaitingReply: false, answered: false) == nil)
        var steps = [timers.expiryStep(at: .at(milliseconds: 1_019))]
        for _ in 0..<EngineTimers.maximumExpiryRetries { steps.append(timers.expiryStep(at: .at(milliseconds: 1_020))) }
        #expect(steps.first == EngineTimers.ExpiryStep.none)
        #expect(steps.dropFirst().dropLast().allSatisfy { $0 == .askAgain })
        #expect(steps.last == .forget(through: .at(milliseconds: 1_000)))
        timers.setExpiry(nil)
        let after = timers.expiryStep(at: .at(milliseconds: 9_000))
        // A new deadline starts its retries afresh.
        timers.setExpiry(.at(milliseconds: 2_000))
        let fresh = timers.expiryStep(at: .at(milliseconds: 2_020))
        #expect(after == .none && fresh == .askAgain)
    }

    @Test func contradictingAnswersAreAskedAgainDoublingThenBelieved() {
        var timers = EngineTimers()
        var waits: [Duration] = []
        var now = Instant.zero
        while !timers.answersComplete(consistent: false, at: now) {
            let at = timers.wakeTime(now: now, awaitingReply: false, answered: true)!
            waits.append(at - now)
            let early = timers.takeRecheck(at: at - .nanoseconds(1)), due = timers.takeRecheck(at: at)
            #expect(!early && due)
            now = at
        }
        #expect(waits == [1, 2, 4, 8, 16, 32, 64].map { Duration.milliseconds($0) })
        // Consistent answers reset the count.
        let believed = timers.answersComplete(consistent: true, at: now)
        let heldAgain = timers.answersComplete(consistent: false, at: now)
        #expect(believed && !heldAgain)
    }

    @Test func socketErrorsInARowPauseTheReaderDoublingToASecond() {
        var timers = EngineTimers()
        timers.socketFailed(at: .zero)
        #expect(timers.pauseEnd == nil)
        var pauses: [Instant] = []
        for _ in 0..<12 {
            timers.socketFailed(at: .zero)
            pauses.append(timers.pauseEnd!)
        }
        #expect(Array(pauses.prefix(4)) == [1, 2, 4, 8].map { Instant.at(milliseconds: $0) } && pauses.last == .at(milliseconds: 1_024))
        #expect(timers.wakeTime(now: .zero, awaitingReply: false, answered: false) == .at(milliseconds: 1_024))
        timers.turnSucceeded(at: .zero)
        #expect(timers.pauseEnd == nil && timers.wakeTime(now: .zero, awaitingReply: false, answered: false) == nil)
    }
    /// Turns ending at `instants`, each after `events` events; the pause after each.
    private static func pauses(_ instants: [Instant], events: Int, pacer: inout StormPacer) -> [Instant?] {
        instants.map { now in
            for _ in 0..<events { pacer.eventRead() }
            pacer.turnEnded(at: now)
            return pacer.pauseEnd
        }
    }

    @Test func eventsAloneOrAFewTogetherAreNeverPaced() {
        var pacer = StormPacer()
        // One change a millisecond or more apart, however many events each brings.
        let spaced = Self.pauses((1...50).map { .at(milliseconds: $0) }, events: 40, pacer: &pacer)
        // A change's few turns in quick succession (an address, its route, a neighbor).
        let burst = Self.pauses((0..<4).map { .at(seconds: 1) + .microseconds(100 * $0) }, events: 2, pacer: &pacer)
        #expect(spaced.allSatisfy { $0 == nil } && burst.allSatisfy { $0 == nil } && !pacer.isPacing)
    }

    @Test func quickTurnsWithoutEventsAreNoStorm() {
        var pacer = StormPacer()
        // Timer turns (a recheck's doubling starts at 1 ms) and neighbor turns read no events.
        let turns = Self.pauses((0..<20).map { .zero + .microseconds(50 * $0) }, events: 0, pacer: &pacer)
        #expect(turns.allSatisfy { $0 == nil })
    }

    @Test func theFourthQuickTurnWithEventsPacesUntilAPausedReadIsCalm() {
        var pacer = StormPacer()
        let storm = (0..<5).map { Instant.zero + .microseconds(100 * $0) }
        let first = Self.pauses(storm, events: 2, pacer: &pacer)
        #expect(first == [nil, nil, nil, nil, storm[4] + StormPacer.pace])
        // The paced read takes what the pause gathered: the storm goes on.
        let gathered = storm[4] + StormPacer.pace
        let paced = Self.pauses([gathered], events: StormPacer.calmEvents, pacer: &pacer)
        #expect(paced == [gathered + StormPacer.pace])
        // Fewer than `calmEvents` in a pause: the storm is over, and the next event is read
        // as it comes.
        let calm = Self.pauses([gathered + StormPacer.pace], events: StormPacer.calmEvents - 1, pacer: &pacer)
        let next = Self.pauses([gathered + StormPacer.pace + .microseconds(100)], events: 1, pacer: &pacer)
        #expect(calm == [nil] && next == [nil] && !pacer.isPacing)
    }

    @Test func aStormsPauseIsTheReadersWakeAndPausesTheSocket() {
        var timers = EngineTimers()
        for turn in 0..<5 {
            timers.eventRead()
            timers.turnSucceeded(at: .zero + .microseconds(100 * turn))
        }
        let end = Instant.zero + .microseconds(400) + StormPacer.pace
        #expect(timers.isPaused(at: .zero + .microseconds(400)) && !timers.isPaused(at: end))
        #expect(timers.wakeTime(now: .zero + .microseconds(400), awaitingReply: false, answered: true) == end)
        // A socket error's pause and the storm's are kept apart: the error's ends first here.
        timers.socketFailed(at: .zero)
        timers.socketFailed(at: .zero)
        #expect(timers.wakeTime(now: .zero, awaitingReply: false, answered: true) == .at(milliseconds: 1))
    }
}
