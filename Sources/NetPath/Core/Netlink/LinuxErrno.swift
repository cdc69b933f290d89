/// An error number as the Linux kernel reports it: the negative code of a netlink error
/// message (`NLMSG_ERROR`), which the core classifies (a refused dump, a route lookup's
/// refusal), and a question socket's refusal, made from the socket's ``Errno`` by the
/// system layer on Linux, where the C library's numbers are the kernel's.
///
/// Not the host's errno: these are the kernel's ABI, like the rtnetlink constants
/// (``Netlink``), and stay the same whatever C library reads them, so they are written here,
/// each with its C name (`<asm-generic/errno-base.h>`, `<asm-generic/errno.h>`; CNetlink.h
/// asserts them against the C library's at build time). A host errno that means the same
/// is named in NetPathSystem (``Errno``), from the C library's constants.
package struct LinuxErrno: RawRepresentable, Hashable, Sendable {
    package var rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }
    package init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// `EPERM`: an IPsec policy blocks the flow.
    package static let notPermitted = LinuxErrno(1)
    /// `EACCES`: a prohibit route or rule.
    package static let permissionDenied = LinuxErrno(13)
    /// `EINVAL`: a blackhole route or rule.
    package static let invalidArgument = LinuxErrno(22)
    /// `EOPNOTSUPP`: the kernel has no handler for a request (a dump of rules without
    /// `CONFIG_FIB_RULES`, of nexthop objects before Linux 5.3).
    package static let notSupported = LinuxErrno(95)
    /// `EAFNOSUPPORT`: the address family is not supported (no IPv6 in the kernel).
    package static let familyNotSupported = LinuxErrno(97)
    /// `EADDRNOTAVAIL`: no source address to send from.
    package static let addressNotAvailable = LinuxErrno(99)
    /// `ENETUNREACH`: no route, or an unreachable rule.
    package static let networkUnreachable = LinuxErrno(101)
    /// `EHOSTUNREACH`: an unreachable route.
    package static let hostUnreachable = LinuxErrno(113)
}
