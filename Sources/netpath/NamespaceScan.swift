#if os(Linux)
import NetPath

/// One look at every network namespace of the node (`serve --all-namespaces`): those the
/// processes are in (`/proc/*/ns/net`), those Docker mounts (`/var/run/docker/netns`), and
/// who holds each, from the cgroup of its first process (`NamespaceHolder`).
///
/// A namespace is known by its inode (`net:[INODE]`): the process's own and the ones named
/// in `/run/netns` are left to their own watching, and one with only a loopback interface
/// is not worth watching.
struct NamespaceScan {
    /// A namespace to watch that has no name in `/run/netns`.
    struct Held: Hashable {
        /// Its label: the Docker mount's path, else `net:[INODE]`.
        var label: String
        /// What to open: its first process's `/proc/PID/ns/net` (whose root holds the
        /// container's resolv.conf), else the mount.
        var namespace: NetworkNamespace
        var holder: NamespaceHolder?
    }

    /// Docker's directory of namespace mounts.
    static let dockerDirectory = "/var/run/docker/netns"
    /// Where Docker keeps each container's configuration (`ID/config.v2.json`).
    static let dockerContainers = "/var/lib/docker/containers"
    /// Where rootful Podman's container store lists its containers with their names.
    static let podmanContainers = "/var/lib/containers/storage/overlay-containers/containers.json"

    /// The namespaces to watch besides the named ones, by label.
    var held: [String: Held] = [:]
    /// The holders of the named namespaces (`/run/netns` names), by name.
    var namedHolders: [String: NamespaceHolder] = [:]

    /// Looks now. `named`: the names in `/run/netns`.
    static func now(named: Set<String>) -> NamespaceScan {
        var scan = NamespaceScan()
        let own = namespaceInode(of: "/proc/self/ns/net")
        let processes = processesByNamespace()
        var namedInodes: [UInt64: String] = [:]
        for name in named {
            if case .success(let inode) = Syscall.inode(NetworkNamespace.named(name).path) { namedInodes[inode] = name }
        }
        var mounts: [UInt64: String] = [:]
        for entry in Syscall.directoryNames(dockerDirectory) ?? [] {
            let path = dockerDirectory + "/" + entry
            if Syscall.isNamespaceFile(path), case .success(let inode) = Syscall.inode(path) { mounts[inode] = path }
        }
        // Podman's names, read once a look and only when a Podman container is found.
        var podman: [String: String]?
        for (inode, name) in namedInodes {
            if let first = processes[inode]?.first, let holder = holder(of: first, podman: &podman) { scan.namedHolders[name] = holder }
        }
        for inode in Set(processes.keys).union(mounts.keys) where inode != own && namedInodes[inode] == nil {
            let first = processes[inode]?.first
            if let first, !hasLinkBesidesLoopback(first) { continue }
            let label = mounts[inode] ?? "net:[\(inode)]"
            let namespace = first.map { NetworkNamespace.path("/proc/\($0)/ns/net") } ?? .path(mounts[inode] ?? label)
            scan.held[label] = Held(label: label, namespace: namespace, holder: first.flatMap { holder(of: $0, podman: &podman) })
        }
        return scan
    }

    /// Every process's namespace: inode → the processes in it, lowest ID first. A process
    /// that ended while being read is left out.
    static func processesByNamespace() -> [UInt64: [Int32]] {
        var processes: [UInt64: [Int32]] = [:]
        for entry in Syscall.directoryNames("/proc") ?? [] {
            guard let pid = Int32(entry), pid > 0, let inode = namespaceInode(of: "/proc/\(pid)/ns/net") else { continue }
            processes[inode, default: []].append(pid)
        }
        return processes.mapValues { $0.sorted() }
    }

    /// The inode `readlink` gives for a namespace link (`net:[4026531840]`).
    static func namespaceInode(of link: String) -> UInt64? {
        guard let target = Syscall.readLink(link), target.hasPrefix("net:["), target.hasSuffix("]") else { return nil }
        return UInt64(target.dropFirst(5).dropLast())
    }

    /// Whether process `pid`'s namespace has an interface other than `lo`
    /// (`/proc/PID/net/dev`). Unreadable: assumed so, and left to the monitor to say.
    static func hasLinkBesidesLoopback(_ pid: Int32) -> Bool {
        guard case .success(let bytes) = Syscall.readWholeFile("/proc/\(pid)/net/dev", limit: 1 << 20) else { return true }
        return NamespaceHolder.interfaces(netDev: bytes).contains { $0 != "lo" }
    }

    /// Podman's names for its containers, by ID; none when its store is not readable here.
    static func podmanNames() -> [String: String] {
        guard case .success(let bytes) = Syscall.readWholeFile(podmanContainers, limit: 16 << 20) else { return [:] }
        return NamespaceHolder.podmanNames(containers: bytes)
    }

    /// Who holds the namespace of process `pid`, from its cgroup; the runtime's name for its
    /// container when the runtime's records are readable here: Docker's configuration, or
    /// Podman's store (read into `podman` the first time a look needs it).
    static func holder(of pid: Int32, podman: inout [String: String]?) -> NamespaceHolder? {
        guard case .success(let bytes) = Syscall.readWholeFile("/proc/\(pid)/cgroup", limit: 64 * 1024),
              var holder = NamespaceHolder.parse(cgroup: bytes) else { return nil }
        guard let id = holder.containerID else { return holder }
        switch holder.runtime {
        case "docker":
            if case .success(let configuration) = Syscall.readWholeFile("\(dockerContainers)/\(id)/config.v2.json", limit: 1 << 20) {
                holder.containerName = NamespaceHolder.dockerName(configuration: configuration)
            }
        case "podman":
            if podman == nil { podman = podmanNames() }
            holder.containerName = podman?[id]
        default:
            break
        }
        return holder
    }
}
#endif
