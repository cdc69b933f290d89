/// Facts about a neighbor entry (ARP for IPv4, neighbor discovery for IPv6), from
/// `RTM_NEWNEIGH`/`RTM_DELNEIGH`: what the kernel knows of a next hop's link-layer address
/// and whether it answers (SPEC §3, "Per network": the gateway step costs no traffic of ours).
package struct NeighborMessage: Hashable, Sendable {
    /// `ndm_family`: `AF_INET` or `AF_INET6`.
    package var family: UInt8
    /// `ndm_ifindex`.
    package var interfaceIndex: Int32
    /// `ndm_state`: the `NUD_*` bits (``Netlink/Neighbor``).
    package var state: UInt16
    /// `NDA_DST`: the neighbor's IP address.
    package var destination: IPAddress
    /// `NDA_LLADDR`: its link-layer address, present while the entry is valid (the kernel
    /// leaves it out of an `INCOMPLETE` or `FAILED` entry).
    package var linkLayerAddress: [UInt8]?

    /// Whether the neighbor did not answer the kernel's solicitations (`NUD_FAILED`).
    package var isFailed: Bool { state & Netlink.Neighbor.failed != 0 }
}

extension Netlink {
    /// Neighbor messages (`struct ndmsg`, `NDA_*`, `NUD_*` from <linux/neighbour.h>).
    package enum Neighbor {
        /// `RTM_NEWNEIGH`, `RTM_DELNEIGH`, `RTM_GETNEIGH`.
        package static let newMessage: UInt16 = 28, deleteMessage: UInt16 = 29, getMessage: UInt16 = 30
        /// `RTMGRP_NEIGH` (group `RTNLGRP_NEIGH`, 3).
        package static let group: UInt32 = 0x4
        /// The size of `struct ndmsg`: family u8, pad u8, pad u16, ifindex s32, state u16,
        /// flags u8, type u8.
        package static let headerLength = 12
        /// `NDA_DST`.
        package static let destinationAttribute: UInt16 = 1
        /// `NDA_LLADDR`.
        package static let linkLayerAttribute: UInt16 = 2
        /// `NUD_INCOMPLETE`: a solicitation is out, no answer yet.
        package static let incomplete: UInt16 = 0x01
        /// `NUD_REACHABLE`: confirmed recently.
        package static let reachable: UInt16 = 0x02
        /// `NUD_STALE`: known, not confirmed recently.
        package static let stale: UInt16 = 0x04
        /// `NUD_DELAY`: used while stale; a probe follows unless traffic confirms it.
        package static let delay: UInt16 = 0x08
        /// `NUD_PROBE`: unicast probes are out.
        package static let probe: UInt16 = 0x10
        /// `NUD_FAILED`: the neighbor did not answer.
        package static let failed: UInt16 = 0x20
        /// `NUD_NOARP`: a link without address resolution.
        package static let noARP: UInt16 = 0x40
        /// `NUD_PERMANENT`: set by hand (`ip neigh add … nud permanent`).
        package static let permanent: UInt16 = 0x80
    }
}

extension NetlinkParser {
    /// Decodes a neighbor message's `ndmsg` and attributes; `nil` when it is too short, of
    /// another family than IPv4 or IPv6, or without a well-formed `NDA_DST`.
    package static func decodeNeighbor(_ payload: UnsafeRawBufferPointer) -> NeighborMessage? {
        guard payload.count >= Netlink.Neighbor.headerLength else { return nil }
        let family = payload[0]
        guard family == IPAddress.inet || family == IPAddress.inet6 else { return nil }
        var destination: IPAddress?
        var linkLayer: [UInt8]?
        forEachAttribute(UnsafeRawBufferPointer(rebasing: payload[Netlink.Neighbor.headerLength...])) { type, value in
            switch type {
            case Netlink.Neighbor.destinationAttribute: destination = IPAddress(family: family, bytes: value)
            // At most 32 bytes (MAX_ADDR_LEN): longer is not a link-layer address.
            case Netlink.Neighbor.linkLayerAttribute: if !value.isEmpty && value.count <= 32 { linkLayer = Array(value) }
            default: break
            }
        }
        guard let destination else { return nil }
        return NeighborMessage(
            family: family,
            interfaceIndex: payload.loadUnaligned(fromByteOffset: 4, as: Int32.self),
            state: payload.loadUnaligned(fromByteOffset: 8, as: UInt16.self),
            destination: destination,
            linkLayerAddress: linkLayer
        )
    }
}

extension NetlinkRequest {
    /// The bytes of a get of one neighbor entry (`RTM_GETNEIGH` with `ndm_ifindex` and
    /// `NDA_DST`, as `ip neigh get ADDRESS dev DEV` sends it): the kernel answers with the
    /// entry (`RTM_NEWNEIGH`), or `ENOENT` when it has none.
    package static func encodeNeighborGet(_ gateways: [GatewayHop], firstSequence: UInt32) -> [UInt8] {
        var message = NetlinkRequest()
        for (offset, gateway) in gateways.enumerated() {
            message.begin(type: Netlink.Neighbor.getMessage, flags: Netlink.HeaderFlag.request,
                          sequence: firstSequence &+ UInt32(offset))
            message.append(contentsOf: [gateway.address.family, 0, 0, 0])
            message.append(gateway.interfaceIndex)
            message.append(contentsOf: [0, 0, 0, 0])  // state u16, flags u8, type u8
            message.attribute(Netlink.Neighbor.destinationAttribute, gateway.address.bytes)
            message.end()
        }
        return message.bytes
    }
}
