import NetPath

/// Turns paths into the lines `netpath` prints: JSON Lines (SPEC §4) or one readable line.
enum Output {
    /// The current UTC time as `2026-11-30T04:10:27.123Z`.
    static func timestamp() -> String {
        JSONLine.now()
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


    /// `probe --json`: `{"time","connectivity","portalURL","url","httpStatus","latencyMs","error","nat64Prefix","ipv4","ipv6"}`
    /// (each family's own verdict, ``json(_:)-swift.type.method``),
    /// and `"proxy"` when the verdict's endpoint was reached through one (a new key is added
    /// only where it says something, so readers of the old lines see them unchanged).
    static func json(_ result: ConnectivityResult, time: String = timestamp()) -> String {
        let latency = result.latencyMilliseconds.map { String(Int($0.rounded())) } ?? "null"
        return "{\"time\":\(quote(time)),\"connectivity\":\(quote(result.connectivity.rawValue)),"
            + "\"portalURL\":\(optional(result.portalURL)),\"url\":\(optional(result.url)),"
            + "\"httpStatus\":\(result.httpStatus.map(String.init) ?? "null"),\"latencyMs\":\(latency),"
            + "\"error\":\(optional(result.failure?.message)),\"nat64Prefix\":\(optional(result.nat64Prefix))"
            + IPFamily.allCases.map { ",\"\($0.rawValue)\":" + json(result.family($0)) }.joined()
            + (result.proxy.map { ",\"proxy\":\(quote($0))" } ?? "") + "}"
    }

    /// A family's verdict in `probe --json`: `{"connectivity","step","url","httpStatus","latencyMs","error"}`,
    /// with `connectivity` `unknown` (and the rest null) when the family was not checked.
    static func json(_ family: FamilyConnectivity?) -> String {
        let latency = family?.latencyMilliseconds.map { String(Int($0.rounded())) } ?? "null"
        return "{\"connectivity\":\(quote(family?.connectivity.rawValue ?? Connectivity.unknown.rawValue)),"
            + "\"step\":\(optional(family?.failedStep?.rawValue)),\"url\":\(optional(family?.url)),"
            + "\"httpStatus\":\(family?.httpStatus.map(String.init) ?? "null"),\"latencyMs\":\(latency),"
            + "\"error\":\(optional(family?.failure?.message))}"
    }

    /// One readable line for a check: the verdict and what it means, why when it is not
    /// `full`, then the endpoint that decided (its answer and time only when it answered).
    ///
    ///     13:40:00.000  full: Internet reachable  http://check.test/204 answered 204 in 3 ms
    ///     13:40:00.000  local: DNS does not work — the name check.test did not resolve  endpoint http://check.test/204
    static func human(_ result: ConnectivityResult, time: String = timestamp(), color: Bool) -> String {
        let code = result.connectivity == .full ? "1;32" : result.connectivity == .portal ? "1;33" : "1;31"
        let verdict = result.connectivity.rawValue + ":"
        var meaning = result.connectivity.explanation
        if result.connectivity != .full, let failure = result.failure { meaning += " — " + NetworkPath.visible(failure.message) }
        var words = [color ? "\u{1B}[\(code)m\(verdict)\u{1B}[0m \(meaning)" : verdict + " " + meaning]
        if let portal = result.portalURL { words.append("login at " + NetworkPath.visible(portal)) }
        if let url = result.url {
            if let status = result.httpStatus {
                var answer = NetworkPath.visible(url) + " answered \(status)"
                if let latency = result.latencyMilliseconds { answer += " in \(Int(latency.rounded())) ms" }
                words.append(answer)
            } else {
                words.append("endpoint " + NetworkPath.visible(url))
            }
        }
        if let proxy = result.proxy { words.append("via proxy " + NetworkPath.visible(proxy)) }
        if let prefix = result.nat64Prefix { words.append("NAT64 " + prefix) }
        // A family whose verdict is not the whole check's says so, with where it broke.
        for family in IPFamily.allCases {
            if let verdict = result.family(family), verdict.connectivity != result.connectivity { words.append(verdict.summary(of: family)) }
        }
        return String(time.dropFirst(11).prefix(12)) + "  " + words.joined(separator: "  ")
    }

    /// One readable line: the time, then the path's ``NetworkPath/description``, coloured
    /// on a terminal.
    static func human(_ path: NetworkPath, time: String = timestamp(), color: Bool) -> String {
        let codes: [NetworkPath.Emphasis: String] = [.good: "1;32", .bad: "1;31", .pending: "1;33", .quiet: "2"]
        let line = path.summary { text, emphasis in
            color ? "\u{1B}[\(codes[emphasis] ?? "0")m\(text)\u{1B}[0m" : text
        }
        return String(time.dropFirst(11).prefix(12)) + "  " + line
    }
}
