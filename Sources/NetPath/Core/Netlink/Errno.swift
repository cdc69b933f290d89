/// An errno value: what a system call failed with (``Syscall``), a socket question's
/// refusal, or the code in a netlink error answer.
///
/// Pure and free of Glibc, so the parser and the engine use it everywhere they build. The
/// named values are Linux's: the kernel reports them, whatever libc the reader uses.
package struct Errno: Error, Hashable, Sendable {
    package var rawValue: Int32
    package init(_ rawValue: Int32) { self.rawValue = rawValue }

    // Linux's numbers, each checked against the C library's constant at build time
    // (`_Static_assert` in CNetlink.h).

    /// `EPERM`: an IPsec policy blocks the flow.
    package static let notPermitted = Errno(1)
    /// `ENOENT`: no such file.
    package static let noSuchFile = Errno(2)
    /// `EINTR`: a signal interrupted the call (the layer retries it).
    package static let interrupted = Errno(4)
    /// `EBADF`: not an open descriptor (a bug in the package, unless a standard stream was closed).
    package static let badDescriptor = Errno(9)
    /// `EAGAIN`/`EWOULDBLOCK`: a non-blocking descriptor has nothing now (swift-nio's
    /// `.wouldBlock`).
    package static let wouldBlock = Errno(11)
    /// `EACCES`: a prohibit route or rule.
    package static let permissionDenied = Errno(13)
    /// `EFAULT`: a bad pointer (a bug in the package).
    package static let badAddress = Errno(14)
    /// `EINVAL`: a blackhole route or rule.
    package static let invalidArgument = Errno(22)
    /// `EPIPE`: the reader of a pipe or socket left.
    package static let brokenPipe = Errno(32)
    /// `EOPNOTSUPP`: the kernel has no handler for a request (a dump of rules without
    /// `CONFIG_FIB_RULES`, of nexthop objects before Linux 5.3).
    package static let notSupported = Errno(95)
    /// `EAFNOSUPPORT`: the address family is not supported (no IPv6 in the kernel).
    package static let familyNotSupported = Errno(97)
    /// `EADDRNOTAVAIL`: no source address to send from.
    package static let addressNotAvailable = Errno(99)
    /// `ENETDOWN`.
    package static let networkDown = Errno(100)
    /// `ENETUNREACH`: no route, or an unreachable rule.
    package static let networkUnreachable = Errno(101)
    /// `ENOBUFS`: a netlink socket's receive buffer overran (events were lost).
    package static let noBufferSpace = Errno(105)
    /// `EHOSTUNREACH`: an unreachable route.
    package static let hostUnreachable = Errno(113)
    /// `EINPROGRESS`: a non-blocking connect has started.
    package static let inProgress = Errno(115)

    /// Whether this machine has no route for a connection now (`ENETUNREACH`, `ENETDOWN`,
    /// `EADDRNOTAVAIL` at connect): the path is changing, the network is not at fault.
    package var isNoRoute: Bool { self == .networkUnreachable || self == .networkDown || self == .addressNotAvailable }
}
