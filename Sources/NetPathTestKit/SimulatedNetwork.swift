import NetPath

/// A network that exists only in a test: it plays scripted paths, or a trace recorded with
/// `netpath watch --json`, to every ``PathMonitor`` and ``NetworkMonitor`` built on it.
///
/// Paths are delivered synchronously by ``send(_:)`` and ``step()``: a test on the main
/// actor sees a ``NetworkMonitor`` change before `send` returns, with no sleeps and no
/// network.
///
/// ```swift
/// let network = SimulatedNetwork(.online(.wifi))
/// let monitor = NetworkMonitor(simulating: network)
/// monitor.start()
/// network.send(.offline())
/// #expect(monitor.isConnected == false)
/// ```
public final class SimulatedNetwork: Sendable {
    private struct State {
        var current: NetworkPath
        var script: [NetworkPath]
        var sources: [UInt64: SimulatedSource] = [:]
        var nextID: UInt64 = 0
    }

    // Guarded by its own lock; sources are called outside it.
    private let state: Locked<State>

    /// A network whose path is `initial`, with `script` to play by ``step()``.
    ///
    /// - Parameters:
    ///   - initial: The path monitors see when they start.
    ///   - script: Paths that ``step()`` delivers, one per call.
    public init(_ initial: NetworkPath = .offline(), script: [NetworkPath] = []) {
        state = Locked(State(current: initial, script: script))
    }

    /// A network that replays a trace of `netpath watch --json` lines: the first line is
    /// the initial path, each further line one ``step()``. Blank lines are skipped.
    ///
    /// - Parameters:
    ///   - trace: The JSON Lines text.
    /// - Throws: ``NetPathError`` (`invalidInput`) naming the line that is not a path.
    public convenience init(trace: String) throws {
        var paths: [NetworkPath] = []
        for (number, line) in trace.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = line.trimmingSpaces
            if text.isEmpty { continue }
            do {
                paths.append(try NetworkPath(jsonLine: String(text)))
            } catch let error as NetPathError {
                throw NetPathError(.invalidInput, "trace line \(number + 1): \(error.message)")
            }
        }
        guard let first = paths.first else { throw NetPathError(.invalidInput, "the trace holds no path") }
        self.init(first, script: Array(paths.dropFirst()))
    }

    /// The path the network has now.
    public var currentPath: NetworkPath { state.withLock { $0.current } }

    /// How many scripted paths ``step()`` has still to play.
    public var remainingSteps: Int { state.withLock { $0.script.count } }

    /// How many started monitors use this network.
    public var activeMonitors: Int { state.withLock { $0.sources.count } }

    /// The simulated time that timers of monitors built on this network run on (a
    /// `NetworkMonitor`'s offline grace): it moves only with ``advance(by:)``.
    package let clock = SimulatedClock()

    /// Moves the simulated time on by `duration`; every timer due by then fires, in order,
    /// before this returns (a `NetworkMonitor`'s offline grace ends so).
    public func advance(by duration: Duration) {
        clock.advance(by: duration)
    }

    /// Changes the path now; every running monitor delivers it (when it differs from
    /// that monitor's last path) before this returns.
    public func send(_ path: NetworkPath) {
        let sources = state.withLock { state in
            state.current = path
            return Array(state.sources.values)
        }
        for source in sources { source.receive(path) }
    }

    /// Plays the next scripted path.
    ///
    /// - Returns: The path played, or `nil` when the script is over.
    @discardableResult
    public func step() -> NetworkPath? {
        let next: NetworkPath? = state.withLock { state in
            state.script.isEmpty ? nil : state.script.removeFirst()
        }
        if let next { send(next) }
        return next
    }

    /// Plays every remaining scripted path, in order.
    public func playAll() {
        while step() != nil {}
    }

    // MARK: - Source

    package var factory: PathSourceFactory {
        { [self] filter, deliver, _ in
            // Made under the lock, so that no path is sent between its first and its registration.
            state.withLock { state in
                state.nextID &+= 1
                let source = SimulatedSource(network: self, id: state.nextID, filter: filter,
                                             initialPath: SimulatedNetwork.apply(filter, to: state.current), deliver: deliver)
                state.sources[state.nextID] = source
                return source
            }
        }
    }

    fileprivate func remove(_ id: UInt64) {
        _ = state.withLock { $0.sources.removeValue(forKey: id) }
    }

    /// The monitor's type filter, applied to a simulated path: excluded interfaces vanish,
    /// and a satisfied path with none left becomes unsatisfied with diagnosis `filtered`.
    static func apply(_ filter: InterfaceFilter, to path: NetworkPath) -> NetworkPath {
        guard !filter.admitsAll else { return path }
        var filtered = path
        filtered.availableInterfaces = path.availableInterfaces.filter { filter.admits($0.type) }
        if path.status == .satisfied && filtered.availableInterfaces.isEmpty {
            return NetworkPath(status: .unsatisfied, unsatisfiedReason: .notAvailable, diagnosis: .filtered)
        }
        return filtered
    }
}

/// One started monitor's view of a ``SimulatedNetwork``.
final class SimulatedSource: PathSource {
    private let network: SimulatedNetwork
    private let id: UInt64
    private let filter: InterfaceFilter
    private let deliver: @Sendable (NetworkPath) -> Void
    private let stopped = Locked(false)
    package let initialPath: NetworkPath?

    init(network: SimulatedNetwork, id: UInt64, filter: InterfaceFilter, initialPath: NetworkPath,
         deliver: @escaping @Sendable (NetworkPath) -> Void) {
        self.network = network
        self.id = id
        self.filter = filter
        self.initialPath = initialPath
        self.deliver = deliver
    }

    package func startReading() -> Bool { true }

    func receive(_ path: NetworkPath) {
        guard !stopped.withLock({ $0 }) else { return }
        deliver(SimulatedNetwork.apply(filter, to: path))
    }

    package func stop() {
        stopped.withLock { $0 = true }
        network.remove(id)
    }
}

extension PathMonitor {
    /// A monitor of a ``SimulatedNetwork`` instead of the system: for tests and previews.
    ///
    /// - Parameters:
    ///   - network: The simulated network.
    ///   - requiredInterfaceType: Consider only interfaces of this type.
    ///   - prohibitedInterfaceTypes: Never consider interfaces of these types.
    public convenience init(
        simulating network: SimulatedNetwork,
        requiredInterfaceType: NetworkInterface.InterfaceType? = nil,
        prohibitedInterfaceTypes: [NetworkInterface.InterfaceType] = []
    ) {
        self.init(
            configuration: Configuration(requiredInterfaceType: requiredInterfaceType,
                                         prohibitedInterfaceTypes: prohibitedInterfaceTypes),
            backend: network.factory
        )
    }
}

extension NetworkMonitor {
    /// A monitor of a ``SimulatedNetwork``: for unit tests and SwiftUI previews.
    ///
    /// - Parameters:
    ///   - network: The simulated network.
    ///   - assumeConnected: ``isConnected`` before the first path.
    ///   - isConnectedMeans: Whether ``isConnected`` follows the path or the simulated
    ///     paths' `connectivity`.
    ///   - offlineGrace: How long to hold an offline verdict back; the grace runs on the
    ///     network's simulated clock: ``SimulatedNetwork/advance(by:)`` moves it, no sleeping.
    public convenience init(simulating network: SimulatedNetwork, assumeConnected: Bool = true,
                            isConnectedMeans: ConnectedMeaning = .pathSatisfied, offlineGrace: Duration = .zero) {
        self.init(monitor: PathMonitor(simulating: network), assumeConnected: assumeConnected, isConnectedMeans: isConnectedMeans,
                  offlineGrace: offlineGrace, clock: network.clock)
    }

}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text = text.dropLast() }
        return text
    }
}

/// A clock that moves only when told: timers fire, in order of their time, inside
/// ``advance(by:)``, on the caller's thread. Its time is an ``Instant`` from ``Instant/zero``,
/// so steps that add up to a timer's delay reach it exactly.
package final class SimulatedClock: ProbeClock, Sendable {
    private struct Timer {
        var at: Instant
        var work: @Sendable () -> Void
        var cancelled: Locked<Bool>
    }

    private struct Handle: ScheduledWork {
        let cancelled: Locked<Bool>
        func cancel() { cancelled.withLock { $0 = true } }
    }

    private let state = Locked<(now: Instant, timers: [Timer])>((.zero, []))

    package func schedule(after delay: Duration, _ work: @escaping @Sendable () -> Void) -> any ScheduledWork {
        let cancelled = Locked(false)
        state.withLock { $0.timers.append(Timer(at: $0.now + max(delay, .zero), work: work, cancelled: cancelled)) }
        return Handle(cancelled: cancelled)
    }

    package func advance(by duration: Duration) {
        let end = state.withLock { $0.now + max(duration, .zero) }
        while true {
            // The earliest timer due, taken out under the lock and run outside it.
            let due: Timer? = state.withLock { state in
                guard let index = state.timers.indices.filter({ state.timers[$0].at <= end })
                    .min(by: { state.timers[$0].at < state.timers[$1].at }) else { return nil }
                state.now = state.timers[index].at
                return state.timers.remove(at: index)
            }
            guard let due else { break }
            if !due.cancelled.withLock({ $0 }) { due.work() }
        }
        state.withLock { $0.now = end }
    }
}
