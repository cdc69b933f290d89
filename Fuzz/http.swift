// libFuzzer target: an HTTP response, as a connectivity-check endpoint (or a captive
// portal, or anything on the path) sends it → HTTPResponseClassifier → ProbeVerdict.
//
// Input: byte 0 chooses the expectation (the five default endpoints' answers and a few
// custom ones), the size limit and where the response is cut; the rest is the response.
// The classifier is called as LinuxProbe calls it, on what has arrived so far (a prefix)
// and on the whole, with and without `finished`, and on the prefix as the deadline takes it
// (`portal(in:)`); a portal's Location or meta refresh target is made absolute against the
// endpoint's URL, as ProbeVerdict does for `portalURL`.

@testable import NetPathCore

let expectations: [ConnectivityCheck.Expectation] = ConnectivityCheck.defaultEndpoints.map(\.expectation) + [
    ConnectivityCheck.Expectation(status: 204),
    ConnectivityCheck.Expectation(status: 302, header: .init(name: "location", value: "http://portal/")),
    ConnectivityCheck.Expectation(bodyPrefix: "ok"),
]
let targets = ConnectivityCheck.defaultEndpoints + [
    try! ConnectivityCheck.Endpoint("http://[2001:db8::1]:8080/a/b?c=d"),
    try! ConnectivityCheck.Endpoint("http://192.0.2.1"),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 1 else { return 0 }
    let selector = Int(data[0])
    let response = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let limit = selector & 0x80 != 0 ? 1024 : 64 * 1024
    let bytes = Array(response.prefix(limit))  // LinuxProbe never reads past the limit
    let expectation = expectations[selector % expectations.count]
    let endpoint = targets[(selector >> 3) % targets.count]
    let classifier = HTTPResponseClassifier(expectation: expectation, limit: limit)

    let cut = bytes.isEmpty ? 0 : (selector * 7919) % (bytes.count + 1)
    _ = classifier.verdict(Array(bytes[..<cut]), finished: false)
    // At the deadline: a portal's page cut short is its answer; its refresh target, if any,
    // is a target the finished verdict finds too.
    if case .unexpected(_, let target?, _)? = classifier.portal(in: Array(bytes[..<cut])) {
        _ = ProbeVerdict.absolute(target, from: endpoint.target)
    }
    _ = HTTPResponseClassifier.refreshTarget(in: bytes[...])
    _ = HTTPResponseClassifier.parseHead(bytes, limit: limit)
    var outcomes: [(endpoint: ConnectivityCheck.Endpoint, resolved: Bool, verdict: HTTPResponseClassifier.Verdict?,
                    error: ConnectivityFailure?, latency: Duration?)] = []
    for finished in [false, true] {
        let verdict = classifier.verdict(bytes, finished: finished)
        if finished, verdict == .needMore { fatalError("needMore on a finished response") }
        if case .unexpected(_, let location?, _) = verdict {
            _ = ProbeVerdict.absolute(location, from: endpoint.target)
        }
        outcomes.append((endpoint, true, verdict, nil, .milliseconds(1)))
    }
    let result = ProbeVerdict.of(outcomes, elapsed: .milliseconds(2))
    // A pass is full unless an answer in place of the expected one stands beside it (SPEC §3).
    let portal = outcomes.contains { if case .unexpected = $0.verdict { true } else { false } }
    if case .pass = outcomes[1].verdict, result.connectivity != (portal ? .portal : .full) { fatalError("a pass that is neither full nor beside a portal") }
    if result.connectivity == .portal, result.portalURL == nil { fatalError("a portal without a portalURL") }
    return 0
}
