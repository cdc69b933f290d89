import NetPath

extension NetPathCommand {
    /// `probe`: one check now.
    static func probe(_ session: Session) throws -> ExitCode {
        guard let check = session.check else { throw CommandError("no connectivity check configured", .usage) }
        let path = try readPath(session)
        let verdict = Gate<ConnectivityResult>()
        let namespace = session.namespace
        Task.detached { verdict.open(await check.run(over: path, namespace: namespace)) }
        let result: ConnectivityResult
        switch session.signals.wait(for: verdict, timeout: check.timeout + .seconds(5)) {
        case .value(let value): result = value
        case .signal(let number): throw interrupted(by: number)
        case .readerLeft, .timedOut: throw CommandError("the check did not finish", .runtime)
        }
        try Terminal.output(Array(((session.arguments.json ? Output.json(result) : Output.human(result, color: session.color)) + "\n").utf8))
        return result.connectivity == .full ? .success : .failure
    }
}
