import Foundation
import KernelTestSupport
import Testing

// `serve --all-namespaces` on a container node: hundreds of namespaces under a service's
// default limits, as the non-root user of the shipped unit with only the capability it needs.

@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"))
struct ServeScaleTests {
    /// The inotify instances and descriptors `pid` holds now.
    static func descriptors(of pid: pid_t) -> (inotify: Int, all: Int) {
        let directory = "/proc/\(pid)/fd"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        let inotify = names.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0)) == "anon_inode:inotify" }
        return (inotify.count, names.count)
    }

    /// 300 namespaces, made while `serve --all-namespaces` runs as `nobody` with
    /// `CAP_SYS_ADMIN`, a soft limit of 512 descriptors and the kernel's 128 inotify
    /// instances per user: every one is watched (`netpath_namespace_up 1`), the process holds
    /// the same few inotify instances as with none, nothing is printed on stderr (a
    /// namespace file is refused before `ip netns add` mounts it: that is not an error), and
    /// deleted ones leave.
    @Test func threeHundredNamespacesAsAnUnprivilegedService() throws {
        try requireProgram("/usr/bin/setpriv", package: "util-linux")
        try requireProgram("/usr/bin/prlimit", package: "util-linux")
        var hard = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &hard)
        let launcher = ["/usr/bin/prlimit", "--nofile=512:\(hard.rlim_max)", "--",
                        "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        "--inh-caps=+sys_admin", "--ambient-caps=+sys_admin"]
        let serving = try Serving(["--all-namespaces"], launcher: launcher)
        var stopped = false
        defer { if !stopped { _ = serving.stop() } }
        let before = ServeScaleTests.descriptors(of: serving.tool.processIdentifier)

        let names = (0..<300).map { "np-scale-\(getpid())-\($0)" }
        defer { _ = try? run(Kernel.ipPath, ["-force", "-batch", "-"], input: names.map { "netns del \($0)" }.joined(separator: "\n") + "\n") }
        try run(Kernel.ipPath, ["-force", "-batch", "-"], input: names.map { "netns add \($0)" }.joined(separator: "\n") + "\n")

        let up = names.map { "netpath_namespace_up{netns=\"\($0)\"} 1" }
        let text = try serving.metrics(until: { text in up.allSatisfy(text.contains) }, seconds: 120)
        let missing = zip(names, up).filter { !text.contains($0.1) }.map(\.0)
        #expect(missing.isEmpty, "\(missing.count) of 300 namespaces not watched, e.g. \(missing.prefix(3)); \(text.split(separator: "\n").filter { $0.contains("cannot be watched") }.prefix(3))")
        let during = ServeScaleTests.descriptors(of: serving.tool.processIdentifier)
        #expect(during.inotify == before.inotify, "inotify instances: \(before.inotify) with no namespace, \(during.inotify) with 300")
        // At most six per namespace (netlink, two question sockets, a neighbor socket once its
        // path has had a gateway, a pidfd for one held only by a process; IPsec policies only with
        // CAP_NET_ADMIN): past the soft limit it started with, which it raised. (Other tests'
        // namespaces come and go meanwhile: counted from the pages before and after.)
        let again = try serving.metrics()
        let watched = [text, again].map { $0.components(separatedBy: "netpath_namespace_up{").count - 1 }.max() ?? 0
        #expect(during.all > 512 && during.all - before.all <= 6 * watched + 16,
                "descriptors: \(before.all) → \(during.all) for \(watched) namespaces")

        let deleted = Array(names.prefix(100))
        try run(Kernel.ipPath, ["-force", "-batch", "-"], input: deleted.map { "netns del \($0)" }.joined(separator: "\n") + "\n")
        let after = try serving.metrics(until: { text in !deleted.contains { text.contains("netns=\"\($0)\"") } }, seconds: 60)
        #expect(!deleted.contains { after.contains("netns=\"\($0)\"") }, "deleted namespaces stayed")
        #expect(up.dropFirst(100).allSatisfy(after.contains))

        stopped = true
        let outcome = try #require(serving.stop())
        #expect(outcome.status == 0)
        #expect(outcome.standardError.isEmpty, "\(outcome.standardError.split(separator: "\n").count) lines on stderr: \(outcome.standardError.prefix(500))")
    }
}
