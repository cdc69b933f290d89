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
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
        }
        wakeFD = ends[0]
        signalFD = ends[1]
    }

    /// Gives the value (only the first counts) and wakes the waiter.
    func open(_ newValue: Value) {
        value.withLock { $0 = $0 ?? newValue }
        var byte: UInt8 = 1
        _ = write(signalFD, &byte, 1)  // full (EAGAIN): a wake-up is pending anyway
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
    let set: sigset_t
    private let descriptor: Int32

    /// Blocks `numbers` in the calling thread (and the threads it will start).
    init(_ numbers: [Int32]) {
        var set = sigset_t()
        sigemptyset(&set)
        for number in numbers { sigaddset(&set, number) }
        pthread_sigmask(SIG_BLOCK, &set, nil)
        self.set = set
        #if os(Linux)
        descriptor = cnetlink_signalfd(&set)
        #else
        var ends: [Int32] = [-1, -1]
        _ = pipe(&ends)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        descriptor = ends[0]
        let writeEnd = ends[1]
        let waited = set
        _ = OwnThread.start(name: "netpath-signal") {
            var signals = waited
            while true {
                var received: Int32 = 0
                guard sigwait(&signals, &received) == 0 else { continue }
                _ = withUnsafeBytes(of: &received) { write(writeEnd, $0.baseAddress, 4) }
            }
        }
        #endif
    }

    /// The next signal, read from the source (it is ready).
    private func take() -> Int32 {
        // A signalfd gives struct signalfd_siginfo (128 bytes), which begins with ssi_signo;
        // the pipe gives the number alone.
        var bytes = [UInt8](repeating: 0, count: 128)
        let count = read(descriptor, &bytes, bytes.count)
        guard count >= 4 else { return SIGINT }
        return Int32(bytes[0]) | Int32(bytes[1]) << 8 | Int32(bytes[2]) << 16 | Int32(bytes[3]) << 24
    }

    /// Waits on the main thread for whichever comes first: the gate's value, a signal, the
    /// reader of standard output leaving (with `endWhenReaderLeaves`, when standard output
    /// is a pipe) or `timeout` seconds (`nil`: none). One `poll`: an idle wait makes no
    /// wake-ups, and writes to the output pipe wake nothing (no event is asked of it; a
    /// pipe whose reader left reports `POLLERR` regardless).
    func wait<Value>(for gate: Gate<Value>, timeout: Double?, endWhenReaderLeaves: Bool = false) -> Waited<Value> {
        var descriptors = [pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: gate.wakeFD, events: Int16(POLLIN), revents: 0)]
        #if os(Linux)
        // Elsewhere the next write's EPIPE ends `watch`.
        var info = stat()
        if endWhenReaderLeaves, fstat(1, &info) == 0, info.st_mode & S_IFMT == S_IFIFO {
            descriptors.append(pollfd(fd: 1, events: 0, revents: 0))
        }
        #endif
        let deadline = timeout.map { Clock.now() + $0 }
        while true {
            if let value = gate.opened { return .value(value) }
            let left = deadline.map { max(0, $0 - Clock.now()) }
            for index in descriptors.indices { descriptors[index].revents = 0 }
            let ready = poll(&descriptors, nfds_t(descriptors.count), left.map { Int32(($0 * 1000).rounded(.up)) } ?? -1)
            if ready < 0 { continue }  // EINTR
            if ready == 0, let deadline, Clock.now() >= deadline { return gate.opened.map { .value($0) } ?? .timedOut }
            if descriptors[0].revents != 0 { return .signal(take()) }
            if descriptors.count > 2, descriptors[2].revents != 0 { return .readerLeft }
            if descriptors[1].revents != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                _ = read(gate.wakeFD, &drain, drain.count)
            }
        }
    }
}

/// The tool's one clock: monotonic seconds, for deadlines and durations.
enum Clock {
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Seconds since 1970, for timestamps.
    static func unixNow() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
