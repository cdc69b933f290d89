/// A default gateway of the kernel's answer: the address its route names and the link it
/// is reached on, which together name its neighbor entry.
package struct GatewayHop: Hashable, Sendable, Comparable {
    package var interfaceIndex: Int32
    package var address: IPAddress

    package init(interfaceIndex: Int32, address: IPAddress) {
        self.interfaceIndex = interfaceIndex
        self.address = address
    }

    package static func < (a: GatewayHop, b: GatewayHop) -> Bool {
        (a.address, a.interfaceIndex) < (b.address, b.interfaceIndex)
    }
}

/// One instruction of a classic BPF program (`struct sock_filter`), as `SO_ATTACH_FILTER`
/// takes it.
package struct SocketFilterInstruction: Hashable, Sendable {
    /// `code`: the operation (`BPF_LD|BPF_W|BPF_ABS`, `BPF_JMP|BPF_JEQ|BPF_K`, `BPF_RET|BPF_K`).
    package var code: UInt16
    /// `jt`, `jf`: how many instructions a jump skips when its test holds, or not.
    package var jumpTrue: UInt8
    package var jumpFalse: UInt8
    /// `k`: the operand (an offset to load from, a value to compare, a length to keep).
    package var constant: UInt32

    /// `BPF_LD|BPF_W|BPF_ABS`: loads the 32-bit word at `offset`, big-endian.
    package static let loadWord: UInt16 = 0x20
    /// `BPF_LD|BPF_H|BPF_ABS`: loads the 16-bit half-word at `offset`, big-endian.
    package static let loadHalf: UInt16 = 0x28
    /// `BPF_JMP|BPF_JEQ|BPF_K`.
    package static let jumpIfEqual: UInt16 = 0x15
    /// `BPF_RET|BPF_K`: ends, keeping that many bytes of the packet (0 drops it).
    package static let returnConstant: UInt16 = 0x06
}

/// The classic BPF program that lets through a neighbor socket only the messages about the
/// default gateways' entries, so that no other neighbor's change wakes the monitor.
///
/// Netlink hands a socket filter each notification as one skb holding one message: the
/// `nlmsghdr` (its type at offset 4), the `ndmsg` at 16 (`ndm_ifindex` at 20), then the
/// kernel's first attribute, `NDA_DST` (`rta_len`, `rta_type` at 28, the address at 32).
/// Loads are big-endian while the header fields are in host order: each host-order value
/// is compared as its bytes read big-endian. A load past the end drops the message.
package enum NeighborFilter {
    /// At most this many gateways are watched (a path has one or two in practice).
    package static let maximumGateways = 64

    /// The program for `gateways`: `RTM_NEWNEIGH`/`RTM_DELNEIGH` whose interface and
    /// destination are a gateway's pass whole; everything else is dropped.
    package static func program(for gateways: [GatewayHop]) -> [SocketFilterInstruction] {
        typealias I = SocketFilterInstruction
        var program: [I] = [
            I(code: I.loadHalf, jumpTrue: 0, jumpFalse: 0, constant: 4),
            I(code: I.jumpIfEqual, jumpTrue: 2, jumpFalse: 0, constant: UInt32(Netlink.Neighbor.newMessage.bigEndian)),
            I(code: I.jumpIfEqual, jumpTrue: 1, jumpFalse: 0, constant: UInt32(Netlink.Neighbor.deleteMessage.bigEndian)),
            I(code: I.returnConstant, jumpTrue: 0, jumpFalse: 0, constant: 0),
        ]
        for gateway in gateways.prefix(maximumGateways) {
            program += block(for: gateway)
        }
        program.append(I(code: I.returnConstant, jumpTrue: 0, jumpFalse: 0, constant: 0))
        return program
    }

    /// The comparisons for one gateway, each jumping to the next block when it fails, and
    /// the acceptance at the end.
    private static func block(for gateway: GatewayHop) -> [SocketFilterInstruction] {
        typealias I = SocketFilterInstruction
        let address = gateway.address.bytes
        // NDA_DST's header: rta_len (4 + the address) and rta_type, both u16 in host order.
        var header: [UInt8] = []
        withUnsafeBytes(of: UInt16(4 + address.count)) { header += $0 }
        withUnsafeBytes(of: Netlink.Neighbor.destinationAttribute) { header += $0 }
        var index: [UInt8] = []
        withUnsafeBytes(of: gateway.interfaceIndex) { index += $0 }
        var tests: [(offset: UInt32, value: UInt32)] = [(20, bigEndianWord(index, at: 0)), (28, bigEndianWord(header, at: 0))]
        for word in 0..<(address.count / 4) {
            tests.append((32 + UInt32(word * 4), bigEndianWord(address, at: word * 4)))
        }
        let length = tests.count * 2 + 1
        var block: [I] = []
        for (position, test) in tests.enumerated() {
            block.append(I(code: I.loadWord, jumpTrue: 0, jumpFalse: 0, constant: test.offset))
            // From the instruction after this jump to the first of the next block.
            let skip = length - (position * 2 + 2)
            block.append(I(code: I.jumpIfEqual, jumpTrue: 0, jumpFalse: UInt8(skip), constant: test.value))
        }
        block.append(I(code: I.returnConstant, jumpTrue: 0, jumpFalse: 0, constant: UInt32.max))
        return block
    }

    private static func bigEndianWord(_ bytes: [UInt8], at start: Int) -> UInt32 {
        bytes[start..<(start + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }
}
