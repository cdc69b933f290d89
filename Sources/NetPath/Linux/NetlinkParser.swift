/// Decodes rtnetlink datagrams into ``NetlinkEnvelope`` values.
///
/// Pure: bytes in, values out, so it is tested on fixtures and fuzzed. Every read is
/// bounds-checked; a truncated message ends the datagram, an unknown type or attribute is
/// skipped, and nothing here can trap on any input.
enum NetlinkParser {
    // The corresponding C constants are in <linux/netlink.h> and <linux/rtnetlink.h>; the
    // C shim asserts the struct layouts these offsets assume.
    static let headerLength = 16
    static let typeNoop: UInt16 = 1, typeError: UInt16 = 2, typeDone: UInt16 = 3
    static let newLink: UInt16 = 16, deleteLink: UInt16 = 17
    static let newAddress: UInt16 = 20, deleteAddress: UInt16 = 21
    static let newRoute: UInt16 = 24, deleteRoute: UInt16 = 25
    static let flagMulti: UInt16 = 0x2
    static let flagDumpInterrupted: UInt16 = 0x10
    static let flagReplace: UInt16 = 0x100

    /// Calls `body` for each well-formed message in `datagram`, in order.
    static func parse(_ datagram: UnsafeRawBufferPointer, _ body: (NetlinkEnvelope) -> Void) {
        var offset = 0
        while datagram.count - offset >= headerLength {
            let length = Int(datagram.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            guard length >= headerLength, length <= datagram.count - offset else { return }
            let type = datagram.loadUnaligned(fromByteOffset: offset + 4, as: UInt16.self)
            let flags = datagram.loadUnaligned(fromByteOffset: offset + 6, as: UInt16.self)
            let sequence = datagram.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
            let payload = UnsafeRawBufferPointer(rebasing: datagram[(offset + headerLength)..<(offset + length)])
            body(NetlinkEnvelope(type: type, flags: flags, sequence: sequence, message: decode(type: type, payload)))
            let aligned = (length + 3) & ~3
            guard aligned <= datagram.count - offset else { return }
            offset += aligned
        }
    }

    /// Convenience for tests and fuzzing: all messages of `bytes`.
    static func parse(_ bytes: [UInt8]) -> [NetlinkEnvelope] {
        var result: [NetlinkEnvelope] = []
        bytes.withUnsafeBytes { buffer in parse(buffer) { result.append($0) } }
        return result
    }

    static func decode(type: UInt16, _ payload: UnsafeRawBufferPointer) -> NetlinkMessage {
        switch type {
        case typeDone:
            return .done
        case typeError:
            guard payload.count >= 4 else { return .other(type: type) }
            return .error(code: payload.loadUnaligned(as: Int32.self))
        case newLink, deleteLink:
            guard let link = decodeLink(payload) else { return .other(type: type) }
            return type == newLink ? .newLink(link) : .deleteLink(link)
        case newAddress, deleteAddress:
            guard let address = decodeAddress(payload) else { return .other(type: type) }
            return type == newAddress ? .newAddress(address) : .deleteAddress(address)
        case newRoute, deleteRoute:
            // Only default routes (destination length 0) can make a path: skip the others'
            // attributes, the bulk of any route dump or storm.
            guard payload.count >= 2, payload[1] == 0, let route = decodeRoute(payload) else { return .other(type: type) }
            return type == newRoute ? .newRoute(route) : .deleteRoute(route)
        default:
            return .other(type: type)
        }
    }

    /// Calls `body(type, payload)` for each well-formed attribute; stops at the first
    /// malformed one.
    static func forEachAttribute(_ bytes: UnsafeRawBufferPointer, _ body: (UInt16, UnsafeRawBufferPointer) -> Void) {
        var offset = 0
        while bytes.count - offset >= 4 {
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            // NLA_F_NESTED and NLA_F_NET_BYTEORDER live in the top two bits of the type.
            let type = bytes.loadUnaligned(fromByteOffset: offset + 2, as: UInt16.self) & 0x3FFF
            guard length >= 4, length <= bytes.count - offset else { return }
            body(type, UnsafeRawBufferPointer(rebasing: bytes[(offset + 4)..<(offset + length)]))
            offset += (length + 3) & ~3
        }
    }

    static func string(_ bytes: UnsafeRawBufferPointer) -> String {
        let end = bytes.firstIndex(of: 0) ?? bytes.count
        return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[0..<end]), as: UTF8.self)
    }

    static func decodeLink(_ payload: UnsafeRawBufferPointer) -> LinkMessage? {
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
            case 3:  // IFLA_IFNAME
                link.name = string(value)
            case 16:  // IFLA_OPERSTATE
                if value.count >= 1 { link.operationalState = value[0] }
            case 18:  // IFLA_LINKINFO
                forEachAttribute(value) { infoType, info in
                    if infoType == 1 { link.kind = string(info) }  // IFLA_INFO_KIND
                }
            default:
                break
            }
        }
        return link
    }

    static func decodeAddress(_ payload: UnsafeRawBufferPointer) -> AddressMessage? {
        // struct ifaddrmsg: family u8, prefixlen u8, flags u8, scope u8, index u32.
        guard payload.count >= 8 else { return nil }
        let family = payload[0]
        var local: IPAddress?
        var address: IPAddress?
        var flags = UInt32(payload[2])
        forEachAttribute(UnsafeRawBufferPointer(rebasing: payload[8...])) { type, value in
            switch type {
            case 1: address = IPAddress(family: family, bytes: value)  // IFA_ADDRESS
            case 2: local = IPAddress(family: family, bytes: value)  // IFA_LOCAL
            case 8: if value.count >= 4 { flags = value.loadUnaligned(as: UInt32.self) }  // IFA_FLAGS
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

    static func decodeRoute(_ payload: UnsafeRawBufferPointer) -> RouteMessage? {
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
            case 4:  // RTA_OIF
                if value.count >= 4 { interfaceIndex = value.loadUnaligned(as: Int32.self) }
            case 5:  // RTA_GATEWAY
                gateway = IPAddress(family: family, bytes: value)
            case 6:  // RTA_PRIORITY
                if value.count >= 4 { route.metric = value.loadUnaligned(as: UInt32.self) }
            case 9:  // RTA_MULTIPATH
                route.nexthops.append(contentsOf: decodeMultipath(value, family: family))
            case 15:  // RTA_TABLE
                if value.count >= 4 { route.table = value.loadUnaligned(as: UInt32.self) }
            case 18:  // RTA_VIA: an IPv4 route through an IPv6 gateway (family u16, address)
                if value.count >= 2 {
                    let viaFamily = UInt8(truncatingIfNeeded: value.loadUnaligned(as: UInt16.self))
                    gateway = IPAddress(family: viaFamily, bytes: UnsafeRawBufferPointer(rebasing: value[2...]))
                }
            default:
                break
            }
        }
        if let interfaceIndex {
            route.nexthops.insert(Nexthop(interfaceIndex: interfaceIndex, gateway: gateway), at: 0)
        }
        return route
    }

    static func decodeMultipath(_ bytes: UnsafeRawBufferPointer, family: UInt8) -> [Nexthop] {
        // struct rtnexthop: len u16, flags u8, hops u8, ifindex s32, then attributes.
        var result: [Nexthop] = []
        var offset = 0
        while bytes.count - offset >= 8 {
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
            guard length >= 8, length <= bytes.count - offset else { break }
            var hop = Nexthop(interfaceIndex: bytes.loadUnaligned(fromByteOffset: offset + 4, as: Int32.self), gateway: nil)
            forEachAttribute(UnsafeRawBufferPointer(rebasing: bytes[(offset + 8)..<(offset + length)])) { type, value in
                if type == 5 { hop.gateway = IPAddress(family: family, bytes: value) }
            }
            result.append(hop)
            offset += (length + 3) & ~3
        }
        return result
    }
}
