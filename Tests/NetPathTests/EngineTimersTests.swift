import Testing
@testable import NetPathCore

/// The engine's timing rules on their own, on a manual clock (monotonic nanoseconds from 0).
@Suite struct EngineTimersTests {
    let ms: UInt64 = 1_000_000

    @Test func anAwaitedReplyIsLostAStallAfterTheLastRequestOrReplyOnceTheQueueEmptied() {
        var timers = EngineTimers()
        timers.sent(at: 100 * ms)
        timers.replied(at: 400 * ms)
        #expect(timers.lostReplyTime == 1_400 * ms)
        #expect(!timers.isReplyLost(at: 1_399 * ms) && timers.isReplyLost(at: 1_400 * ms))
        // A read that stopped at the batch limit: the reply may be queued behind events.
        timers.readEnded(emptied: false)
        #expect(!timers.isReplyLost(at: 5_000 * ms))
        #expect(timers.wakeTime(now: 5_000 * ms, awaitingReply: true, answered: false) == 5_001 * ms)
        #expect(timers.wakeTime(now: 0, awaitingReply: true, answered: false) == 1_400 * ms)
    }

    @Test func anExpiryIsAskedAfterItsMarginThenForgottenAfterFiftyRetries() {
        var timers = EngineTimers()
        timers.setExpiry(1_000 * ms)
        #expect(timers.wakeTime(now: 0, awaitingReply: false, answered: true) == 1_020 * ms)
        #expect(timers.wakeTime(now: 0, awaitingReply: false, answered: false) == nil)
        var steps = [timers.expiryStep(at: 1_019 * ms)]
        for _ in 0..<EngineTimers.maximumExpiryRetries { steps.append(timers.expiryStep(at: 1_020 * ms)) }
        #expect(steps.first == EngineTimers.ExpiryStep.none)
        #expect(steps.dropFirst().dropLast().allSatisfy { $0 == .askAgain })
        #expect(steps.last == .forget(through: 1_000 * ms))
        timers.setExpiry(nil)
        let after = timers.expiryStep(at: 9_000 * ms)
        // A new deadline starts its retries afresh.
        timers.setExpiry(2_000 * ms)
        let fresh = timers.expiryStep(at: 2_020 * ms)
        #expect(after == .none && fresh == .askAgain)
    }

    @Test func contradictingAnswersAreAskedAgainDoublingThenBelieved() {
        var timers = EngineTimers()
        var waits: [UInt64] = []
        var now: UInt64 = 0
        while !timers.answersComplete(consistent: false, at: now) {
            let at = timers.wakeTime(now: now, awaitingReply: false, answered: true)!
            waits.append(at - now)
            let early = timers.takeRecheck(at: at - 1), due = timers.takeRecheck(at: at)
            #expect(!early && due)
            now = at
        }
        #expect(waits == [1, 2, 4, 8, 16, 32, 64].map { $0 * ms })
        // Consistent answers reset the count.
        let believed = timers.answersComplete(consistent: true, at: now)
        let heldAgain = timers.answersComplete(consistent: false, at: now)
        #expect(believed && !heldAgain)
    }

    @Test func socketErrorsInARowPauseTheReaderDoublingToASecond() {
        var timers = EngineTimers()
        timers.socketFailed(at: 0)
        #expect(timers.pauseEnd == nil)
        var pauses: [UInt64] = []
        for _ in 0..<12 {
            timers.socketFailed(at: 0)
            pauses.append(timers.pauseEnd!)
        }
        #expect(Array(pauses.prefix(4)) == [1, 2, 4, 8].map { $0 * ms } && pauses.last == 1_024 * ms)
        #expect(timers.wakeTime(now: 0, awaitingReply: false, answered: false) == 1_024 * ms)
        timers.turnSucceeded()
        #expect(timers.pauseEnd == nil && timers.wakeTime(now: 0, awaitingReply: false, answered: false) == nil)
    }
}
