#if os(Linux)
import CNetlink
#endif
import NetPath
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hands one value from another thread (the monitor's reader, a check's task) to the main
/// thread, which waits for it in ``Signals/wait(for:timeout:endWhenReaderLeaves:)`` together
/// with the signals: the first value given is kept, and a byte on a pipe wakes the waiter.
/// Threads other than the main one never end the process; they open a gate.
final class Gate<Value: Sendable>: Sendable {
    private let value = Locked<Value?>(nil)
    /// The pipe that wakes the waiter: `wakeFD` is polled, `signalFD` written.
    let wakeFD: Int32
    private let signalFD: Int32

    init() {
        let ends = (try? Syscall.pipe(nonBlocking: true).get()) ?? (read: -1, write: -1)
        wakeFD = ends.read
        signalFD = ends.write
    }

    /// Gives the value (only the first counts) and wakes the waiter.
    func open(_ newValue: Value) {
        value.withLock { $0 = $0 ?? newValue }
        // No pipe (no descriptor left when the gate was made): the waiter's timeout ends the wait.
        guard signalFD >= 0 else { return }
        var byte: UInt8 = 1
        _ = withUnsafeBytes(of: &byte) { Syscall.write(signalFD, $0) }  // full (EAGAIN): a wake-up is pending anyway
    }

    /// The value, if one was given.
    var opened: Value? { value.withLock { $0 } }
}

/// What a wait on the main thread ended with.
enum Waited<Value> {
    case value(Value)
    case signal(Int32)
    /// The reader of standard output went away (`netpath watch | head -1`).
    case readerLeft
    case timedOut
}

/// The signals the main thread takes: SIGINT and SIGTERM always, SIGHUP for `serve
/// --web-config`. Blocked in `main` before any thread exists, so every thread inherits the
/// mask and only this source receives them: a signalfd on Linux, elsewhere a thread in
/// `sigwait` that passes each signal through a pipe.
final class Signals: Sendable {
    private let descriptor: Int32

    /// Blocks `numbers` in the calling thread (and the threads it will start).
    init(_ numbers: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for number in numbers { sigaddset(&set, number) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        #if os(Linux)
        descriptor = (try? Syscall.retrying { cnetlink_signalfd(&set) }.get()) ?? -1
        // No signalfd (no descriptor left): blocked, the signals would never arrive; unblocked,
        // they end the process as they do by default.
        if descriptor < 0 { pthread_sigmask(SIG_UNBLOCK, &set, nil) }
        #else
        let ends = (try? Syscall.pipe(nonBlocking: false).get()) ?? (read: -1, write: -1)
        descriptor = ends.read
        let writeEnd = ends.write
        let waited = set
        if writeEnd >= 0, ends.read >= 0 { Signals.startWaiting(for: waited, writingTo: writeEnd) }
        #endif
    }

    #if !os(Linux)
    /// The thread in `sigwait` that passes each signal through the pipe.
    private static func startWaiting(for waited: sigset_t, writingTo writeEnd: Int32) {
        _ = OwnThread.start(name: "netpath-signal") {
            var signals = waited
            while true {
                var received: Int32 = 0
                guard sigwait(&signals, &received) == 0 else { continue }
                _ = withUnsafeBytes(of: &received) { Syscall.write(writeEnd, $0) }
            }
        }
    }
    #endif

    /// The next signal, read from the source (it is ready).
    private func take() -> Int32 {
        // A signalfd gives struct signalfd_siginfo (128 bytes), which begins with ssi_signo;
        // the pipe gives the number alone.
        var bytes = [UInt8](repeating: 0, count: 128)
        guard case .success(let count) = bytes.withUnsafeMutableBytes({ Syscall.read(descriptor, into: $0) }), count >= 4
        else { return SIGINT }
        return Int32(bytes[0]) | Int32(bytes[1]) << 8 | Int32(bytes[2]) << 16 | Int32(bytes[3]) << 24
    }

    /// Waits on the main thread for whichever comes first: the gate's value, a signal, the
    /// reader of standard output leaving (with `endWhenReaderLeaves`, when standard output
    /// is a pipe) or `timeout` seconds (`nil`: none). One `poll`: an idle wait makes no
    /// wake-ups, and writes to the output pipe wake nothing (no event is asked of it; a
    /// pipe whose reader left reports `POLLERR` regardless).
    func wait<Value>(for gate: Gate<Value>, timeout: Double?, endWhenReaderLeaves: Bool = false) -> Waited<Value> {
        var descriptors = [Syscall.PollEntry(descriptor, events: Int16(POLLIN)), Syscall.PollEntry(gate.wakeFD, events: Int16(POLLIN))]
        #if os(Linux)
        // Elsewhere the next write's EPIPE ends `watch`.
        var info = stat()
        if endWhenReaderLeaves, fstat(1, &info) == 0, info.st_mode & S_IFMT == S_IFIFO {
            descriptors.append(Syscall.PollEntry(1, events: 0))
        }
        #endif
        let deadline = timeout.map { SystemClock.monotonicSeconds() + $0 }
        while true {
            if let value = gate.opened { return .value(value) }
            let left = deadline.map { max(0, $0 - SystemClock.monotonicSeconds()) }
            guard case .success(let ready) = Syscall.poll(&descriptors, milliseconds: left.map { Int32(($0 * 1000).rounded(.up)) } ?? -1)
            else { continue }  // ENOMEM: try again
            if ready == 0, let deadline, SystemClock.monotonicSeconds() >= deadline { return gate.opened.map { .value($0) } ?? .timedOut }
            if descriptors[0].ready != 0 { return .signal(take()) }
            if descriptors.count > 2, descriptors[2].ready != 0 { return .readerLeft }
            if descriptors[1].ready != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                _ = drain.withUnsafeMutableBytes { Syscall.read(gate.wakeFD, into: $0) }
            }
        }
    }
}
