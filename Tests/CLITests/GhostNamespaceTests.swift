import Foundation
import KernelTestSupport
import Testing

// A watched namespace whose holder is gone: a container's process that exited, a bind
// mount unmounted without its file removed. `watch` ends (exit 3), `serve` lets it go, and
// NetPath's own sockets never keep the dead namespace (and its veth) alive.

@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct GhostNamespaceTests {
    /// Whether `link` still exists in `namespace`, until it does not (at most `seconds`):
    /// a veth goes when the namespace of its peer is freed, which the kernel does in the
    /// background.
    static func linkGone(_ link: String, in namespace: TestNamespace, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if (try? namespace.ip("link show \(link)")) == nil { return true }
            HTTPExchange.pause()
        }
        return false
    }

    /// A "container": a process in a network namespace of its own, with a veth to `host`.
    static func container(linkedTo host: TestNamespace, link: String) throws -> Child {
        let process = try Child("/usr/bin/unshare", ["--net", "--", "/bin/sleep", "1000"])
        // unshare has made the namespace once /proc/PID/ns/net differs from ours.
        let deadline = Date().addingTimeInterval(10)
        let ours = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")
        while (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.pid)/ns/net")) == ours, Date() < deadline {
            HTTPExchange.pause()
        }
        try host.ip("link add \(link) type veth peer name eth0 netns \(process.pid)")
        return process
    }

    @Test(arguments: ["PID", "/proc/PID/ns/net"])
    func aContainerWhoseProcessExitedEndsWatch(form: String) throws {
        let host = try TestNamespace("ghost")
        defer { host.remove() }
        let process = try GhostNamespaceTests.container(linkedTo: host, link: "vg0")
        defer { process.kill() }
        let watching = try RunningTool(["watch", "--netns", form.replacingOccurrences(of: "PID", with: "\(process.pid)")])
        #expect(watching.nextLine() != nil, "no first line")
        process.kill()
        let outcome = try #require(watching.finish(), "watch did not end when the namespace's process exited")
        #expect(outcome.status == 3)
        #expect(outcome.standardError.contains("its process exited"), "\(outcome.standardError)")
        #expect(GhostNamespaceTests.linkGone("vg0", in: host), "the dead container's namespace stayed alive")
    }

    /// `umount /run/netns/NAME` without removing the file (what some runtimes do): the
    /// namespace is gone as far as anyone can reach it.
    @Test func anUnmountedNamespaceEndsWatch() throws {
        let host = try TestNamespace("ghostm")
        defer { host.remove() }
        let name = "np-ghostb-\(getpid())"
        try run(Kernel.ipPath, ["netns", "add", name])
        defer { _ = try? run(Kernel.ipPath, ["netns", "del", name]); unlink("/run/netns/" + name) }
        try host.ip("link add vg1 type veth peer name eth0 netns \(name)")
        let watching = try RunningTool(["watch", "--netns", name])
        #expect(watching.nextLine() != nil, "no first line")
        try run("/bin/umount", ["/run/netns/" + name])
        let outcome = try #require(watching.finish(), "watch did not end when the namespace was unmounted")
        #expect(outcome.status == 3)
        #expect(outcome.standardError.contains("was deleted"), "\(outcome.standardError)")
        #expect(GhostNamespaceTests.linkGone("vg1", in: host), "the unmounted namespace stayed alive")
    }

    /// A container with a mount namespace of its own, whose resolv.conf is a bind mount (as
    /// Docker's is): `watch --netns PID` reads it through `/proc/PID/root` and sees it
    /// rewritten in place, not the host's file.
    @Test func aContainersOwnResolverFileIsWatched() throws {
        let host = try TestNamespace("ctrdns")
        defer { host.remove() }
        let file = NSTemporaryDirectory() + "netpath-ctr-resolv-\(getpid())"
        try "# no servers yet\n".write(toFile: file, atomically: false, encoding: .utf8)
        defer { unlink(file) }
        // unshare execs the shell, which execs sleep: one process, the container's.
        let container = try RunningTool(["--net", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
                                         "mount --bind \(file) /etc/resolv.conf && echo ready && exec sleep 1000"],
                                        executable: "/usr/bin/unshare")
        defer { container.signal(SIGKILL); _ = container.finish() }
        let ready = container.nextLine()
        try #require(ready == "ready", "the container did not start: \(ready ?? "nothing")")
        let process = (pid: container.processIdentifier, ())
        try host.ip("link add vc0 type veth peer name eth0 netns \(process.pid)")
        try host.batch(["link set vc0 up", "addr add 10.77.0.1/24 dev vc0"])
        try run("/usr/bin/nsenter", ["--net=/proc/\(process.pid)/ns/net", "--", Kernel.ipPath, "-batch", "-"],
                input: "link set eth0 up\naddr add 10.77.0.2/24 dev eth0\nroute add default via 10.77.0.1\n")
        let watching = try RunningTool(["watch", "--netns", "\(process.pid)"])
        defer { watching.signal(SIGTERM); _ = watching.finish() }
        let first = try #require(watching.nextLine(), "no first line")
        #expect(first.contains("no DNS"), "\(first)")
        // In place, as dhclient-script and Docker rewrite it.
        let handle = try #require(FileHandle(forWritingAtPath: file))
        handle.truncateFile(atOffset: 0)
        handle.write(Data("nameserver 192.0.2.53\n".utf8))
        try handle.close()
        let next = try #require(watching.nextLine(), "the container's resolv.conf change was not seen")
        #expect(next.contains("DNS") && !next.contains("no DNS"), "\(next)")
    }

    /// A container whose `/etc/resolv.conf` is a symlink to an absolute path that exists
    /// only in its own mount namespace (systemd-nspawn's and LXC's
    /// `/run/systemd/resolve/stub-resolv.conf`): the link is followed in the container's root,
    /// as the container's own resolver follows it (it was followed in ours: no DNS).
    @Test func aContainersResolverSymlinkIsFollowedInItsOwnRoot() throws {
        let host = try TestNamespace("ctrlnk")
        defer { host.remove() }
        let unique = "netpath-ctr-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let etc = NSTemporaryDirectory() + unique + "-etc"
        let runDirectory = "/run/" + unique
        try FileManager.default.createDirectory(atPath: etc, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: runDirectory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: etc); try? FileManager.default.removeItem(atPath: runDirectory) }
        try FileManager.default.createSymbolicLink(atPath: etc + "/resolv.conf", withDestinationPath: runDirectory + "/resolv.conf")
        // In the container only: a tmpfs on the run directory holding the file, and the
        // directory with the link over /etc. Ours stays empty.
        let container = try RunningTool(["--net", "--mount", "--propagation", "private", "--", "/bin/sh", "-c",
                                         "mount -t tmpfs none \(runDirectory) && printf 'nameserver 192.0.2.53\\n' > \(runDirectory)/resolv.conf"
                                         + " && mount --bind \(etc) /etc && echo ready && exec sleep 1000"],
                                        executable: "/usr/bin/unshare")
        defer { container.signal(SIGKILL); _ = container.finish() }
        let ready = container.nextLine()
        try #require(ready == "ready", "the container did not start: \(ready ?? "nothing")")
        #expect(!FileManager.default.fileExists(atPath: runDirectory + "/resolv.conf"))
        let pid = container.processIdentifier
        try host.ip("link add vl0 type veth peer name eth0 netns \(pid)")
        try host.batch(["link set vl0 up", "addr add 10.77.0.1/24 dev vl0"])
        try run("/usr/bin/nsenter", ["--net=/proc/\(pid)/ns/net", "--", Kernel.ipPath, "-batch", "-"],
                input: "link set eth0 up\naddr add 10.77.0.2/24 dev eth0\nroute add default via 10.77.0.1\n")
        let status = try #require(try runTool(netpathBinary, ["status", "--netns", "\(pid)"]))
        #expect(status.status == 0 && status.standardOutput.contains("DNS") && !status.standardOutput.contains("no DNS"),
                "\(status.standardOutput)")
        let watching = try RunningTool(["watch", "--netns", "\(pid)"])
        defer { watching.signal(SIGTERM); _ = watching.finish() }
        let first = try #require(watching.nextLine(), "no first line")
        #expect(first.contains("DNS") && !first.contains("no DNS"), "\(first)")
    }

    /// `serve --netns PID`: the namespace leaves the metrics when its process exits, and is
    /// not kept alive.
    @Test func serveLetsAnExitedContainerGo() throws {
        let host = try TestNamespace("ghosts")
        defer { host.remove() }
        let process = try GhostNamespaceTests.container(linkedTo: host, link: "vg2")
        defer { process.kill() }
        let serving = try Serving(["--netns", "\(process.pid)"])
        var stopped = false
        defer { if !stopped { _ = serving.stop() } }
        let label = "netns=\"/proc/\(process.pid)/ns/net\""
        #expect(try serving.metrics { $0.contains("netpath_namespace_up{\(label)} 1") }.contains("netpath_namespace_up{\(label)} 1"))
        process.kill()
        let after = try serving.metrics { !$0.contains(label) }
        #expect(!after.contains(label), "the exited container's series stayed")
        #expect(GhostNamespaceTests.linkGone("vg2", in: host), "the dead container's namespace stayed alive")
        stopped = true
        let outcome = try #require(serving.stop())
        #expect(outcome.standardError.contains("its process exited"), "\(outcome.standardError)")
    }
}
