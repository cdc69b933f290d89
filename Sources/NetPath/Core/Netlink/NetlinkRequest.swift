/// Netlink messages being written, as iproute2's `addattr_l` writes them: each message's
/// `nlmsg_len` and each attribute's `rta_len` are computed, and attributes are padded to 4
/// bytes (`RTA_ALIGN`). Several messages may follow each other in one datagram. Pure.
package struct NetlinkRequest {
    /// The datagram so far.
    package private(set) var bytes: [UInt8] = []
    /// Where the open message begins.
    private var start = 0

    package init() {}

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
        bytes.append(contentsOf: repeatElement(0, count: (4 - payload.count % 4) % 4))
    }

    /// Appends an attribute holding an integer in host byte order.
    package mutating func attribute<T: FixedWidthInteger>(_ type: UInt16, _ value: T) {
        withUnsafeBytes(of: value) { attribute(type, Array($0)) }
    }

    /// Closes the open message: writes its length into its header.
    package mutating func end() {
        let length = UInt32(bytes.count - start)
        withUnsafeBytes(of: length) { bytes.replaceSubrange(start..<(start + 4), with: $0) }
    }
}
