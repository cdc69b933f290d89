/// SPEC 2.6: which resolver files the process sees, and whether they name a server.
struct ResolverConfiguration: Sendable {
    /// The systemd-resolved stub addresses; behind them the upstream servers count.
    static let stubServers: Set<String> = ["127.0.0.53", "127.0.0.54"]
    static let systemdUpstream = "/run/systemd/resolve/resolv.conf"

    /// The resolver file the process reads first.
    var primaryFile: String
    /// The file with systemd-resolved's upstream servers.
    var upstreamFile: String = ResolverConfiguration.systemdUpstream

    /// For a named namespace, `/etc/netns/NAME/resolv.conf` when it exists.
    static func forNamespace(_ namespace: NetworkNamespace?, exists: (String) -> Bool) -> ResolverConfiguration {
        if let name = namespace?.name {
            let own = "/etc/netns/\(name)/resolv.conf"
            if exists(own) { return ResolverConfiguration(primaryFile: own) }
        }
        return ResolverConfiguration(primaryFile: "/etc/resolv.conf")
    }

    /// The `nameserver` addresses of a resolv.conf text, in order.
    static func nameservers(in bytes: [UInt8]) -> [String] {
        var servers: [String] = []
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            let text = String(decoding: line, as: UTF8.self)
            let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
            guard words.count >= 2, words[0] == "nameserver" else { continue }
            let server = String(words[1])
            if IPAddress(server) != nil { servers.append(server) }
        }
        return servers
    }

    /// Whether a server is configured, reading files with `read`.
    func hasServer(read: (String) -> [UInt8]?) -> Bool {
        guard let bytes = read(primaryFile) else { return false }
        let servers = ResolverConfiguration.nameservers(in: bytes)
        if !servers.isEmpty && servers.allSatisfy(ResolverConfiguration.stubServers.contains) {
            guard let upstream = read(upstreamFile) else { return false }
            return !ResolverConfiguration.nameservers(in: upstream).isEmpty
        }
        return !servers.isEmpty
    }

    /// The directories whose changes can change the answer.
    var watchedDirectories: [String] {
        var directories = [ResolverConfiguration.directory(of: primaryFile), ResolverConfiguration.directory(of: upstreamFile)]
        if primaryFile != "/etc/resolv.conf" { directories.append("/etc") }
        return directories
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
