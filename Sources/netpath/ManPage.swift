import NetPath

/// `netpath manpage`: netpath(1) in roff (the man(7) macros), made from ``Arguments/options``,
/// the texts of ``Help`` and the table of ``sections``, so that the page lists what the
/// parser takes.
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

    /// netpath(1): the title, then the sections in man-pages(7)'s order.
    static func page() -> String {
        var text = """
        .\\" netpath(1), made by `netpath manpage` from the tool's option table.
        .TH NETPATH 1 "" "netpath \(Help.version)" "User Commands"
        .\\" Option names and values are not hyphenated.
        .nh
        .SH NAME
        netpath \\- network path status, in real time, from the kernel

        """
        text += synopsisSection() + description + commandsSection()
        for section in sections { text += section.roff }
        return text
    }

    /// SYNOPSIS: a synopsis per command, then the words that print the tool's own files.
    static func synopsisSection() -> String {
        var text = ".SH SYNOPSIS\n.ad l\n"
        for command in Arguments.Command.allCases { text += synopsis(command) }
        for (usage, _) in Help.documentation { text += ".B " + escaped(usage) + "\n.br\n" }
        return text + ".B netpath\n[\\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR]\n.ad\n"
    }

    static let description = """
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

        """

    /// COMMANDS: a subsection per command, with every option it takes and its exit statuses,
    /// then one per word that prints the tool's own files.
    static func commandsSection() -> String {
        var text = ".SH COMMANDS\n"
        for command in Arguments.Command.allCases {
            let about = Help.summary(command)
            text += ".SS " + escaped(command.rawValue) + "\n" + paragraph(about.text) + "\n"
            for option in Arguments.options where option.takes(command) { text += entry(option) }
            text += ".PP\nExit status: " + escaped(about.exit) + ".\n"
        }
        for (word, (usage, summary)) in zip(Arguments.documentationWords, Help.documentation) {
            text += ".SS " + escaped(word) + "\n.B " + escaped(usage) + "\n.br\n" + escaped(summary.prefix(1).uppercased() + summary.dropFirst()) + ".\n"
        }
        return text
    }

    /// A section after the commands: a paragraph, or tagged paragraphs (`.TP`), or both.
    struct Section: Sendable {
        var heading: String
        /// Text in ``ManPage/marked(_:)``'s markup; empty for none.
        var text = ""
        var entries: [Entry] = []

        /// One tagged paragraph: the names it is about, and what they mean.
        struct Entry: Sendable {
            /// Set in bold (what is typed: a status, a variable), or in italics (a file),
            /// as man-pages(7) sets them; several are separated by commas in roman.
            var terms: [String]
            var italic = false
            /// Text in ``ManPage/marked(_:)``'s markup.
            var text: String
        }

        var roff: String {
            var roff = ".SH " + (heading.contains(" ") ? "\"" + heading + "\"" : heading) + "\n"
            if !text.isEmpty { roff += marked(text) + "\n" }
            for entry in entries {
                let font = entry.italic ? "I" : "B"
                // A macro's arguments are separated by spaces: a term with one is quoted.
                let terms = entry.terms.map { $0.contains(" ") ? "\"" + escaped($0) + "\"" : escaped($0) }
                let tag = "." + font + (terms.count == 1 ? " " + terms[0] : "R " + terms.joined(separator: " \", \" "))
                roff += ".TP\n" + tag + "\n" + marked(entry.text) + "\n"
            }
            return roff
        }
    }

    /// The sections after the commands, in order: a new exit status, variable or file is
    /// one entry here.
    static let sections = [
        Section(heading: "INTERFACE TYPES", text: "TYPE is one of " + Arguments.typeList.joined(separator: ", ")
                + " (wiredEthernet also as wired or ethernet)."),
        Section(heading: "EXIT STATUS", entries: [
            .init(terms: ["0"], text: "satisfied, or done"),
            .init(terms: ["1"], text: "not satisfied, or timed out"),
            .init(terms: ["2"], text: "usage error: one line on standard error names the word that is wrong"),
            .init(terms: ["3"], text: "runtime error: one line on standard error says why"),
            .init(terms: ["130", "143"], text: "`wait`, `probe` or `status --probe` ended by SIGINT or SIGTERM before its answer"),
        ]),
        Section(heading: "ENVIRONMENT", entries: [
            .init(terms: ["NO_COLOR"], text: "when set and not empty, the human output has no colour (it has colour only on a terminal)"),
        ]),
        Section(heading: "FILES", entries: [
            .init(terms: ["/run/netns"], italic: true,
                  text: "the namespaces that `ip netns` names, for `--netns NAME` and `serve --all-namespaces`"),
        ]),
        Section(heading: "SEE ALSO", text: "`ip-netns`(8), `systemd.service`(5), `prometheus`(1)"),
    ]

    /// `text` as roff input, with a word or words between backquotes in bold: a command or
    /// an option as typed.
    static func marked(_ text: String) -> String {
        escaped(text).split(separator: "`", omittingEmptySubsequences: false).enumerated().map { index, part in
            index % 2 == 1 ? "\\fB" + part + "\\fR" : String(part)
        }.joined()
    }
}
