import NetPath

extension NetPathCommand {
    /// `wait`: exit 0 once the path is satisfied (with `--probe`, the Internet answers).
    static func wait(_ session: Session) throws -> ExitCode {
        let ended = Gate<Result<ExitCode, CommandError>>()
        let monitor = session.makeMonitor(ending: ended)
        let withConnectivity = session.withConnectivity
        let done: @Sendable (NetworkPath) -> Bool = { path in
            withConnectivity ? path.connectivity == .full : path.status == .satisfied
        }
        monitor.pathUpdateHandler = { @Sendable path in
            if done(path) { ended.open(.success(.success)) }
        }
        try start(monitor)
        // `start` returns with the first path known: no need to wait if it is satisfied.
        if let path = monitor.currentPath, done(path) { return .success }
        let timeout = session.arguments.timeout ?? .seconds(30)
        var goal = withConnectivity ? "the Internet to answer" : "a satisfied path"
        if let required = session.arguments.paths.required { goal += " through \(required.rawValue)" }
        switch session.signals.wait(for: ended, timeout: timeout) {
        case .value(.success(let code)): return code
        case .value(.failure(let error)): throw error
        // Interrupted is not "online": 130 or 143, never 0.
        case .signal(let number): throw interrupted(by: number, "while waiting for \(goal)")
        case .readerLeft, .timedOut: break
        }
        // A satisfied path's line names its verdict already; say it once. On an
        // ultra-constrained path no check runs unless allowed: say that, not "unknown".
        let unchecked = !(session.check?.allowsUltraConstrainedPaths ?? true)
        let last = monitor.currentPath.map { path in
            let named = path.status == .satisfied && path.connectivity != .unknown
            guard withConnectivity && !named else { return path.description }
            if path.status == .satisfied && path.isUltraConstrained && unchecked {
                return path.description + "  (Internet: not checked on an ultra-constrained path; --allow-ultra-constrained checks it)"
            }
            return path.description + "  (Internet: \(path.connectivity.rawValue))"
        }
        throw CommandError("waited \(Help.seconds(timeout)) for \(goal); the path: \(last ?? "none reported")", .failure)
    }
}
