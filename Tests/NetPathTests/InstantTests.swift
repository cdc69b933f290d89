import NetPathCore
import Testing

/// The package's one time type: arithmetic at the edges of the clock's range.
struct InstantTests {
    @Test func addingAndSubtractingDurations() {
        let start = Instant.zero + .seconds(3)
        #expect(start.nanoseconds == 3_000_000_000)
        #expect(start + .milliseconds(250) - start == .milliseconds(250))
        #expect(start - .seconds(1) == Instant(nanoseconds: 2_000_000_000))
        #expect(Instant.zero - start == .zero - .seconds(3))
    }

    @Test func theRangeHolds() {
        #expect(Instant.never + .seconds(1) == .never)
        #expect(Instant.zero - .seconds(1) == .zero)
        #expect(Instant.zero.duration(until: .never) == .nanoseconds(Int64.max))
        #expect(Instant(nanoseconds: 5).duration(until: .zero) == .zero)
        #expect(Duration.seconds(Int64.max).nanoseconds == .max)
        #expect((Duration.zero - .seconds(Int64.max)).nanoseconds == .min)
        #expect(Duration.milliseconds(1500).nanoseconds == 1_500_000_000)
        #expect(Duration.milliseconds(1500).milliseconds == 1500)
    }
}
