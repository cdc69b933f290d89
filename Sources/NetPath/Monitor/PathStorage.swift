import Dispatch

/// The shared state of a ``PathMonitor``: its running source, the current path, the update
/// handler and the async subscribers. Continuations are resumed outside the lock.
final class PathStorage: @unchecked Sendable {
    struct Subscriber {
        var lastDelivered: NetworkPath?
        var pending: NetworkPath?
        var waiter: CheckedContinuation<NetworkPath?, Never>?
    }

    struct State {
        var handler: (@Sendable (NetworkPath) -> Void)?
        var queue: DispatchQueue?
        var current: NetworkPath?
        var source: (any PathSource)?
        var generation: UInt64 = 0
        var subscribers: [UInt64: Subscriber] = [:]
        var nextSubscriberID: UInt64 = 0
        var terminationError: NetPathError?
        var terminationHandler: (@Sendable (NetPathError) -> Void)?
        /// Called synchronously on the delivering thread (NetworkMonitor, Combine).
        var observers: [UInt64: @Sendable (NetworkPath) -> Void] = [:]
    }

    // All mutable state lives in `state`, guarded by its lock. `lifecycle` serialises
    // start and cancel, which open and stop sources outside the state lock.
    let state = Locked(State())
    let lifecycle = Locked(())

    /// Records `path` as current and passes it to the handler and every subscriber.
    ///
    /// - Parameters:
    ///   - path: The new path.
    ///   - generation: The run it belongs to; paths from a cancelled run are dropped.
    ///   - force: Deliver even when equal to the current path (the first path of a run).
    func deliver(_ path: NetworkPath, generation: UInt64, force: Bool = false) {
        var resume: [CheckedContinuation<NetworkPath?, Never>] = []
        var observers: [@Sendable (NetworkPath) -> Void] = []
        let target: (DispatchQueue?, @Sendable (NetworkPath) -> Void)? = state.withLock { state in
            guard state.generation == generation, force || state.current != path else { return nil }
            state.current = path
            if !state.observers.isEmpty { observers = Array(state.observers.values) }
            for (id, var subscriber) in state.subscribers {
                if let waiter = subscriber.waiter, subscriber.lastDelivered != path {
                    subscriber.waiter = nil
                    subscriber.lastDelivered = path
                    resume.append(waiter)
                } else {
                    subscriber.pending = path
                }
                state.subscribers[id] = subscriber
            }
            guard let handler = state.handler else { return nil }
            // Called right here, on this thread: the handler just read is the current one.
            guard state.queue != nil else { return (nil, handler) }
            return (state.queue, { [weak self] path in
                // Looked up when it runs, so a handler replaced or a run cancelled meanwhile
                // is respected.
                let handler = self?.state.withLock { $0.generation == generation ? $0.handler : nil }
                handler?(path)
            })
        }
        for waiter in resume { waiter.resume(returning: path) }
        for observer in observers { observer(path) }
        if let (queue, call) = target {
            if let queue {
                queue.async { call(path) }
            } else {
                call(path)
            }
        }
    }

    /// The source ended by itself: record why, stop, end the subscriptions, tell the handler.
    func terminate(_ error: NetPathError, generation: UInt64) {
        let (handler, queue): ((@Sendable (NetPathError) -> Void)?, DispatchQueue?) = state.withLock { state in
            guard state.generation == generation else { return (nil, nil) }
            state.terminationError = error
            return (state.terminationHandler, state.queue)
        }
        guard state.withLock({ $0.generation == generation }) else { return }
        stop()
        guard let handler else { return }
        if let queue { queue.async { handler(error) } } else { handler(error) }
    }

    /// Stops the running source and ends every active subscription.
    func stop() {
        let (source, waiters): ((any PathSource)?, [CheckedContinuation<NetworkPath?, Never>]) = state.withLock { state in
            let source = state.source
            state.source = nil
            state.generation &+= 1
            let waiters = state.subscribers.values.compactMap(\.waiter)
            state.subscribers.removeAll()
            return (source, waiters)
        }
        source?.stop()
        for waiter in waiters { waiter.resume(returning: nil) }
    }

    // MARK: - Observers and subscribers

    /// Registers a callback for every path delivered from now on, on the delivering thread.
    func addObserver(_ observer: @escaping @Sendable (NetworkPath) -> Void) -> UInt64 {
        state.withLock { state in
            state.nextSubscriberID &+= 1
            state.observers[state.nextSubscriberID] = observer
            return state.nextSubscriberID
        }
    }

    func removeObserver(_ id: UInt64) {
        _ = state.withLock { $0.observers.removeValue(forKey: id) }
    }

    func subscribe() -> UInt64 {
        state.withLock { state in
            state.nextSubscriberID &+= 1
            let id = state.nextSubscriberID
            state.subscribers[id] = Subscriber(lastDelivered: nil, pending: state.source == nil ? nil : state.current)
            return id
        }
    }

    func unsubscribe(_ id: UInt64) {
        let waiter = state.withLock { $0.subscribers.removeValue(forKey: id)?.waiter }
        waiter?.resume(returning: nil)
    }

    /// The subscriber's next path: one it has not seen, or `nil` once it has ended.
    func next(_ id: UInt64) async -> NetworkPath? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<NetworkPath?, Never>) in
                let immediate: NetworkPath?? = state.withLock { state in
                    guard var subscriber = state.subscribers[id], !Task.isCancelled else { return .some(nil) }
                    if let pending = subscriber.pending, pending != subscriber.lastDelivered {
                        subscriber.pending = nil
                        subscriber.lastDelivered = pending
                        state.subscribers[id] = subscriber
                        return .some(pending)
                    }
                    subscriber.pending = nil
                    subscriber.waiter = continuation
                    state.subscribers[id] = subscriber
                    return .none
                }
                if case .some(let value) = immediate { continuation.resume(returning: value) }
            }
        } onCancel: {
            unsubscribe(id)
        }
    }
}
