// The values the socket calls take (``Syscall/socket(_:_:_:nonBlocking:)``, `send`, `recv`,
// `setsockopt`), each named once from the C library's constant, so that no C constant
// crosses the system target's boundary.
#if (os(Linux) || os(Android)) && canImport(CNetlink)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import CNetlink

/// A socket's communication domain: the family of its addresses.
package struct SocketDomain: RawRepresentable, Hashable, Sendable {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// Unix sockets: a socket file, or a name in Linux's abstract namespace (the D-Bus buses).
    ///
    /// The corresponding C constant is `AF_UNIX`.
    package static var unix: SocketDomain { SocketDomain(rawValue: AF_UNIX) }

    /// IPv4.
    ///
    /// The corresponding C constant is `AF_INET`.
    package static var ipv4: SocketDomain { SocketDomain(rawValue: AF_INET) }

    /// IPv6.
    ///
    /// The corresponding C constant is `AF_INET6`.
    package static var ipv6: SocketDomain { SocketDomain(rawValue: AF_INET6) }

    /// Netlink: messages to and from the kernel.
    ///
    /// The corresponding C constant is `AF_NETLINK`.
    package static var netlink: SocketDomain { SocketDomain(rawValue: AF_NETLINK) }

    /// The domain of `address`'s family (``ipv4`` or ``ipv6``).
    package init(of address: IPAddress) {
        self = address.family == IPAddress.inet ? .ipv4 : .ipv6
    }
}

/// A socket's type: how it carries data.
package struct SocketType: RawRepresentable, Hashable, Sendable {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// A connection's byte stream (TCP, a Unix stream socket).
    ///
    /// The corresponding C constant is `SOCK_STREAM`.
    package static var stream: SocketType { SocketType(rawValue: Int32(SOCK_STREAM.rawValue)) }

    /// Datagrams (UDP, the route questions' sockets).
    ///
    /// The corresponding C constant is `SOCK_DGRAM`.
    package static var datagram: SocketType { SocketType(rawValue: Int32(SOCK_DGRAM.rawValue)) }

    /// Raw datagrams: what a netlink socket is.
    ///
    /// The corresponding C constant is `SOCK_RAW`.
    package static var raw: SocketType { SocketType(rawValue: Int32(SOCK_RAW.rawValue)) }
}

/// The protocol of a socket within its domain and type.
package struct SocketProtocol: RawRepresentable, Hashable, Sendable {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// The domain's one protocol for the type (TCP for an IPv4 stream, …): 0.
    package static var `default`: SocketProtocol { SocketProtocol(rawValue: 0) }

    /// rtnetlink: links, addresses, routes, rules and their changes.
    ///
    /// The corresponding C constant is `NETLINK_ROUTE`.
    package static var netlinkRoute: SocketProtocol { SocketProtocol(rawValue: NETLINK_ROUTE) }

    /// The IPsec (xfrm) configuration and its changes.
    ///
    /// The corresponding C constant is `NETLINK_XFRM`.
    package static var netlinkXFRM: SocketProtocol { SocketProtocol(rawValue: NETLINK_XFRM) }
}

/// The flags of `send` and `recv`, and the flags a received datagram reports
/// (``Syscall/receiveBatch(_:into:slotSize:count:lengths:flags:blocking:)``).
package struct MessageFlags: OptionSet, Hashable, Sendable {
    package let rawValue: Int32
    package init(rawValue: Int32) { self.rawValue = rawValue }

    /// This call does not block, whatever the socket's mode.
    ///
    /// The corresponding C constant is `MSG_DONTWAIT`.
    package static var dontWait: MessageFlags { MessageFlags(rawValue: Int32(MSG_DONTWAIT)) }

    /// A send to a peer that left fails with `EPIPE` rather than raising `SIGPIPE`.
    ///
    /// The corresponding C constant is `MSG_NOSIGNAL`.
    package static var noSignal: MessageFlags { MessageFlags(rawValue: Int32(MSG_NOSIGNAL)) }

    /// Reads without taking: the next receive gets the same bytes.
    ///
    /// The corresponding C constant is `MSG_PEEK`.
    package static var peek: MessageFlags { MessageFlags(rawValue: Int32(MSG_PEEK)) }

    /// Reported: the datagram was larger than the buffer, its tail is lost.
    ///
    /// The corresponding C constant is `MSG_TRUNC`.
    package static var truncated: MessageFlags { MessageFlags(rawValue: Int32(MSG_TRUNC)) }

    /// Reported by the shim's batched receive: the datagram did not come from the kernel
    /// (its sender's port id is not 0).
    ///
    /// The corresponding C constant is `CNETLINK_MSG_NOT_FROM_KERNEL` (the shim's own).
    package static var notFromKernel: MessageFlags { MessageFlags(rawValue: Int32(CNETLINK_MSG_NOT_FROM_KERNEL)) }
}

/// A socket option of `int` value: its level and name (``Syscall/setOption(_:_:_:)``).
package struct SocketOption: Hashable, Sendable {
    package let level: Int32
    package let name: Int32
    package init(level: Int32, name: Int32) { (self.level, self.name) = (level, name) }

    /// The receive buffer's size, within the system's cap (`net.core.rmem_max`).
    ///
    /// The corresponding C constants are `SOL_SOCKET`, `SO_RCVBUF`.
    package static var receiveBuffer: SocketOption { SocketOption(level: SOL_SOCKET, name: SO_RCVBUF) }

    /// The receive buffer's size past the system's cap (needs `CAP_NET_ADMIN`).
    ///
    /// The corresponding C constants are `SOL_SOCKET`, `SO_RCVBUFFORCE`.
    package static var receiveBufferForce: SocketOption { SocketOption(level: SOL_SOCKET, name: SO_RCVBUFFORCE) }

    /// A listening socket may bind an address whose earlier connections linger in
    /// `TIME_WAIT`.
    ///
    /// The corresponding C constants are `SOL_SOCKET`, `SO_REUSEADDR`.
    package static var reuseAddress: SocketOption { SocketOption(level: SOL_SOCKET, name: SO_REUSEADDR) }

    /// Binds the socket to an interface by index (Linux 5.0); 0 unbinds.
    ///
    /// The corresponding C constants are `SOL_SOCKET`, `SO_BINDTOIFINDEX`.
    package static var bindToInterfaceIndex: SocketOption { SocketOption(level: SOL_SOCKET, name: SO_BINDTOIFINDEX) }

    /// An IPv6 socket takes IPv6 only (1) or IPv4-mapped addresses too (0).
    ///
    /// The corresponding C constants are `IPPROTO_IPV6`, `IPV6_V6ONLY`.
    package static var ipv6Only: SocketOption { SocketOption(level: Int32(IPPROTO_IPV6), name: IPV6_V6ONLY) }
}
#endif
