#if os(Linux)
import NetPath
import NetPathPrometheus

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
        /// What the label names, to try it again.
        var namespace: NetworkNamespace?
        /// Failures in a row: the next try waits ``Exporter/retryDelay(after:)``.
        var failures = 0
        /// The failure last said on stderr: a namespace tried again says the same once.
        var reported: String?
        /// Who holds the namespace (`netpath_namespace_info`), when known.
        var holder: NamespaceHolder?
        /// `--probe-interfaces`: when each interface is checked, and its latest verdict.
        var interfaces: InterfaceChecks
    }

    /// `--probe-interfaces`: the checks over each interface of one namespace, for the
    /// monitor that watches it now (a new monitor starts afresh).
    private struct InterfaceChecks {
        var plan: InterfaceCheckPlan
        var results: [String: ConnectivityResult] = [:]
    }

    private let session: NetPathCommand.Session
    private let reader = SharedReader()
    private let entries = Locked<[String: Entry]>([:])
    /// Serialises the writes of the textfile (each a temporary file and a rename).
    /// Whether the textfile's first write succeeded (``startTextfile()``): changes before it
    /// write nothing and report nothing, so a failing first write says so once.
    private let fileWrites = Locked(false)
    /// Called when a namespace found by `--all-namespaces` in a process (no name) ended with
    /// its process: another process may hold it still.
    private let heldNamespaceGone = Locked<(@Sendable () -> Void)?>(nil)

    init(session: NetPathCommand.Session) {
        self.session = session
    }

    /// The wait before a namespace that failed `failures` times in a row is tried again:
    /// 1 s, doubling, at most 60 s.
    static func retryDelay(after failures: Int) -> Duration {
        min(.seconds(60), .seconds(1 << min(max(failures - 1, 0), 6)))
    }

    static func label(of namespace: NetworkNamespace?) -> String {
        guard let namespace else { return "" }
        // A name that is not UTF-8 (kept losslessly, ``FileName``) shows its bytes as `\xNN`.
        return FileName.visible(namespace.name ?? namespace.path)
    }

    /// Starts watching `namespace` (`nil`: this process's own). Does nothing when it is
    /// watched already. `discovered`: found in `/run/netns` by `--all-namespaces`, where a
    /// name that is not a namespace yet (`ip netns add` mounts it a moment after making the
    /// file) or not any more (deleted) is the normal coming and going, not an error to print.
    /// `label`: a namespace `--all-namespaces` found held by processes (``NamespaceScan``),
    /// labelled by its inode or mount: when it cannot be opened or its process ends, it
    /// leaves quietly and the processes are looked at again.
    func watch(_ namespace: NetworkNamespace?, discovered: Bool = false, label held: String? = nil) {
        let label = held ?? Exporter.label(of: namespace)
        let monitor = PathMonitor(configuration: session.configuration(namespace: namespace), reader: reader) { [weak self] result in
            guard let self, let milliseconds = result.latencyMilliseconds else { return }
            self.entries.withLock { $0[label]?.metrics.recordCheck(duration: milliseconds / 1000) }
        }
        // A namespace that failed is tried again (`ip netns add` creates the file a moment
        // before it mounts the namespace on it).
        let (fresh, previous) = entries.withLock { entries -> (Bool, PathMonitor?) in
            if let entry = entries[label], entry.monitor != nil, entry.failure == nil { return (false, nil) }
            let previous = entries[label]?.monitor
            entries[label] = Entry(monitor: monitor, metrics: entries[label]?.metrics ?? PathMetrics(),
                                   failure: entries[label]?.failure, namespace: namespace,
                                   failures: entries[label]?.failures ?? 0, reported: entries[label]?.reported,
                                   holder: entries[label]?.holder,
                                   interfaces: InterfaceChecks(plan: InterfaceCheckPlan(interval: session.check?.interval)))
            return (true, previous)
        }
        previous?.cancel()
        guard fresh else { return }
        // A name in /run/netns that is no namespace yet (`ip netns add` mounts it a moment
        // after making the file) or no more (`ip netns del` unmounts it before the unlink):
        // the mount that follows brings it back here.
        if discovered, let namespace, !Syscall.isNamespaceFile(namespace.path) {
            failed(label, "\(namespace) is not mounted", monitor: monitor, quietly: true)
            return
        }
        // The handlers are kept by the monitor: they hold it weakly.
        monitor.pathUpdateHandler = { [weak self, weak monitor] path in
            guard let monitor else { return }
            self?.record(path, label: label, monitor: monitor)
        }
        monitor.terminationHandler = { [weak self, weak monitor] error in
            guard let self, let monitor else { return }
            // A process's namespace whose process exited never comes back (its number, if
            // reused, is another container's): it leaves, with one line.
            if namespace?.processIdentifier != nil, Exporter.isComingOrGoing(error, namespace: namespace) {
                if held == nil { Terminal.report(error.description) }
                unwatch(label)
                if held != nil { heldNamespaceGone.withLock { $0 }?() }
                return
            }
            failed(label, error.description, monitor: monitor, quietly: discovered && Exporter.isComingOrGoing(error, namespace: namespace))
        }
        do {
            try monitor.start()
        } catch where held != nil && Exporter.isComingOrGoing(error, namespace: namespace) {
            unwatch(label)
            heldNamespaceGone.withLock { $0 }?()
        } catch {
            failed(label, "\(error)", monitor: monitor, quietly: discovered && Exporter.isComingOrGoing(error, namespace: namespace))
        }
    }

    /// Who holds the namespace labelled `label`, for `netpath_namespace_info`; `nil`: no
    /// one known. Nothing when it is not watched.
    func setHolder(_ holder: NamespaceHolder?, for label: String) {
        let changed = entries.withLock { entries -> Bool in
            guard entries[label] != nil, entries[label]?.holder != holder else { return false }
            entries[label]?.holder = holder
            return true
        }
        if changed { self.changed() }
    }

    /// `handler` is called when a namespace watched under a label of its own (found in a
    /// process) ended with its process.
    func onHeldNamespaceGone(_ handler: @escaping @Sendable () -> Void) {
        heldNamespaceGone.withLock { $0 = handler }
    }

    /// Stops watching the namespace labelled `label` and forgets its series.
    func unwatch(_ label: String) {
        let monitor = entries.withLock { $0.removeValue(forKey: label)?.monitor }
        monitor?.cancel()
        changed()
    }

    private func record(_ path: NetworkPath, label: String, monitor: PathMonitor) {
        let (current, woke) = entries.withLock { entries -> (Bool, [PathMonitor]) in
            guard entries[label]?.monitor === monitor else { return (false, []) }
            // The host resumed from sleep (logind, heard by its desktop source): every other
            // namespace's tables and verdicts are from before it too.
            var woke: [PathMonitor] = []
            if label.isEmpty, let previous = entries[label]?.path, path.wakeCount > previous.wakeCount {
                woke = entries.compactMap { $0.key.isEmpty ? nil : $0.value.monitor }
            }
            entries[label]?.metrics.record(path, at: SystemClock.unixSeconds(), monotonic: Exporter.monotonicSeconds())
            entries[label]?.path = path
            entries[label]?.failure = nil
            entries[label]?.failures = 0
            entries[label]?.reported = nil
            return (true, woke)
        }
        guard current else { return }
        for other in woke { other.machineResumed() }
        changed()
        if session.arguments.serving.probeInterfaces { checkInterfaces(of: path, label: label, monitor: monitor) }
    }

    // MARK: - Checks per interface (`--probe-interfaces`)

    /// Hands the path's candidates to the namespace's ``InterfaceCheckPlan``: every
    /// interface of a satisfied path but loopback (the check of one the kernel routes
    /// nowhere says so, and it is not checked again until the path changes), and a key of
    /// what the way out is made of, whose change re-checks them all.
    private func checkInterfaces(of path: NetworkPath, label: String, monitor: PathMonitor) {
        let names = path.status == .satisfied ? Set(path.availableInterfaces.filter { $0.type != .loopback }.map(\.name)) : []
        var key = Hasher()
        key.combine(path.availableInterfaces.map(\.name))
        key.combine(path.gateways)
        key.combine(path.unresponsiveGateways)
        key.combine(path.network)
        key.combine(path.supportsIPv4)
        key.combine(path.supportsIPv6)
        drive(label, monitor: monitor, .path(interfaces: names, key: key.finalize()))
    }

    /// One event to the plan of the namespace labelled `label` (while `monitor` still
    /// watches it), and its actions carried out: checks started, series forgotten, a timer
    /// on the main loop.
    private func drive(_ label: String, monitor: PathMonitor, _ event: InterfaceCheckPlan.Event, result: ConnectivityResult? = nil) {
        let now = SystemClock.now()
        let outcome = entries.withLock { entries -> (actions: [InterfaceCheckPlan.Action], namespace: NetworkNamespace?)? in
            guard var entry = entries[label], entry.monitor === monitor else { return nil }
            if case .finished(let name, _) = event { entry.interfaces.results[name] = result }
            let actions = entry.interfaces.plan.handle(event, at: now)
            for case .forget(let name) in actions { entry.interfaces.results[name] = nil }
            entries[label] = entry
            return (actions, entry.namespace)
        }
        guard let outcome else { return }
        let loop = session.signals.loop
        for action in outcome.actions {
            switch action {
            case .start(let name):
                startCheck(over: name, label: label, namespace: outcome.namespace, monitor: monitor)
            case .forget:
                break
            case .wake(let instant):
                loop.execute { [weak self, weak monitor] in
                    loop.schedule(at: instant) {
                        guard let self, let monitor else { return }
                        self.drive(label, monitor: monitor, .timer)
                    }
                }
            }
        }
        let finished = if case .finished = event { true } else { false }
        if finished || outcome.actions.contains(where: { if case .forget = $0 { true } else { false } }) { changed() }
    }

    /// One check bound to `interface`, its verdict handed back to the plan.
    private func startCheck(over interface: String, label: String, namespace: NetworkNamespace?, monitor: PathMonitor) {
        guard let check = session.check else { return }
        Task.detached { [weak self, weak monitor] in
            var result: ConnectivityResult?
            let outcome: InterfaceCheckPlan.Outcome
            do {
                let checked = try await check.run(on: interface, namespace: namespace)
                result = checked
                outcome = checked.connectivity == .full ? .full : .short
            } catch let error as NetPathError where error.code == .interfaceNotRouted || error.code == .interfaceNotFound {
                outcome = .notRouted
            } catch {
                outcome = .short
            }
            guard let self, let monitor else { return }
            self.drive(label, monitor: monitor, .finished(interface: interface, outcome: outcome), result: result)
        }
    }

    /// A namespace being made or deleted: not one yet (`EINVAL`: nothing mounted on the
    /// name) or not any more (its file is gone).
    /// A discovered name is tried only once it is a namespace file; refused after that
    /// (`EACCES`: `ip netns del` unmounted it, and the empty file left until its unlink has
    /// mode 0, which only root opens) while it is no namespace any more is going too.
    static func isComingOrGoing(_ error: any Error, namespace: NetworkNamespace?) -> Bool {
        guard let error = error as? NetPathError else { return false }
        if error.code == .permissionDenied, let namespace, !Syscall.isNamespaceFile(namespace.path) { return true }
        guard error.code == .namespaceNotFound else { return false }
        // No errno: the monitor's own "was deleted" termination.
        return error.errno == nil || error.errno == Errno.invalidArgument.rawValue || error.errno == Errno.noSuchFile.rawValue
    }

    /// Records that the namespace cannot be watched (`netpath_namespace_up 0`, the reason in
    /// a comment), says so on stderr unless `quietly` or said already, and tries it again
    /// after ``retryDelay(after:)`` (a namespace refused for want of descriptors or memory
    /// comes back when there are some; one deleted comes back when it is made again).
    private func failed(_ label: String, _ message: String, monitor: PathMonitor, quietly: Bool = false) {
        let outcome = entries.withLock { entries -> (failures: Int, report: Bool)? in
            guard var entry = entries[label], entry.monitor === monitor else { return nil }
            let report = !quietly && entry.reported != message
            entry.failure = message
            entry.path = nil
            entry.failures += 1
            if report { entry.reported = message }
            entries[label] = entry
            return (entry.failures, report)
        }
        guard let outcome else { return }
        if outcome.report { Terminal.report(message) }
        changed()
        let delay = Exporter.retryDelay(after: outcome.failures)
        let loop = session.signals.loop
        loop.execute { [weak self] in
            loop.schedule(at: SystemClock.now() + delay) { self?.retry(label, monitor: monitor) }
        }
    }

    /// Tries a failed namespace again, unless it was forgotten or tried since.
    private func retry(_ label: String, monitor: PathMonitor) {
        let namespace = entries.withLock { entries -> NetworkNamespace?? in
            guard let entry = entries[label], entry.monitor === monitor, entry.failure != nil else { return nil }
            return .some(entry.namespace)
        }
        guard let namespace else { return }
        // A label of its own: a namespace found in a process (the label is not its path).
        let held = label != Exporter.label(of: namespace) ? label : nil
        watch(namespace, discovered: namespace != nil && !session.arguments.paths.namespaces.contains { $0 == namespace }, label: held)
    }

    /// The exposition text now.
    func render() -> String {
        let namespaces: [PrometheusExposition.Namespace] = entries.withLock { entries in
            entries.map { label, entry in
                var metrics = entry.metrics
                metrics.resyncs = entry.monitor?.resyncCount ?? 0
                var namespace = PrometheusExposition.Namespace(name: label, failure: entry.failure ?? "no path yet")
                if let path = entry.path, entry.failure == nil {
                    namespace = PrometheusExposition.Namespace(name: label, metrics: metrics, path: path)
                }
                namespace.holder = entry.holder
                namespace.interfaceConnectivity = entry.interfaces.results
                return namespace
            }
        }
        return PrometheusExposition.text(for: namespaces, version: Help.version, probe: session.check != nil, at: Exporter.monotonicSeconds())
    }

    /// Now on the monotonic clock, in seconds from its origin: the unit of ``PathMetrics``'
    /// public API, which counts the time spent in each status.
    private static func monotonicSeconds() -> Double { (SystemClock.now() - .zero).seconds }

    /// Why `file` cannot be written, if it cannot: its temporary file is made and removed
    /// once at start, so a directory that does not exist or is not writable ends `serve`
    /// (exit 3) before it says it is ready, not with an error at every change.
    static func textfileProblem(_ file: String) -> String? {
        let temporary = temporaryFile(for: file)
        switch Syscall.open(temporary, .writeOnly, options: [.create, .truncate]) {
        case .success(let fd):
            Syscall.close(fd)
            Syscall.unlink(temporary)
            return nil
        case .failure(let error):
            return "cannot write \(file): \(error)"
        }
    }

    /// Where the textfile is written before it is renamed over `file`: beside it, so the
    /// rename stays on one file system.
    static func temporaryFile(for file: String) -> String { file + ".tmp.\(Syscall.processID())" }

    /// Rewrites the textfile, if any: a temporary file beside it, then a rename, so that
    /// node_exporter never reads half a file. A failure is reported on standard error.
    func changed() {
        if let problem = writeTextfile(starting: false) { Terminal.report(problem) }
    }

    /// The textfile's first write; why it could not be written, if it could not (`serve`
    /// ends with exit 3 then: a full disk is found at start, not later).
    func startTextfile() -> String? {
        writeTextfile(starting: true)
    }

    private func writeTextfile(starting: Bool) -> String? {
        guard let file = session.arguments.serving.textfile else { return nil }
        return fileWrites.withLock { started -> String? in
            guard started || starting else { return nil }
            let temporary = Exporter.temporaryFile(for: file)
            let bytes = Array(render().utf8)
            let fd: FileDescriptor
            switch Syscall.open(temporary, .writeOnly, options: [.create, .truncate]) {
            case .success(let opened): fd = opened
            case .failure(let error): return "cannot write \(temporary): \(error)"
            }
            let written = bytes.withUnsafeBytes { Syscall.writeAll(fd, $0) }
            Syscall.close(fd)
            let renamed = written.flatMap { Syscall.rename(temporary, to: file).map { _ in } }
            guard case .failure(let error) = renamed else {
                started = true
                return nil
            }
            Syscall.unlink(temporary)
            return "cannot write \(file): \(error)"
        }
    }

    /// Every monitor stopped.
    func stopAll() {
        let monitors = entries.withLock { entries in entries.values.compactMap(\.monitor) }
        for monitor in monitors { monitor.cancel() }
    }
}
#endif
