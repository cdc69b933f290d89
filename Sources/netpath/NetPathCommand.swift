#if os(Linux)
import CNetlink
#endif
import Dispatch
import NetPath
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `netpath`: network path status from the shell (SPEC §4).
@main
enum NetPathCommand {
    /// Exit statuses: 0 satisfied / done, 1 not satisfied / timed out, 2 usage, 3 runtime;
    /// `wait` ended by a signal: 128 + its number, as a shell reports it (130 SIGINT, 143
    /// SIGTERM), so `netpath wait && deploy` does not deploy after a Ctrl-C.
    enum ExitCode: Int32 {
        case success = 0, failure = 1, usage = 2, runtime = 3
        case interrupted = 130, terminated = 143

        /// The status of a command that a signal ended before it was done.
        static func ended(by signal: Int32) -> ExitCode { signal == SIGTERM ? .terminated : .interrupted }
    }

    static func main() {
        // Before any thread exists, so every thread inherits the mask: the main thread
        // takes SIGINT and SIGTERM (through a signalfd, or sigwait where there is none)
        // and ends cleanly.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        signal(SIGPIPE, SIG_IGN)
        #if os(Linux)
        // One malloc arena: the monitor's thread would otherwise get one of its own, whose
        // pages stay resident after an event storm. Three threads (main, reader, resolver
        // watcher), mostly asleep, need no more.
        _ = cnetlink_single_malloc_arena()
        #endif

        let request: Arguments.Request
        do {
            request = try Arguments.parse(Array(CommandLine.arguments.dropFirst()))
        } catch let error as Arguments.UsageError {
            fail(error.message, .usage)
        } catch {
            fail("\(error)", .usage)
        }
        switch request {
        case .help(let command):
            Terminal.write(Help.text(for: command))
            finish(.success)
        case .version:
            Terminal.write("netpath \(Help.version)\n")
            finish(.success)
        case .run(let arguments):
            run(arguments, signals: signals)
        }
    }

    /// What every command needs from the arguments: the check, the namespace, the format.
    struct Session: Sendable {
        let arguments: Arguments
        let check: ConnectivityCheck?
        let namespace: NetworkNamespace?
        let color: Bool
        var withConnectivity: Bool { check != nil }

        /// One line per path, with its newline, as bytes (built directly for JSON).
        func format(_ path: NetworkPath) -> [UInt8] {
            guard arguments.json else { return Array((Output.human(path, color: color) + "\n").utf8) }
            var line = JSONLine()
            line.appendJSON(path, connectivity: withConnectivity, time: nil)
            line.append("\n")
            return line.bytes
        }

        /// The monitor's settings from the arguments, for `namespace`.
        func configuration(namespace: NetworkNamespace?) -> PathMonitor.Configuration {
            PathMonitor.Configuration(
                requiredInterfaceType: arguments.required, prohibitedInterfaceTypes: arguments.prohibited,
                namespace: namespace, connectivityCheck: check, meteredInterfaces: arguments.metered,
                constrainedInterfaces: arguments.constrained, ultraConstrainedInterfaces: arguments.ultraConstrained
            )
        }

        /// Made only by the commands that watch: `status` and `probe` read the path once,
        /// and a monitor's first use costs start-up time (generic metadata of its subscribers).
        func makeMonitor() -> PathMonitor {
            let monitor = PathMonitor(configuration: configuration(namespace: namespace))
            // The watched namespace deleted under us: say so, exit 3.
            monitor.terminationHandler = { error in fail(error.description, .runtime) }
            return monitor
        }
    }

    static func run(_ arguments: Arguments, signals: sigset_t) -> Never {
        let check: ConnectivityCheck?
        do {
            check = try arguments.connectivityCheck()
        } catch let error as Arguments.UsageError {
            fail(error.message, .usage)
        } catch {
            fail("\(error)", .usage)
        }
        let session = Session(
            arguments: arguments, check: check, namespace: arguments.namespace,
            color: isatty(1) == 1 && (getenv("NO_COLOR").map { $0.pointee == 0 } ?? true)
        )
        switch arguments.command {
        case .status where check == nil: status(session)
        case .status: statusWithCheck(session)
        case .watch: watch(session, signals: signals)
        case .wait: wait(session, signals: signals)
        case .probe: probe(session)
        case .serve:
            #if os(Linux)
            serve(session, signals: signals)
            #else
            fail("'netpath serve' runs on Linux only", .usage)
            #endif
        }
    }

    /// `status`: the path read once.
    static func status(_ session: Session) -> Never {
        let path = readPath(session)
        Terminal.write(bytes: session.format(path))
        finish(path.status == .satisfied ? .success : .failure)
    }

    /// `status --probe`: the path with the check's verdict, printed once.
    static func statusWithCheck(_ session: Session) -> Never {
        endOnSignal()
        let monitor = session.makeMonitor()
        start(monitor)
        guard var path = monitor.currentPath else { fail("no path was reported", .runtime) }
        // No check runs on an ultra-constrained path unless allowed: nothing to wait for.
        let unchecked = path.isUltraConstrained && session.check?.allowsUltraConstrainedPaths != true
        if path.connectivity == .unknown, !unchecked {
            // Wait for the verdict (it is time-bounded).
            let verdict = Gate<NetworkPath>()
            monitor.pathUpdateHandler = { path in if path.connectivity != .unknown { verdict.open(path) } }
            if let settled = monitor.currentPath, settled.connectivity != .unknown { verdict.open(settled) }
            path = verdict.wait(seconds: (session.check?.timeoutSeconds ?? 5) + 2) ?? path
        }
        Terminal.write(bytes: session.format(path))
        finish(path.status == .satisfied ? .success : .failure)
    }

    /// `watch`: a line now and one per change, until a signal or `--count` lines.
    static func watch(_ session: Session, signals: sigset_t) -> Never {
        let monitor = session.makeMonitor()
        let printed = Locked(0)
        let limit = session.arguments.count
        // Called inline: the first time inside `start` on the main thread, then on the
        // monitor's reader thread. Never concurrently: paths arrive in order.
        monitor.pathUpdateHandler = { @Sendable path in
            Terminal.write(bytes: session.format(path))
            let count = printed.withLock { count in
                count += 1
                return count
            }
            if let limit, count >= limit { finish(.success) }
        }
        start(monitor)
        _ = waitForSignal(signals, timeout: nil, endWhenReaderLeaves: true)
        finish(.success)
    }

    /// `wait`: exit 0 once the path is satisfied (with `--probe`, the Internet answers).
    static func wait(_ session: Session, signals: sigset_t) -> Never {
        let monitor = session.makeMonitor()
        let withConnectivity = session.withConnectivity
        let done: @Sendable (NetworkPath) -> Bool = { path in
            withConnectivity ? path.connectivity == .full : path.status == .satisfied
        }
        monitor.pathUpdateHandler = { @Sendable path in
            if done(path) { finish(.success) }
        }
        start(monitor)
        // `start` returns with the first path known: no need to wait if it is satisfied.
        if let path = monitor.currentPath, done(path) { finish(.success) }
        let timeout = session.arguments.timeout ?? 30
        // Interrupted is not "online": 130 or 143, never 0.
        if let signal = waitForSignal(signals, timeout: timeout) { finish(.ended(by: signal)) }
        var goal = withConnectivity ? "the Internet to answer" : "a satisfied path"
        if let required = session.arguments.required { goal += " through \(required.rawValue)" }
        let last = monitor.currentPath.map { $0.description + (withConnectivity ? "  (Internet: \($0.connectivity.rawValue))" : "") }
        Terminal.writeError("netpath: waited \(Help.seconds(timeout)) for \(goal); the path: \(last ?? "none reported")\n")
        finish(.failure)
    }

    /// `probe`: one check now.
    static func probe(_ session: Session) -> Never {
        guard let check = session.check else { fail("no connectivity check configured", .usage) }
        endOnSignal()
        let path = readPath(session)
        let verdict = Gate<ConnectivityResult>()
        let namespace = session.namespace
        Task.detached { verdict.open(await check.run(over: path, namespace: namespace)) }
        guard let result = verdict.wait(seconds: check.timeoutSeconds + 5) else { fail("the check did not finish", .runtime) }
        Terminal.write((session.arguments.json ? Output.json(result) : Output.human(result, color: session.color)) + "\n")
        finish(result.connectivity == .full ? .success : .failure)
    }

    /// The path now, read once (no thread, no watch: the fastest start and exit).
    static func readPath(_ session: Session) -> NetworkPath {
        do {
            return try PathMonitor.snapshot(configuration: session.configuration(namespace: session.namespace))
        } catch let error as NetPathError {
            fail(error.description, .runtime)
        } catch {
            fail("\(error)", .runtime)
        }
    }

    static func start(_ monitor: PathMonitor) {
        do {
            try monitor.start()
        } catch let error as NetPathError {
            fail(error.description, .runtime)
        } catch {
            fail("\(error)", .runtime)
        }
    }

    /// For the commands that wait for a check's verdict on the main thread: a thread that
    /// takes SIGINT or SIGTERM (blocked everywhere, so only `sigwait` receives them) and ends
    /// the process at once, exit 1 with one line, instead of waiting out the check's timeout.
    static func endOnSignal() {
        let started = OwnThread.start(name: "netpath-signal") {
            let received = takeSignal()
            fail("interrupted (\(received == SIGINT ? "SIGINT" : "SIGTERM")) before the check finished", .failure)
        }
        if started == nil { fail("cannot start a thread to take SIGINT and SIGTERM", .runtime) }
    }

    /// Waits in `sigwait` for SIGINT or SIGTERM (blocked in every thread) and returns it.
    static func takeSignal() -> Int32 {
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        var received: Int32 = 0
        while sigwait(&signals, &received) != 0 {}
        return received
    }

    /// Blocks until SIGINT or SIGTERM (returns which) or `timeout` seconds (`nil`).
    /// With `endWhenReaderLeaves` (`watch`), a pipe on standard output whose reader has gone
    /// (`netpath watch | head -1`) ends the process at once, not at the next change. One
    /// epoll on a signalfd and on standard output's error condition: an idle `watch` makes
    /// no wake-ups, and writes to the pipe wake nothing (epoll filters by event).
    @discardableResult
    static func waitForSignal(_ signals: sigset_t, timeout: Double?, endWhenReaderLeaves: Bool = false) -> Int32? {
        var signals = signals
        #if os(Linux)
        let signalFD = cnetlink_signalfd(&signals)
        let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        if signalFD >= 0 && epoll >= 0 {
            var event = epoll_event()
            event.events = EPOLLIN.rawValue
            event.data.fd = signalFD
            epoll_ctl(epoll, EPOLL_CTL_ADD, signalFD, &event)
            var info = stat()
            if endWhenReaderLeaves, fstat(1, &info) == 0, info.st_mode & S_IFMT == S_IFIFO {
                var output = epoll_event()
                output.events = EPOLLERR.rawValue | EPOLLHUP.rawValue
                output.data.fd = 1
                epoll_ctl(epoll, EPOLL_CTL_ADD, 1, &output)
            }
            let deadline = timeout.map { now() + $0 }
            while true {
                let left = deadline.map { max(0, $0 - now()) }
                var ready = epoll_event()
                let count = epoll_wait(epoll, &ready, 1, left.map { Int32(($0 * 1000).rounded(.up)) } ?? -1)
                if count < 0 && errno == EINTR { continue }
                if count == 0 { return nil }  // the timeout ran out
                if count < 0 { break }  // epoll failed: fall back to sigwait below
                if ready.data.fd == signalFD {
                    // struct signalfd_siginfo (128 bytes) begins with ssi_signo.
                    var info = [UInt8](repeating: 0, count: 128)
                    let count = read(signalFD, &info, info.count)
                    let number = count >= 4 ? Int32(info[0]) | Int32(info[1]) << 8 | Int32(info[2]) << 16 | Int32(info[3]) << 24 : SIGINT
                    return number
                }
                _exit(0)  // the reader of our standard output went away
            }
        }
        #endif
        // Elsewhere (or if epoll failed): a thread takes the signal in `sigwait`; the main
        // thread waits for it, at most `timeout` (no `sigtimedwait` on Darwin).
        let arrived = DispatchSemaphore(value: 0)
        let taken = Locked<Int32>(SIGINT)
        guard OwnThread.start(name: "netpath-signal", { let signal = takeSignal(); taken.withLock { $0 = signal }; arrived.signal() }) != nil else {
            fail("cannot start a thread to take SIGINT and SIGTERM", .runtime)
        }
        return arrived.wait(timeout: timeout.map { .now() + $0 } ?? .distantFuture) == .success ? taken.withLock { $0 } : nil
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    static func fail(_ message: String, _ code: ExitCode) -> Never {
        Terminal.writeError("netpath: \(oneLine(message))\n")
        finish(code)
    }

    /// The message with control characters shown as escapes: a word the user typed with a
    /// newline or a terminal escape in it must not break the one-line rule or the terminal.
    static func oneLine(_ message: String) -> String {
        var result = ""
        for scalar in message.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                result += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Ends the process at once. Output is written unbuffered, so nothing is lost; `_exit`
    /// avoids running exit handlers while another thread may also be finishing.
    static func finish(_ code: ExitCode) -> Never {
        _exit(code.rawValue)
    }
}

#if canImport(Glibc)
private let systemWrite = Glibc.write
#elseif canImport(Darwin)
private let systemWrite = Darwin.write
#endif

/// Unbuffered, whole-line writes: each line reaches a pipe as soon as it is produced.
enum Terminal {
    static func write(_ text: String) {
        writeAll(1, text)
    }

    static func write(bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { writeAll(1, UnsafeRawBufferPointer($0)) }
    }

    static func writeError(_ text: String) {
        writeAll(2, text)
    }

    private static func writeAll(_ descriptor: Int32, _ text: String) {
        var text = text
        text.withUTF8 { writeAll(descriptor, UnsafeRawBufferPointer($0)) }
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(descriptor, base + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                // The reader went away (EPIPE): nothing more can be shown; end quietly.
                if descriptor == 1 { _exit(0) }
                return
            }
            offset += written
        }
    }
}

/// Hands one value from another thread to the main thread, which waits for it: the
/// package's lock for the value, a semaphore for its arrival.
final class Gate<Value: Sendable>: Sendable {
    private let value = Locked<Value?>(nil)
    private let arrived = DispatchSemaphore(value: 0)

    func open(_ newValue: Value) {
        value.withLock { $0 = $0 ?? newValue }
        arrived.signal()
    }

    /// The value, or `nil` after `seconds`.
    func wait(seconds: Double) -> Value? {
        if let ready = value.withLock({ $0 }) { return ready }
        _ = arrived.wait(timeout: .now() + seconds)
        return value.withLock { $0 }
    }
}
