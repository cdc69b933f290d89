/// The rtnetlink constants the Linux backend uses, each named once, with its C name.
///
/// The values are the kernel's ABI (<linux/netlink.h>, <linux/rtnetlink.h>,
/// <linux/fib_rules.h>, <linux/nexthop.h>); the C shim asserts the struct layouts that the
/// parser's offsets assume. Kept free of Glibc so the pure parts build everywhere.
package enum Netlink {
    /// Message types (`RTM_*`, `NLMSG_*`).
    package enum MessageType {
        /// `NLMSG_ERROR`: a negative errno, or 0 for an acknowledgement.
        package static let error: UInt16 = 2
        /// `NLMSG_DONE`: the end of a dump.
        package static let done: UInt16 = 3
        /// `RTM_NEWLINK`, `RTM_DELLINK`, `RTM_GETLINK`.
        package static let newLink: UInt16 = 16, deleteLink: UInt16 = 17, getLink: UInt16 = 18
        /// `RTM_NEWADDR`, `RTM_DELADDR`, `RTM_GETADDR`.
        package static let newAddress: UInt16 = 20, deleteAddress: UInt16 = 21, getAddress: UInt16 = 22
        /// `RTM_NEWROUTE`, `RTM_DELROUTE`, `RTM_GETROUTE`.
        package static let newRoute: UInt16 = 24, deleteRoute: UInt16 = 25, getRoute: UInt16 = 26
        /// `RTM_NEWRULE`, `RTM_DELRULE`, `RTM_GETRULE`.
        package static let newRule: UInt16 = 32, deleteRule: UInt16 = 33, getRule: UInt16 = 34
        /// `RTM_NEWNEXTHOP`, `RTM_DELNEXTHOP`, `RTM_GETNEXTHOP`.
        package static let newNexthop: UInt16 = 104, deleteNexthop: UInt16 = 105, getNexthop: UInt16 = 106
        /// `RTM_NEWNETCONF`, `RTM_DELNETCONF`: a forwarding setting changed
        /// (`ignore_routes_with_linkdown`, `forwarding`, …).
        package static let newNetconf: UInt16 = 80, deleteNetconf: UInt16 = 81
    }

    /// Header flags (`NLM_F_*`).
    package enum HeaderFlag {
        /// `NLM_F_REQUEST`.
        package static let request: UInt16 = 0x1
        /// `NLM_F_MULTI`.
        package static let multi: UInt16 = 0x2
        /// `NLM_F_DUMP_INTR`: the dump was interrupted by a change; its result is inconsistent.
        package static let dumpInterrupted: UInt16 = 0x10
        /// `NLM_F_REPLACE` (on `RTM_NEWROUTE`): the route replaced one with the same key.
        package static let replace: UInt16 = 0x100
        /// `NLM_F_DUMP` (`NLM_F_ROOT | NLM_F_MATCH`).
        package static let dump: UInt16 = 0x300
    }

    /// Multicast groups, as bits of `sockaddr_nl.nl_groups` (group n is bit n - 1).
    package enum Group {
        /// `RTMGRP_LINK`.
        package static let link: UInt32 = 0x1
        /// `RTMGRP_IPV4_IFADDR`.
        package static let ipv4Address: UInt32 = 0x10
        /// `RTMGRP_IPV4_ROUTE`.
        package static let ipv4Route: UInt32 = 0x40
        /// `RTMGRP_IPV4_RULE`.
        package static let ipv4Rule: UInt32 = 0x80
        /// `RTMGRP_IPV6_IFADDR`.
        package static let ipv6Address: UInt32 = 0x100
        /// `RTMGRP_IPV6_ROUTE`.
        package static let ipv6Route: UInt32 = 0x400
        /// `RTNLGRP_IPV6_RULE` (19).
        package static let ipv6Rule: UInt32 = 1 << (19 - 1)
        /// `RTNLGRP_NEXTHOP` (32).
        package static let nexthop: UInt32 = 1 << (32 - 1)

        /// `RTNLGRP_IPV4_NETCONF` (24).
        package static let ipv4Netconf: UInt32 = 1 << (24 - 1)
        /// `RTNLGRP_IPV6_NETCONF` (25).
        package static let ipv6Netconf: UInt32 = 1 << (25 - 1)

        /// `RTNLGRP_NSID` (28): `RTM_NEWNSID` when the namespace the socket is in gives
        /// another one an ID (a veth, macvlan or tun peer moved into a new namespace).
        package static let namespaceID: UInt32 = 1 << (28 - 1)

        /// Everything the monitor subscribes to.
        package static let monitor = link | ipv4Address | ipv4Route | ipv4Rule | ipv6Address | ipv6Route | ipv6Rule | nexthop
            | ipv4Netconf | ipv6Netconf
    }

    /// Route attributes (`RTA_*`).
    package enum RouteAttribute {
        package static let destination: UInt16 = 1  // RTA_DST
        package static let sourcePrefix: UInt16 = 2  // RTA_SRC (a route's source prefix; a lookup's source)
        package static let outputInterface: UInt16 = 4  // RTA_OIF
        package static let gateway: UInt16 = 5  // RTA_GATEWAY
        package static let priority: UInt16 = 6  // RTA_PRIORITY (the metric)
        package static let preferredSource: UInt16 = 7  // RTA_PREFSRC
        package static let multipath: UInt16 = 9  // RTA_MULTIPATH
        package static let cacheInfo: UInt16 = 12  // RTA_CACHEINFO (struct rta_cacheinfo)
        package static let table: UInt16 = 15  // RTA_TABLE
        package static let via: UInt16 = 18  // RTA_VIA
        package static let nexthopID: UInt16 = 30  // RTA_NH_ID
        package static let ipProtocol: UInt16 = 27  // RTA_IP_PROTO (u8)
        package static let destinationPort: UInt16 = 29  // RTA_DPORT (be16)
    }

    /// `rtm_flags` bits.
    package enum RouteFlag {
        /// `RTM_F_CLONED`: a cached clone, not a table entry.
        package static let cloned: UInt32 = 0x200
        /// `RTM_F_LOOKUP_TABLE`: report the table the lookup matched in.
        package static let lookupTable: UInt32 = 0x1000
        /// `RTM_F_FIB_MATCH`: answer a lookup with the table entry that matched.
        package static let fibMatch: UInt32 = 0x2000
    }

    /// Route types (`RTN_*`).
    package enum RouteType {
        package static let unicast: UInt8 = 1  // RTN_UNICAST
        package static let local: UInt8 = 2  // RTN_LOCAL
        package static let blackhole: UInt8 = 6  // RTN_BLACKHOLE
        package static let unreachable: UInt8 = 7  // RTN_UNREACHABLE
        package static let prohibit: UInt8 = 8  // RTN_PROHIBIT

        /// The types whose lookups the kernel refuses (a kill switch).
        package static func refuses(_ type: UInt8) -> Bool {
            type == blackhole || type == unreachable || type == prohibit
        }
    }

    /// Routing tables (`RT_TABLE_*`).
    package enum Table {
        /// `RT_TABLE_UNSPEC`: in a lookup bound to an interface, the kernel's guess that the
        /// destination is on the link, made when no route matched.
        package static let unspecified: UInt32 = 0
        /// `RT_TABLE_LOCAL`.
        package static let local: UInt32 = 255
    }

    /// FIB rule actions (`FR_ACT_*`, `fib_rule_hdr.action`), flags and attributes (`FRA_*`).
    package enum Rule {
        package static let toTable: UInt8 = 1  // FR_ACT_TO_TBL
        package static let goto: UInt8 = 2  // FR_ACT_GOTO
        package static let blackhole: UInt8 = 6  // FR_ACT_BLACKHOLE
        package static let unreachable: UInt8 = 7  // FR_ACT_UNREACHABLE
        package static let prohibit: UInt8 = 8  // FR_ACT_PROHIBIT
        /// `FIB_RULE_INVERT` (`not …`).
        package static let invert: UInt32 = 0x2
        /// `FIB_RULE_UNRESOLVED`: a `goto` whose target rule does not exist (skipped).
        package static let unresolved: UInt32 = 0x4
        /// `FIB_RULE_IIF_DETACHED`, `FIB_RULE_OIF_DETACHED`: the named interface does not exist.
        package static let inputDetached: UInt32 = 0x8, outputDetached: UInt32 = 0x10
        package static let destinationAttribute: UInt16 = 1  // FRA_DST
        package static let sourceAttribute: UInt16 = 2  // FRA_SRC
        package static let inputNameAttribute: UInt16 = 3  // FRA_IIFNAME
        package static let gotoAttribute: UInt16 = 4  // FRA_GOTO (u32 priority)
        package static let priorityAttribute: UInt16 = 6  // FRA_PRIORITY
        package static let markAttribute: UInt16 = 10  // FRA_FWMARK
        package static let suppressGroupAttribute: UInt16 = 13  // FRA_SUPPRESS_IFGROUP
        package static let suppressPrefixAttribute: UInt16 = 14  // FRA_SUPPRESS_PREFIXLEN
        package static let tableAttribute: UInt16 = 15  // FRA_TABLE
        package static let markMaskAttribute: UInt16 = 16  // FRA_FWMASK
        package static let outputNameAttribute: UInt16 = 17  // FRA_OIFNAME
        package static let padAttribute: UInt16 = 18  // FRA_PAD
        package static let uidRangeAttribute: UInt16 = 20  // FRA_UID_RANGE (struct fib_rule_uid_range)
        package static let protocolAttribute: UInt16 = 21  // FRA_PROTOCOL (who made the rule; not a selector)
        package static let ipProtocolAttribute: UInt16 = 22  // FRA_IP_PROTO
        package static let sourcePortsAttribute: UInt16 = 23  // FRA_SPORT_RANGE (struct fib_rule_port_range)
        package static let destinationPortsAttribute: UInt16 = 24  // FRA_DPORT_RANGE
    }

    /// Nexthop object attributes (`NHA_*`).
    package enum NexthopAttribute {
        package static let id: UInt16 = 1  // NHA_ID
        package static let group: UInt16 = 2  // NHA_GROUP (struct nexthop_grp[])
        package static let blackhole: UInt16 = 4  // NHA_BLACKHOLE
        package static let outputInterface: UInt16 = 5  // NHA_OIF
        package static let gateway: UInt16 = 6  // NHA_GATEWAY
    }

    /// `IFA_*` attributes and `IFA_F_*` flags.
    package enum AddressAttribute {
        package static let address: UInt16 = 1  // IFA_ADDRESS
        package static let local: UInt16 = 2  // IFA_LOCAL
        package static let flags: UInt16 = 8  // IFA_FLAGS
        package static let optimistic: UInt32 = 0x04  // IFA_F_OPTIMISTIC
        package static let dadFailed: UInt32 = 0x08  // IFA_F_DADFAILED
        package static let tentative: UInt32 = 0x40  // IFA_F_TENTATIVE
    }

    /// `IFLA_*` attributes.
    package enum LinkAttribute {
        package static let name: UInt16 = 3  // IFLA_IFNAME
        package static let operationalState: UInt16 = 16  // IFLA_OPERSTATE
        package static let linkInfo: UInt16 = 18  // IFLA_LINKINFO
        package static let infoKind: UInt16 = 1  // IFLA_INFO_KIND, inside IFLA_LINKINFO
        package static let group: UInt16 = 27  // IFLA_GROUP (u32)
    }

    /// Link facts: RFC 2863 operational states (`IF_OPER_*`), interface flags (`IFF_*`)
    /// and address scopes (`RT_SCOPE_*`).
    package enum Link {
        package static let operUnknown: UInt8 = 0  // IF_OPER_UNKNOWN
        package static let operDormant: UInt8 = 5  // IF_OPER_DORMANT
        package static let operUp: UInt8 = 6  // IF_OPER_UP
        package static let flagUp: UInt32 = 0x1  // IFF_UP
        package static let flagLoopback: UInt32 = 0x8  // IFF_LOOPBACK
        package static let flagLowerUp: UInt32 = 0x10000  // IFF_LOWER_UP
        package static let scopeUniverse: UInt8 = 0  // RT_SCOPE_UNIVERSE
    }

    /// Hardware types (`ARPHRD_*` from <linux/if_arp.h>, `ifi_type`).
    package enum HardwareType {
        package static let ether: UInt16 = 1  // ARPHRD_ETHER
        package static let ppp: UInt16 = 512  // ARPHRD_PPP
        package static let rawIP: UInt16 = 519  // ARPHRD_RAWIP
        package static let tunnel: UInt16 = 768  // ARPHRD_TUNNEL
        package static let tunnel6: UInt16 = 769  // ARPHRD_TUNNEL6
        package static let loopback: UInt16 = 772  // ARPHRD_LOOPBACK
        package static let sit: UInt16 = 776  // ARPHRD_SIT
        package static let ipgre: UInt16 = 778  // ARPHRD_IPGRE
        package static let ip6gre: UInt16 = 823  // ARPHRD_IP6GRE
        package static let none: UInt16 = 65534  // ARPHRD_NONE
    }

    /// `NLA_F_NESTED | NLA_F_NET_BYTEORDER`: flags in the top two bits of an attribute's
    /// type; the type is what remains.
    package static let attributeTypeMask: UInt16 = 0x3FFF

    /// `AF_BRIDGE`: link messages of this family are bridge-port news, not links.
    package static let familyBridge: UInt8 = 7


    /// The UDP port the monitor's sockets connect to (DNS), and `IPPROTO_UDP`: rules can
    /// select on either, so the route lookup names them as the socket's flow does.
    package static let questionPort: UInt16 = 53
    package static let udpProtocol: UInt8 = 17

    /// The destinations the monitor asks the kernel about: what an ordinary socket to the
    /// Internet would be routed as (`ip route get 1.1.1.1`, `ip -6 route get 2606:4700:4700::1111`).
    package static let internetIPv4 = IPAddress(family: IPAddress.inet, high: 0x0101_0101 << 32, low: 0)
    package static let internetIPv6 = IPAddress(family: IPAddress.inet6, high: 0x2606_4700_4700_0000, low: 0x1111)

    package static func internetDestination(family: UInt8) -> IPAddress {
        family == IPAddress.inet ? internetIPv4 : internetIPv6
    }
}
