import NetPath

/// What a monitor's paths add up to over time, for one network namespace: how many paths
/// it emitted, how long it spent in each status, when the path last changed, how long
/// connectivity checks took and how often the monitor recovered from an overrun.
///
/// Feed it every path the monitor emits with ``record(_:at:monotonic:)`` and every check's
/// duration with ``recordCheck(duration:)``; read it when metrics are scraped, with
/// ``statusSeconds(at:)`` for the time spent in each status up to that moment.
/// ``PrometheusExposition`` writes it out.
///
/// It keeps no clock of its own: callers pass the time, so it can be tested with made-up
/// times. Two clocks are taken: wall-clock Unix time for the timestamp people read, and a
/// monotonic clock for durations, which a wall-clock step (NTP, a suspended laptop's
/// resync) must not distort.
public struct PathMetrics: Hashable, Sendable {
    /// The number of paths recorded, the first one included (a monitor emits a path only
    /// when it differs from the one before).
    public private(set) var changes: Int = 0
    /// The Unix time, in seconds, at which the latest path was recorded; `nil` before the
    /// first.
    public private(set) var lastChangeTime: Double?
    /// The status of the latest path recorded; `nil` before the first.
    public private(set) var status: NetworkPath.Status?
    /// The durations of the connectivity checks recorded with ``recordCheck(duration:)``.
    public private(set) var checkDurations: Histogram
    /// How many times the monitor lost kernel events (a receive-buffer overrun) and
    /// recovered by reading the whole state again. Set by the owner of the monitor.
    public var resyncs: Int = 0

    /// Seconds spent in each status before the current one began.
    private var closedSeconds: [NetworkPath.Status: Double] = [:]
    /// The monotonic time at which the current status began.
    private var statusSince: Double = 0

    /// Creates empty metrics: no path recorded yet.
    ///
    /// - Parameters:
    ///   - checkDurationBuckets: The upper bounds, in seconds, of the check-duration
    ///     histogram's buckets: finite and increasing. ``Histogram/defaultUpperBounds`` by
    ///     default.
    public init(checkDurationBuckets: [Double] = Histogram.defaultUpperBounds) {
        checkDurations = Histogram(upperBounds: checkDurationBuckets)
    }

    /// Records a path the monitor emitted.
    ///
    /// - Parameters:
    ///   - path: The new path.
    ///   - time: The wall-clock time it was emitted at, in seconds since 1970 (Unix time).
    ///   - monotonic: The same moment on a monotonic clock, in seconds (any origin, the
    ///     same as for ``statusSeconds(at:)``).
    public mutating func record(_ path: NetworkPath, at time: Double, monotonic: Double) {
        if let status {
            closedSeconds[status, default: 0] += max(0, monotonic - statusSince)
        }
        status = path.status
        statusSince = monotonic
        lastChangeTime = time
        changes += 1
    }

    /// The time spent in each status since the first path, up to `monotonic`.
    ///
    /// The current status's share grows until the next path, so read this when the
    /// metrics are scraped rather than when the path changed.
    ///
    /// - Parameters:
    ///   - monotonic: Now, on the clock passed to ``record(_:at:monotonic:)``.
    /// - Returns: Seconds per status, every status present (0 for those never seen).
    public func statusSeconds(at monotonic: Double) -> [NetworkPath.Status: Double] {
        var seconds = closedSeconds
        for status in NetworkPath.Status.allCases where seconds[status] == nil { seconds[status] = 0 }
        if let status { seconds[status, default: 0] += max(0, monotonic - statusSince) }
        return seconds
    }

    /// Records how long one connectivity check took.
    ///
    /// - Parameters:
    ///   - seconds: The check's duration. A negative duration counts as 0; a duration that
    ///     is not finite is ignored.
    public mutating func recordCheck(duration seconds: Double) {
        checkDurations.observe(seconds)
    }

    /// A histogram of durations in the shape Prometheus expects: a count per bucket, a
    /// total count and a sum.
    public struct Histogram: Hashable, Sendable {
        /// Bucket bounds from 5 ms to 5 minutes: Prometheus' client defaults (5 ms to
        /// 10 s), then 30 s, 1 min, 2 min and 5 min, as a check that tries several
        /// endpoints, each with its own timeout, can take minutes.
        public static let defaultUpperBounds: [Double] = [
            0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300,
        ]

        /// The buckets' upper bounds (inclusive), increasing; the `+Inf` bucket is implied.
        public let upperBounds: [Double]
        /// The number of observations in each bucket alone, one more than
        /// ``upperBounds``: the last counts those above every bound.
        private var bucketCounts: [Int]
        /// The sum of all observations.
        public private(set) var sum: Double = 0
        /// The number of observations.
        public private(set) var count: Int = 0

        /// Creates an empty histogram.
        ///
        /// - Parameters:
        ///   - upperBounds: The buckets' upper bounds: finite and strictly increasing.
        public init(upperBounds: [Double] = Histogram.defaultUpperBounds) {
            precondition(upperBounds.allSatisfy(\.isFinite), "histogram bounds must be finite")
            precondition(zip(upperBounds, upperBounds.dropFirst()).allSatisfy { $0 < $1 },
                         "histogram bounds must increase")
            self.upperBounds = upperBounds
            bucketCounts = Array(repeating: 0, count: upperBounds.count + 1)
        }

        /// Adds one observation.
        ///
        /// - Parameters:
        ///   - value: The observed value. A negative value counts as 0; a value that is not
        ///     finite is ignored, as it would make ``sum`` meaningless.
        public mutating func observe(_ value: Double) {
            guard value.isFinite else { return }
            let value = max(0, value)
            let bucket = upperBounds.firstIndex { value <= $0 } ?? upperBounds.count
            bucketCounts[bucket] += 1
            sum += value
            count += 1
        }

        /// The number of observations at or below each upper bound, as Prometheus' `le`
        /// buckets count them: one per bound in ``upperBounds``, then the `+Inf` bucket,
        /// which equals ``count``.
        public var cumulativeCounts: [Int] {
            var total = 0
            return bucketCounts.map { total += $0; return total }
        }
    }
}
