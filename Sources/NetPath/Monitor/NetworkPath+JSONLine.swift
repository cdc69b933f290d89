
extension NetworkPath {
    /// The path as one line of `netpath watch --json`, without the newline.
    ///
    /// - Parameters:
    ///   - time: The `time` value; the current UTC time (`2026-11-30T04:10:27.123Z`) by default.
    ///   - includingConnectivity: Add `connectivity` and `portalURL` (as `--probe` does).
    /// - Returns: A JSON object that ``init(jsonLine:)`` reads back to the same path but for
    ///   what a line leaves out: of each family's check, the verdict and its failure (with the
    ///   step) only, not its URL, HTTP status or latency; and without `includingConnectivity`,
    ///   the connectivity.
    public func jsonLine(time: String? = nil, includingConnectivity: Bool = true) -> String {
        jsonLine(at: time ?? JSONLine.now(), includingConnectivity: includingConnectivity)
    }
}

extension JSONLine {
    /// The current UTC time as `2026-11-30T04:10:27.123Z`.
    package static func now() -> String {
        let now = SystemClock.unixTime()
        var line = JSONLine()
        line.appendUTC(seconds: now.seconds, milliseconds: now.milliseconds)
        return line.text
    }
}
