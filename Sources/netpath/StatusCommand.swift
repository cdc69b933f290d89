import NetPath
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension NetPathCommand {
    /// `status`: the path read once.
    static func status(_ session: Session) throws -> ExitCode {
        let path = try readPath(session)
        try Terminal.output(session.format(path))
        return path.status == .satisfied ? .success : .failure
    }

    /// `status --probe`: the path with the check's verdict, printed once.
    static func statusWithCheck(_ session: Session) throws -> ExitCode {
        let ended = Gate<Result<ExitCode, CommandError>>()
        let monitor = session.makeMonitor(ending: ended)
        try start(monitor)
        guard var path = monitor.currentPath else { throw CommandError("no path was reported", .runtime) }
        // No check runs on an ultra-constrained path unless allowed: nothing to wait for.
        let unchecked = path.isUltraConstrained && session.check?.allowsUltraConstrainedPaths != true
        // A verdict, or the desktop's word that none comes (its check switched off).
        if path.connectivity == .unknown, path.connectivitySource == nil, !unchecked {
            // Wait for the verdict (it is time-bounded); the first path that has one.
            let verdict = Gate<NetworkPath>()
            monitor.pathUpdateHandler = { path in
                if path.connectivity != .unknown || path.connectivitySource != nil { verdict.open(path) }
            }
            if let settled = monitor.currentPath, settled.connectivity != .unknown || settled.connectivitySource != nil {
                verdict.open(settled)
            }
            switch session.signals.wait(for: verdict, timeout: (session.check?.timeoutSeconds ?? 5) + 2) {
            case .value(let settled): path = settled
            case .signal(let number): throw interrupted(by: number)
            case .readerLeft, .timedOut: break
            }
        }
        if case .failure(let error) = ended.opened { throw error }
        try Terminal.output(session.format(path))
        return path.status == .satisfied ? .success : .failure
    }

    /// A command waiting for a check's verdict, ended by a signal: exit 1 with one line,
    /// at once rather than at the check's timeout.
    static func interrupted(by number: Int32) -> CommandError {
        CommandError("interrupted (\(number == SIGINT ? "SIGINT" : number == SIGTERM ? "SIGTERM" : "signal \(number)")) before the check finished", .failure)
    }
}
