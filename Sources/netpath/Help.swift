/// The `--help` texts.
enum Help {
    static let version = "0.1.0"

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    static func text(for command: Arguments.Command?) -> String {
        switch command {
        case nil:
            return """
            netpath — network path status, in real time, from the kernel

            Usage:
              netpath status [--json] [--probe] [--netns NAME] [--require TYPE] [--prohibit TYPE]... [--metered NAMES] [--constrained NAMES]
              netpath watch  [--json] [--probe] [--netns NAME] [--count N] [--require TYPE] [--prohibit TYPE]... [--metered NAMES] [--constrained NAMES]
              netpath wait   [--timeout SECONDS] [--probe] [--netns NAME] [--require TYPE]
              netpath probe  [--json] [--url URL]... [--expect-status N] [--expect-body TEXT] [--timeout SECONDS] [--netns NAME]

            Commands:
              status   print the current path once; exit 0 if satisfied, 1 if not
              watch    print the current path, then one line per change, until Ctrl-C
              wait     exit 0 as soon as the path is satisfied, 1 after the timeout (30 s)
              probe    check now that the Internet answers (or a captive portal does); exit 0 if it does

            --probe adds the connectivity check (full, portal, limited, local, none) to status,
            watch and wait (wait --probe waits for full); it takes --url, --expect-status,
            --expect-body and --probe-timeout SECONDS as probe does.
            TYPE is one of wifi, cellular, wiredEthernet, loopback, other.
            status and watch take --metered NAMES and --constrained NAMES: interfaces (usb0, 'enx*')
            that make a path expensive or constrained when they are its primary one.
            Exit status: 0 satisfied/done, 1 not satisfied/timed out, 2 usage error, 3 runtime error.
            Run 'netpath COMMAND --help' for a command's options.

            """
        case .status:
            return """
            Usage: netpath status [--json] [--probe] [--netns NAME] [--require TYPE] [--prohibit TYPE]... [--metered NAMES] [--constrained NAMES]

            Prints the current network path once.
              --json            one JSON object (see the README for its keys)
              --probe           also check that the Internet answers (adds connectivity, portalURL)
              --netns NAME      watch the network namespace NAME (ip netns) instead of our own
              --require TYPE    consider only interfaces of TYPE
              --prohibit TYPE   ignore interfaces of TYPE (repeatable)
              --metered NAMES   interfaces that are metered, comma-separated names or patterns
                                ('enx*', 'usb?'): a path through one is expensive (repeatable)
              --constrained NAMES   the same for constrained paths
            Exit status: 0 satisfied, 1 not satisfied, 2 usage error, 3 runtime error.

            """
        case .watch:
            return """
            Usage: netpath watch [--json] [--probe] [--netns NAME] [--count N] [--require TYPE] [--prohibit TYPE]... [--metered NAMES] [--constrained NAMES]

            Prints the current path at once, then one line per change, flushed as written,
            until SIGINT/SIGTERM (exit 0) or N lines.
              --json            JSON Lines: one object per path
              --probe           also check that the Internet answers, on every change; while the
                                answer is not full, again after 1 s, doubling to 5 min
              --count N         stop after N lines
              --netns NAME      watch the network namespace NAME
              --require TYPE    consider only interfaces of TYPE
              --prohibit TYPE   ignore interfaces of TYPE (repeatable)
              --metered NAMES   interfaces that are metered, comma-separated names or patterns
                                ('enx*', 'usb?'): a path through one is expensive (repeatable)
              --constrained NAMES   the same for constrained paths
            Exit status: 0 done, 2 usage error, 3 runtime error.

            """
        case .wait:
            return """
            Usage: netpath wait [--timeout SECONDS] [--probe] [--netns NAME] [--require TYPE]

            Waits until the path is satisfied (it watches; it does not poll).
              --timeout SECONDS   give up after this long (default 30, at most 86400)
              --probe             wait until the Internet answers (connectivity full)
              --netns NAME        watch the network namespace NAME
              --require TYPE      consider only interfaces of TYPE
            Exit status: 0 satisfied (or SIGINT/SIGTERM), 1 timed out, 2 usage error, 3 runtime error.

            """
        case .probe:
            return """
            Usage: netpath probe [--json] [--url URL]... [--expect-status N] [--expect-body TEXT] [--timeout SECONDS] [--netns NAME]

            Checks once, now, that the Internet answers over the primary interface: plain HTTP
            GETs, redirects not followed, every endpoint at once.
              --url URL             an http:// endpoint (repeatable); default: five operators'
              --expect-status N     the status it must answer (default: 204, or 200 with an empty body)
              --expect-body TEXT    text its body must start with
              --timeout SECONDS     bound on the whole check (default 5, at most 300)
              --netns NAME          check from the network namespace NAME (its DNS servers too)
              --json                {"time","connectivity","portalURL","url","httpStatus","latencyMs","error"}
            Results: full, portal (with the login URL), limited (no HTTP answer), local (no DNS),
            none (no network path).
            Exit status: 0 full, 1 otherwise, 2 usage error, 3 runtime error.

            """
        }
    }
}
