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
    /// Exit statuses: 0 satisfied / done, 1 not satisfied / timed out, 2 usage, 3 runtime.
    enum ExitCode: Int32 {
        case success = 0, failure = 1, usage = 2, runtime = 3
    }

    static func main() {
        // Before any thread exists, so every thread inherits the mask: the main thread
        // takes SIGINT and SIGTERM with sigwait and ends cleanly.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)
        signal(SIGPIPE, SIG_IGN)

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

    static func run(_ arguments: Arguments, signals: sigset_t) -> Never {
        if arguments.command == .probe || arguments.probe {
            fail("the connectivity check ('probe', '--probe') is not available in this version", .usage)
        }
        let monitor = PathMonitor(
            requiredInterfaceType: arguments.required,
            prohibitedInterfaceTypes: arguments.prohibited,
            namespace: arguments.namespace.map(NetworkNamespace.named)
        )
        let color = isatty(1) == 1 && (getenv("NO_COLOR").map { $0.pointee == 0 } ?? true)
        let format: @Sendable (NetworkPath) -> String = { path in
            arguments.json ? Output.json(path) : Output.human(path, color: color)
        }
        switch arguments.command {
        case .status:
            start(monitor)
            guard let path = monitor.currentPath else { fail("no path was reported", .runtime) }
            Terminal.write(format(path) + "\n")
            finish(path.status == .satisfied ? .success : .failure)
        case .watch:
            let printed = Locked(0)
            let limit = arguments.count
            // Called on the monitor's private queue, never the main thread.
            monitor.pathUpdateHandler = { @Sendable path in
                Terminal.write(format(path) + "\n")
                let count = printed.withLock { count in
                    count += 1
                    return count
                }
                if let limit, count >= limit { finish(.success) }
            }
            start(monitor)
            endWhenReaderLeaves()
            waitForSignal(signals, timeout: nil)
            finish(.success)
        case .wait:
            monitor.pathUpdateHandler = { @Sendable path in
                if path.status == .satisfied { finish(.success) }
            }
            start(monitor)
            // `start` returns with the first path known: no need to wait if it is satisfied.
            if monitor.currentPath?.status == .satisfied { finish(.success) }
            let timeout = arguments.timeout ?? 30
            if waitForSignal(signals, timeout: timeout) { finish(.success) }
            if isatty(2) == 1 {
                Terminal.writeError("netpath: the path was not satisfied within \(Help.seconds(timeout))\n")
            }
            finish(.failure)
        case .probe:
            fail("the connectivity check is not available in this version", .usage)
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

    /// `netpath watch | head -1`: when standard output is a pipe whose reader has gone,
    /// end at once instead of at the next change. A thread sleeps in `poll` for that (it
    /// reports POLLERR on a pipe without readers); it makes no wake-ups otherwise.
    static func endWhenReaderLeaves() {
        var info = stat()
        guard fstat(1, &info) == 0, info.st_mode & S_IFMT == S_IFIFO else { return }
        var thread = pthread_t()
        _ = pthread_create(&thread, nil, { _ in
            var output = pollfd(fd: 1, events: 0, revents: 0)
            while true {
                if poll(&output, 1, -1) > 0 && output.revents & Int16(POLLERR | POLLHUP) != 0 { _exit(0) }
            }
        }, nil)
    }

    /// Blocks until SIGINT or SIGTERM (returns `true`) or `timeout` seconds (`false`).
    @discardableResult
    static func waitForSignal(_ signals: sigset_t, timeout: Double?) -> Bool {
        var signals = signals
        guard let timeout else {
            var received: Int32 = 0
            while sigwait(&signals, &received) != 0 {}
            return true
        }
        var deadline = timespec()
        clock_gettime(CLOCK_MONOTONIC, &deadline)
        let end = Double(deadline.tv_sec) + Double(deadline.tv_nsec) / 1e9 + timeout
        while true {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let left = end - (Double(now.tv_sec) + Double(now.tv_nsec) / 1e9)
            if left <= 0 { return false }
            var wait = timespec(tv_sec: Int(left), tv_nsec: Int((left - Double(Int(left))) * 1e9))
            if sigtimedwait(&signals, nil, &wait) > 0 { return true }
            if errno != EINTR && errno != EAGAIN { return false }
        }
    }

    static func fail(_ message: String, _ code: ExitCode) -> Never {
        Terminal.writeError("netpath: \(message)\n")
        finish(code)
    }

    /// Ends the process at once. Output is written unbuffered, so nothing is lost; `_exit`
    /// avoids running exit handlers while another thread may also be finishing.
    static func finish(_ code: ExitCode) -> Never {
        _exit(code.rawValue)
    }
}

/// Unbuffered, whole-line writes: each line reaches a pipe as soon as it is produced.
enum Terminal {
    static func write(_ text: String) {
        writeAll(1, text)
    }

    static func writeError(_ text: String) {
        writeAll(2, text)
    }

    private static func writeAll(_ descriptor: Int32, _ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
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
}

/// A value guarded by a mutex, for the CLI's handler state.
final class Locked<Value>: @unchecked Sendable {
    // `value` is only touched while `mutex` is held.
    private var mutex = pthread_mutex_t()
    private var value: Value

    init(_ value: Value) {
        self.value = value
        pthread_mutex_init(&mutex, nil)
    }

    func withLock<Result>(_ body: (inout Value) -> Result) -> Result {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return body(&value)
    }
}
