import NetPath

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
        // A verdict, or the desktop's word that none comes (its check switched off); where
        // the desktop says `portal` without the address to log in at, the path that our one
        // check gives it (what a script asks `status --probe` for), or, once that check
        // ended without one, or at the timeout, the desktop's verdict alone.
        let verdict = Gate<NetworkPath>()
        let waiting = Locked(Waiting())
        // One answer, with every family's verdict: no pass shown before the other family's end.
        let monitor = session.makeMonitor(ending: ended, showsEarlyPasses: false) { result in
            // A portal's address is on its way in the path this result makes.
            guard !(result.connectivity == .portal && result.portalURL != nil) else { return }
            if let path = waiting.withLock({ $0.checkEnded = true; return $0.answer }) { verdict.open(path) }
        }
        monitor.pathUpdateHandler = { path in
            if let answer = waiting.withLock({ $0.take(path); return $0.answer }) { verdict.open(answer) }
        }
        try start(monitor)
        guard var path = monitor.currentPath else { throw CommandError("no path was reported", .runtime) }
        // No check runs on an ultra-constrained path unless allowed: nothing to wait for.
        let unchecked = path.isUltraConstrained && session.check?.allowsUltraConstrainedPaths != true
        if !isAnswer(path), !unchecked {
            if let answer = waiting.withLock({ $0.take(path); return $0.answer }) { verdict.open(answer) }
            switch session.signals.wait(for: verdict, timeout: (session.check?.timeout ?? .seconds(5)) + .seconds(2)) {
            case .value(let settled): path = settled
            case .signal(let number): throw interrupted(by: number)
            case .readerLeft, .timedOut: path = waiting.withLock { $0.latest } ?? path
            }
        }
        if case .failure(let error) = ended.opened { throw error }
        try Terminal.output(session.format(path))
        return path.status == .satisfied ? .success : .failure
    }

    /// What `status --probe` waits for: the latest path with a verdict, and whether our
    /// check ended (without a portal's address to add to the desktop's verdict).
    private struct Waiting {
        var latest: NetworkPath?
        var checkEnded = false

        mutating func take(_ path: NetworkPath) {
            if hasVerdict(path) { latest = path }
        }

        /// The path to print, once there is one.
        var answer: NetworkPath? {
            latest.flatMap { isAnswer($0) || checkEnded ? $0 : nil }
        }
    }

    /// Whether a path carries a verdict, or the desktop's word that none comes.
    fileprivate static func hasVerdict(_ path: NetworkPath) -> Bool {
        path.connectivity != .unknown || path.connectivitySource != nil
    }

    /// Whether a path is what `status --probe` prints: a verdict, complete with the portal's
    /// address unless the desktop said `portal` and our check has not found it yet.
    fileprivate static func isAnswer(_ path: NetworkPath) -> Bool {
        hasVerdict(path) && !(path.connectivity == .portal && path.portalURL == nil && path.connectivitySource != .check)
    }

    /// A command waiting for a check's verdict, ended by a signal: one line, at once rather
    /// than at the check's timeout, and the shell's status for the signal (130, 143), as
    /// `wait`'s: an interrupted check is no answer.
    static func interrupted(by number: Signal, _ when: String = "before the check finished") -> CommandError {
        CommandError("interrupted (\(number == .interrupt ? "SIGINT" : number == .terminate ? "SIGTERM" : "signal \(number.rawValue)")) \(when)",
                     .ended(by: number))
    }
}
