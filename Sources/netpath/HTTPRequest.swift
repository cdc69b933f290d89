/// What `netpath serve`'s HTTP server makes of the bytes a client sent so far: pure, so it
/// is fuzzed and tested without sockets.
enum HTTPRequest: Equatable {
    /// The head is not complete yet (and within bounds).
    case needMore
    /// A complete, well-formed request head, with its `Authorization` header if it has one.
    case head(method: String, path: String, authorization: String? = nil)
    /// A request the server refuses, with the status to answer and why.
    case invalid(status: Int, reason: String)

    /// The most bytes a request head may take (request line and headers).
    static let maximumSize = 8 * 1024

    /// Reads the head of an HTTP/1.0 or 1.1 request from `bytes`. The request line and
    /// `Authorization` matter to the server; other header lines are checked for shape
    /// (`name: value`), a body is never read.
    static func parse(_ bytes: [UInt8]) -> HTTPRequest {
        let newline = UInt8(ascii: "\n"), carriageReturn = UInt8(ascii: "\r")
        // Lines end with CRLF, or a bare LF (RFC 9112 allows a recipient to accept it).
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        var complete = false
        for index in bytes.indices where bytes[index] == newline {
            var line = bytes[start..<index]
            if line.last == carriageReturn { line = line.dropLast() }
            start = index + 1
            if line.isEmpty {
                if lines.isEmpty { continue }  // leading empty lines are ignored (RFC 9112 2.2)
                complete = true
                break
            }
            lines.append(line)
        }
        guard complete else {
            guard bytes.count < maximumSize else {
                return lines.isEmpty ? .invalid(status: 414, reason: "the request line is longer than 8 KiB")
                    : .invalid(status: 431, reason: "the request head is longer than 8 KiB")
            }
            if let bad = bytes.first(where: { !isAllowed($0) }) {
                return .invalid(status: 400, reason: "byte \(bad) in the request head")
            }
            return .needMore
        }
        guard start <= maximumSize else { return .invalid(status: 431, reason: "the request head is longer than 8 KiB") }
        for line in lines where !line.allSatisfy(isAllowed) {
            return .invalid(status: 400, reason: "a control byte in the request head")
        }
        let words = lines[0].split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard words.count == 3, !words[0].isEmpty, words[0].allSatisfy(isTokenByte), !words[1].isEmpty else {
            return .invalid(status: 400, reason: "not an HTTP request line")
        }
        let version = String(decoding: words[2], as: UTF8.self)
        guard version.hasPrefix("HTTP/") else { return .invalid(status: 400, reason: "not an HTTP request line") }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return .invalid(status: 505, reason: "version \(version) is not supported")
        }
        var authorization: String?
        for header in lines.dropFirst() {
            guard let colon = header.firstIndex(of: UInt8(ascii: ":")), colon > header.startIndex,
                  header[header.startIndex..<colon].allSatisfy(isTokenByte) else {
                return .invalid(status: 400, reason: "a malformed header line")
            }
            if String(decoding: header[header.startIndex..<colon], as: UTF8.self).lowercased() == "authorization" {
                guard authorization == nil else { return .invalid(status: 400, reason: "two Authorization headers") }
                authorization = String(decoding: header[(colon + 1)...], as: UTF8.self).trimmingSpaces()
            }
        }
        guard let path = path(of: String(decoding: words[1], as: UTF8.self)) else {
            return .invalid(status: 400, reason: "a request target that is not a path")
        }
        return .head(method: String(decoding: words[0], as: UTF8.self), path: path, authorization: authorization)
    }

    /// The path of a request target in origin form (`/metrics?x`) or absolute form
    /// (`http://host/metrics`), without its query; `nil` for anything else.
    private static func path(of target: String) -> String? {
        var path = target
        let lower = target.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            let rest = target.drop { $0 != ":" }.dropFirst(3)
            path = rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
        }
        guard path.hasPrefix("/") else { return nil }
        if let query = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<query]) }
        return path
    }

    /// Printable ASCII, space and tab: what a request head may hold besides line ends.
    private static func isAllowed(_ byte: UInt8) -> Bool {
        (0x20..<0x7F).contains(byte) || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// The characters of a method or header name (RFC 9110 `token`).
    private static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }
}

/// The server's answer to one request, before it is written.
struct HTTPResponse: Equatable {
    var status: Int
    var headers: [(String, String)]
    var body: [UInt8]
    /// `HEAD`: the headers of a `GET`, no body.
    var omitsBody = false

    static func == (lhs: HTTPResponse, rhs: HTTPResponse) -> Bool {
        lhs.status == rhs.status && lhs.headers.map(\.0) == rhs.headers.map(\.0) && lhs.headers.map(\.1) == rhs.headers.map(\.1)
            && lhs.body == rhs.body && lhs.omitsBody == rhs.omitsBody
    }

    static let reasons: [Int: String] = [
        200: "OK", 400: "Bad Request", 401: "Unauthorized", 404: "Not Found", 405: "Method Not Allowed", 408: "Request Timeout",
        414: "URI Too Long", 431: "Request Header Fields Too Large", 503: "Service Unavailable",
        505: "HTTP Version Not Supported",
    ]

    /// The answer to `request`: `/metrics` and `/` for `GET` and `HEAD`, 404 and 405
    /// otherwise, the parser's status for an invalid request. `metrics` is called only
    /// for `/metrics`, whose type is `metricsContentType`.
    static func answer(_ request: HTTPRequest, metricsContentType: String, metrics: () -> String) -> HTTPResponse {
        switch request {
        case .needMore:
            return plain(400, "incomplete request\n")
        case .invalid(let status, let reason):
            return plain(status, reason + "\n")
        case .head(let method, let path, _):
            guard path == "/metrics" || path == "/" else { return plain(404, "not found; the metrics are at /metrics\n", head: method == "HEAD") }
            guard method == "GET" || method == "HEAD" else {
                var refused = plain(405, "only GET and HEAD\n")
                refused.headers.append(("Allow", "GET, HEAD"))
                return refused
            }
            if path == "/" {
                let page = "<html><head><title>netpath</title></head><body><h1>netpath serve</h1>"
                    + "<p><a href=\"/metrics\">Metrics</a></p></body></html>\n"
                return HTTPResponse(status: 200, headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(page.utf8),
                                    omitsBody: method == "HEAD")
            }
            return HTTPResponse(status: 200, headers: [("Content-Type", metricsContentType)], body: Array(metrics().utf8),
                                omitsBody: method == "HEAD")
        }
    }

    /// No valid credentials (`basic_auth_users`): as exporter-toolkit answers.
    static let unauthorized: HTTPResponse = {
        var response = plain(401, "Unauthorized\n")
        response.headers.append(("WWW-Authenticate", "Basic"))
        return response
    }()

    /// A plain-HTTP request to a TLS port: as Go's servers answer it.
    static let plainHTTPToTLS = plain(400, "Client sent an HTTP request to an HTTPS server.\n")

    private static func plain(_ status: Int, _ text: String, head: Bool = false) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(text.utf8), omitsBody: head)
    }

    /// The bytes on the wire: status line, headers, `Content-Length`, `Connection: close`.
    var bytes: [UInt8] {
        var head = "HTTP/1.1 \(status) \(HTTPResponse.reasons[status] ?? "Status")\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
        return Array(head.utf8) + (omitsBody ? [] : body)
    }
}

/// Where `netpath serve` listens: `HOST:PORT`, `[IPV6]:PORT`, or `:PORT` for every address.
struct ListenAddress: Equatable, CustomStringConvertible {
    /// An IPv4 or IPv6 address, or empty for every address (IPv6 and IPv4).
    var host: String
    var port: UInt16

    /// Parses `text`; `nil` when it is not of one of the three forms.
    static func parse(_ text: String) -> ListenAddress? {
        guard let colon = text.lastIndex(of: ":") else { return nil }
        var host = String(text[..<colon])
        let portText = text[text.index(after: colon)...]
        guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy({ $0.isASCII && $0.isNumber }),
              let port = UInt16(portText) else { return nil }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return nil }
            host = String(host.dropFirst().dropLast())
            guard host.contains(":") else { return nil }
        } else if host.contains(":") {
            return nil  // an IPv6 address needs its brackets
        }
        return ListenAddress(host: host, port: port)
    }

    var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

extension StringProtocol {
    /// Without spaces and tabs at either end.
    func trimmingSpaces() -> String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
