#if os(Linux)
import NetPath

/// Every directory of one cgroup hierarchy, watched for new ones. A container runtime makes a
/// cgroup for each container it starts (a pod's and its containers', `libpod-….scope`,
/// `machine-….scope`, `lxc.payload.…`), also where the container's only link is made inside
/// its namespace (rootless Podman's pasta or slirp4netns tap) and the host hears of no
/// namespace. A new directory is the sign to look at the processes again; which one does not
/// matter. Used by its watcher's loop thread alone.
final class CgroupWatch: @unchecked Sendable {
    private let inotify: Inotify
    private let root: String
    /// Each watch's directory.
    private var directories: [Int32: String] = [:]
    private static let mask: Inotify.Mask = [.create, .onlyDirectory]

    /// - Parameter root: The hierarchy's mount point (``hierarchy(mounts:)``).
    init?(root: String) {
        guard let inotify = try? Inotify() else { return nil }
        self.inotify = inotify
        self.root = root
    }

    var descriptor: FileDescriptor { inotify.descriptor }

    /// How many directories are watched.
    var count: Int { directories.count }

    /// Watches every directory of the hierarchy (one made during the walk is found by it, or
    /// reported by its parent's watch).
    func start() {
        add(root)
    }

    /// Watches `directory` and, below it, every directory (a cgroup file is no directory:
    /// its watch is refused, `ENOTDIR`, and nothing is read below it).
    private func add(_ directory: String) {
        guard case .success(let watch) = inotify.watch(directory, mask: CgroupWatch.mask) else { return }
        directories[watch] = directory
        for name in Syscall.directoryNames(directory) ?? [] { add(directory + "/" + name) }
    }

    /// Reads the queued events: `true` when a directory was made (it, and what it holds, are
    /// watched from now on). A lost event (the queue overflowed) walks the tree again and
    /// counts as one made.
    func readNewDirectories() -> Bool {
        var made = false
        for event in inotify.readEvents() {
            if event.mask.contains(.queueOverflow) {
                add(root)
                made = true
            } else if event.mask.contains(.ignored) {
                directories.removeValue(forKey: event.watch)  // the directory was removed
            } else if event.mask.contains(.create), !event.name.isEmpty, let parent = directories[event.watch] {
                add(parent + "/" + event.name)
                made = true
            }
        }
        return made
    }

    func close() {
        inotify.close()
    }

    /// The hierarchy that names containers, from `/proc/self/mounts`' text: the unified one
    /// (cgroup v2), else cgroup v1's `pids` controller (systemd makes every unit's cgroup
    /// there too); `nil` when neither is mounted.
    static func hierarchy(mounts: String) -> String? {
        let fields = mounts.split(separator: "\n").map { $0.split(separator: " ") }.filter { $0.count > 3 }
        if let unified = fields.first(where: { $0[2] == "cgroup2" }) { return unescaped(unified[1]) }
        return fields.first { $0[2] == "cgroup" && $0[3].split(separator: ",").contains("pids") }.map { unescaped($0[1]) }
    }

    /// A mount point as the mount table writes it, with `\NNN` (octal: a space, a tab, a
    /// newline, a backslash) read back.
    static func unescaped(_ field: Substring) -> String {
        var bytes: [UInt8] = []
        var rest = Array(field.utf8)[...]
        while let byte = rest.popFirst() {
            let digits = rest.prefix(3)
            if byte == UInt8(ascii: "\\"), digits.count == 3, digits.allSatisfy({ (48...55).contains($0) }) {
                bytes.append(digits.reduce(0) { $0 &* 8 &+ ($1 - 48) })
                rest = rest.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
#endif
