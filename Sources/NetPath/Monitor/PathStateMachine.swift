import Dispatch

/// What a ``PathMonitor`` knows: its running source, the current path, the handlers, the
/// observers and the async subscribers. A value that takes events and returns what the
/// caller must do outside the lock (resume a waiter, call a handler, stop a source).
///
/// Generic over the waiter so that it is tested without tasks: ``PathStorage`` uses a
/// `CheckedContinuation`, the tests any value.
struct PathStateMachine<Waiter> {
    typealias Handler = @Sendable (NetworkPath) -> Void
    typealias TerminationHandler = @Sendable (NetPathError) -> Void

    struct Subscriber {
        var lastDelivered: NetworkPath?
        var pending: NetworkPath?
        var waiter: Waiter?
        /// Its run ended by itself while a path was pending for it: that path, then the end.
        var isEnding = false
    }

    /// Where the path update handler runs for a delivered path.
    enum HandlerCall {
        /// Right here, on the delivering thread: the handler just read is the current one.
        case inline(Handler)
        /// On the start queue; the handler is looked up again when it runs, so one replaced
        /// or a run cancelled meanwhile is respected.
        case enqueued(DispatchQueue)
    }

    /// What to do outside the lock after a path was recorded.
    struct Delivery {
        var resume: [Waiter] = []
        var observers: [Handler] = []
        var handler: HandlerCall?
    }

    /// What to do outside the lock after a run ended: stop its source, end the waiting
    /// subscribers (resumed with `nil`).
    struct Stop {
        var source: (any PathSource)?
        var waiters: [Waiter] = []
    }

    /// What to do outside the lock after the source ended by itself.
    struct Termination {
        var stop: Stop
        var handler: TerminationHandler?
        var queue: DispatchQueue?
    }

    /// What the subscriber's `next` does.
    enum Next {
        /// Returns this at once (`nil`: the subscription has ended).
        case resume(NetworkPath?)
        /// Waits: the waiter is kept and resumed by a later delivery or stop.
        case wait
    }

    private(set) var current: NetworkPath?
    private(set) var source: (any PathSource)?
    private(set) var generation: UInt64 = 0
    private(set) var terminationError: NetPathError?
    /// The run whose source ended by itself (``terminate(_:generation:)``), until the next
    /// start or stop: its handler calls still queued run, as its last path is part of it.
    private var endedBySource: UInt64?
    var handler: Handler?
    var terminationHandler: TerminationHandler?
    private var queue: DispatchQueue?
    private var subscribers: [UInt64: Subscriber] = [:]
    private var nextID: UInt64 = 0
    /// Called synchronously on the delivering thread (NetworkMonitor, Combine).
    private var observers: [UInt64: Handler] = [:]

    var subscriberCount: Int { subscribers.count }
    var observerCount: Int { observers.count }
    var isRunning: Bool { source != nil }

    /// The handler of `generation`'s run, if it is still the current run.
    func handler(of generation: UInt64) -> Handler? {
        self.generation == generation || endedBySource == generation ? handler : nil
    }

    // MARK: - Lifecycle

    /// A start: begins a new run unless one is running. The last run's path is not the new
    /// run's: until the new source's first, there is none.
    ///
    /// - Returns: The new run's generation, or `nil` when a source is running already.
    mutating func start(queue: DispatchQueue?) -> UInt64? {
        guard source == nil else { return nil }
        generation &+= 1
        self.queue = queue
        terminationError = nil
        endedBySource = nil
        current = nil
        return generation
    }

    /// The run's source opened.
    mutating func opened(_ source: any PathSource) {
        self.source = source
    }

    /// Ends the run: the source to stop and the subscribers to end (those of a run that
    /// ended by itself still get the path pending for them first).
    mutating func stop() -> Stop {
        let stop = Stop(source: source, waiters: subscribers.values.compactMap(\.waiter))
        source = nil
        generation &+= 1
        endedBySource = nil
        subscribers = subscribers.filter(\.value.isEnding)
        return stop
    }

    /// The source of `generation`'s run ended by itself with `error`, after its last path:
    /// a subscriber that has not taken that path yet gets it before the end, and a call of
    /// the handler queued for it still runs.
    ///
    /// - Returns: `nil` when that run is over already; otherwise the stop and the handler to call.
    mutating func terminate(_ error: NetPathError, generation: UInt64) -> Termination? {
        guard self.generation == generation else { return nil }
        terminationError = error
        for (id, subscriber) in subscribers
        where subscriber.waiter == nil && subscriber.pending != nil && subscriber.pending != subscriber.lastDelivered {
            subscribers[id]?.isEnding = true
        }
        let termination = Termination(stop: stop(), handler: terminationHandler, queue: queue)
        endedBySource = generation
        return termination
    }

    // MARK: - Paths

    /// A path from `generation`'s run: recorded as current, and handed to every waiting
    /// subscriber (the others find it pending), every observer and the handler.
    ///
    /// - Parameters:
    ///   - force: Deliver even when equal to the current path (the first path of a run).
    /// - Returns: `nil` when the path is from an earlier run or changes nothing.
    mutating func deliver(_ path: NetworkPath, generation: UInt64, force: Bool) -> Delivery? {
        guard self.generation == generation, force || current != path else { return nil }
        current = path
        var delivery = Delivery(observers: Array(observers.values))
        for (id, var subscriber) in subscribers where !subscriber.isEnding {
            if let waiter = subscriber.waiter, subscriber.lastDelivered != path {
                subscriber.waiter = nil
                subscriber.lastDelivered = path
                delivery.resume.append(waiter)
            } else {
                subscriber.pending = path
            }
            subscribers[id] = subscriber
        }
        if let handler {
            delivery.handler = queue.map(HandlerCall.enqueued) ?? .inline(handler)
        }
        return delivery
    }

    // MARK: - Observers and subscribers

    /// Registers an observer of every path delivered from now on.
    ///
    /// - Returns: Its identifier, for ``removeObserver(_:)``.
    mutating func addObserver(_ observer: @escaping Handler) -> UInt64 {
        nextID &+= 1
        observers[nextID] = observer
        return nextID
    }

    mutating func removeObserver(_ id: UInt64) {
        observers.removeValue(forKey: id)
    }

    /// A new subscriber; while running, the current path is its first.
    ///
    /// - Returns: Its identifier.
    mutating func subscribe() -> UInt64 {
        nextID &+= 1
        subscribers[nextID] = Subscriber(lastDelivered: nil, pending: source == nil ? nil : current)
        return nextID
    }

    /// Forgets the subscriber.
    ///
    /// - Returns: Its waiter, to resume with `nil`.
    mutating func unsubscribe(_ id: UInt64) -> Waiter? {
        subscribers.removeValue(forKey: id)?.waiter
    }

    /// The subscriber asks for its next path.
    ///
    /// - Parameters:
    ///   - waiter: Kept when the subscriber has to wait.
    ///   - cancelled: Whether its task is cancelled (then the subscription is over).
    mutating func next(_ id: UInt64, waiter: Waiter, cancelled: Bool) -> Next {
        guard var subscriber = subscribers[id], !cancelled else { return .resume(nil) }
        if subscriber.isEnding {
            subscribers.removeValue(forKey: id)
            return .resume(subscriber.pending)
        }
        defer { subscribers[id] = subscriber }
        if let pending = subscriber.pending, pending != subscriber.lastDelivered {
            subscriber.pending = nil
            subscriber.lastDelivered = pending
            return .resume(pending)
        }
        subscriber.pending = nil
        subscriber.waiter = waiter
        return .wait
    }
}

extension PathStateMachine: Sendable where Waiter: Sendable {}
extension PathStateMachine.Subscriber: Sendable where Waiter: Sendable {}
