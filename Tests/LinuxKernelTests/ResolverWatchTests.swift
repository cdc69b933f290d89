import Foundation
import Testing
import KernelTestSupport
@testable import NetPath

/// SPEC §2.6: resolver changes are seen however they happen (inotify, no polling). The
/// monitor reads files in a scratch directory of the test's own; the in-place write through
/// a bind mount, which needs a mount namespace, is tested with the real binary (CLITests).
@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct ResolverWatchTests {
    /// A satisfied namespace and a monitor reading `candidates`/`upstream` under `base`.
    func start(_ label: String, base: String) async throws -> (TestNamespace, PathMonitor, PathRecorder) {
        let ns = try TestNamespace(label)
        try ns.addLinks("eth0")
        try ns.batch(["link set eth0 up", "addr add 10.40.0.2/24 dev eth0", "route add default via 10.40.0.1"])
        var options = LinuxSourceOptions()
        options.resolver = ResolverConfiguration(candidates: [base + "/etc/resolv.conf"], upstreamFile: base + "/run/resolve/resolv.conf")
        let (monitor, recorder) = try startMonitor(ns, options: options)
        #expect(await recorder.wait { $0.status == .satisfied } != nil)
        return (ns, monitor, recorder)
    }

    func scratch(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("np-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
    }

    func write(_ text: String, to path: String, inPlace: Bool = false) throws {
        if inPlace {
            // As dhclient-script does: truncate and write the same inode.
            let handle = try #require(FileHandle(forWritingAtPath: path))
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: Data(text.utf8))
            try handle.close()
        } else {
            try text.write(toFile: path, atomically: true, encoding: .utf8)  // a rename over the old file
        }
    }

    @Test func directoriesAndFilesThatAppearVanishAndComeBack() async throws {
        let base = scratch("dnsdir")
        defer { try? FileManager.default.removeItem(atPath: base) }
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        let (ns, monitor, recorder) = try await start("dnsdir", base: base)
        defer { monitor.cancel(); ns.remove() }
        #expect(recorder.paths.last?.supportsDNS == false)
        // Neither the file nor its directory exists at start (/etc/netns/NAME/ made later).
        try FileManager.default.createDirectory(atPath: base + "/etc", withIntermediateDirectories: true)
        try write("nameserver 192.0.2.53\n", to: base + "/etc/resolv.conf")
        #expect(await recorder.wait { $0.supportsDNS } != nil)
        // Removed with its directory, then made again.
        try FileManager.default.removeItem(atPath: base + "/etc")
        #expect(await recorder.wait { !$0.supportsDNS } != nil)
        try FileManager.default.createDirectory(atPath: base + "/etc", withIntermediateDirectories: true)
        try write("nameserver 192.0.2.54\n", to: base + "/etc/resolv.conf")
        #expect(await recorder.wait { $0.supportsDNS } != nil)
        // Rewritten in place, twice.
        try write("# none\n", to: base + "/etc/resolv.conf", inPlace: true)
        #expect(await recorder.wait { !$0.supportsDNS } != nil)
        try write("nameserver 2001:db8::53\n", to: base + "/etc/resolv.conf", inPlace: true)
        #expect(await recorder.wait { $0.supportsDNS } != nil)
    }

    @Test func symlinksRetargetedAndTheSystemdStubsUpstreamAppearingAtBoot() async throws {
        let base = scratch("dnslnk")
        defer { try? FileManager.default.removeItem(atPath: base) }
        for directory in ["/etc", "/run/a", "/run/b"] {
            try FileManager.default.createDirectory(atPath: base + directory, withIntermediateDirectories: true)
        }
        try write("nameserver 192.0.2.53\n", to: base + "/run/a/resolv.conf")
        try write("# no servers yet\n", to: base + "/run/b/resolv.conf")
        try FileManager.default.createSymbolicLink(atPath: base + "/etc/resolv.conf", withDestinationPath: base + "/run/a/resolv.conf")
        let (ns, monitor, recorder) = try await start("dnslnk", base: base)
        defer { monitor.cancel(); ns.remove() }
        #expect(recorder.paths.last?.supportsDNS == true)
        // `ln -sfn`: a new link renamed over the old one, to a file without servers.
        try FileManager.default.createSymbolicLink(atPath: base + "/etc/.new", withDestinationPath: "../run/b/resolv.conf")
        #expect(rename(base + "/etc/.new", base + "/etc/resolv.conf") == 0)
        #expect(await recorder.wait { !$0.supportsDNS } != nil)
        // The new target, rewritten in place, is watched.
        try write("nameserver 127.0.0.53\n", to: base + "/run/b/resolv.conf", inPlace: true)
        // The stub names no upstream yet: systemd-resolved's directory does not exist.
        #expect(await recorder.wait(seconds: 1) { $0.supportsDNS } == nil)
        try FileManager.default.createDirectory(atPath: base + "/run/resolve", withIntermediateDirectories: true)
        try write("nameserver 192.0.2.99\n", to: base + "/run/resolve/resolv.conf")
        #expect(await recorder.wait { $0.supportsDNS } != nil)
        // The old target changing no longer matters.
        try write("# gone\n", to: base + "/run/a/resolv.conf", inPlace: true)
        try write("# gone\n", to: base + "/run/resolve/resolv.conf", inPlace: true)
        #expect(await recorder.wait { !$0.supportsDNS } != nil)
    }

    @Test func aPlanWatchesAncestorsTargetsAndContent() {
        let existing = ["/", "/etc", "/etc/resolv.conf", "/run", "/run/systemd"]
        let links = ["/etc/resolv.conf": "../run/systemd/resolve/stub-resolv.conf"]
        let plan = ResolverWatcher.Plan(
            paths: ["/etc/netns/n1/resolv.conf", "/etc/resolv.conf", "/run/systemd/resolve/resolv.conf"],
            exists: { existing.contains($0) }, readLink: { links[$0] }
        )
        // /etc/netns does not exist: /etc is watched for "netns" (and "resolv.conf").
        #expect(Set(plan.watches["/etc"]?.names ?? []) == ["netns", "resolv.conf"])
        #expect(plan.watches["/etc/resolv.conf"]?.content == true)
        // The symlink's target and the upstream file: their nearest existing ancestor.
        #expect(plan.watches["/run/systemd"]?.names == ["resolve"])
        #expect(plan.watches["/run/systemd/resolve/stub-resolv.conf"] == nil)
    }
}
