// libFuzzer target: a UDP datagram from the configured DNS server (or anyone who can
// spoof one) → DNSMessage.parse, for A and AAAA, as the connectivity check reads it, and
// an AAAA answer through RFC 7050's NAT64 prefix discovery (NAT64Prefix.discover); the
// same bytes as a TCP stream (DNSMessage.unframed, then parse), and framing round trips.
//
// The parser checks the ID before anything else; the harness answers to the ID the input
// carries, so every input reaches the question and answer sections. The input also goes
// through DNSMessage.query as a host name (names come from user-given URLs).

@testable import NetPathCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let id = size >= 2 ? UInt16(bytes[0]) << 8 | UInt16(bytes[1]) : 0
    for type in [DNSMessage.typeA, DNSMessage.typeAAAA] {
        if case .addresses(let list) = DNSMessage.parse(bytes, id: id, type: type) {
            for address in list where address.family != (type == DNSMessage.typeA ? IPAddress.inet : IPAddress.inet6) {
                fatalError("an address of the wrong family")
            }
            _ = list.map(\.description)
            // RFC 7050: a prefix found in the answer must give back the well-known
            // addresses it was found from, and be found again from them.
            if type == DNSMessage.typeAAAA, let prefix = NAT64Prefix.discover(in: list) {
                guard NAT64Prefix.lengths.contains(prefix.length) else { fatalError("a prefix of length \(prefix.length)") }
                let wellKnown = prefix.synthesize(IPAddress(family: IPAddress.inet, high: UInt64(NAT64Prefix.wellKnownAddresses[0]) << 32, low: 0))
                guard NAT64Prefix.discover(in: [wellKnown]) != nil else { fatalError("\(prefix) does not find itself") }
                _ = prefix.description
            }
        }
        _ = DNSMessage.parse(bytes, id: id &+ 1, type: type)
    }
    if let message = DNSMessage.unframed(bytes) {
        guard message.count <= bytes.count - 2 else { fatalError("a message longer than its stream") }
        _ = DNSMessage.parse(message, id: message.count >= 2 ? UInt16(message[0]) << 8 | UInt16(message[1]) : 0, type: DNSMessage.typeA)
    }
    if bytes.count <= 0xFFFF, DNSMessage.unframed(DNSMessage.framed(bytes)) != bytes { fatalError("framing does not round-trip") }
    // Header, 253-byte name encoded, type and class, the EDNS0 record.
    if let query = DNSMessage.query(id: id, name: String(decoding: bytes, as: UTF8.self), type: DNSMessage.typeA),
       query.count > 12 + 255 + 4 + 11 {
        fatalError("a query longer than a name can be")
    }
    return 0
}
