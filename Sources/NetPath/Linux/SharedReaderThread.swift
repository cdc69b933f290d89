#if os(Linux) || os(Android)
import Dispatch

/// One thread, running one ``EventLoop``, that reads the kernel for any number of
/// ``LinuxPathSource``s: each attached source registers its netlink socket and IPsec
/// policy socket on the loop, and a timer for its next expiry; their resolver watches share
/// one inotify instance (``InotifyHub``). A monitor of its
/// own has a reader with one source; ``SharedReader`` gives many monitors one. Idle, with
/// nothing expiring, the thread never wakes; with no source attached, there is no thread at
/// all (it starts with the first source and ends after the last).
///
/// `setns` is never called on this thread: a source's sockets are made inside its
/// namespace on a short-lived thread before it is attached, and a socket stays in the
/// namespace it was made in.
final class SharedReaderThread: Sendable {
    private struct State {
        /// The attached sources.
        var members: [ObjectIdentifier: LinuxPathSource] = [:]
        /// The running loop and its thread, while any source is attached.
        var loop: EventLoop?
        var thread: OwnThread.Handle?
        /// The inotify instance of every attached source's resolver watch, made with the
        /// first one and kept for the reader's life.
        var hub: InotifyHub?
        /// `/proc/self/mountinfo`, while a source watches a bind-mounted namespace file: its
        /// priority event says the mount table changed (`umount` of a namespace without
        /// removing its file is seen only there).
        var mounts: FileDescriptor?
    }

    private let state = Locked(State())
    /// The thread's name (at most 15 bytes show).
    let threadName: String

    init(threadName: String = "netpath-reader") {
        self.threadName = threadName
    }

    /// The running loop, while any source is attached.
    var loop: EventLoop? { state.withLock { $0.loop } }

    deinit {
        // No source is attached (each holds the reader), so the loop has ended.
        state.withLock { $0.hub?.close() }
    }

    /// The one inotify instance of the reader's resolver watches, made on first use.
    ///
    /// - Throws: ``NetPathError`` when the instance cannot be made.
    func inotifyHub() throws -> InotifyHub {
        let made = state.withLock { state -> Result<InotifyHub, Errno> in
            if let hub = state.hub { return .success(hub) }
            do throws(Errno) {
                let hub = try InotifyHub()
                state.hub = hub
                if let loop = state.loop { loop.execute { hub.join(loop) } }
                return .success(hub)
            } catch {
                return .failure(error)
            }
        }
        switch made {
        case .success(let hub): return hub
        case .failure(let error):
            throw NetPathError(.netlinkFailure, "cannot create the monitor's resolver watch", error)
        }
    }

    /// Whether the thread runs now (tests).
    var isRunning: Bool { state.withLock { $0.thread != nil } }

    /// Adds `source`, which registers on the loop at its next turn; starts the thread if it
    /// is not running.
    ///
    /// - Returns: `false` when the loop or the thread cannot be made.
    func attach(_ source: LinuxPathSource) -> Bool {
        state.withLock { state in
            if state.loop == nil {
                guard let loop = try? EventLoop() else { return false }
                guard case .success(let thread) = OwnThread.start(name: threadName, { loop.run(); loop.close() }) else {
                    loop.close()
                    return false
                }
                (state.loop, state.thread) = (loop, thread)
            }
            guard let loop = state.loop else { return false }
            state.members[ObjectIdentifier(source)] = source
            let hub = state.hub
            var opened: FileDescriptor?
            if source.watchesMounts, state.mounts == nil, case .success(let fd) = Syscall.open("/proc/self/mountinfo", .readOnly) {
                state.mounts = fd
                opened = fd
            }
            let mounts = opened
            loop.execute { [self] in
                hub?.join(loop)
                if let mounts { watchMounts(mounts, on: loop) }
                source.join(loop) { [self] in sourceEnded(source, loop) }
            }
            return true
        }
    }

    /// On the loop's thread: each change of the mount table asks every source to check its
    /// namespace file.
    private func watchMounts(_ mounts: FileDescriptor, on loop: EventLoop) {
        Syscall.drain(mounts)
        _ = loop.register(mounts, for: .priority) { [self] _ in
            Syscall.rewind(mounts)
            Syscall.drain(mounts)
            for source in state.withLock({ Array($0.members.values) }) { source.mountsChanged() }
        }
    }

    /// Removes `source`; the loop's thread closes its descriptors. Waits until it has (and,
    /// when it was the last source, until the thread has ended), unless called on the thread
    /// itself (from a path handler), where the source leaves after the current turn.
    func detach(_ source: LinuxPathSource) {
        let removed = state.withLock { state -> (loop: EventLoop, thread: OwnThread.Handle, last: Bool, mounts: FileDescriptor?)? in
            guard state.members.removeValue(forKey: ObjectIdentifier(source)) != nil,
                  let loop = state.loop, let thread = state.thread else { return nil }
            let last = state.members.isEmpty
            var mounts: FileDescriptor?
            if last { (state.loop, state.thread, mounts, state.mounts) = (nil, nil, state.mounts, nil) }
            return (loop, thread, last, mounts)
        }
        guard let (loop, thread, last, mounts) = removed else { return }
        let onThread = thread.isCurrent
        let done = onThread ? nil : DispatchSemaphore(value: 0)
        loop.execute {
            source.leave(loop)
            // On the loop's thread, where no handler of it runs now.
            if let mounts { Syscall.close(mounts) }
            done?.signal()
        }
        if last { loop.stop() }
        guard let done else {
            if last { thread.detach() }
            return
        }
        done.wait()
        if last { thread.join() }
    }

    /// A source that ended on its own (stopped, or its namespace deleted), on the loop's
    /// thread: it leaves, and the thread ends after the last one.
    private func sourceEnded(_ source: LinuxPathSource, _ loop: EventLoop) {
        let (thread, mounts) = state.withLock { state -> (OwnThread.Handle?, FileDescriptor?) in
            guard state.members.removeValue(forKey: ObjectIdentifier(source)) != nil,
                  state.members.isEmpty, let thread = state.thread else { return (nil, nil) }
            defer { (state.loop, state.thread, state.mounts) = (nil, nil, nil) }
            return (thread, state.mounts)
        }
        // When a detach took it first, its leave is queued and will find it gone.
        source.leave(loop)
        if let mounts { Syscall.close(mounts) }
        if let thread {
            loop.stop()
            thread.detach()
        }
    }
}
#endif
