/// An errno value: what a system call failed with (``Syscall``), a socket question's
/// refusal, or the code in a netlink error answer.
///
/// Pure and free of Glibc, so the parser and the engine use it everywhere they build. The
/// named values are Linux's: the kernel reports them, whatever libc the reader uses.
package struct Errno: Error, Hashable, Sendable {
    package var rawValue: Int32
    package init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// `EPERM`: an IPsec policy blocks the flow.
    static let notPermitted = Errno(1)
    /// `EACCES`: a prohibit route or rule.
    static let permissionDenied = Errno(13)
    /// `EINVAL`: a blackhole route or rule.
    static let invalidArgument = Errno(22)
    /// `EOPNOTSUPP`: the kernel has no handler for a request (a dump of rules without
    /// `CONFIG_FIB_RULES`, of nexthop objects before Linux 5.3).
    static let notSupported = Errno(95)
    /// `EADDRNOTAVAIL`: no source address to send from.
    static let addressNotAvailable = Errno(99)
    /// `ENETDOWN`.
    static let networkDown = Errno(100)
    /// `ENETUNREACH`: no route, or an unreachable rule.
    static let networkUnreachable = Errno(101)
    /// `EHOSTUNREACH`: an unreachable route.
    static let hostUnreachable = Errno(113)

    /// Whether this machine has no route for a connection now (`ENETUNREACH`, `ENETDOWN`,
    /// `EADDRNOTAVAIL` at connect): the path is changing, the network is not at fault.
    var isNoRoute: Bool { self == .networkUnreachable || self == .networkDown || self == .addressNotAvailable }
}
