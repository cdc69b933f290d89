import NetPath

/// `netpath manpage`: netpath(1) in roff (the man(7) macros), made from ``Arguments/options``
/// and the texts of ``Help``, so that the page lists what the parser takes.
enum ManPage {
    /// `text` as roff input: backslashes and hyphens escaped (`\-` is the minus an option
    /// is typed with), and a line that would start with a control character made plain.
    static func escaped(_ text: String) -> String {
        let body = text.replacingAll("\\", with: "\\e").replacingAll("-", with: "\\-")
        return body.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.first == "." || line.first == "'" ? "\\&" + line : String(line)
        }.joined(separator: "\n")
    }

    /// A text wrapped for the terminal (`Help`'s lines), as one paragraph: roff fills it.
    static func paragraph(_ text: String) -> String {
        escaped(text.split(separator: "\n").joined(separator: " "))
    }

    /// A command's synopsis: the command bold, each option a bracketed group that a line
    /// does not break inside, as ``Help/usage(_:)`` lists them.
    static func synopsis(_ command: Arguments.Command) -> String {
        var text = ".B netpath " + command.rawValue + "\n"
        for option in Arguments.options where option.takes(command) && option.name != "--help" {
            let value = option.value.map { "\\ \\fI" + escaped($0) + "\\fR" } ?? ""
            text += "[\\fB" + escaped(option.name) + "\\fR" + value + "]" + (option.repeatable ? "..." : "") + "\n"
        }
        return text + ".br\n"
    }

    /// An option's names as the page shows them: short ones (`-h`) first, as man pages do.
    static func displayNames(of option: Arguments.Option) -> [String] {
        let names = Completions.names(of: option)
        return names.filter { !$0.hasPrefix("--") } + names.filter { $0.hasPrefix("--") }
    }

    /// One option's entry: its names in bold, its value in italics, its help.
    static func entry(_ option: Arguments.Option) -> String {
        let names = displayNames(of: option).map { "\\fB" + escaped($0) + "\\fR" }.joined(separator: ", ")
        var text = ".TP\n" + names + (option.value.map { " \\fI" + escaped($0) + "\\fR" } ?? "") + "\n"
        text += escaped(Completions.help(of: option)) + (option.repeatable ? " (repeatable)" : "") + "\n"
        return text
    }

    static func page() -> String {
        var text = """
        .\\" netpath(1), made by `netpath manpage` from the tool's option table.
        .TH NETPATH 1 "" "netpath \(Help.version)" "User Commands"
        .\\" Option names and values are not hyphenated.
        .nh
        .SH NAME
        netpath \\- network path status, in real time, from the kernel
        .SH SYNOPSIS
        .ad l

        """
        for command in Arguments.Command.allCases { text += synopsis(command) }
        for (usage, _) in Help.documentation { text += ".B " + escaped(usage) + "\n.br\n" }
        text += ".B netpath\n[\\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR]\n"
        text += """
        .ad
        .SH DESCRIPTION
        .B netpath
        says whether this host, or a network namespace, can reach the network, over what kind of
        interface, and why not when it cannot: from the kernel's routing tables (rtnetlink), as they
        change, without polling. It prints one line per path in words, or JSON Lines with
        .BR \\-\\-json ;
        with
        .B \\-\\-probe
        it also checks that the Internet answers, or that a captive portal does.
        .B serve
        exports the paths as Prometheus metrics.
        .SH COMMANDS

        """
        for command in Arguments.Command.allCases {
            let about = Help.summary(command)
            text += ".SS " + escaped(command.rawValue) + "\n" + paragraph(about.text) + "\n"
            for option in Arguments.options where option.takes(command) { text += entry(option) }
            text += ".PP\nExit status: " + escaped(about.exit) + ".\n"
        }
        for (word, (usage, summary)) in zip(Arguments.documentationWords, Help.documentation) {
            text += ".SS " + escaped(word) + "\n.B " + escaped(usage) + "\n.br\n" + escaped(summary.prefix(1).uppercased() + summary.dropFirst()) + ".\n"
        }
        text += """
        .SH "INTERFACE TYPES"
        TYPE is one of \(escaped(Arguments.typeList.joined(separator: ", "))).
        .SH "EXIT STATUS"
        .TP
        .B 0
        satisfied, or done
        .TP
        .B 1
        not satisfied, or timed out
        .TP
        .B 2
        usage error: one line on standard error names the word that is wrong
        .TP
        .B 3
        runtime error: one line on standard error says why
        .TP
        .BR 130 ", " 143
        .BR wait ", " probe " or " "status \\-\\-probe"
        ended by SIGINT or SIGTERM before its answer
        .SH ENVIRONMENT
        .TP
        .B NO_COLOR
        when set and not empty, the human output has no colour (it has colour only on a terminal)
        .SH FILES
        .TP
        .I /run/netns
        the namespaces that
        .B ip netns
        names, for
        .B \\-\\-netns NAME
        and
        .B serve \\-\\-all\\-namespaces
        .SH "SEE ALSO"
        .BR ip\\-netns (8),
        .BR systemd.service (5),
        .BR prometheus (1)

        """
        return text
    }
}
