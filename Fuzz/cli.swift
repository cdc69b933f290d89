// libFuzzer target: the command line → Arguments.parse and connectivityCheck().
//
// Input: the words after the program name, separated by NUL bytes (as in
// /proc/PID/cmdline, where no word can hold a NUL). Every usage error must be a thrown
// UsageError with a one-line message; a parsed request with the connectivity check on
// must give a check whose URLs parse and whose bounds hold; interface patterns
// (--metered, --constrained) are well formed and match as documented.

@testable import NetPathCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let words = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
    do {
        guard case .run(let arguments) = try Arguments.parse(size == 0 ? [] : words) else { return 0 }
        // Interface patterns: never empty; a plain name matches itself and nothing longer.
        for pattern in arguments.paths.metered + arguments.paths.constrained {
            guard !pattern.isEmpty, !pattern.contains(","), !pattern.contains("/") else { fatalError("a bad pattern accepted: \(pattern)") }
            if !pattern.contains("*") && !pattern.contains("?") {
                guard InterfaceCosts.matches(pattern, pattern), !InterfaceCosts.matches(pattern, pattern + "0") else {
                    fatalError("a plain name that does not match only itself: \(pattern)")
                }
            }
            for word in words { _ = InterfaceCosts.matches(pattern, word) }
        }
        if let check = try arguments.connectivityCheck() {
            guard !check.endpoints.isEmpty, check.timeout > .zero, check.timeout <= .seconds(300),
                  check.resolutionTimeout <= check.timeout else { fatalError("a check out of bounds") }
            for endpoint in check.endpoints {
                _ = endpoint.target.hostHeader
                _ = DNSMessage.query(id: 1, name: endpoint.target.host, type: DNSMessage.typeA)
                // A portal's relative Location is resolved against the endpoint's path.
                _ = ProbeVerdict.absolute("login?x=1", from: endpoint.target)
            }
        }
    } catch let error as Arguments.UsageError {
        if error.message.contains("\n") && !words.contains(where: { $0.contains("\n") }) {
            fatalError("a usage message of more than one line")
        }
    } catch {
        fatalError("an error that is not a UsageError: \(error)")
    }
    return 0
}
