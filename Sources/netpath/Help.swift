import NetPath

/// The `--help` texts, made from ``Arguments/options``: every option a command takes is
/// listed, with the limits the parser enforces.
enum Help {
    static let version = "0.1.0"

    static func seconds(_ duration: Duration) -> String {
        number(duration.seconds) + " s"
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value))" : "\(value)"
    }

    /// What each command does, and its exit statuses.
    static func summary(_ command: Arguments.Command) -> (line: String, text: String, exit: String) {
        switch command {
        case .status:
            ("print the current path once; exit 0 if satisfied, 1 if not",
             "Prints the current network path once.",
             "0 satisfied, 1 not satisfied, 2 usage error, 3 runtime error; with --probe, 130 SIGINT,\n143 SIGTERM while the check runs")
        case .watch:
            ("print the current path, then one line per change, until Ctrl-C",
             "Prints the current path at once, then one line per change, flushed as written,\nuntil SIGINT/SIGTERM (exit 0) or --count lines.",
             "0 done, 2 usage error, 3 runtime error")
        case .wait:
            ("exit 0 as soon as the path is satisfied, 1 after the timeout (30 s)",
             "Waits until the path is satisfied (it watches; it does not poll); with --probe, until\nthe Internet answers. On timeout, one line on stderr says what it waited for.",
             "0 satisfied, 1 timed out, 2 usage error, 3 runtime error, 130 SIGINT, 143 SIGTERM")
        case .probe:
            ("check now that the Internet answers (or a captive portal does); exit 0 if it does",
             "Checks once, now, that the Internet answers over the primary interface: HTTP\nGETs (https:// over verified TLS), redirects not followed, every endpoint at once. Results: full, portal (with the\nlogin URL), limited (no HTTP answer), local (no DNS), offline (no network path).",
             "0 full, 1 otherwise, 2 usage error, 3 runtime error, 130 SIGINT, 143 SIGTERM")
        case .serve:
            ("export the path of this host and of namespaces as Prometheus metrics",
             "Serves the path of this host, and of every namespace asked for, as Prometheus metrics:\nGET /metrics on --listen and on the sockets systemd passes (--systemd-socket), and/or a\nfile for node_exporter's textfile collector (--textfile), rewritten on every change. With --web-config, HTTPS and basic auth as\nnode_exporter's --web.config.file has them; SIGHUP re-reads that file (a bad file is\nreported and the previous configuration kept). Runs until SIGINT/SIGTERM.",
             "0 done (SIGINT/SIGTERM), 2 usage error, 3 runtime error (the address cannot be listened\non, systemd passed no socket, the textfile cannot be written, the web configuration cannot\nbe used)")
        }
    }

    /// The usage and summary of `completions` and `manpage`, in ``Arguments/documentationWords``' order.
    static let documentation = [
        ("netpath completions " + Arguments.Shell.allCases.map(\.rawValue).joined(separator: "|"),
         "print the shell's completion script (where to install it: the README, \"Completions\")"),
        ("netpath manpage", "print the manual page netpath(1), in roff (man -l <(netpath manpage))"),
    ]

    /// `netpath COMMAND [--option VALUE]...`, from the options the command takes.
    static func usage(_ command: Arguments.Command) -> String {
        var words = ["netpath", command.rawValue]
        for option in Arguments.options where option.takes(command) && option.name != "--help" {
            words.append("[" + option.name + (option.value.map { " " + $0 } ?? "") + "]" + (option.repeatable ? "..." : ""))
        }
        return words.joined(separator: " ")
    }

    static func pad(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    /// `netpath --help` without a command: the overview; with one, the command's help.
    static func text(for command: Arguments.Command?) -> String {
        command.map(text(of:)) ?? overview()
    }

    /// Every command's usage and summary, and what they share (types, exit statuses).
    static func overview() -> String {
        var text = "netpath — network path status, in real time, from the kernel\n\nUsage:\n"
        for command in Arguments.Command.allCases { text += "  " + usage(command) + "\n" }
        for (usage, _) in documentation { text += "  " + usage + "\n" }
        text += "\nCommands:\n"
        for command in Arguments.Command.allCases {
            text += "  " + pad(command.rawValue, to: 13) + summary(command).line + "\n"
        }
        for (word, (_, line)) in zip(Arguments.documentationWords, documentation) {
            text += "  " + pad(word, to: 13) + line + "\n"
        }
        text += """

        TYPE is one of \(Arguments.typeList.joined(separator: ", ")) (wiredEthernet also as wired or ethernet).
        Exit status: 0 satisfied/full/done, 1 not satisfied/not full/timed out, 2 usage error,
        3 runtime error; wait, probe and status --probe ended by SIGINT/SIGTERM: 130/143.
        Run 'netpath COMMAND --help' for a command's options, 'netpath --version' for the version.

        """
        return text
    }

    /// `netpath COMMAND --help`: its usage, what it does, every option it takes (names and
    /// value in a column of 24, the help beside or under them), and its exit statuses.
    static func text(of command: Arguments.Command) -> String {
        let about = summary(command)
        var text = "Usage: " + usage(command) + "\n\n" + about.text + "\n"
        let indent = String(repeating: " ", count: 24)
        for option in Arguments.options where option.takes(command) {
            let head = "  " + ([option.name] + option.aliases).joined(separator: ", ") + (option.value.map { " " + $0 } ?? "")
            for (position, line) in option.help.enumerated() {
                let prefix = position == 0 ? (head.count < 24 ? pad(head, to: 24) : head + "\n" + indent) : indent
                text += prefix + line + (position == option.help.count - 1 && option.repeatable ? " (repeatable)" : "") + "\n"
            }
        }
        text += "Exit status: " + about.exit + ".\n"
        return text
    }
}
