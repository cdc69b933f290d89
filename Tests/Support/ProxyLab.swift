import Foundation
import NetPath
import NetPathSystem

/// A network whose HTTP leaves only through its proxy: a ``RouterLab`` whose router resets
/// the client's connections to ports 80 and 443 (port 8080 is let through), runs
/// proxy_server.py on 10.79.0.1 port 3128 (and, asking for `user:p@ss`, port 3130), as a
/// SOCKS5 proxy on ports 1080 and 1081 (the same credentials), and whose DNS answers
/// `proxy.test` with that address. Nothing listens on port 3129: a dead proxy.
/// ``remove()`` stops everything and deletes the namespaces.
public final class ProxyLab: @unchecked Sendable {
    // Set up in init, torn down in remove(); used by one test.
    public let router: RouterLab
    public var client: TestNamespace { router.client }
    /// The proxy's log: one line per request, its request line and `Proxy-Authorization` (or `-`).
    public let logFile: String
    private let programs = ProbeLab.Programs()

    public static let proxyAddress = "10.79.0.1"
    public static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("proxy_server.py").path
    public static let credentials = "user:p@ss"

    public init() throws {
        router = try RouterLab(uplink: .httpBlocked, names: ["proxy.test": ProxyLab.proxyAddress])
        logFile = "/tmp/netpath-proxy-log-\(router.client.name)"
        do {
            for (port, auth, socks) in [(3128, nil, false), (3130, ProxyLab.credentials, false), (1080, nil, true),
                                        (1081, ProxyLab.credentials, true)] as [(Int, String?, Bool)] {
                try programs.start([Kernel.ipPath, "netns", "exec", router.router.name, "/usr/bin/env", "python3", ProxyLab.script,
                                    "--port", "\(port)", "--bind", ProxyLab.proxyAddress, "--log", logFile,
                                    "--resolve", "check.test=\(RouterLab.endpointAddress)"] + (auth.map { ["--auth", $0] } ?? [])
                                    + (socks ? ["--socks"] : []),
                                   readyWhenOutputContains: "ready")
            }
        } catch {
            remove()
            throw error
        }
    }

    /// Serves HTTPS on the endpoint's address, port 443, with `certificate` and `key` (PEM
    /// files): what a `CONNECT` tunnel reaches.
    public func startHTTPS(certificate: String, key: String) throws {
        let script = URL(fileURLWithPath: ProxyLab.script).deletingLastPathComponent().appendingPathComponent("https_server.py").path
        try programs.start([Kernel.ipPath, "netns", "exec", router.upstream.name, "/usr/bin/env", "python3", script,
                            "--bind", RouterLab.endpointAddress, "--port", "443", "--cert", certificate, "--key", key],
                           readyWhenOutputContains: "ready")
    }

    /// The requests the proxies received so far.
    public func requests() -> [String] {
        ((try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
    }

    public func remove() {
        programs.stopAll()
        router.remove()
        try? FileManager.default.removeItem(atPath: logFile)
    }
}
