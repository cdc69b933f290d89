#if canImport(Observation)
import Dispatch
import Observation

/// The network monitor app code writes again and again, done once: observable, on the
/// main actor, with the names apps already use for it (`isConnected`, `connectionType`).
///
/// ```swift
/// @State private var network = NetworkMonitor()
///
/// var body: some View {
///     Text(network.isConnected ? "Online via \(network.connectionType)" : "Offline")
///         .task { network.start() }
/// }
/// ```
///
/// Until the first path arrives, ``isConnected`` is `true` (optimistic, so an app does not
/// flash an offline screen at launch); pass `assumeConnected: false` to start pessimistic.
/// ``start()`` and ``stop()`` may alternate any number of times. The monitor holds no
/// reference to itself: when the app releases it, it stops.
///
/// A UI should not flash "offline" on a blip (a Wi-Fi roam, a DHCP renewal that re-adds a
/// route): `NetworkMonitor(offlineGrace: .milliseconds(800))` holds an offline verdict back
/// for that long. A path that comes back within it is never shown as offline; a real loss is
/// shown once the grace ends; online is shown at once. The default is no grace. The
/// underlying ``monitor`` stays exact.
@MainActor
@Observable
public final class NetworkMonitor {
    /// The kind of connection, as an app shows it.
    public enum ConnectionType: String, Hashable, Sendable, CaseIterable {
        /// Wi-Fi.
        case wifi
        /// Cellular (mobile data).
        case cellular
        /// Wired Ethernet.
        case ethernet
        /// Anything else: a tunnel with no physical interface beneath it, PPP, loopback.
        case other
        /// Not connected, or no path yet.
        case unknown

        /// The connection type of a path: the type of the interface that physically carries
        /// it (under a VPN, the one beneath the tunnel: a VPN over Wi-Fi is `wifi`), or
        /// `unknown` when the path is not satisfied.
        public init(_ path: NetworkPath?) {
            switch path?.physicalInterface?.type {
            case .wifi?: self = .wifi
            case .cellular?: self = .cellular
            case .wiredEthernet?: self = .ethernet
            case .other?, .loopback?: self = .other
            case nil: self = .unknown
            }
        }
    }

    /// What ``isConnected`` means.
    public enum ConnectedMeaning: Hashable, Sendable {
        /// A route exists: the path is satisfied (as `NWPathMonitor` says).
        case pathSatisfied
        /// The Internet answers: the connectivity check says `full`. While the check has not
        /// decided a satisfied path (its ``NetworkPath/connectivity`` is `unknown`: at launch,
        /// and after each change, for up to the check's timeout), ``NetworkMonitor/isConnected``
        /// keeps its value (before the first verdict, the `assumeConnected` one).
        case internetReachable
    }

    /// The latest path, or `nil` before the first.
    public private(set) var path: NetworkPath?
    /// Whether the path is satisfied (or, under ``ConnectedMeaning/internetReachable``, the
    /// Internet answers); before the first path, the `assumeConnected` value.
    public private(set) var isConnected: Bool
    /// Wi-Fi, cellular, Ethernet, other, or unknown (offline or no path yet).
    public private(set) var connectionType: ConnectionType = .unknown
    /// Whether the monitor is running.
    public private(set) var isMonitoring = false
    /// Why the last ``start()`` failed (Linux: a namespace that does not exist…), if it did.
    public private(set) var lastError: NetPathError?

    /// Whether the Internet answers (`unknown` without a connectivity check).
    public var connectivity: Connectivity { path?.connectivity ?? .unknown }
    /// The captive portal's login page, when behind one.
    public var portalURL: String? { path?.portalURL }
    /// What ``isConnected`` means for this monitor.
    public var isConnectedMeans: ConnectedMeaning { settings.means }

    /// The path's status, or `nil` before the first path.
    public var status: NetworkPath.Status? { path?.status }
    /// Whether the physical interface is expensive (cellular, or configured as metered;
    /// under a VPN, the interface beneath the tunnel).
    public var isExpensive: Bool { path?.isExpensive ?? false }
    /// Whether the path is constrained (Low Data Mode, or configured as constrained).
    public var isConstrained: Bool { path?.isConstrained ?? false }
    /// Whether the path is ultra-constrained (a satellite link on iOS 26, or configured so).
    public var isUltraConstrained: Bool { path?.isUltraConstrained ?? false }
    /// How well the link is doing (iOS 26 and later; `unknown` elsewhere).
    public var linkQuality: NetworkPath.LinkQuality { path?.linkQuality ?? .unknown }
    /// Whether the traffic leaves through a VPN; ``connectionType`` then names the transport
    /// beneath it.
    public var usesVPN: Bool { path?.status == .satisfied && path?.usesVPN == true }

    /// Whether the path shown (``path``) is satisfied (what apps read as
    /// `monitor.currentPath.status == .satisfied` from `NWPathMonitor`); `false` before the
    /// first path. An offline path held back by ``offlineGrace`` is not shown yet. Observable,
    /// as it follows ``path``.
    public var isNetworkAvailable: Bool {
        path?.status == .satisfied
    }

    /// The underlying monitor (for its `paths` sequence or Combine publisher).
    @ObservationIgnored public let monitor: PathMonitor
    /// The observer on ``monitor``, and the number of the current start (a path or a grace
    /// timer of an earlier start is ignored). Locked: `deinit` reads it off the main actor.
    @ObservationIgnored private let subscription = Locked<(observer: UInt64?, run: UInt64)>((nil, 0))
    @ObservationIgnored private var completion: (@MainActor (Bool) -> Void)?
    /// How long an offline verdict is held back (zero: none).
    public var offlineGrace: Duration { settings.grace }
    /// What ``isConnected`` means, and how long an offline verdict is held back: set once.
    @ObservationIgnored private let settings: (means: ConnectedMeaning, grace: Duration)
    /// The grace's clock, and the offline path held back with the timer that ends it.
    @ObservationIgnored private var grace: (clock: any ProbeClock, held: (path: NetworkPath, timer: any ScheduledWork)?)
    private var run: UInt64 { subscription.withLock { $0.run } }
    /// The run whose paths were last applied (a path of this run seen already).
    @ObservationIgnored private var shownRun: UInt64 = 0
    private var held: (path: NetworkPath, timer: any ScheduledWork)? {
        get { grace.held }
        set { grace.held = newValue }
    }

    /// A monitor of the system's network path as `configuration` says (by default every
    /// interface of the process's own namespace).
    ///
    /// - Parameters:
    ///   - configuration: What to watch and how (``PathMonitor/Configuration``: the interface
    ///     filter, the namespace, the check, the metered interfaces); `.internetReachable`
    ///     adds the default check when it has none.
    ///   - assumeConnected: ``isConnected`` before the first path (`true`: optimistic).
    ///   - isConnectedMeans: Whether ``isConnected`` follows the path (default) or the
    ///     Internet check.
    ///   - offlineGrace: How long to hold an offline verdict back, so a blip that heals
    ///     within it never shows (zero, the default: none).
    public convenience init(
        configuration: PathMonitor.Configuration = PathMonitor.Configuration(),
        assumeConnected: Bool = true,
        isConnectedMeans: ConnectedMeaning = .pathSatisfied,
        offlineGrace: Duration = .zero
    ) {
        var configuration = configuration
        if isConnectedMeans == .internetReachable && configuration.connectivityCheck == nil {
            configuration.connectivityCheck = .default
        }
        self.init(monitor: PathMonitor(configuration: configuration), assumeConnected: assumeConnected,
                  isConnectedMeans: isConnectedMeans, offlineGrace: offlineGrace)
    }

    /// A monitor built on `monitor`, which it starts and stops.
    ///
    /// - Parameters:
    ///   - monitor: The path monitor to follow (a namespace, a filter, a simulation…).
    ///   - assumeConnected: ``isConnected`` before the first path.
    ///   - isConnectedMeans: Whether ``isConnected`` follows the path or the Internet check
    ///     (which `monitor` must run, or its paths carry `connectivity` from a simulation).
    ///   - offlineGrace: How long to hold an offline verdict back (zero: none).
    public convenience init(monitor: PathMonitor, assumeConnected: Bool = true, isConnectedMeans: ConnectedMeaning = .pathSatisfied,
                            offlineGrace: Duration = .zero) {
        self.init(monitor: monitor, assumeConnected: assumeConnected, isConnectedMeans: isConnectedMeans,
                  offlineGrace: offlineGrace, clock: DispatchProbeClock())
    }

    /// A monitor whose grace runs on `clock` (NetPathTestKit's simulated network drives it
    /// by hand).
    package init(monitor: PathMonitor, assumeConnected: Bool, isConnectedMeans: ConnectedMeaning,
                 offlineGrace: Duration, clock: any ProbeClock) {
        self.monitor = monitor
        settings = (isConnectedMeans, max(offlineGrace, .zero))
        grace = (clock, nil)
        isConnected = assumeConnected
        NetworkMonitor.prepareMainQueueKey()
    }

    deinit {
        if let id = subscription.withLock({ $0.observer }) { monitor.storage.removeObserver(id) }
        grace.held?.timer.cancel()
        monitor.cancel()
    }

    /// Starts monitoring; does nothing when already monitoring. A failure is kept in
    /// ``lastError`` (on Apple platforms only a monitor of a network namespace fails:
    /// `.unsupported`), and then ``isConnected`` is `false` and ``connectionType``
    /// `unknown`, whatever was assumed or seen before: the monitor knows nothing.
    public func start() {
        guard !isMonitoring else { return }
        let current = subscription.withLock { $0.run &+= 1; return $0.run }
        let id = monitor.storage.addObserver { [weak self] path in
            // Paths come on the monitor's thread.
            NetworkMonitor.onMainActor { self?.apply(path, run: current) }
        }
        subscription.withLock { $0.observer = id }
        isMonitoring = true
        do {
            try monitor.start()
            lastError = nil
            // A monitor that was running already delivers nothing new at `start`: show its path.
            if shownRun != current, let running = monitor.currentPath { apply(running, run: current) }
        } catch {
            lastError = error as? NetPathError ?? NetPathError(.netlinkFailure, "\(error)")
            stop()
            path = nil
            isConnected = false
            connectionType = .unknown
            completion?(false)
        }
    }

    /// Stops monitoring. ``path`` and ``isConnected`` keep their last values (an offline
    /// verdict still held back is dropped).
    public func stop() {
        guard isMonitoring else { return }
        isMonitoring = false
        held?.timer.cancel()
        held = nil
        if let id = subscription.withLock({ state in
            defer { state = (nil, state.run &+ 1) }
            return state.observer
        }) {
            monitor.storage.removeObserver(id)
        }
        monitor.cancel()
    }

    /// Starts monitoring and calls `completion` on the main actor with ``isConnected`` for
    /// the first path and every change (the callback style of many apps).
    public func startMonitoring(_ completion: @escaping @MainActor (Bool) -> Void) {
        self.completion = completion
        start()
    }

    /// Stops monitoring and forgets the completion handler.
    public func stopMonitoring() {
        completion = nil
        stop()
    }

    private func apply(_ newPath: NetworkPath, run: UInt64) {
        guard run == self.run, isMonitoring else { return }
        // The running path shown at `start` may also come through the observer: once is enough.
        if shownRun == run, held == nil, let path, path.isIdentical(to: newPath) { return }
        shownRun = run
        switch OfflineGrace.decide(connected: connects(newPath), shownConnected: isConnected,
                                   holding: held != nil, grace: offlineGrace) {
        case .show:
            held?.timer.cancel()
            held = nil
            show(newPath)
        case .hold:
            held?.path = newPath
        case .startHolding:
            let timer = grace.clock.schedule(after: offlineGrace) { [weak self] in
                NetworkMonitor.onMainActor { self?.graceEnded(run: run) }
            }
            held = (newPath, timer)
        }
    }

    /// The grace ran out with the path still offline: show it now.
    private func graceEnded(run: UInt64) {
        guard run == self.run, isMonitoring, let held else { return }
        self.held = nil
        show(held.path)
    }

    /// Whether `path` counts as connected. Under `.internetReachable` a satisfied path that
    /// no check has decided yet (`unknown`: each change starts the check over) keeps what is
    /// shown, so that the monitor does not read offline at launch and at every change while
    /// the check runs.
    private func connects(_ path: NetworkPath) -> Bool {
        switch isConnectedMeans {
        case .pathSatisfied: path.status == .satisfied
        case .internetReachable where path.status == .satisfied && path.connectivity == .unknown: isConnected
        case .internetReachable: path.status == .satisfied && path.connectivity == .full
        }
    }

    private func show(_ newPath: NetworkPath) {
        if path != newPath { path = newPath }
        let connected = connects(newPath)
        if isConnected != connected { isConnected = connected }
        let type = ConnectionType(newPath)
        if connectionType != type { connectionType = type }
        completion?(connected)
    }

    // MARK: - Main queue

    /// Marks the main queue, so code can ask whether it runs there. (The main actor runs on
    /// the main queue; after `dispatchMain()` that queue may be drained by any thread, so
    /// thread identity does not answer the question.)
    private nonisolated static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    private static func prepareMainQueueKey() {
        _ = mainQueueKey
    }

    /// Runs `body` on the main actor: at once when already on the main queue (as with a
    /// simulated network or clock driven by a test), else hopped there.
    private nonisolated static func onMainActor(_ body: @escaping @MainActor @Sendable () -> Void) {
        if isOnMainQueue {
            MainActor.assumeIsolated(body)
        } else {
            DispatchQueue.main.async { MainActor.assumeIsolated(body) }
        }
    }

    private nonisolated static var isOnMainQueue: Bool {
        DispatchQueue.getSpecific(key: mainQueueKey) == true
    }
}
#endif

/// The grace rule of ``NetworkMonitor``, apart from its clock: what to do with a path. Pure.
enum OfflineGrace: Equatable {
    /// Show the path now (and end any grace).
    case show
    /// Keep holding: the grace already runs; this path replaces the one held.
    case hold
    /// Hold the path back and start the grace.
    case startHolding

    /// - Parameters:
    ///   - connected: Whether the new path counts as connected.
    ///   - shownConnected: Whether the monitor shows connected now (before the first path,
    ///     what it assumes).
    ///   - holding: Whether an offline path is held back already.
    ///   - grace: The grace period.
    static func decide(connected: Bool, shownConnected: Bool, holding: Bool, grace: Duration) -> OfflineGrace {
        if connected || grace <= .zero { return .show }
        if holding { return .hold }
        // Offline shown already: a change of why (a diagnosis) is shown at once.
        return shownConnected ? .startHolding : .show
    }
}
