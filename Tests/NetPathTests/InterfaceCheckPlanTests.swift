import Testing
@testable import NetPathCore

/// When `serve --probe-interfaces` checks each interface (``InterfaceCheckPlan``): on the
/// path's changes, then on the monitor's own timing rules, on a manual clock.
@Suite struct InterfaceCheckPlanTests {
    private func at(_ seconds: Int) -> Instant { .zero + .seconds(seconds) }

    @Test func everyCandidateIsCheckedAtOnceAndAgainOnlyWhenTheWayOutChanges() {
        var plan = InterfaceCheckPlan(interval: nil)
        #expect(plan.handle(.path(interfaces: ["up0", "up1"], key: 1), at: at(0)) == [.start("up0"), .start("up1")])
        #expect(plan.handle(.finished(interface: "up0", outcome: .full), at: at(1)).isEmpty)
        #expect(plan.handle(.finished(interface: "up1", outcome: .full), at: at(1)).isEmpty)
        // The same path again (another field changed): nothing is sent.
        #expect(plan.handle(.path(interfaces: ["up0", "up1"], key: 1), at: at(2)).isEmpty)
        // Another gateway: both again.
        #expect(plan.handle(.path(interfaces: ["up0", "up1"], key: 2), at: at(3)) == [.start("up0"), .start("up1")])
    }

    @Test func aShortVerdictIsCheckedAgainAfterABackOffThatDoublesToFiveMinutes() {
        var plan = InterfaceCheckPlan(interval: nil)
        _ = plan.handle(.path(interfaces: ["up1"], key: 1), at: at(0))
        var now = at(0)
        var delays: [Duration] = []
        for _ in 0..<11 {
            let actions = plan.handle(.finished(interface: "up1", outcome: .short), at: now)
            guard case .wake(let instant)? = actions.last else { Issue.record("no wake: \(actions)"); return }
            delays.append(instant - now)
            now = instant
            #expect(plan.handle(.timer, at: now) == [.start("up1")])
        }
        #expect(delays.map { $0 / .seconds(1) } == [1, 2, 4, 8, 16, 32, 64, 128, 256, 300, 300])
        // A full verdict resets the back-off; with an interval it is checked again after it.
        var checked = InterfaceCheckPlan(interval: .seconds(60))
        _ = checked.handle(.path(interfaces: ["up0"], key: 1), at: at(0))
        #expect(checked.handle(.finished(interface: "up0", outcome: .full), at: at(2)) == [.wake(at: at(62))])
        #expect(checked.handle(.timer, at: at(61)).isEmpty)
        #expect(checked.handle(.timer, at: at(62)) == [.start("up0")])
    }

    @Test func aPathChangeDuringACheckChecksAgainWhenItEnds() {
        var plan = InterfaceCheckPlan(interval: nil)
        _ = plan.handle(.path(interfaces: ["up0"], key: 1), at: at(0))
        // Running already: not a second check at once.
        #expect(plan.handle(.path(interfaces: ["up0"], key: 2), at: at(1)).isEmpty)
        #expect(plan.handle(.finished(interface: "up0", outcome: .full), at: at(2)) == [.start("up0")])
        #expect(plan.handle(.finished(interface: "up0", outcome: .full), at: at(3)).isEmpty)
    }

    @Test func anInterfaceThatLeavesIsForgottenAndOneRoutedNowhereWaitsForAChange() {
        var plan = InterfaceCheckPlan(interval: .seconds(60))
        _ = plan.handle(.path(interfaces: ["up0", "lan0"], key: 1), at: at(0))
        #expect(plan.handle(.finished(interface: "lan0", outcome: .notRouted), at: at(1)).isEmpty)
        #expect(plan.handle(.timer, at: at(1_000)).isEmpty)
        #expect(plan.handle(.path(interfaces: ["up0"], key: 1), at: at(1_001)) == [.forget("lan0")])
        // Its late verdict, or a timer, starts nothing for it.
        #expect(plan.handle(.finished(interface: "lan0", outcome: .full), at: at(1_002)).isEmpty)
        // No candidates (the path is lost): every one forgotten.
        #expect(plan.handle(.path(interfaces: [], key: 2), at: at(1_003)) == [.forget("up0")])
    }
}
