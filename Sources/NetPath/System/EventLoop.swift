#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux) || os(Android)
import CNetlink
#endif

/// One thread's wait for everything it serves (swift-nio's `SelectorEpoll`): descriptors
/// registered with a handler, a timer heap of deadlines, and one wake descriptor through
/// which other threads hand it work (``execute(_:)``) or stop it (``stop()``). The package's
/// one wait: a netlink reader with its resolver watch and IPsec policy socket, a
/// connectivity check's sockets, the tool's HTTP server, namespace watch and signals all
/// register on a loop instead of polling for themselves.
///
/// Level-triggered: a handler that leaves its descriptor readable is called again on the
/// next turn. Idle, with no timer, the loop never wakes.
///
/// Everything but ``execute(_:)``, ``stop()`` and ``wake()`` is called on the thread that runs
/// the loop (from its handlers, or before ``run()``).
package final class EventLoop: @unchecked Sendable {
    // `@unchecked`: the registrations, timers and deferred work are the loop thread's alone;
    // `inbox` (its own lock) is what other threads touch.

    /// What a descriptor is waited for, and what it reported.
    package struct Events: OptionSet, Hashable, Sendable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }
        package static let readable = Events(rawValue: 1)
        package static let writable = Events(rawValue: 2)
        /// `POLLPRI`/`EPOLLPRI`: `/proc/self/mountinfo` reports a mount table change so.
        package static let priority = Events(rawValue: 4)
        /// The peer hung up or the descriptor failed (always reported, never asked for).
        package static let hangup = Events(rawValue: 8)
        package static let error = Events(rawValue: 16)
    }

    /// A registered descriptor, to change or remove its registration.
    package struct Registration: Hashable, Sendable { fileprivate let id: UInt64 }
    /// A scheduled deadline, to cancel it.
    package struct Timer: Hashable, Sendable { fileprivate let id: UInt64 }

    private struct Entry {
        package let descriptor: FileDescriptor
        package var events: Events
        package let handler: (Events) -> Void
    }

    private let selector: Selector
    private var entries: [UInt64: Entry] = [:]
    private var timers = TimerHeap()
    private var timerHandlers: [UInt64: () -> Void] = [:]
    private var nextID: UInt64 = 1
    /// Work for the end of the current batch of events (``deferred(_:)``).
    private var deferredWork: [() -> Void] = []
    private let inbox = Locked(Inbox())
    #if DEBUG
    /// The thread that runs the loop, from its first turn (debug builds check that the
    /// loop-only calls come from it).
    private var owner: pthread_t?
    #endif
    private struct Inbox {
        package var tasks: [@Sendable () -> Void] = []
        package var stopped = false
        /// The loop's descriptors are closed: work handed over now is dropped, and nothing
        /// wakes it (the wake descriptor's number may name another file by then).
        package var closed = false
    }

    /// - Throws: The ``Errno`` of `epoll_create1` or of the wake descriptor. (Untyped: SILGen
    ///   crashes on a typed throw against an Apple SDK before iOS 18, scripts/apple-link.sh.)
    package init() throws {
        selector = try Selector()
    }

    deinit { close() }

    // MARK: - On the loop's thread

    /// Calls `handler` on the loop's thread whenever `descriptor` reports one of `events`
    /// (or hangs up, or fails).
    @discardableResult
    package func register(_ descriptor: FileDescriptor, for events: Events, _ handler: @escaping (Events) -> Void) -> Registration {
        assertOnLoopThread()
        let id = takeID()
        entries[id] = Entry(descriptor: descriptor, events: events, handler: handler)
        selector.add(descriptor, id: id, events: events)
        return Registration(id: id)
    }

    /// Waits for `events` of a registered descriptor from now on (none: it stays registered
    /// but silent).
    package func change(_ registration: Registration, to events: Events) {
        assertOnLoopThread()
        guard var entry = entries[registration.id], entry.events != events else { return }
        entry.events = events
        entries[registration.id] = entry
        selector.modify(entry.descriptor, id: registration.id, events: events)
    }

    /// Forgets a descriptor; events already taken for it are dropped. Call it before
    /// closing the descriptor (its number may name another one next).
    package func deregister(_ registration: Registration) {
        assertOnLoopThread()
        guard let entry = entries.removeValue(forKey: registration.id) else { return }
        selector.remove(entry.descriptor)
    }

    /// Calls `handler` on the loop's thread once the package's clock (``SystemClock/now()``)
    /// reaches `deadline`.
    @discardableResult
    package func schedule(at deadline: Instant, _ handler: @escaping () -> Void) -> Timer {
        assertOnLoopThread()
        let id = takeID()
        timerHandlers[id] = handler
        timers.insert(deadline: deadline, id: id)
        return Timer(id: id)
    }

    /// Cancels a timer that has not fired (a fired one is ignored).
    package func cancel(_ timer: Timer) {
        assertOnLoopThread()
        timerHandlers[timer.id] = nil
        // A cancelled deadline stays in the heap until it comes up; one far off (a route's
        // lifetime) re-armed at every turn would pile up: past twice the live timers, the
        // heap keeps only those.
        if timers.count > 2 * timerHandlers.count + 16 { timers.keepOnly { timerHandlers[$0] != nil } }
    }

    /// Runs `work` on the loop's thread after the handlers of the current batch of events:
    /// several events of one batch that each need the same follow-up ask for it once.
    package func deferred(_ work: @escaping () -> Void) {
        assertOnLoopThread()
        deferredWork.append(work)
    }

    /// Debug builds stop the process when a loop-only call comes from a thread other than
    /// the one that runs the loop (before its first turn, any thread may set it up).
    @inline(__always)
    private func assertOnLoopThread(_ function: StaticString = #function) {
        #if DEBUG
        if let owner, pthread_equal(owner, pthread_self()) == 0 {
            preconditionFailure("EventLoop.\(function) called off the loop's thread")
        }
        #endif
    }

    /// Waits and dispatches until ``stop()``.
    package func run() {
        while runOnce(until: nil) {}
    }

    /// One wait (until a descriptor reports, a timer fires, work arrives, or `deadline`),
    /// then its handlers, due timers and deferred work.
    ///
    /// - Returns: `false` once the loop is stopped.
    @discardableResult
    package func runOnce(until deadline: Instant?) -> Bool {
        #if DEBUG
        if owner == nil { owner = pthread_self() }
        assertOnLoopThread()
        #endif
        guard takeInbox() else { return false }
        // No clock read and no allocation on a turn without timers (a reader's usual turn).
        var next = deadline
        if !timers.isEmpty, let earliest = timers.earliest(valid: { timerHandlers[$0] != nil }) {
            next = min(next ?? earliest, earliest)
        }
        selector.wait(until: next) { id, events in
            // An entry deregistered by an earlier handler of this batch is skipped.
            entries[id]?.handler(events)
        }
        if !timers.isEmpty { fireTimers(at: SystemClock.now()) }
        // Work deferred by deferred work runs in this turn too.
        var index = 0
        while index < deferredWork.count {
            deferredWork[index]()
            index += 1
        }
        deferredWork.removeAll(keepingCapacity: true)
        return takeInbox()
    }

    #if os(Linux) || os(Android)
    /// The descriptor of the timer that far deadlines are waited on (``LoopWait``), once one
    /// made it. Read on the loop's thread.
    package var farTimerDescriptor: FileDescriptor? {
        #if DEBUG
        assertOnLoopThread()
        #endif
        return selector.timerDescriptor
    }
    #endif

    private func fireTimers(at now: Instant) {
        while let id = timers.popDue(at: now) {
            if let handler = timerHandlers.removeValue(forKey: id) { handler() }
        }
    }

    /// Runs the work handed over by other threads; `false` once stopped.
    private func takeInbox() -> Bool {
        let (tasks, stopped) = inbox.withLock { inbox in
            defer { inbox.tasks = [] }
            return (inbox.tasks, inbox.stopped)
        }
        for task in tasks { task() }
        return !stopped
    }

    private func takeID() -> UInt64 {
        defer { nextID += 1 }
        return nextID
    }

    private var closed = false

    /// Closes the loop's own descriptors (not the registered ones: their owners close them).
    /// Called by the thread that ran it, after ``run()`` returned; again, it does nothing.
    package func close() {
        guard !closed else { return }
        closed = true
        // What is left holds its owners (a timer's handler its timer, a task what it
        // captured): dropped, so nothing keeps the loop or them alive.
        inbox.withLock { inbox in
            inbox.closed = true
            inbox.tasks = []
        }
        entries = [:]
        timerHandlers = [:]
        deferredWork = []
        selector.close()
    }

    /// How many tasks other threads handed over wait for the loop's next turn (tests).
    package var pendingWork: Int { inbox.withLock { $0.tasks.count } }

    // MARK: - From any thread

    /// Runs `task` on the loop's thread at its next turn.
    /// Once the loop is closed, `task` is dropped.
    package func execute(_ task: @escaping @Sendable () -> Void) {
        inbox.withLock { inbox in
            guard !inbox.closed else { return }
            inbox.tasks.append(task)
            // Under the lock: `close` cannot close the wake descriptor meanwhile.
            selector.wake()
        }
    }

    /// Ends ``run()`` at its next turn (work handed over before runs first).
    package func stop() {
        inbox.withLock { inbox in
            inbox.stopped = true
            if !inbox.closed { selector.wake() }
        }
    }

    /// How many deadlines the heap holds, cancelled ones included (tests).
    package var pendingDeadlines: Int { timers.count }

    /// Whether ``stop()`` was called.
    package var isStopped: Bool { inbox.withLock { $0.stopped } }

    /// Makes the loop turn now (its wait returns).
    package func wake() {
        inbox.withLock { inbox in
            if !inbox.closed { selector.wake() }
        }
    }
}

/// The deadlines of an ``EventLoop``: a binary min-heap of (deadline, id). Cancelled timers
/// stay in it until they come up and are skipped. Pure.
package struct TimerHeap {
    private var items: [(deadline: Instant, id: UInt64)] = []

    package var isEmpty: Bool { items.isEmpty }
    /// How many deadlines it holds, cancelled ones included.
    package var count: Int { items.count }

    /// Drops the deadlines whose id is not `valid` (then a heap again).
    package mutating func keepOnly(_ valid: (UInt64) -> Bool) {
        items = items.filter { valid($0.id) }.sorted { $0.deadline < $1.deadline }
    }

    package mutating func insert(deadline: Instant, id: UInt64) {
        items.append((deadline, id))
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].deadline < items[parent].deadline else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    /// The earliest deadline whose id is still `valid`; invalid ones on top are dropped.
    package mutating func earliest(valid: (UInt64) -> Bool) -> Instant? {
        while let top = items.first {
            if valid(top.id) { return top.deadline }
            _ = removeTop()
        }
        return nil
    }

    /// The id of a timer due at `now`, removed from the heap; `nil` when none is due.
    package mutating func popDue(at now: Instant) -> UInt64? {
        guard let top = items.first, top.deadline <= now else { return nil }
        return removeTop().id
    }

    private mutating func removeTop() -> (deadline: Instant, id: UInt64) {
        let top = items[0]
        let last = items.removeLast()
        guard !items.isEmpty else { return top }
        items[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count && items[left].deadline < items[smallest].deadline { smallest = left }
            if right < items.count && items[right].deadline < items[smallest].deadline { smallest = right }
            if smallest == parent { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}

#if os(Linux) || os(Android)
/// The loop's wait on Linux: one epoll instance, with an eventfd registered first (id 0),
/// and for a far deadline a `CLOCK_BOOTTIME` timer (``LoopWait``), made at the first one.
/// Used by the loop's thread alone.
private final class Selector {
    package let epoll: FileDescriptor
    package let wakeSignal: EventSignal
    private static let wakeID: UInt64 = 0
    private static let timerID: UInt64 = .max
    private static let batch = 64
    private var timer: BootTimer?
    /// The deadline ``timer`` is armed for.
    private var armed: Instant?

    package init() throws {
        epoll = try Syscall.epollCreate().get()
        do {
            wakeSignal = try EventSignal()
        } catch {
            Syscall.close(epoll)
            throw error
        }
        _ = Syscall.epollControl(epoll, Int32(EPOLL_CTL_ADD), wakeSignal.descriptor, events: EPOLLIN.rawValue, id: Selector.wakeID)
    }

    package func add(_ descriptor: FileDescriptor, id: UInt64, events: EventLoop.Events) {
        _ = Syscall.epollControl(epoll, Int32(EPOLL_CTL_ADD), descriptor, events: Selector.mask(events), id: id)
    }

    package func modify(_ descriptor: FileDescriptor, id: UInt64, events: EventLoop.Events) {
        _ = Syscall.epollControl(epoll, Int32(EPOLL_CTL_MOD), descriptor, events: Selector.mask(events), id: id)
    }

    package func remove(_ descriptor: FileDescriptor) {
        _ = Syscall.epollControl(epoll, Int32(EPOLL_CTL_DEL), descriptor, events: 0, id: 0)
    }

    private static func mask(_ events: EventLoop.Events) -> UInt32 {
        var mask: UInt32 = 0
        if events.contains(.readable) { mask |= EPOLLIN.rawValue }
        if events.contains(.writable) { mask |= EPOLLOUT.rawValue }
        if events.contains(.priority) { mask |= EPOLLPRI.rawValue }
        return mask
    }

    /// Waits until `deadline` at most (`nil`: for ever), then calls `ready` with each ready
    /// registration (neither the wake descriptor nor the timer is among them); none after a
    /// failed wait (`ENOMEM`), which the next turn repeats. No clock read without a deadline.
    package func wait(until deadline: Instant?, _ ready: (UInt64, EventLoop.Events) -> Void) {
        let now = deadline == nil ? Instant.zero : SystemClock.now()
        var plan = LoopWait.plan(next: deadline, now: now, armed: armed)
        if let change = plan.arm, !arm(change), let deadline {
            plan.timeout = now.duration(until: deadline)  // no timer to be had: the wait's own timeout
        }
        Syscall.epollWait(epoll, maximum: Selector.batch, timeout: plan.timeout) { id, mask in
            if id == Selector.wakeID { return wakeSignal.clear() }
            if id == Selector.timerID {
                armed = nil  // a timerfd expires once
                return timer?.clear() ?? ()
            }
            var events: EventLoop.Events = []
            if mask & EPOLLIN.rawValue != 0 { events.insert(.readable) }
            if mask & EPOLLOUT.rawValue != 0 { events.insert(.writable) }
            if mask & EPOLLPRI.rawValue != 0 { events.insert(.priority) }
            if mask & EPOLLHUP.rawValue != 0 { events.insert(.hangup) }
            if mask & EPOLLERR.rawValue != 0 { events.insert(.error) }
            ready(id, events)
        }
    }

    package func wake() { wakeSignal.signal() }

    /// Arms the timer for `deadline` (`nil`: disarms it), making it first; `false` when no
    /// timer can be made.
    private func arm(_ deadline: Instant?) -> Bool {
        if timer == nil {
            guard deadline != nil else { return true }
            guard let made = try? BootTimer() else { return false }
            timer = made
            _ = Syscall.epollControl(epoll, Int32(EPOLL_CTL_ADD), made.descriptor, events: EPOLLIN.rawValue, id: Selector.timerID)
        }
        timer?.arm(at: deadline)
        armed = deadline
        return true
    }

    /// The descriptor of the far-deadline timer, once made (tests read its clock).
    package var timerDescriptor: FileDescriptor? { timer?.descriptor }

    package func close() {
        Syscall.close(epoll)
        wakeSignal.close()
        timer?.close()
    }
}
#else
/// The loop's wait elsewhere (the tool on macOS): `poll(2)` over the registrations, and a
/// non-blocking pipe to wake it.
private final class Selector {
    private var registered: [UInt64: (descriptor: FileDescriptor, events: Int16)] = [:]
    private let wakeRead: FileDescriptor
    private let wakeWrite: FileDescriptor

    package init() throws {
        // A switch, not `get()`: before iOS 18's standard library `get()` throws `any Error`.
        switch Syscall.pipe(nonBlocking: true) {
        case .success(let ends): (wakeRead, wakeWrite) = ends
        case .failure(let error): throw error
        }
    }

    package func add(_ descriptor: FileDescriptor, id: UInt64, events: EventLoop.Events) {
        registered[id] = (descriptor, Selector.mask(events))
    }

    package func modify(_ descriptor: FileDescriptor, id: UInt64, events: EventLoop.Events) {
        registered[id] = (descriptor, Selector.mask(events))
    }

    package func remove(_ descriptor: FileDescriptor) {
        registered = registered.filter { $0.value.descriptor != descriptor }
    }

    private static func mask(_ events: EventLoop.Events) -> Int16 {
        var mask: Int16 = 0
        if events.contains(.readable) { mask |= Int16(POLLIN) }
        if events.contains(.writable) { mask |= Int16(POLLOUT) }
        if events.contains(.priority) { mask |= Int16(POLLPRI) }
        return mask
    }

    package func wait(until deadline: Instant?, _ ready: (UInt64, EventLoop.Events) -> Void) {
        let timeout = deadline.map { SystemClock.now().duration(until: $0) }
        let ids = Array(registered.keys)
        var entries = [Syscall.PollEntry(wakeRead, events: Int16(POLLIN))]
        entries += ids.compactMap { registered[$0].map { Syscall.PollEntry($0.descriptor, events: $0.events) } }
        guard case .success = Syscall.poll(&entries, timeout: timeout) else { return }
        if entries[0].ready != 0 {
            var scratch = [UInt8](repeating: 0, count: 64)
            while case .success(let count) = scratch.withUnsafeMutableBytes({ Syscall.read(wakeRead, into: $0) }), count > 0 {}
        }
        for (id, entry) in zip(ids, entries.dropFirst()) where entry.ready != 0 {
            var events: EventLoop.Events = []
            if entry.ready & Int16(POLLIN) != 0 { events.insert(.readable) }
            if entry.ready & Int16(POLLOUT) != 0 { events.insert(.writable) }
            if entry.ready & Int16(POLLPRI) != 0 { events.insert(.priority) }
            if entry.ready & Int16(POLLHUP) != 0 { events.insert(.hangup) }
            if entry.ready & Int16(POLLERR) != 0 { events.insert(.error) }
            ready(id, events)
        }
    }

    package func wake() {
        var one: UInt8 = 1
        _ = withUnsafeBytes(of: &one) { Syscall.write(wakeWrite, $0) }
    }

    package func close() {
        Syscall.close(wakeRead)
        Syscall.close(wakeWrite)
    }
}
#endif
