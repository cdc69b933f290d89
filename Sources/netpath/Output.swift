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
        var line = JSONLine()
        line.appendTimestamp()
        return line.text
    }

    /// Seconds since 1970 as an ISO 8601 UTC time. Computed here, not with `gmtime_r`,
    /// which loads the time-zone file first (a file read on every start of `status`).
    static func utc(seconds: Int64, milliseconds: Int) -> String {
        var line = JSONLine()
        line.appendUTC(seconds: seconds, milliseconds: milliseconds)
        return line.text
    }

    /// A JSON string literal.
    static func quote(_ text: String) -> String {
        var line = JSONLine()
        line.append(quoted: text)
        return line.text
    }

    static func optional(_ text: String?) -> String {
        text.map(quote) ?? "null"
    }

    /// One JSON object with exactly SPEC §4's keys, in its order (with `--probe`, also
    /// `connectivity` and `portalURL`).
    static func json(_ path: NetworkPath, connectivity: Bool = false, time: String? = nil) -> String {
        var line = JSONLine()
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
        .noAddress: "no usable IP address for the route to the Internet",
        .blocked: "the system refuses traffic to the Internet (a prohibit, blackhole or unreachable route or rule: a kill switch)",
        .noDefaultRoute: "no route to the Internet (no default route)",
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
