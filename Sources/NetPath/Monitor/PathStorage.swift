import Dispatch

/// The shared state of a ``PathMonitor``: a ``PathStateMachine`` behind one lock. Every
/// method changes the machine under the lock and then does what it returned outside it:
/// resumes continuations, calls observers and handlers, stops sources.
final class PathStorage: Sendable {
    typealias Machine = PathStateMachine<CheckedContinuation<NetworkPath?, Never>>

    private let state = Locked(Machine())
    // Serialises start and cancel, which open and stop sources outside the state lock (an
    // open dumps the kernel tables). It guards no value.
    private let lifecycle = Locked(())

    // MARK: - Reading

    /// The latest path, or `nil` before the first start.
    var current: NetworkPath? { state.withLock { $0.current } }
    /// The running source, if any.
    var source: (any PathSource)? { state.withLock { $0.source } }
    var terminationError: NetPathError? { state.withLock { $0.terminationError } }
    var subscriberCount: Int { state.withLock { $0.subscriberCount } }
    var observerCount: Int { state.withLock { $0.observerCount } }

    var handler: Machine.Handler? {
        get { state.withLock { $0.handler } }
        set { state.withLock { $0.handler = newValue } }
    }

    var terminationHandler: Machine.TerminationHandler? {
        get { state.withLock { $0.terminationHandler } }
        set { state.withLock { $0.terminationHandler = newValue } }
    }

    // MARK: - Lifecycle

    /// Starts a run unless one is running: opens its source, delivers the source's first
    /// path, and lets it read.
    ///
    /// - Parameters:
    ///   - queue: Where the path update handler runs (`nil`: on the delivering thread).
    ///   - openSource: Opens the run's source; given the run's generation, for its callbacks.
    /// - Returns: `false` when the source could not start reading (the run goes on: the
    ///   caller cancels it).
    /// - Throws: What `openSource` throws.
    func start(queue: DispatchQueue?, openSource: (_ generation: UInt64) throws -> any PathSource) throws -> Bool {
        let opened: (any PathSource, UInt64)? = try lifecycle.withLock { _ in
            guard let generation = state.withLock({ $0.start(queue: queue) }) else { return nil }
            let source = try openSource(generation)
            state.withLock { $0.opened(source) }
            return (source, generation)
        }
        guard let (source, generation) = opened else { return true }
        // Outside the lifecycle lock: a handler called inline may cancel or restart.
        if let first = source.initialPath {
            deliver(first, generation: generation, force: true)
        }
        return lifecycle.withLock { _ in
            // Cancelled meanwhile (by a handler, or another thread): nothing to start.
            guard state.withLock({ $0.generation == generation }) else { return true }
            return source.startReading()
        }
    }

    /// Stops the running source and ends every active subscription, serialised with
    /// ``start(queue:openSource:)``.
    func cancel() {
        lifecycle.withLock { _ in stop() }
    }

    /// Stops the running source and ends every active subscription.
    func stop() {
        perform(state.withLock { $0.stop() })
    }

    /// The source ended by itself: record why, stop, end the subscriptions, tell the handler.
    func terminate(_ error: NetPathError, generation: UInt64) {
        guard let termination = state.withLock({ $0.terminate(error, generation: generation) }) else { return }
        perform(termination.stop)
        guard let handler = termination.handler else { return }
        if let queue = termination.queue { queue.async { handler(error) } } else { handler(error) }
    }

    private func perform(_ stop: Machine.Stop) {
        stop.source?.stop()
        for waiter in stop.waiters { waiter.resume(returning: nil) }
    }

    // MARK: - Paths

    /// Records `path` as current and passes it to the handler and every subscriber.
    ///
    /// - Parameters:
    ///   - path: The new path.
    ///   - generation: The run it belongs to; paths from a cancelled run are dropped.
    ///   - force: Deliver even when equal to the current path (the first path of a run).
    func deliver(_ path: NetworkPath, generation: UInt64, force: Bool = false) {
        guard let delivery = state.withLock({ $0.deliver(path, generation: generation, force: force) }) else { return }
        for waiter in delivery.resume { waiter.resume(returning: path) }
        for observer in delivery.observers { observer(path) }
        switch delivery.handler {
        case .inline(let handler):
            handler(path)
        case .enqueued(let queue):
            queue.async { [weak self] in
                self?.state.withLock { $0.handler(of: generation) }?(path)
            }
        case nil:
            break
        }
    }

    // MARK: - Observers and subscribers

    /// Registers a callback for every path delivered from now on, on the delivering thread.
    func addObserver(_ observer: @escaping Machine.Handler) -> UInt64 {
        state.withLock { $0.addObserver(observer) }
    }

    /// Registers `observer` as ``addObserver(_:)`` does and returns, read in the same step,
    /// the path current while running: every path the observer hears is newer.
    func addObserverSeeingCurrent(_ observer: @escaping Machine.Handler) -> (id: UInt64, current: NetworkPath?) {
        state.withLock { ($0.addObserver(observer), $0.isRunning ? $0.current : nil) }
    }

    func removeObserver(_ id: UInt64) {
        state.withLock { $0.removeObserver(id) }
    }

    func subscribe() -> UInt64 {
        state.withLock { $0.subscribe() }
    }

    func unsubscribe(_ id: UInt64) {
        state.withLock { $0.unsubscribe(id) }?.resume(returning: nil)
    }

    /// The subscriber's next path: one it has not seen, or `nil` once it has ended.
    func next(_ id: UInt64) async -> NetworkPath? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<NetworkPath?, Never>) in
                let next = state.withLock { $0.next(id, waiter: continuation, cancelled: Task.isCancelled) }
                if case .resume(let value) = next { continuation.resume(returning: value) }
            }
        } onCancel: {
            unsubscribe(id)
        }
    }
}
