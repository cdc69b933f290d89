/// Netlink messages being written, as iproute2's `addattr_l` writes them: each message's
/// `nlmsg_len` and each attribute's `rta_len` are computed, and attributes are padded to 4
/// bytes (`RTA_ALIGN`). Several messages may follow each other in one datagram. Pure.
package struct NetlinkRequest {
    /// The datagram so far.
    package private(set) var bytes: [UInt8] = []
    /// Where the open message begins.
    private var start = 0

    package init() {
        bytes.reserveCapacity(256)
    }

    /// Opens a message: its header, with its length written when it is closed; the port id
    /// is 0 (the kernel fills it in).
    package mutating func begin(type: UInt16, flags: UInt16, sequence: UInt32) {
        start = bytes.count
        append(UInt32(0))
        append(type)
        append(flags)
        append(sequence)
        append(UInt32(0))
    }

    /// Appends raw bytes of the message's fixed body (`rtmsg`, `ifinfomsg`, …).
    package mutating func append(contentsOf body: some Sequence<UInt8>) {
        bytes.append(contentsOf: body)
    }

    /// Appends an integer in host byte order.
    package mutating func append<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
    }

    /// Appends an attribute: its length (4 + the payload's), its type, the payload, and the
    /// padding to 4 bytes.
    package mutating func attribute(_ type: UInt16, _ payload: some Collection<UInt8>) {
        append(UInt16(4 + payload.count))
        append(type)
        bytes.append(contentsOf: payload)
        for _ in 0..<(4 - payload.count % 4) % 4 { bytes.append(0) }
    }

    /// Appends an attribute holding an integer in host byte order.
    package mutating func attribute<T: FixedWidthInteger>(_ type: UInt16, _ value: T) {
        withUnsafeBytes(of: value) { attribute(type, $0) }
    }

    /// Closes the open message: writes its length into its header.
    package mutating func end() {
        let length = UInt32(bytes.count - start)
        withUnsafeBytes(of: length) { bytes.replaceSubrange(start..<(start + 4), with: $0) }
    }
}

extension NetlinkRequest {
    /// The bytes of `request`: a netlink header and the family-neutral body of its type.
    package static func encode(_ request: DumpMachine.Request) -> [UInt8] {
        // ifinfomsg is 16 bytes, ifaddrmsg 8, rtmsg and fib_rule_hdr 12, nhmsg 8; all zero
        // means AF_UNSPEC, no filter.
        let bodyLength = switch request.dump {
        case .links: 16
        case .addresses, .nexthops: 8
        case .routes, .rules: 12
        }
        var message = NetlinkRequest()
        message.begin(type: request.dump.messageType, flags: Netlink.HeaderFlag.request | Netlink.HeaderFlag.dump,
                      sequence: request.sequence)
        message.append(contentsOf: repeatElement(0, count: bodyLength))
        message.end()
        return message.bytes
    }

    /// The bytes of route lookups, all in one datagram (the kernel answers each in turn):
    /// `RTM_GETROUTE` with an `rtmsg` for the family's Internet destination, `RTA_DST`, the
    /// socket's flow (`RTA_IP_PROTO` UDP, `RTA_DPORT` 53), `RTA_SRC` from the source the socket
    /// picked, and `RTA_OIF` when bound. The answer names the table it came from
    /// (`RTM_F_LOOKUP_TABLE`).
    package static func encode(lookups: [(sequence: UInt32, lookup: RouteLookup, tableEntry: Bool, source: IPAddress?)]) -> [UInt8] {
        var message = NetlinkRequest()
        for (sequence, lookup, tableEntry, source) in lookups {
            let destination = Netlink.internetDestination(family: lookup.family)
            let prefixLength = UInt8(destination.bytes.count * 8)
            let source = source.flatMap { $0.family == lookup.family && !$0.isUnspecified ? $0 : nil }
            message.begin(type: Netlink.MessageType.getRoute, flags: Netlink.HeaderFlag.request, sequence: sequence)
            // struct rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags.
            message.append(lookup.family)
            message.append(prefixLength)
            message.append(source == nil ? 0 : prefixLength)
            message.append(UInt32(0))  // tos, table, protocol, scope
            message.append(UInt8(0))  // type
            message.append(Netlink.RouteFlag.lookupTable | (tableEntry ? Netlink.RouteFlag.fibMatch : 0))
            message.attribute(Netlink.RouteAttribute.destination, destination.bytes)
            if let source { message.attribute(Netlink.RouteAttribute.sourcePrefix, source.bytes) }
            message.attribute(Netlink.RouteAttribute.ipProtocol, [Netlink.udpProtocol])
            message.attribute(Netlink.RouteAttribute.destinationPort, Netlink.questionPort.bigEndian)
            if let index = lookup.interfaceIndex { message.attribute(Netlink.RouteAttribute.outputInterface, index) }
            message.end()
        }
        return message.bytes
    }
}
