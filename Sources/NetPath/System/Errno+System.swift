#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// The errno values the package names, from the C library's constants (the numbers differ
// between C libraries: the core keeps none of them).
extension Errno {
    /// Operation not permitted: an IPsec policy blocks the flow, or a capability is missing.
    ///
    /// The corresponding C error is `EPERM`.
    package static var notPermitted: Errno { Errno(EPERM) }

    /// No such file or directory.
    ///
    /// The corresponding C error is `ENOENT`.
    package static var noSuchFile: Errno { Errno(ENOENT) }

    /// A signal interrupted the call (the syscall layer retries it).
    ///
    /// The corresponding C error is `EINTR`.
    package static var interrupted: Errno { Errno(EINTR) }

    /// Not an open descriptor: a bug in the package, unless a standard stream was closed.
    ///
    /// The corresponding C error is `EBADF`.
    package static var badDescriptor: Errno { Errno(EBADF) }

    /// A non-blocking descriptor has nothing now (swift-nio's `.wouldBlock`).
    ///
    /// The corresponding C error is `EAGAIN` (`EWOULDBLOCK`).
    package static var wouldBlock: Errno { Errno(EAGAIN) }

    /// Permission denied.
    ///
    /// The corresponding C error is `EACCES`.
    package static var permissionDenied: Errno { Errno(EACCES) }

    /// A bad pointer: a bug in the package.
    ///
    /// The corresponding C error is `EFAULT`.
    package static var badAddress: Errno { Errno(EFAULT) }

    /// An invalid argument.
    ///
    /// The corresponding C error is `EINVAL`.
    package static var invalidArgument: Errno { Errno(EINVAL) }

    /// The reader of a pipe or socket left.
    ///
    /// The corresponding C error is `EPIPE`.
    package static var brokenPipe: Errno { Errno(EPIPE) }

    /// The operation is not supported.
    ///
    /// The corresponding C error is `EOPNOTSUPP`.
    package static var notSupported: Errno { Errno(EOPNOTSUPP) }

    /// The address family is not supported (no IPv6 in the kernel).
    ///
    /// The corresponding C error is `EAFNOSUPPORT`.
    package static var familyNotSupported: Errno { Errno(EAFNOSUPPORT) }

    /// No source address to send from.
    ///
    /// The corresponding C error is `EADDRNOTAVAIL`.
    package static var addressNotAvailable: Errno { Errno(EADDRNOTAVAIL) }

    /// The network is down.
    ///
    /// The corresponding C error is `ENETDOWN`.
    package static var networkDown: Errno { Errno(ENETDOWN) }

    /// No route to the network.
    ///
    /// The corresponding C error is `ENETUNREACH`.
    package static var networkUnreachable: Errno { Errno(ENETUNREACH) }

    /// No buffer space: a netlink socket's receive buffer overran (events were lost).
    ///
    /// The corresponding C error is `ENOBUFS`.
    package static var noBufferSpace: Errno { Errno(ENOBUFS) }

    /// No route to the host.
    ///
    /// The corresponding C error is `EHOSTUNREACH`.
    package static var hostUnreachable: Errno { Errno(EHOSTUNREACH) }

    /// A non-blocking connect has started.
    ///
    /// The corresponding C error is `EINPROGRESS`.
    package static var inProgress: Errno { Errno(EINPROGRESS) }

    /// Whether a connect that failed at once did so because this machine has no route for
    /// the connection now (`ENETUNREACH`, `ENETDOWN`, `EADDRNOTAVAIL`): the path is
    /// changing, the network is not at fault.
    package var isNoRoute: Bool { self == .networkUnreachable || self == .networkDown || self == .addressNotAvailable }

    /// `EBADF`, `EINTR`, …: the C name, for messages that must name it.
    package var name: String {
        switch rawValue {
        case EBADF: "EBADF"
        case EFAULT: "EFAULT"
        case EINTR: "EINTR"
        case EAGAIN: "EAGAIN"
        default: "errno \(rawValue)"
        }
    }
}

extension Errno: CustomStringConvertible {
    /// The call that failed, then the system's words for the number (`strerror`), as
    /// messages show it: `connect: Connection refused`.
    package var description: String {
        let words = String(cString: strerror(rawValue))
        guard let call else { return words }
        return "\(call): \(words)"
    }
}

#if os(Linux) || os(Android)
extension LinuxErrno {
    /// The kernel's number for a host errno: on Linux the C library passes the kernel's
    /// numbers through (a question socket's refusal is the kernel's answer).
    package init(_ error: Errno) { self.init(rawValue: error.rawValue) }
}
#endif
