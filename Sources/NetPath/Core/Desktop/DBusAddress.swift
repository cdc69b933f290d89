/// Where a message bus listens, as a D-Bus address names it (`DBUS_SYSTEM_BUS_ADDRESS`,
/// `DBUS_SESSION_BUS_ADDRESS`): the Unix-socket endpoints a client can connect to, in the
/// order to try them. Pure.
package enum DBusAddress {
    /// One Unix-socket endpoint.
    package enum Endpoint: Hashable, Sendable, CustomStringConvertible {
        /// `unix:path=`: a socket file.
        case path(String)
        /// `unix:abstract=`: a name in Linux's abstract socket namespace.
        case abstract(String)

        package var description: String {
            switch self {
            case .path(let path): "unix:path=\(path)"
            case .abstract(let name): "unix:abstract=\(name)"
            }
        }
    }

    /// The system bus when `DBUS_SYSTEM_BUS_ADDRESS` is not set (the specification's default).
    package static let defaultSystemBus = "unix:path=/run/dbus/system_bus_socket"

    /// The endpoints of an address: its `;`-separated entries in order, those a client can
    /// reach (`unix:` with `path=` or `abstract=`; other transports, such as `tcp:` or
    /// `launchd:`, and listen-only keys are skipped). Values are percent-decoded; other keys
    /// (`guid=`) are ignored.
    package static func endpoints(_ address: String) -> [Endpoint] {
        // Bytes, not characters: splitting a `String` breaks it into graphemes first, which
        // cost a one-shot `netpath status` 40 k instructions for the default address. Every
        // separator is ASCII, so UTF-8 sequences are never cut.
        Array(address.utf8).split(separator: UInt8(ascii: ";")).compactMap { entry in
            guard let colon = entry.firstIndex(of: UInt8(ascii: ":")),
                  entry[..<colon].elementsEqual("unix".utf8) else { return nil }
            // Only two keys matter: no dictionary (a one-shot `status` asks this once, and a
            // dictionary's first use costs more than the parse).
            var path: String?, abstract: String?
            for pair in entry[(colon + 1)...].split(separator: UInt8(ascii: ",")) {
                guard let equals = pair.firstIndex(of: UInt8(ascii: "=")), let value = unescaped(pair[(equals + 1)...]) else { return nil }
                let key = pair[..<equals]
                if key.elementsEqual("path".utf8) {
                    path = value
                } else if key.elementsEqual("abstract".utf8) {
                    abstract = value
                }
            }
            switch (path, abstract) {
            case (let path?, nil) where !path.isEmpty: return .path(path)
            case (nil, let name?) where !name.isEmpty: return .abstract(name)
            default: return nil
            }
        }
    }

    /// A value with its `%XX` escapes decoded; `nil` when an escape is malformed.
    private static func unescaped(_ value: ArraySlice<UInt8>) -> String? {
        var bytes: [UInt8] = []
        var iterator = value.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(hexDigit), let low = iterator.next().flatMap(hexDigit) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
