#if os(Linux) || os(Android)
/// A source whose paths carry what the desktop knows (``DesktopKnowledge``): NetworkManager's
/// metered devices and connectivity verdict, the Flatpak portal's status, networkd's
/// captive-portal URLs. Only for the process's own namespace, where those daemons run.
///
/// The watcher reads the buses on a thread of its own; a change there re-delivers the last
/// kernel path with the new knowledge, and a kernel path gets the knowledge of the moment.
/// A path is delivered only when it differs from the last one delivered.
final class DesktopSource: PathSource {
    private struct State {
        var inner: (any PathSource)?
        var watcher: DesktopWatcher?
        var first: NetworkPath?
        var raw: NetworkPath?
        var knowledge = DesktopKnowledge()
        var delivered: NetworkPath?
        var stopped = false
    }

    private let state = Locked(State())
    /// Held while a path is computed and handed on, so paths from the reader's thread and
    /// the watcher's arrive in the order they were made.
    private let delivery = Locked(())
    private let providesConnectivity: Bool
    private let deliver: @Sendable (NetworkPath) -> Void
    var initialPath: NetworkPath? { state.withLock { $0.first } }
    var resyncCount: Int { state.withLock { $0.inner }?.resyncCount ?? 0 }
    var loopClock: (any ProbeClock)? { state.withLock { $0.inner }?.loopClock }

    private init(providesConnectivity: Bool, deliver: @escaping @Sendable (NetworkPath) -> Void) {
        self.providesConnectivity = providesConnectivity
        self.deliver = deliver
    }

    /// How long an answer waits for a bus that authenticated (and so answers): NM's
    /// properties take a few round trips of well under a millisecond each.
    static let answerWait: Duration = .milliseconds(500)
    /// How long an answer waits for a bus to authenticate at all: a stalled bus (it accepts
    /// and never answers) costs at most this; a dead socket or no bus, nothing.
    static let authenticationWait: Duration = .milliseconds(100)

    /// Wraps a source factory: the watcher starts before the kernel is read, and the first
    /// path waits for its first answer (bounded by ``authenticationWait`` and ``answerWait``).
    /// `purpose`: what the watcher follows (``DesktopWatcher/Purpose``): less for a command
    /// that ends.
    static func wrap(_ base: @escaping PathSourceFactory, providesConnectivity: Bool,
                     purpose: DesktopWatcher.Purpose = .watching) -> PathSourceFactory {
        { filter, deliver, terminate in
            let source = DesktopSource(providesConnectivity: providesConnectivity, deliver: deliver)
            let start = SystemClock.now()
            // No watcher (no thread or descriptor left): the kernel's path alone.
            let watcher = try? DesktopWatcher(purpose: purpose) { [weak source] knowledge in source?.knowledgeChanged(knowledge) }
            let inner: any PathSource
            do {
                inner = try base(filter, { [weak source] path in source?.received(path) }, terminate)
            } catch {
                watcher?.stop()
                throw error
            }
            watcher?.waitForFirstAnswer(authenticatedBy: start + authenticationWait, answeredBy: start + answerWait)
            source.attach(inner, watcher: watcher)
            return source
        }
    }

    /// The path `readKernel` gives, with what the desktop knows: `status` reads it once, the buses
    /// asked while the kernel is.
    static func snapshot(_ readKernel: () throws -> NetworkPath?) throws -> NetworkPath? {
        let start = SystemClock.now()
        let (path, knowledge) = try DesktopWatcher.askOnce(authenticatedBy: start + authenticationWait,
                                                           answeredBy: start + answerWait, between: readKernel)
        return path.map { knowledge.apply(to: $0, connectivity: false, identityKey: LinuxPathSource.identityKey) }
    }

    private func attach(_ inner: any PathSource, watcher: DesktopWatcher?) {
        let knowledge = watcher?.knowledge ?? DesktopKnowledge()
        let first = inner.initialPath
        state.withLock { state in
            state.inner = inner
            state.watcher = watcher
            state.raw = first ?? state.raw
            state.knowledge = knowledge
            state.delivered = state.raw.map { knowledge.apply(to: $0, connectivity: providesConnectivity, identityKey: LinuxPathSource.identityKey) }
            state.first = state.delivered
        }
    }

    func startReading() -> Bool { state.withLock { $0.inner }?.startReading() ?? false }

    func stop() {
        let (inner, watcher) = state.withLock { state in
            state.stopped = true
            return (state.inner, state.watcher)
        }
        inner?.stop()
        watcher?.stop()
    }

    private func received(_ raw: NetworkPath) {
        update { $0.raw = raw }
    }

    /// New knowledge from the watcher. A resume from sleep (logind's count went up) also
    /// has the kernel's tables read again; the path it delivers meanwhile carries the new
    /// wake count, so a connectivity verdict from before the sleep is checked afresh.
    private func knowledgeChanged(_ knowledge: DesktopKnowledge) {
        var woke: (any PathSource)?
        update { state in
            if (knowledge.logind?.resumes ?? 0) > (state.knowledge.logind?.resumes ?? 0) { woke = state.inner }
            state.knowledge = knowledge
        }
        woke?.refresh()
    }

    /// Applies `change`, and delivers the path it makes if it differs from the last one.
    private func update(_ change: (inout State) -> Void) {
        delivery.withLock { _ in
            let path: NetworkPath? = state.withLock { state in
                change(&state)
                guard !state.stopped, let raw = state.raw else { return nil }
                let path = state.knowledge.apply(to: raw, connectivity: providesConnectivity, identityKey: LinuxPathSource.identityKey)
                guard !path.isIdentical(to: state.delivered) else { return nil }
                state.delivered = path
                return path
            }
            if let path { deliver(path) }
        }
    }
}
#endif
