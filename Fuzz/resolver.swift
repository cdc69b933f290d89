// libFuzzer target: resolver files (resolv.conf) → ResolverConfiguration.
//
// Input: up to three files separated by NUL bytes: the namespace's
// /etc/netns/NAME/resolv.conf, /etc/resolv.conf and systemd-resolved's upstream file
// (a missing part is a missing file). Exercises nameservers(in:) — and through it
// IPAddress's text parser and printer — servers(read:) and hasServer(read:), including
// the systemd-resolved stub rule.

@testable import NetPathCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let parts = bytes.split(separator: 0, maxSplits: 2, omittingEmptySubsequences: false).map(Array.init)
    for server in ResolverConfiguration.nameservers(in: bytes) {
        guard let address = IPAddress(server) else { fatalError("a nameserver that does not parse") }
        // Printing and parsing again must give the same address.
        guard IPAddress(address.description) == address else { fatalError("IPAddress text does not round-trip: \(server)") }
    }
    let configuration = ResolverConfiguration.forNamespace(.named("fuzz"))
    let files = [
        "/etc/netns/fuzz/resolv.conf": parts.count > 1 ? parts[0] : nil,
        "/etc/resolv.conf": parts.count > 1 ? parts[1] : parts.first,
        ResolverConfiguration.systemdUpstream: parts.count > 2 ? parts[2] : nil,
    ]
    let read: (String) -> [UInt8]? = { path in files[path] ?? nil }
    let servers = configuration.servers(read: read)
    if configuration.hasServer(read: read) == servers.isEmpty { fatalError("hasServer disagrees with servers") }
    _ = configuration.watchedFiles
    return 0
}
