import NetPath

/// The command line, parsed: a command and its options. Pure, so it is fuzzed and tested
/// without running anything.
struct Arguments: Equatable {
    enum Command: String, CaseIterable {
        case status, watch, wait, probe
    }

    var command: Command
    var help = false
    var json = false
    var probe = false
    var namespace: String?
    var required: NetworkInterface.InterfaceType?
    var prohibited: [NetworkInterface.InterfaceType] = []
    var metered: [String] = []
    var constrained: [String] = []
    var count: Int?
    var timeout: Double?
    var urls: [String] = []
    var expectStatus: Int?
    var expectBody: String?
    var probeTimeout: Double?

    /// A usage error: one line that names the bad word; exit status 2.
    struct UsageError: Error, Equatable {
        var message: String
    }

    /// What `netpath` was asked to do.
    enum Request: Equatable {
        case run(Arguments)
        case help(Command?)
        case version
    }

    /// Which options each command takes (SPEC §4).
    static func accepts(_ option: String, _ command: Command) -> Bool {
        switch option {
        case "--json": return command != .wait
        case "--probe": return command != .probe
        case "--netns", "--help", "-h": return true
        case "--require": return command != .probe
        case "--prohibit", "--metered", "--constrained": return command == .status || command == .watch
        case "--count": return command == .watch
        case "--timeout": return command == .wait || command == .probe
        case "--url", "--expect-status", "--expect-body": return true
        case "--probe-timeout": return command != .probe
        default: return false
        }
    }

    static let valueOptions: [String] = [
        "--netns", "--require", "--prohibit", "--count", "--timeout", "--url", "--expect-status",
        "--expect-body", "--probe-timeout", "--metered", "--constrained",
    ]

    /// Parses `words` (the arguments after the program name).
    ///
    /// - Throws: ``UsageError`` naming the first word that is wrong.
    static func parse(_ words: [String]) throws -> Request {
        guard let first = words.first else {
            throw UsageError(message: "missing command (status, watch, wait or probe); see 'netpath --help'")
        }
        if first == "--help" || first == "-h" || first == "help" {
            if words.count > 1, let command = Command(rawValue: words[1]) { return .help(command) }
            return .help(nil)
        }
        if first == "--version" { return .version }
        guard let command = Command(rawValue: first) else {
            if first.hasPrefix("-") {
                throw UsageError(message: "unknown option '\(first)': a command comes first (status, watch, wait or probe)")
            }
            throw UsageError(message: "unknown command '\(first)' (expected status, watch, wait or probe)")
        }
        var result = Arguments(command: command)
        var index = 1
        while index < words.count {
            var word = words[index]
            var inlineValue: String?
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                inlineValue = String(word[word.index(after: equals)...])
                word = String(word[..<equals])
            }
            index += 1
            guard word.hasPrefix("-") else {
                throw UsageError(message: "unexpected argument '\(word)' for 'netpath \(command.rawValue)'")
            }
            let known = valueOptions.contains(word) || ["--json", "--probe", "--help", "-h"].contains(word)
            guard known else {
                throw UsageError(message: "unknown option '\(word)' for 'netpath \(command.rawValue)'")
            }
            guard accepts(word, command) else {
                throw UsageError(message: "option '\(word)' does not apply to 'netpath \(command.rawValue)'")
            }
            var value = ""
            if valueOptions.contains(word) {
                if let inlineValue {
                    value = inlineValue
                } else {
                    guard index < words.count else { throw UsageError(message: "option '\(word)' needs a value") }
                    value = words[index]
                    index += 1
                }
            } else if inlineValue != nil {
                throw UsageError(message: "option '\(word)' takes no value")
            }
            switch word {
            case "--help", "-h": result.help = true
            case "--json": result.json = true
            case "--probe": result.probe = true
            case "--netns":
                guard !value.isEmpty, !value.contains("/"), value != ".", value != ".." else {
                    throw UsageError(message: "invalid namespace name '\(value)' for '--netns'")
                }
                guard result.namespace == nil else { throw UsageError(message: "option '--netns' given twice") }
                result.namespace = value
            case "--require":
                guard result.required == nil else { throw UsageError(message: "option '--require' given twice") }
                result.required = try interfaceType(value, option: word)
            case "--prohibit":
                result.prohibited.append(try interfaceType(value, option: word))
            case "--metered":
                result.metered += try interfacePatterns(value, option: word)
            case "--constrained":
                result.constrained += try interfacePatterns(value, option: word)
            case "--count":
                guard let count = Int(value), count > 0 else {
                    throw UsageError(message: "invalid count '\(value)' for '--count' (a whole number of lines, at least 1)")
                }
                result.count = count
            case "--timeout", "--probe-timeout":
                let seconds = try parseSeconds(value, option: word)
                if word == "--timeout" { result.timeout = seconds } else { result.probeTimeout = seconds }
            case "--url":
                result.urls.append(value)
            case "--expect-status":
                guard let status = Int(value), (100...599).contains(status) else {
                    throw UsageError(message: "invalid HTTP status '\(value)' for '--expect-status' (100 to 599)")
                }
                result.expectStatus = status
            case "--expect-body":
                result.expectBody = value
            default:
                break
            }
        }
        if result.help { return .help(command) }
        if let required = result.required, result.prohibited.contains(required) {
            throw UsageError(message: "interface type '\(required.rawValue)' is both required and prohibited")
        }
        return .run(result)
    }

    /// One day: longer timeouts are surely a mistake (`systemd` uses minutes, not weeks).
    static let maximumSeconds = 86_400.0

    static func parseSeconds(_ text: String, option: String) throws -> Double {
        guard let seconds = Double(text), seconds.isFinite, !text.lowercased().contains("n") else {
            throw UsageError(message: "invalid number of seconds '\(text)' for '\(option)'")
        }
        guard seconds >= 0 else { throw UsageError(message: "negative timeout '\(text)' for '\(option)'") }
        guard seconds <= maximumSeconds else {
            throw UsageError(message: "timeout '\(text)' for '\(option)' is too long (at most \(Int(maximumSeconds)) seconds)")
        }
        return seconds
    }

    static let typeNames: [String: NetworkInterface.InterfaceType] = [
        "wifi": .wifi, "cellular": .cellular, "wiredEthernet": .wiredEthernet, "ethernet": .wiredEthernet,
        "wired": .wiredEthernet, "loopback": .loopback, "other": .other,
    ]

    /// The connectivity check the options ask for: for `probe` always, else with `--probe`.
    ///
    /// - Throws: ``UsageError`` naming a malformed URL or an expectation without `--url`.
    func connectivityCheck() throws -> ConnectivityCheck? {
        guard command == .probe || probe else {
            if !urls.isEmpty || expectStatus != nil || expectBody != nil || probeTimeout != nil {
                throw UsageError(message: "'--url', '--expect-status', '--expect-body' and '--probe-timeout' need '--probe'")
            }
            return nil
        }
        if urls.isEmpty && (expectStatus != nil || expectBody != nil) {
            throw UsageError(message: "'--expect-status' and '--expect-body' need '--url' (the default endpoints have their own answers)")
        }
        let expectation = ConnectivityCheck.Expectation(status: expectStatus, bodyPrefix: expectBody)
        var endpoints: [ConnectivityCheck.Endpoint] = []
        for url in urls {
            do {
                endpoints.append(try ConnectivityCheck.Endpoint(url, expecting: expectation))
            } catch let error as NetPathError {
                throw UsageError(message: error.message)
            }
        }
        let seconds = (command == .probe ? timeout : probeTimeout) ?? 5
        guard seconds > 0 else { throw UsageError(message: "the check's timeout must be more than 0 seconds") }
        guard seconds <= 300 else { throw UsageError(message: "the check's timeout must be at most 300 seconds") }
        return ConnectivityCheck(endpoints: endpoints.isEmpty ? ConnectivityCheck.defaultEndpoints : endpoints, timeout: seconds,
                                 resolutionTimeout: min(3, seconds))
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

    static func interfaceType(_ text: String, option: String) throws -> NetworkInterface.InterfaceType {
        guard let type = typeNames[text] else {
            throw UsageError(message: "unknown interface type '\(text)' for '\(option)' (wifi, cellular, wiredEthernet, loopback, other)")
        }
        return type
    }
}
