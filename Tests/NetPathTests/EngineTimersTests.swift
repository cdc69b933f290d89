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
        timers.turnSucceeded()
        #expect(timers.pauseEnd == nil && timers.wakeTime(now: .zero, awaitingReply: false, answered: false) == nil)
    }
}
