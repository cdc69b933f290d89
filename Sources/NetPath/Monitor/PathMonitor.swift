import Dispatch

/// Watches the network path and reports each change: the shape of `NWPathMonitor`,
/// restartable, with any number of subscribers, on Linux and Apple platforms.
///
/// ```swift
/// let monitor = PathMonitor()
/// try monitor.start()
/// for await path in monitor.paths {
///     print(path.status, path.availableInterfaces.first?.name ?? "-")
/// }
/// ```
///
/// On Linux `start()` returns once the first path is known (it dumps the kernel tables
/// synchronously), so ``currentPath`` is set when it returns; on Apple platforms
/// `NWPathMonitor` reports the first path a moment later, through the handler and
/// ``paths`` like every other. ``cancel()`` stops watching,
/// closes the socket and ends every active ``paths`` loop; `start()` may be called again.
/// The monitor never keeps itself alive: when the last reference goes, it cancels itself.
public final class PathMonitor: Sendable {
    /// What the monitor watches and how.
    public let configuration: Configuration
    /// The only interface type this monitor considers, if any.
    public var requiredInterfaceType: NetworkInterface.InterfaceType? { configuration.requiredInterfaceType }
    /// Interface types this monitor ignores.
    public var prohibitedInterfaceTypes: [NetworkInterface.InterfaceType] { configuration.prohibitedInterfaceTypes }
    /// The network namespace watched (Linux), or `nil` for the process's own.
    public var namespace: NetworkNamespace? { configuration.namespace }
    /// The connectivity check run on every path change, or `nil` (no traffic at all).
    public var connectivityCheck: ConnectivityCheck? { configuration.connectivityCheck }
    /// Interfaces configured as metered: a path whose physical interface (the primary one,
    /// or under a VPN the one beneath the tunnel) matches one is expensive. Names or
    /// shell-style patterns, as given to the initializer.
    public var meteredInterfaces: [String] { configuration.meteredInterfaces }
    /// Interfaces configured as constrained: a path whose physical interface matches one is
    /// constrained.
    public var constrainedInterfaces: [String] { configuration.constrainedInterfaces }
    /// Interfaces configured as ultra-constrained (satellite links): a path whose physical
    /// interface matches one is ``NetworkPath/isUltraConstrained``.
    public var ultraConstrainedInterfaces: [String] { configuration.ultraConstrainedInterfaces }

    let storage = PathStorage()
    private let makeSource: PathSourceFactory

    /// Creates a monitor of the system's network path as `configuration` says (by default
    /// every interface of the process's own namespace, and no traffic at all).
    ///
    /// ```swift
    /// let blue = PathMonitor(configuration: .init(namespace: .named("blue"), connectivityCheck: .default))
    /// ```
    ///
    /// - Parameters:
    ///   - configuration: What to watch and how: the interface filter, the namespace, the
    ///     connectivity check and the interfaces treated as metered or constrained
    ///     (``Configuration``).
    ///   - reader: A ``SharedReader`` whose one thread reads the kernel for this monitor and
    ///     every other that shares it (a service watching many namespaces); `nil`, the
    ///     default, gives the monitor a thread of its own.
    public convenience init(configuration: Configuration = Configuration(), reader: SharedReader? = nil) {
        self.init(configuration: configuration, reader: reader, checkObserver: nil)
    }

    /// Creates a monitor that considers only interfaces of one type, as
    /// `NWPathMonitor(requiredInterfaceType:)` does.
    public convenience init(requiredInterfaceType: NetworkInterface.InterfaceType) {
        self.init(configuration: Configuration(requiredInterfaceType: requiredInterfaceType))
    }

    /// Creates a monitor that never considers interfaces of these types, as
    /// `NWPathMonitor(prohibitedInterfaceTypes:)` does.
    public convenience init(prohibitedInterfaceTypes: [NetworkInterface.InterfaceType]) {
        self.init(configuration: Configuration(prohibitedInterfaceTypes: prohibitedInterfaceTypes))
    }

    /// Creates a monitor of the system's network path whose connectivity checks are also
    /// reported to `checkObserver`.
    ///
    /// - Parameters:
    ///   - checkObserver: Called with every check's result, on the check's thread, before
    ///     the path it makes (`netpath serve` times the checks with it).
    ///   - showsEarlyPasses: Whether one family's pass is shown while the other family's
    ///     check still runs (`false`: only whole checks' verdicts, as `status --probe` prints).
    ///   - endsSoon: For a command that ends (`wait`, `status --probe`): on Linux the
    ///     desktop's buses are followed while it runs, but a bus that fails is not tried again,
    ///     networkd's files are read once and logind's sleep signals are not asked for.
    package convenience init(
        configuration: Configuration, reader: SharedReader?, showsEarlyPasses: Bool = true, endsSoon: Bool = false,
        checkObserver: (@Sendable (ConnectivityResult) -> Void)?
    ) {
        var options = LinuxSourceOptionsIfAny()
        #if os(Linux) || os(Android)
        options.sharedReader = reader?.thread
        #endif
        let namespace = configuration.namespace
        var backend = PathMonitor.systemSource(namespace: namespace, options: options)
        #if os(Linux) || os(Android)
        if namespace == nil, !configuration.ignoresDesktop {
            backend = DesktopSource.wrap(backend, providesConnectivity: configuration.connectivityCheck != nil,
                                         purpose: endsSoon ? .command : .watching)
        }
        #endif
        self.init(
            configuration: configuration, backend: backend,
            clock: nil,  // the reader's loop
            checker: configuration.connectivityCheck.map {
                PathMonitor.checker($0, namespace: namespace, showsEarlyPasses: showsEarlyPasses, observer: checkObserver)
            }
        )
    }

    /// A monitor of another backend (NetPathTestKit's simulated network, previews), with
    /// the configuration's costs (its connectivity check is run on the backend's paths).
    package convenience init(configuration: Configuration, backend: @escaping PathSourceFactory) {
        self.init(configuration: configuration, backend: backend, clock: DispatchProbeClock(), checker: nil)
    }

    /// A monitor of `backend`'s paths, marked with the configured costs and then, when the
    /// configuration has a check, given their connectivity by `checker`.
    ///
    /// - Parameters:
    ///   - clock: Times the check's back-off and interval; `nil`, the backend's own loop
    ///     (``PathSource/loopClock``), or Dispatch where it has none.
    ///   - checker: Runs one check; `nil` runs the configured check over the real network.
    init(configuration: Configuration, backend: @escaping PathSourceFactory, clock: (any ProbeClock)?,
         checker: ConnectivityChecker?) {
        self.configuration = configuration
        var makeSource = configuration.costs.wrap(backend)
        if let check = configuration.connectivityCheck {
            let namespace = configuration.namespace
            makeSource = ConnectivitySource.wrap(
                makeSource, check: check, clock: clock,
                checker: checker ?? PathMonitor.checker(check, namespace: namespace, observer: nil)
            )
        }
        self.makeSource = makeSource
    }

    /// Runs `check` over the real network in `namespace`, telling `observer` each result
    /// (and the source one family's pass before the other's end, if `showsEarlyPasses`).
    static func checker(_ check: ConnectivityCheck, namespace: NetworkNamespace?, showsEarlyPasses: Bool = true,
                        observer: (@Sendable (ConnectivityResult) -> Void)?) -> ConnectivityChecker {
        { path, early, completion in
            check.start(over: path, namespace: namespace, early: showsEarlyPasses ? early : nil) { result in
                observer?(result)
                completion(result)
            }
        }
    }

    deinit {
        storage.stop()
    }

    /// The latest path, or `nil` before the first start.
    public var currentPath: NetworkPath? {
        storage.current
    }

    /// How many times the running source lost kernel events and read the whole state again
    /// (0 when not running, and on Apple platforms).
    package var resyncCount: Int {
        storage.source?.resyncCount ?? 0
    }

    /// The machine resumed from sleep, as a monitor that is not told itself learns (one of
    /// another namespace than the one logind's bus is watched from): its kernel tables are
    /// read again, and a verdict from before the sleep is not shown (`unknown` until a new
    /// check's). Nothing while not running.
    package func machineResumed() {
        storage.source?.refresh()
    }

    /// Whether the monitor is running.
    public var isRunning: Bool {
        storage.source != nil
    }

    /// Why the monitor stopped by itself, if it did: on Linux, the watched network
    /// namespace was deleted (`ip netns del`). Cleared by the next ``start(queue:)``.
    public var terminationError: NetPathError? {
        storage.terminationError
    }

    /// Called once when the monitor stops by itself (see ``terminationError``), on the
    /// same queue as ``pathUpdateHandler``, after the last path.
    public var terminationHandler: (@Sendable (NetPathError) -> Void)? {
        get { storage.terminationHandler }
        set { storage.terminationHandler = newValue }
    }

    /// Called with the first path after each start and then with each change, on the
    /// queue given to ``start(queue:)``. It is kept across restarts.
    public var pathUpdateHandler: (@Sendable (NetworkPath) -> Void)? {
        get { storage.handler }
        set { storage.handler = newValue }
    }

    /// Starts watching. Does nothing when already running.
    ///
    /// - Parameters:
    ///   - queue: Where ``pathUpdateHandler`` is called. `nil` (the default) calls it on the
    ///     thread that delivers the path, one call at a time and in order, as soon as a path
    ///     differs: the monitor's reader thread (on Linux the first path on the caller's,
    ///     before `start` returns; a connectivity check's verdict on the check's thread, on
    ///     Apple platforms `NWPathMonitor`'s queue); it should return quickly.
    /// - Throws: ``NetPathError`` when the namespace does not exist or cannot be entered,
    ///   or the netlink socket cannot be opened.
    public func start(queue: DispatchQueue? = nil) throws {
        let filter = configuration.filter
        let started = try storage.start(queue: queue) { [storage, makeSource] generation in
            try makeSource(filter, { [weak storage] path in
                storage?.deliver(path, generation: generation)
            }, { [weak storage] error in
                storage?.terminate(error, generation: generation)
            })
        }
        guard started else {
            cancel()
            throw NetPathError(.threadFailure, "cannot start the monitor's reader thread")
        }
    }

    /// The current path, read once, without a running monitor: on Linux one netlink dump,
    /// with no thread and no file watch left behind (what `netpath status` uses).
    ///
    /// ```swift
    /// let path = try PathMonitor.snapshot()
    /// print(path)   // satisfied via eth0 (wiredEthernet), IPv4 IPv6 DNS
    /// ```
    ///
    /// - Parameters:
    ///   - requiredInterfaceType: Consider only interfaces of this type.
    ///   - prohibitedInterfaceTypes: Never consider interfaces of these types.
    ///   - namespace: On Linux, the network namespace to read.
    ///   - meteredInterfaces: Interfaces to treat as metered (see ``meteredInterfaces``).
    ///   - constrainedInterfaces: Interfaces to treat as constrained.
    ///   - ultraConstrainedInterfaces: Interfaces to treat as ultra-constrained.
    /// - Returns: The path now.
    /// - Throws: ``NetPathError`` as ``start(queue:)`` does; on Apple platforms
    ///   `.timedOut` when `NWPathMonitor` reports no path within 5 s.
    public static func snapshot(
        requiredInterfaceType: NetworkInterface.InterfaceType? = nil,
        prohibitedInterfaceTypes: [NetworkInterface.InterfaceType] = [],
        namespace: NetworkNamespace? = nil,
        meteredInterfaces: [String] = [],
        constrainedInterfaces: [String] = [],
        ultraConstrainedInterfaces: [String] = []
    ) throws -> NetworkPath {
        try snapshot(configuration: Configuration(
            requiredInterfaceType: requiredInterfaceType, prohibitedInterfaceTypes: prohibitedInterfaceTypes,
            namespace: namespace, meteredInterfaces: meteredInterfaces, constrainedInterfaces: constrainedInterfaces,
            ultraConstrainedInterfaces: ultraConstrainedInterfaces
        ))
    }

    /// The current path as `configuration` says, read once, without a running monitor (see
    /// ``snapshot(requiredInterfaceType:prohibitedInterfaceTypes:namespace:meteredInterfaces:constrainedInterfaces:ultraConstrainedInterfaces:)``).
    ///
    /// - Parameters:
    ///   - configuration: What to read. Its ``Configuration/connectivityCheck`` is not run
    ///     (a snapshot sends nothing): run it over the path with ``ConnectivityCheck/run(over:namespace:)``.
    /// - Returns: The path now.
    /// - Throws: ``NetPathError`` as ``start(queue:)`` does; on Apple platforms
    ///   `.timedOut` when `NWPathMonitor` reports no path within 5 s.
    public static func snapshot(configuration: Configuration) throws -> NetworkPath {
        var configuration = configuration
        configuration.connectivityCheck = nil
        var options = LinuxSourceOptionsIfAny()
        options.keepsWatching = false
        #if os(Linux) || os(Android)
        // One dump on the calling thread: no reader thread, no watches.
        let readKernel = { () throws -> NetworkPath? in
            let source = try LinuxPathSource.open(namespace: configuration.namespace, filter: configuration.filter,
                                                  options: options, deliver: { _ in })
            defer { source.stop() }
            return source.initialPath
        }
        let desktop = configuration.namespace == nil && !configuration.ignoresDesktop
        if let path = try desktop ? DesktopSource.snapshot(readKernel) : readKernel() { return configuration.costs.apply(to: path) }
        #endif
        let monitor = PathMonitor(configuration: configuration,
                                  backend: systemSource(namespace: configuration.namespace, options: options))
        let first = Locked<NetworkPath?>(nil)
        let arrived = DispatchSemaphore(value: 0)
        monitor.pathUpdateHandler = { path in
            first.withLock { $0 = $0 ?? path }
            arrived.signal()
        }
        try monitor.start()
        defer { monitor.cancel() }
        if let path = first.withLock({ $0 }) { return path }
        // Apple's backend reports its first path asynchronously.
        guard arrived.wait(timeout: .now() + 5) == .success, let path = first.withLock({ $0 }) else {
            throw NetPathError(.timedOut, "no path was reported within 5 s")
        }
        return path
    }

    /// Stops watching: closes the socket, ends every active ``paths`` loop. The monitor
    /// can be started again.
    public func cancel() {
        storage.cancel()
    }

    /// The paths as an `AsyncSequence`: the current path first, then each change.
    ///
    /// Any number of loops may iterate at once; each receives every path that differs
    /// from the last one it received (a slow loop skips to the newest). A loop ends when
    /// the monitor is cancelled or released, or its task is cancelled.
    public var paths: Paths { Paths(storage: storage) }

    /// An `AsyncSequence` of a monitor's paths.
    public struct Paths: AsyncSequence, Sendable {
        public typealias Element = NetworkPath
        let storage: PathStorage

        public func makeAsyncIterator() -> Iterator {
            Iterator(subscription: Subscription(storage: storage))
        }

        /// Iterates one subscription; the subscription ends when the iterator is released.
        /// An iterator belongs to the task that iterates; it is not `Sendable`.
        public struct Iterator: AsyncIteratorProtocol {
            let subscription: Subscription

            /// The next path, or `nil` once the subscription has ended.
            public mutating func next() async -> NetworkPath? {
                await subscription.storage.next(subscription.id)
            }

            /// The next path, or `nil` once the subscription has ended.
            @available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *)
            public mutating func next(isolation actor: isolated (any Actor)?) async -> NetworkPath? {
                await subscription.storage.next(subscription.id)
            }
        }
    }

    /// One subscriber's registration; releasing it unsubscribes.
    final class Subscription: Sendable {
        let storage: PathStorage
        let id: UInt64

        init(storage: PathStorage) {
            self.storage = storage
            id = storage.subscribe()
        }

        deinit {
            storage.unsubscribe(id)
        }
    }
}

extension PathMonitor {
    /// The system backend: rtnetlink on Linux, `NWPathMonitor` on Apple platforms.
    static func systemSource(namespace: NetworkNamespace?, options: LinuxSourceOptionsIfAny) -> PathSourceFactory {
        #if os(Linux) || os(Android)
        return { filter, deliver, terminate in
            try LinuxPathSource.open(namespace: namespace, filter: filter, options: options, deliver: deliver, terminate: terminate)
        }
        #elseif canImport(Network)
        return { filter, deliver, _ in
            if let namespace {
                throw NetPathError(.unsupported, "\(namespace): network namespaces exist only on Linux")
            }
            return NWPathMonitorSource(filter: filter, deliver: deliver)
        }
        #else
        return { _, _, _ in
            throw NetPathError(.unsupported, "no path monitor backend on this platform")
        }
        #endif
    }
}

@available(*, unavailable)
extension PathMonitor.Paths.Iterator: Sendable {}

#if os(Linux) || os(Android)
typealias LinuxSourceOptionsIfAny = LinuxSourceOptions
#else
struct LinuxSourceOptionsIfAny: Sendable {
    var keepsWatching = true
}
#endif
