/// SPEC 2.6: which resolver files the process sees, and whether they name a server.
struct ResolverConfiguration: Sendable {
    /// The systemd-resolved stub addresses; behind them the upstream servers count.
    static let stubServers: [String] = ["127.0.0.53", "127.0.0.54"]
    static let systemdUpstream = "/run/systemd/resolve/resolv.conf"

    /// Resolver files in order of preference: the first that exists is the one in use.
    var candidates: [String]
    /// The file with systemd-resolved's upstream servers.
    var upstreamFile: String = ResolverConfiguration.systemdUpstream

    /// For a named namespace, `/etc/netns/NAME/resolv.conf` while it exists (the `ip netns
    /// exec` convention); for a process's namespace (`/proc/PID/ns/net`, a container's),
    /// that process's own `/etc/resolv.conf` (`/proc/PID/root/etc/resolv.conf`, and its
    /// systemd-resolved upstream file the same way); else `/etc/resolv.conf`.
    static func forNamespace(_ namespace: NetworkNamespace?) -> ResolverConfiguration {
        if let root = namespace.flatMap(processRoot) {
            return ResolverConfiguration(candidates: [root + "/etc/resolv.conf"], upstreamFile: root + systemdUpstream)
        }
        var candidates = ["/etc/resolv.conf"]
        if let name = namespace?.name { candidates.insert("/etc/netns/\(name)/resolv.conf", at: 0) }
        return ResolverConfiguration(candidates: candidates)
    }

    /// `/proc/PID/root` for a namespace file `/proc/PID/ns/net`, else `nil`.
    static func processRoot(of namespace: NetworkNamespace) -> String? {
        let parts = namespace.path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "proc", parts[3] == "ns", parts[4] == "net",
              !parts[2].isEmpty, parts[2].allSatisfy(\.isASCII), parts[2].allSatisfy(\.isNumber) || parts[2] == "self"
        else { return nil }
        return "/proc/\(parts[2])/root"
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

    /// Whether a server is configured, reading files with `read` (`nil`: it does not exist
    /// or cannot be read, and the next candidate is tried).
    func hasServer(read: (String) -> [UInt8]?) -> Bool {
        !servers(read: read).isEmpty
    }

    /// The servers in use: those of the first resolver file that exists, or behind the
    /// systemd-resolved stub, its upstream servers.
    func servers(read: (String) -> [UInt8]?) -> [String] {
        guard let bytes = candidates.lazy.compactMap(read).first else { return [] }
        let servers = ResolverConfiguration.nameservers(in: bytes)
        if !servers.isEmpty && servers.allSatisfy(ResolverConfiguration.stubServers.contains) {
            guard let upstream = read(upstreamFile) else { return [] }
            return ResolverConfiguration.nameservers(in: upstream)
        }
        return servers
    }

    /// The files whose changes can change the answer.
    var watchedFiles: [String] { candidates + [upstreamFile] }

    /// The directories whose changes can change the answer.
    var watchedDirectories: [String] {
        watchedFiles.map(ResolverConfiguration.directory(of:))
    }

    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
