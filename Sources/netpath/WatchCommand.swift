import NetPath

extension NetPathCommand {
    /// `watch`: a line now and one per change, until a signal, `--count` lines, or the
    /// reader of its output leaving.
    static func watch(_ session: Session) throws -> ExitCode {
        let ended = Gate<Result<ExitCode, CommandError>>()
        let monitor = session.makeMonitor(ending: ended)
        // Never released: the process ends with `_exit` after this returns, and a monitor
        // released here would join its reader thread, which may be blocked writing to a pipe
        // whose reader stopped reading: a signal would then not end `watch`.
        _ = Unmanaged.passRetained(monitor)
        let printed = Locked(0)
        let limit = session.arguments.count
        // Called inline: the first time inside `start` on the main thread, then on the
        // monitor's reader thread. Never concurrently: paths arrive in order.
        monitor.pathUpdateHandler = { @Sendable path in
            let count = printed.withLock { count in
                count += 1
                return count
            }
            // The monitor runs on until the process ends: a path after the last line is not printed.
            if let limit, count > limit { return }
            do {
                guard try Terminal.output(session.format(path)) else { return ended.open(.success(.success)) }
            } catch {
                return ended.open(.failure(error as? CommandError ?? CommandError("\(error)", .runtime)))
            }
            if let limit, count >= limit { ended.open(.success(.success)) }
        }
        try start(monitor)
        switch session.signals.wait(for: ended, timeout: nil, endWhenReaderLeaves: true) {
        case .value(.success(let code)): return code
        case .value(.failure(let error)): throw error
        case .signal, .readerLeft, .timedOut: return .success
        }
    }
}
