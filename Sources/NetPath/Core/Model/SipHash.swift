/// SipHash-2-4 (Aumasson and Bernstein, 2012): a keyed 64-bit hash, the one systemd uses
/// (`siphash24`) to derive stable identifiers from the machine ID without revealing what
/// went in. Pure: the key is passed in.
package struct SipHash24: Sendable {
    private var v0: UInt64, v1: UInt64, v2: UInt64, v3: UInt64
    /// Bytes not yet a whole 64-bit word, little-endian.
    private var tail: UInt64 = 0
    private var count = 0

    /// - Parameter key: 16 bytes (`k0`, `k1` little-endian); a shorter key is padded with
    ///   zeros, a longer one cut.
    package init(key: [UInt8]) {
        let padded = Array(key.prefix(16)) + Array(repeating: 0, count: max(0, 16 - key.count))
        let k0 = SipHash24.word(padded, 0), k1 = SipHash24.word(padded, 8)
        v0 = k0 ^ 0x736f_6d65_7073_6575
        v1 = k1 ^ 0x646f_7261_6e64_6f6d
        v2 = k0 ^ 0x6c79_6765_6e65_7261
        v3 = k1 ^ 0x7465_6462_7974_6573
    }

    private static func word(_ bytes: [UInt8], _ start: Int) -> UInt64 {
        (0..<8).reduce(0) { $0 | UInt64(bytes[start + $1]) << (8 * UInt64($1)) }
    }

    private mutating func round() {
        v0 &+= v1; v1 = v1.rotatedLeft(13); v1 ^= v0; v0 = v0.rotatedLeft(32)
        v2 &+= v3; v3 = v3.rotatedLeft(16); v3 ^= v2
        v0 &+= v3; v3 = v3.rotatedLeft(21); v3 ^= v0
        v2 &+= v1; v1 = v1.rotatedLeft(17); v1 ^= v2; v2 = v2.rotatedLeft(32)
    }

    private mutating func compress(_ message: UInt64) {
        v3 ^= message
        round()
        round()
        v0 ^= message
    }

    /// Adds `bytes` to the message.
    package mutating func combine(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            tail |= UInt64(byte) << (8 * UInt64(count % 8))
            count += 1
            if count % 8 == 0 {
                compress(tail)
                tail = 0
            }
        }
    }

    /// The hash of everything combined.
    package func finalize() -> UInt64 {
        var copy = self
        copy.compress(tail | UInt64(truncatingIfNeeded: count) << 56)
        copy.v2 ^= 0xff
        for _ in 0..<4 { copy.round() }
        return copy.v0 ^ copy.v1 ^ copy.v2 ^ copy.v3
    }

    /// The hash of `message` under `key`.
    package static func hash(_ message: some Sequence<UInt8>, key: [UInt8]) -> UInt64 {
        var hasher = SipHash24(key: key)
        hasher.combine(message)
        return hasher.finalize()
    }
}

extension UInt64 {
    fileprivate func rotatedLeft(_ count: UInt64) -> UInt64 { self << count | self >> (64 - count) }
}

/// The opaque identifier of the network a path is on (``NetworkPath/network``): a keyed hash
/// of what names the network without traffic of ours, printed as 16 hex digits, so a log
/// carries no MAC address.
///
/// The Linux monitor hashes its primary gateways' link-layer addresses; the desktop layer
/// can mix in what the system knows of the connection (NetworkManager's active connection
/// UUID) with ``combining(_:with:key:)``. Pure: the key is passed in (SECURITY.md says where
/// it comes from).
package enum NetworkIdentity {
    /// The key used when the machine ID cannot be read: identifiers stay stable and hide
    /// the addresses from a casual reader, but any host computes the same ones.
    package static let fixedKey: [UInt8] = Array("netpath.network.".utf8)

    /// A key derived from the machine ID's text (`/etc/machine-id`, 32 hex digits), as
    /// systemd derives its per-application keys: the ID's 128 bits hashed under an
    /// application-specific key, twice, for 16 bytes. `nil` for text that is not one.
    package static func key(machineID text: [UInt8]) -> [UInt8]? {
        let digits = text.prefix { $0 != UInt8(ascii: "\n") }
        guard digits.count == 32 else { return nil }
        var id: [UInt8] = []
        var high: UInt8?
        for digit in digits {
            let value: UInt8
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = digit - UInt8(ascii: "a") + 10
            default: return nil
            }
            if let first = high { id.append(first << 4 | value); high = nil } else { high = value }
        }
        guard id.contains(where: { $0 != 0 }) else { return nil }
        var key: [UInt8] = []
        for half in [UInt8(1), 2] {
            withUnsafeBytes(of: SipHash24.hash(id + [half], key: fixedKey).littleEndian) { key += $0 }
        }
        return key
    }

    /// The identifier of a network whose gateways have these link-layer addresses (their
    /// order does not matter); `nil` when there is none.
    package static func identifier(linkLayerAddresses: [[UInt8]], key: [UInt8]) -> String? {
        // Each address once, in byte order: a gateway or two, so a list (a `Set` of arrays
        // costs its hashing and, once per process, its type's set-up).
        var distinct: [[UInt8]] = []
        for address in linkLayerAddresses where !address.isEmpty && !distinct.contains(address) { distinct.append(address) }
        guard !distinct.isEmpty else { return nil }
        distinct.sort { $0.lexicographicallyPrecedes($1) }
        var hasher = SipHash24(key: key)
        hasher.combine(Array("lladdr".utf8))
        for address in distinct {
            hasher.combine([UInt8(address.count)])
            hasher.combine(address)
        }
        return hex(hasher.finalize())
    }

    /// `network` with `component` mixed in (NetworkManager's active connection UUID, for
    /// one): another component, another identifier. With no `network` (no gateway known
    /// yet), the component alone names it.
    package static func combining(_ network: String?, with component: String, key: [UInt8]) -> String {
        var hasher = SipHash24(key: key)
        hasher.combine(Array("combine".utf8))
        hasher.combine(Array((network ?? "").utf8) + [0])
        hasher.combine(Array(component.utf8))
        return hex(hasher.finalize())
    }

    /// 16 lowercase hex digits.
    package static func hex(_ value: UInt64) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: (0..<16).map { digits[Int(value >> (60 - 4 * UInt64($0)) & 0xF)] }, as: UTF8.self)
    }
}
