import NetPath
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns paths into the lines `netpath` prints: JSON Lines (SPEC §4) or one readable line.
enum Output {
    /// The current UTC time as `2026-11-30T04:10:27.123Z`.
    static func timestamp() -> String {
        var line = Line()
        line.appendTimestamp()
        return line.text
    }

    /// Seconds since 1970 as an ISO 8601 UTC time. Computed here, not with `gmtime_r`,
    /// which loads the time-zone file first (a file read on every start of `status`).
    static func utc(seconds: Int64, milliseconds: Int) -> String {
        var line = Line()
        line.appendUTC(seconds: seconds, milliseconds: milliseconds)
        return line.text
    }

    /// A JSON string literal.
    static func quote(_ text: String) -> String {
        var line = Line()
        line.append(quoted: text)
        return line.text
    }

    static func optional(_ text: String?) -> String {
        text.map(quote) ?? "null"
    }

    /// One JSON object with exactly SPEC §4's keys, in its order (with `--probe`, also
    /// `connectivity` and `portalURL`).
    static func json(_ path: NetworkPath, connectivity: Bool = false, time: String? = nil) -> String {
        var line = Line()
        line.appendJSON(path, connectivity: connectivity, time: time)
        return line.text
    }

    /// `probe --json`: `{"time","connectivity","portalURL","url","httpStatus","latencyMs","error"}`.
    static func json(_ result: ConnectivityResult, time: String = timestamp()) -> String {
        let latency = result.latencyMilliseconds.map { String(Int($0.rounded())) } ?? "null"
        return "{\"time\":\(quote(time)),\"connectivity\":\(quote(result.connectivity.rawValue)),"
            + "\"portalURL\":\(optional(result.portalURL)),\"url\":\(optional(result.url)),"
            + "\"httpStatus\":\(result.httpStatus.map(String.init) ?? "null"),\"latencyMs\":\(latency),"
            + "\"error\":\(optional(result.error))}"
    }

    static let connectivityWords: [Connectivity: String] = [
        .unknown: "not checked", .none: "no network path", .local: "DNS does not work",
        .limited: "no Internet (no endpoint answered)", .portal: "behind a captive portal", .full: "Internet reachable",
    ]

    /// One readable line for a check: the verdict, the endpoint, the answer or the error.
    static func human(_ result: ConnectivityResult, time: String = timestamp(), color: Bool) -> String {
        let code = result.connectivity == .full ? "1;32" : result.connectivity == .portal ? "1;33" : "1;31"
        var words = [color ? "\u{1B}[\(code)m\(result.connectivity.rawValue)\u{1B}[0m" : result.connectivity.rawValue,
                     connectivityWords[result.connectivity] ?? ""]
        if let portal = result.portalURL { words.append("login at " + portal) }
        if let url = result.url {
            var answer = url
            if let status = result.httpStatus { answer += " answered \(status)" }
            if let latency = result.latencyMilliseconds { answer += " in \(Int(latency.rounded())) ms" }
            words.append(answer)
        }
        if result.connectivity != .full, let error = result.error { words.append("— " + error) }
        return String(time.dropFirst(11).prefix(12)) + "  " + words.joined(separator: "  ")
    }

    static let diagnosisWords: [NetworkPath.Diagnosis: String] = [
        .filtered: "a route exists only through excluded interface types",
        .noInterface: "no network interface is up",
        .noCarrier: "no interface has a link (cable unplugged, radio off)",
        .noAddress: "no interface has an IP address",
        .noDefaultRoute: "no default route (no gateway)",
    ]

    /// One readable line: status, primary interface and type, gateways, families and DNS
    /// when online; the diagnosis in words and the usable interfaces when not.
    static func human(_ path: NetworkPath, time: String = timestamp(), color: Bool) -> String {
        func paint(_ text: String, _ code: String) -> String {
            color ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
        }
        let clock = String(time.dropFirst(11).prefix(12))
        var words: [String] = []
        switch path.status {
        case .satisfied: words.append(paint("online", "1;32"))
        case .unsatisfied: words.append(paint("offline", "1;31"))
        case .requiresConnection: words.append(paint("connecting", "1;33"))
        }
        let names = path.availableInterfaces.map { "\($0.name) (\($0.type.rawValue))" }
        if path.status == .satisfied {
            words.append("via " + (names.first ?? "?"))
            if path.connectivity != .unknown {
                words.append("Internet: " + path.connectivity.rawValue + (path.portalURL.map { " (login at \($0))" } ?? ""))
            }
            if !path.gateways.isEmpty { words.append("gateway " + path.gateways.joined(separator: ", ")) }
            var families: [String] = []
            if path.supportsIPv4 { families.append("IPv4") }
            if path.supportsIPv6 { families.append("IPv6") }
            families.append(path.supportsDNS ? "DNS" : "no DNS")
            words.append(families.joined(separator: " "))
            if path.isExpensive { words.append("expensive") }
            if path.isConstrained { words.append("constrained") }
            if names.count > 1 { words.append("also " + names.dropFirst().joined(separator: ", ")) }
        } else {
            if let diagnosis = path.diagnosis {
                words.append(paint(diagnosisWords[diagnosis] ?? diagnosis.rawValue, "2"))
            }
            if !names.isEmpty { words.append("up: " + names.joined(separator: ", ")) }
        }
        return clock + "  " + words.joined(separator: "  ")
    }
}

/// A line of output built as bytes: `watch` formats one for every change, between the
/// kernel's event and the write, so it is built without intermediate strings.
struct Line {
    private(set) var bytes: [UInt8] = []

    init() { bytes.reserveCapacity(512) }

    var text: String { String(decoding: bytes, as: UTF8.self) }

    mutating func append(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }

    /// `value` in decimal, zero-padded to `width` digits.
    mutating func append(_ value: Int64, width: Int = 1) {
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
    mutating func append(quoted text: String) {
        bytes.append(UInt8(ascii: "\""))
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
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func append(optionalQuoted text: String?) {
        if let text { append(quoted: text) } else { append("null") }
    }

    mutating func append(_ flag: Bool) {
        if flag { append("true") } else { append("false") }
    }

    mutating func appendTimestamp() {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        appendUTC(seconds: Int64(now.tv_sec), milliseconds: Int(now.tv_nsec / 1_000_000))
    }

    mutating func appendUTC(seconds: Int64, milliseconds: Int) {
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

    /// SPEC §4's object for a path; the current time unless `time` is given.
    mutating func appendJSON(_ path: NetworkPath, connectivity: Bool, time: String?) {
        append("{\"time\":\"")
        if let time { append(time) } else { appendTimestamp() }
        append("\",\"status\":")
        append(quoted: path.status.rawValue)
        append(",\"unsatisfiedReason\":")
        append(optionalQuoted: path.unsatisfiedReason?.rawValue)
        append(",\"diagnosis\":")
        append(optionalQuoted: path.diagnosis?.rawValue)
        append(",\"interfaces\":[")
        for (position, interface) in path.availableInterfaces.enumerated() {
            append(position == 0 ? "{\"name\":" : ",{\"name\":")
            append(quoted: interface.name)
            append(",\"index\":")
            append(Int64(interface.index))
            append(",\"type\":")
            append(quoted: interface.type.rawValue)
            append("}")
        }
        append("],\"isExpensive\":")
        append(path.isExpensive)
        append(",\"isConstrained\":")
        append(path.isConstrained)
        append(",\"supportsIPv4\":")
        append(path.supportsIPv4)
        append(",\"supportsIPv6\":")
        append(path.supportsIPv6)
        append(",\"supportsDNS\":")
        append(path.supportsDNS)
        append(",\"gateways\":[")
        for (position, gateway) in path.gateways.enumerated() {
            if position > 0 { append(",") }
            append(quoted: gateway)
        }
        append("]")
        if connectivity {
            append(",\"connectivity\":")
            append(quoted: path.connectivity.rawValue)
            append(",\"portalURL\":")
            append(optionalQuoted: path.portalURL)
        }
        append("}")
    }
}
