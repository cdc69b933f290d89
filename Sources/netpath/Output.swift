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


    /// `probe --json`: `{"time","connectivity","portalURL","url","httpStatus","latencyMs","error","nat64Prefix"}`,
    /// and `"proxy"` when the verdict's endpoint was reached through one (a new key is added
    /// only where it says something, so readers of the old lines see them unchanged).
    static func json(_ result: ConnectivityResult, time: String = timestamp()) -> String {
        let latency = result.latencyMilliseconds.map { String(Int($0.rounded())) } ?? "null"
        return "{\"time\":\(quote(time)),\"connectivity\":\(quote(result.connectivity.rawValue)),"
            + "\"portalURL\":\(optional(result.portalURL)),\"url\":\(optional(result.url)),"
            + "\"httpStatus\":\(result.httpStatus.map(String.init) ?? "null"),\"latencyMs\":\(latency),"
            + "\"error\":\(optional(result.failure?.message)),\"nat64Prefix\":\(optional(result.nat64Prefix))"
            + (result.proxy.map { ",\"proxy\":\(quote($0))" } ?? "") + "}"
    }

    /// One readable line for a check: the verdict, the endpoint, the answer or the error.
    static func human(_ result: ConnectivityResult, time: String = timestamp(), color: Bool) -> String {
        let code = result.connectivity == .full ? "1;32" : result.connectivity == .portal ? "1;33" : "1;31"
        var words = [color ? "\u{1B}[\(code)m\(result.connectivity.rawValue)\u{1B}[0m" : result.connectivity.rawValue,
                     result.connectivity.explanation]
        if let portal = result.portalURL { words.append("login at " + NetworkPath.visible(portal)) }
        if let url = result.url {
            var answer = NetworkPath.visible(url)
            if let status = result.httpStatus { answer += " answered \(status)" }
            if let latency = result.latencyMilliseconds { answer += " in \(Int(latency.rounded())) ms" }
            words.append(answer)
        }
        if let proxy = result.proxy { words.append("via proxy " + NetworkPath.visible(proxy)) }
        if let prefix = result.nat64Prefix { words.append("NAT64 " + prefix) }
        if result.connectivity != .full, let failure = result.failure { words.append("— " + NetworkPath.visible(failure.message)) }
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
