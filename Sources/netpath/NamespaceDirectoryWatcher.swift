#if os(Linux)
import NetPath

/// Follows `/run/netns` (the `ip netns` directory) on a thread of its own, on an
/// ``EventLoop``: its names with the package's ``Inotify``, and the mount table
/// (`/proc/self/mountinfo` signals a change as priority data), since `ip netns add` creates
/// a name first and mounts the namespace on it after. With `followsProcesses`, also the
/// namespaces the host gives an ID to (an rtnetlink socket in `RTNLGRP_NSID`: a veth,
/// macvlan or tun peer moved into a new namespace), where a container's processes arrive a
/// moment after its link: each such event is reported at once, then again 1 s and 5 s after
/// the last one; and the cgroup hierarchy's new directories (``CgroupWatch``: a container's
/// cgroup, made also where its only link is made inside its namespace, as rootless Podman's
/// tap is, which the host hears nothing of), followed up the same way. Each change reports
/// the names now. Idle, it never wakes.
final class NamespaceDirectoryWatcher: Sendable {
    static let directory = "/run/netns"
    /// When a namespace given an ID is looked at again: each wait counted from the one
    /// before (1 s and 5 s after the event).
    static let followUps: [Duration] = [.seconds(1), .seconds(4)]
    private let inotify: Inotify
    private let mountsFD: FileDescriptor
    private let namespaceIDs: FileDescriptor?
    private let cgroups: CgroupWatch?
    private let loop: EventLoop
    /// The follow-ups still to come and the timer of the next one (the loop thread's).
    private let pending = Locked<(remaining: [Duration], timer: EventLoop.Timer?)>(([], nil))
    /// Whether a report is deferred to the end of this turn already: the changes of one turn
    /// (500 containers ending at once) make one look at the processes, not one each.
    private let reportQueued = Locked(false)
    private let onChange: @Sendable (_ names: Set<String>) -> Void

    init?(followsProcesses: Bool = false, onChange: @escaping @Sendable (Set<String>) -> Void) {
        self.onChange = onChange
        namespaceIDs = followsProcesses ? NamespaceDirectoryWatcher.openNamespaceIDSocket() : nil
        let mounts = followsProcesses ? Syscall.readFile("/proc/self/mounts").map { String(decoding: $0, as: UTF8.self) } : nil
        cgroups = mounts.flatMap(CgroupWatch.hierarchy(mounts:)).flatMap(CgroupWatch.init(root:))
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

    /// An rtnetlink socket of the process's namespace in `RTNLGRP_NSID`, non-blocking.
    private static func openNamespaceIDSocket() -> FileDescriptor? {
        guard case .success(let fd) = Syscall.socket(.netlink, .raw, .netlinkRoute) else { return nil }
        guard case .success = Syscall.bind(fd, netlinkGroups: Netlink.Group.namespaceID) else {
            Syscall.close(fd)
            return nil
        }
        Syscall.setNonBlocking(fd)
        return fd
    }

    /// Whether namespaces given an ID are followed (the socket could be opened).
    var followsProcesses: Bool { namespaceIDs != nil }

    /// Reports again soon, on the watcher's thread (a watched process's namespace ended:
    /// another process may hold it still).
    func rescan() {
        loop.execute { [self] in reportAfterThisTurn() }
    }

    /// Defers one report to the end of the turn, however many changes ask for it.
    private func reportAfterThisTurn() {
        guard !reportQueued.withLock({ queued in defer { queued = true }; return queued }) else { return }
        loop.deferred { [self] in
            reportQueued.withLock { $0 = false }
            report()
        }
    }

    /// The names in the directory now (none when it does not exist yet).
    static func names() -> Set<String> {
        Set(Syscall.directoryNames(NamespaceDirectoryWatcher.directory) ?? [])
    }

    /// Starts the thread. `ip netns add` makes the directory on first use: until then its
    /// parent is watched for it.
    func start() -> Bool {
        (try? OwnThread.start(name: "netpath-netns") { [self] in run() }.get()) != nil
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
            reportAfterThisTurn()
        }
        loop.register(mountsFD, for: .priority) { [self] _ in reportAfterThisTurn() }
        if let namespaceIDs {
            loop.register(namespaceIDs, for: .readable) { [self] _ in
                // Which namespace does not matter: every process is looked at again.
                Syscall.drain(namespaceIDs)
                namespacesMayHaveCome()
            }
        }
        if let cgroups {
            cgroups.start()
            loop.register(cgroups.descriptor, for: .readable) { [self] _ in
                if cgroups.readNewDirectories() { namespacesMayHaveCome() }
            }
        }
        loop.run()
    }

    /// A namespace may have come (one given an ID, a new cgroup): the processes are looked
    /// at after this turn, then 1 s and 5 s later, for those that arrive after the sign.
    private func namespacesMayHaveCome() {
        pending.withLock { $0.remaining = NamespaceDirectoryWatcher.followUps }
        scheduleFollowUp()
        reportAfterThisTurn()
    }

    /// The next follow-up's timer, counted from now, replacing one set before.
    private func scheduleFollowUp() {
        let (delay, previous) = pending.withLock { pending -> (Duration?, EventLoop.Timer?) in
            let previous = pending.timer
            pending.timer = nil
            guard let first = pending.remaining.first else { return (nil, previous) }
            pending.remaining.removeFirst()
            return (first, previous)
        }
        if let previous { loop.cancel(previous) }
        guard let delay else { return }
        let timer = loop.schedule(at: SystemClock.now() + delay) { [self] in
            pending.withLock { $0.timer = nil }
            report()
            scheduleFollowUp()
        }
        pending.withLock { $0.timer = timer }
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
