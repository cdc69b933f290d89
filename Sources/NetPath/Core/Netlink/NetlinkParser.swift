/// Decodes rtnetlink datagrams into ``NetlinkEnvelope`` values.
///
/// Pure: bytes in, values out, so it is tested on fixtures and fuzzed. Every read is
/// bounds-checked; a truncated message ends the datagram, an unknown type or attribute is
/// skipped, and nothing here can trap on any input.
package enum NetlinkParser {
    // The C shim asserts the struct layouts these offsets assume.
    package static let headerLength = 16

    /// Calls `body` for each well-formed message in `datagram`, in order.
    package static func parse(_ datagram: UnsafeRawBufferPointer, _ body: (NetlinkEnvelope) -> Void) {
        var offset = 0
        while datagram.count - offset >= headerLength {
            let length = Int(datagram.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            guard length >= headerLength, length <= datagram.count - offset else { return }
            let type = datagram.loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self)
            let flags = datagram.loadUnaligned(fromByteOffset: offset + 6, as: UInt16.self)
            let sequence = datagram.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
            let port = datagram.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)
            let payload = UnsafeRawBufferPointer(rebasing: datagram[(offset + headerLength)..<(offset + length)])
            body(NetlinkEnvelope(type: type, flags: flags, sequence: sequence, port: port, message: decode(type: type, payload)))
            let aligned = (length + 3) & ~3
            guard aligned <= datagram.count - offset else { return }
            offset += aligned
        }
    }

    /// Convenience for tests and fuzzing: all messages of `bytes`.
    package static func parse(_ bytes: [UInt8]) -> [NetlinkEnvelope] {
        var result: [NetlinkEnvelope] = []
        bytes.withUnsafeBytes { buffer in parse(buffer) { result.append($0) } }
        return result
    }

    package static func decode(type: UInt16, _ payload: UnsafeRawBufferPointer) -> NetlinkMessage {
        switch type {
        case Netlink.MessageType.done:
            return .done
        case Netlink.MessageType.error:
            guard payload.count >= 4 else { return .other(type: type) }
            return .error(code: payload.loadUnaligned(as: Int32.self))
        case Netlink.MessageType.newLink, Netlink.MessageType.deleteLink:
            guard let link = decodeLink(payload) else { return .other(type: type) }
            return type == Netlink.MessageType.newLink ? .newLink(link) : .deleteLink(link)
        case Netlink.MessageType.newAddress, Netlink.MessageType.deleteAddress:
            guard let address = decodeAddress(payload) else { return .other(type: type) }
            return type == Netlink.MessageType.newAddress ? .newAddress(address) : .deleteAddress(address)
        case Netlink.MessageType.newRoute, Netlink.MessageType.deleteRoute:
            // Only a route whose prefix holds the Internet destination the monitor asks about
            // can change the kernel's answer: the others (the bulk of any dump or storm) are
            // skipped after a look at their destination.
            guard coversInternet(payload) else {
                return localIPv6Route(payload).map { .localAddressRoute(interfaceIndex: $0) } ?? .other(type: type)
            }
            guard let route = decodeRoute(payload) else { return .other(type: type) }
            return type == Netlink.MessageType.newRoute ? .newRoute(route) : .deleteRoute(route)
        case Netlink.MessageType.newRule, Netlink.MessageType.deleteRule:
            guard let rule = decodeRule(payload) else { return .other(type: type) }
            return type == Netlink.MessageType.newRule ? .newRule(rule) : .deleteRule(rule)
        case Netlink.MessageType.newNexthop, Netlink.MessageType.deleteNexthop:
            guard let nexthop = decodeNexthop(payload) else { return .other(type: type) }
            return type == Netlink.MessageType.newNexthop ? .newNexthop(nexthop) : .deleteNexthop(nexthop)
        case Netlink.Neighbor.newMessage, Netlink.Neighbor.deleteMessage:
            guard let neighbor = decodeNeighbor(payload) else { return .other(type: type) }
            return type == Netlink.Neighbor.newMessage ? .newNeighbor(neighbor) : .deleteNeighbor(neighbor)
        case Netlink.MessageType.newNetconf, Netlink.MessageType.deleteNetconf:
            // struct netconfmsg: family u8 (padded).
            guard payload.count >= 1 else { return .other(type: type) }
            return .netconf(family: payload[0])
        default:
            return .other(type: type)
        }
    }

    /// Calls `body(type, payload)` for each well-formed attribute; stops at the first
    /// malformed one.
    package static func forEachAttribute(_ bytes: UnsafeRawBufferPointer, _ body: (UInt16, UnsafeRawBufferPointer) -> Void) {
        var offset = 0
        while bytes.count - offset >= 4 {
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            let type = bytes.loadUnaligned(fromByteOffset: offset + 2, as: UInt16.self) & Netlink.attributeTypeMask
            guard length >= 4, length <= bytes.count - offset else { return }
            body(type, UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + length)]))
            offset += (length + 3) & ~3
        }
    }

    package static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self)
    }

    package static func decodeLink(_ payload: UnsafeRawBufferPointer) -> LinkMessage? {
        // struct ifinfomsg: family u8, pad u8, type u16, index s32, flags u32, change u32.
        guard payload.count >= 16 else { return nil }
        var link = LinkMessage(
            family: payload[0],
            index: payload.loadUnaligned(fromByteOffset: 4, as: Int32.self),
            hardwareType: payload.loadUnaligned(fromByteOffset: 2, as: UInt16.self),
            flags: payload.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
        )
        forEachAttribute(UnsafeRawBufferPointer(rebasing: payload[16...])) { type, value in
            switch type {
            case Netlink.LinkAttribute.name:
                link.name = string(value)
            case Netlink.LinkAttribute.operationalState:
                if value.count >= 1 { link.operationalState = value[0] }
            case Netlink.LinkAttribute.linkInfo:
                forEachAttribute(value) { infoType, info in
                    if infoType == Netlink.LinkAttribute.infoKind { link.kind = string(info) }
                }
            case Netlink.LinkAttribute.group:
                if value.count >= 4 { link.group = value.loadUnaligned(as: UInt32.self) }
            default:
                break
            }
        }
        return link
    }

    package static func decodeAddress(_ payload: UnsafeRawBufferPointer) -> AddressMessage? {
        // struct ifaddrmsg: family u8, prefixlen u8, flags u8, scope u8, index u32.
        guard payload.count >= 8 else { return nil }
        let family = payload[0]
        var local: IPAddress?
        var address: IPAddress?
        var flags = UInt32(payload[2])
        forEachAttribute(UnsafeRawBufferPointer(rebasing: payload[8...])) { type, value in
            switch type {
            case Netlink.AddressAttribute.address: address = IPAddress(family: family, bytes: value)
            case Netlink.AddressAttribute.local: local = IPAddress(family: family, bytes: value)
            case Netlink.AddressAttribute.flags: if value.count >= 4 { flags = value.loadUnaligned(as: UInt32.self) }
            default: break
            }
        }
        guard let chosen = local ?? address else { return nil }
        return AddressMessage(
            index: payload.loadUnaligned(fromByteOffset: 4, as: Int32.self),
            prefixLength: payload[1],
            flags: flags,
            scope: payload[3],
            address: chosen
        )
    }

    package static func decodeRoute(_ payload: UnsafeRawBufferPointer) -> RouteMessage? {
        // struct rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type (u8 each),
        // flags u32.
        guard payload.count >= 12 else { return nil }
        let family = payload[0]
        var route = RouteMessage(
            family: family,
            destinationLength: payload[1],
            tos: payload[3],
            table: UInt32(payload[4]),
            type: payload[7],
            flags: payload.loadUnaligned(fromByteOffset: 8, as: UInt32.self),
            metric: 0,
            nexthops: []
        )
        var interfaceIndex: Int32?
        var gateway: IPAddress?
        forEachAttribute(UnsafeRawBufferPointer(rebasing: payload[12...])) { type, value in
            switch type {
            case Netlink.RouteAttribute.destination:
                route.destination = IPAddress(family: family, bytes: value)
            case Netlink.RouteAttribute.sourcePrefix:
                route.sourcePrefix = IPAddress(family: family, bytes: value)
            case Netlink.RouteAttribute.outputInterface:
                if value.count >= 4 { interfaceIndex = value.loadUnaligned(as: Int32.self) }
            case Netlink.RouteAttribute.gateway:
                gateway = IPAddress(family: family, bytes: value)
            case Netlink.RouteAttribute.priority:
                if value.count >= 4 { route.metric = value.loadUnaligned(as: UInt32.self) }
            case Netlink.RouteAttribute.preferredSource:
                route.source = IPAddress(family: family, bytes: value)
            case Netlink.RouteAttribute.multipath:
                route.nexthops.append(contentsOf: decodeMultipath(value, family: family))
            case Netlink.RouteAttribute.cacheInfo:
                if let ticks = expiryTicks(cacheInfo: value) { route.expiresTicks = ticks }
            case Netlink.RouteAttribute.table:
                if value.count >= 4 { route.table = value.loadUnaligned(as: UInt32.self) }
            case Netlink.RouteAttribute.via:
                if value.count >= 2 { gateway = viaGateway(value) }
            case Netlink.RouteAttribute.nexthopID:
                if value.count >= 4 { route.nexthopID = value.loadUnaligned(as: UInt32.self) }
            default:
                break
            }
        }
        if route.destinationLength == 0 { route.destination = nil }
        route.sourcePrefixLength = route.sourcePrefix == nil ? 0 : payload[2]
        if route.sourcePrefixLength == 0 { route.sourcePrefix = nil }
        if let interfaceIndex {
            route.nexthops.insert(Nexthop(interfaceIndex: interfaceIndex, gateway: gateway), at: 0)
        }
        return route
    }

    /// `RTA_CACHEINFO`'s expiry (struct rta_cacheinfo: clntref, lastuse, expires, … u32
    /// each), in clock ticks; `nil` for a route that does not expire.
    package static func expiryTicks(cacheInfo value: UnsafeRawBufferPointer) -> Int32? {
        guard value.count >= 12 else { return nil }
        let ticks = value.loadUnaligned(fromByteOffset: 8, as: Int32.self)
        return ticks != 0 ? ticks : nil
    }

    /// `RTA_VIA`: an IPv4 route through an IPv6 gateway (family u16, then the address).
    package static func viaGateway(_ value: UnsafeRawBufferPointer) -> IPAddress? {
        guard value.count >= 2 else { return nil }
        let family = UInt8(truncatingIfNeeded: value.loadUnaligned(as: UInt16.self))
        return IPAddress(family: family, bytes: UnsafeRawBufferPointer(rebasing: value[2...]))
    }

    /// Whether a route message's prefix holds the family's Internet destination (a default
    /// route always does). Reads only `rtm_dst_len` and `RTA_DST`.
    package static func coversInternet(_ payload: UnsafeRawBufferPointer) -> Bool {
        guard payload.count >= 12 else { return false }
        let family = payload[0], length = payload[1]
        guard family == IPAddress.inet || family == IPAddress.inet6 else { return false }
        if length == 0 { return true }
        var covers = false
        forEachAttribute(UnsafeRawBufferPointer(rebasing: payload[12...])) { type, value in
            guard type == Netlink.RouteAttribute.destination,
                  let destination = IPAddress(family: family, bytes: value) else { return }
            covers = destination.contains(Netlink.internetDestination(family: family), prefixLength: length)
        }
        return covers
    }

    /// The interface of an IPv6 address's own route (`RTN_LOCAL`, a /128 in the local
    /// table), `nil` for any other route and for a link-local address's (never a source to
    /// the Internet: its DAD ending must not make the kernel be asked again). Reads the
    /// header's family, length and type first, so an IPv4 storm pays one comparison.
    package static func localIPv6Route(_ payload: UnsafeRawBufferPointer) -> Int32? {
        // struct rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type (u8
        // each), flags u32.
        guard payload.count >= 12, payload[0] == IPAddress.inet6, payload[1] == 128,
              payload[7] == Netlink.RouteType.local else { return nil }
        var index: Int32?, linkLocal = false
        forEachAttribute(UnsafeRawBufferPointer(rebasing: payload[12...])) { type, value in
            if type == Netlink.RouteAttribute.outputInterface, value.count >= 4 { index = value.loadUnaligned(as: Int32.self) }
            if type == Netlink.RouteAttribute.destination { linkLocal = IPAddress(family: IPAddress.inet6, bytes: value)?.isIPv6LinkLocal ?? false }
        }
        return linkLocal ? nil : index
    }

    package static func decodeRule(_ payload: UnsafeRawBufferPointer) -> RuleMessage? {
        // struct fib_rule_hdr: family, dst_len, src_len, tos, table, res1, res2, action
        // (u8 each), flags u32.
        guard payload.count >= 12 else { return nil }
        let family = payload[0]
        var rule = RuleMessage(family: family, action: payload[7], priority: 0)
        rule.flags = payload.loadUnaligned(fromByteOffset: 8, as: UInt32.self)
        rule.destinationLength = payload[1]
        rule.sourceLength = payload[2]
        rule.tos = payload[3]
        rule.table = UInt32(payload[4])
        func u32(_ value: UnsafeRawBufferPointer) -> UInt32? { value.count >= 4 ? value.loadUnaligned(as: UInt32.self) : nil }
        func ports(_ value: UnsafeRawBufferPointer) -> ClosedRange<UInt16>? {
            guard value.count >= 4 else { return nil }
            let start = value.loadUnaligned(as: UInt16.self), end = value.loadUnaligned(fromByteOffset: 2, as: UInt16.self)
            return start <= end ? start...end : nil
        }
        forEachAttribute(UnsafeRawBufferPointer(rebasing: payload[12...])) { type, value in
            switch type {
            case Netlink.Rule.priorityAttribute: rule.priority = u32(value) ?? 0
            case Netlink.Rule.tableAttribute: if let table = u32(value) { rule.table = table }
            case Netlink.Rule.gotoAttribute: rule.gotoTarget = u32(value)
            case Netlink.Rule.sourceAttribute: rule.source = IPAddress(family: family, bytes: value)
            case Netlink.Rule.destinationAttribute: rule.destination = IPAddress(family: family, bytes: value)
            case Netlink.Rule.inputNameAttribute: rule.inputName = string(value)
            case Netlink.Rule.outputNameAttribute: rule.outputName = string(value)
            case Netlink.Rule.markAttribute: rule.mark = u32(value)
            case Netlink.Rule.markMaskAttribute: rule.markMask = u32(value)
            case Netlink.Rule.uidRangeAttribute:
                if value.count >= 8 {
                    let start = value.loadUnaligned(as: UInt32.self), end = value.loadUnaligned(fromByteOffset: 4, as: UInt32.self)
                    if start <= end { rule.uidRange = start...end } else { rule.hasOtherSelector = true }
                }
            case Netlink.Rule.ipProtocolAttribute: if value.count >= 1 { rule.ipProtocol = value[0] }
            case Netlink.Rule.sourcePortsAttribute: rule.sourcePorts = ports(value)
            case Netlink.Rule.destinationPortsAttribute: rule.destinationPorts = ports(value)
            case 0, Netlink.Rule.padAttribute, Netlink.Rule.protocolAttribute, Netlink.Rule.suppressGroupAttribute,
                 Netlink.Rule.suppressPrefixAttribute:
                break  // not selectors (suppression applies only after a lookup succeeded)
            default:
                rule.hasOtherSelector = true
            }
        }
        if rule.destinationLength == 0 { rule.destination = nil }
        if rule.sourceLength == 0 { rule.source = nil }
        return rule
    }

    package static func decodeNexthop(_ payload: UnsafeRawBufferPointer) -> NexthopMessage? {
        // struct nhmsg: family, scope, protocol, resvd (u8 each), flags u32.
        guard payload.count >= 8 else { return nil }
        let family = payload[0]
        var id: UInt32?
        var interfaceIndex: Int32?
        var gateway: IPAddress?
        var message = NexthopMessage(id: 0)
        forEachAttribute(UnsafeRawBufferPointer(rebasing: payload[8...])) { type, value in
            switch type {
            case Netlink.NexthopAttribute.id:
                if value.count >= 4 { id = value.loadUnaligned(as: UInt32.self) }
            case Netlink.NexthopAttribute.group:
                // struct nexthop_grp: id u32, weight u8, pad u8, pad u16.
                var offset = 0
                while value.count - offset >= 8 {
                    message.group.append(value.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                    offset += 8
                }
            case Netlink.NexthopAttribute.blackhole:
                message.isBlackhole = true
            case Netlink.NexthopAttribute.outputInterface:
                if value.count >= 4 { interfaceIndex = value.loadUnaligned(as: Int32.self) }
            case Netlink.NexthopAttribute.gateway:
                gateway = IPAddress(family: family, bytes: value)
            default:
                break
            }
        }
        guard let id else { return nil }
        message.id = id
        if let interfaceIndex { message.hop = Nexthop(interfaceIndex: interfaceIndex, gateway: gateway) }
        return message
    }

    package static func decodeMultipath(_ bytes: UnsafeRawBufferPointer, family: UInt8) -> [Nexthop] {
        // struct rtnexthop: len u16, flags u8, hops u8, ifindex s32, then attributes.
        var result: [Nexthop] = []
        var offset = 0
        while bytes.count - offset >= 8 {
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            guard length >= 8, length <= bytes.count - offset else { break }
            var hop = Nexthop(interfaceIndex: bytes.loadUnaligned(fromByteOffset: offset + 4, as: Int32.self), gateway: nil)
            forEachAttribute(UnsafeRawBufferPointer(rebasing: bytes[(offset + 8)..<(offset + length)])) { type, value in
                if type == Netlink.RouteAttribute.gateway { hop.gateway = IPAddress(family: family, bytes: value) }
            }
            result.append(hop)
            offset += (length + 3) & ~3
        }
        return result
    }
}
