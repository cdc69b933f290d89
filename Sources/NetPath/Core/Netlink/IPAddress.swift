/// An IPv4 or IPv6 address held inline (no heap allocation), as the kernel sends it.
package struct IPAddress: Hashable, Sendable, Comparable {
    /// `AF_INET` (2) or `AF_INET6` (10).
    package var family: UInt8
    /// The address bytes in network order, IPv4 in the first four bytes of `high`.
    package var high: UInt64
    package var low: UInt64

    package static let inet: UInt8 = 2
    package static let inet6: UInt8 = 10

    /// Reads an address of `family` from `bytes`; `nil` when the length does not match.
    package init?(family: UInt8, bytes: UnsafeRawBufferPointer) {
        let expected = family == IPAddress.inet ? 4 : family == IPAddress.inet6 ? 16 : -1
        guard bytes.count == expected else { return nil }
        self.family = family
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (offset, byte) in bytes.enumerated() {
            if offset < 8 {
                high |= UInt64(byte) << (56 - 8 * UInt64(offset))
            } else {
                low |= UInt64(byte) << (56 - 8 * UInt64(offset - 8))
            }
        }
        self.high = high
        self.low = low
    }

    /// The address in network order: 4 bytes for IPv4, 16 for IPv6 (what
    /// ``init(family:bytes:)`` reads back).
    package var bytes: [UInt8] {
        (0..<(family == IPAddress.inet ? 4 : 16)).map { index in
            UInt8(truncatingIfNeeded: (index < 8 ? high : low) >> (56 - 8 * UInt64(index % 8)))
        }
    }

    /// `0.0.0.0` or `::`: what a socket reports as its source when it has none.
    package var isUnspecified: Bool { high == 0 && low == 0 }

    package init(family: UInt8, high: UInt64, low: UInt64) {
        self.family = family
        self.high = high
        self.low = low
    }

    /// Parses dotted-quad IPv4 or RFC 4291 IPv6 text; `nil` when it is neither.
    package init?(_ text: String) {
        if text.contains(":") {
            guard let value = IPAddress.parseIPv6(text) else { return nil }
            self = value
        } else {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 4 else { return nil }
            var value: UInt64 = 0
            for part in parts {
                guard !part.isEmpty, part.count <= 3, part.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let byte = UInt8(part) else { return nil }
                value = value << 8 | UInt64(byte)
            }
            self.init(family: IPAddress.inet, high: value << 32, low: 0)
        }
    }

    private static func parseIPv6(_ text: String) -> IPAddress? {
        var text = Substring(text)
        if let percent = text.firstIndex(of: "%") { text = text[..<percent] }  // zone id
        let halves = text.components(separatedByString: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ part: Substring) -> [UInt16]? {
            if part.isEmpty { return [] }
            var result: [UInt16] = []
            let pieces = part.split(separator: ":", omittingEmptySubsequences: false)
            for (position, group) in pieces.enumerated() {
                // An embedded IPv4 tail (`::ffff:192.0.2.1`) fills the last two groups.
                if position == pieces.count - 1, group.contains("."),
                   let v4 = IPAddress(String(group)), v4.family == IPAddress.inet {
                    result.append(UInt16(truncatingIfNeeded: v4.high >> 48))
                    result.append(UInt16(truncatingIfNeeded: v4.high >> 32))
                    continue
                }
                guard !group.isEmpty, group.count <= 4, group.allSatisfy(\.isHexDigit), let value = UInt16(group, radix: 16) else { return nil }
                result.append(value)
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        let tail = halves.count == 2 ? groups(halves[1]) : []
        guard let tail else { return nil }
        let total = head.count + tail.count
        if halves.count == 2 ? total > 7 : total != 8 { return nil }
        let all = head + Array(repeating: 0, count: 8 - total) + tail
        var high: UInt64 = 0
        var low: UInt64 = 0
        for (index, group) in all.enumerated() {
            if index < 4 { high = high << 16 | UInt64(group) } else { low = low << 16 | UInt64(group) }
        }
        return IPAddress(family: inet6, high: high, low: low)
    }

    /// `127.0.0.0/8` or `::1`.
    package var isLoopback: Bool {
        family == IPAddress.inet ? (high >> 56) == 127 : (high == 0 && low == 1)
    }

    /// IPv6 link-local (`fe80::/10`).
    package var isIPv6LinkLocal: Bool {
        family == IPAddress.inet6 && (high >> 54) == 0x3FA
    }

    /// Whether `address` lies in this prefix of `length` bits (a route's destination).
    package func contains(_ address: IPAddress, prefixLength length: UInt8) -> Bool {
        guard address.family == family else { return false }
        let bits = Int(length)
        func mask(_ count: Int) -> UInt64 { count <= 0 ? 0 : count >= 64 ? .max : ~(UInt64.max >> count) }
        let highMask = mask(bits), lowMask = mask(bits - 64)
        return (address.high ^ high) & highMask == 0 && (address.low ^ low) & lowMask == 0
    }

    package static func < (lhs: IPAddress, rhs: IPAddress) -> Bool {
        (lhs.family, lhs.high, lhs.low) < (rhs.family, rhs.high, rhs.low)
    }
}

extension IPAddress: CustomStringConvertible {
    /// The conventional text: dotted quad, or RFC 5952 IPv6 (longest zero run shortened).
    ///
    /// Written byte by byte into the string's own storage: interpolation and `joined` cost a
    /// one-shot `netpath status` a tenth of its instructions the first time (the run-time
    /// lookups behind them), and the path names its gateways with this on every change.
    package var description: String {
        String(unsafeUninitializedCapacity: 45) { text in
            var count = 0
            func put(_ byte: UInt8) {
                text[count] = byte
                count += 1
            }
            func decimal(_ value: UInt64) {
                if value >= 100 { put(0x30 + UInt8(value / 100)) }
                if value >= 10 { put(0x30 + UInt8(value / 10 % 10)) }
                put(0x30 + UInt8(value % 10))
            }
            func quad(_ value: UInt64) {
                for shift in [UInt64(24), 16, 8, 0] {
                    if shift != 24 { put(0x2E) }
                    decimal(value >> shift & 0xFF)
                }
            }
            if family == IPAddress.inet {
                quad(high >> 32)
                return count
            }
            func hex(_ value: UInt16) {
                var started = false
                for shift in [UInt16(12), 8, 4, 0] {
                    let digit = UInt8(truncatingIfNeeded: value >> shift & 0xF)
                    guard started || digit != 0 || shift == 0 else { continue }
                    started = true
                    put(digit < 10 ? 0x30 + digit : 0x57 + digit)
                }
            }
            let (bestStart, bestLength) = longestZeroRun
            // IPv4-mapped addresses keep their dotted tail.
            if bestStart == 0 && bestLength == 5 && group(5) == 0xFFFF {
                for byte in "::ffff:".utf8 { put(byte) }
                quad(low & 0xFFFF_FFFF)
                return count
            }
            var index = 0
            while index < 8 {
                if index == bestStart {
                    put(0x3A)
                    put(0x3A)
                    index += bestLength
                    continue
                }
                if index > 0 && index != bestStart + bestLength { put(0x3A) }
                hex(group(index))
                index += 1
            }
            return count
        }
    }

    /// IPv6 group `index` (0 to 7).
    private func group(_ index: Int) -> UInt16 {
        UInt16(truncatingIfNeeded: (index < 4 ? high : low) >> (48 - 16 * UInt64(index % 4)))
    }

    /// The longest run of two or more zero groups (RFC 5952's `::`), the first one on a tie;
    /// `start` is -1 when there is none.
    private var longestZeroRun: (start: Int, length: Int) {
        var best = (start: -1, length: 0), runStart = -1
        for index in 0...8 {
            if index < 8 && group(index) == 0 {
                if runStart < 0 { runStart = index }
            } else if runStart >= 0 {
                if index - runStart > best.length && index - runStart >= 2 { best = (runStart, index - runStart) }
                runStart = -1
            }
        }
        return best
    }
}

extension Substring {
    /// Splits on a multi-character separator (Foundation-free).
    fileprivate func components(separatedByString separator: String) -> [Substring] {
        var parts: [Substring] = []
        var rest = self[...]
        while let range = rest.firstRange(of: separator) {
            parts.append(rest[..<range.lowerBound])
            rest = rest[range.upperBound...]
        }
        parts.append(rest)
        return parts
    }
}
