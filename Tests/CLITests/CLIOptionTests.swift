import Foundation
import KernelTestSupport
import Testing

/// Every option and runtime error of `netpath` (SPEC §4), on the built binary.
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct CLIOptionTests {
    /// A namespace with a satisfied wired path (waits until the carrier is there).
    func onlineNamespace(_ label: String) throws -> TestNamespace {
        let ns = try TestNamespace(label)
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.40.0.2/24 dev eth0", "route add default via 10.40.0.1"])
        let ready = try #require(try netpath("wait", "--netns", ns.name, "--timeout", "10"))
        #expect(ready.status == 0)
        return ns
    }

    @Test func requireAndProhibitFilterByInterfaceType() throws {
        let ns = try onlineNamespace("clifil")
        defer { ns.remove() }
        let wifi = try #require(try netpath("status", "--json", "--netns", ns.name, "--require", "wifi"))
        #expect(wifi.status == 1 && wifi.standardOutput.contains("\"diagnosis\":\"filtered\""))
        let noWired = try #require(try netpath("status", "--json", "--netns", ns.name, "--prohibit", "cellular", "--prohibit", "wiredEthernet"))
        #expect(noWired.status == 1 && noWired.standardOutput.contains("\"diagnosis\":\"filtered\""))
        let wired = try #require(try netpath("status", "--netns", ns.name, "--require", "wiredEthernet"))
        #expect(wired.status == 0 && wired.standardOutput.contains("online  via eth0 (wiredEthernet)  gateway 10.40.0.1  IPv4 no DNS"))
        let waitWifi = try #require(try netpath("wait", "--netns", ns.name, "--require", "wifi", "--timeout", "0.2"))
        #expect(waitWifi.status == 1)
        let watchFiltered = try #require(try netpath("watch", "--json", "--count", "1", "--netns", ns.name, "--prohibit=wiredEthernet"))
        #expect(watchFiltered.status == 0 && watchFiltered.lines.count == 1 && watchFiltered.standardOutput.contains("filtered"))
    }

    @Test func meteredAndConstrainedInterfacesMarkThePathThroughThem() throws {
        let ns = try onlineNamespace("climet")
        defer { ns.remove() }
        let plain = try jsonObject(try #require(try netpath("status", "--json", "--netns", ns.name)).lines[0])
        #expect(plain["isExpensive"] as? Bool == false && plain["isConstrained"] as? Bool == false)
        let marked = try #require(try netpath("status", "--json", "--netns", ns.name, "--metered", "usb0,e*", "--constrained=eth0"))
        let path = try jsonObject(marked.lines[0])
        #expect(marked.status == 0 && path["isExpensive"] as? Bool == true && path["isConstrained"] as? Bool == true)
        let other = try jsonObject(try #require(try netpath("status", "--json", "--netns", ns.name, "--metered", "eth1", "--metered", "usb?")).lines[0])
        #expect(other["isExpensive"] as? Bool == false)
        let words = try #require(try netpath("status", "--netns", ns.name, "--metered", "eth0"))
        #expect(words.standardOutput.contains("IPv4 no DNS  expensive"))
        // watch marks each path: the first, and the one after the route moves to a new link.
        let tool = try RunningTool(["watch", "--json", "--netns", ns.name, "--metered", "usb*"])
        #expect(try jsonObject(try #require(tool.nextLine()))["isExpensive"] as? Bool == false)
        try ns.addLinks("usb0")
        try ns.batch(["link set usb0 up", "addr add 10.41.0.2/24 dev usb0", "route replace default via 10.41.0.1 dev usb0"])
        var last: [String: Any] = [:]
        while (last["interfaces"] as? [[String: Any]])?.first?["name"] as? String != "usb0", let line = tool.nextLine() {
            last = try jsonObject(line)
            let primary = (last["interfaces"] as? [[String: Any]])?.first?["name"] as? String
            #expect(last["isExpensive"] as? Bool == (last["status"] as? String == "satisfied" && primary == "usb0"))
        }
        #expect(last["isExpensive"] as? Bool == true && last["gateways"] as? [String] == ["10.41.0.1"])
        tool.signal(SIGTERM)
        #expect(try #require(tool.finish()).status == 0)
    }

    /// A wg-quick VPN over a cellular link (a veth named `wwan0`), configured as a satellite
    /// link too, through every command that shows a path: status (both forms), watch, the
    /// check's opt-in, and serve's metrics.
    @Test func aVPNOverAnUltraConstrainedCellularLinkEndToEnd() throws {
        let ns = try TestNamespace("clivpn")
        defer { ns.remove() }
        try ns.addLinks("wwan0")
        try ns.batch(["link set wwan0 up", "addr add 10.42.0.2/24 dev wwan0", "route add default via 10.42.0.1"])
        let tunnel = try attachTun(ns, "wg0")
        defer { tunnel.close() }
        try ns.batch([
            "link set wg0 up", "addr add 10.66.0.2/32 dev wg0", "route add default dev wg0 table 51820",
            "rule add not fwmark 51820 table 51820 pref 32764", "rule add table main suppress_prefixlength 0 pref 32763",
        ])
        #expect(try #require(try netpath("wait", "--netns", ns.name, "--timeout", "10")).status == 0)

        let status = try #require(try netpath("status", "--json", "--netns", ns.name, "--ultra-constrained", "wwan*"))
        let path = try jsonObject(status.lines[0])
        #expect(status.status == 0 && (path["tunnelInterface"] as? [String: Any])?["name"] as? String == "wg0")
        let beneath = path["underlyingInterface"] as? [String: Any]
        #expect(beneath?["name"] as? String == "wwan0" && beneath?["type"] as? String == "cellular")
        #expect(path["isExpensive"] as? Bool == true && path["isUltraConstrained"] as? Bool == true)
        #expect(path["linkQuality"] as? String == "unknown")
        let words = try #require(try netpath("status", "--netns", ns.name, "--ultra-constrained", "wwan0"))
        #expect(words.standardOutput.contains("  online  via wg0 (other)  VPN over wwan0 (cellular)  IPv4 no DNS  expensive  ultra-constrained  also wwan0"),
                "\(words.standardOutput)")
        let watched = try #require(try netpath("watch", "--json", "--count", "1", "--netns", ns.name))
        let first = try jsonObject(watched.lines[0])
        #expect((first["underlyingInterface"] as? [String: Any])?["name"] as? String == "wwan0" && first["isUltraConstrained"] as? Bool == false)

        // No check on an ultra-constrained path: the verdict is `unknown` at once, no traffic
        // (the tunnel's device would swallow it: nothing answers there).
        let unchecked = try #require(try netpath("status", "--json", "--probe", "--url", "http://192.0.2.80/", "--probe-timeout", "1",
                                                 "--netns", ns.name, "--ultra-constrained", "wwan0"))
        #expect(try jsonObject(unchecked.lines[0])["connectivity"] as? String == "unknown")
        // `wait --probe` there times out saying why, not only "unknown".
        let waited = try #require(try netpath("wait", "--probe", "--url", "http://192.0.2.80/", "--timeout", "0.3",
                                              "--netns", ns.name, "--ultra-constrained", "wwan0"))
        #expect(waited.status == 1 && waited.standardError.hasSuffix(
            "(Internet: not checked on an ultra-constrained path; --allow-ultra-constrained checks it)\n"), "\(waited.standardError)")
        // Allowed: the check runs, and nothing answers through the tunnel.
        let checked = try #require(try netpath("status", "--json", "--probe", "--url", "http://192.0.2.80/", "--probe-timeout", "0.5",
                                               "--netns", ns.name, "--ultra-constrained", "wwan0", "--allow-ultra-constrained"))
        #expect(try jsonObject(checked.lines[0])["connectivity"] as? String == "limited")

        let serving = try Serving(["--netns", ns.name, "--ultra-constrained", "wwan0"])
        let text = try serving.metrics { $0.contains("netpath_path_tunnel_info{netns=\"\(ns.name)\"") }
        for line in [
            "netpath_path_tunnel_info{netns=\"\(ns.name)\",interface=\"wg0\",underlying_interface=\"wwan0\",underlying_type=\"cellular\"} 1",
            "netpath_path_tunnel{netns=\"\(ns.name)\"} 1", "netpath_path_expensive{netns=\"\(ns.name)\"} 1",
            "netpath_path_ultra_constrained{netns=\"\(ns.name)\"} 1", "netpath_path_link_quality{netns=\"\(ns.name)\",quality=\"unknown\"} 1",
        ] {
            #expect(text.contains(line), "\(line)")
        }
        #expect(serving.stop()?.status == 0)
    }

    /// Interrupted is not "online": `netpath wait && deploy` must not deploy after a Ctrl-C.
    /// `wait` ends cleanly, with the shell's status for the signal (130, 143), never 0, and
    /// says so in one line (README, "Exit status").
    @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
    func waitEndsCleanlyOnSignalButNotAsOnline(_ signal: Int32, _ status: Int32) throws {
        let ns = try TestNamespace("cliwsig")
        defer { ns.remove() }
        let tool = try RunningTool(["wait", "--netns", ns.name, "--timeout", "60"])
        // `wait` prints nothing: know it is ready by its signal mask.
        #expect(tool.isHandling(signal))
        tool.signal(signal)
        let outcome = try #require(tool.finish())
        let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
        #expect(outcome.status == status && outcome.standardError == "netpath: interrupted (\(name)) while waiting for a satisfied path\n")
    }

    @Test func aFileThatIsNotANamespaceIsARuntimeError() throws {
        let name = "np-fake-\(getpid())"
        let path = "/var/run/netns/" + name
        try "not a namespace".write(toFile: path, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let outcome = try #require(try netpath("status", "--netns", name))
        #expect(outcome.status == 3 && outcome.standardError == "netpath: network namespace '\(name)' is not a network namespace: setns: Invalid argument\n")
    }

    @Test func withoutPrivilegeNamespacesFailWithThreeButOwnStatusWorks() throws {
        let ns = try TestNamespace("cliperm")
        defer { ns.remove() }
        let asNobody = ["--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all", netpathBinary]
        let denied = try #require(try runTool("/usr/bin/setpriv", asNobody + ["status", "--netns", ns.name]))
        #expect(denied.status == 3 && denied.standardError.hasPrefix("netpath: no permission to enter network namespace '\(ns.name)'"))
        #expect(denied.standardError.split(separator: "\n").count == 1)
        let own = try #require(try runTool("/usr/bin/setpriv", asNobody + ["status", "--json"]))
        #expect(own.status == 0 || own.status == 1)
        #expect(own.standardOutput.hasPrefix("{\"time\":"))
    }

    @Test func colourOnlyOnATerminalAndNeverWithNoColor() throws {
        let ns = try TestNamespace("clicol")
        defer { ns.remove() }
        // `script` gives the tool a pseudo-terminal as standard output.
        let onTerminal = try #require(try runTool("/usr/bin/script", ["-qec", "\(netpathBinary) status --netns \(ns.name)", "/dev/null"],
                                                  environment: ["NO_COLOR": ""]))
        #expect(onTerminal.standardOutput.contains("\u{1B}[1;31moffline\u{1B}[0m"))
        let noColor = try #require(try runTool("/usr/bin/script", ["-qec", "\(netpathBinary) status --netns \(ns.name)", "/dev/null"],
                                               environment: ["NO_COLOR": "1"]))
        #expect(noColor.standardOutput.contains("offline") && !noColor.standardOutput.contains("\u{1B}["))
        let piped = try #require(try netpath("status", "--netns", ns.name))
        #expect(!piped.standardOutput.contains("\u{1B}[") && piped.standardOutput.contains("offline  no network interface is up"))
    }

    /// A reader that stops reading (`watch | less`, not scrolled) leaves `watch` blocked
    /// writing a line to a full pipe: SIGTERM still ends it, with 0.
    @Test func watchEndsOnASignalWhileItsOutputPipeIsFull() throws {
        let ns = try TestNamespace("clifull")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.ip("addr add 10.23.0.2/24 dev eth0")
        try ns.ip("link set eth0 up")
        let tool = try RunningTool(["watch", "--json", "--netns", ns.name])
        #expect(tool.nextLine() != nil)
        // Each change is a line of about 500 bytes: a 64 KiB pipe is full within 150 changes.
        var changes = 0
        while !tool.isWaiting(in: "pipe_write", thread: "netpath-monitor"), changes < 2_000 {
            try ns.ip(changes % 2 == 0 ? "route add default via 10.23.0.1" : "route del default via 10.23.0.1")
            changes += 1
        }
        #expect(tool.isWaiting(in: "pipe_write", thread: "netpath-monitor"), "no write blocked after \(changes) changes")
        tool.signal(SIGTERM)
        #expect(tool.exitStatusUnread(seconds: 10) == 0, "watch did not end on SIGTERM with its output pipe full")
    }

    @Test func watchEndsWhenItsReaderGoesAway() throws {
        let ns = try TestNamespace("clipipe")
        defer { ns.remove() }
        let tool = try RunningTool(["watch", "--netns", ns.name])
        #expect(tool.nextLine() != nil)
        tool.closeOutput()
        let outcome = try #require(tool.finish(seconds: 10), "watch kept running with nobody reading")
        #expect(outcome.status == 0)
    }
}

/// Runs any program to its end, at most `seconds`.
func runTool(_ program: String, _ arguments: [String], environment: [String: String] = [:], seconds: Double = 15) throws -> Outcome? {
    try RunningTool(arguments, executable: program, environment: environment).finish(seconds: seconds)
}

/// `--netns` takes a namespace file as the library does: a container's `/proc/PID/ns/net`.
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct CLINamespaceFileTests {
    @Test func aContainersNamespaceByItsProcessFileWithItsOwnResolver() throws {
        let ns = try TestNamespace("cliproc")
        defer { ns.remove() }
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.42.0.2/24 dev eth0", "route add default via 10.42.0.1"])
        // The "container": a process in the namespace whose /etc/resolv.conf (bind-mounted by
        // `ip netns exec` from /etc/netns/NAME/) names no server, while the host's does.
        try FileManager.default.createDirectory(atPath: ns.resolverDirectory, withIntermediateDirectories: true)
        try "# no servers here\n".write(toFile: ns.resolverDirectory + "/resolv.conf", atomically: true, encoding: .utf8)
        let container = Process()
        container.executableURL = URL(fileURLWithPath: Kernel.ipPath)
        container.arguments = ["netns", "exec", ns.name, "sh", "-c", "echo ready; exec sleep 60"]
        let ready = Pipe()
        container.standardOutput = ready
        try container.run()
        // SIGKILL: the child inherits this process's signal mask, which may block SIGTERM.
        defer { kill(container.processIdentifier, SIGKILL); container.waitUntilExit() }
        // `ip netns exec` enters the namespace, mounts, then execs: the same process id
        // prints "ready" once it is inside.
        #expect(String(decoding: ready.fileHandleForReading.availableData, as: UTF8.self) == "ready\n")
        let file = "/proc/\(container.processIdentifier)/ns/net"
        let byName = try #require(try netpath("wait", "--netns", ns.name, "--timeout", "10"))
        #expect(byName.status == 0)
        let byFile = try #require(try netpath("status", "--json", "--netns", file))
        let path = try jsonObject(byFile.lines[0])
        #expect(byFile.status == 0 && path["status"] as? String == "satisfied")
        #expect((path["interfaces"] as? [[String: Any]])?.first?["name"] as? String == "eth0")
        #expect(path["supportsDNS"] as? Bool == false, "the container's resolv.conf, not the host's")
        // The process ID alone, as `ip link set netns PID` and nsenter take it.
        let byPID = try #require(try netpath("status", "--json", "--netns", "\(container.processIdentifier)"))
        var samePath = try jsonObject(byPID.lines[0])
        samePath["time"] = path["time"]
        #expect(try JSONSerialization.data(withJSONObject: samePath, options: .sortedKeys)
                == JSONSerialization.data(withJSONObject: path, options: .sortedKeys))
        let host = try String(contentsOfFile: "/etc/resolv.conf", encoding: .utf8)
        #expect(host.contains("nameserver"), "the test needs a host resolv.conf that names a server")
        // A bad path is a runtime error that names the file; a relative word is a name.
        let missing = try #require(try netpath("status", "--netns", "/proc/999999999/ns/net"))
        #expect(missing.status == 3 && missing.standardError.contains("/proc/999999999/ns/net"))
        let bad = try #require(try netpath("status", "--netns", "a/b"))
        #expect(bad.status == 2 && bad.standardError.contains("'a/b'"))
    }
}

/// What `netpath` writes cannot go wrong silently, nor reach a terminal raw (issue 30, item 5).
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct CLIOutputSafetyTests {
    /// `status > /dev/full`, `watch >> full-disk-file`: exit 3 with one line, not 0.
    @Test(arguments: [["status"], ["watch"], ["probe", "--url", "http://127.0.0.1:9/"], ["--help"], ["--version"]])
    func aWriteThatFailsIsExitThree(command: [String]) throws {
        let line = ([netpathBinary] + command + ["--ignore-desktop"]).filter { !(["probe", "--help", "--version"].contains(command[0]) && $0 == "--ignore-desktop") }
        let outcome = try #require(try runTool("/bin/sh", ["-c", line.joined(separator: " ") + " > /dev/full"]))
        #expect(outcome.status == 3 && outcome.standardError == "netpath: cannot write to standard output: write: No space left on device\n",
                "\(outcome.standardError)")
    }

    /// An interface name with a terminal escape in it (the kernel allows one) is shown as
    /// `\x1b`, never written raw; the JSON line escapes it as JSON does.
    @Test func controlBytesInNamesAreEscaped() throws {
        let ns = try TestNamespace("cliesc")
        defer { ns.remove() }
        let name = "e\u{1B}[31mx"
        try run(Kernel.ipPath, ["-n", ns.name, "link", "add", name, "type", "veth", "peer", "name", "p0"])
        try ns.batch(["link set p0 up", "link set \(name) up", "addr add 10.43.0.2/24 dev \(name)", "route add default via 10.43.0.1"])
        let human = try #require(try netpath("wait", "--netns", ns.name, "--timeout", "10"))
        #expect(human.status == 0)
        let line = try #require(try netpath("status", "--netns", ns.name))
        #expect(line.standardOutput.contains("via e\\x1b[31mx (wiredEthernet)") && !line.standardOutput.contains("\u{1B}"), "\(line.standardOutput)")
        let json = try #require(try netpath("status", "--json", "--netns", ns.name))
        #expect(json.standardOutput.contains("\"name\":\"e\\u001b[31mx\""), "\(json.standardOutput)")
    }
}
