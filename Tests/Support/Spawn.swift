import CTestSupport
import Foundation

/// A child process for tests, started with `posix_spawn`.
///
/// Tests run in parallel and many start programs. A pipe end inherited by another test's
/// long-lived child (a probe server, `dnsmasq`) keeps that pipe open: the reader never sees
/// end of file and the writer never sees its reader go. So every pipe here is close-on-exec,
/// and the child closes every descriptor above 2 before it runs. (Foundation's `Process`
/// guarantees neither, which once made a `watch | head -1` test hang under TSan.)
public final class Child: @unchecked Sendable {
    public let pid: pid_t
    /// Our ends of its standard streams; -1 when closed or not piped.
    public private(set) var input: Int32
    public private(set) var output: Int32
    public let errors: Int32
    private let exit = DispatchSemaphore(value: 0)
    private let status = Shared<Int32>(0)

    /// Starts `program` with `arguments`. `environment` entries are added to ours; an empty
    /// value removes the variable. With `pipeInput`, write to ``input`` and close it.
    public init(_ program: String, _ arguments: [String], environment: [String: String] = [:],
                pipeInput: Bool = false, errorsToOutput: Bool = false) throws {
        var outputPipe: [Int32] = [-1, -1], errorPipe: [Int32] = [-1, -1], inputPipe: [Int32] = [-1, -1]
        guard ctest_pipe_cloexec(&outputPipe) == 0, errorsToOutput || ctest_pipe_cloexec(&errorPipe) == 0,
              !pipeInput || ctest_pipe_cloexec(&inputPipe) == 0 else {
            throw CommandFailure(description: "pipe2 failed: errno \(errno)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if pipeInput {
            posix_spawn_file_actions_adddup2(&actions, inputPipe[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, outputPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errorsToOutput ? outputPipe[1] : errorPipe[1], 2)
        ctest_spawn_closefrom(&actions, 3)

        // As a shell starts a program: nothing blocked, the usual signals at their defaults.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), defaults = sigset_t()
        sigemptyset(&empty)
        sigemptyset(&defaults)
        for number in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var merged = ProcessInfo.processInfo.environment
        for (key, value) in environment { merged[key] = value.isEmpty ? nil : value }
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }

        var spawned: pid_t = 0
        let result = posix_spawn(&spawned, program, &actions, &attributes, argv, envp)
        for fd in [outputPipe[1], errorPipe[1], inputPipe[0]] where fd >= 0 { close(fd) }
        guard result == 0 else {
            for fd in [outputPipe[0], errorPipe[0], inputPipe[1]] where fd >= 0 { close(fd) }
            throw CommandFailure(description: "cannot start \(program): \(String(cString: strerror(result)))")
        }
        pid = spawned
        let child = spawned
        output = outputPipe[0]
        errors = errorPipe[0]
        input = inputPipe[1]
        // waitpid blocks, so it gets a thread of its own; the semaphore gives waits a deadline.
        let (status, exit) = (self.status, self.exit)
        Thread.detachNewThread {
            var raw: Int32 = 0
            while waitpid(child, &raw, 0) < 0 && errno == EINTR {}
            status.withLock { $0 = raw }
            exit.signal()
        }
    }

    deinit {
        for fd in [input, output, errors] where fd >= 0 { close(fd) }
    }

    /// Writes `text` to its standard input and closes it.
    public func send(_ text: String) {
        guard input >= 0 else { return }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { write(input, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { break }
            bytes = bytes.dropFirst(written)
        }
        closeInput()
    }

    public func closeInput() {
        if input >= 0 { close(input); input = -1 }
    }

    /// Closes our end of its standard output, as `head -1` does after one line.
    public func closeOutput() {
        if output >= 0 { close(output); output = -1 }
    }

    public func signal(_ number: Int32) { Glibc.kill(pid, number) }

    /// Its exit code (128 + the signal's number when a signal ended it), or `nil` when it is
    /// still running after `seconds`.
    public func wait(seconds: Double) -> Int32? {
        guard exit.wait(timeout: .now() + seconds) == .success else { return nil }
        exit.signal()  // later waits return at once
        let raw = status.withLock { $0 }
        return raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
    }

    /// Kills it and reaps it.
    public func kill() {
        signal(SIGKILL)
        _ = wait(seconds: 30)
    }

    /// Reads its standard output and standard error to their ends (both at once, so a
    /// child that fills one pipe never blocks), at most until `deadline`.
    public func readToEnd(until deadline: Date) -> (output: [UInt8], errors: [UInt8]) {
        var collected: [Int32: [UInt8]] = [:]
        var open = [output, errors].filter { $0 >= 0 }
        var chunk = [UInt8](repeating: 0, count: 65536)
        while !open.isEmpty {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { break }
            var pollers = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&pollers, nfds_t(pollers.count), Int32(left * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            for poller in pollers where poller.revents != 0 {
                let count = read(poller.fd, &chunk, chunk.count)
                if count > 0 {
                    collected[poller.fd, default: []] += chunk[0..<count]
                } else if count == 0 || errno != EINTR {
                    open.removeAll { $0 == poller.fd }
                }
            }
        }
        return (collected[output] ?? [], collected[errors] ?? [])
    }
}
