/// One complete D-Bus type, as a signature spells it: what the decoder walks to read a value.
package indirect enum DBusType: Hashable, Sendable {
    case byte, boolean, int16, uint16, int32, uint32, int64, uint64, double
    case string, objectPath, signature, unixFD
    case array(DBusType)
    /// An array of dict entries, `a{kv}`: the only place a dict entry may stand.
    case dictionary(key: DBusType, value: DBusType)
    case structure([DBusType])
    case variant

    private static let basicCodes: [(UInt8, DBusType)] = [
        (UInt8(ascii: "y"), .byte), (UInt8(ascii: "b"), .boolean), (UInt8(ascii: "n"), .int16),
        (UInt8(ascii: "q"), .uint16), (UInt8(ascii: "i"), .int32), (UInt8(ascii: "u"), .uint32),
        (UInt8(ascii: "x"), .int64), (UInt8(ascii: "t"), .uint64), (UInt8(ascii: "d"), .double),
        (UInt8(ascii: "s"), .string), (UInt8(ascii: "o"), .objectPath), (UInt8(ascii: "g"), .signature),
        (UInt8(ascii: "h"), .unixFD),
    ]

    /// The basic (fixed or string-like) type of a type code, or `nil` for a container or an unknown code.
    package init?(basicCode code: UInt8) {
        guard let entry = DBusType.basicCodes.first(where: { $0.0 == code }) else { return nil }
        self = entry.1
    }

    /// Whether the type may be a dict entry's key.
    package var isBasic: Bool {
        DBusType.basicCodes.contains { $0.1 == self }
    }

    /// The type's signature.
    package var signature: String {
        switch self {
        case .array(let element): "a" + element.signature
        case .dictionary(let key, let value): "a{" + key.signature + value.signature + "}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        default: String(decoding: [DBusType.basicCodes.first { $0.1 == self }?.0 ?? 0], as: UTF8.self)
        }
    }

    /// The boundary a value of the type starts on, from the start of the message.
    package var alignment: Int {
        switch self {
        case .byte, .signature, .variant: 1
        case .int16, .uint16: 2
        case .boolean, .int32, .uint32, .string, .objectPath, .unixFD, .array, .dictionary: 4
        case .int64, .uint64, .double, .structure: 8
        }
    }
}

/// D-Bus signatures: parsing and the spec's limits (255 bytes; 32 nested arrays and 32 nested
/// structures or dict entries; dict entries only as array elements, keyed by a basic type;
/// no empty structures). Pure.
package enum DBusSignature {
    /// The longest signature, in bytes.
    package static let maximumLength = 255
    /// How deep arrays may nest in one signature, and structures (dict entries included).
    package static let maximumDepth = 32

    /// The complete types `signature` spells, in order; `nil` when it is not a valid signature.
    package static func parse(_ signature: String) -> [DBusType]? {
        var parser = Parser(codes: Array(signature.utf8))
        guard parser.codes.count <= maximumLength else { return nil }
        var types: [DBusType] = []
        while parser.index < parser.codes.count {
            guard let type = parser.single(arrays: 0, structures: 0) else { return nil }
            types.append(type)
        }
        return types
    }

    /// The single complete type `signature` spells, or `nil` (a variant's and an array element's).
    package static func single(_ signature: String) -> DBusType? {
        guard let types = parse(signature), types.count == 1 else { return nil }
        return types[0]
    }

    /// Whether `path` is a valid object path: `/`, or `/`-separated non-empty elements of
    /// `[A-Za-z0-9_]` with no trailing `/`.
    package static func isObjectPath(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        return bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
            .allSatisfy { !$0.isEmpty && $0.allSatisfy(isNameByte) }
    }

    /// Whether `name` is a valid interface or error name (`elements` ≥ 2) or member name
    /// (`elements` == 1): dot-separated elements of `[A-Za-z0-9_]` not starting with a digit.
    package static func isName(_ name: String, elements: Int) -> Bool {
        let parts = Array(name.utf8).split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return name.utf8.count <= maximumLength && (elements == 1 ? parts.count == 1 : parts.count >= elements)
            && parts.allSatisfy { part in
                guard let first = part.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
                return part.allSatisfy(isNameByte)
            }
    }

    /// Whether `name` may be a bus name (unique `:1.42` or well-known): 1-255 bytes of
    /// `[A-Za-z0-9_.:-]`. Looser than the spec's element rules; the bus checks them.
    package static func isBusName(_ name: String) -> Bool {
        (1...maximumLength).contains(name.utf8.count)
            && name.utf8.allSatisfy { isNameByte($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "-") }
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"): true
        default: false
        }
    }

    /// A recursive-descent reader of type codes, counting the nesting as it goes.
    private struct Parser {
        let codes: [UInt8]
        var index = 0

        mutating func single(arrays: Int, structures: Int) -> DBusType? {
            guard index < codes.count else { return nil }
            let code = codes[index]
            index += 1
            if let basic = DBusType(basicCode: code) { return basic }
            switch code {
            case UInt8(ascii: "v"):
                return .variant
            case UInt8(ascii: "a"):
                guard arrays < maximumDepth else { return nil }
                guard index < codes.count, codes[index] == UInt8(ascii: "{") else {
                    return single(arrays: arrays + 1, structures: structures).map(DBusType.array)
                }
                index += 1
                guard structures < maximumDepth,
                      let key = single(arrays: arrays + 1, structures: structures + 1), key.isBasic,
                      let value = single(arrays: arrays + 1, structures: structures + 1),
                      index < codes.count, codes[index] == UInt8(ascii: "}") else { return nil }
                index += 1
                return .dictionary(key: key, value: value)
            case UInt8(ascii: "("):
                guard structures < maximumDepth else { return nil }
                var fields: [DBusType] = []
                while index < codes.count, codes[index] != UInt8(ascii: ")") {
                    guard let field = single(arrays: arrays, structures: structures + 1) else { return nil }
                    fields.append(field)
                }
                guard index < codes.count, !fields.isEmpty else { return nil }
                index += 1
                return .structure(fields)
            default:
                return nil
            }
        }
    }
}
