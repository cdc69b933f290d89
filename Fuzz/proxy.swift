// libFuzzer target: the environment's proxy variables → ConnectivityCheck.Proxy, as curl
// reads them: proxy URLs (ProxyServer.parse) and no_proxy lists (NoProxyList), then the
// proxy each of a few endpoints gets and the request it is sent.
//
// Input: `NAME=VALUE` entries separated by NUL bytes or newlines (the environment a
// process inherits: nothing in it is ours); the first entry's value is also parsed alone
// as a proxy URL and as a no_proxy list. Rules checked for any input: a proxy as shown
// never holds its credentials; a usable one prints as `http://host:port` and parses back
// to itself; `*` alone matches every host; a request to a proxy is in absolute form and
// carries `Proxy-Authorization` exactly when the URL held credentials; so does a CONNECT
// request, one head naming the endpoint's host and port.

@testable import NetPathCore

let endpoints = ["http://check.test/204", "http://www.example.com:8080/a?b", "http://10.1.2.3/", "http://[fd00::1]/x",
                 "http://localhost/"].map { try! HTTPTarget($0) }

func check(_ server: ProxyServer) {
    if server.credentials != nil, server.url.contains("@") { fatalError("a proxy shown with its credentials: \(server.url)") }
    guard server.unusable == nil else { return }
    let again = ProxyServer.parse(server.url, variable: server.variable)
    guard again.url == server.url, again.host == server.host, again.port == server.port, again.address == server.address,
          again.unusable == nil, server.port > 0 else { fatalError("a proxy URL that does not parse back to itself: \(server.url)") }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var environment: [String: String] = [:]
    var first: String?
    for entry in bytes.split(whereSeparator: { $0 == 0 || $0 == 0x0A }) {
        let text = String(decoding: entry, as: UTF8.self)
        guard let equals = text.firstIndex(of: "=") else { continue }
        let value = String(text[text.index(after: equals)...])
        environment[String(text[..<equals])] = value
        first = first ?? value
    }
    if let first {
        check(ProxyServer.parse(first, variable: "fuzz"))
        let list = NoProxyList(first)
        for endpoint in endpoints {
            let matched = list.matches(host: endpoint.host, address: endpoint.address)
            if list.everything && !matched { fatalError("'*' does not match \(endpoint.host)") }
        }
        _ = list.description
    }
    // The same bytes as a SOCKS5 proxy's answers: a value or a reason, and `complete`
    // only for exactly one answer.
    if case .complete(let code) = SOCKS5.connectAnswer(bytes), code == 0, bytes.count < 10 { fatalError("a SOCKS5 success shorter than its smallest form") }
    if case .complete = SOCKS5.twoByteAnswer(bytes, version: 5), bytes.count != 2 { fatalError("a SOCKS5 answer of \(bytes.count) bytes") }
    let proxy = ConnectivityCheck.Proxy(environment: environment)
    _ = proxy.description
    for endpoint in endpoints {
        for scheme in ["http", "https"] {
            guard let server = proxy.server(for: endpoint, scheme: scheme) else { continue }
            check(server)
            guard server.unusable == nil else { continue }
            if server.isSOCKS {
                // A SOCKS5 request names the endpoint's host (≤ 255 bytes) and port; credentials
                // go as RFC 1929 asks, or not at all when too long.
                guard let request = SOCKS5.connect(to: endpoint), request.count <= 4 + 1 + 255 + 2,
                      Array(request.suffix(2)) == [UInt8(endpoint.port >> 8), UInt8(endpoint.port & 0xFF)] else {
                    fatalError("no SOCKS5 request for \(endpoint.host)")
                }
                if let credentials = server.credentials, let message = SOCKS5.authentication(credentials), message.count > 2 + 255 + 1 + 255 {
                    fatalError("an RFC 1929 message over its bounds")
                }
                continue
            }
            let request = String(decoding: endpoint.request(via: server), as: UTF8.self)
            guard request.hasPrefix("GET http://\(endpoint.hostHeader)\(endpoint.path) HTTP/1.1\r\n"),
                  request.contains("Proxy-Authorization: Basic ") == (server.credentials != nil) else {
                fatalError("a request to a proxy not in absolute form, or with credentials it was not given")
            }
            // The tunnel's request: one head, the authority with its port, credentials as given.
            let tunnel = String(decoding: endpoint.connectRequest(via: server), as: UTF8.self)
            let authority = (endpoint.address?.family == IPAddress.inet6 ? "[\(endpoint.host)]" : endpoint.host) + ":\(endpoint.port)"
            guard tunnel.hasPrefix("CONNECT \(authority) HTTP/1.1\r\nHost: \(authority)\r\n"), tunnel.hasSuffix("\r\n\r\n"),
                  tunnel.utf8.count == tunnel.split(separator: "\r\n\r\n", omittingEmptySubsequences: false)[0].utf8.count + 4,
                  tunnel.contains("Proxy-Authorization: Basic ") == (server.credentials != nil) else {
                fatalError("a CONNECT request that is not one head for the endpoint's authority: \(tunnel)")
            }
        }
    }
    return 0
}
