import Dispatch

/// A timer that can be cancelled: how the connectivity check waits, so tests can drive
/// time by hand.
package protocol ScheduledWork: Sendable {
    func cancel()
}

/// Schedules work after a delay: on Linux a monitor's reader loop (``LoopProbeClock``),
/// elsewhere Dispatch; tests use a manual one.
package protocol ProbeClock: Sendable {
    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> any ScheduledWork
}

struct DispatchProbeClock: ProbeClock {
    private final class Item: ScheduledWork, @unchecked Sendable {
        // DispatchWorkItem is thread-safe to cancel.
        let item: DispatchWorkItem
        init(_ item: DispatchWorkItem) { self.item = item }
        func cancel() { item.cancel() }
    }

    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> any ScheduledWork {
        let item = DispatchWorkItem(block: work)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(clamping: max(delay, .zero).nanoseconds)), execute: item)
        return Item(item)
    }
}

extension ProbeHandle: ScheduledWork {}

#if os(Linux) || os(Android)
/// Timers on an ``EventLoop`` (a monitor's reader): a re-check waits on the same loop, and
/// the same clock, as the kernel's events, with no other thread. Scheduling and cancelling
/// hop to the loop's thread, in order; once the loop is closed both do nothing.
struct LoopProbeClock: ProbeClock {
    let loop: EventLoop

    func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> any ScheduledWork {
        let timer = LoopTimer(loop: loop)
        let deadline = SystemClock.now() + max(delay, .zero)
        loop.execute { timer.arm(at: deadline, work) }
        return timer
    }

    private final class LoopTimer: ScheduledWork, @unchecked Sendable {
        // `@unchecked`: `timer` and `cancelled` are touched on the loop's thread only (the
        // arming and the cancel's hop).
        // Weak: the loop holds the armed handler, which holds this timer.
        private weak var loop: EventLoop?
        private var timer: EventLoop.Timer?
        private var cancelled = false

        init(loop: EventLoop) { self.loop = loop }

        func arm(at deadline: Instant, _ work: @escaping @Sendable () -> Void) {
            guard !cancelled, let loop else { return }
            timer = loop.schedule(at: deadline) { [self] in
                timer = nil
                work()
            }
        }

        func cancel() {
            loop?.execute { [self] in
                cancelled = true
                if let timer { loop?.cancel(timer) }
                timer = nil
            }
        }
    }
}
#endif

/// Runs one check over a path and reports it; returns a handle to cancel it. `early` hears
/// one family's `full` while the other's check still runs (at most once, before
/// `completion`); `completion` the whole check's verdict.
typealias ConnectivityChecker = @Sendable (
    _ path: NetworkPath,
    _ early: @escaping @Sendable (ConnectivityResult) -> Void,
    _ completion: @escaping @Sendable (ConnectivityResult) -> Void
) -> (any ScheduledWork)?

/// Adds ``NetworkPath/connectivity`` to the paths of another source (SPEC §3): a check on
/// every path change and every change of its DNS servers (the one in flight is cancelled); while not `full`, again after 1 s,
/// doubling to 5 min; while `full`, nothing unless an interval is set. No check runs on an
/// ultra-constrained path unless the check allows it: its connectivity stays `unknown`.
final class ConnectivitySource: PathSource {
    private struct State {
        /// The source whose paths are checked, attached once by the factory.
        var inner: (any PathSource)?
        /// The inner source's first path, with its connectivity `unknown` (or `offline`).
        var first: NetworkPath?
        var raw: NetworkPath?
        var generation: UInt64 = 0
        /// The check of this generation: none, started (the checker may call back before it
        /// returns its handle), or running with its handle.
        var check: CheckPhase = .idle
        var timer: (any ScheduledWork)?
        var backoff: Duration
        /// The verdict shown, while it stands (a path whose network became known keeps it).
        var shown: ConnectivityResult?
        var stopped = false
        /// Paths made and not yet handed on, in the order the state changed.
        var outbox = PathOutbox()
    }

    private enum CheckPhase {
        case idle
        case starting
        case running(any ScheduledWork)

        /// Whether a check runs (its whole verdict is not in yet).
        var isRunning: Bool {
            if case .idle = self { return false }
            return true
        }

        /// The handle to cancel it with, once the checker gave it.
        var work: (any ScheduledWork)? {
            if case .running(let work) = self { return work }
            return nil
        }
    }

    /// Paths made and not yet handed on, in order, and whether a thread is handing them on
    /// (``drain()``).
    private struct PathOutbox {
        private var paths: [NetworkPath] = []
        private var draining = false

        mutating func append(_ path: NetworkPath) {
            paths.append(path)
        }

        /// Whether the calling thread is now the one handing paths on (none was).
        mutating func claim() -> Bool {
            guard !draining else { return false }
            draining = true
            return true
        }

        /// The next path to hand on; `nil` ends the claim.
        mutating func next() -> NetworkPath? {
            guard !paths.isEmpty else {
                draining = false
                return nil
            }
            return paths.removeFirst()
        }
    }

    private let state: Locked<State>
    private let check: ConnectivityCheck
    /// `nil`: the inner source's loop (``PathSource/loopClock``), else Dispatch.
    private let clock: (any ProbeClock)?
    private let checker: ConnectivityChecker
    private let deliver: @Sendable (NetworkPath) -> Void

    static let firstDelay: Duration = .seconds(1)
    static let maximumDelay: Duration = .seconds(300)

    init(check: ConnectivityCheck, clock: (any ProbeClock)?,
         checker: @escaping ConnectivityChecker, deliver: @escaping @Sendable (NetworkPath) -> Void) {
        self.check = check
        self.clock = clock
        self.checker = checker
        self.deliver = deliver
        state = Locked(State(backoff: ConnectivitySource.firstDelay))
    }

    /// Takes the source whose paths it checks, and that source's first path.
    func attach(_ inner: any PathSource) {
        let raw = inner.initialPath
        state.withLock { state in
            state.inner = inner
            state.raw = raw
            state.first = raw.map { self.annotate($0, result: nil) }
        }
    }

    var initialPath: NetworkPath? { state.withLock { $0.first } }
    var resyncCount: Int { state.withLock { $0.inner }?.resyncCount ?? 0 }
    var loopClock: (any ProbeClock)? { state.withLock { $0.inner }?.loopClock }

    func startReading() -> Bool {
        guard let inner = state.withLock({ $0.inner }), inner.startReading() else { return false }
        let first: NetworkPath? = state.withLock { $0.raw }
        if let first, mayCheck(first) { startCheck() }
        return true
    }

    func stop() {
        let cancelled = state.withLock { state in
            state.stopped = true
            return ConnectivitySource.startOver(&state)
        }
        for work in cancelled { work.cancel() }
        state.withLock { $0.inner }?.stop()
    }

    /// Makes every check and timer before it stale: a new generation, the back-off from its
    /// start, and the check in flight and the timer taken, to be cancelled outside the lock.
    private static func startOver(_ state: inout State) -> [any ScheduledWork] {
        state.generation &+= 1
        state.backoff = ConnectivitySource.firstDelay
        defer { state.check = .idle; state.timer = nil }
        return [state.check.work, state.timer].compactMap { $0 }
    }

    /// A new path from the inner source. A path that differs from the last only in its DNS
    /// servers (``NetworkPath/isIdentical(to:)``: a DHCP client rewrote `resolv.conf` after
    /// the routes came up) restarts the check as any change does, but the connectivity shown
    /// stays until the new check's verdict: users see no path change. One whose wake count
    /// went up (the machine resumed) shows `unknown` until the new check's verdict.
    func receive(_ raw: NetworkPath) {
        let (cancelled, satisfied) = state.withLock { state -> ([any ScheduledWork], Bool) in
            if let path = learnedNetwork(raw, &state) {
                state.outbox.append(path)
                return ([], false)
            }
            guard !state.stopped else { return ([], false) }
            // After a resume from sleep the verdict shown is `unknown` until the new check's.
            let serversOnly = state.raw == raw && !raw.isIdentical(to: state.raw) && raw.wakeCount == state.raw?.wakeCount
            state.raw = raw
            let cancelled = ConnectivitySource.startOver(&state)
            if !serversOnly { showUnchecked(raw, &state) }
            return (cancelled, mayCheck(raw))
        }
        afterStartOver(cancelling: cancelled, check: satisfied)
    }

    /// The machine resumed (``PathMonitor/machineResumed()``): the inner source reads the
    /// kernel again, and the verdict from before the sleep is not shown: `unknown`, and a
    /// check at once, as for a path change.
    func refresh() {
        state.withLock { $0.inner }?.refresh()
        let (cancelled, satisfied) = state.withLock { state -> ([any ScheduledWork], Bool) in
            guard !state.stopped, let raw = state.raw else { return ([], false) }
            let cancelled = ConnectivitySource.startOver(&state)
            showUnchecked(raw, &state)
            return (cancelled, mayCheck(raw))
        }
        afterStartOver(cancelling: cancelled, check: satisfied)
    }

    /// No verdict stands for `raw`: it is handed on with its connectivity unknown.
    private func showUnchecked(_ raw: NetworkPath, _ state: inout State) {
        state.shown = nil
        state.outbox.append(annotate(raw, result: nil))
    }

    /// After a start-over (``startOver(_:)``), outside the lock: hands on the paths made,
    /// cancels the check and the timer it took, and checks the path when it may be checked.
    private func afterStartOver(cancelling cancelled: [any ScheduledWork], check: Bool) {
        drain()
        for work in cancelled { work.cancel() }
        if check { startCheck() }
    }

    /// Hands on the paths made, in order, outside the lock (a subscriber may stop the monitor,
    /// which waits for the reader thread). One thread at a time hands them on: one that
    /// finds another doing it leaves its path to that one.
    private func drain() {
        guard state.withLock({ $0.outbox.claim() }) else { return }
        while let path = state.withLock({ $0.outbox.next() }) {
            deliver(path)
        }
    }

    /// The path to deliver when `raw` differs from the last only in its network's identity
    /// becoming known (``NetworkPath/network`` from `nil`: the kernel learned the gateway's
    /// link-layer address, often from the check's own packets): the same network, so the
    /// check in flight, or the verdict shown, stands. `nil` for any other change.
    private func learnedNetwork(_ raw: NetworkPath, _ state: inout State) -> NetworkPath? {
        guard !state.stopped, let old = state.raw, old.network == nil, raw.network != nil else { return nil }
        var unlearned = raw
        unlearned.network = nil
        guard unlearned.isIdentical(to: old) else { return nil }
        state.raw = raw
        return annotate(raw, result: state.shown)
    }

    private func startCheck() {
        let job: (NetworkPath, UInt64)? = state.withLock { state in
            guard !state.stopped, let raw = state.raw, mayCheck(raw) else { return nil }
            // Running from now: its threads may pass a family, or end, before `checker` returns.
            state.check = .starting
            return (raw, state.generation)
        }
        guard let (raw, generation) = job else { return }
        let work = checker(raw, { [weak self] result in self?.early(result, generation: generation) },
                           { [weak self] result in self?.finished(result, generation: generation) })
        let stale = state.withLock { state -> Bool in
            guard state.generation == generation, !state.stopped else { return true }
            // Ended already (`finished` made it idle): nothing to keep.
            if case .starting = state.check, let work { state.check = .running(work) }
            return false
        }
        if stale { work?.cancel() }
    }

    /// One family passed while the other's check runs on: the path is shown `full` now
    /// (the other family `unknown`), and the check in flight stands. Where the desktop
    /// decides, its verdict stands meanwhile, as for a whole check.
    private func early(_ result: ConnectivityResult, generation: UInt64) {
        state.withLock { state in
            // Not once the whole check's verdict is in (the check idle) or another began.
            guard state.generation == generation, !state.stopped, state.check.isRunning, let raw = state.raw,
                  result.connectivity == .full, !desktopDecides(raw) else { return }
            state.shown = result
            state.outbox.append(annotate(raw, result: result))
        }
        drain()
    }

    private func finished(_ result: ConnectivityResult, generation: UInt64) {
        // `nil`: stale; `.some(nil)`: no re-check; else the re-check's delay.
        let next: Duration?? = state.withLock { state in
            guard state.generation == generation, !state.stopped, let raw = state.raw else { return nil }
            state.check = .idle
            // A local failure (no route for the connection: the path is being lost) is no
            // verdict on the Internet: nothing changes, and the check runs again later.
            if ConnectivitySource.isNoVerdict(result) {
                defer { state.backoff = min(state.backoff * 2, ConnectivitySource.maximumDelay) }
                return .some(state.backoff)
            }
            let delay: Duration?
            if desktopDecides(raw) {
                // Only the portal's address was looked for: once found (or once the check
                // passes), nothing more is sent; the desktop's verdict stands meanwhile.
                delay = result.connectivity == .portal || result.connectivity == .full ? nil : state.backoff
                state.backoff = min(state.backoff * 2, ConnectivitySource.maximumDelay)
            } else if result.connectivity == .full {
                state.backoff = ConnectivitySource.firstDelay
                delay = check.interval
            } else {
                delay = state.backoff
                state.backoff = min(state.backoff * 2, ConnectivitySource.maximumDelay)
            }
            state.shown = result
            state.outbox.append(annotate(raw, result: result))
            return .some(delay)
        }
        drain()
        guard case .some(.some(let delay)) = next else { return }
        let clock = clock ?? state.withLock({ $0.inner })?.loopClock ?? DispatchProbeClock()
        let timer = clock.schedule(after: delay) { [weak self] in self?.recheck(generation: generation) }
        let stale = state.withLock { state -> Bool in
            guard state.generation == generation, !state.stopped else { return true }
            state.timer = timer
            return false
        }
        if stale { timer.cancel() }
    }

    private func recheck(generation: UInt64) {
        let current = state.withLock { state -> Bool in
            guard state.generation == generation else { return false }
            state.timer = nil
            return true
        }
        if current { startCheck() }
    }

    /// Whether a result says nothing about the Internet: no endpoint answered, and the
    /// reason is this machine's (``ConnectivityFailure/isLocal``).
    static func isNoVerdict(_ result: ConnectivityResult) -> Bool {
        (result.connectivity == .limited || result.connectivity == .unknown) && result.failure?.isLocal == true
    }

    /// Whether a check runs on `raw`: it is satisfied, not ultra-constrained unless the
    /// check allows such paths (as an app opts in with `allowUltraConstrainedPaths`), and
    /// the desktop does not decide (``desktopDecides(_:)``) — unless the desktop says
    /// `portal` without the portal's address, which only a request of our own can learn
    /// (``needsPortalURL(_:)``).
    private func mayCheck(_ raw: NetworkPath) -> Bool {
        raw.status == .satisfied && (!raw.isUltraConstrained || check.allowsUltraConstrainedPaths)
            && (!desktopDecides(raw) || needsPortalURL(raw))
    }

    /// Whether the desktop's verdict is `portal` with no address to log in at:
    /// NetworkManager's D-Bus API has none (only its own check's redirect, which it keeps),
    /// so the monitor's check asks the default endpoints to find it: once, or, while a check
    /// sees neither a portal nor a pass, again with the usual back-off (1 s doubling to 5 min). A network that
    /// announced its portal (RFC 8910) needs nothing.
    private func needsPortalURL(_ raw: NetworkPath) -> Bool {
        raw.connectivity == .portal && raw.portalURL == nil
    }

    /// Whether the desktop's verdict stands and nothing is sent (SPEC §3): NetworkManager
    /// or the portal checks (or the user switched NM's check off), and the check has the
    /// default endpoints; endpoints the app or the command line configured are always asked.
    /// (A `portal` verdict without an address is the exception: ``needsPortalURL(_:)``.)
    private func desktopDecides(_ raw: NetworkPath) -> Bool {
        (raw.connectivitySource == .networkManager || raw.connectivitySource == .flatpakPortal)
            && check.endpoints == ConnectivityCheck.defaultEndpoints
    }

    /// The path with its connectivity: `offline` when not satisfied; the desktop's verdict
    /// where it decides; `unknown` until checked; then the check's. A captive-portal URL the
    /// network announced (networkd) stands until a check passes.
    func annotate(_ raw: NetworkPath, result: ConnectivityResult?) -> NetworkPath {
        var path = raw
        if raw.status != .satisfied {
            path.connectivity = .offline
            path.portalURL = nil
            path.connectivitySource = nil
            path.connectivityProxy = nil
            path.familyConnectivity = [:]
        } else if desktopDecides(raw) {
            // The desktop's verdict; the login address from our check, when it saw the portal.
            if needsPortalURL(raw), let result, result.connectivity == .portal { path.portalURL = result.portalURL }
            return path
        } else if raw.connectivitySource == .systemdNetworkd, result?.connectivity != .full {
            return raw
        } else if let result {
            // A cancelled or failed check is not a verdict on the Internet: `limited`.
            path.connectivity = result.connectivity == .unknown || result.connectivity == .offline ? .limited : result.connectivity
            path.portalURL = result.connectivity == .portal ? result.portalURL : nil
            path.connectivitySource = .check
            path.connectivityProxy = result.proxy
            path.familyConnectivity = [:]
            for family in IPFamily.allCases {
                guard var verdict = result.family(family)?.forPath else { continue }
                if verdict.connectivity == .unknown || verdict.connectivity == .offline { verdict.connectivity = .limited }
                path.familyConnectivity[family] = verdict
            }
        } else {
            path.connectivity = .unknown
            path.portalURL = nil
            path.connectivitySource = nil
            path.connectivityProxy = nil
            path.familyConnectivity = [:]
        }
        return path
    }

    /// Wraps a source factory so its paths carry connectivity.
    static func wrap(_ base: @escaping PathSourceFactory, check: ConnectivityCheck,
                     clock: (any ProbeClock)?, checker: @escaping ConnectivityChecker) -> PathSourceFactory {
        { filter, deliver, terminate in
            let source = ConnectivitySource(check: check, clock: clock, checker: checker, deliver: deliver)
            source.attach(try base(filter, { [weak source] path in source?.receive(path) }, terminate))
            return source
        }
    }
}
