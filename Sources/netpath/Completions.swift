import NetPath

/// `netpath completions SHELL`: a completion script for bash, zsh or fish, made from
/// ``Arguments/options`` (the table the parser and `--help` use), so that a new option is
/// completed as soon as it is parsed.
enum Completions {
    /// What a shell offers for an option's value, read from its placeholder.
    enum Value: Equatable {
        /// Nothing to offer (a number, an address, a URL): the shell waits for the value.
        case free
        case words([String])
        case files
        /// An `ip netns` name from /run/netns, or a namespace file.
        case namespaces
    }

    /// The value an option takes, or `nil` for a flag.
    static func value(of option: Arguments.Option) -> Value? {
        switch option.value {
        case nil: nil
        case "TYPE": .words(Arguments.typeList)
        case "FILE": .files
        case "NAME|PATH": .namespaces
        default: .free
        }
    }

    /// The options `command` takes, each once (the table describes an option once per
    /// command where its help differs), in the table's order.
    static func options(of command: Arguments.Command) -> [Arguments.Option] {
        var seen: Set<String> = []
        return Arguments.options.filter { $0.takes(command) && seen.insert($0.name).inserted }
    }

    /// What `option` does, in full: its help, except `--help`'s, which says "this text" in
    /// the help it prints.
    static func help(of option: Arguments.Option) -> String {
        option.name == "--help" ? "print the command's help" : option.help.joined(separator: " ")
    }

    /// What `option` does in a few words, for a shell's menu: its help up to the first
    /// aside (" (", "; ", ": ") that leaves at least a few words.
    static func summary(of option: Arguments.Option) -> String {
        let text = help(of: option)
        var end = text.endIndex
        for separator in [" (", "; ", ": "] {
            if let range = text.firstRange(of: separator), text.distance(from: text.startIndex, to: range.lowerBound) >= 15 {
                end = min(end, range.lowerBound)
            }
        }
        return String(text[..<end])
    }

    /// Every name of `option`: its long name, then its aliases.
    static func names(of option: Arguments.Option) -> [String] { [option.name] + option.aliases }

    static let commands = Arguments.Command.allCases.map(\.rawValue)
    static let shells = Arguments.Shell.allCases.map(\.rawValue)
    /// The words that may come first, with what each does.
    static var firstWords: [(word: String, summary: String)] {
        Arguments.Command.allCases.map { ($0.rawValue, Help.summary($0).line) }
            + zip(Arguments.documentationWords, Help.documentation.map(\.1)).map { ($0, $1) }
    }

    static func script(for shell: Arguments.Shell) -> String {
        switch shell {
        case .bash: bash()
        case .zsh: zsh()
        case .fish: fish()
        }
    }

    // MARK: bash

    /// `'text'` for sh-like shells.
    static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingAll("'", with: "'\\''") + "'"
    }

    static func bash() -> String {
        var text = """
        # bash completion for netpath, made by `netpath completions bash` from its option table.
        # Load it with `source <(netpath completions bash)`, or save it as
        # /usr/share/bash-completion/completions/netpath.
        _netpath() {
            local cur=${COMP_WORDS[COMP_CWORD]} prev=
            (( COMP_CWORD > 0 )) && prev=${COMP_WORDS[COMP_CWORD-1]}
            # --name=value: bash splits the word at '=' (COMP_WORDBREAKS).
            if [[ $cur == = ]]; then
                cur=
            elif [[ $prev == = ]] && (( COMP_CWORD > 1 )); then
                prev=${COMP_WORDS[COMP_CWORD-2]}
            fi
            if (( COMP_CWORD == 1 )); then
                mapfile -t COMPREPLY < <(compgen -W \(shellQuoted((firstWords.map(\.word) + ["help", "--help", "-h", "--version"]).joined(separator: " "))) -- "$cur")
                return
            fi
            local options
            case ${COMP_WORDS[1]} in

        """
        for command in Arguments.Command.allCases {
            let words = options(of: command).flatMap(names(of:))
            text += "        \(command.rawValue)) options=\(shellQuoted(words.joined(separator: " "))) ;;\n"
        }
        text += """
                completions) (( COMP_CWORD == 2 )) && mapfile -t COMPREPLY < <(compgen -W \(shellQuoted(shells.joined(separator: " "))) -- "$cur"); return ;;
                help) (( COMP_CWORD == 2 )) && mapfile -t COMPREPLY < <(compgen -W \(shellQuoted(commands.joined(separator: " "))) -- "$cur"); return ;;
                *) return ;;
            esac
            case $prev in

        """
        text += bashValueBranches()
        text += """
            esac
            mapfile -t COMPREPLY < <(compgen -W "$options" -- "$cur")
        }
        complete -F _netpath netpath

        """
        return text
    }

    /// The `case $prev` branches: one per kind of value, naming every option that takes it.
    static func bashValueBranches() -> String {
        var branches: [(names: [String], value: Value)] = []
        var seen: Set<String> = []
        for option in Arguments.options where seen.insert(option.name).inserted {
            guard let value = value(of: option) else { continue }
            if let index = branches.firstIndex(where: { $0.value == value }) {
                branches[index].names += names(of: option)
            } else {
                branches.append((names(of: option), value))
            }
        }
        var text = ""
        for (names, value) in branches {
            let action = switch value {
            case .free: "return"
            case .words(let words): "mapfile -t COMPREPLY < <(compgen -W \(shellQuoted(words.joined(separator: " "))) -- \"$cur\"); return"
            case .files: "compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- \"$cur\"); return"
            case .namespaces:
                "compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -W \"$(command ls /run/netns 2>/dev/null)\" -- \"$cur\"; compgen -f -- \"$cur\"); return"
            }
            text += "        \(names.joined(separator: "|"))) \(action) ;;\n"
        }
        return text
    }

    // MARK: zsh

    /// Text inside an `_arguments` explanation (`[...]`) or message (`:...:`).
    static func zshEscaped(_ text: String) -> String {
        var result = ""
        for character in text {
            if "\\[]:".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }

    static func zsh() -> String {
        var text = """
        #compdef netpath
        # zsh completion for netpath, made by `netpath completions zsh` from its option table.
        # Save it as _netpath in a directory of $fpath, or load it with
        # `source <(netpath completions zsh)` after compinit.

        _netpath_namespaces() {
          local -a names
          names=(/run/netns/*(N:t))
          _alternative 'namespaces:namespace:compadd -a names' 'files:namespace file:_files'
        }

        _netpath() {
          if (( CURRENT == 2 )); then
            local -a commands
            commands=(

        """
        for (word, summary) in firstWords {
            text += "      " + shellQuoted(word + ":" + summary) + "\n"
        }
        text += """
            )
            _alternative 'commands:command:_describe -t commands command commands' \\
              'options:option:(--help -h --version)'
            return
          fi
          local command=$words[2]
          shift words
          (( CURRENT-- ))
          case $command in

        """
        for command in Arguments.Command.allCases { text += zshBranch(command) }
        text += """
            completions) _arguments \(shellQuoted("1:shell:(" + shells.joined(separator: " ") + ")")) ;;
            help) _arguments \(shellQuoted("1:command:(" + commands.joined(separator: " ") + ")")) ;;
          esac
        }

        if [[ $funcstack[1] == _netpath ]]; then
          _netpath "$@"
        else
          compdef _netpath netpath
        fi

        """
        return text
    }

    /// `command`'s branch of the `case`: an `_arguments` call with a spec per option name.
    static func zshBranch(_ command: Arguments.Command) -> String {
        var text = "    \(command.rawValue))\n      _arguments -s -S"
        for option in options(of: command) {
            let explanation = "[" + zshEscaped(summary(of: option)) + "]"
            var argument = ""
            if let value = value(of: option), let placeholder = option.value {
                let message = ":" + zshEscaped(placeholder) + ":"
                argument = switch value {
                case .free: message + " "
                case .words(let words): message + "(" + words.joined(separator: " ") + ")"
                case .files: message + "_files"
                case .namespaces: message + "_netpath_namespaces"
                }
            }
            for name in names(of: option) {
                let spec = (option.repeatable ? "*" : "") + name + (option.value != nil && name.hasPrefix("--") ? "=" : "")
                text += " \\\n        " + shellQuoted(spec + explanation + argument)
            }
        }
        return text + "\n      ;;\n"
    }

    // MARK: fish

    /// `'text'` for fish, whose single quotes take `\'` and `\\`.
    static func fishQuoted(_ text: String) -> String {
        "'" + text.replacingAll("\\", with: "\\\\").replacingAll("'", with: "\\'") + "'"
    }

    static func fish() -> String {
        var text = """
        # fish completion for netpath, made by `netpath completions fish` from its option table.
        # Save it as ~/.config/fish/completions/netpath.fish, or load it with
        # `netpath completions fish | source`.
        complete -c netpath -f
        complete -c netpath -n __fish_use_subcommand -s h -l help -d 'print the help'
        complete -c netpath -n __fish_use_subcommand -l version -d 'print the version'

        """
        for (word, summary) in firstWords {
            text += "complete -c netpath -n __fish_use_subcommand -a \(word) -d \(fishQuoted(summary))\n"
        }
        for command in Arguments.Command.allCases {
            let condition = fishQuoted("__fish_seen_subcommand_from " + command.rawValue)
            for option in options(of: command) {
                var line = "complete -c netpath -n \(condition)"
                for name in names(of: option) {
                    line += name.hasPrefix("--") ? " -l " + name.dropFirst(2) : " -s " + name.dropFirst()
                }
                switch value(of: option) {
                case nil: break
                case .free: line += " -x"
                case .words(let words): line += " -x -a " + fishQuoted(words.joined(separator: " "))
                case .files: line += " -r -F"
                case .namespaces: line += " -r -F -a " + fishQuoted("(command ls /run/netns 2>/dev/null)")
                }
                text += line + " -d " + fishQuoted(summary(of: option)) + "\n"
            }
        }
        text += "complete -c netpath -n \(fishQuoted("__fish_seen_subcommand_from completions")) -x -a \(fishQuoted(shells.joined(separator: " ")))\n"
        return text
    }
}

