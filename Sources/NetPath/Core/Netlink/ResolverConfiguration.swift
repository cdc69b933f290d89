/// SPEC 2.6: which resolver files the process sees, and whether they name a server.
package struct ResolverConfiguration: Sendable {
    /// The systemd-resolved stub addresses; behind them the upstream servers count.
    package static let stubServers: [String] = ["127.0.0.53", "127.0.0.54"]
    package static let systemdUpstream = "/run/systemd/resolve/resolv.conf"

    /// Resolver files in order of preference: the first that exists is the one in use.
    package var candidates: [String]
    /// The file with systemd-resolved's upstream servers.
    package var upstreamFile: String = ResolverConfiguration.systemdUpstream

    /// For a named namespace, `/etc/netns/NAME/resolv.conf` while it exists (the `ip netns
    /// exec` convention); for a process's namespace (`/proc/PID/ns/net`, a container's),
    /// that process's own `/etc/resolv.conf` (`/proc/PID/root/etc/resolv.conf`, and its
    /// systemd-resolved upstream file the same way); else `/etc/resolv.conf`.
    package static func forNamespace(_ namespace: NetworkNamespace?) -> ResolverConfiguration {
        if let root = namespace.flatMap(processRoot) {
            return ResolverConfiguration(candidates: [root + "/etc/resolv.conf"], upstreamFile: root + systemdUpstream)
        }
        var candidates = ["/etc/resolv.conf"]
        if let name = namespace?.name { candidates.insert("/etc/netns/\(name)/resolv.conf", at: 0) }
        return ResolverConfiguration(candidates: candidates)
    }

    /// `/proc/PID/root` for a namespace file `/proc/PID/ns/net`, else `nil`.
    package static func processRoot(of namespace: NetworkNamespace) -> String? {
        let parts = namespace.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "proc", parts[3] == "ns", parts[4] == "net",
              !parts[2].isEmpty, parts[2].allSatisfy(\.isASCII), parts[2].allSatisfy(\.isNumber) || parts[2] == "self"
        else { return nil }
        return "/proc/\(parts[2])/root"
    }

    /// The `nameserver` addresses of a resolv.conf text, in order, as glibc's resolver takes
    /// them (`res_vinit_1` in resolv/res_init.c), in their canonical text:
    ///
    /// - the keyword counts only at the very start of a line and only when a space or a tab
    ///   follows it (so a line with a leading blank, or a comment, names no server);
    /// - the address starts after the blanks and ends at the next space, tab or newline (or
    ///   NUL: glibc reads the line as a C string); anything after it is ignored;
    /// - it must be a whole `inet_aton` address (`10.53` is 10.0.0.53) or else, cut at a `%`
    ///   (its scope, which is dropped here), a whole `inet_pton` IPv6 address. A trailing
    ///   CR is part of the address, which makes it invalid, as in glibc;
    /// - every line of the text counts, however long it is (glibc keeps the first three
    ///   servers; every one is returned here).
    package static func nameservers(in bytes: [UInt8]) -> [String] {
        var servers: [String] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: ASCII.newline) ?? bytes.endIndex
            if let server = nameserver(onLine: bytes[start..<end]) { servers.append(server.description) }
            start = end + 1
        }
        return servers
    }

    /// The server a `nameserver` line names, or `nil` when the line names none.
    package static func nameserver(onLine line: ArraySlice<UInt8>) -> IPAddress? {
        guard line.starts(with: ASCII.nameserver) else { return nil }
        var index = line.startIndex + ASCII.nameserver.count
        guard index < line.endIndex, ASCII.isBlank(line[index]) else { return nil }
        while index < line.endIndex && ASCII.isBlank(line[index]) { index += 1 }
        let end = line[index...].firstIndex { ASCII.isBlank($0) || $0 == 0 } ?? line.endIndex
        let text = line[index..<end]
        if let address = inetAtonExact(text) { return address }
        return inetPton6(text[..<(text.firstIndex(of: ASCII.percent) ?? end)])
    }

    /// `text` as glibc's `__inet_aton_exact` takes it, or `nil`: one to four parts
    /// separated by dots, each decimal, `0x` hexadecimal or `0` octal (as `strtoul` with
    /// base 0 reads them, starting with a digit); every part but the last is one byte, the
    /// last fills the bytes left (`1.2.65535` is 1.2.255.255, `4294967295` is
    /// 255.255.255.255); nothing may follow.
    package static func inetAtonExact(_ text: ArraySlice<UInt8>) -> IPAddress? {
        var leading: [UInt64] = []
        var index = text.startIndex
        var value: UInt64 = 0
        while true {
            guard index < text.endIndex, ASCII.digitValue(text[index], radix: 10) != nil else { return nil }
            var radix: UInt64 = 10
            if text[index] == ASCII.zero {
                radix = 8
                // `strtoul` takes the 0x only when a hexadecimal digit follows it.
                if index + 2 < text.endIndex, text[index + 1] | 0x20 == ASCII.lowercaseX,
                   ASCII.digitValue(text[index + 2], radix: 16) != nil {
                    radix = 16
                    index += 2
                }
            }
            value = 0
            while index < text.endIndex, let digit = ASCII.digitValue(text[index], radix: radix) {
                // Saturated: any value above 32 bits is refused, as glibc refuses it.
                value = min(value * radix + digit, 1 << 33)
                index += 1
            }
            guard value <= 0xFFFF_FFFF else { return nil }
            guard index < text.endIndex, text[index] == ASCII.dot else { break }
            guard leading.count < 3, value <= 0xFF else { return nil }
            leading.append(value)
            index += 1
        }
        let limits: [UInt64] = [0xFFFF_FFFF, 0xFF_FFFF, 0xFFFF, 0xFF]
        guard index == text.endIndex, value <= limits[leading.count] else { return nil }
        var word: UInt64 = value
        for (position, byte) in leading.enumerated() { word |= byte << (24 - 8 * UInt64(position)) }
        return IPAddress(family: IPAddress.inet, high: word << 32, low: 0)
    }

    /// `text` as glibc's `inet_pton(AF_INET6, …)` takes it, or `nil`: eight groups of one to
    /// four hexadecimal digits, one `::` for a run of zero groups, optionally a dotted-quad
    /// tail in the last 32 bits (decimal, no leading zeros); nothing may follow.
    package static func inetPton6(_ text: ArraySlice<UInt8>) -> IPAddress? {
        var bytes = [UInt8](repeating: 0, count: 16)
        var filled = 0
        var gap: Int?
        var index = text.startIndex
        guard index < text.endIndex else { return nil }
        // A leading colon must be half of a `::`.
        if text[index] == ASCII.colon {
            index += 1
            guard index < text.endIndex, text[index] == ASCII.colon else { return nil }
        }
        var token = index
        var digits = 0
        var value = 0
        while index < text.endIndex {
            let character = text[index]
            index += 1
            if let digit = ASCII.digitValue(character, radix: 16) {
                guard digits < 4 else { return nil }
                value = value << 4 | Int(digit)
                digits += 1
            } else if character == ASCII.colon {
                token = index
                if digits == 0 {
                    guard gap == nil else { return nil }
                    gap = filled
                    continue
                }
                guard index < text.endIndex, filled + 2 <= 16 else { return nil }
                bytes[filled] = UInt8(value >> 8)
                bytes[filled + 1] = UInt8(value & 0xFF)
                filled += 2
                digits = 0
                value = 0
            } else if character == ASCII.dot, filled + 4 <= 16, let quad = inetPton4(text[token...]) {
                bytes.replaceSubrange(filled..<(filled + 4), with: quad)
                filled += 4
                digits = 0
                break
            } else {
                return nil
            }
        }
        if digits > 0 {
            guard filled + 2 <= 16 else { return nil }
            bytes[filled] = UInt8(value >> 8)
            bytes[filled + 1] = UInt8(value & 0xFF)
            filled += 2
        }
        if let gap {
            // The `::` must stand for at least one group.
            guard filled < 16 else { return nil }
            let tail = Array(bytes[gap..<filled])
            bytes.replaceSubrange(gap..<16, with: repeatElement(0, count: 16 - gap))
            bytes.replaceSubrange((16 - tail.count)..<16, with: tail)
            filled = 16
        }
        guard filled == 16 else { return nil }
        return bytes.withUnsafeBytes { IPAddress(family: IPAddress.inet6, bytes: $0) }
    }

    /// A dotted quad as glibc's `inet_pton4` takes it (four decimal bytes, no leading zeros).
    private static func inetPton4(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        var quad: [UInt8] = []
        var current: Int?
        for character in text {
            if let digit = ASCII.digitValue(character, radix: 10) {
                guard current != 0 else { return nil }
                let next = (current ?? 0) * 10 + Int(digit)
                guard next <= 255 else { return nil }
                current = next
            } else if character == ASCII.dot, let byte = current, quad.count < 3 {
                quad.append(UInt8(byte))
                current = nil
            } else {
                return nil
            }
        }
        guard let last = current, quad.count == 3 else { return nil }
        return quad + [UInt8(last)]
    }

    /// Whether a server is configured, reading files with `read` (`nil`: it does not exist
    /// or cannot be read, and the next candidate is tried).
    package func hasServer(read: (String) -> [UInt8]?) -> Bool {
        !servers(read: read).isEmpty
    }

    /// The servers in use: those of the first resolver file that exists, or behind the
    /// systemd-resolved stub, its upstream servers.
    package func servers(read: (String) -> [UInt8]?) -> [String] {
        guard let bytes = candidates.lazy.compactMap(read).first else { return [] }
        let servers = ResolverConfiguration.nameservers(in: bytes)
        if !servers.isEmpty && servers.allSatisfy(ResolverConfiguration.stubServers.contains) {
            guard let upstream = read(upstreamFile) else { return [] }
            return ResolverConfiguration.nameservers(in: upstream)
        }
        return servers
    }

    /// The files whose changes can change the answer.
    package var watchedFiles: [String] { candidates + [upstreamFile] }

    package static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}

/// The bytes of resolv.conf's syntax.
private enum ASCII {
    package static let newline = UInt8(ascii: "\n")
    package static let space = UInt8(ascii: " ")
    package static let tab = UInt8(ascii: "\t")
    package static let dot = UInt8(ascii: ".")
    package static let colon = UInt8(ascii: ":")
    package static let percent = UInt8(ascii: "%")
    package static let zero = UInt8(ascii: "0")
    package static let lowercaseX = UInt8(ascii: "x")
    package static let nameserver = Array("nameserver".utf8)

    package static func isBlank(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    /// The value of `byte` as a digit in `radix` (8, 10 or 16), or `nil`.
    package static func digitValue(_ byte: UInt8, radix: UInt64) -> UInt64? {
        let value: UInt64
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): value = UInt64(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): value = UInt64(byte - UInt8(ascii: "a")) + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): value = UInt64(byte - UInt8(ascii: "A")) + 10
        default: return nil
        }
        return value < radix ? value : nil
    }
}
