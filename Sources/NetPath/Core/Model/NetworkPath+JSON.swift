extension NetworkPath {
    /// The keys of a path's JSON object, in the order it is written (`netpath watch
    /// --json`): `time` first, `connectivity`, `portalURL`, `connectivitySource` and
    /// `connectivityProxy` only with a connectivity check. `Codable` uses the same keys. A reader takes lines without
    /// the keys added later (`tunnelInterface`, `underlyingInterface`, `isUltraConstrained`,
    /// `linkQuality`, `unresponsiveGateways`, `network`, `expensiveSource`, `connectivitySource`,
    /// `connectivityProxy`) as they were before: no tunnel, `false`, `unknown`, no
    /// unresponsive gateway, no network, no source, no proxy.
    package enum JSONKey: String, CodingKey, CaseIterable, Sendable {
        case time, status, unsatisfiedReason, diagnosis, interfaces, tunnelInterface, underlyingInterface
        case isExpensive, isConstrained, isUltraConstrained, linkQuality
        case supportsIPv4, supportsIPv6, supportsDNS, gateways, unresponsiveGateways, network, expensiveSource
        case connectivity, portalURL
        case connectivitySource, connectivityProxy
        case connectivityIPv4, connectivityFailureIPv4, connectivityIPv6, connectivityFailureIPv6
    }

    /// The keys of `family`'s verdict and failure.
    package static func familyKeys(_ family: IPFamily) -> (verdict: JSONKey, failure: JSONKey) {
        family == .ipv4 ? (.connectivityIPv4, .connectivityFailureIPv4) : (.connectivityIPv6, .connectivityFailureIPv6)
    }

    /// The path as one line of `netpath watch --json` with the given `time`, without the
    /// newline (``jsonLine(time:includingConnectivity:)`` reads the clock when it has none).
    package func jsonLine(at time: String, includingConnectivity: Bool) -> String {
        var line = JSONLine()
        line.appendJSON(self, connectivity: includingConnectivity, time: time)
        return line.text
    }
}

extension NetworkPath: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: JSONKey.self)
        self.init(
            status: try container.decode(Status.self, forKey: .status),
            unsatisfiedReason: try container.decodeIfPresent(UnsatisfiedReason.self, forKey: .unsatisfiedReason),
            diagnosis: try container.decodeIfPresent(Diagnosis.self, forKey: .diagnosis),
            availableInterfaces: try container.decodeIfPresent([NetworkInterface].self, forKey: .interfaces) ?? [],
            tunnelInterface: try container.decodeIfPresent(NetworkInterface.self, forKey: .tunnelInterface),
            underlyingInterface: try container.decodeIfPresent(NetworkInterface.self, forKey: .underlyingInterface),
            isExpensive: try container.decodeIfPresent(Bool.self, forKey: .isExpensive) ?? false,
            isConstrained: try container.decodeIfPresent(Bool.self, forKey: .isConstrained) ?? false,
            isUltraConstrained: try container.decodeIfPresent(Bool.self, forKey: .isUltraConstrained) ?? false,
            linkQuality: try container.decodeIfPresent(LinkQuality.self, forKey: .linkQuality) ?? .unknown,
            supportsIPv4: try container.decodeIfPresent(Bool.self, forKey: .supportsIPv4) ?? false,
            supportsIPv6: try container.decodeIfPresent(Bool.self, forKey: .supportsIPv6) ?? false,
            supportsDNS: try container.decodeIfPresent(Bool.self, forKey: .supportsDNS) ?? false,
            gateways: try container.decodeIfPresent([String].self, forKey: .gateways) ?? [],
            unresponsiveGateways: try container.decodeIfPresent([String].self, forKey: .unresponsiveGateways) ?? [],
            network: try container.decodeIfPresent(String.self, forKey: .network),
            connectivity: try container.decodeIfPresent(Connectivity.self, forKey: .connectivity) ?? .unknown,
            portalURL: try container.decodeIfPresent(String.self, forKey: .portalURL),
            expensiveSource: try container.decodeIfPresent(Source.self, forKey: .expensiveSource),
            connectivitySource: try container.decodeIfPresent(Source.self, forKey: .connectivitySource),
            connectivityProxy: try container.decodeIfPresent(String.self, forKey: .connectivityProxy)
        )
        for family in IPFamily.allCases {
            let keys = NetworkPath.familyKeys(family)
            let verdict = try container.decodeIfPresent(Connectivity.self, forKey: keys.verdict) ?? .unknown
            guard verdict != .unknown else { continue }
            let failure = try container.decodeIfPresent(ConnectivityFailure.self, forKey: keys.failure)
            familyConnectivity[family] = FamilyConnectivity(connectivity: verdict, failedStep: failure?.step, failure: failure)
        }
    }

    /// Encodes the keys of a `netpath watch --json` line but `time` (a path has none); absent values as `null`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: JSONKey.self)
        try container.encode(status, forKey: .status)
        try container.encode(unsatisfiedReason, forKey: .unsatisfiedReason)
        try container.encode(diagnosis, forKey: .diagnosis)
        try container.encode(availableInterfaces, forKey: .interfaces)
        try container.encode(tunnelInterface, forKey: .tunnelInterface)
        try container.encode(underlyingInterface, forKey: .underlyingInterface)
        try container.encode(isExpensive, forKey: .isExpensive)
        try container.encode(isConstrained, forKey: .isConstrained)
        try container.encode(isUltraConstrained, forKey: .isUltraConstrained)
        try container.encode(linkQuality, forKey: .linkQuality)
        try container.encode(supportsIPv4, forKey: .supportsIPv4)
        try container.encode(supportsIPv6, forKey: .supportsIPv6)
        try container.encode(supportsDNS, forKey: .supportsDNS)
        try container.encode(gateways, forKey: .gateways)
        try container.encode(unresponsiveGateways, forKey: .unresponsiveGateways)
        try container.encode(network, forKey: .network)
        try container.encode(expensiveSource, forKey: .expensiveSource)
        try container.encode(connectivity, forKey: .connectivity)
        try container.encode(portalURL, forKey: .portalURL)
        try container.encode(connectivitySource, forKey: .connectivitySource)
        try container.encode(connectivityProxy, forKey: .connectivityProxy)
        for family in IPFamily.allCases {
            let keys = NetworkPath.familyKeys(family)
            try container.encode(connectivity(for: family), forKey: keys.verdict)
            try container.encode(familyConnectivity[family]?.failureWithItsStep, forKey: keys.failure)
        }
    }
}

/// A path as one line of JSON (the keys of ``NetworkPath/JSONKey``, in their order), built
/// as bytes: `netpath watch --json` formats one for every change, between the kernel's
/// event and the write, so it is built without intermediate strings. The one writer of
/// the path's JSON: the tool, ``NetworkPath/jsonLine(time:includingConnectivity:)`` and
/// `Codable` (which uses the same keys) agree with ``NetworkPath/init(jsonLine:)``.
package struct JSONLine {
    package private(set) var bytes: [UInt8] = []

    package init() { bytes.reserveCapacity(512) }

    package var text: String { String(decoding: bytes, as: UTF8.self) }

    /// A literal, copied whole. (A literal argument picks this over ``append(string:)``:
    /// a `String` would be made first.)
    package mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// `text`'s bytes as they are, copied whole (a native string's are contiguous).
    package mutating func append(string text: String) {
        if text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) == nil {
            bytes.append(contentsOf: text.utf8)
        }
    }

    /// `value` in decimal, zero-padded to `width` digits.
    package mutating func append(_ value: Int64, width: Int = 1) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var magnitude = value.magnitude
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[19 - count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0 || count < width
            if value < 0 { bytes.append(UInt8(ascii: "-")) }
            bytes.append(contentsOf: buffer[(20 - count)...])
        }
    }

    /// `text` as a JSON string literal; text without quotes, backslashes or control
    /// characters (every name and address in practice) is copied whole.
    package mutating func append(quoted text: String) {
        bytes.append(UInt8(ascii: "\""))
        let plain = text.utf8.withContiguousStorageIfAvailable { stored -> Bool in
            guard !stored.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            bytes.append(contentsOf: stored)
            return true
        }
        if plain != true { appendEscaped(text) }
        bytes.append(UInt8(ascii: "\""))
    }

    /// `text`'s bytes, escaped as a JSON string's.
    private mutating func appendEscaped(_ text: String) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case UInt8(ascii: "\n"): append("\\n")
            case UInt8(ascii: "\r"): append("\\r")
            case UInt8(ascii: "\t"): append("\\t")
            case 0..<0x20:
                append("\\u00")
                bytes.append(byte < 0x10 ? UInt8(ascii: "0") : UInt8(ascii: "1"))
                let low = byte & 0xF
                bytes.append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10)
            default: bytes.append(byte)
            }
        }
    }

    package mutating func append(optionalQuoted text: String?) {
        if let text { append(quoted: text) } else { append("null") }
    }

    package mutating func append(_ flag: Bool) {
        if flag { append("true") } else { append("false") }
    }

    package mutating func appendUTC(seconds: Int64, milliseconds: Int) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        // Days to a proleptic Gregorian date (H. Hinnant's civil_from_days).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        append(year, width: 4)
        append("-")
        append(month, width: 2)
        append("-")
        append(day, width: 2)
        append("T")
        append(secondOfDay / 3_600, width: 2)
        append(":")
        append(secondOfDay / 60 % 60, width: 2)
        append(":")
        append(secondOfDay % 60, width: 2)
        append(".")
        append(Int64(milliseconds), width: 3)
        append("Z")
    }

    /// SPEC §4's object for a path at `time`.
    package mutating func appendJSON(_ path: NetworkPath, connectivity: Bool, time: String) {
        append("{\"time\":")
        append(quoted: time)
        appendJSONKeys(path, connectivity: connectivity)
    }

    /// SPEC §4's object for a path at a time of the Unix clock, written in place.
    package mutating func appendJSON(_ path: NetworkPath, connectivity: Bool, unixTime: (seconds: Int64, milliseconds: Int)) {
        append("{\"time\":\"")
        appendUTC(seconds: unixTime.seconds, milliseconds: unixTime.milliseconds)
        append("\"")
        appendJSONKeys(path, connectivity: connectivity)
    }

    /// The object's keys after `time`'s value.
    private mutating func appendJSONKeys(_ path: NetworkPath, connectivity: Bool) {
        append(",\"status\":")
        append(quoted: path.status.rawValue)
        append(",\"unsatisfiedReason\":")
        append(optionalQuoted: path.unsatisfiedReason?.rawValue)
        append(",\"diagnosis\":")
        append(optionalQuoted: path.diagnosis?.rawValue)
        append(",\"interfaces\":[")
        for (position, interface) in path.availableInterfaces.enumerated() {
            if position > 0 { append(",") }
            append(interface)
        }
        append("],\"tunnelInterface\":")
        append(interface: path.tunnelInterface)
        append(",\"underlyingInterface\":")
        append(interface: path.underlyingInterface)
        append(",\"isExpensive\":")
        append(path.isExpensive)
        append(",\"isConstrained\":")
        append(path.isConstrained)
        append(",\"isUltraConstrained\":")
        append(path.isUltraConstrained)
        append(",\"linkQuality\":")
        append(quoted: path.linkQuality.rawValue)
        append(",\"supportsIPv4\":")
        append(path.supportsIPv4)
        append(",\"supportsIPv6\":")
        append(path.supportsIPv6)
        append(",\"supportsDNS\":")
        append(path.supportsDNS)
        append(",\"gateways\":")
        append(quotedList: path.gateways)
        append(",\"unresponsiveGateways\":")
        append(quotedList: path.unresponsiveGateways)
        append(",\"network\":")
        append(optionalQuoted: path.network)
        append(",\"expensiveSource\":")
        append(optionalQuoted: path.expensiveSource?.rawValue)
        if connectivity { appendConnectivity(path) }
        append("}")
    }

    /// The connectivity keys of SPEC §4's object, overall then per family.
    private mutating func appendConnectivity(_ path: NetworkPath) {
        append(",\"connectivity\":")
        append(quoted: path.connectivity.rawValue)
        append(",\"portalURL\":")
        append(optionalQuoted: path.portalURL)
        append(",\"connectivitySource\":")
        append(optionalQuoted: path.connectivitySource?.rawValue)
        append(",\"connectivityProxy\":")
        append(optionalQuoted: path.connectivityProxy)
        for family in IPFamily.allCases {
            let keys = NetworkPath.familyKeys(family)
            append(",\"")
            append(string: keys.verdict.rawValue)
            append("\":")
            append(quoted: path.connectivity(for: family).rawValue)
            append(",\"")
            append(string: keys.failure.rawValue)
            append("\":")
            append(failure: path.familyConnectivity[family]?.failureWithItsStep)
        }
    }

    /// A JSON array of strings.
    private mutating func append(quotedList strings: [String]) {
        append("[")
        for (position, string) in strings.enumerated() {
            if position > 0 { append(",") }
            append(quoted: string)
        }
        append("]")
    }

    /// A family's failure as `{"kind":…,"step":…,"message":…}`, or `null`.
    private mutating func append(failure: ConnectivityFailure?) {
        guard let failure else { return append("null") }
        append("{\"kind\":")
        append(quoted: failure.kind.rawValue)
        append(",\"step\":")
        append(optionalQuoted: failure.step?.rawValue)
        append(",\"message\":")
        append(quoted: failure.message)
        append("}")
    }

    /// An interface as `{"name":…,"index":…,"type":…}`.
    private mutating func append(_ interface: NetworkInterface) {
        append("{\"name\":")
        append(quoted: interface.name)
        append(",\"index\":")
        append(Int64(interface.index))
        append(",\"type\":")
        append(quoted: interface.type.rawValue)
        append("}")
    }

    private mutating func append(interface: NetworkInterface?) {
        if let interface { append(interface) } else { append("null") }
    }
}
