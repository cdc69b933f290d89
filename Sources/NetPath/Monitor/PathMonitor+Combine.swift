#if canImport(Combine)
import Combine
import Dispatch

extension PathMonitor {
    /// The monitor's paths as a Combine publisher: the current path first (when the
    /// monitor is running), then each change. Start the monitor for paths to flow.
    ///
    /// ```swift
    /// monitor.publisher(queue: .main)
    ///     .map(\.status)
    ///     .assign(to: &$status)
    /// ```
    ///
    /// - Parameters:
    ///   - queue: Where subscribers receive values; the delivering thread when `nil`.
    /// - Returns: A publisher that never fails.
    public func publisher(queue: DispatchQueue? = nil) -> PathPublisher {
        PathPublisher(storage: storage, queue: queue)
    }
}

/// A Combine publisher of a ``PathMonitor``'s paths.
public struct PathPublisher: Publisher, Sendable {
    public typealias Output = NetworkPath
    public typealias Failure = Never

    let storage: PathStorage
    let queue: DispatchQueue?

    /// Attaches `subscriber`; it receives paths as it demands them.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == NetworkPath, S.Failure == Never {
        let subscription = PathSubscription(storage: storage, queue: queue, subscriber: subscriber)
        subscriber.receive(subscription: subscription)
    }
}

/// One subscriber's subscription: honours demand, keeps only the newest undelivered path.
///
/// Not generic: the subscriber is kept as a closure, so no subscriber metatype is captured
/// by the closures that run on other threads.
final class PathSubscription: Subscription, @unchecked Sendable {
    private struct State {
        var subscriber: ((NetworkPath) -> Subscribers.Demand)?
        var demand = Subscribers.Demand.none
        var pending: NetworkPath?
        var lastSent: NetworkPath?
        var observer: UInt64?
    }

    // Every field lives in `state`, behind its lock; the subscriber is called outside it.
    private let state: Locked<State>
    private let storage: PathStorage
    private let queue: DispatchQueue?

    init<S: Subscriber>(storage: PathStorage, queue: DispatchQueue?, subscriber: S)
    where S.Input == NetworkPath, S.Failure == Never {
        self.storage = storage
        self.queue = queue
        state = Locked(State(subscriber: { subscriber.receive($0) }))
    }

    func request(_ demand: Subscribers.Demand) {
        guard demand > 0 else { return }
        let register = state.withLock { state -> Bool in
            guard state.subscriber != nil else { return false }
            state.demand += demand
            return state.observer == nil
        }
        if register {
            let id = storage.addObserver { [weak self] path in self?.receive(path) }
            state.withLock { $0.observer = id }
            if let current = storage.currentIfRunning { receive(current) }
        }
        flush()
    }

    private func receive(_ path: NetworkPath) {
        state.withLock { $0.pending = path }
        if let queue {
            queue.async { self.flush() }
        } else {
            flush()
        }
    }

    private func flush() {
        let delivery: (((NetworkPath) -> Subscribers.Demand), NetworkPath)? = state.withLock { state in
            guard let subscriber = state.subscriber, state.demand > 0, let path = state.pending else { return nil }
            state.pending = nil
            guard path != state.lastSent else { return nil }
            state.lastSent = path
            state.demand -= 1
            return (subscriber, path)
        }
        guard let (subscriber, path) = delivery else { return }
        let more = subscriber(path)
        state.withLock { $0.demand += more }
    }

    func cancel() {
        let id = state.withLock { state -> UInt64? in
            state.subscriber = nil
            defer { state.observer = nil }
            return state.observer
        }
        if let id { storage.removeObserver(id) }
    }
}
#endif
