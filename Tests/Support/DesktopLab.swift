import Foundation
import Synchronization

/// A real NetworkManager with its own system bus, in namespaces `desktop-lab.sh` builds
/// (its header says how): the host namespace's `eth0` gets DHCP from a peer, NetworkManager
/// checks connectivity against the peer's server. ``remove()`` stops everything and deletes
/// the namespaces and files (call it in `defer`).
public final class DesktopLab: Sendable {
    public let name: String
    /// The lab's system bus, as a D-Bus address (`unix:path=/tmp/NAME/bus`; nothing there in
    /// a lab ``withoutNetworkManager()``).
    public let bus: String
    /// The device NetworkManager manages, and its interface index in the host namespace
    /// (empty and 0 in a lab ``withoutNetworkManager()``).
    public let device: String
    public let ifindex: Int32

    public static let scriptPath = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("desktop-lab.sh").path

    private static let counter = Atomic<Int>(0)

    /// Builds the lab and waits until NetworkManager has connected `eth0` (about 0.7 s).
    /// Throws with the script's output when it fails; nothing of the lab is left then.
    /// - Parameters:
    ///   - metered: the profile's metered setting: `yes`, `no` or `guess` (DHCP option 43).
    ///   - check: the connectivity check's answer: `full`, `portal`, `limited` or `disabled`.
    public init(metered: String? = nil, check: String? = nil) throws {
        let name = "npd-\(getpid())-\(DesktopLab.counter.add(1, ordering: .relaxed).newValue)"
        var arguments = ["up", name]
        if let metered { arguments += ["--metered", metered] }
        if let check { arguments += ["--check", check] }
        let values: [String: String]
        do {
            values = DesktopLab.values(try DesktopLab.runScript(arguments, seconds: 60))
        } catch {
            DesktopLab.down(name)
            throw error
        }
        guard values["ready"] != nil, let bus = values["bus"], let device = values["device"],
              let ifindex = values["ifindex"].flatMap({ Int32($0) }) else {
            DesktopLab.down(name)
            throw CommandFailure(description: "desktop-lab.sh up \(name): unexpected output: \(values)")
        }
        self.name = name
        self.bus = bus
        self.device = device
        self.ifindex = ifindex
    }

    private init(name: String) {
        self.name = name
        bus = "unix:path=/tmp/\(name)/bus"
        device = ""
        ifindex = 0
    }

    /// A lab without NetworkManager (no namespaces), for the stalled and dead buses and the
    /// portal stand-in: only its directory, `/tmp/NAME`, made by those commands.
    public static func withoutNetworkManager() -> DesktopLab {
        DesktopLab(name: "npd-\(getpid())-\(counter.add(1, ordering: .relaxed).newValue)")
    }

    /// Changes the profile's metered setting at run time and waits until the device says so.
    public func setMetered(_ value: String) throws { try run("metered", value) }

    /// Changes the check server's answer and waits until NetworkManager's `Connectivity` follows.
    public func setCheck(_ mode: String) throws { try run("check", mode) }

    public func restartNetworkManager() throws { try run("restart-nm") }
    public func stopNetworkManager() throws { try run("stop-nm") }

    /// One property as NetworkManager reports it (`device-metered`, `connectivity`, …).
    public func property(_ name: String) throws -> String {
        try run("prop", name).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A bus address where a socket accepts and never answers (not even the handshake).
    public func stalledBus() throws -> String { try address(run("stalled-bus"), key: "bus") }

    /// A bus address where nothing listens (connect: `ECONNREFUSED`).
    public func deadBus() throws -> String { try address(run("dead-bus"), key: "bus") }

    /// Starts the portal stand-in on a private session bus; its address.
    public func portalUp(metered: Bool, connectivity: Int) throws -> String {
        try address(run("portal-up", "--metered", "\(metered)", "--connectivity", "\(connectivity)"), key: "session_bus")
    }

    /// Changes the portal stand-in's `available`, `metered` or `connectivity`; it emits `changed`.
    public func portalSet(_ key: String, _ value: String) throws { try run("portal-set", key, value) }

    /// Kills the portal stand-in's session bus and the portal (SIGTERM, by their pid files'
    /// first words), as a session ending or a bus crashing.
    public func killSessionBus() throws {
        for daemon in ["session-bus", "portal"] {
            let text = try String(contentsOfFile: "/tmp/\(name)/\(daemon).pid", encoding: .utf8)
            guard let pid = text.split(separator: " ").first.flatMap({ Int32($0) }) else {
                throw CommandFailure(description: "/tmp/\(name)/\(daemon).pid: \(text)")
            }
            kill(pid, SIGTERM)
        }
    }

    /// Stops the daemons and deletes the namespaces and files; again is harmless.
    public func remove() { DesktopLab.down(name) }

    @discardableResult
    private func run(_ command: String, _ arguments: String...) throws -> String {
        try DesktopLab.runScript([command, name] + arguments, seconds: 60)
    }

    private func address(_ output: String, key: String) throws -> String {
        guard let value = DesktopLab.values(output)[key] else {
            throw CommandFailure(description: "desktop-lab.sh \(name): no \(key)= in \(output)")
        }
        return value
    }

    /// `key=value` lines (and bare words, such as `ready`, with an empty value).
    private static func values(_ output: String) -> [String: String] {
        var values: [String: String] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            values[String(parts[0])] = parts.count == 2 ? String(parts[1]) : ""
        }
        return values
    }

    private static func down(_ name: String) {
        _ = try? runScript(["down", name], seconds: 30)
    }

    /// Runs desktop-lab.sh and returns its output (standard error included); throws with it
    /// when it fails or has not ended after `seconds` (it is killed then).
    @discardableResult
    private static func runScript(_ arguments: [String], seconds: Double) throws -> String {
        let child = try Child("/usr/bin/env", ["bash", scriptPath] + arguments, errorsToOutput: true)
        let deadline = Date().addingTimeInterval(seconds)
        let text = String(decoding: child.readToEnd(until: deadline).output, as: UTF8.self)
        let command = "desktop-lab.sh " + arguments.joined(separator: " ")
        guard let status = child.wait(seconds: max(0, deadline.timeIntervalSinceNow)) else {
            child.kill()
            throw CommandFailure(description: "\(command) did not end within \(Int(seconds)) s: \(text)")
        }
        guard status == 0 else {
            throw CommandFailure(description: "\(command) failed (status \(status)): \(text)")
        }
        return text
    }
}
