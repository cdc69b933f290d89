#if os(Linux) || os(Android)
/// A NAT64 prefix (RFC 6052): an IPv6 prefix of 32, 40, 48, 56, 64 or 96 bits into which a
/// network's NAT64 embeds IPv4 addresses, so that an IPv6-only host reaches an IPv4 address
/// at `prefix + address`. Discovered as RFC 7050 says (the AAAA records of `ipv4only.arpa`,
/// which a DNS64 resolver synthesizes from its A records 192.0.0.170 and 192.0.0.171), and
/// used to reach an IPv4 literal from an IPv6-only path, as Apple's stack does for apps.
/// Pure.
package struct NAT64Prefix: Hashable, Sendable, CustomStringConvertible {
    /// The prefix's bits, the rest zero.
    package let address: IPAddress
    /// 32, 40, 48, 56, 64 or 96.
    package let length: Int

    /// The name whose AAAA records reveal the prefix (RFC 7050 §2.1).
    package static let discoveryName = "ipv4only.arpa"
    /// Its well-known IPv4 addresses, 192.0.0.170 and 192.0.0.171 (RFC 7050 §2.2).
    package static let wellKnownAddresses: [UInt32] = [0xC000_00AA, 0xC000_00AB]
    /// The prefix lengths RFC 6052 §2.2 allows, in the order discovery tries them.
    package static let lengths = [96, 64, 56, 48, 40, 32]
    /// Byte 8 of the address (bits 64 to 71, the "u" octet) carries no address bits and is
    /// zero for every length but 96.
    private static let reservedByte = 8

    /// `64:ff9b::/96`.
    package var description: String { "\(address)/\(length)" }

    /// The IPv6 address that reaches `ipv4` through this prefix (RFC 6052 §2.2).
    package func synthesize(_ ipv4: IPAddress) -> IPAddress {
        var bytes = address.bytes
        let value = UInt32(truncatingIfNeeded: ipv4.high >> 32)
        for (position, index) in NAT64Prefix.positions(length).enumerated() {
            bytes[index] = UInt8(truncatingIfNeeded: value >> (24 - 8 * UInt32(position)))
        }
        return NAT64Prefix.address(of: bytes)
    }

    /// The prefix that the AAAA records of ``discoveryName`` reveal, if one does: the first
    /// record, at the first length, that holds a well-known address where RFC 6052 puts it.
    package static func discover(in answers: [IPAddress]) -> NAT64Prefix? {
        for answer in answers where answer.family == IPAddress.inet6 {
            let bytes = answer.bytes
            for length in lengths where length == 96 || bytes[reservedByte] == 0 {
                var embedded: UInt32 = 0
                for index in positions(length) { embedded = embedded << 8 | UInt32(bytes[index]) }
                guard wellKnownAddresses.contains(embedded) else { continue }
                var prefix = [UInt8](repeating: 0, count: 16)
                prefix[..<(length / 8)] = bytes[..<(length / 8)]
                return NAT64Prefix(address: address(of: prefix), length: length)
            }
        }
        return nil
    }

    /// The byte indexes an IPv4 address occupies after a prefix of `length` bits.
    private static func positions(_ length: Int) -> [Int] {
        Array((length / 8..<16).lazy.filter { $0 != reservedByte || length == 96 }.prefix(4))
    }

    /// The IPv6 address of 16 `bytes`.
    private static func address(of bytes: [UInt8]) -> IPAddress {
        // 16 bytes always make an IPv6 address.
        bytes.withUnsafeBytes { IPAddress(family: IPAddress.inet6, bytes: $0)! }
    }
}
#endif
