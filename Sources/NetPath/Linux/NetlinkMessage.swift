/// Facts about a link, from `RTM_NEWLINK`/`RTM_DELLINK`.
struct LinkMessage: Hashable, Sendable {
    /// `ifi_family`: `AF_UNSPEC` for real link messages, `AF_BRIDGE` (7) for bridge-port news.
    var family: UInt8 = 0
    var index: Int32
    /// `ifi_type`: the `ARPHRD_*` hardware type.
    var hardwareType: UInt16
    /// `ifi_flags`: `IFF_UP`, `IFF_LOWER_UP`, …
    var flags: UInt32
    /// `IFLA_IFNAME`, when present.
    var name: String?
    /// `IFLA_OPERSTATE` (RFC 2863), when present.
    var operationalState: UInt8?
    /// `IFLA_INFO_KIND` inside `IFLA_LINKINFO` (`veth`, `tun`, `wireguard`, …), when present.
    var kind: String?
    /// `IFLA_GROUP`: rules can select on it (`suppress_ifgroup`), when present.
    var group: UInt32?
}

/// Facts about an address, from `RTM_NEWADDR`/`RTM_DELADDR`.
struct AddressMessage: Hashable, Sendable {
    var index: Int32
    var prefixLength: UInt8
    /// `IFA_FLAGS` when present (it carries the bits beyond eight), else `ifa_flags`.
    var flags: UInt32
    var scope: UInt8
    /// `IFA_LOCAL`, else `IFA_ADDRESS`.
    var address: IPAddress
}

/// One next hop of a route.
struct Nexthop: Hashable, Sendable {
    var interfaceIndex: Int32
    var gateway: IPAddress?
}

/// Facts about a route, from `RTM_NEWROUTE`/`RTM_DELROUTE`, or the kernel's answer to a
/// route lookup (`RTM_GETROUTE`).
struct RouteMessage: Hashable, Sendable {
    var family: UInt8
    var destinationLength: UInt8
    var tos: UInt8
    /// `RTA_TABLE` when present, else `rtm_table`.
    var table: UInt32
    /// `rtm_type`: `RTN_UNICAST` (1), `RTN_BLACKHOLE` (6), …
    var type: UInt8
    var flags: UInt32
    /// `RTA_PRIORITY` (the metric), 0 when absent.
    var metric: UInt32
    /// The next hops: `RTA_OIF`/`RTA_GATEWAY`, or each entry of `RTA_MULTIPATH`.
    var nexthops: [Nexthop]
    /// `RTA_DST`; `nil` for a default route.
    var destination: IPAddress? = nil
    /// `rtm_src_len` and `RTA_SRC`: the source prefix of a source-specific IPv6 route
    /// (`ip -6 route add default from 2001:db8::/64 …`); 0 and `nil` for the others.
    var sourcePrefixLength: UInt8 = 0
    var sourcePrefix: IPAddress? = nil
    /// `RTA_PREFSRC`: in a lookup's answer, the source address the kernel chose.
    var source: IPAddress? = nil
    /// `RTA_NH_ID`: the nexthop object the route uses, if any.
    var nexthopID: UInt32? = nil
    /// `rta_expires` of `RTA_CACHEINFO` in clock ticks (1/100 s, signed): the route's
    /// remaining lifetime, negative once it has passed (the route stays in the table until
    /// the kernel's garbage collector deletes it); `nil` when the kernel wrote 0, which is
    /// both "does not expire" and "expires within a tick".
    var expiresTicks: Int32? = nil
}

/// A policy-routing rule, from `RTM_NEWRULE`/`RTM_DELRULE`: its action and every selector
/// the monitor can evaluate for its own sockets' flow (``RuleFlow``).
struct RuleMessage: Hashable, Sendable {
    var family: UInt8
    /// `fib_rule_hdr.action`: `FR_ACT_TO_TBL` (1), `FR_ACT_GOTO` (2), `FR_ACT_UNREACHABLE` (7), …
    var action: UInt8
    /// `FRA_PRIORITY`, 0 when absent.
    var priority: UInt32
    /// `fib_rule_hdr.flags`: `FIB_RULE_INVERT`, `FIB_RULE_UNRESOLVED`, …
    var flags: UInt32 = 0
    /// `FRA_TABLE`, else `fib_rule_hdr.table`.
    var table: UInt32 = 0
    /// `FRA_GOTO`: the priority a `goto` rule jumps to.
    var gotoTarget: UInt32?
    var tos: UInt8 = 0
    var sourceLength: UInt8 = 0
    var source: IPAddress?
    var destinationLength: UInt8 = 0
    var destination: IPAddress?
    var inputName: String?
    var outputName: String?
    var mark: UInt32?
    var markMask: UInt32?
    /// `FRA_UID_RANGE`, inclusive.
    var uidRange: ClosedRange<UInt32>?
    var ipProtocol: UInt8 = 0
    var sourcePorts: ClosedRange<UInt16>?
    var destinationPorts: ClosedRange<UInt16>?
    /// A selector the monitor does not evaluate (`l3mdev`, `tun_id`, realms, DSCP, flow
    /// label, …): the rule is taken as not matching its sockets.
    var hasOtherSelector = false
}

/// Facts about a nexthop object, from `RTM_NEWNEXTHOP`/`RTM_DELNEXTHOP`.
struct NexthopMessage: Hashable, Sendable {
    var id: UInt32
    /// `NHA_OIF` and `NHA_GATEWAY`, for a single nexthop.
    var hop: Nexthop?
    /// `NHA_GROUP`: the member ids, for a group.
    var group: [UInt32] = []
    /// `NHA_BLACKHOLE`.
    var isBlackhole = false
}

/// One decoded netlink message. Unknown types decode to `.other` and are ignored.
enum NetlinkMessage: Hashable, Sendable {
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
    /// `RTM_NEWNETCONF`/`RTM_DELNETCONF`: a forwarding setting of `family` changed.
    case netconf(family: UInt8)
    /// `NLMSG_DONE`: the end of a dump.
    case done
    /// `NLMSG_ERROR`: `code` is a negative errno, or 0 for an acknowledgement.
    case error(code: Int32)
    /// Anything else, or a message too short for its type.
    case other(type: UInt16)
}

/// A message with the header fields the monitor needs.
struct NetlinkEnvelope: Hashable, Sendable {
    var type: UInt16
    var flags: UInt16
    var sequence: UInt32
    /// `nlmsg_pid`: the port of the socket that caused the message (ours for answers to our
    /// requests; another process's, or 0 for the kernel's own, for events).
    var port: UInt32 = 0
    var message: NetlinkMessage
}
