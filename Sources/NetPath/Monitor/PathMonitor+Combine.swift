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

/// One subscriber's subscription: honours demand, keeps only the newest undelivered path
/// (``PathDemand``), and sends one path at a time, on `queue` when given (the first too).
///
/// Not generic: the subscriber is kept as a closure, so no subscriber metatype is captured
/// by the closures that run on other threads.
final class PathSubscription: Subscription, @unchecked Sendable {
    private struct State {
        var subscriber: ((NetworkPath) -> Subscribers.Demand)?
        var demand = PathDemand()
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
            state.demand.request(demand.max)
            return state.observer == nil
        }
        if register {
            // The observer and the path current at that moment in one step: any path the
            // observer hears is newer than `current`.
            let (id, current) = storage.addObserverSeeingCurrent { [weak self] path in self?.heard(path) }
            state.withLock { state in
                state.observer = id
                if let current { state.demand.seed(current) }
            }
        }
        send()
    }

    private func heard(_ path: NetworkPath) {
        state.withLock { $0.demand.heard(path) }
        send()
    }

    /// Sends what is pending, on the queue when there is one.
    private func send() {
        if let queue {
            queue.async { self.flush() }
        } else {
            flush()
        }
    }

    /// Sends pending paths while the subscriber wants them, unless another thread is sending
    /// (it takes them after its own).
    private func flush() {
        while let (subscriber, path) = state.withLock({ state -> (((NetworkPath) -> Subscribers.Demand), NetworkPath)? in
            guard let subscriber = state.subscriber, let path = state.demand.next() else { return nil }
            return (subscriber, path)
        }) {
            let more = subscriber(path)
            state.withLock { $0.demand.sent(more: more.max) }
        }
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
