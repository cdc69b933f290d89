#if os(Linux) || os(Android)
import CNetlink
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One thread that reads the kernel for any number of ``LinuxPathSource``s: it polls every
/// attached source's netlink socket and resolver watch, and an eventfd that wakes it when a
/// source is attached or detached, and gives each source a turn when one of its
/// descriptors is readable or its expiry comes. Idle, with nothing expiring, it never
/// wakes; with no source attached, it has no thread at all (it starts with the first
/// source and ends after the last).
///
/// `setns` is never called on this thread: a source's sockets are made inside its
/// namespace on a short-lived thread before it is attached, and a socket stays in the
/// namespace it was made in.
final class SharedReaderThread: Sendable {
    private struct State {
        /// The attached sources, in the order they came (each gets its turn in that order).
        var members: [LinuxPathSource] = []
        /// Detachments asked for from other threads, each with the semaphore its caller
        /// waits on.
        var detaching: [(source: LinuxPathSource, done: DispatchSemaphore?)] = []
        var thread: pthread_t?
        /// Threads that ended after their last source was detached, for the detacher to
        /// join: after the last `cancel()` returns, the thread is gone.
        var ended: [pthread_t] = []
        /// The eventfd that wakes the thread; made with the first thread, kept until the
        /// reader goes.
        var wake: EventSignal?
    }

    private let state = Locked(State())
    /// The thread's name (at most 15 bytes show).
    let threadName: String

    init(threadName: String = "netpath-reader") {
        self.threadName = threadName
    }

    deinit {
        // No thread holds the reader (its thread keeps it alive while it runs).
        state.withLock { $0.wake }?.close()
    }

    /// How long the thread waits after a failed `poll` (nanoseconds).
    static let pollFailurePause = 10_000_000

    /// Whether the thread runs now (tests).
    var isRunning: Bool { state.withLock { $0.thread != nil } }

    /// Adds `source`; starts the thread if it is not running.
    ///
    /// - Returns: `false` when the eventfd or the thread cannot be made.
    func attach(_ source: LinuxPathSource) -> Bool {
        state.withLock { state in
            if state.wake == nil {
                guard let wake = try? EventSignal() else { return false }
                state.wake = wake
            }
            state.members.append(source)
            if state.thread == nil {
                guard let thread = OwnThread.start(name: threadName, { [self] in run() }) else {
                    state.members.removeLast()
                    return false
                }
                state.thread = thread
            } else {
                state.wake?.signal()
            }
            return true
        }
    }

    /// Removes `source`; the thread closes its descriptors. Waits until it has (and, when
    /// it was the last source, until the thread has ended), unless called on the thread
    /// itself (from a path handler), where the source is removed after the current turn.
    func detach(_ source: LinuxPathSource) {
        let done: DispatchSemaphore? = state.withLock { state in
            guard state.members.contains(where: { $0 === source }), let thread = state.thread else { return nil }
            let onThread = pthread_equal(thread, pthread_self()) != 0
            let done = onThread ? nil : DispatchSemaphore(value: 0)
            state.detaching.append((source, done))
            state.wake?.signal()
            return done
        }
        guard let done else { return }
        done.wait()
        for thread in state.withLock({ state in defer { state.ended = [] }; return state.ended }) {
            pthread_join(thread, nil)
        }
    }

    /// Removes `source` if it is still attached and closes its descriptors, under the lock:
    /// a `detach` that finds it gone returns after they are closed.
    private func remove(_ source: LinuxPathSource) {
        state.withLock { state in
            guard let index = state.members.firstIndex(where: { $0 === source }) else { return }
            state.members.remove(at: index)
            source.closeDescriptors()
        }
    }

    /// The thread: detachments first, then one `poll` over every member's descriptors,
    /// bounded by the earliest expiry or error pause, then a turn for each member that has
    /// something to read or whose time came.
    private func run() {
        while let (members, wake) = takeMembers() {
            let now = SystemClock.monotonicNanoseconds()
            var plan = SharedPollPlan(wakeFD: wake.descriptor, members: members.map { $0.pollState(now: now) }, now: now)
            // EINTR is retried; nothing else is expected of a poll on descriptors we own,
            // but a failure (ENOMEM) must not make the thread spin: it waits 10 ms.
            guard case .success = Syscall.poll(&plan.descriptors, milliseconds: plan.timeout) else {
                var pause = timespec(tv_sec: 0, tv_nsec: SharedReaderThread.pollFailurePause)
                _ = nanosleep(&pause, nil)
                continue
            }
            if plan.descriptors[0].revents != 0 { wake.clear() }
            let due = plan.due(at: SystemClock.monotonicNanoseconds())
            for index in due.watchers { members[index].resolverReadable() }
            for index in due.policies { members[index].policySocketReadable() }
            for index in due.turns where !members[index].turn(blocking: false) { remove(members[index]) }
        }
    }

    /// Carries out the detachments asked for, and returns the members for the next round;
    /// `nil` when none is left: the thread then ends (joined by a detacher that waits, or
    /// detached by itself when the last source ended on its own).
    private func takeMembers() -> (members: [LinuxPathSource], wake: EventSignal)? {
        let (members, detaching, wake, joined) = state.withLock { state in
            let detaching = state.detaching
            state.detaching = []
            for entry in detaching {
                // Closed here, under the lock, unless a turn that ended it did already.
                if let index = state.members.firstIndex(where: { $0 === entry.source }) {
                    state.members.remove(at: index)
                    entry.source.closeDescriptors()
                }
            }
            var joined = false
            if state.members.isEmpty, let thread = state.thread {
                state.thread = nil
                joined = detaching.contains { $0.done != nil }
                if joined { state.ended.append(thread) }
            }
            return (state.members, detaching, state.wake, joined)
        }
        for entry in detaching { entry.done?.signal() }
        if !members.isEmpty, let wake { return (members, wake) }
        if !joined { pthread_detach(pthread_self()) }
        return nil
    }
}

/// One round of the shared reader's wait, worked out from what each member says: the
/// descriptors to poll (the eventfd first, then each member's socket and resolver watch),
/// the timeout (the earliest expiry or end of an error pause), and after the poll, which
/// members get a turn. Pure, and tested on fixtures.
struct SharedPollPlan {
    /// What a member says before a round.
    struct Member: Equatable {
        var socket: Int32
        var watcher: Int32?
        /// When it must turn without a message (an expiry, or an awaited answer taken as
        /// lost), or `nil`.
        var expiryWake: UInt64?
        /// Until when it pauses after socket errors (its descriptors are not polled), or `nil`.
        var pauseEnd: UInt64?
        /// Its IPsec policy socket, if it has one.
        var policies: Int32? = nil
    }

    var descriptors: [pollfd]
    /// What a descriptor after the eventfd is to its member.
    enum Role { case socket, watcher, policies }
    /// For each descriptor after the eventfd: the member's index and the descriptor's role.
    private var owners: [(member: Int, role: Role)] = []
    /// For each member, when its time comes without a message.
    private var wakes: [UInt64?] = []
    /// The poll's timeout in milliseconds (rounded up), or -1 to wait for a descriptor.
    private(set) var timeout: Int32 = -1

    init(wakeFD: Int32, members: [Member], now: UInt64) {
        descriptors = [pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        var earliest: UInt64?
        for (index, member) in members.enumerated() {
            var wake = member.expiryWake
            if let pauseEnd = member.pauseEnd, pauseEnd > now {
                wake = min(wake ?? .max, pauseEnd)
            } else {
                descriptors.append(pollfd(fd: member.socket, events: Int16(POLLIN), revents: 0))
                owners.append((index, .socket))
                if let watcher = member.watcher {
                    descriptors.append(pollfd(fd: watcher, events: Int16(POLLIN), revents: 0))
                    owners.append((index, .watcher))
                }
                if let policies = member.policies {
                    descriptors.append(pollfd(fd: policies, events: Int16(POLLIN), revents: 0))
                    owners.append((index, .policies))
                }
            }
            wakes.append(wake)
            if let wake { earliest = min(earliest ?? wake, wake) }
        }
        if let earliest {
            timeout = earliest <= now ? 0 : Int32(clamping: (earliest - now + 999_999) / 1_000_000)
        }
    }

    /// After the poll, at `time`: the members whose resolver watch is readable, those whose
    /// IPsec policy socket is, and the members that get a turn (a readable descriptor, or
    /// their time came), in order.
    func due(at time: UInt64) -> (watchers: [Int], policies: [Int], turns: [Int]) {
        var watchers: [Int] = []
        var policies: [Int] = []
        var ready = wakes.map { $0.map { $0 <= time } ?? false }
        for (slot, owner) in owners.enumerated() where descriptors[slot + 1].revents != 0 {
            if owner.role == .watcher { watchers.append(owner.member) }
            if owner.role == .policies { policies.append(owner.member) }
            ready[owner.member] = true
        }
        return (watchers, policies, ready.indices.filter { ready[$0] })
    }
}
#endif
