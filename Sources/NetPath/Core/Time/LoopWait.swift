/// How the event loop waits for its next deadline: a near one as the wait's own timeout
/// (`epoll_wait`'s, which stops while the machine sleeps), a far one on a timer of the clock
/// that counts the sleep (``Instant``'s), so that a re-check due in five minutes is due five
/// minutes later by the wall, however long the lid was closed meanwhile. A pure rule: the
/// loop applies what it returns.
package struct LoopWait: Equatable, Sendable {
    /// Deadlines at least this far are waited for on the timer: a suspend within a shorter
    /// wait delays its deadline by less than this, and near deadlines (a lost reply, a
    /// check's phase) then cost no system call.
    package static let far: Duration = .seconds(1)

    /// The wait's own timeout; `nil`: until a descriptor is ready (the timer's among them).
    package var timeout: Duration?
    /// The timer's new deadline when it must change: `.some(nil)` disarms it, `nil` leaves
    /// it as it is.
    package var arm: Instant??

    package init(timeout: Duration?, arm: Instant??) {
        self.timeout = timeout
        self.arm = arm
    }

    /// - Parameters:
    ///   - next: The earliest deadline, or `nil` for none.
    ///   - now: The clock's reading.
    ///   - armed: The deadline the timer is armed for, or `nil`.
    /// - Returns: The timeout, and how the timer changes. Idle (no deadline) leaves the
    ///   timer disarmed, so a cancelled far deadline wakes nothing; a near deadline leaves
    ///   an armed far one as it is.
    package static func plan(next: Instant?, now: Instant, armed: Instant?) -> LoopWait {
        guard let next else { return LoopWait(timeout: nil, arm: armed == nil ? nil : .some(nil)) }
        let remaining = now.duration(until: next)
        if remaining < far { return LoopWait(timeout: remaining, arm: nil) }
        return LoopWait(timeout: nil, arm: armed == next ? nil : .some(next))
    }
}
