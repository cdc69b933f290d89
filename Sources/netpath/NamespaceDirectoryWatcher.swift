#if os(Linux)
import NetPath

/// Follows `/run/netns` (the `ip netns` directory) on a thread of its own, on an
/// ``EventLoop``: its names with the package's ``Inotify``, and the mount table
/// (`/proc/self/mountinfo` signals a change as priority data), since `ip netns add` creates
/// a name first and mounts the namespace on it after. Each change reports the names now.
/// Idle, it never wakes.
final class NamespaceDirectoryWatcher: Sendable {
    static let directory = "/run/netns"
    private let inotify: Inotify
    private let mountsFD: FileDescriptor
    private let loop: EventLoop
    private let onChange: @Sendable (_ names: Set<String>) -> Void

    init?(onChange: @escaping @Sendable (Set<String>) -> Void) {
        self.onChange = onChange
        guard let loop = try? EventLoop() else { return nil }
        guard let inotify = try? Inotify() else {
            loop.close()
            return nil
        }
        guard case .success(let mounts) = Syscall.open("/proc/self/mountinfo", .readOnly) else {
            inotify.close()
            loop.close()
            return nil
        }
        self.loop = loop
        self.inotify = inotify
        mountsFD = mounts
    }

    /// The names in the directory now (none when it does not exist yet).
    static func names() -> Set<String> {
        Set(Syscall.directoryNames(NamespaceDirectoryWatcher.directory) ?? [])
    }

    /// Starts the thread. `ip netns add` makes the directory on first use: until then its
    /// parent is watched for it.
    func start() -> Bool {
        OwnThread.start(name: "netpath-netns") { [self] in run() } != nil
    }

    private func layWatch() {
        let mask: Inotify.Mask = [.create, .delete, .movedTo, .movedFrom, .deleteSelf, .onlyDirectory]
        if case .success = inotify.watch(NamespaceDirectoryWatcher.directory, mask: mask) { return }
        Syscall.makeDirectory(NamespaceDirectoryWatcher.directory)
        inotify.watch(NamespaceDirectoryWatcher.directory, mask: mask)
    }

    private func run() {
        layWatch()
        report()
        loop.register(inotify.descriptor, for: .readable) { [self] _ in
            // Which names changed does not matter: the directory is read again.
            _ = inotify.readEvents()
            layWatch()
            loop.deferred { [self] in report() }
        }
        loop.register(mountsFD, for: .priority) { [self] _ in loop.deferred { [self] in report() } }
        loop.run()
    }

    /// Reads the mount table to its end (the next change then signals again) and reports
    /// the names.
    private func report() {
        Syscall.rewind(mountsFD)
        Syscall.drain(mountsFD)
        onChange(NamespaceDirectoryWatcher.names())
    }
}
#endif
