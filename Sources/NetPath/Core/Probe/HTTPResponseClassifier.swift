/// Judges an HTTP response against an ``ConnectivityCheck/Expectation`` as its bytes
/// arrive. Pure: bytes in, verdict out; it never reads past the size bound, and malformed
/// bytes give a verdict, never a trap.
package struct HTTPResponseClassifier {
    package enum Verdict: Equatable {
        /// Not enough bytes yet.
        case needMore
        /// The expected answer.
        case pass(status: Int)
        /// A valid HTTP response, but not the expected one (a portal's signature).
        case unexpected(status: Int, location: String?, reason: String)
        /// Not HTTP, or cut short: the endpoint did not really answer.
        case malformed(reason: String)
        /// An HTTP error (4xx, 5xx other than 511) that was not the expected status: the
        /// endpoint itself is broken or gone, which is not what a captive portal does.
        case httpError(status: Int, reason: String)
    }

    package struct Head: Equatable {
        package var status: Int
        package var headers: [(name: String, value: String)]
        package var bodyStart: Int

        package static func == (lhs: Head, rhs: Head) -> Bool {
            lhs.status == rhs.status && lhs.bodyStart == rhs.bodyStart
                && lhs.headers.map(\.name) == rhs.headers.map(\.name) && lhs.headers.map(\.value) == rhs.headers.map(\.value)
        }

        package func header(_ name: String) -> String? {
            let lower = name.lowercased()
            return headers.first { $0.name.lowercased() == lower }?.value
        }
    }

    package enum HeadParse: Equatable {
        case head(Head)
        case invalid(String)
    }

    package let expectation: ConnectivityCheck.Expectation
    package let limit: Int

    package init(expectation: ConnectivityCheck.Expectation, limit: Int) {
        self.expectation = expectation
        self.limit = limit
    }

    /// Parses the status line and headers, or tells why it cannot.
    package static func parseHead(_ bytes: [UInt8], limit: Int) -> HeadParse? {
        // The end of the head: CRLF CRLF (a bare LF LF is accepted, as browsers do).
        var end: Int?
        var bodyStart = 0
        var index = 0
        while index < bytes.count {
            if bytes[index] == 0x0A {
                if index + 1 < bytes.count && bytes[index + 1] == 0x0A { end = index; bodyStart = index + 2; break }
                if index + 2 < bytes.count && bytes[index + 1] == 0x0D && bytes[index + 2] == 0x0A { end = index; bodyStart = index + 3; break }
            }
            index += 1
        }
        guard let end else {
            // Not HTTP at all is known from the first bytes.
            let prefix = Array("HTTP/".utf8)
            let shown = bytes.prefix(prefix.count)
            if !shown.elementsEqual(prefix.prefix(shown.count)) { return .invalid("not an HTTP response") }
            return bytes.count >= limit ? .invalid("no complete HTTP header within \(limit) bytes") : nil
        }
        let lines = bytes[0..<end].split(separator: 0x0A, omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
        }
        guard let statusLine = lines.first else { return .invalid("empty response") }
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0] == "HTTP/1.1" || parts[0] == "HTTP/1.0",
              parts[1].count == 3, let status = Int(parts[1]), (100...599).contains(status) else {
            return .invalid("not an HTTP response")
        }
        var headers: [(String, String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":"), colon != line.startIndex else {
                return .invalid("malformed HTTP header line")
            }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headers.append((name, String(value.reversed().drop { $0 == " " || $0 == "\t" }.reversed())))
        }
        return .head(Head(status: status, headers: headers, bodyStart: bodyStart))
    }

    /// 511 Network Authentication Required (RFC 6585): what a captive portal answers.
    package static let networkAuthenticationRequired = 511

    /// The verdict on the bytes received so far.
    ///
    /// An answer in place of the expected one (``Verdict/unexpected(status:location:reason:)``)
    /// without a `Location` waits for the rest of its page, which may name the portal in a
    /// `<meta http-equiv="refresh">` (``refreshTarget(in:)``); ``portal(in:)`` gives it
    /// without waiting, when the time is up.
    ///
    /// - Parameters:
    ///   - bytes: Everything received, at most `limit` bytes.
    ///   - finished: The server closed the connection (or the size bound was reached).
    package func verdict(_ bytes: [UInt8], finished: Bool) -> Verdict {
        let finished = finished || bytes.count >= limit
        let head: Head, response: [UInt8]
        switch finalHead(bytes) {
        case nil:
            return finished ? .malformed(reason: bytes.isEmpty ? "no answer before the connection closed" : "the HTTP header was cut short") : .needMore
        case .invalid(let reason)?: return .malformed(reason: reason)
        case .head(let final, let bytes)?: (head, response) = (final, bytes)
        }
        let verdict = judge(head, response, finished: finished)
        guard case .unexpected(let status, nil, let reason) = verdict else { return verdict }
        let body = HTTPResponseClassifier.body(response, head: head)
        if let target = HTTPResponseClassifier.refreshTarget(in: body.bytes) {
            return .unexpected(status: status, location: target, reason: reason)
        }
        return body.complete || finished ? verdict : .needMore
    }

    /// The answer in place of the expected one that `bytes` already are, with the refresh
    /// target found so far, though the page is not all there; `nil` when they are not one.
    package func portal(in bytes: [UInt8]) -> Verdict? {
        guard case .head(let head, let response)? = finalHead(bytes),
              case .unexpected(let status, nil, let reason) = judge(head, response, finished: false) else { return nil }
        let target = HTTPResponseClassifier.refreshTarget(in: HTTPResponseClassifier.body(response, head: head).bytes)
        return .unexpected(status: status, location: target, reason: reason)
    }

    private enum FinalHead {
        case head(Head, response: [UInt8])
        case invalid(String)
    }

    /// The final response's head, and the bytes it starts: interim (1xx) responses before
    /// it, such as `103 Early Hints`, are skipped (RFC 9110 §15.2). `nil` when it is not all
    /// there yet.
    private func finalHead(_ bytes: [UInt8]) -> FinalHead? {
        var response = bytes
        while true {
            switch HTTPResponseClassifier.parseHead(response, limit: limit) {
            case nil:
                return nil
            case .invalid(let reason)?:
                return .invalid(reason)
            case .head(let head)? where head.status == Self.switchingProtocols:
                // Only a request that asked to upgrade may be answered so (RFC 9110 §15.2.2).
                return .invalid("HTTP 101 to a request that asked for no other protocol")
            case .head(let head)? where (100..<200).contains(head.status):
                response = Array(response[head.bodyStart...])
            case .head(let head)?:
                return .head(head, response: response)
            }
        }
    }

    /// 101 Switching Protocols: not an interim response, though a 1xx.
    private static let switchingProtocols = 101

    /// The verdict on a final response, the page's refresh target aside.
    private func judge(_ head: Head, _ bytes: [UInt8], finished: Bool) -> Verdict {
        let location = (300..<400).contains(head.status) ? head.header("Location") : nil
        func unexpected(_ reason: String) -> Verdict {
            .unexpected(status: head.status, location: location, reason: reason)
        }
        if (400..<600).contains(head.status), head.status != Self.networkAuthenticationRequired, head.status != expectation.status {
            return .httpError(status: head.status, reason: "the endpoint answered HTTP \(head.status), an error, not a portal's page")
        }
        if let status = expectation.status {
            guard head.status == status else { return unexpected("HTTP \(head.status), expected \(status)") }
        } else if head.status != 204 && head.status != 200 {
            return unexpected("HTTP \(head.status), expected 204 or an empty 200")
        }
        if let header = expectation.header {
            guard head.header(header.name) == header.value else {
                return unexpected("no '\(header.name): \(header.value)' header")
            }
        }
        let body = HTTPResponseClassifier.body(bytes, head: head)
        if let prefix = expectation.bodyPrefix.map({ Array($0.utf8) }), !prefix.isEmpty {
            if body.bytes.count >= prefix.count {
                return body.bytes.starts(with: prefix) ? .pass(status: head.status) : unexpected("the body is not the expected text")
            }
            if !body.bytes.elementsEqual(prefix.prefix(body.bytes.count)) { return unexpected("the body is not the expected text") }
            return finished || body.complete ? unexpected("the body is shorter than the expected text") : .needMore
        }
        if expectation.status == nil && head.status == 200 {
            // An empty 200 passes; a 200 with content is a login page.
            if !body.bytes.isEmpty { return unexpected("HTTP 200 with content, expected an empty answer") }
            return body.complete || finished ? .pass(status: 200) : .needMore
        }
        return .pass(status: head.status)
    }

    /// The target of the page's first `<meta http-equiv="refresh" content="N; url=…">`
    /// (names and `url=` compare without case; quotes optional; `&amp;` decoded), as
    /// written: relative targets are made absolute by ``ProbeVerdict/absolute(_:from:)``.
    /// Only a complete tag counts; `nil` when there is none, or its target is empty, longer
    /// than 2048 bytes or holds control characters.
    package static func refreshTarget(in body: ArraySlice<UInt8>) -> String? {
        let page = Array(body)
        let lower = page.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        let open = Array("<meta".utf8)
        var index = 0
        while index + open.count <= lower.count {
            guard lower[index..<(index + open.count)].elementsEqual(open) else { index += 1; continue }
            index += open.count
            guard let (attributes, end) = metaAttributes(page, lower, from: index) else { return nil }
            index = end
            if attributes["http-equiv"].map(lowercasedASCII) == "refresh", let content = attributes["content"],
               let target = refreshURL(content) {
                return target
            }
        }
        return nil
    }

    /// A tag's attributes from just after its name, names lowercased, and the index after
    /// its `>`; `nil` when the tag is not complete.
    private static func metaAttributes(_ page: [UInt8], _ lower: [UInt8], from start: Int) -> ([String: [UInt8]], Int)? {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D }
        var attributes: [String: [UInt8]] = [:]
        var index = start
        while true {
            while index < page.count && (isSpace(page[index]) || page[index] == 0x2F) { index += 1 }
            guard index < page.count else { return nil }
            if page[index] == 0x3E { return (attributes, index + 1) }
            let nameStart = index
            while index < page.count && !isSpace(page[index]) && page[index] != 0x3D && page[index] != 0x3E { index += 1 }
            let name = String(decoding: lower[nameStart..<index], as: UTF8.self)
            while index < page.count && isSpace(page[index]) { index += 1 }
            var value: [UInt8] = []
            if index < page.count && page[index] == 0x3D {
                index += 1
                while index < page.count && isSpace(page[index]) { index += 1 }
                guard index < page.count else { return nil }
                if page[index] == 0x22 || page[index] == 0x27 {
                    let quote = page[index]
                    guard let close = page[(index + 1)...].firstIndex(of: quote) else { return nil }
                    value = Array(page[(index + 1)..<close])
                    index = close + 1
                } else {
                    let valueStart = index
                    while index < page.count && !isSpace(page[index]) && page[index] != 0x3E { index += 1 }
                    value = Array(page[valueStart..<index])
                }
            }
            if attributes[name] == nil { attributes[name] = value }
        }
    }

    /// The URL of a refresh's `content` (HTML's "shared declarative refresh steps"): a time,
    /// then `;` or `,`, then `url=` (optional), then the URL, quoted or not.
    private static func refreshURL(_ content: [UInt8]) -> String? {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D }
        var rest = ArraySlice(content)
        rest = rest.drop(while: isSpace).drop { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }.drop(while: isSpace)
        guard let separator = rest.first, separator == 0x3B || separator == 0x2C else { return nil }
        rest = rest.dropFirst().drop(while: isSpace)
        if rest.count >= 3, lowercasedASCII(Array(rest.prefix(3))) == "url" {
            let after = rest.dropFirst(3).drop(while: isSpace)
            if after.first == 0x3D { rest = after.dropFirst().drop(while: isSpace) }
        }
        if let quote = rest.first, quote == 0x22 || quote == 0x27 {
            rest = rest.dropFirst()
            if let close = rest.firstIndex(of: quote) { rest = rest[..<close] }
        }
        while let last = rest.last, isSpace(last) { rest = rest.dropLast() }
        var target = String(decoding: rest, as: UTF8.self)
        target = target.replacingAll("&amp;", with: "&")
        guard !target.isEmpty, target.utf8.count <= 2048, !target.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            return nil
        }
        return target
    }

    private static func lowercasedASCII(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// The body received so far (chunked transfer decoded), and whether it is complete.
    package static func body(_ bytes: [UInt8], head: Head) -> (bytes: ArraySlice<UInt8>, complete: Bool) {
        let raw = bytes[head.bodyStart...]
        if head.status == 204 || head.status == 304 || (100..<200).contains(head.status) { return ([], true) }
        if head.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            var decoded: [UInt8] = []
            var index = raw.startIndex
            while true {
                guard let lineEnd = raw[index...].firstIndex(of: 0x0A) else { return (decoded[...], false) }
                let sizeText = String(decoding: raw[index..<lineEnd], as: UTF8.self)
                    .split(separator: ";").first.map { $0.trimmingCharacters(in: " \r") } ?? ""
                // 1 to 8 hex digits, nothing else (no sign: a "-1" once trapped here; found by
                // the fuzzer, Fuzz/regressions/http-1). Broken chunking is a body that is not
                // the expected one: the rest counts as content.
                guard !sizeText.isEmpty, sizeText.count <= 8, sizeText.allSatisfy(\.isHexDigit),
                      let size = Int(sizeText, radix: 16) else {
                    return ((decoded + raw[index...])[...], true)
                }
                if size == 0 { return (decoded[...], true) }
                let start = lineEnd + 1
                let available = min(size, raw.endIndex - start)
                decoded.append(contentsOf: raw[start..<(start + available)])
                guard available == size, start + size + 2 <= raw.endIndex else { return (decoded[...], false) }
                index = start + size + 2
            }
        }
        if let lengthText = head.header("Content-Length"), let length = Int(lengthText.trimmingCharacters(in: " ")), length >= 0 {
            return (raw.prefix(length), raw.count >= length)
        }
        return (raw, false)
    }
}

extension String {
    /// Drops the given characters at both ends (Foundation-free).
    package func trimmingCharacters(in set: String) -> String {
        let characters = Set(set)
        return String(drop { characters.contains($0) }.reversed().drop { characters.contains($0) }.reversed())
    }
}

extension String {
    /// Every occurrence of `pattern` replaced (Foundation-free).
    package func replacingAll(_ pattern: String, with replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: pattern) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}

extension Substring {
    package func trimmingCharacters(in set: String) -> String { String(self).trimmingCharacters(in: set) }
}
