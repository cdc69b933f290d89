import Foundation
import KernelTestSupport
import Synchronization
import Testing

/// A real NetworkManager (and networkd, and a portal stand-in) in test namespaces, built by
/// `desktop-lab.sh` (Tests/Support; recipe in shared/labs/desktop.md). `netpath` runs inside
/// the lab with the lab's system bus, as it would on that desktop.
private final class DesktopLabRun: Sendable {
    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Support/desktop-lab.sh").path
    private static let counter = Atomic<Int>(0)
    let name: String
    let values: [String: String]

    /// `up` (or `up-networkd`) with `options`; throws with the script's words when it fails.
    init(_ command: String = "up", _ options: [String] = []) throws {
        try requireProgram("/usr/sbin/NetworkManager", package: "network-manager")
        name = "npd\(getpid() % 100_000)x\(DesktopLabRun.counter.add(1, ordering: .relaxed).newValue)"
        let output = try run("/bin/bash", [DesktopLabRun.script, command, name] + options)
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        self.values = values
    }

    /// Runs a lab subcommand (`metered`, `check`, `prop`, …) and returns its output.
    @discardableResult
    func lab(_ arguments: String...) throws -> String {
        try run("/bin/bash", [DesktopLabRun.script] + [arguments[0], name] + arguments.dropFirst())
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// `netpath` inside the lab, with the lab's system bus (and `environment` on top, through
    /// env(1)).
    func netpath(_ arguments: [String], environment: [String] = []) throws -> RunningTool {
        let command = environment.isEmpty ? [netpathBinary] : ["/usr/bin/env"] + environment + [netpathBinary]
        return try RunningTool(["exec", name] + command + arguments, executable: DesktopLabRun.script)
    }

    func remove() {
        _ = try? run("/bin/bash", [DesktopLabRun.script, "down", name])
    }
}

private func object(_ outcome: Outcome?) throws -> [String: Any] {
    let outcome = try #require(outcome)
    return try jsonObject(try #require(outcome.lines.first, "\(outcome.standardError)"))
}

/// What the desktop knows reaches `netpath` (issue 28), each truth NetworkManager's own
/// property read with busctl, never a value written here.
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"), .serialized)
struct DesktopCLITests {
    @Test func meteredYesAndGuessYesAreExpensive() throws {
        for (metered, expected) in [("yes", "1"), ("guess", "3")] {
            let lab = try DesktopLabRun("up", ["--metered", metered])
            defer { lab.remove() }
            #expect(try lab.lab("prop", "device-metered") == expected)
            let path = try object(try lab.netpath(["status", "--json"]).finish())
            #expect(path["isExpensive"] as? Bool == true && path["expensiveSource"] as? String == "networkManager", "\(path)")
            let ignored = try object(try lab.netpath(["status", "--json", "--ignore-desktop"]).finish())
            #expect(ignored["isExpensive"] as? Bool == false && ignored["expensiveSource"] is NSNull)
        }
    }

    @Test func aMeteredChangeAndAnNMRestartReachARunningWatch() throws {
        let lab = try DesktopLabRun("up", ["--metered", "no"])
        defer { lab.remove() }
        let watch = try lab.netpath(["watch", "--json"])
        defer { watch.signal(SIGTERM); _ = watch.finish() }
        let first = try jsonObject(try #require(watch.nextLine(seconds: 20)))
        #expect(first["status"] as? String == "satisfied" && first["isExpensive"] as? Bool == false)
        #expect(try lab.lab("metered", "yes").contains("metered=1"))
        let metered = try jsonObject(try #require(watch.nextLine(seconds: 20)))
        #expect(metered["isExpensive"] as? Bool == true && metered["expensiveSource"] as? String == "networkManager")
        // Stopped, the profile changed, started again: NM's word is read afresh.
        try lab.lab("restart-nm", "--metered", "no")
        #expect(try lab.lab("prop", "device-metered") == "2")
        var line = try jsonObject(try #require(watch.nextLine(seconds: 20)))
        while line["isExpensive"] as? Bool == true {  // NM gone for a moment: the kernel's answer alone
            line = try jsonObject(try #require(watch.nextLine(seconds: 20)))
        }
        #expect(line["isExpensive"] as? Bool == false && line["status"] as? String == "satisfied")
    }

    /// After a resume (logind's `PrepareForSleep(false)`, from python3-dbusmock's logind on
    /// the lab's bus) the verdict from before the sleep is not shown as current: `unknown`,
    /// then a new check's. A sleep alone changes nothing. The check's endpoint is configured,
    /// so it runs whatever NetworkManager checks.
    @Test func aResumeChecksAfreshAtOnce() throws {
        let lab = try DesktopLabRun("up", ["--metered", "no"])
        defer { lab.remove() }
        #expect(try lab.lab("logind-up") == "ready")
        let watch = try lab.netpath(["watch", "--json", "--probe", "--url", "http://nmcheck.gnome.org/check_network_status.txt",
                                     "--expect-status", "200"])
        defer { watch.signal(SIGTERM); _ = watch.finish() }
        var line = try jsonObject(try #require(watch.nextLine(seconds: 20)))
        while line["connectivity"] as? String != "full" {
            #expect(line["connectivity"] as? String == "unknown", "\(line)")
            line = try jsonObject(try #require(watch.nextLine(seconds: 20), "no verdict"))
        }
        #expect(try lab.lab("sleep", "true") == "sleeping=true")
        #expect(try lab.lab("sleep", "false") == "sleeping=false")
        let resumed = try jsonObject(try #require(watch.nextLine(seconds: 20), "nothing after the resume"))
        #expect(resumed["connectivity"] as? String == "unknown" && resumed["status"] as? String == "satisfied", "\(resumed)")
        let checked = try jsonObject(try #require(watch.nextLine(seconds: 20), "no check after the resume"))
        #expect(checked["connectivity"] as? String == "full" && checked["connectivitySource"] as? String == "check", "\(checked)")
    }

    /// `serve` passes the resume on to every namespace it watches, not only the one whose
    /// bus it hears it on: another namespace's tables are read again (`netpath_resyncs_total`)
    /// and its check runs again at once (`netpath_connectivity_check_duration_seconds_count`).
    @Test func aResumeChecksEveryServedNamespaceAfresh() throws {
        let lab = try DesktopLabRun("up", ["--metered", "no"])
        defer { lab.remove() }
        #expect(try lab.lab("logind-up") == "ready")
        // Another namespace behind the lab's peer, where the check server answers on 10.201.0.1.
        let other = try TestNamespace("resume")
        defer { other.remove() }
        let peer = lab.name + "-p"
        try other.ip("link add x0 type veth peer name x1 netns \(peer)")
        try run(Kernel.ipPath, ["-n", peer, "addr", "add", "10.201.5.1/24", "dev", "x1"])
        try run(Kernel.ipPath, ["-n", peer, "link", "set", "x1", "up"])
        try other.batch(["addr add 10.201.5.2/24 dev x0", "link set x0 up", "route add default via 10.201.5.1"])
        // The lab's netpath sees its own /run: the namespace is named by a process in it.
        let holder = try Child(Kernel.ipPath, ["netns", "exec", other.name, "/bin/sleep", "1000"])
        defer { holder.kill() }
        let file = "/tmp/\(lab.name)-resume.prom"
        defer { try? FileManager.default.removeItem(atPath: file) }
        let serve = try lab.netpath(["serve", "--textfile", file, "--textfile-interval", "1", "--probe", "--netns", "\(holder.pid)",
                                     "--url", "http://10.201.0.1/204"])
        defer { serve.signal(SIGTERM); _ = serve.finish() }
        /// The other namespace's sample of `series` in the textfile, once `condition` holds.
        func sample(_ series: String, until condition: (Double) -> Bool) -> Double? {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                let text = (try? String(contentsOfFile: file, encoding: .utf8)) ?? ""
                let sample = text.split(separator: "\n").first { $0.hasPrefix(series + "{netns=\"") && !$0.hasPrefix(series + "{netns=\"\"") }
                if let value = sample?.split(separator: " ").last.flatMap({ Double($0) }), condition(value) { return value }
                HTTPExchange.pause()
            }
            return nil
        }
        let checks = try #require(sample("netpath_connectivity_check_duration_seconds_count") { $0 >= 1 }, "no check in the other namespace")
        let resyncs = try #require(sample("netpath_resyncs_total") { _ in true })
        #expect(try lab.lab("sleep", "true") == "sleeping=true")
        #expect(try lab.lab("sleep", "false") == "sleeping=false")
        #expect(sample("netpath_resyncs_total") { $0 > resyncs } != nil, "the other namespace's tables were not read again")
        #expect(sample("netpath_connectivity_check_duration_seconds_count") { $0 > checks } != nil, "no check after the resume")
    }

    /// The network's identity takes NetworkManager's active profile in: the same gateway
    /// with and without the desktop names two identifiers, both 16 hex digits.
    @Test func theActiveProfileIsPartOfTheNetworksIdentity() throws {
        let lab = try DesktopLabRun("up", ["--metered", "no"])
        defer { lab.remove() }
        let kernel = try object(try lab.netpath(["status", "--json", "--ignore-desktop"]).finish())
        let desktop = try object(try lab.netpath(["status", "--json"]).finish())
        let plain = try #require(kernel["network"] as? String, "\(kernel)")
        let mixed = try #require(desktop["network"] as? String, "\(desktop)")
        #expect(plain.count == 16 && mixed.count == 16 && plain != mixed)
    }

    @Test func twoUplinksFollowTheDeviceNetPathChose() throws {
        let lab = try DesktopLabRun("up", ["--metered", "yes", "--second-uplink"])
        defer { lab.remove() }
        let before = try object(try lab.netpath(["status", "--json"]).finish())
        #expect((before["interfaces"] as? [[String: Any]])?.first?["name"] as? String == "eth0" && before["isExpensive"] as? Bool == true)
        try lab.lab("exec", "nmcli", "--wait", "20", "con", "down", "lab")
        #expect(try lab.lab("prop", "primary") == "eth1" && lab.lab("prop", "device-metered", "eth1") == "4")
        let after = try object(try lab.netpath(["status", "--json"]).finish())
        #expect((after["interfaces"] as? [[String: Any]])?.first?["name"] as? String == "eth1" && after["isExpensive"] as? Bool == false,
                "\(after)")
    }

    /// Where NM checks, its verdict stands and NetPath connects to no endpoint of its own
    /// (strace counts the connections to ports 80 and 443); switched off, no verdict and
    /// still none. (NM's `portal` is the exception: see the next test.)
    @Test(arguments: ["limited", "full", "disabled"])
    func networkManagersVerdictAndNoRequestOfOurOwn(mode: String) throws {
        let strace = try requireProgram("/usr/bin/strace", package: "strace")
        let lab = try DesktopLabRun("up")
        defer { lab.remove() }
        try lab.lab("check", mode)
        let trace = "/tmp/\(lab.name)/netpath.strace"
        let outcome = try #require(try RunningTool(["exec", lab.name, strace, "-f", "-e", "trace=connect", "-o", trace,
                                                    netpathBinary, "status", "--probe", "--json"],
                                                   executable: DesktopLabRun.script).finish(seconds: 30))
        let path = try jsonObject(try #require(outcome.lines.first, "\(outcome.standardError)"))
        let expected = ["portal": "portal", "limited": "limited", "full": "full", "disabled": "unknown"][mode]
        let nm = try lab.lab("prop", "connectivity")
        #expect(mode == "disabled" || ["portal": "2", "limited": "3", "full": "4"][mode] == nm)
        #expect(path["connectivity"] as? String == expected && path["connectivitySource"] as? String == "networkManager", "\(path)")
        let connects = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains("htons(80)") || $0.contains("htons(443)") }
        #expect(connects.isEmpty, "\(connects)")
    }

    /// One-shot commands hold only what they answer (issue 37): where NetworkManager runs,
    /// plain `wait` and `probe` (whose check runs over the kernel's path) connect to no bus;
    /// `wait --probe` and `status --probe` connect once, to NetworkManager, and not to logind
    /// (sleep signals are for monitors that last), and make no inotify instance of the
    /// desktop's (networkd's files are read once). `watch --probe` connects twice.
    @Test func oneShotCommandsConnectOnlyToWhatTheyAnswer() throws {
        let strace = try requireProgram("/usr/bin/strace", package: "strace")
        let lab = try DesktopLabRun("up")
        defer { lab.remove() }
        // NM's `limited`: `wait --probe` waits for `full`, and its timeout ends it.
        try lab.lab("check", "limited")
        let bus = try #require(lab.values["bus"]?.split(separator: "=").last.map(String.init), "\(lab.values)")
        let trace = "/tmp/\(lab.name)/one-shot.strace"
        func traced(_ arguments: [String]) throws -> (bus: Int, inotify: Int, outcome: Outcome) {
            let outcome = try #require(try RunningTool(["exec", lab.name, strace, "-f", "-e", "trace=connect,inotify_init1", "-o", trace,
                                                        netpathBinary] + arguments, executable: DesktopLabRun.script).finish(seconds: 30))
            let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n")
            return (calls.filter { $0.contains("connect(") && $0.contains(bus) }.count,
                    calls.filter { $0.contains("inotify_init1(") && !$0.contains("resumed") }.count, outcome)
        }
        let wait = try traced(["wait", "--timeout", "5"])
        let probe = try traced(["probe", "--json"])
        let waitProbe = try traced(["wait", "--probe", "--timeout", "1"])
        let statusProbe = try traced(["status", "--probe", "--json"])
        #expect(wait.outcome.status == 0 && wait.bus == 0, "wait: \(wait)")
        #expect(!probe.outcome.lines.isEmpty && probe.bus == 0, "probe: \(probe)")
        #expect(waitProbe.outcome.status == 1 && waitProbe.bus == 1, "wait --probe: \(waitProbe)")
        let path = try jsonObject(try #require(statusProbe.outcome.lines.first, "\(statusProbe.outcome.standardError)"))
        #expect(path["connectivity"] as? String == "limited" && statusProbe.bus == 1, "status --probe: \(statusProbe)")
        // The reader's own watch of the resolver files is the one inotify instance left.
        #expect(waitProbe.inotify == 1 && statusProbe.inotify == 1, "inotify: \(waitProbe.inotify), \(statusProbe.inotify)")
        // A monitor that lasts: NetworkManager and logind.
        let watch = try traced(["watch", "--probe", "--json", "--count", "1"])
        #expect(watch.outcome.lines.count == 1 && watch.bus == 2, "watch --probe: \(watch)")
    }

    /// NM says portal and has no address to log in at on the bus: NM's verdict is shown at
    /// once, and one check of ours finds the address (the lab's portal redirects every URL to
    /// http://portal.test/login); NM stays the verdict's source.
    @Test func networkManagersPortalGetsItsAddressFromOneCheckOfOurs() throws {
        let lab = try DesktopLabRun("up")
        defer { lab.remove() }
        try lab.lab("check", "portal")
        let watch = try lab.netpath(["watch", "--json", "--probe"])
        defer { watch.signal(SIGTERM); _ = watch.finish() }
        var line = try jsonObject(try #require(watch.nextLine(seconds: 20)))
        while line["portalURL"] is NSNull {
            #expect(line["connectivity"] as? String == "portal" && line["connectivitySource"] as? String == "networkManager", "\(line)")
            line = try jsonObject(try #require(watch.nextLine(seconds: 20), "no line with the portal's address"))
        }
        #expect(line["connectivity"] as? String == "portal" && line["portalURL"] as? String == "http://portal.test/login"
                && line["connectivitySource"] as? String == "networkManager", "\(line)")
        #expect(try lab.lab("prop", "connectivity") == "2")
    }

    /// The same asked once: `status --probe` waits for the address (within the check's
    /// timeout) instead of printing NM's `portal` without it.
    @Test func statusWithAProbeGivesNetworkManagersPortalItsAddress() throws {
        let lab = try DesktopLabRun("up")
        defer { lab.remove() }
        try lab.lab("check", "portal")
        let outcome = try #require(try lab.netpath(["status", "--probe", "--json"]).finish(seconds: 30))
        let path = try jsonObject(try #require(outcome.lines.first, "\(outcome.standardError)"))
        #expect(path["connectivity"] as? String == "portal" && path["portalURL"] as? String == "http://portal.test/login"
                && path["connectivitySource"] as? String == "networkManager", "\(path)")
        #expect(outcome.status == 0, "exit \(outcome.status): \(outcome.standardError)")
    }

    /// NM's `portal` is stale (the user logged in; NM has not looked again yet: the lab's
    /// servers still show NM the portal, and NetPath the Internet): our one check finds no
    /// portal, and `status --probe` answers with NM's verdict as soon as that check ends, not
    /// at the probe timeout (60 s here).
    @Test func statusWithAProbeAnswersOnceOurCheckFindsNoPortalAddress() throws {
        let lab = try DesktopLabRun("up")
        defer { lab.remove() }
        try lab.lab("check", "portal")
        try "stale-portal\n".write(toFile: "/tmp/\(lab.name)/mode", atomically: true, encoding: .utf8)
        let started = Date()
        let outcome = try #require(try lab.netpath(["status", "--probe", "--json", "--probe-timeout", "60"]).finish(seconds: 90))
        let path = try jsonObject(try #require(outcome.lines.first, "\(outcome.standardError)"))
        #expect(path["connectivity"] as? String == "portal" && path["portalURL"] is NSNull
                && path["connectivitySource"] as? String == "networkManager", "\(path)")
        #expect(Date().timeIntervalSince(started) < 30, "status --probe waited for its timeout")
    }

    @Test func endpointsOfOursAreAskedAnyway() throws {
        let lab = try DesktopLabRun("up", ["--check", "portal"])
        defer { lab.remove() }
        let path = try object(try lab.netpath(["status", "--probe", "--json", "--url", "http://check.test/anything"]).finish(seconds: 30))
        // The lab's server answers every URL with its portal redirect: our own check says so.
        #expect(path["connectivity"] as? String == "portal" && path["portalURL"] as? String == "http://portal.test/login"
                && path["connectivitySource"] as? String == "check", "\(path)")
    }

    /// No bus, a dead socket or a bus that never answers: the kernel's path, unchanged.
    @Test func withoutAWorkingBusThePathIsTheKernels() throws {
        let lab = try DesktopLabRun("up", ["--metered", "yes"])
        defer { lab.remove() }
        let kernel = try object(try lab.netpath(["status", "--json", "--ignore-desktop"]).finish())
        let stalled = try #require(try lab.lab("stalled-bus").split(separator: "\n").first { $0.hasPrefix("bus=") }).dropFirst(4)
        let dead = try #require(try lab.lab("dead-bus").split(separator: "\n").first { $0.hasPrefix("bus=") }).dropFirst(4)
        for bus in ["unix:path=/tmp/\(lab.name)/no-such-socket", String(dead), String(stalled), ""] {
            let outcome = try #require(try lab.netpath(["status", "--json"], environment: ["DBUS_SYSTEM_BUS_ADDRESS=\(bus)"]).finish())
            var path = try jsonObject(try #require(outcome.lines.first, "\(outcome.standardError)"))
            #expect(outcome.status == 0 && outcome.standardError.isEmpty, "\(bus): \(outcome.standardError)")
            path["time"] = kernel["time"]
            let same = try JSONSerialization.data(withJSONObject: path, options: .sortedKeys)
                == JSONSerialization.data(withJSONObject: kernel, options: .sortedKeys)
            #expect(same, "\(bus): \(path)")
        }
    }

    /// networkd recorded the portal the network announced (DHCP option 114): `portal` with
    /// that URL, though the walled garden drops the check's requests.
    @Test func anAnnouncedCaptivePortal() throws {
        let lab = try DesktopLabRun("up-networkd")
        defer { lab.remove() }
        let announced = try #require(lab.values["captive_portal"])
        let path = try object(try lab.netpath(["status", "--probe", "--json"]).finish(seconds: 30))
        #expect(path["connectivity"] as? String == "portal" && path["portalURL"] as? String == announced
                && path["connectivitySource"] as? String == "systemdNetworkd", "\(path)")
    }

    /// Sandboxed (the portal's session bus, no system bus): the portal's metered and
    /// connectivity, and its `changed` signal.
    @Test func theFlatpakPortal() throws {
        let lab = try DesktopLabRun("up")
        defer { lab.remove() }
        let portal = try lab.lab("portal-up", "--metered", "true", "--connectivity", "4")
        let session = try #require(portal.split(separator: "\n").first { $0.hasPrefix("session_bus=") }).dropFirst(12)
        let environment = ["DBUS_SYSTEM_BUS_ADDRESS=", "DBUS_SESSION_BUS_ADDRESS=\(session)", "GTK_USE_PORTAL=1"]
        let watch = try lab.netpath(["watch", "--json", "--probe"], environment: environment)
        defer { watch.signal(SIGTERM); _ = watch.finish() }
        let first = try jsonObject(try #require(watch.nextLine(seconds: 20)))
        #expect(first["isExpensive"] as? Bool == true && first["expensiveSource"] as? String == "flatpakPortal", "\(first)")
        #expect(first["connectivity"] as? String == "full" && first["connectivitySource"] as? String == "flatpakPortal")
        try lab.lab("portal-set", "metered", "false")
        let changed = try jsonObject(try #require(watch.nextLine(seconds: 20)))
        #expect(changed["isExpensive"] as? Bool == false)
    }
}
