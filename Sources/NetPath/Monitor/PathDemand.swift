/// One Combine subscription's bookkeeping (``PathMonitor/publisher(queue:)``), apart from
/// Combine so that it is tested where Combine does not exist: the demand left, the newest
/// path not yet sent, and whether a thread is sending one. Pure; its owner keeps it behind a
/// lock and calls the subscriber outside it.
///
/// One thread sends at a time (Combine's rule: a subscriber's `receive` calls do not overlap):
/// a thread that finds another sending leaves its path pending, and the sending thread takes
/// it after its own (``next()`` again after ``sent(more:)``).
struct PathDemand {
    /// Paths the subscriber asked for and has not received; `nil`: unlimited.
    private(set) var demand: Int? = 0
    /// The newest path not sent yet.
    private(set) var pending: NetworkPath?
    private(set) var lastSent: NetworkPath?
    private(set) var isSending = false

    /// The subscriber asks for `max` more paths (`nil`: unlimited, Combine's `.unlimited`).
    mutating func request(_ max: Int?) {
        guard let demand, let max else {
            demand = nil
            return
        }
        let (sum, overflow) = demand.addingReportingOverflow(max)
        self.demand = overflow ? nil : sum  // more than Int.max paths: as good as unlimited
    }

    /// The monitor's current path when the subscription began: the first to send, unless a
    /// newer one came from the monitor meanwhile (then it is pending, or sent already).
    mutating func seed(_ current: NetworkPath) {
        guard pending == nil, lastSent == nil else { return }
        pending = current
    }

    /// A path from the monitor: the newest, replacing one still pending.
    mutating func heard(_ path: NetworkPath) {
        pending = path
    }

    /// The path to send now, if the subscriber wants one, no other thread is sending and it
    /// differs from the last sent; the caller sends it, then calls ``sent(more:)``.
    mutating func next() -> NetworkPath? {
        guard !isSending, demand.map({ $0 > 0 }) ?? true, let path = pending else { return nil }
        pending = nil
        guard path != lastSent else { return nil }
        lastSent = path
        if let demand { self.demand = demand - 1 }
        isSending = true
        return path
    }

    /// The subscriber took the path and asks for `more` (`nil`: unlimited).
    mutating func sent(more: Int?) {
        isSending = false
        request(more)
    }
}
