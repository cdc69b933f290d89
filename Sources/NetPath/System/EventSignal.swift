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
        var count: UInt64 = 0
        _ = withUnsafeMutableBytes(of: &count) { Syscall.read(descriptor, into: $0) }
    }

    package func close() {
        Syscall.close(descriptor)
    }
}
#endif
