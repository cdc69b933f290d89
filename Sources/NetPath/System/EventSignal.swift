#if os(Linux) || os(Android)
import CNetlink

/// An eventfd (non-blocking, close-on-exec) that one thread signals and another polls: the
/// one wake-up of the package's threads (a resolver watch's stop, the shared reader's
/// turn, a connectivity check's cancellation).
package struct EventSignal: Sendable {
    package let descriptor: FileDescriptor

    /// - Throws: The errno of `eventfd`.
    package init() throws(Errno) {
        descriptor = FileDescriptor(rawValue: try Syscall.retrying("eventfd") { cnetlink_eventfd() }.get())
    }

    /// Makes ``descriptor`` readable (a counter that saturates cannot fail here: `EAGAIN`
    /// means a wake-up is pending anyway).
    package func signal() {
        var one: UInt64 = 1
        _ = withUnsafeBytes(of: &one) { Syscall.write(descriptor, $0) }
    }

    /// Takes the pending wake-ups; ``descriptor`` is then not readable.
    package func clear() {
        takeCounter(descriptor)
    }

    package func close() {
        Syscall.close(descriptor)
    }
}

/// A one-shot timer on `CLOCK_BOOTTIME` (a `timerfd`): readable once the instant it is armed
/// for has passed, counting the time the machine slept (an `epoll_wait` timeout does not).
package struct BootTimer: Sendable {
    package let descriptor: FileDescriptor

    /// - Throws: The errno of `timerfd_create`.
    package init() throws(Errno) {
        descriptor = FileDescriptor(rawValue: try Syscall.retrying("timerfd_create") { cnetlink_timerfd() }.get())
    }

    /// Arms the timer for `deadline` (an instant of ``SystemClock``), or disarms it (`nil`).
    package func arm(at deadline: Instant?) {
        // 0 disarms; a deadline at the clock's origin is already due, as 1 ns is.
        let nanoseconds = deadline.map { max($0.nanoseconds, 1) } ?? 0
        _ = Syscall.retrying("timerfd_settime") { cnetlink_timerfd_at(descriptor.rawValue, nanoseconds) }
    }

    /// Takes the expiry; ``descriptor`` is then not readable.
    package func clear() {
        takeCounter(descriptor)
    }

    package func close() {
        Syscall.close(descriptor)
    }
}

/// Reads the 8-byte counter an eventfd or a timerfd holds (wake-ups, expiries), which makes
/// it unreadable until the next.
private func takeCounter(_ descriptor: FileDescriptor) {
    var count: UInt64 = 0
    _ = withUnsafeMutableBytes(of: &count) { Syscall.read(descriptor, into: $0) }
}
#endif
