#if os(Linux) || os(Android)

/// One inotify instance for every ``ResolverWatcher`` of a ``SharedReaderThread``: a
/// service that watches a thousand namespaces holds one instance, not a thousand (the
/// kernel allows 128 per user by default, shared with systemd, containerd and the rest).
///
/// The kernel keeps one watch per inode and instance, so watchers that watch the same file
/// or directory (`/etc/resolv.conf`, `/run/netns`) share its watch descriptor: the hub lays
/// it with the union of their masks, keeps it while any watcher wants it, and hands each
/// watcher the events of the descriptors it laid. A queue overflow goes to every watcher.
final class InotifyHub: Sendable {
    /// A watcher's events, on the reader's thread.
    typealias Handler = @Sendable ([Inotify.Event]) -> Void

    private struct Subscriber {
        var handler: Handler?
        /// Events that came before the watcher joined the loop, handed over when it does.
        var pending: [Inotify.Event] = []
    }

    private struct State {
        /// Watch descriptor → the mask each subscriber asked for there.
        var interests: [Int32: [ObjectIdentifier: Inotify.Mask]] = [:]
        var subscribers: [ObjectIdentifier: Subscriber] = [:]
        /// The loop the descriptor is registered on (weak: a reader's next loop may be made
        /// where a freed one was, and must be joined too).
        weak var loop: EventLoop?
    }

    private let inotify: Inotify
    private let state = Locked(State())

    /// - Throws: The errno of `inotify_init1`.
    init() throws(Errno) {
        inotify = try Inotify()
    }

    /// The instance's descriptor, which the reader's loop waits on.
    var descriptor: FileDescriptor { inotify.descriptor }

    /// Adds `subscriber`; its events wait until ``attach(_:handler:)``.
    func subscribe(_ subscriber: ObjectIdentifier) {
        state.withLock { $0.subscribers[subscriber] = $0.subscribers[subscriber] ?? Subscriber() }
    }

    /// Sets where `subscriber`'s events go (on the reader's thread), and hands over those
    /// that came before.
    func attach(_ subscriber: ObjectIdentifier, handler: @escaping Handler) {
        let pending = state.withLock { state -> [Inotify.Event] in
            guard state.subscribers[subscriber] != nil else { return [] }
            state.subscribers[subscriber]?.handler = handler
            defer { state.subscribers[subscriber]?.pending = [] }
            return state.subscribers[subscriber]?.pending ?? []
        }
        if !pending.isEmpty { handler(pending) }
    }

    /// Watches `path` for `subscriber` with `mask`, beside what others watch there.
    ///
    /// - Returns: The watch descriptor, or the errno.
    @discardableResult
    func watch(_ path: String, mask: Inotify.Mask, for subscriber: ObjectIdentifier) -> Result<Int32, Errno> {
        state.withLock { state in
            // The inode is known only once the watch is laid: lay it adding this mask to
            // whatever is there (`IN_MASK_ADD`), then set the union of the interests.
            let laid = inotify.watch(path, mask: mask.union(.maskAdd))
            guard case .success(let descriptor) = laid else { return laid }
            state.interests[descriptor, default: [:]][subscriber] = mask
            let union = state.interests[descriptor, default: [:]].values.reduce(Inotify.Mask()) { $0.union($1) }
            if union != mask { inotify.watch(path, mask: union) }
            return laid
        }
    }

    /// `subscriber` no longer needs `descriptor`: the watch stays for the others, or is
    /// removed.
    /// A mask wider than the others need stays until the inode's next watch: each watcher
    /// filters its events by what it laid.
    func unwatch(_ descriptor: Int32, for subscriber: ObjectIdentifier) {
        state.withLock { state in
            guard state.interests[descriptor]?.removeValue(forKey: subscriber) != nil,
                  state.interests[descriptor]?.isEmpty ?? true else { return }
            state.interests[descriptor] = nil
            inotify.removeWatch(descriptor)
        }
    }

    /// Removes `subscriber` and every watch only it needed.
    func unsubscribe(_ subscriber: ObjectIdentifier) {
        state.withLock { state in
            state.subscribers[subscriber] = nil
            for (descriptor, interest) in state.interests where interest[subscriber] != nil {
                state.interests[descriptor]?[subscriber] = nil
                if state.interests[descriptor]?.isEmpty ?? true {
                    state.interests[descriptor] = nil
                    inotify.removeWatch(descriptor)
                }
            }
        }
    }

    /// Registers the descriptor on `loop` once (each loop the reader starts).
    func join(_ loop: EventLoop) {
        let first = state.withLock { state -> Bool in
            guard state.loop !== loop else { return false }
            state.loop = loop
            return true
        }
        guard first else { return }
        _ = loop.register(inotify.descriptor, for: .readable) { [self] _ in dispatch() }
    }

    /// Reads the queue and hands each subscriber the events of its descriptors.
    func dispatch() {
        let events = inotify.readEvents()
        guard !events.isEmpty else { return }
        let deliveries = state.withLock { state -> [(Handler, [Inotify.Event])] in
            var bySubscriber: [ObjectIdentifier: [Inotify.Event]] = [:]
            for event in events {
                if event.mask.contains(.queueOverflow) {
                    for subscriber in state.subscribers.keys { bySubscriber[subscriber, default: []].append(event) }
                    continue
                }
                guard let interest = state.interests[event.watch] else { continue }
                for subscriber in interest.keys { bySubscriber[subscriber, default: []].append(event) }
                // The inode is gone: the kernel removed the watch.
                if event.mask.contains(.ignored) { state.interests[event.watch] = nil }
            }
            var deliveries: [(Handler, [Inotify.Event])] = []
            for (subscriber, events) in bySubscriber {
                if let handler = state.subscribers[subscriber]?.handler {
                    deliveries.append((handler, events))
                } else {
                    state.subscribers[subscriber]?.pending += events
                }
            }
            return deliveries
        }
        for (handler, events) in deliveries { handler(events) }
    }

    /// Closes the instance (its watches go with it).
    func close() {
        inotify.close()
    }

    /// How many watch descriptors are laid (tests).
    var watchCount: Int { state.withLock { $0.interests.count } }
}
#endif
