import NetPath

/// Hands one value from another thread (the monitor's reader, a check's task) to the main
/// thread, which waits for it in ``Signals/wait(for:timeout:endWhenReaderLeaves:)`` together
/// with the signals: the first value given is kept, and the main thread's loop is woken.
/// Threads other than the main one never end the process; they open a gate.
final class Gate<Value: Sendable>: Sendable {
    private let state = Locked<(value: Value?, waiter: EventLoop?)>((nil, nil))

    /// Gives the value (only the first counts) and wakes the waiter.
    func open(_ newValue: Value) {
        let waiter = state.withLock { state in
            state.value = state.value ?? newValue
            return state.waiter
        }
        waiter?.wake()
    }

    /// The value, if one was given.
    var opened: Value? { state.withLock { $0.value } }

    /// Makes `loop` the one to wake.
    fileprivate func wakes(_ loop: EventLoop) {
        state.withLock { $0.waiter = loop }
    }
}

/// What a wait on the main thread ended with.
enum Waited<Value> {
    case value(Value)
    case signal(Signal)
    /// The reader of standard output went away (`netpath watch | head -1`).
    case readerLeft
    case timedOut
}

/// The signals the main thread takes: SIGINT and SIGTERM always, SIGHUP for `serve
/// --web-config`. Blocked in `main` before any thread exists, so every thread inherits the
/// mask and only this source receives them: a signalfd on Linux, elsewhere a thread in
/// `sigwait` that passes each signal through a pipe. The main thread waits for them, and
/// for what the other threads hand it, on its ``EventLoop``.
final class Signals: Sendable {
    /// The signal source; `nil` when none could be made.
    private let descriptor: FileDescriptor?
    /// The main thread's loop.
    let loop: EventLoop

    /// Blocks `numbers` in the calling thread (and the threads it will start).
    ///
    /// - Throws: The errno of the event loop's descriptors (none left).
    init(_ numbers: [Signal]) throws {
        loop = try EventLoop()
        let set = Syscall.blockSignals(numbers)
        #if os(Linux)
        descriptor = try? Syscall.signalDescriptor(set).get()
        // No signalfd (no descriptor left): blocked, the signals would never arrive; unblocked,
        // they end the process as they do by default.
        if descriptor == nil { Syscall.unblockSignals(set) }
        #else
        let ends = try? Syscall.pipe(nonBlocking: false).get()
        descriptor = ends?.read
        let waited = set
        if let writeEnd = ends?.write { Signals.startWaiting(for: waited, writingTo: writeEnd) }
        #endif
    }

    #if !os(Linux)
    /// The thread in `sigwait` that passes each signal through the pipe.
    private static func startWaiting(for waited: Syscall.SignalSet, writingTo writeEnd: FileDescriptor) {
        _ = OwnThread.start(name: "netpath-signal") {
            while true {
                guard case .success(let received) = Syscall.waitForSignal(in: waited) else { continue }
                var number = received.rawValue
                _ = withUnsafeBytes(of: &number) { Syscall.write(writeEnd, $0) }
            }
        }
    }
    #endif

    /// The next signal, read from the source (it is ready).
    private func take() -> Signal {
        // A signalfd gives struct signalfd_siginfo (128 bytes), which begins with ssi_signo;
        // the pipe gives the number alone.
        var bytes = [UInt8](repeating: 0, count: 128)
        guard let descriptor, case .success(let count) = bytes.withUnsafeMutableBytes({ Syscall.read(descriptor, into: $0) }), count >= 4
        else { return .interrupt }
        return Signal(rawValue: Int32(bytes[0]) | Int32(bytes[1]) << 8 | Int32(bytes[2]) << 16 | Int32(bytes[3]) << 24)
    }

    /// Waits on the main thread for whichever comes first: the gate's value, a signal, the
    /// reader of standard output leaving (with `endWhenReaderLeaves`, when standard output
    /// is a pipe) or `timeout` (`nil`: none). An idle wait makes no wake-ups, and
    /// writes to the output pipe wake nothing (no event is asked of it; a pipe whose reader
    /// left reports an error regardless).
    func wait<Value>(for gate: Gate<Value>, timeout: Duration?, endWhenReaderLeaves: Bool = false) -> Waited<Value> {
        var ended: Waited<Value>?
        var registrations: [EventLoop.Registration] = []
        if let descriptor {
            registrations.append(loop.register(descriptor, for: .readable) { [self] _ in ended = ended ?? .signal(take()) })
        }
        #if os(Linux)
        // Elsewhere the next write's EPIPE ends `watch`.
        if endWhenReaderLeaves, Syscall.isPipe(.standardOutput) {
            registrations.append(loop.register(.standardOutput, for: []) { _ in ended = ended ?? .readerLeft })
        }
        #endif
        defer { for registration in registrations { loop.deregister(registration) } }
        gate.wakes(loop)
        let deadline = timeout.map { SystemClock.now() + max($0, .zero) }
        while true {
            if let value = gate.opened { return .value(value) }
            if let ended { return ended }
            if let deadline, SystemClock.now() >= deadline { return .timedOut }
            loop.runOnce(until: deadline)
        }
    }
}
