#if os(Linux)
import Glibc
import NetPath

/// Follows `/run/netns` (the `ip netns` directory) on a thread of its own: its names with
/// inotify, and the mount table (`/proc/self/mountinfo` signals a change with `POLLPRI`),
/// since `ip netns add` creates a name first and mounts the namespace on it after. Each
/// change reports the names now. Idle, it never wakes.
final class NamespaceDirectoryWatcher: Sendable {
    static let directory = "/run/netns"
    private let inotifyFD: Int32
    private let mountsFD: Int32
    private let onChange: @Sendable (_ names: Set<String>) -> Void

    init?(onChange: @escaping @Sendable (Set<String>) -> Void) {
        self.onChange = onChange
        inotifyFD = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        mountsFD = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)
        guard inotifyFD >= 0, mountsFD >= 0 else { return nil }
    }

    /// The names in the directory now (none when it does not exist yet).
    static func names() -> Set<String> {
        guard let directory = opendir(NamespaceDirectoryWatcher.directory) else { return [] }
        defer { closedir(directory) }
        var names: Set<String> = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.insert(name) }
        }
        return names
    }

    /// Starts the thread. `ip netns add` makes the directory on first use: until then its
    /// parent is watched for it.
    func start() -> Bool {
        OwnThread.start(name: "netpath-netns") { [self] in run() } != nil
    }

    private func layWatch() -> Bool {
        let mask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE_SELF | IN_ONLYDIR)
        if inotify_add_watch(inotifyFD, NamespaceDirectoryWatcher.directory, mask) >= 0 { return true }
        mkdir(NamespaceDirectoryWatcher.directory, 0o755)
        return inotify_add_watch(inotifyFD, NamespaceDirectoryWatcher.directory, mask) >= 0
    }

    private func run() {
        _ = layWatch()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            // Read the mount table to its end: the next change then raises POLLPRI again.
            lseek(mountsFD, 0, SEEK_SET)
            while buffer.withUnsafeMutableBytes({ read(mountsFD, $0.baseAddress, $0.count) }) > 0 {}
            onChange(NamespaceDirectoryWatcher.names())
            var descriptors = [pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0),
                               pollfd(fd: mountsFD, events: Int16(POLLPRI), revents: 0)]
            let ready = poll(&descriptors, 2, -1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return }
            // Which names changed does not matter: the directory is read again.
            while buffer.withUnsafeMutableBytes({ read(inotifyFD, $0.baseAddress, $0.count) }) > 0 {}
            _ = layWatch()
        }
    }
}
#endif
