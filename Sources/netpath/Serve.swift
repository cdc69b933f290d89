#if os(Linux)
import Glibc
import NetPath

/// `netpath serve`: the path of this host and of every namespace asked for, as Prometheus
/// metrics over HTTP (`--listen`) and in a file for node_exporter (`--textfile`).
///
/// Each namespace has its own ``PathMonitor``, and all of them share one ``SharedReader``:
/// one thread reads the kernel for every namespace. Every path a monitor emits is recorded
/// in that namespace's ``PathMetrics`` under one lock, and a scrape renders all of them with
/// ``PrometheusExposition``. A namespace that cannot be watched is reported on stderr and
/// as `netpath_namespace_up 0`, and never stops the others.
final class Exporter: Sendable {
    private struct Entry {
        var monitor: PathMonitor?
        var metrics = PathMetrics()
        var path: NetworkPath?
        var failure: String?
    }

    private let session: NetPathCommand.Session
    private let reader = SharedReader()
    private let entries = Locked<[String: Entry]>([:])
    /// Serialises the writes of the textfile (each a temporary file and a rename).
    private let fileWrites = Locked(0)

    init(session: NetPathCommand.Session) {
        self.session = session
    }

    static func label(of namespace: NetworkNamespace?) -> String {
        guard let namespace else { return "" }
        return namespace.name ?? namespace.path
    }

    static func unixNow() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func monotonicNow() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Starts watching `namespace` (`nil`: this process's own). Does nothing when it is
    /// watched already. `discovered`: found in `/run/netns` by `--all-namespaces`, where a
    /// name that is not a namespace yet (`ip netns add` mounts it a moment after making the
    /// file) or not any more (deleted) is the normal coming and going, not an error to print.
    func watch(_ namespace: NetworkNamespace?, discovered: Bool = false) {
        let label = Exporter.label(of: namespace)
        let monitor = PathMonitor(configuration: session.configuration(namespace: namespace), reader: reader) { [weak self] result in
            guard let self, let milliseconds = result.latencyMilliseconds else { return }
            self.entries.withLock { $0[label]?.metrics.recordCheck(duration: milliseconds / 1000) }
        }
        // A namespace that failed is tried again (`ip netns add` creates the file a moment
        // before it mounts the namespace on it).
        let (fresh, previous) = entries.withLock { entries -> (Bool, PathMonitor?) in
            if let entry = entries[label], entry.monitor != nil, entry.failure == nil { return (false, nil) }
            let previous = entries[label]?.monitor
            entries[label] = Entry(monitor: monitor, metrics: entries[label]?.metrics ?? PathMetrics())
            return (true, previous)
        }
        previous?.cancel()
        guard fresh else { return }
        monitor.pathUpdateHandler = { [weak self] path in self?.record(path, label: label, monitor: monitor) }
        monitor.terminationHandler = { [weak self] error in
            self?.failed(label, error.description, monitor: monitor, quietly: discovered && Exporter.isComingOrGoing(error))
        }
        do {
            try monitor.start()
        } catch {
            failed(label, "\(error)", monitor: monitor, quietly: discovered && Exporter.isComingOrGoing(error))
        }
    }

    /// Stops watching the namespace labelled `label` and forgets its series.
    func unwatch(_ label: String) {
        let monitor = entries.withLock { $0.removeValue(forKey: label)?.monitor }
        monitor?.cancel()
        changed()
    }

    private func record(_ path: NetworkPath, label: String, monitor: PathMonitor) {
        let current = entries.withLock { entries -> Bool in
            guard entries[label]?.monitor === monitor else { return false }
            entries[label]?.metrics.record(path, at: Exporter.unixNow(), monotonic: Exporter.monotonicNow())
            entries[label]?.path = path
            entries[label]?.failure = nil
            return true
        }
        if current { changed() }
    }

    /// A namespace being made or deleted: not one yet (`EINVAL`: nothing mounted on the
    /// name) or not any more (its file is gone).
    static func isComingOrGoing(_ error: any Error) -> Bool {
        guard let error = error as? NetPathError, error.code == .namespaceNotFound else { return false }
        // No errno: the monitor's own "was deleted" termination.
        return error.errno == nil || error.errno == EINVAL || error.errno == ENOENT
    }

    /// Records that the namespace cannot be watched (`netpath_namespace_up 0`, the reason in
    /// a comment), and says so on stderr unless `quietly`.
    private func failed(_ label: String, _ message: String, monitor: PathMonitor, quietly: Bool = false) {
        let current = entries.withLock { entries -> Bool in
            guard entries[label]?.monitor === monitor else { return false }
            entries[label]?.failure = message
            entries[label]?.path = nil
            return true
        }
        guard current else { return }
        if !quietly { Terminal.writeError("netpath: \(message)\n") }
        changed()
    }

    /// The exposition text now.
    func render() -> String {
        let namespaces: [PrometheusExposition.Namespace] = entries.withLock { entries in
            entries.map { label, entry in
                var metrics = entry.metrics
                metrics.resyncs = entry.monitor?.resyncCount ?? 0
                if let path = entry.path, entry.failure == nil {
                    return PrometheusExposition.Namespace(name: label, metrics: metrics, path: path)
                }
                return PrometheusExposition.Namespace(name: label, failure: entry.failure ?? "no path yet")
            }
        }
        return PrometheusExposition.text(for: namespaces, version: Help.version, probe: session.check != nil, at: Exporter.monotonicNow())
    }

    /// Why `file` cannot be written, if it cannot: its temporary file is made and removed
    /// once at start, so a directory that does not exist or is not writable ends `serve`
    /// (exit 3) before it says it is ready, not with an error at every change.
    static func textfileProblem(_ file: String) -> String? {
        let temporary = temporaryFile(for: file)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return "cannot write \(file): \(String(cString: strerror(errno)))" }
        close(fd)
        unlink(temporary)
        return nil
    }

    /// Where the textfile is written before it is renamed over `file`: beside it, so the
    /// rename stays on one file system.
    static func temporaryFile(for file: String) -> String { file + ".tmp.\(getpid())" }

    /// Rewrites the textfile, if any: a temporary file beside it, then a rename, so that
    /// node_exporter never reads half a file.
    func changed() {
        guard let file = session.arguments.textfile else { return }
        fileWrites.withLock { count in
            count += 1
            let temporary = Exporter.temporaryFile(for: file)
            let bytes = Array(render().utf8)
            let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard fd >= 0 else {
                Terminal.writeError("netpath: cannot write \(temporary): \(String(cString: strerror(errno)))\n")
                return
            }
            var written = 0
            while written < bytes.count {
                let result = bytes[written...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else { break }
                written += result
            }
            close(fd)
            if written < bytes.count || rename(temporary, file) != 0 {
                Terminal.writeError("netpath: cannot write \(file): \(String(cString: strerror(errno)))\n")
                unlink(temporary)
            }
        }
    }

    /// Every monitor stopped.
    func stopAll() {
        let monitors = entries.withLock { entries in entries.values.compactMap(\.monitor) }
        for monitor in monitors { monitor.cancel() }
    }
}

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

extension NetPathCommand {
    /// `serve`: metrics until SIGINT/SIGTERM.
    static func serve(_ session: Session, signals: sigset_t) -> Never {
        if let file = session.arguments.textfile, let problem = Exporter.textfileProblem(file) { fail(problem, .runtime) }
        let exporter = Exporter(session: session)
        var server: MetricsServer?
        if let text = session.arguments.listen, let address = ListenAddress.parse(text) {
            do {
                server = try MetricsServer(address, contentType: PrometheusExposition.contentType) { exporter.render() }
            } catch let failure as ListenFailure {
                fail(failure.message, .runtime)
            } catch {
                fail("\(error)", .runtime)
            }
        }
        exporter.watch(nil)
        for namespace in session.arguments.namespaces { exporter.watch(namespace) }
        if session.arguments.allNamespaces {
            let named = Set(session.arguments.namespaces.compactMap(\.name))
            let watched = Locked<Set<String>>([])
            let watcher = NamespaceDirectoryWatcher { names in
                let (added, removed) = watched.withLock { watched -> (Set<String>, Set<String>) in
                    defer { watched = names }
                    return (names.subtracting(watched), watched.subtracting(names))
                }
                // Every name, not only the new ones: one that failed is tried again.
                _ = added
                for name in names.sorted() { exporter.watch(.named(name), discovered: !named.contains(name)) }
                for name in removed.sorted() where !named.contains(name) { exporter.unwatch(name) }
            }
            guard let watcher, watcher.start() else { fail("cannot watch \(NamespaceDirectoryWatcher.directory)", .runtime) }
        }
        exporter.changed()
        if let server, !server.start() { fail("cannot start the HTTP server's thread", .runtime) }
        // One line when ready, as exporters log it (tests wait for it; port 0 shows the port).
        var ready: [String] = []
        if let server { ready.append("serving http://\(server.address)/metrics") }
        if let file = session.arguments.textfile { ready.append("writing \(file)") }
        Terminal.write("netpath: " + ready.joined(separator: ", ") + "\n")
        _ = waitForSignal(signals, timeout: nil)
        server?.stop()
        exporter.stopAll()
        finish(.success)
    }
}
#endif
