/// A DNS query and the parts of an answer the connectivity check needs (RFC 1035): the
/// check resolves names itself, over UDP (and TCP when an answer is truncated) from sockets
/// bound to the path's interface and made in the monitored namespace, with its own timeout.
/// Pure and bounds-checked.
package enum DNSMessage {
    package static let typeA: UInt16 = 1
    package static let typeAAAA: UInt16 = 28
    /// The EDNS0 pseudo-record's type (RFC 6891).
    package static let typeOPT: UInt16 = 41
    /// The UDP payload size a query offers (EDNS0): the size DNS Flag Day 2020 settled on,
    /// under any path's MTU, so an answer is never fragmented.
    package static let udpPayloadSize: UInt16 = 1232
    /// `NOERROR` and `NXDOMAIN` (RFC 1035 §4.1.1).
    package static let rcodeNoError: UInt8 = 0
    package static let rcodeFormatError: UInt8 = 1
    package static let rcodeNameError: UInt8 = 3

    package enum Answer: Equatable {
        /// The addresses of the answer section (CNAME chains are followed by the server).
        case addresses([IPAddress])
        /// The name does not exist (NXDOMAIN), has no address of the type (NOERROR), or the
        /// server failed (any other code: SERVFAIL, REFUSED…).
        case noAddress(rcode: UInt8)
        /// The answer did not fit in the datagram (TC): ask again over TCP.
        case truncated
        /// Not an answer to this query, or malformed.
        case invalid

        /// Whether the answer settles the question, as glibc's resolver takes it: addresses,
        /// NXDOMAIN or no data are the name's truth, and no other server is asked; a server's
        /// failure (SERVFAIL, REFUSED, NOTIMP, FORMERR), a truncated or invalid answer is not.
        package var isDefinitive: Bool {
            switch self {
            case .addresses: true
            case .noAddress(let rcode): rcode == DNSMessage.rcodeNoError || rcode == DNSMessage.rcodeNameError
            case .truncated, .invalid: false
            }
        }
    }

    /// A recursive query for `name`'s records of `type`, with an EDNS0 record offering
    /// ``udpPayloadSize`` (RFC 6891); `nil` for a name DNS cannot carry.
    package static func query(id: UInt16, name: String, type: UInt16) -> [UInt8]? {
        var bytes: [UInt8] = [UInt8(id >> 8), UInt8(id & 0xFF), 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 1]
        let trimmed = name.hasSuffix(".") ? String(name.dropLast()) : name
        guard !trimmed.isEmpty, trimmed.utf8.count <= 253 else { return nil }
        for label in trimmed.split(separator: ".", omittingEmptySubsequences: false) {
            let utf8 = Array(label.utf8)
            guard !utf8.isEmpty, utf8.count <= 63 else { return nil }
            bytes.append(UInt8(utf8.count))
            bytes.append(contentsOf: utf8)
        }
        bytes += [0, UInt8(type >> 8), UInt8(type & 0xFF), 0, 1]
        // OPT: the root name, its type, the payload size as its class, then extended code,
        // version 0, no flags (TTL) and no options.
        bytes += [0, UInt8(typeOPT >> 8), UInt8(typeOPT & 0xFF), UInt8(udpPayloadSize >> 8), UInt8(udpPayloadSize & 0xFF),
                  0, 0, 0, 0, 0, 0]
        return bytes
    }

    /// The same query without its EDNS0 record: what glibc sends again to a server that
    /// answered FORMERR (an old server or middlebox that does not know OPT, RFC 6891 §7).
    package static func withoutEDNS(_ query: [UInt8]) -> [UInt8] {
        guard query.count >= 12 + 11, query[10] == 0, query[11] == 1 else { return query }
        var bytes = Array(query.dropLast(11))
        bytes[11] = 0
        return bytes
    }

    /// Whether `query` carries the EDNS0 record ``query(id:name:type:)`` adds.
    package static func hasEDNS(_ query: [UInt8]) -> Bool {
        query.count >= 12 + 11 && query[11] == 1 && query[query.count - 11] == 0
            && query[query.count - 10] == UInt8(typeOPT >> 8) && query[query.count - 9] == UInt8(typeOPT & 0xFF)
    }

    /// A response code's name, as `dig` shows it (RFC 1035 §4.1.1, RFC 6895).
    package static func rcodeName(_ rcode: UInt8) -> String {
        switch rcode {
        case 0: "NOERROR"
        case 1: "FORMERR"
        case 2: "SERVFAIL"
        case 3: "NXDOMAIN"
        case 4: "NOTIMP"
        case 5: "REFUSED"
        default: "rcode \(rcode)"
        }
    }

    /// A message as TCP carries it: after its length in two bytes (RFC 1035 §4.2.2).
    package static func framed(_ message: [UInt8]) -> [UInt8] {
        [UInt8(truncatingIfNeeded: message.count >> 8), UInt8(truncatingIfNeeded: message.count)] + message
    }

    /// The first message in `stream` (the bytes read from a TCP connection so far), or
    /// `nil` while it is incomplete.
    package static func unframed(_ stream: [UInt8]) -> [UInt8]? {
        guard stream.count >= 2 else { return nil }
        let length = Int(stream[0]) << 8 | Int(stream[1])
        return stream.count >= 2 + length ? Array(stream[2..<(2 + length)]) : nil
    }

    /// Reads an answer to the query with `id` for records of `type`.
    package static func parse(_ bytes: [UInt8], id: UInt16, type: UInt16) -> Answer {
        guard bytes.count >= 12 else { return .invalid }
        func u16(_ at: Int) -> UInt16? {
            at + 1 < bytes.count ? UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1]) : nil
        }
        guard u16(0) == id, bytes[2] & 0x80 != 0 else { return .invalid }  // QR: a response
        if bytes[2] & 0x02 != 0 { return .truncated }  // TC
        let rcode = bytes[3] & 0x0F
        guard let questions = u16(4), let answers = u16(6) else { return .invalid }
        var offset = 12
        /// Skips a possibly compressed name; `nil` when it runs off the end.
        func skipName(_ start: Int) -> Int? {
            var at = start
            while at < bytes.count {
                let length = bytes[at]
                if length == 0 { return at + 1 }
                if length & 0xC0 == 0xC0 { return at + 2 <= bytes.count ? at + 2 : nil }
                guard length & 0xC0 == 0 else { return nil }
                at += 1 + Int(length)
            }
            return nil
        }
        for _ in 0..<questions {
            guard let end = skipName(offset), end + 4 <= bytes.count else { return .invalid }
            offset = end + 4
        }
        var addresses: [IPAddress] = []
        for _ in 0..<answers {
            guard let end = skipName(offset), end + 10 <= bytes.count,
                  let recordType = u16(end), let length = u16(end + 8) else { return .invalid }
            let data = end + 10
            guard data + Int(length) <= bytes.count else { return .invalid }
            if recordType == type {
                let family = type == typeA ? IPAddress.inet : IPAddress.inet6
                bytes[data..<(data + Int(length))].withUnsafeBytes { raw in
                    if let address = IPAddress(family: family, bytes: raw) { addresses.append(address) }
                }
            }
            offset = data + Int(length)
        }
        return addresses.isEmpty ? .noAddress(rcode: rcode) : .addresses(addresses)
    }
}
