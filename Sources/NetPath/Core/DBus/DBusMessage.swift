/// Why bytes are not a D-Bus message, or why a message cannot be written.
package struct DBusWireError: Error, Hashable, Sendable, CustomStringConvertible {
    package enum Reason: String, Sendable {
        /// The bytes end inside a value, or a length runs past its container.
        case truncated
        /// The message, an array or a nesting is over its limit.
        case tooLong, tooDeep
        /// The fixed header: byte order, version, serial, or unknown message type.
        case badHeader, unknownType
        /// A header field of the wrong type, twice, or a required one missing.
        case badField
        case badPadding, badBoolean, badString, badObjectPath, badSignature, badName
        /// A value that does not have the signature its container says.
        case typeMismatch
        /// Bytes left after the last value of a body or an array.
        case trailingBytes
    }

    package var reason: Reason
    /// Where in the message it was found (0 when writing).
    package var offset: Int

    package init(_ reason: Reason, at offset: Int = 0) {
        self.reason = reason
        self.offset = offset
    }

    package var description: String { "\(reason.rawValue) at byte \(offset)" }
}

/// A D-Bus message: the fixed header, the header fields this client uses, and the body.
/// Written little-endian; read in either byte order, bounds-checked, so that no input traps.
package struct DBusMessage: Hashable, Sendable {
    package enum MessageType: UInt8, Sendable {
        case methodCall = 1, methodReturn = 2, error = 3, signal = 4
    }

    package struct Flags: OptionSet, Hashable, Sendable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        package static let noReplyExpected = Flags(rawValue: 0x1)
        package static let noAutoStart = Flags(rawValue: 0x2)
        package static let allowInteractiveAuthorization = Flags(rawValue: 0x4)
    }

    /// The header field codes (the spec's `PATH` … `UNIX_FDS`).
    package enum HeaderField: UInt8, Sendable {
        case path = 1, interface, member, errorName, replySerial, destination, sender, signature, unixFDs
    }

    /// The spec's limits: a message, and an array within it.
    package static let maximumLength = 1 << 27
    package static let maximumArrayLength = 1 << 26
    /// What a client accepts unless told otherwise: far above any NetworkManager or portal reply.
    package static let defaultMaximumLength = 1 << 20
    /// How deeply containers (arrays, structures, dict entries, variants) nest in a message.
    package static let maximumNesting = 64

    // Made with the memberwise initializer (in the module) or the builders of the calls a
    // client makes (``methodCall(destination:path:interface:member:body:)``).
    package var type: MessageType
    package var flags: Flags = []
    /// Never 0 on the wire; the connection sets it.
    package var serial: UInt32 = 0
    package var path: String?
    package var interface: String?
    package var member: String?
    package var errorName: String?
    package var replySerial: UInt32?
    package var destination: String?
    package var sender: String?
    package var unixFDs: UInt32?
    package var body: [DBusValue] = []

    /// The signature of the body: its values' signatures in order.
    package var bodySignature: String { body.map(\.signature).joined() }

    // MARK: Writing

    /// The message's bytes, little-endian.
    /// - Throws: ``DBusWireError`` when a value is not what its signature says, a string or
    ///   name is invalid, a required header field is missing, or the message is too long.
    package func encoded() throws -> [UInt8] {
        guard serial != 0 else { throw DBusWireError(.badHeader) }
        try checkFields(at: 0)
        var bodyWriter = Writer()
        for value in body { try bodyWriter.write(value) }
        var fields: [DBusValue] = []
        func add(_ field: HeaderField, _ value: DBusValue?) {
            if let value { fields.append(.structure([.byte(field.rawValue), .variant(value)])) }
        }
        add(.path, path.map(DBusValue.objectPath))
        add(.interface, interface.map(DBusValue.string))
        add(.member, member.map(DBusValue.string))
        add(.errorName, errorName.map(DBusValue.string))
        add(.replySerial, replySerial.map(DBusValue.uint32))
        add(.destination, destination.map(DBusValue.string))
        add(.sender, sender.map(DBusValue.string))
        add(.signature, body.isEmpty ? nil : .signature(bodySignature))
        add(.unixFDs, unixFDs.map(DBusValue.uint32))
        var writer = Writer()
        writer.bytes = [UInt8(ascii: "l"), type.rawValue, flags.rawValue, 1]
        writer.integer(UInt64(bodyWriter.bytes.count), size: 4)
        writer.integer(UInt64(serial), size: 4)
        try writer.write(.array(elementSignature: "(yv)", fields))
        writer.pad(to: 8)
        guard writer.bytes.count + bodyWriter.bytes.count <= DBusMessage.maximumLength else { throw DBusWireError(.tooLong) }
        return writer.bytes + bodyWriter.bytes
    }

    /// Appends values in the wire format; offsets count from the start of the message (the
    /// body starts on an 8-byte boundary, so a body written alone aligns the same).
    private struct Writer {
        var bytes: [UInt8] = []
        var depth = 0

        mutating func pad(to alignment: Int) {
            while bytes.count % alignment != 0 { bytes.append(0) }
        }

        mutating func integer(_ value: UInt64, size: Int) {
            pad(to: size)
            for index in 0..<size { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
        }

        mutating func text(_ text: String, lengthSize: Int) throws {
            let utf8 = Array(text.utf8)
            guard !utf8.contains(0) else { throw DBusWireError(.badString) }
            guard utf8.count < (lengthSize == 1 ? 256 : DBusMessage.maximumLength) else { throw DBusWireError(.tooLong) }
            integer(UInt64(utf8.count), size: lengthSize)
            bytes += utf8
            bytes.append(0)
        }

        mutating func write(_ value: DBusValue) throws {
            switch value {
            case .byte(let byte): integer(UInt64(byte), size: 1)
            case .boolean(let bool): integer(bool ? 1 : 0, size: 4)
            case .int16(let number): integer(UInt64(UInt16(bitPattern: number)), size: 2)
            case .uint16(let number): integer(UInt64(number), size: 2)
            case .int32(let number): integer(UInt64(UInt32(bitPattern: number)), size: 4)
            case .uint32(let number), .unixFD(let number): integer(UInt64(number), size: 4)
            case .int64(let number): integer(UInt64(bitPattern: number), size: 8)
            case .uint64(let number): integer(number, size: 8)
            case .double(let number): integer(number.bitPattern, size: 8)
            case .string(let text): try self.text(text, lengthSize: 4)
            case .objectPath(let path):
                guard DBusSignature.isObjectPath(path) else { throw DBusWireError(.badObjectPath) }
                try text(path, lengthSize: 4)
            case .signature(let signature):
                guard DBusSignature.parse(signature) != nil else { throw DBusWireError(.badSignature) }
                try text(signature, lengthSize: 1)
            case .array(let element, let items):
                guard let type = DBusSignature.single(element) else { throw DBusWireError(.badSignature) }
                let array = try beginArray(alignment: type.alignment)
                for item in items {
                    guard item.signature == element else { throw DBusWireError(.typeMismatch) }
                    try write(item)
                }
                try endArray(array)
            case .dictionary(let key, let valueType, let entries):
                guard DBusSignature.single(value.signature) != nil else { throw DBusWireError(.badSignature) }
                let array = try beginArray(alignment: 8)
                for entry in entries {
                    guard entry.key.signature == key, entry.value.signature == valueType else { throw DBusWireError(.typeMismatch) }
                    pad(to: 8)
                    try write(entry.key)
                    try write(entry.value)
                }
                try endArray(array)
            case .structure(let fields):
                guard !fields.isEmpty else { throw DBusWireError(.badSignature) }
                try enter()
                pad(to: 8)
                for field in fields { try write(field) }
                depth -= 1
            case .variant(let inner):
                let signature = inner.signature
                guard DBusSignature.single(signature) != nil else { throw DBusWireError(.badSignature) }
                try enter()
                try text(signature, lengthSize: 1)
                try write(inner)
                depth -= 1
            }
        }

        mutating func enter() throws {
            depth += 1
            guard depth <= DBusMessage.maximumNesting else { throw DBusWireError(.tooDeep) }
        }

        /// Enters an array: writes a length to fill in and the padding to its first element
        /// (there even when it has none); returns where the two are.
        mutating func beginArray(alignment: Int) throws -> (lengthAt: Int, start: Int) {
            try enter()
            integer(0, size: 4)
            let lengthAt = bytes.count - 4
            pad(to: alignment)
            return (lengthAt, bytes.count)
        }

        mutating func endArray(_ array: (lengthAt: Int, start: Int)) throws {
            depth -= 1
            let length = bytes.count - array.start
            guard length <= DBusMessage.maximumArrayLength else { throw DBusWireError(.tooLong) }
            for index in 0..<4 { bytes[array.lengthAt + index] = UInt8(truncatingIfNeeded: length >> (8 * index)) }
        }
    }

    /// The header fields each type needs (the spec's table), and the names' syntax.
    private func checkFields(at offset: Int) throws {
        let present: Bool = switch type {
        case .methodCall: path != nil && member != nil
        case .methodReturn: replySerial != nil
        case .error: errorName != nil && replySerial != nil
        case .signal: path != nil && interface != nil && member != nil
        }
        guard present else { throw DBusWireError(.badField, at: offset) }
        if let path, !DBusSignature.isObjectPath(path) { throw DBusWireError(.badObjectPath, at: offset) }
        let valid = [interface, errorName].allSatisfy { $0.map { DBusSignature.isName($0, elements: 2) } ?? true }
            && (member.map { DBusSignature.isName($0, elements: 1) } ?? true)
            && [destination, sender].allSatisfy { $0.map(DBusSignature.isBusName) ?? true }
        guard valid else { throw DBusWireError(.badName, at: offset) }
    }

    // MARK: Reading

    /// The length of the message that starts at `offset` in `buffer`: `nil` while its fixed
    /// header or its whole length has not arrived.
    /// - Parameters:
    ///   - maximumLength: the longest message accepted (at most the spec's 128 MiB).
    /// - Throws: ``DBusWireError`` when the fixed header is not D-Bus's or names a length
    ///   over the limit: the stream cannot be read further.
    package static func frameLength(in buffer: [UInt8], at offset: Int = 0,
                                    maximumLength: Int = defaultMaximumLength) throws -> Int? {
        guard offset >= 0, offset < buffer.count else { return nil }
        let bigEndian = buffer[offset] == UInt8(ascii: "B")
        guard bigEndian || buffer[offset] == UInt8(ascii: "l") else { throw DBusWireError(.badHeader, at: offset) }
        guard buffer.count - offset >= 16 else { return nil }
        guard buffer[offset + 3] == 1 else { throw DBusWireError(.badHeader, at: offset + 3) }
        // Lengths are compared before they become Ints, which may have 32 bits.
        func field(_ at: Int) -> UInt32 {
            (0..<4).reduce(0) { value, index in value << 8 | UInt32(buffer[offset + at + (bigEndian ? index : 3 - index)]) }
        }
        let limit = UInt32(clamping: min(maximumLength, DBusMessage.maximumLength))
        let bodyLength = field(4), fieldsLength = field(12)
        guard fieldsLength <= UInt32(maximumArrayLength), fieldsLength <= limit, bodyLength <= limit else {
            throw DBusWireError(.tooLong, at: offset + 4)
        }
        let total = ((16 + Int(fieldsLength) + 7) & ~7) + Int(bodyLength)
        guard total <= Int(limit) else { throw DBusWireError(.tooLong, at: offset + 4) }
        return buffer.count - offset >= total ? total : nil
    }

    /// Reads one whole message (exactly the bytes ``frameLength(in:at:maximumLength:)`` counts).
    /// - Throws: ``DBusWireError`` for anything the spec does not allow.
    package static func decode(_ bytes: [UInt8], maximumLength: Int = defaultMaximumLength) throws -> DBusMessage {
        guard let length = try frameLength(in: bytes, maximumLength: maximumLength) else { throw DBusWireError(.truncated) }
        guard length == bytes.count else { throw DBusWireError(.trailingBytes, at: length) }
        guard let type = MessageType(rawValue: bytes[1]) else { throw DBusWireError(.unknownType, at: 1) }
        var reader = Reader(bytes: bytes, bigEndian: bytes[0] == UInt8(ascii: "B"), position: 4)
        let bodyLength = try reader.integer(size: 4)
        var message = DBusMessage(type: type, flags: Flags(rawValue: bytes[2]), serial: UInt32(try reader.integer(size: 4)))
        guard message.serial != 0 else { throw DBusWireError(.badHeader, at: 8) }
        guard case .array(_, let fields) = try reader.value(of: .array(.structure([.byte, .variant]))) else {
            throw DBusWireError(.badField, at: 12)
        }
        var seen = Set<UInt8>()
        var signature = ""
        for case .structure(let pair) in fields {
            guard case .byte(let code) = pair.first, case .variant(let value) = pair.last else { continue }
            guard seen.insert(code).inserted else { throw DBusWireError(.badField, at: 12) }
            switch (HeaderField(rawValue: code), value) {
            case (.path, .objectPath(let path)): message.path = path
            case (.interface, .string(let name)): message.interface = name
            case (.member, .string(let name)): message.member = name
            case (.errorName, .string(let name)): message.errorName = name
            case (.replySerial, .uint32(let serial)) where serial != 0: message.replySerial = serial
            case (.destination, .string(let name)): message.destination = name
            case (.sender, .string(let name)): message.sender = name
            case (.signature, .signature(let text)): signature = text
            case (.unixFDs, .uint32(let count)): message.unixFDs = count
            case (nil, _): continue  // unknown fields are ignored, as the spec says
            default: throw DBusWireError(.badField, at: 12)
            }
        }
        try message.checkFields(at: 12)
        try reader.align(8)
        guard UInt64(bytes.count - reader.position) == bodyLength else { throw DBusWireError(.badHeader, at: 4) }
        guard let types = DBusSignature.parse(signature) else { throw DBusWireError(.badSignature, at: 12) }
        for type in types { message.body.append(try reader.value(of: type)) }
        guard reader.position == bytes.count else { throw DBusWireError(.trailingBytes, at: reader.position) }
        return message
    }

    /// Reads values from a whole message in its byte order, never past ``end``.
    private struct Reader {
        let bytes: [UInt8]
        let bigEndian: Bool
        var position: Int
        /// The end of the innermost array being read, or of the message.
        var end: Int
        var depth = 0

        init(bytes: [UInt8], bigEndian: Bool, position: Int) {
            self.bytes = bytes
            self.bigEndian = bigEndian
            self.position = position
            end = bytes.count
        }

        /// Skips padding, which must be zero bytes.
        mutating func align(_ alignment: Int) throws {
            let padded = (position + alignment - 1) / alignment * alignment
            guard padded <= end else { throw DBusWireError(.truncated, at: position) }
            guard bytes[position..<padded].allSatisfy({ $0 == 0 }) else { throw DBusWireError(.badPadding, at: position) }
            position = padded
        }

        mutating func integer(size: Int) throws -> UInt64 {
            try align(size)
            guard end - position >= size else { throw DBusWireError(.truncated, at: position) }
            var value: UInt64 = 0
            for index in 0..<size { value = value << 8 | UInt64(bytes[position + (bigEndian ? index : size - 1 - index)]) }
            position += size
            return value
        }

        /// A string, object path or signature: a length, UTF-8 without NUL, a NUL.
        mutating func text(lengthSize: Int) throws -> String {
            let start = position
            let declared = try integer(size: lengthSize)
            guard declared < UInt64(end - position) else { throw DBusWireError(.truncated, at: start) }
            let length = Int(declared)
            let utf8 = bytes[position..<(position + length)]
            guard bytes[position + length] == 0, !utf8.contains(0) else { throw DBusWireError(.badString, at: start) }
            // Decoding repairs bad UTF-8 (with U+FFFD): valid only if nothing was repaired.
            let text = String(decoding: utf8, as: UTF8.self)
            guard text.utf8.elementsEqual(utf8) else { throw DBusWireError(.badString, at: start) }
            position += length + 1
            return text
        }

        mutating func value(of type: DBusType) throws -> DBusValue {
            let start = position
            switch type {
            case .byte: return .byte(UInt8(try integer(size: 1)))
            case .boolean:
                let raw = try integer(size: 4)
                guard raw <= 1 else { throw DBusWireError(.badBoolean, at: start) }
                return .boolean(raw == 1)
            case .int16: return .int16(Int16(truncatingIfNeeded: try integer(size: 2)))
            case .uint16: return .uint16(UInt16(try integer(size: 2)))
            case .int32: return .int32(Int32(truncatingIfNeeded: try integer(size: 4)))
            case .uint32: return .uint32(UInt32(try integer(size: 4)))
            case .int64: return .int64(Int64(bitPattern: try integer(size: 8)))
            case .uint64: return .uint64(try integer(size: 8))
            case .double: return .double(Double(bitPattern: try integer(size: 8)))
            case .unixFD: return .unixFD(UInt32(try integer(size: 4)))
            case .string: return .string(try text(lengthSize: 4))
            case .objectPath:
                let path = try text(lengthSize: 4)
                guard DBusSignature.isObjectPath(path) else { throw DBusWireError(.badObjectPath, at: start) }
                return .objectPath(path)
            case .signature:
                let signature = try text(lengthSize: 1)
                guard DBusSignature.parse(signature) != nil else { throw DBusWireError(.badSignature, at: start) }
                return .signature(signature)
            case .array(let element):
                let items = try array(alignment: element.alignment) { (reader: inout Reader) throws in
                    try reader.value(of: element)
                }
                return .array(elementSignature: element.signature, items)
            case .dictionary(let key, let value):
                let entries = try array(alignment: 8) { (reader: inout Reader) throws in
                    try reader.align(8)
                    return DBusValue.Entry(try reader.value(of: key), try reader.value(of: value))
                }
                return .dictionary(keySignature: key.signature, valueSignature: value.signature, entries)
            case .structure(let fields):
                try enter(at: start)
                defer { depth -= 1 }
                try align(8)
                var values: [DBusValue] = []
                for field in fields { values.append(try value(of: field)) }
                return .structure(values)
            case .variant:
                try enter(at: start)
                defer { depth -= 1 }
                guard let inner = DBusSignature.single(try text(lengthSize: 1)) else { throw DBusWireError(.badSignature, at: start) }
                return .variant(try value(of: inner))
            }
        }

        mutating func enter(at start: Int) throws {
            depth += 1
            guard depth <= DBusMessage.maximumNesting else { throw DBusWireError(.tooDeep, at: start) }
        }

        /// An array's elements, read by `element` until exactly its length is used. Every
        /// element takes at least one byte, so the loop ends.
        mutating func array<Element>(alignment: Int,
                                     element: (inout Reader) throws -> Element) throws -> [Element] {
            let start = position
            try enter(at: start)
            defer { depth -= 1 }
            let declared = try integer(size: 4)
            guard declared <= UInt64(DBusMessage.maximumArrayLength) else { throw DBusWireError(.tooLong, at: start) }
            try align(alignment)
            guard declared <= UInt64(end - position) else { throw DBusWireError(.truncated, at: start) }
            let length = Int(declared)
            let outer = end
            end = position + length
            defer { end = outer }
            var items: [Element] = []
            while position < end { items.append(try element(&self)) }
            return items
        }
    }
}
