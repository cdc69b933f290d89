import Foundation
import KernelTestSupport
import Testing
@testable import netpath

// `netpath completions SHELL` and `netpath manpage`, as a user meets them: the scripts the real
// binary prints, run by the real shells; the page it prints, rendered by man.

/// A scratch directory for one test, removed by ``remove()``.
struct ScratchDirectory {
    let path: String

    init(_ label: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("netpath-\(label)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// Writes `text` to `name` in the directory; its path.
    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        let file = path + "/" + name
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// What the binary prints for `arguments`, which must succeed with nothing on stderr.
func printed(_ arguments: String...) throws -> String {
    let outcome = try #require(try RunningTool(arguments).finish())
    try #require(outcome.status == 0 && outcome.standardError.isEmpty, "netpath \(arguments.joined(separator: " ")): \(outcome)")
    return outcome.standardOutput
}

/// Every name (long and alias) the option table gives the options `command` takes.
func optionNames(of command: Arguments.Command) -> Set<String> {
    Set(Arguments.options.filter { $0.takes(command) }.flatMap { [$0.name] + $0.aliases })
}

@Suite struct BashCompletionTests {
    /// The script `netpath completions bash` prints, sourced in a real bash; each line of
    /// `lines` is a command line as typed (the last word the one being completed, maybe
    /// empty), and each answer the sorted completions bash's function gives for it.
    static func complete(_ lines: [[String]]) throws -> [[String]] {
        let bash = try requireProgram("/bin/bash", package: "bash")
        let scratch = try ScratchDirectory("bash")
        defer { scratch.remove() }
        let script = try scratch.write(try printed("completions", "bash"), to: "netpath.bash")
        // The function is the one `complete -p` names, as bash calls it on Tab.
        var driver = """
        set -u
        source "$1"
        spec=$(complete -p netpath) || exit 10
        [[ $spec =~ -F\\ ([^ ]+)\\ netpath$ ]] || { echo "unexpected: $spec" >&2; exit 11; }
        function=${BASH_REMATCH[1]}
        complete_line() {
            COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
            "$function" netpath "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\\n' "${COMPREPLY[@]}" | LC_ALL=C sort | tr '\\n' ' '
            echo
        }

        """
        for words in lines {
            driver += "complete_line " + words.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }.joined(separator: " ") + "\n"
        }
        let output = try run(bash, ["--norc", "--noprofile", "-c", driver, "driver", script])
        return output.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
            $0.split(separator: " ").map(String.init)
        }
    }

    @Test func theFirstWordIsACommand() throws {
        let answers = try Self.complete([["netpath", ""], ["netpath", "s"], ["netpath", "--v"], ["netpath", "c"]])
        #expect(answers[0] == ["--help", "--version", "-h", "completions", "help", "manpage", "probe", "serve", "status", "wait", "watch"])
        #expect(answers[1] == ["serve", "status"])
        #expect(answers[2] == ["--version"])
        #expect(answers[3] == ["completions"])
    }

    /// After a command, its options: every name the table gives it, and no other.
    @Test func eachCommandOffersItsOptions() throws {
        let commands = Arguments.Command.allCases
        let answers = try Self.complete(commands.map { ["netpath", $0.rawValue, ""] } + commands.map { ["netpath", $0.rawValue, "--json", "-"] })
        for (index, command) in commands.enumerated() {
            #expect(Set(answers[index]) == optionNames(of: command), "\(command)")
            #expect(answers[index].count == optionNames(of: command).count, "\(command): a name offered twice")
            #expect(Set(answers[commands.count + index]) == optionNames(of: command), "\(command), after an option")
        }
        // As typed: the options of `serve` and `wait` that begin so.
        let typed = try Self.complete([["netpath", "serve", "--l"], ["netpath", "wait", "--t"], ["netpath", "probe", "--p"]])
        #expect(typed == [["--listen"], ["--timeout"], []])
    }

    @Test func optionValues() throws {
        let scratch = try ScratchDirectory("bashfiles")
        defer { scratch.remove() }
        try scratch.write("", to: "web.yml")
        try scratch.write("", to: "webber.yml")
        let answers = try Self.complete([
            ["netpath", "status", "--require", ""], ["netpath", "watch", "--prohibit", "w"],
            ["netpath", "status", "--require", "=", "c"],  // --require=c, as bash splits it
            ["netpath", "serve", "--listen", ""],  // an address: nothing to offer
            ["netpath", "watch", "--count", ""], ["netpath", "serve", "--web-config", scratch.path + "/web"],
            ["netpath", "completions", ""], ["netpath", "completions", "bash", ""], ["netpath", "help", "w"],
            ["netpath", "bogus", "--"],
        ])
        #expect(answers[0] == ["cellular", "loopback", "other", "wifi", "wiredEthernet"])
        #expect(answers[1] == ["wifi", "wiredEthernet"])
        #expect(answers[2] == ["cellular"])
        #expect(answers[3] == [] && answers[4] == [])
        #expect(answers[5] == [scratch.path + "/web.yml", scratch.path + "/webber.yml"])
        #expect(answers[6] == ["bash", "fish", "zsh"] && answers[7] == [])
        #expect(answers[8] == ["wait", "watch"])
        #expect(answers[9] == [])
    }
}

@Suite struct ShellCompletionTests {
    /// zsh reads the script (`zsh -n`), and compinit then maps `netpath` to its function.
    @Test(.enabled(if: requiredTool("/usr/bin/zsh"), "needs zsh"))
    func zshReadsAndRegistersTheScript() throws {
        let zsh = try requireProgram("/usr/bin/zsh", package: "zsh")
        let scratch = try ScratchDirectory("zsh")
        defer { scratch.remove() }
        let script = try scratch.write(try printed("completions", "zsh"), to: "_netpath")
        #expect(try run(zsh, ["-n", script]).isEmpty)
        let registered = try run(zsh, ["-f", "-c", "autoload -U compinit && compinit -u -d \"$2/zcompdump\" && source \"$1\" && print -r -- $_comps[netpath]",
                                       "zsh", script, scratch.path])
        #expect(registered == "_netpath\n")
    }

    /// fish reads the script (`fish -n`) and completes from it (`complete -C`, what Tab shows).
    @Test(.enabled(if: requiredTool("/usr/bin/fish"), "needs fish"))
    func fishReadsAndCompletesFromTheScript() throws {
        let fish = try requireProgram("/usr/bin/fish", package: "fish")
        let scratch = try ScratchDirectory("fish")
        defer { scratch.remove() }
        let script = try scratch.write(try printed("completions", "fish"), to: "netpath.fish")
        #expect(try run(fish, ["--no-config", "-n", script]).isEmpty)
        func completions(_ line: String) throws -> [String] {
            let output = try run(fish, ["--no-config", "-c", "source $argv[1]; complete -C $argv[2]", script, line])
            return output.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }.sorted()
        }
        #expect(try completions("netpath st") == ["status"])
        #expect(try completions("netpath serve --l") == ["--listen"])
        #expect(try completions("netpath status --require w") == ["wifi", "wiredEthernet"])
        #expect(try completions("netpath completions ") == ["bash", "fish", "zsh"])
        let offered = Set(try completions("netpath watch --"))
        #expect(offered == Set(optionNames(of: .watch).filter { $0.hasPrefix("--") }))
    }

    @Test(arguments: [(["completions", "tcsh"], "netpath: unknown shell 'tcsh' for 'netpath completions' (bash, zsh, fish)\n"),
                      (["completions"], "netpath: 'netpath completions' needs a shell (bash, zsh, fish)\n"),
                      (["completions", "bash", "extra"], "netpath: unexpected argument 'extra' for 'netpath completions'\n"),
                      (["manpage", "--json"], "netpath: unexpected argument '--json' for 'netpath manpage'\n")])
    func badInputIsAUsageError(arguments: [String], message: String) throws {
        let outcome = try #require(try RunningTool(arguments).finish())
        #expect(outcome.status == 2 && outcome.standardOutput.isEmpty && outcome.standardError == message, "\(outcome)")
    }
}

@Suite struct ManPageTests {
    /// The page as `man -l` shows it on an 80-column terminal, with groff's warnings.
    static func render() throws -> (text: String, warnings: String) {
        let man = try requireProgram("/usr/bin/man", package: "man-db")
        let scratch = try ScratchDirectory("man")
        defer { scratch.remove() }
        let page = try scratch.write(try printed("manpage"), to: "netpath.1")
        let shown = try #require(try runTool(man, ["-l", page], environment: ["MANWIDTH": "80", "LC_ALL": "C.UTF-8", "MANPAGER": "cat", "PAGER": "cat"]))
        #expect(shown.status == 0)
        let checked = try #require(try runTool("/bin/sh", ["-c", "man --warnings -l \"$0\" 2>&1 >/dev/null", page],
                                               environment: ["MANWIDTH": "80", "LC_ALL": "C.UTF-8", "MANPAGER": "cat", "PAGER": "cat"]))
        return (shown.standardOutput, checked.standardOutput + checked.standardError)
    }

    @Test(.enabled(if: requiredTool("/usr/bin/man"), "needs man-db"))
    func rendersWithoutWarnings() throws {
        let page = try Self.render()
        #expect(page.warnings.isEmpty, "\(page.warnings)")
        #expect(page.text.hasPrefix("NETPATH(1)") && page.text.contains("netpath - network path status"))
        // No line wider than the terminal.
        #expect(page.text.split(separator: "\n").allSatisfy { $0.count <= 80 })
    }

    /// Each command's section lists every option the command takes, with its value.
    @Test(.enabled(if: requiredTool("/usr/bin/man"), "needs man-db"))
    func everyOptionOfEveryCommandIsInThePage() throws {
        let text = try Self.render().text
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let headings = Arguments.Command.allCases.map(\.rawValue) + Arguments.documentationWords
        func section(_ heading: String) -> [String] {
            guard let start = lines.firstIndex(of: "   " + heading) else { return [] }
            let end = lines[(start + 1)...].firstIndex { line in
                headings.contains { "   " + $0 == line } || (line.first.map { $0 != " " } ?? false)
            } ?? lines.endIndex
            return Array(lines[(start + 1)..<end])
        }
        for command in Arguments.Command.allCases {
            let entries = section(command.rawValue).map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(!entries.isEmpty, "no section for \(command)")
            for option in Arguments.options where option.takes(command) {
                let names = [option.name] + option.aliases
                let head = (names.filter { !$0.hasPrefix("--") } + names.filter { $0.hasPrefix("--") }).joined(separator: ", ")
                    + (option.value.map { " " + $0 } ?? "")
                #expect(entries.contains { $0 == head || $0.hasPrefix(head + " ") }, "netpath \(command.rawValue): \(head)")
            }
        }
        #expect(section("completions").contains { $0.contains("netpath completions bash|zsh|fish") })
        #expect(section("manpage").contains { $0.contains("netpath manpage") })
    }
}
