/// Facts about a link, from `RTM_NEWLINK`/`RTM_DELLINK`.
package struct LinkMessage: Hashable, Sendable {
    /// `ifi_family`: `AF_UNSPEC` for real link messages, `AF_BRIDGE` (7) for bridge-port news.
    package var family: UInt8 = 0
    package var index: Int32
    /// `ifi_type`: the `ARPHRD_*` hardware type.
    package var hardwareType: UInt16
    /// `ifi_flags`: `IFF_UP`, `IFF_LOWER_UP`, …
    package var flags: UInt32
    /// `IFLA_IFNAME`, when present.
    package var name: String?
    /// `IFLA_OPERSTATE` (RFC 2863), when present.
    package var operationalState: UInt8?
    /// `IFLA_INFO_KIND` inside `IFLA_LINKINFO` (`veth`, `tun`, `wireguard`, …), when present.
    package var kind: String?
    /// `IFLA_GROUP`: rules can select on it (`suppress_ifgroup`), when present.
    package var group: UInt32?
}

/// Facts about an address, from `RTM_NEWADDR`/`RTM_DELADDR`.
package struct AddressMessage: Hashable, Sendable {
    package var index: Int32
    package var prefixLength: UInt8
    /// `IFA_FLAGS` when present (it carries the bits beyond eight), else `ifa_flags`.
    package var flags: UInt32
    package var scope: UInt8
    /// `IFA_LOCAL`, else `IFA_ADDRESS`.
    package var address: IPAddress
}

/// One next hop of a route.
package struct Nexthop: Hashable, Sendable {
    package var interfaceIndex: Int32
    package var gateway: IPAddress?
}

/// Facts about a route, from `RTM_NEWROUTE`/`RTM_DELROUTE`, or the kernel's answer to a
/// route lookup (`RTM_GETROUTE`).
package struct RouteMessage: Hashable, Sendable {
    package var family: UInt8
    package var destinationLength: UInt8
    package var tos: UInt8
    /// `RTA_TABLE` when present, else `rtm_table`.
    package var table: UInt32
    /// `rtm_type`: `RTN_UNICAST` (1), `RTN_BLACKHOLE` (6), …
    package var type: UInt8
    package var flags: UInt32
    /// `RTA_PRIORITY` (the metric), 0 when absent.
    package var metric: UInt32
    /// The next hops: `RTA_OIF`/`RTA_GATEWAY`, or each entry of `RTA_MULTIPATH`.
    package var nexthops: [Nexthop]
    /// `RTA_DST`; `nil` for a default route.
    package var destination: IPAddress? = nil
    /// `rtm_src_len` and `RTA_SRC`: the source prefix of a source-specific IPv6 route
    /// (`ip -6 route add default from 2001:db8::/64 …`); 0 and `nil` for the others.
    package var sourcePrefixLength: UInt8 = 0
    package var sourcePrefix: IPAddress? = nil
    /// `RTA_PREFSRC`: in a lookup's answer, the source address the kernel chose.
    package var source: IPAddress? = nil
    /// `RTA_NH_ID`: the nexthop object the route uses, if any.
    package var nexthopID: UInt32? = nil
    /// `rta_expires` of `RTA_CACHEINFO` in clock ticks (1/100 s, signed): the route's
    /// remaining lifetime, negative once it has passed (the route stays in the table until
    /// the kernel's garbage collector deletes it); `nil` when the kernel wrote 0, which is
    /// both "does not expire" and "expires within a tick".
    package var expiresTicks: Int32? = nil
}

/// A policy-routing rule, from `RTM_NEWRULE`/`RTM_DELRULE`: its action and every selector
/// the monitor can evaluate for its own sockets' flow (``RuleFlow``).
package struct RuleMessage: Hashable, Sendable {
    package var family: UInt8
    /// `fib_rule_hdr.action`: `FR_ACT_TO_TBL` (1), `FR_ACT_GOTO` (2), `FR_ACT_UNREACHABLE` (7), …
    package var action: UInt8
    /// `FRA_PRIORITY`, 0 when absent.
    package var priority: UInt32
    /// `fib_rule_hdr.flags`: `FIB_RULE_INVERT`, `FIB_RULE_UNRESOLVED`, …
    package var flags: UInt32 = 0
    /// `FRA_TABLE`, else `fib_rule_hdr.table`.
    package var table: UInt32 = 0
    /// `FRA_GOTO`: the priority a `goto` rule jumps to.
    package var gotoTarget: UInt32?
    package var tos: UInt8 = 0
    package var sourceLength: UInt8 = 0
    package var source: IPAddress?
    package var destinationLength: UInt8 = 0
    package var destination: IPAddress?
    package var inputName: String?
    package var outputName: String?
    package var mark: UInt32?
    package var markMask: UInt32?
    /// `FRA_UID_RANGE`, inclusive.
    package var uidRange: ClosedRange<UInt32>?
    package var ipProtocol: UInt8 = 0
    package var sourcePorts: ClosedRange<UInt16>?
    package var destinationPorts: ClosedRange<UInt16>?
    /// A selector the monitor does not evaluate (`l3mdev`, `tun_id`, realms, DSCP, flow
    /// label, …): the rule is taken as not matching its sockets.
    package var hasOtherSelector = false
}

/// Facts about a nexthop object, from `RTM_NEWNEXTHOP`/`RTM_DELNEXTHOP`.
package struct NexthopMessage: Hashable, Sendable {
    package var id: UInt32
    /// `NHA_OIF` and `NHA_GATEWAY`, for a single nexthop.
    package var hop: Nexthop?
    /// `NHA_GROUP`: the member ids, for a group.
    package var group: [UInt32] = []
    /// `NHA_BLACKHOLE`.
    package var isBlackhole = false
}

/// One decoded netlink message. Unknown types decode to `.other` and are ignored.
package enum NetlinkMessage: Hashable, Sendable {
    case newLink(LinkMessage)
    case deleteLink(LinkMessage)
    case newAddress(AddressMessage)
    case deleteAddress(AddressMessage)
    case newRoute(RouteMessage)
    case deleteRoute(RouteMessage)
    case newRule(RuleMessage)
    case deleteRule(RuleMessage)
    case newNexthop(NexthopMessage)
    case deleteNexthop(NexthopMessage)
    /// `RTM_NEWROUTE`/`RTM_DELROUTE` of an IPv6 address's own route (`RTN_LOCAL`, /128)
    /// on the link `interfaceIndex`. The kernel adds it when an optimistic address
    /// (`optimistic_dad`) starts its DAD, and sockets may send from that address from then
    /// on, but announces the address itself (`RTM_NEWADDR`) only when DAD ends.
    case localAddressRoute(interfaceIndex: Int32)
    /// `RTM_NEWNETCONF`/`RTM_DELNETCONF`: a forwarding setting of `family` changed.
    case netconf(family: UInt8)
    /// `RTM_NEWNEIGH`/`RTM_DELNEIGH`: a neighbor entry (the neighbor socket's).
    case newNeighbor(NeighborMessage)
    case deleteNeighbor(NeighborMessage)
    /// `NLMSG_DONE`: the end of a dump.
    case done
    /// `NLMSG_ERROR`: `code` is a negative errno, or 0 for an acknowledgement.
    case error(code: Int32)
    /// Anything else, or a message too short for its type.
    case other(type: UInt16)
}

/// A message with the header fields the monitor needs.
package struct NetlinkEnvelope: Hashable, Sendable {
    package var type: UInt16
    package var flags: UInt16
    package var sequence: UInt32
    /// `nlmsg_pid`: the port of the socket that caused the message (ours for answers to our
    /// requests; another process's, or 0 for the kernel's own, for events).
    package var port: UInt32 = 0
    package var message: NetlinkMessage
}
