import NetPath

/// `netpath`: network path status from the shell (SPEC §4).
///
/// Each command is a function that returns its ``ExitCode`` or throws a ``CommandError``
/// (swift-argument-parser's shape); `main` is the one place that prints the error and ends
/// the process. Other threads never end it: they open a ``Gate`` the main thread waits on.
@main
enum NetPathCommand {
    /// Exit statuses: 0 satisfied / done, 1 not satisfied / timed out, 2 usage, 3 runtime;
    /// `wait` ended by a signal: 128 + its number, as a shell reports it (130 SIGINT, 143
    /// SIGTERM), so `netpath wait && deploy` does not deploy after a Ctrl-C.
    enum ExitCode: Int32, Sendable {
        case success = 0, failure = 1, usage = 2, runtime = 3
        case interrupted = 130, terminated = 143

        /// The status of a command that a signal ended before it was done.
        static func ended(by signal: Signal) -> ExitCode { signal == .terminate ? .terminated : .interrupted }
    }

    /// Why a command ends early: one line for stderr, and the status.
    struct CommandError: Error, Sendable {
        var message: String
        var code: ExitCode

        init(_ message: String, _ code: ExitCode) {
            self.message = message
            self.code = code
        }

        /// A usage error (exit 2) from what the argument parser threw.
        static func usage(_ error: any Error) -> CommandError {
            CommandError((error as? Arguments.UsageError)?.message ?? "\(error)", .usage)
        }

        /// A runtime error (exit 3) from what the library threw.
        static func runtime(_ error: any Error) -> CommandError {
            CommandError((error as? NetPathError)?.description ?? "\(error)", .runtime)
        }
    }

    static func main() {
        Syscall.ignoreSignal(.brokenPipe)
        #if os(Linux)
        // One malloc arena: the monitor's thread would otherwise get one of its own, whose
        // pages stay resident after an event storm. Two threads (main, reader), mostly
        // asleep, need no more.
        Syscall.useOneMallocArena()
        #endif
        let code: ExitCode
        do {
            code = try command(Array(NetPathCommand.arguments.dropFirst()))
        } catch {
            // Commands throw only CommandError. (Not declared `throws(CommandError)`: the
            // Apple SDKs before iOS 18 cannot compile a typed throw, scripts/apple-link.sh.)
            let failure = error as? CommandError ?? CommandError("\(error)", .runtime)
            Terminal.report(failure.message)
            code = failure.code
        }
        finish(code)
    }

    /// Parses `words` and runs the command they name.
    static func command(_ words: [String]) throws -> ExitCode {
        let request: Arguments.Request
        do {
            request = try Arguments.parse(words)
        } catch {
            throw CommandError.usage(error)
        }
        switch request {
        case .help(let command):
            try Terminal.output(Array(Help.text(for: command).utf8))
            return .success
        case .version:
            try Terminal.output(Array("netpath \(Help.version)\n".utf8))
            return .success
        case .completions(let shell):
            try Terminal.output(Array(Completions.script(for: shell).utf8))
            return .success
        case .manpage:
            try Terminal.output(Array(ManPage.page().utf8))
            return .success
        case .run(let arguments):
            // Blocked before any thread exists, so every thread inherits the mask and only
            // the main thread takes them. SIGHUP re-reads `serve --web-config`; elsewhere it
            // keeps its default (the process ends).
            var numbers: [Signal] = [.interrupt, .terminate]
            if arguments.command == .serve && arguments.serving.webConfig != nil { numbers.append(.hangUp) }
            let signals: Signals
            do {
                signals = try Signals(numbers)
            } catch {
                throw CommandError("cannot make the main thread's event loop: \(error)", .runtime)
            }
            return try run(arguments, signals: signals)
        }
    }

    /// What every command needs from the arguments: the check, the namespace, the format.
    struct Session: Sendable {
        let arguments: Arguments
        let check: ConnectivityCheck?
        let namespace: NetworkNamespace?
        let color: Bool
        let signals: Signals
        /// Whether there is a check: kept, since `check != nil` copies the whole check (a large
        /// value) for every line `watch` writes.
        let withConnectivity: Bool

        init(arguments: Arguments, check: ConnectivityCheck?, namespace: NetworkNamespace?, color: Bool, signals: Signals) {
            self.arguments = arguments
            self.check = check
            self.namespace = namespace
            self.color = color
            self.signals = signals
            withConnectivity = check != nil
        }

        /// One line per path, with its newline, as bytes (built directly for JSON).
        func format(_ path: NetworkPath) -> [UInt8] {
            guard arguments.json else { return Array((Output.human(path, color: color) + "\n").utf8) }
            var line = JSONLine()
            line.appendJSON(path, connectivity: withConnectivity, unixTime: SystemClock.unixTime())
            line.append("\n")
            return line.bytes
        }

        /// The monitor's settings from the arguments, for `namespace`.
        func configuration(namespace: NetworkNamespace?) -> PathMonitor.Configuration {
            var configuration = PathMonitor.Configuration(
                requiredInterfaceType: arguments.paths.required, prohibitedInterfaceTypes: arguments.paths.prohibited,
                namespace: namespace, connectivityCheck: check, meteredInterfaces: arguments.paths.metered,
                constrainedInterfaces: arguments.paths.constrained, ultraConstrainedInterfaces: arguments.paths.ultraConstrained
            )
            configuration.ignoresDesktop = arguments.paths.ignoresDesktop
            return configuration
        }

        /// Made only by the commands that watch: `status` and `probe` read the path once,
        /// and a monitor's first use costs start-up time (generic metadata of its subscribers).
        /// The watched namespace deleted under it opens `ended` with the error (exit 3).
        /// `showsEarlyPasses`: whether one family's pass is shown before the other's check ends.
        /// `wait` and `status --probe` end: the desktop is followed only for what they answer
        /// (plain `wait` asks whether the path is satisfied, which the desktop never changes).
        func makeMonitor(ending ended: Gate<Result<ExitCode, CommandError>>, showsEarlyPasses: Bool = true,
                         checkObserver: (@Sendable (ConnectivityResult) -> Void)? = nil) -> PathMonitor {
            var configuration = self.configuration(namespace: namespace)
            let endsSoon = arguments.command != .watch
            if arguments.command == .wait && check == nil { configuration.ignoresDesktop = true }
            let monitor = PathMonitor(configuration: configuration, reader: nil, showsEarlyPasses: showsEarlyPasses,
                                      endsSoon: endsSoon, checkObserver: checkObserver)
            monitor.terminationHandler = { error in ended.open(.failure(CommandError(error.description, .runtime))) }
            return monitor
        }
    }

    static func run(_ arguments: Arguments, signals: Signals) throws -> ExitCode {
        let check: ConnectivityCheck?
        do {
            check = try arguments.connectivityCheck()
        } catch {
            throw CommandError.usage(error)
        }
        let session = Session(
            arguments: arguments, check: check, namespace: arguments.paths.namespace.map(resolvingProcessID),
            color: Syscall.isTerminal(.standardOutput) && (Syscall.environment("NO_COLOR")?.isEmpty ?? true),
            signals: signals
        )
        switch arguments.command {
        case .status where check == nil: return try status(session)
        case .status: return try statusWithCheck(session)
        case .watch: return try watch(session)
        case .wait: return try wait(session)
        case .probe: return try probe(session)
        case .serve:
            #if os(Linux)
            return try serve(session)
            #else
            throw CommandError("'netpath serve' runs on Linux only", .usage)
            #endif
        }
    }

    /// The command line as the kernel gave it: an argument that is not UTF-8 (a namespace
    /// named with any bytes) kept losslessly (``FileName``), where `CommandLine.arguments`
    /// would repair it into another name.
    static var arguments: [String] {
        (0..<Int(CommandLine.argc)).map { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return "" }
            var count = 0
            while argument[count] != 0 { count += 1 }
            return FileName.decode(Array(UnsafeRawBufferPointer(start: argument, count: count)))
        }
    }

    /// `--netns PID` as `ip link set netns` takes it: a number that names no `ip netns`
    /// namespace is a process, whose namespace is `/proc/PID/ns/net` (and its DNS servers
    /// that process's resolver file).
    static func resolvingProcessID(_ namespace: NetworkNamespace) -> NetworkNamespace {
        #if !os(Linux)
        return namespace  // namespaces are Linux's
        #else
        guard let name = namespace.name, !name.isEmpty,
              name.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              !Syscall.exists(namespace.path) else { return namespace }
        return .path("/proc/\(name)/ns/net")
        #endif
    }

    /// The path now, read once (no thread, no watch: the fastest start and exit).
    /// The path now, read once; `desktop: false` leaves out what the desktop knows (no bus
    /// is asked).
    static func readPath(_ session: Session, desktop: Bool = true) throws -> NetworkPath {
        var configuration = session.configuration(namespace: session.namespace)
        if !desktop { configuration.ignoresDesktop = true }
        do {
            return try PathMonitor.snapshot(configuration: configuration)
        } catch {
            throw CommandError.runtime(error)
        }
    }

    static func start(_ monitor: PathMonitor) throws {
        do {
            try monitor.start()
        } catch {
            throw CommandError.runtime(error)
        }
    }

    /// Ends the process at once, the one place that does. Output is written unbuffered, so
    /// nothing is lost; `_exit` avoids running exit handlers while another thread may be
    /// inside the monitor.
    static func finish(_ code: ExitCode) -> Never {
        Syscall.exitNow(code.rawValue)
    }
}
