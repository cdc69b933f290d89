// libFuzzer target: the bytes a client sends `netpath serve` → HTTPRequest.parse →
// HTTPResponse.answer, and the same bytes as a --listen value → ListenAddress.parse.
//
// Input: the bytes of a connection, as the server reads them (it parses whatever has
// arrived so far, so every prefix is parsed too, as a client sending slowly would make it).
// Rules checked for any input: a complete head stays the same head whatever follows it;
// `needMore` only below the 8 KiB bound; an answer's status is one the server names, its
// Content-Length is its body's length, every header line is `Name: value`;
// a listen address prints and parses back to itself.

@testable import NetPathCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let whole = HTTPRequest.parse(bytes)
    check(whole, of: bytes)
    // Prefixes, as the bytes arrive: at most 16 cuts, so a long input stays fast.
    let step = max(1, size / 16)
    for end in stride(from: 0, to: size, by: step) {
        let partial = HTTPRequest.parse(Array(bytes[..<end]))
        check(partial, of: Array(bytes[..<end]))
        if case .head = partial, partial != whole {
            fatalError("a complete head changed when more bytes came: \(partial) then \(whole)")
        }
    }
    let text = String(decoding: bytes.prefix(64), as: UTF8.self)
    if let address = ListenAddress.parse(text) {
        guard ListenAddress.parse(address.description) == address else { fatalError("\(address) does not parse back") }
    }
    return 0
}

func check(_ request: HTTPRequest, of bytes: [UInt8]) {
    switch request {
    case .needMore:
        guard bytes.count < HTTPRequest.maximumSize else { fatalError("needMore past the bound: \(bytes.count) bytes") }
    case .head(let method, let path, let authorization):
        guard !method.isEmpty, path.hasPrefix("/"), !path.contains("?"), !path.contains(" ") else {
            fatalError("a head with method '\(method)' and path '\(path)'")
        }
        if let authorization, authorization.hasPrefix(" ") || authorization.hasSuffix(" ") || authorization.contains("\r") {
            fatalError("an Authorization value not trimmed: '\(authorization)'")
        }
    case .invalid(let status, let reason):
        guard HTTPResponse.reasons[status] != nil, !reason.isEmpty, !reason.contains("\n") else {
            fatalError("an invalid request with status \(status) and reason '\(reason)'")
        }
    }
    let marker = "a 1\n"
    let answer = HTTPResponse.answer(request, metricsContentType: "text/plain; version=0.0.4") { marker }
    guard HTTPResponse.reasons[answer.status] != nil else { fatalError("status \(answer.status) has no reason phrase") }
    let wire = answer.bytes
    guard let end = wire.indices.first(where: { wire[$0...].starts(with: Array("\r\n\r\n".utf8)) }) else {
        fatalError("an answer without the end of its head")
    }
    let head = String(decoding: wire[..<end], as: UTF8.self)
    // By bytes: in a String, "\r\n" is one Character.
    let lines = wire[..<end].split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map { line in
        String(decoding: line.last == UInt8(ascii: "\r") ? line.dropLast() : line, as: UTF8.self)
    }
    guard lines[0].hasPrefix("HTTP/1.1 \(answer.status) "), lines.dropFirst().allSatisfy({ $0.contains(": ") }),
          lines.contains("Content-Length: \(answer.body.count)"), lines.contains("Connection: close") else {
        fatalError("a malformed answer head: \(head)")
    }
    let body = wire[(end + 4)...]
    guard body.count == (answer.omitsBody ? 0 : answer.body.count) else { fatalError("a body of the wrong length") }
}
