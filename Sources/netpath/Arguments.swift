// The pure core is all the parser needs: the fuzzer compiles this file against it alone.
// (Where NetPath is compiled as one module, as Apple's SDK check does, that module.)
#if canImport(NetPathCore)
import NetPathCore
#else
import NetPath
#endif

/// The command line, parsed: a command and its options. Pure, so it is fuzzed and tested
/// without running anything.
struct Arguments: Equatable, Sendable {
    enum Command: String, CaseIterable, Sendable {
        case status, watch, wait, probe, serve
    }

    var command: Command
    /// `--help`: the command's help rather than a run (``parse(_:)`` answers ``Request/help(_:)``).
    var help = false
    /// `--json`: JSON Lines rather than words.
    var json = false
    /// `watch --count`: the lines to print before ending.
    var count: Int?
    /// `wait --timeout`: how long to wait.
    var timeout: Duration?
    /// The paths watched, and how they are judged.
    var paths = Paths()
    /// The connectivity check, if one is asked for.
    var check = Check()
    /// Where `serve` exports the metrics.
    var serving = Serving()

    /// The paths watched, and how they are judged: `--netns`, `--require`, `--metered`…
    struct Paths: Equatable, Sendable {
        /// `--netns` of `status`, `watch`, `wait` and `probe`: the one namespace watched, instead of ours.
        var namespace: NetworkNamespace?
        /// `serve --netns`: every namespace watched as well as ours, in order.
        var namespaces: [NetworkNamespace] = []
        /// `serve --all-namespaces`: every namespace of the node too (/run/netns, Docker's,
        /// processes'), as they come and go.
        var allNamespaces = false
        /// `--require`: the one interface type considered.
        var required: NetworkInterface.InterfaceType?
        /// `--prohibit`: interface types ignored.
        var prohibited: [NetworkInterface.InterfaceType] = []
        /// `--metered`: interface names and patterns (`enx*`) through which a path is expensive.
        var metered: [String] = []
        /// `--constrained`: the same for constrained paths.
        var constrained: [String] = []
        /// `--ultra-constrained`: the same for ultra-constrained paths.
        var ultraConstrained: [String] = []
        /// `--ignore-desktop`: the kernel's path only (no NetworkManager, networkd or portal).
        var ignoresDesktop = false
    }

    /// The connectivity check: `--probe` and the options that shape it (`probe` always checks).
    struct Check: Equatable, Sendable {
        /// `--probe`: check that the Internet answers.
        var requested = false
        /// `--url`: the endpoints, in order; none for the default endpoints.
        var urls: [String] = []
        /// `--expect-status`
        var expectStatus: Int?
        /// `--expect-body`: the text the bodies must start with.
        var expectBody: String?
        /// `--probe-timeout`, or `probe --timeout`: the bound on each check.
        var timeout: Duration?
        /// `probe --interface`: the interface to check over instead of the primary one.
        var interface: String?
        /// `--no-proxy`: requests sent directly, whatever the environment names.
        var noProxy = false
        /// `--allow-ultra-constrained`: checks on ultra-constrained paths too.
        var allowUltraConstrained = false
    }

    /// Where `serve` exports the metrics: HTTP addresses, systemd's sockets, a textfile.
    struct Serving: Equatable, Sendable {
        /// Every `--listen` (or `--web.listen-address`), in order.
        var listen: [String] = []
        /// `--systemd-socket`: also the listening sockets systemd passes.
        var systemdSocket = false
        /// `--textfile`: the `.prom` file rewritten on every change.
        var textfile: String?
        /// `--textfile-interval`: the longest time between two writes.
        var textfileInterval: Duration = .seconds(60)
        /// `--web-config`: exporter-toolkit's web configuration file.
        var webConfig: String?
        /// `--probe-interfaces`: a check over every interface that routes to the Internet,
        /// not only the primary one (implies `--probe`).
        var probeInterfaces = false
    }

    /// A usage error: one line that names the bad word; exit status 2.
    struct UsageError: Error, Equatable {
        var message: String
    }

    /// A shell `netpath completions` writes a script for.
    enum Shell: String, CaseIterable, Sendable {
        case bash, zsh, fish
    }

    /// What `netpath` was asked to do.
    enum Request: Equatable {
        case run(Arguments)
        case help(Command?)
        case version
        /// `netpath completions SHELL`: the shell's completion script, from ``options``.
        case completions(Shell)
        /// `netpath manpage`: netpath(1) in roff, from ``options``.
        case manpage
    }

    /// The words that ask for the tool's own files rather than the network: `completions`
    /// and `manpage`, listed after the commands.
    static let documentationWords = ["completions", "manpage"]

    /// One option, described once: its name, its value, the commands that take it, its
    /// help, and what it does to the arguments. Parsing, validation, usage lines and
    /// `--help` all come from ``options`` (swift-argument-parser's shape, by hand).
    struct Option: Sendable {
        var name: String
        var aliases: [String] = []
        /// The value's placeholder (`NAME`, `SECONDS`), or `nil` for a flag.
        var value: String?
        var commands: [Command]
        var repeatable = false
        /// Help lines; the first is the summary.
        var help: [String]
        var apply: @Sendable (inout Arguments, String, String) throws -> Void

        func takes(_ command: Command) -> Bool { commands.contains(command) }
    }

    static let allCommands = Command.allCases
    static let watching: [Command] = [.status, .watch, .wait]
    static let checking: [Command] = [.status, .watch, .wait, .serve]

    /// Every option, in the order `--help` lists them.
    static let options: [Option] = [
        Option(name: "--json", commands: [.status, .watch, .probe], help: ["JSON: one object per line (keys in the README)"]) { result, _, _ in
            result.json = true
        },
        // `status` checks once and prints the verdict; the others keep watching, and check
        // again on every change and, while the answer is not full, with a back-off.
        Option(name: "--probe", commands: [.status],
               help: ["also check once that the Internet answers and print the verdict (adds",
                      "connectivity and portalURL); waits at most --probe-timeout + 2 s for it"]) { result, _, _ in
            result.check.requested = true
        },
        Option(name: "--probe", commands: [.watch, .wait, .serve],
               help: ["also check that the Internet answers (adds connectivity and portalURL), on",
                      "every change and, while not full, again after 1 s, doubling to 5 min"]) { result, _, _ in
            result.check.requested = true
        },
        Option(name: "--probe-interfaces", commands: [.serve],
               help: ["also check each interface that routes to the Internet on its own (implies --probe):",
                      "netpath_interface_connectivity{interface=…}, on every change and on --probe's timing"]) { result, _, _ in
            result.check.requested = true
            result.serving.probeInterfaces = true
        },
        Option(name: "--netns", value: "NAME|PATH", commands: [.status, .watch, .wait, .probe],
               help: ["the network namespace NAME (ip netns), namespace file PATH",
                      "(/proc/PID/ns/net: a container's) or process PID, instead of our own"]) { result, value, option in
            result.paths.namespace = try namespace(value, option: option)
        },
        Option(name: "--netns", value: "NAME|PATH", commands: [.serve], repeatable: true,
               help: ["also watch the network namespace NAME (ip netns) or namespace file PATH"]) { result, value, option in
            result.paths.namespaces.append(try namespace(value, option: option))
        },
        Option(name: "--all-namespaces", commands: [.serve],
               help: ["also watch every network namespace named in /run/netns (ip netns: from the moment",
                      "it is added) and every other one with an interface besides lo: in Docker's",
                      "/var/run/docker/netns and those only processes are in (/proc/*/ns/net: containers,",
                      "unshare -n), found as they come (ip netns, or the host",
                      "giving one an ID when a veth, macvlan or tun peer enters it, or a new cgroup: rootless",
                      "Podman's) and go; each held by a pod or container is named by netpath_namespace_info"]) { result, _, _ in
            result.paths.allNamespaces = true
        },
        // exporter-toolkit's name too, for a unit written for node_exporter.
        Option(name: "--listen", aliases: ["--web.listen-address"], value: "ADDR:PORT", commands: [.serve], repeatable: true,
               help: ["serve /metrics over HTTP there (127.0.0.1:9737, [::1]:9737, :9737 for all)"]) { result, value, option in
            guard let address = ListenAddress.parse(value) else {
                throw UsageError(message: "invalid address '\(value)' for '\(option)' (HOST:PORT, [IPV6]:PORT or :PORT)")
            }
            guard address.host.isEmpty || IPAddress(address.host) != nil else {
                throw UsageError(message: "invalid address '\(value)' for '\(option)': '\(address.host)' is not an IP address")
            }
            result.serving.listen.append(value)
        },
        // exporter-toolkit's name too; as there, the sockets are the .socket unit's
        // ListenStream= (sd_listen_fds(3)); unlike there, with --listen both serve.
        Option(name: "--systemd-socket", aliases: ["--web.systemd-socket"], commands: [.serve],
               help: ["serve /metrics on the listening sockets systemd passes (socket activation:",
                      "LISTEN_FDS, LISTEN_PID), as well as at every --listen"]) { result, _, _ in
            result.serving.systemdSocket = true
        },
        Option(name: "--textfile", value: "FILE", commands: [.serve],
               help: ["write the metrics to FILE on every change, atomically (node_exporter's",
                      "textfile collector reads *.prom files)"]) { result, value, option in
            guard value.hasSuffix(".prom"), !value.hasSuffix("/") else {
                throw UsageError(message: "invalid file '\(value)' for '\(option)' (a file name ending in .prom, as node_exporter reads)")
            }
            result.serving.textfile = value
        },
        Option(name: "--textfile-interval", value: "SECONDS", commands: [.serve],
               help: ["rewrite the textfile at least this often (default 60), so that its",
                      "node_textfile_mtime_seconds shows netpath is alive"]) { result, value, option in
            result.serving.textfileInterval = .seconds(try number(value, option: option, in: 1...maximumSeconds, what: "seconds"))
        },
        Option(name: "--web-config", value: "FILE", commands: [.serve],
               help: ["TLS and basic auth for --listen and --systemd-socket, from exporter-toolkit's",
                      "web configuration file (node_exporter's --web.config.file); SIGHUP re-reads it"]) { result, value, _ in
            result.serving.webConfig = value
        },
        Option(name: "--require", value: "TYPE", commands: watching, help: ["consider only interfaces of TYPE"]) { result, value, option in
            result.paths.required = try interfaceType(value, option: option)
        },
        Option(name: "--prohibit", value: "TYPE", commands: [.status, .watch], repeatable: true,
               help: ["ignore interfaces of TYPE"]) { result, value, option in
            result.paths.prohibited.append(try interfaceType(value, option: option))
        },
        Option(name: "--metered", value: "NAMES", commands: [.status, .watch, .serve], repeatable: true,
               help: ["interfaces that are metered, comma-separated names or patterns",
                      "('enx*', 'usb?'): a path through one is expensive"]) { result, value, option in
            result.paths.metered += try interfacePatterns(value, option: option)
        },
        Option(name: "--constrained", value: "NAMES", commands: [.status, .watch, .serve], repeatable: true,
               help: ["the same for constrained paths"]) { result, value, option in
            result.paths.constrained += try interfacePatterns(value, option: option)
        },
        Option(name: "--ultra-constrained", value: "NAMES", commands: checking, repeatable: true,
               help: ["the same for ultra-constrained paths (satellite links): no check runs",
                      "on them unless --allow-ultra-constrained"]) { result, value, option in
            result.paths.ultraConstrained += try interfacePatterns(value, option: option)
        },
        Option(name: "--ignore-desktop", commands: [.status, .watch, .wait, .serve],
               help: ["read neither NetworkManager, networkd nor the Flatpak portal: the",
                      "kernel's path only, and --probe sends its own requests"]) { result, _, _ in
            result.paths.ignoresDesktop = true
        },
        Option(name: "--allow-ultra-constrained", commands: checking,
               help: ["run the --probe check on ultra-constrained paths too"]) { result, _, _ in
            result.check.allowUltraConstrained = true
        },
        Option(name: "--count", value: "N", commands: [.watch], help: ["stop after N lines"]) { result, value, option in
            result.count = Int(try number(value, option: option, in: 1...1_000_000_000, what: "a whole number of lines", whole: true))
        },
        Option(name: "--timeout", value: "SECONDS", commands: [.wait],
               help: ["give up after this long (default 30, at most 86400)"]) { result, value, option in
            result.timeout = .seconds(try number(value, option: option, in: 0...maximumSeconds, what: "seconds"))
        },
        Option(name: "--timeout", value: "SECONDS", commands: [.probe],
               help: ["bound on the check (default 5, at most 300)"]) { result, value, option in
            result.check.timeout = .seconds(try number(value, option: option, in: 0...maximumCheckSeconds, what: "the check's seconds", aboveLower: true))
        },
        Option(name: "--interface", value: "NAME", commands: [.probe],
               help: ["check over the interface NAME (eth1, wwan0) instead of the path's primary one;",
                      "only the families it routes are checked"]) { result, value, option in
            // IFNAMSIZ (16) with the NUL; the kernel refuses '/', ':' and white space.
            guard !value.isEmpty, value.utf8.count < 16, value != ".", value != "..",
                  !value.contains(where: { $0 == "/" || $0 == ":" || $0.isWhitespace || $0 == "\0" }) else {
                throw UsageError(message: "invalid interface name '\(value)' for '\(option)'")
            }
            result.check.interface = value
        },
        Option(name: "--url", value: "URL", commands: allCommands, repeatable: true,
               help: ["an http:// or https:// endpoint for the check; default: five operators' over HTTP and Google's over HTTPS"]) { result, value, _ in
            result.check.urls.append(value)
        },
        Option(name: "--expect-status", value: "N", commands: allCommands,
               help: ["the status the endpoints must answer (default: 204, or 200 with an empty body)"]) { result, value, option in
            result.check.expectStatus = Int(try number(value, option: option, in: 100...599, what: "an HTTP status", whole: true))
        },
        Option(name: "--expect-body", value: "TEXT", commands: allCommands,
               help: ["text the endpoints' bodies must start with"]) { result, value, _ in
            result.check.expectBody = value
        },
        Option(name: "--probe-timeout", value: "SECONDS", commands: checking,
               help: ["bound on each check (default 5, at most 300)"]) { result, value, option in
            result.check.timeout = .seconds(try number(value, option: option, in: 0...maximumCheckSeconds, what: "the check's seconds", aboveLower: true))
        },
        Option(name: "--no-proxy", commands: allCommands,
               help: ["send the check's requests directly, never through the proxy that",
                      "http_proxy, https_proxy or all_proxy names (they are honoured as curl",
                      "does, with no_proxy; http:// and SOCKS5 proxies)"]) { result, _, _ in
            result.check.noProxy = true
        },
        Option(name: "--help", aliases: ["-h"], commands: allCommands, help: ["this text"]) { result, _, _ in
            result.help = true
        },
    ]

    /// The option `word` names for `command` (an option may be described once per command
    /// when its default or range differs), or any option of that name.
    static func option(named word: String, for command: Command) -> Option? {
        let named = options.filter { $0.name == word || $0.aliases.contains(word) }
        return named.first { $0.takes(command) } ?? named.first
    }

    /// Parses `words` (the arguments after the program name).
    ///
    /// - Throws: ``UsageError`` naming the first word that is wrong.
    static func parse(_ words: [String]) throws -> Request {
        guard let first = words.first else {
            throw UsageError(message: "missing command (\(commandList)); see 'netpath --help'")
        }
        if let request = try textRequest(words) { return request }
        guard let command = Command(rawValue: first) else {
            if first.hasPrefix("-") {
                throw UsageError(message: "unknown option '\(first)': a command comes first (\(commandList))")
            }
            throw UsageError(message: "unknown command '\(first)' (expected \(commandList))")
        }
        let result = try options(words.dropFirst(), of: command)
        if result.help { return .help(command) }
        try result.validate()
        return .run(result)
    }

    /// Every command, as an error that names them lists them.
    static let commandList = Command.allCases.map(\.rawValue).joined(separator: ", ") + ", completions, manpage or help"

    /// The request `words` make when they ask for one of the tool's own texts (help, version,
    /// completion script, manual page), or `nil` when they name a command.
    ///
    /// - Throws: ``UsageError`` for a missing or unknown shell, or a word too many.
    static func textRequest(_ words: [String]) throws -> Request? {
        let asksHelp = words.dropFirst().contains { $0 == "--help" || $0 == "-h" }
        switch words[0] {
        case "--help", "-h", "help":
            guard words.count > 1 else { return .help(nil) }
            if let command = Command(rawValue: words[1]) { return .help(command) }
            // The text commands and `help` itself are described in the general help.
            guard ["completions", "manpage", "help", "--help", "-h"].contains(words[1]) else {
                throw UsageError(message: "unknown command '\(words[1])' for 'netpath help' (expected \(commandList))")
            }
            return .help(nil)
        case "--version":
            return .version
        case "completions" where asksHelp, "manpage" where asksHelp:
            return .help(nil)
        case "completions":
            let shells = Shell.allCases.map(\.rawValue).joined(separator: ", ")
            guard words.count > 1 else { throw UsageError(message: "'netpath completions' needs a shell (\(shells))") }
            guard let shell = Shell(rawValue: words[1]) else {
                throw UsageError(message: "unknown shell '\(words[1])' for 'netpath completions' (\(shells))")
            }
            guard words.count == 2 else { throw UsageError(message: "unexpected argument '\(words[2])' for 'netpath completions'") }
            return .completions(shell)
        case "manpage":
            guard words.count == 1 else { throw UsageError(message: "unexpected argument '\(words[1])' for 'netpath manpage'") }
            return .manpage
        default:
            return nil
        }
    }

    /// `command`'s options, each applied in turn from the table.
    ///
    /// - Throws: ``UsageError`` for a word that is no option of `command`, an option given
    ///   twice, a missing or unexpected value, or a value the option refuses.
    static func options(_ words: ArraySlice<String>, of command: Command) throws -> Arguments {
        var result = Arguments(command: command)
        var given: [String] = []
        var rest = words
        while let word = rest.popFirst() {
            let (name, inlineValue) = split(word)
            guard name.hasPrefix("-") else {
                throw UsageError(message: "unexpected argument '\(name)' for 'netpath \(command.rawValue)'")
            }
            guard let option = option(named: name, for: command) else {
                throw UsageError(message: "unknown option '\(name)' for 'netpath \(command.rawValue)'")
            }
            guard option.takes(command) else {
                throw UsageError(message: "option '\(name)' does not apply to 'netpath \(command.rawValue)'")
            }
            guard option.repeatable || option.value == nil || !given.contains(option.name) else {
                throw UsageError(message: "option '\(option.name)' given twice")
            }
            given.append(option.name)
            let value: String
            if option.value == nil {
                guard inlineValue == nil else { throw UsageError(message: "option '\(name)' takes no value") }
                value = ""
            } else {
                guard let next = inlineValue ?? rest.popFirst() else { throw UsageError(message: "option '\(name)' needs a value") }
                value = next
            }
            try option.apply(&result, value, option.name)
        }
        return result
    }

    /// The rules between options, which no one option can check.
    ///
    /// - Throws: ``UsageError`` naming the options that do not go together.
    func validate() throws {
        if command == .serve && serving.listen.isEmpty && !serving.systemdSocket && serving.textfile == nil {
            throw UsageError(message: "'netpath serve' needs '--listen ADDR:PORT', '--systemd-socket' or '--textfile FILE' (or several)")
        }
        if serving.webConfig != nil && serving.listen.isEmpty && !serving.systemdSocket {
            throw UsageError(message: "'--web-config' applies to '--listen' and '--systemd-socket', neither of which is given")
        }
        if let required = paths.required, paths.prohibited.contains(required) {
            throw UsageError(message: "interface type '\(required.rawValue)' is both required and prohibited")
        }
    }

    /// `--name=value` as its two parts; any other word whole.
    static func split(_ word: String) -> (String, String?) {
        guard word.hasPrefix("--"), let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }

    /// One day: longer timeouts are surely a mistake (`systemd` uses minutes, not weeks).
    static let maximumSeconds = 86_400.0
    /// Five minutes: the longest one connectivity check may take.
    static let maximumCheckSeconds = 300.0

    /// The one number parser, with the one wording: decimal only (no hex, no `nan`, no
    /// infinity), 
    /// within `range` (above its lower bound, not at it, when `aboveLower`).
    ///
    /// - Throws: ``UsageError``: "invalid … 'TEXT' for 'OPTION' (WHAT, from LOW to HIGH)".
    static func number(_ text: String, option: String, in range: ClosedRange<Double>, what: String,
                       whole: Bool = false, aboveLower: Bool = false) throws -> Double {
        let digits = text.hasPrefix("-") ? text.dropFirst() : Substring(text)
        let decimal = digits.first.map { $0.isASCII && ($0.isNumber || $0 == ".") } == true && digits.allSatisfy { character in
            character.isASCII && (character.isNumber || (!whole && ".eE+-".contains(character)))
        }
        func bounds() -> String {
            func show(_ value: Double) -> String { value == value.rounded() ? String(Int(value)) : String(value) }
            let low = show(range.lowerBound), high = show(range.upperBound)
            return aboveLower ? "\(what), more than \(low) and at most \(high)" : "\(what), from \(low) to \(high)"
        }
        guard decimal, let value = Double(text), value.isFinite, !whole || value == value.rounded() else {
            throw UsageError(message: "invalid value '\(text)' for '\(option)' (\(bounds()))")
        }
        guard range.contains(value), !aboveLower || value > range.lowerBound else {
            throw UsageError(message: "value '\(text)' for '\(option)' is out of range (\(bounds()))")
        }
        return value
    }

    /// The interface types TYPE names, as help, errors and completions list them.
    static let typeList = ["wifi", "cellular", "wiredEthernet", "loopback", "other"]

    static let typeNames: [String: NetworkInterface.InterfaceType] = [
        "wifi": .wifi, "cellular": .cellular, "wiredEthernet": .wiredEthernet, "ethernet": .wiredEthernet,
        "wired": .wiredEthernet, "loopback": .loopback, "other": .other,
    ]

    /// The connectivity check the options ask for: for `probe` always, else with `--probe`.
    ///
    /// - Throws: ``UsageError`` naming a malformed URL or an expectation without `--url`.
    func connectivityCheck() throws -> ConnectivityCheck? {
        guard command == .probe || check.requested else {
            if !check.urls.isEmpty || check.expectStatus != nil || check.expectBody != nil || check.timeout != nil || check.noProxy
                || check.allowUltraConstrained {
                throw UsageError(message: "'--url', '--expect-status', '--expect-body', '--probe-timeout', '--no-proxy' and '--allow-ultra-constrained' need '--probe'")
            }
            return nil
        }
        if check.urls.isEmpty && (check.expectStatus != nil || check.expectBody != nil) {
            throw UsageError(message: "'--expect-status' and '--expect-body' need '--url' (the default endpoints have their own answers)")
        }
        let expectation = ConnectivityCheck.Expectation(status: check.expectStatus, bodyPrefix: check.expectBody)
        var endpoints: [ConnectivityCheck.Endpoint] = []
        for url in check.urls {
            do {
                endpoints.append(try ConnectivityCheck.Endpoint(url, expecting: expectation))
            } catch let error as NetPathError {
                throw UsageError(message: error.message)
            }
        }
        do {
            // The option's range was checked where it was parsed; the library checks again.
            return try ConnectivityCheck(endpoints: endpoints.isEmpty ? ConnectivityCheck.defaultEndpoints : endpoints,
                                         timeout: check.timeout ?? .seconds(5), allowsUltraConstrainedPaths: check.allowUltraConstrained,
                                         // The environment, read once, at the first check, as curl reads it.
                                         proxy: check.noProxy ? .none : .environment)
        } catch let error as NetPathError {
            throw UsageError(message: error.message)
        }
    }

    /// Interface names or patterns (`usb0`, `enx*`), separated by commas.
    static func interfacePatterns(_ text: String, option: String) throws -> [String] {
        let patterns = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        for pattern in patterns {
            // An interface name is 1 to 15 bytes with no '/' or white space (IFNAMSIZ);
            // a pattern may be a little longer for its '*'s.
            guard !pattern.isEmpty, pattern.utf8.count <= 64,
                  !pattern.contains(where: { $0 == "/" || $0.isWhitespace }) else {
                throw UsageError(message: "invalid interface name or pattern '\(pattern)' for '\(option)' (for example usb0 or 'enx*')")
            }
        }
        return patterns
    }

    /// A namespace name (`ip netns`) or an absolute namespace file path; a number is
    /// resolved later (``NetPathCommand/resolvingProcessID(_:)``).
    static func namespace(_ value: String, option: String) throws -> NetworkNamespace {
        if value.hasPrefix("/") { return .path(value) }
        let named = NetworkNamespace.named(value)
        guard named.hasValidName else {
            let shown = value.count > 64 ? value.prefix(64) + "…" : value
            throw UsageError(message: "invalid namespace name '\(shown)' for '\(option)' (an ip netns name of at most 255 bytes, or a path such as /proc/PID/ns/net)")
        }
        return named
    }

    static func interfaceType(_ text: String, option: String) throws -> NetworkInterface.InterfaceType {
        guard let type = typeNames[text] else {
            throw UsageError(message: "unknown interface type '\(text)' for '\(option)' (\(typeList.joined(separator: ", ")))")
        }
        return type
    }
}

