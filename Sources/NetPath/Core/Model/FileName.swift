/// File names as the kernel has them: bytes, not always UTF-8 (`ip netns add` takes any name
/// without a slash). A name is carried in a `String` losslessly: each byte of an invalid
/// UTF-8 sequence becomes a scalar of the private-use range U+F780–U+F7FF (the "UTF-8b"
/// mapping, as Python's `surrogateescape` does with surrogates, which a `String` cannot
/// hold), and back to that byte when the name goes to the kernel. Shown to people, such a
/// byte is `\xNN`.
package enum FileName {
    /// The first scalar of the range: U+F780 stands for the byte 0x80.
    static let base: UInt32 = 0xF700

    /// The name in `bytes`, lossless.
    package static func decode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        decode(Array(bytes))
    }

    /// The name in `bytes`, lossless. (Not generic: the tool decodes its command line with
    /// it at every start, where a generic's first use costs more than the decoding.)
    package static func decode(_ bytes: [UInt8]) -> String {
        // A name that holds a scalar of the range itself has its bytes escaped too, so that
        // every name comes back as it was.
        if isValidUTF8(bytes[...]) {
            let valid = String(decoding: bytes, as: UTF8.self)
            if !hasEscapes(valid) { return valid }
        }
        var scalars = String.UnicodeScalarView()
        var index = 0
        while index < bytes.count {
            let length = validSequenceLength(bytes, at: index)
            let text = String(decoding: bytes[index..<(index + length)], as: UTF8.self)
            if length > 0, !hasEscapes(text) {
                scalars.append(contentsOf: text.unicodeScalars)
                index += length
            } else {
                scalars.append(Unicode.Scalar(base + UInt32(bytes[index]))!)
                index += 1
            }
        }
        return String(scalars)
    }

    /// The bytes of `name` as the kernel has them.
    package static func encode(_ name: String) -> [UInt8] {
        guard name.unicodeScalars.contains(where: isEscape) else { return Array(name.utf8) }
        var bytes: [UInt8] = []
        for scalar in name.unicodeScalars {
            if isEscape(scalar) {
                bytes.append(UInt8(scalar.value - base))
            } else {
                bytes.append(contentsOf: String(scalar).utf8)
            }
        }
        return bytes
    }

    /// `name` for people: an escaped byte as `\xNN`.
    package static func visible(_ name: String) -> String {
        guard name.unicodeScalars.contains(where: isEscape) else { return name }
        var text = ""
        for scalar in name.unicodeScalars {
            if isEscape(scalar) {
                let byte = scalar.value - base
                text += "\\x" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    /// Whether `name` holds an escaped byte (it must go to the kernel through ``encode(_:)``).
    package static func hasEscapes(_ name: String) -> Bool {
        name.unicodeScalars.contains(where: isEscape)
    }

    static func isEscape(_ scalar: Unicode.Scalar) -> Bool {
        (base + 0x80...base + 0xFF).contains(scalar.value)
    }

    /// The length of the valid UTF-8 sequence at `index`, 0 when there is none.
    private static func validSequenceLength(_ bytes: [UInt8], at index: Int) -> Int {
        let lead = bytes[index]
        let length = lead < 0x80 ? 1 : lead >= 0xC2 && lead < 0xE0 ? 2 : lead >= 0xE0 && lead < 0xF0 ? 3 : lead >= 0xF0 && lead < 0xF5 ? 4 : 0
        guard length > 0, index + length <= bytes.count else { return 0 }
        return isValidUTF8(bytes[index..<(index + length)]) ? length : 0
    }

    /// Whether `bytes` are well-formed UTF-8 (no overlong form, surrogate or value past
    /// U+10FFFF), as Unicode's table 3-7 defines it. (`String(validating:)` is not on
    /// every platform NetPath supports.)
    static func isValidUTF8(_ bytes: ArraySlice<UInt8>) -> Bool {
        var index = bytes.startIndex
        func continuation(_ offset: Int, _ range: ClosedRange<UInt8> = 0x80...0xBF) -> Bool {
            index + offset < bytes.endIndex && range.contains(bytes[index + offset])
        }
        while index < bytes.endIndex {
            let lead = bytes[index]
            let length: Int
            switch lead {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: guard continuation(1) else { return false }; length = 2
            case 0xE0: guard continuation(1, 0xA0...0xBF), continuation(2) else { return false }; length = 3
            case 0xE1...0xEC, 0xEE...0xEF: guard continuation(1), continuation(2) else { return false }; length = 3
            case 0xED: guard continuation(1, 0x80...0x9F), continuation(2) else { return false }; length = 3
            case 0xF0: guard continuation(1, 0x90...0xBF), continuation(2), continuation(3) else { return false }; length = 4
            case 0xF1...0xF3: guard continuation(1), continuation(2), continuation(3) else { return false }; length = 4
            case 0xF4: guard continuation(1, 0x80...0x8F), continuation(2), continuation(3) else { return false }; length = 4
            default: return false
            }
            index += length
        }
        return true
    }
}
