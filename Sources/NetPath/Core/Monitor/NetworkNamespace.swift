/// A Linux network namespace for a monitor to watch instead of the process's own.
public struct NetworkNamespace: Hashable, Sendable, CustomStringConvertible {
    /// The namespace file the monitor opens.
    public let path: String
    /// The name, for a namespace made with `ip netns add`.
    public let name: String?

    /// A namespace made with `ip netns add NAME` (the file `/var/run/netns/NAME`). DNS then
    /// comes from `/etc/netns/NAME/resolv.conf` when it exists, as `ip netns exec` does.
    public static func named(_ name: String) -> NetworkNamespace {
        NetworkNamespace(path: "/var/run/netns/" + name, name: name)
    }

    /// A namespace file, such as `/proc/1234/ns/net` or a bind mount of one.
    public static func path(_ path: String) -> NetworkNamespace {
        NetworkNamespace(path: path, name: nil)
    }

    public var description: String {
        name.map { "network namespace '\(FileName.visible($0))'" } ?? "network namespace file '\(FileName.visible(path))'"
    }

    /// The process whose namespace the path names (`/proc/PID/ns/net`), if it names one:
    /// the namespace lives as long as that process does, unless something else holds it.
    package var processIdentifier: Int32? {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        guard name == nil, parts.count == 4, parts[0] == "proc", parts[2] == "ns", parts[3] == "net" else { return nil }
        return Int32(parts[1]).flatMap { $0 > 0 ? $0 : nil }
    }

    /// Whether a name is acceptable to `ip netns` (not empty, no slash, not `.` or `..`, at
    /// most 255 bytes).
    package var hasValidName: Bool {
        guard let name else { return true }
        // A file name in /run/netns: at most NAME_MAX (255) bytes.
        return !name.isEmpty && !name.contains("/") && name != "." && name != ".." && FileName.encode(name).count <= 255
    }
}
