/// A D-Bus value of any type, as read from or written to a message body. Containers carry
/// the signatures of their elements, so an empty array still has a type.
package indirect enum DBusValue: Hashable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// An index into the message's file descriptors (`h`); this client receives none.
    case unixFD(UInt32)
    /// An array whose elements all have the signature `elementSignature`.
    case array(elementSignature: String, [DBusValue])
    /// An array of dict entries, `a{kv}`, in wire order (duplicate keys kept).
    case dictionary(keySignature: String, valueSignature: String, [Entry])
    case structure([DBusValue])
    case variant(DBusValue)

    /// One dict entry of a ``dictionary(keySignature:valueSignature:_:)``.
    package struct Entry: Hashable, Sendable {
        package var key: DBusValue
        package var value: DBusValue

        package init(_ key: DBusValue, _ value: DBusValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value's signature (one complete type).
    package var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .unixFD: "h"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{" + key + value + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    // MARK: Reading values of a known shape

    /// The value inside any number of variants.
    package var unwrapped: DBusValue {
        if case .variant(let inner) = self { inner.unwrapped } else { self }
    }

    /// A string, object path or signature (inside variants too).
    package var string: String? {
        switch unwrapped {
        case .string(let text), .objectPath(let text), .signature(let text): text
        default: nil
        }
    }

    package var bool: Bool? {
        if case .boolean(let value) = unwrapped { value } else { nil }
    }

    package var uint32: UInt32? {
        if case .uint32(let value) = unwrapped { value } else { nil }
    }

    package var int32: Int32? {
        if case .int32(let value) = unwrapped { value } else { nil }
    }

    /// The elements of an array (inside variants too).
    package var array: [DBusValue]? {
        if case .array(_, let items) = unwrapped { items } else { nil }
    }

    /// A string-keyed dictionary (`a{sv}`, the shape of every property set) with its values
    /// taken out of their variants; the first of duplicate keys wins.
    package var dictionary: [String: DBusValue]? {
        guard case .dictionary(_, _, let entries) = unwrapped else { return nil }
        var result: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.string else { return nil }
            if result[key] == nil { result[key] = entry.value.unwrapped }
        }
        return result
    }
}
