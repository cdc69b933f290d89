#if os(Linux)
import NetPath
import NetPathPrometheus

extension NetPathCommand {
    /// `serve`: metrics until SIGINT/SIGTERM; SIGHUP re-reads `--web-config`.
    static func serve(_ session: Session) throws(CommandError) -> ExitCode {
        let serving = session.arguments.serving
        // First, while the process has one thread: it changes the environment.
        var passed: [(FileDescriptor, ListenAddress)] = []
        if serving.systemdSocket {
            do {
                passed = try SocketActivation.listeningSockets()
            } catch {
                throw CommandError(error.message, .runtime)
            }
        }
        if let file = serving.textfile, let problem = Exporter.textfileProblem(file) { throw CommandError(problem, .runtime) }
        var security = WebSecurity.plain
        if let file = serving.webConfig {
            do {
                security = try WebSecurity.load(file)
            } catch {
                throw CommandError(error.message, .runtime)
            }
            if let warning = security.certificateWarning(now: Int64(SystemClock.unixSeconds())) { Terminal.report(warning) }
        }
        // Four descriptors per namespace: past ~250 the soft limit of a service (1,024) would
        // refuse namespaces, while the hard one (524,288) allows them.
        Syscall.raiseDescriptorLimit()
        let exporter = Exporter(session: session)
        // One server (socket, loop and thread) per socket systemd passed, then per address.
        var servers: [MetricsServer] = []
        let render: @Sendable () -> String = { exporter.render() }
        do {
            for (fd, address) in passed {
                servers.append(try MetricsServer(listening: fd, at: address, security: security, contentType: PrometheusExposition.contentType, render: render))
            }
            for address in serving.listen.compactMap(ListenAddress.parse) {
                servers.append(try MetricsServer(address, security: security, contentType: PrometheusExposition.contentType, render: render))
            }
        } catch {
            for server in servers { server.stop() }
            throw CommandError((error as? ListenFailure)?.message ?? "\(error)", .runtime)
        }
        exporter.watch(nil)
        // One namespace given twice (by its name and by a path to it) is watched once, under
        // the first label: namespace files are told apart by inode.
        var given = Set<UInt64>()
        for namespace in session.arguments.paths.namespaces.map(resolvingProcessID) {
            if case .success(let inode) = Syscall.inode(namespace.path), !given.insert(inode).inserted { continue }
            exporter.watch(namespace)
        }
        if session.arguments.paths.allNamespaces { try followAllNamespaces(session, exporter: exporter) }
        if let problem = exporter.startTextfile() { throw CommandError(problem, .runtime) }
        if serving.textfile != nil { rewriteTextfile(exporter, every: serving.textfileInterval, on: session.signals.loop) }
        for server in servers where !server.start() { throw CommandError("cannot start the HTTP server's thread", .runtime) }
        // One line when ready, as exporters log it (tests wait for it; port 0 shows the port).
        var ready: [String] = []
        if !servers.isEmpty { ready.append("serving " + servers.map(\.url).joined(separator: " and ")) }
        if let file = serving.textfile { ready.append("writing \(file)") }
        Terminal.write("netpath: " + ready.joined(separator: ", ") + "\n")
        // Nothing opens this gate: only signals end `serve`.
        let never = Gate<Never>()
        while case .signal(.hangUp) = session.signals.wait(for: never, timeout: nil) {
            if !servers.isEmpty, let file = serving.webConfig { reload(file, into: servers) }
        }
        for server in servers { server.stop() }
        exporter.stopAll()
        return .success
    }

    /// SIGHUP: the web configuration read again and applied to new connections; a file
    /// that cannot be used is reported and the previous configuration kept (as Prometheus
    /// does with its own). One line on stderr either way.
    static func reload(_ file: String, into servers: [MetricsServer]) {
        do {
            let security = try WebSecurity.load(file)
            for server in servers { server.reload(security) }
            Terminal.report("reloaded \(file)")
            if let warning = security.certificateWarning(now: Int64(SystemClock.unixSeconds())) { Terminal.report(warning) }
        } catch {
            Terminal.report("cannot reload: \(error.message); the previous configuration stays")
        }
    }

    /// The textfile rewritten every `interval` on the main thread's loop, even with
    /// nothing changed: its mtime (node_exporter's `node_textfile_mtime_seconds`) is then
    /// the proof that netpath still runs (`NetPathTextfileStale` in Deploy/).
    static func rewriteTextfile(_ exporter: Exporter, every interval: Duration, on loop: EventLoop) {
        loop.schedule(at: SystemClock.now() + interval) {
            exporter.changed()
            rewriteTextfile(exporter, every: interval, on: loop)
        }
    }

    /// `--all-namespaces`: every name in `/run/netns` watched as it comes, forgotten as it
    /// goes; and every namespace that processes are in or Docker mounts (``NamespaceScan``),
    /// looked for at start and whenever the host gives a namespace an ID; each one's holder.
    static func followAllNamespaces(_ session: Session, exporter: Exporter) throws(CommandError) {
        let named = Set(session.arguments.paths.namespaces.compactMap(\.name))
        let watched = Locked<(names: Set<String>, held: Set<String>)>(([], []))
        let watcher = NamespaceDirectoryWatcher(followsProcesses: true) { names in
            let scan = NamespaceScan.now(named: names)
            let (removed, gone) = watched.withLock { watched -> (Set<String>, Set<String>) in
                defer { watched = (names, Set(scan.held.keys)) }
                return (watched.names.subtracting(names), watched.held.subtracting(scan.held.keys))
            }
            // Every name, not only the new ones: one that failed is tried again.
            for name in names.sorted() {
                exporter.watch(.named(name), discovered: !named.contains(name))
                exporter.setHolder(scan.namedHolders[name], for: Exporter.label(of: .named(name)))
            }
            for name in removed.sorted() where !named.contains(name) { exporter.unwatch(Exporter.label(of: .named(name))) }
            for held in scan.held.values.sorted(by: { $0.label < $1.label }) {
                exporter.watch(held.namespace, discovered: true, label: held.label)
                exporter.setHolder(held.holder, for: held.label)
            }
            for label in gone.sorted() { exporter.unwatch(label) }
        }
        guard let watcher, watcher.followsProcesses else {
            throw CommandError("cannot watch \(NamespaceDirectoryWatcher.directory) and the namespaces of processes", .runtime)
        }
        exporter.onHeldNamespaceGone { watcher.rescan() }
        guard watcher.start() else { throw CommandError("cannot start watching namespaces", .runtime) }
    }
}
#endif
