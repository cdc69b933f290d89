#if os(Linux)
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// SPEC §2.6: the resolver watch plan, on a fake file system. Every symlink on the way to a
/// resolver file, at any step, is watched by its directory for its name; what is watched is
/// always a real path.
@Suite struct ResolverPlanTests {
    /// A fake file system: the paths that exist (a symlink exists when its target does)
    /// and the symlinks with their targets.
    struct Tree {
        var existing: Set<String>
        var links: [String: String] = [:]

        func plan(_ paths: [String], contentOf: (String) -> Bool = { _ in true }) -> ResolverWatcher.Plan {
            ResolverWatcher.Plan(paths: paths, exists: { existing.contains($0) }, readLink: { links[$0] }, contentOf: contentOf)
        }
    }

    func names(_ plan: ResolverWatcher.Plan, _ directory: String) -> Set<String> {
        Set(plan.watches[directory]?.names ?? [])
    }

    @Test func aPlainFileIsWatchedItselfAndByItsDirectory() {
        let tree = Tree(existing: ["/", "/etc", "/etc/resolv.conf"])
        let plan = tree.plan(["/etc/resolv.conf"])
        #expect(plan.watches == ["/etc": .init(names: ["resolv.conf"]), "/etc/resolv.conf": .init(content: true)])
        #expect(tree.plan(["/etc/resolv.conf"], contentOf: { _ in false }).watches == ["/etc": .init(names: ["resolv.conf"])])
    }

    /// A container's resolver file, seen through `/proc/PID/root`: the magic link is not
    /// followed to our own `/`, and the container's absolute links start again at its root.
    @Test func aContainersFilesAreWatchedUnderItsRoot() {
        let root = "/proc/42/root"
        let tree = Tree(existing: ["/", "/proc", "/proc/42", root, root + "/etc", root + "/etc/resolv.conf", root + "/run",
                                   root + "/run/systemd", root + "/run/systemd/resolve", root + "/run/systemd/resolve/stub-resolv.conf",
                                   "/etc", "/etc/resolv.conf"],
                        links: [root: "/", root + "/etc/resolv.conf": "/run/systemd/resolve/stub-resolv.conf"])
        let plan = tree.plan([root + "/etc/resolv.conf"])
        #expect(names(plan, root + "/etc") == ["resolv.conf"])
        #expect(names(plan, root + "/run/systemd/resolve") == ["stub-resolv.conf"])
        #expect(plan.watches[root + "/run/systemd/resolve/stub-resolv.conf"]?.content == true)
        #expect(plan.watches.keys.allSatisfy { $0.hasPrefix(root) }, "\(plan.watches.keys.sorted())")
        #expect(ResolverWatcher.Plan.processRoot(of: "/proc/self/root/etc/resolv.conf") == "/proc/self/root")
        #expect(ResolverWatcher.Plan.processRoot(of: "/proc/42/rootfs/etc") == nil)
        #expect(ResolverWatcher.Plan.processRoot(of: "/etc/resolv.conf") == nil)
    }

    @Test func aPathThatDoesNotExistIsWatchedAtItsNearestExistingAncestor() {
        let tree = Tree(existing: ["/", "/etc", "/etc/resolv.conf", "/run", "/run/systemd"])
        let plan = tree.plan(["/etc/netns/n1/resolv.conf", "/etc/resolv.conf", "/run/systemd/resolve/resolv.conf"])
        #expect(names(plan, "/etc") == ["netns", "resolv.conf"])
        #expect(names(plan, "/run/systemd") == ["resolve"])
        #expect(plan.watches["/etc/netns"] == nil && plan.watches["/run/systemd/resolve"] == nil)
    }

    @Test func nixosGenerationsAreWatchedThroughTheDirectoryLink() {
        // /etc/resolv.conf -> /etc/static/resolv.conf, /etc/static -> a generation's etc.
        var tree = Tree(existing: ["/", "/etc", "/nix", "/nix/store", "/nix/store/g1-etc", "/nix/store/g1-etc/etc",
                                   "/nix/store/g1-etc/etc/resolv.conf", "/nix/store/g2-etc", "/nix/store/g2-etc/etc",
                                   "/nix/store/g2-etc/etc/resolv.conf", "/etc/static", "/etc/resolv.conf"],
                        links: ["/etc/resolv.conf": "/etc/static/resolv.conf", "/etc/static": "/nix/store/g1-etc/etc"])
        let first = tree.plan(["/etc/resolv.conf"])
        // The link `mv -Tf` renames over is watched by its name.
        #expect(names(first, "/etc") == ["resolv.conf", "static"])
        #expect(first.watches["/nix/store/g1-etc/etc/resolv.conf"]?.content == true)
        #expect(names(first, "/nix/store/g1-etc/etc") == ["resolv.conf"])
        #expect(first.watches.keys.allSatisfy { tree.links[$0] == nil }, "a symlink itself is never watched")
        tree.links["/etc/static"] = "/nix/store/g2-etc/etc"
        let second = tree.plan(["/etc/resolv.conf"])
        #expect(second.watches["/nix/store/g2-etc/etc/resolv.conf"]?.content == true)
        #expect(second.watches["/nix/store/g1-etc/etc/resolv.conf"] == nil)
    }

    @Test func kubernetesAtomicWriterDataIsWatchedThroughItsLink() {
        // resolv.conf -> ..data/resolv.conf, ..data -> ..TIMESTAMP (relative links).
        let tree = Tree(existing: ["/", "/etc", "/etc/..2025_01_01_00_00_00.1", "/etc/..2025_01_01_00_00_00.1/resolv.conf",
                                   "/etc/..data", "/etc/resolv.conf"],
                        links: ["/etc/resolv.conf": "..data/resolv.conf", "/etc/..data": "..2025_01_01_00_00_00.1"])
        let plan = tree.plan(["/etc/resolv.conf"])
        #expect(names(plan, "/etc") == ["resolv.conf", "..data"])
        #expect(plan.watches["/etc/..2025_01_01_00_00_00.1/resolv.conf"]?.content == true)
        #expect(names(plan, "/etc/..2025_01_01_00_00_00.1") == ["resolv.conf"])
    }

    @Test func relativeTargetsAreResolvedFromTheRealDirectory() {
        // /etc is itself a link (as on macOS): `..` in a target under it is /private's.
        let tree = Tree(existing: ["/", "/private", "/private/etc", "/private/run", "/private/run/resolv.conf", "/etc",
                                   "/etc/resolv.conf"],
                        links: ["/etc": "private/etc", "/private/etc/resolv.conf": "../run/resolv.conf"])
        let plan = tree.plan(["/etc/resolv.conf"])
        #expect(names(plan, "/") == ["etc"])
        #expect(names(plan, "/private/etc") == ["resolv.conf"])
        #expect(plan.watches["/private/run/resolv.conf"]?.content == true)
        #expect(plan.watches["/run"] == nil)
    }

    @Test func aDanglingLinkIsWatchedWhereItsTargetWouldAppear() {
        let tree = Tree(existing: ["/", "/etc", "/run"],
                        links: ["/etc/resolv.conf": "../run/systemd/resolve/stub-resolv.conf"])
        let plan = tree.plan(["/etc/resolv.conf", "/run/systemd/resolve/resolv.conf"])
        #expect(names(plan, "/etc") == ["resolv.conf"])
        #expect(names(plan, "/run") == ["systemd"])
        #expect(plan.watches.count == 2)
    }

    @Test func aLinkLoopEnds() {
        let tree = Tree(existing: ["/", "/etc"], links: ["/etc/resolv.conf": "a", "/etc/a": "./b", "/etc/b": "/etc/resolv.conf"])
        let plan = tree.plan(["/etc/resolv.conf"])
        #expect(names(plan, "/etc") == ["resolv.conf", "a", "b"])
        #expect(plan.watches.count == 1)
    }
}
#endif
