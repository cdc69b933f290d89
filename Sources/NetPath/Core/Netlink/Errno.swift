/// An errno value of the host's C library, and the call that failed with it: what a system
/// call reported (`Syscall` makes them) and what the core's machines are handed back in
/// their events (a connectivity check's connect or read).
///
/// The number is the C library's, and differs between them (11 is `EAGAIN` on Linux,
/// `EDEADLK` on Darwin), so the core never compares it with a number of its own: the named
/// values (`Errno.wouldBlock`, …), the words for it (`strerror`) and what it means for a
/// check (`isNoRoute`) are defined in NetPathSystem from the C library's constants. What the
/// core does classify itself, the error codes the Linux kernel puts in its netlink answers,
/// is a ``LinuxErrno``.
package struct Errno: Error, Hashable, Sendable {
    package var rawValue: Int32
    /// The C function that failed with it (`connect`), as the syscall layer names it;
    /// messages show it before the system's words (`connect: Connection refused`). `nil`
    /// for a value that stands for the number alone (a named value as a pattern).
    package var call: StaticString?

    package init(_ rawValue: Int32, call: StaticString? = nil) {
        self.rawValue = rawValue
        self.call = call
    }

    /// Equal when the numbers are: the call is context for messages, not part of the
    /// condition (`case .failure(.wouldBlock)` matches whichever call met it).
    package static func == (lhs: Errno, rhs: Errno) -> Bool { lhs.rawValue == rhs.rawValue }

    package func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
}
