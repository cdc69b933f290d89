/// A point on the clock the package's loops read (`SystemClock.now()`, monotonic and counting
/// the sleep): the one time type inside NetPath. Deadlines, timers and the state machines' `at:` are `Instant`s; lengths
/// of time are `Duration`s, as at the public edge. Tests make instants from their own clock
/// (`Instant(nanoseconds:)`, `Instant.zero + .seconds(3)`): the core never reads a clock.
package struct Instant: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin (for Linux's `CLOCK_BOOTTIME`, the boot).
    package var nanoseconds: UInt64

    package init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }

    /// The clock's origin: a test's first instant.
    package static let zero = Instant(nanoseconds: 0)
    /// Later than any instant a clock gives: "no deadline".
    package static let never = Instant(nanoseconds: .max)

    package static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// The instant `duration` later (earlier when it is negative), held within the clock's
    /// range: `.never + anything` stays `.never`.
    package static func + (lhs: Instant, rhs: Duration) -> Instant {
        let delta = rhs.nanoseconds
        if delta >= 0 {
            let (sum, overflow) = lhs.nanoseconds.addingReportingOverflow(UInt64(delta))
            return Instant(nanoseconds: overflow ? .max : sum)
        }
        let magnitude = delta == .min ? UInt64(Int64.max) + 1 : UInt64(-delta)
        return Instant(nanoseconds: lhs.nanoseconds > magnitude ? lhs.nanoseconds - magnitude : 0)
    }

    package static func - (lhs: Instant, rhs: Duration) -> Instant { lhs + (.zero - rhs) }

    package static func += (lhs: inout Instant, rhs: Duration) { lhs = lhs + rhs }

    /// How long from `rhs` to `lhs` (negative when `lhs` is earlier).
    package static func - (lhs: Instant, rhs: Instant) -> Duration {
        lhs >= rhs ? .nanoseconds(clamped(lhs.nanoseconds - rhs.nanoseconds))
                   : .zero - .nanoseconds(clamped(rhs.nanoseconds - lhs.nanoseconds))
    }

    /// How long until `deadline`, zero when it has passed.
    package func duration(until deadline: Instant) -> Duration {
        deadline > self ? deadline - self : .zero
    }

    package var description: String { "\(nanoseconds) ns" }

    private static func clamped(_ value: UInt64) -> Int64 { value > UInt64(Int64.max) ? .max : Int64(value) }
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    package var seconds: Double {
        let (whole, attoseconds) = components
        return Double(whole) + Double(attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds (rounded toward zero), held within `Int64`.
    package var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        return overflow2 ? (seconds < 0 ? .min : .max) : sum
    }

    /// The duration in milliseconds, as a `Double` (for words and JSON).
    package var milliseconds: Double { seconds * 1000 }
}
