#if os(Linux) || os(Android)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
@testable import NetPath

/// The shared reader's round, on fixtures: what it polls, how long it waits, who gets a
/// turn. Times in nanoseconds from 0; the eventfd is descriptor 3.
@Suite struct SharedPollPlanTests {
    typealias Member = SharedPollPlan.Member
    let ms: UInt64 = 1_000_000

    @Test func idleMembersArePolledForeverAndNobodyTurns() {
        let plan = SharedPollPlan(wakeFD: 3, members: [Member(socket: 10, watcher: 11), Member(socket: 20)], now: 0)
        #expect(plan.descriptors.map(\.fd) == [3, 10, 11, 20])
        #expect(plan.timeout == -1)
        let idle = plan.due(at: 5_000 * ms)
        #expect(idle.watchers.isEmpty && idle.policies.isEmpty && idle.turns.isEmpty)
    }

    @Test func theEarliestExpiryBoundsTheWaitRoundedUp() {
        let members = [Member(socket: 10, expiryWake: 2_500 * ms + 1), Member(socket: 20, expiryWake: 900 * ms + 1), Member(socket: 30)]
        let plan = SharedPollPlan(wakeFD: 3, members: members, now: 0)
        #expect(plan.timeout == 901)
        // Woken by the timeout: only the member whose time came turns.
        #expect(plan.due(at: 901 * ms).turns == [1])
        #expect(plan.due(at: 3_000 * ms).turns == [0, 1])
        // An expiry already past: no wait at all.
        #expect(SharedPollPlan(wakeFD: 3, members: [Member(socket: 10, expiryWake: 5)], now: 10).timeout == 0)
    }

    @Test func aPausingMemberIsNotPolledUntilItsPauseEnds() {
        let members = [Member(socket: 10, watcher: 11, pauseEnd: 64 * ms), Member(socket: 20)]
        let plan = SharedPollPlan(wakeFD: 3, members: members, now: 0)
        #expect(plan.descriptors.map(\.fd) == [3, 20])
        #expect(plan.timeout == 64)
        #expect(plan.due(at: 64 * ms).turns == [0])
        // A pause that has ended: polled again.
        #expect(SharedPollPlan(wakeFD: 3, members: members, now: 65 * ms).descriptors.map(\.fd) == [3, 10, 11, 20])
    }

    @Test func readableDescriptorsGiveTurnsAndAReadableWatchIsReadFirst() {
        var plan = SharedPollPlan(wakeFD: 3, members: [Member(socket: 10, watcher: 11), Member(socket: 20, watcher: 21), Member(socket: 30)], now: 0)
        #expect(plan.descriptors.map(\.fd) == [3, 10, 11, 20, 21, 30])
        plan.descriptors[0].revents = Int16(POLLIN)  // the eventfd alone: nobody turns
        #expect(plan.due(at: 1).turns.isEmpty)
        plan.descriptors[4].revents = Int16(POLLIN)  // member 1's resolver watch
        plan.descriptors[5].revents = Int16(POLLERR)  // member 2's socket, an error to read
        let due = plan.due(at: 1)
        #expect(due.watchers == [1] && due.turns == [1, 2])
    }

    @Test func aReadablePolicySocketGivesItsMemberATurn() {
        var plan = SharedPollPlan(wakeFD: 3, members: [Member(socket: 10, policies: 12), Member(socket: 20)], now: 0)
        #expect(plan.descriptors.map(\.fd) == [3, 10, 12, 20])
        plan.descriptors[2].revents = Int16(POLLIN)
        let due = plan.due(at: 1)
        #expect(due.policies == [0] && due.watchers.isEmpty && due.turns == [0])
    }
}
#endif
