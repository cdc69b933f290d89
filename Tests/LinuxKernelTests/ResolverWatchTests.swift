import Foundation
import Testing
import KernelTestSupport
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

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

    /// A NixOS switch: `/etc/resolv.conf -> /etc/static/resolv.conf`, `/etc/static` a link
    /// to a generation's directory, renamed over by a new link (`ln -s GEN .static.tmp &&
    /// mv -Tf .static.tmp static`); the old generations stay.
    @Test func nixosGenerationsSwitchedByRenamingADirectoryLink() async throws {
        let base = scratch("dnsnix")
        defer { try? FileManager.default.removeItem(atPath: base) }
        for (generation, text) in [("g1", "nameserver 192.0.2.53\n"), ("g2", "# no servers\n"), ("g3", "nameserver 10.53\n")] {
            try FileManager.default.createDirectory(atPath: base + "/nix/store/\(generation)-etc/etc", withIntermediateDirectories: true)
            try write(text, to: base + "/nix/store/\(generation)-etc/etc/resolv.conf")
        }
        try FileManager.default.createDirectory(atPath: base + "/etc", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: base + "/etc/static", withDestinationPath: base + "/nix/store/g1-etc/etc")
        try FileManager.default.createSymbolicLink(atPath: base + "/etc/resolv.conf", withDestinationPath: base + "/etc/static/resolv.conf")
        let (ns, monitor, recorder) = try await start("dnsnix", base: base)
        defer { monitor.cancel(); ns.remove() }
        #expect(recorder.paths.last?.supportsDNS == true)
        func switchTo(_ generation: String) throws {
            try FileManager.default.createSymbolicLink(atPath: base + "/etc/.static.tmp", withDestinationPath: "../nix/store/\(generation)-etc/etc")
            #expect(rename(base + "/etc/.static.tmp", base + "/etc/static") == 0)
        }
        try switchTo("g2")
        #expect(await recorder.wait { !$0.supportsDNS } != nil)
        try switchTo("g3")
        #expect(await recorder.wait { $0.supportsDNS } != nil)
        // The generation in use is watched for writes in place; the old one no longer is.
        try write("# emptied\n", to: base + "/nix/store/g3-etc/etc/resolv.conf", inPlace: true)
        #expect(await recorder.wait { !$0.supportsDNS } != nil)
        try write("nameserver 192.0.2.1\n", to: base + "/nix/store/g1-etc/etc/resolv.conf", inPlace: true)
        #expect(await recorder.wait(seconds: 1) { $0.supportsDNS } == nil)
    }

    /// Kubernetes' atomic writer: `resolv.conf -> ..data/resolv.conf`, `..data -> ..TIME`
    /// (a directory); an update writes a new `..TIME`, renames a new `..data` link over the
    /// old one and removes the old directory.
    @Test func kubernetesAtomicWriterSwapsData() async throws {
        let base = scratch("dnsk8s")
        defer { try? FileManager.default.removeItem(atPath: base) }
        let volume = base + "/etc"
        func publish(_ version: Int, _ text: String) throws {
            let directory = "..2025_01_01_00_00_0\(version).\(version)"
            try FileManager.default.createDirectory(atPath: volume + "/" + directory, withIntermediateDirectories: true)
            try write(text, to: volume + "/" + directory + "/resolv.conf")
            try FileManager.default.createSymbolicLink(atPath: volume + "/..data_tmp", withDestinationPath: directory)
            #expect(rename(volume + "/..data_tmp", volume + "/..data") == 0)
            if version > 1 { try FileManager.default.removeItem(atPath: volume + "/..2025_01_01_00_00_0\(version - 1).\(version - 1)") }
        }
        try publish(1, "nameserver 192.0.2.53\n")
        try FileManager.default.createSymbolicLink(atPath: volume + "/resolv.conf", withDestinationPath: "..data/resolv.conf")
        let (ns, monitor, recorder) = try await start("dnsk8s", base: base)
        defer { monitor.cancel(); ns.remove() }
        #expect(recorder.paths.last?.supportsDNS == true)
        try publish(2, "# no servers\n")
        #expect(await recorder.wait { !$0.supportsDNS } != nil)
        try publish(3, "search svc.cluster.local\nnameserver fd00::a\n")
        #expect(await recorder.wait { $0.supportsDNS } != nil)
        try write("nameserver 192.0.2.1\r\n", to: volume + "/..2025_01_01_00_00_03.3/resolv.conf", inPlace: true)
        #expect(await recorder.wait { !$0.supportsDNS } != nil)
    }
}
