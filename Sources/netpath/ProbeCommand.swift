import NetPath

extension NetPathCommand {
    /// `probe`: one check now, over the path's primary interface or, with `--interface`,
    /// over the one named.
    static func probe(_ session: Session) throws -> ExitCode {
        guard let check = session.check else { throw CommandError("no connectivity check configured", .usage) }
        let verdict = Gate<Result<ConnectivityResult, NetPathError>>()
        let namespace = session.namespace
        if let interface = session.arguments.check.interface {
            Task.detached {
                do {
                    verdict.open(.success(try await check.run(on: interface, namespace: namespace)))
                } catch {
                    verdict.open(.failure(error as? NetPathError ?? NetPathError(.invalidInput, "\(error)")))
                }
            }
        } else {
            // The check runs over the kernel's path: what the desktop knows is not asked.
            let path = try readPath(session, desktop: false)
            Task.detached { verdict.open(.success(await check.run(over: path, namespace: namespace))) }
        }
        let result: ConnectivityResult
        switch session.signals.wait(for: verdict, timeout: check.timeout + .seconds(5)) {
        case .value(.success(let value)): result = value
        // A name that is no interface, or one that is down, is the caller's mistake (exit 2);
        // a namespace that cannot be entered is a runtime failure (exit 3).
        case .value(.failure(let error)) where error.code == .interfaceNotFound || error.code == .interfaceNotRouted:
            throw CommandError(error.message, .usage)
        case .value(.failure(let error)): throw CommandError.runtime(error)
        case .signal(let number): throw interrupted(by: number)
        case .readerLeft, .timedOut: throw CommandError("the check did not finish", .runtime)
        }
        try Terminal.output(Array(((session.arguments.json ? Output.json(result) : Output.human(result, color: session.color)) + "\n").utf8))
        return result.connectivity == .full ? .success : .failure
    }
}
