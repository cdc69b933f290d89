import Foundation
import KernelTestSupport
import Testing
@testable import netpath

// `serve --all-namespaces` on a container node: processes holding namespaces of their own
// (no /run/netns entry), each in a cgroup directory named as a runtime names its own, found
// as they appear and named by their holder; a real Prometheus joins them with a
// kube_pod_info series; the DaemonSet's command, with only CAP_SYS_ADMIN, finds them too.

/// A "container": a process in a fresh network namespace with a veth to the host (which
/// then gives the namespace an ID: `RTM_NEWNSID`), placed in a cgroup directory named as a
/// runtime names its own, under a directory of the test's.
final class FakeContainer {
    let process: Child
    let link: String?
    /// The cgroup path as `/proc/PID/cgroup` shows it.
    let cgroup: String
    private let made: [String]

    /// Where cgroup v2 is mounted, else cgroup v1's `pids` controller.
    static let cgroupRoot: String? = {
        let mounts = (try? String(contentsOfFile: "/proc/self/mounts", encoding: .utf8)) ?? ""
        let fields = mounts.split(separator: "\n").map { $0.split(separator: " ") }.filter { $0.count > 3 }
        if let v2 = fields.first(where: { $0[2] == "cgroup2" }) { return String(v2[1]) }
        return fields.first { $0[2] == "cgroup" && $0[3].split(separator: ",").contains("pids") }.map { String($0[1]) }
    }()

    /// - Parameters:
    ///   - link: The veth to give it (`nil`: only loopback).
    ///   - named: A namespace of `ip netns` for the process to be in, as CNI's pods are
    ///     (`cni-…`); `nil`: one of its own (`unshare --net`).
    init(cgroup relative: String, link: String?, named: String? = nil) throws {
        let root = try #require(FakeContainer.cgroupRoot, "no cgroup file system mounted")
        self.link = link
        cgroup = "/np-nodes-\(getpid())/" + relative
        // Every directory on the way, made or not: each container removes what it can, so
        // the last one removes the test's directory.
        var made: [String] = []
        var path = root
        for component in cgroup.split(separator: "/") {
            path += "/" + component
            mkdir(path, 0o755)
            made.append(path)
        }
        self.made = made
        process = try named.map { try Child(Kernel.ipPath, ["netns", "exec", $0, "/bin/sleep", "1000"]) }
            ?? Child("/usr/bin/unshare", ["--net", "--", "/bin/sleep", "1000"])
        let ours = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")
        let deadline = Date().addingTimeInterval(10)
        while (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.pid)/ns/net")) == ours, Date() < deadline {
            HTTPExchange.pause()
        }
        try "\(process.pid)\n".write(toFile: path + "/cgroup.procs", atomically: false, encoding: .utf8)
        if let link { try run(Kernel.ipPath, ["link", "add", link, "type", "veth", "peer", "name", "eth0", "netns", "\(process.pid)"]) }
    }

    /// Its label on the page: `net:[INODE]`.
    var label: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.pid)/ns/net")) ?? "?"
    }

    /// What `/proc/PID/cgroup` says (the truth the labels must match).
    var cgroupFile: String { (try? String(contentsOfFile: "/proc/\(process.pid)/cgroup", encoding: .utf8)) ?? "" }

    func remove() {
        process.kill()
        if let link { _ = try? run(Kernel.ipPath, ["link", "del", link]) }
        for directory in made.reversed() { rmdir(directory) }
    }
}

@Suite(.enabled(if: Kernel.canRun, "needs root and iproute2"), .serialized)
struct NodeNamespaceTests {
    /// A container ID and a pod UID of this run's own.
    static func id(_ index: Int) -> String {
        String(repeating: String(format: "%04x", index), count: 12) + String(format: "%016x", getpid())
    }
    static func uid(_ index: Int) -> String { String(format: "%08x-%04x-4000-8000-%012x", getpid(), index, index) }

    /// Each runtime's cgroup, and the labels it must give.
    static func runtimes() -> [(cgroup: String, labels: [(String, String)])] {
        let pid = getpid()
        let systemdUID = { (index: Int) in uid(index).replacingOccurrences(of: "-", with: "_") }
        return [
            ("kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod\(systemdUID(1)).slice/cri-containerd-\(id(1)).scope",
             [("pod_uid", uid(1)), ("container_id", id(1)), ("runtime", "containerd")]),
            ("kubepods/besteffort/pod\(uid(2))/\(id(2))", [("pod_uid", uid(2)), ("container_id", id(2))]),
            ("kubepods.slice/kubepods-pod\(systemdUID(3)).slice/crio-\(id(3)).scope",
             [("pod_uid", uid(3)), ("container_id", id(3)), ("runtime", "cri-o")]),
            ("system.slice/docker-\(id(4)).scope", [("container_id", id(4)), ("container_name", "web-\(pid)"), ("runtime", "docker")]),
            ("machine.slice/libpod-\(id(5)).scope", [("container_id", id(5)), ("container_name", "api-\(pid)"), ("runtime", "podman")]),
            ("machine.slice/machine-np\\x2dbox\(pid).scope", [("container_name", "np-box\(pid)"), ("runtime", "systemd-nspawn")]),
            ("lxc.payload.np-lxc\(pid)", [("container_name", "np-lxc\(pid)"), ("runtime", "lxc")]),
        ]
    }

    static func infoLine(_ label: String, _ labels: [(String, String)]) -> String {
        "netpath_namespace_info{" + ([("netns", label)] + labels).map { "\($0.0)=\"\($0.1)\"" }.joined(separator: ",") + "} 1"
    }

    /// Docker's configuration of container 4, as Docker writes it; removed after.
    static func dockerConfiguration() throws -> () -> Void {
        let directory = "/var/lib/docker/containers/\(id(4))"
        let existed = FileManager.default.fileExists(atPath: "/var/lib/docker")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try #"{"ID":"\#(id(4))","Name":"/web-\#(getpid())","State":{"Running":true}}"#
            .write(toFile: directory + "/config.v2.json", atomically: true, encoding: .utf8)
        return {
            try? FileManager.default.removeItem(atPath: existed ? directory : "/var/lib/docker")
        }
    }

    /// Podman's container store with container 5 in it, as containers/storage writes it;
    /// removed after (what was there before is put back).
    static func podmanStore() throws -> () -> Void {
        let directory = "/var/lib/containers/storage/overlay-containers", file = directory + "/containers.json"
        let madeFrom = ["/var/lib/containers", "/var/lib/containers/storage", directory].first { !FileManager.default.fileExists(atPath: $0) }
        let before = FileManager.default.contents(atPath: file)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try #"[{"id":"\#(id(5))","names":["api-\#(getpid())"],"image":"0123","layer":"4567","metadata":"{}","created":"2026-12-06T00:00:00Z"}]"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        return {
            if let madeFrom { try? FileManager.default.removeItem(atPath: madeFrom) }
            else if let before { _ = FileManager.default.createFile(atPath: file, contents: before) }
            else { try? FileManager.default.removeItem(atPath: file) }
        }
    }

    /// Seven containers, one per runtime's naming, made while `serve --all-namespaces` runs:
    /// each is watched under `net:[INODE]` with its holder's pod UID / container ID / name,
    /// as its `/proc/PID/cgroup` says; Prometheus joins the containerd one with a
    /// `kube_pod_info` series from node_exporter and names its pod; one whose process ends
    /// leaves, and nothing is said on stderr.
    @Test(.enabled(if: requiredTool("/usr/bin/prometheus") && requiredTool("/usr/bin/prometheus-node-exporter"), "needs prometheus"))
    func eachRuntimesContainerIsFoundWithItsHolderAndPrometheusNamesThePod() throws {
        let removeDocker = try NodeNamespaceTests.dockerConfiguration()
        defer { removeDocker() }
        let removePodman = try NodeNamespaceTests.podmanStore()
        defer { removePodman() }
        let serving = try Serving(["--all-namespaces"])
        var stopped = false
        defer { if !stopped { _ = serving.stop() } }
        var containers: [FakeContainer] = []
        defer { for container in containers { container.remove() } }
        let runtimes = NodeNamespaceTests.runtimes()
        for (index, runtime) in runtimes.enumerated() {
            containers.append(try FakeContainer(cgroup: runtime.cgroup, link: "npn\(getpid() % 10000)x\(index)"))
        }
        for container in containers { #expect(container.cgroupFile.contains(container.cgroup), "\(container.cgroupFile)") }
        let expected = zip(containers, runtimes).map { NodeNamespaceTests.infoLine($0.label, $1.labels) }
        let text = try serving.metrics(until: { text in expected.allSatisfy(text.contains) }, seconds: 20)
        for line in expected { #expect(text.contains(line), "missing \(line)") }
        for container in containers { #expect(text.contains("netpath_namespace_up{netns=\"\(container.label)\"} 1")) }

        try expectPrometheusJoin(serving: serving, container: containers[0], uid: NodeNamespaceTests.uid(1))

        // Its process ends: the namespace leaves with it, quietly.
        let gone = containers.removeLast()
        let goneLabel = gone.label
        gone.remove()
        let after = try serving.metrics(until: { !$0.contains("netns=\"\(goneLabel)\"") })
        #expect(!after.contains("netns=\"\(goneLabel)\""), "the ended container's namespace stayed")
        stopped = true
        let outcome = try #require(serving.stop())
        #expect(!outcome.standardError.contains("/proc/"), "\(outcome.standardError)")
    }

    /// What is there before `serve` starts is found at its start: a container's namespace
    /// (process-held), a pod's CNI namespace in `/run/netns` (named `cni-…`, its holder from
    /// the cgroup of the process in it), and one held by a process in a cgroup directory
    /// whose name is odd bytes (watched, named by nothing); one with only `lo` is not watched.
    /// Nothing is said on stderr.
    @Test func whatIsThereAtStartIsFoundNamedCNINamespacesTooButNotLoopbackOnlyOnes() throws {
        let tag = getpid() % 10000
        let cni = "cni-np\(tag)-\(NodeNamespaceTests.id(9).prefix(8))"
        try run(Kernel.ipPath, ["netns", "add", cni])
        defer { _ = try? run(Kernel.ipPath, ["netns", "del", cni]) }
        try run(Kernel.ipPath, ["link", "add", "npc\(tag)", "type", "veth", "peer", "name", "eth0", "netns", cni])
        defer { _ = try? run(Kernel.ipPath, ["link", "del", "npc\(tag)"]) }
        var containers: [FakeContainer] = []
        defer { for container in containers { container.remove() } }
        containers.append(try FakeContainer(cgroup: "kubepods/besteffort/pod\(NodeNamespaceTests.uid(8))/\(NodeNamespaceTests.id(8))",
                                            link: "npe\(tag)"))
        containers.append(try FakeContainer(cgroup: "kubepods/besteffort/pod\(NodeNamespaceTests.uid(9))/\(NodeNamespaceTests.id(9))",
                                            link: nil, named: cni))
        containers.append(try FakeContainer(cgroup: "odd \u{1b}[31m\u{7f}\t\"x\"\\", link: "npo\(tag)"))
        containers.append(try FakeContainer(cgroup: "kubepods/besteffort/pod\(NodeNamespaceTests.uid(10))/\(NodeNamespaceTests.id(10))",
                                            link: nil))
        let (early, odd, loopbackOnly) = (containers[0], containers[2], containers[3])
        let expected = [
            NodeNamespaceTests.infoLine(early.label, [("pod_uid", NodeNamespaceTests.uid(8)), ("container_id", NodeNamespaceTests.id(8))]),
            NodeNamespaceTests.infoLine(cni, [("pod_uid", NodeNamespaceTests.uid(9)), ("container_id", NodeNamespaceTests.id(9))]),
            "netpath_namespace_up{netns=\"\(odd.label)\"} 1",
        ]
        let serving = try Serving(["--all-namespaces"])
        var stopped = false
        defer { if !stopped { _ = serving.stop() } }
        let text = try serving.metrics(until: { text in expected.allSatisfy(text.contains) }, seconds: 20)
        for line in expected { #expect(text.contains(line), "missing \(line)") }
        #expect(!text.contains("netpath_namespace_info{netns=\"\(odd.label)\""), "a holder guessed from odd bytes")
        #expect(!text.contains("netns=\"\(loopbackOnly.label)\""), "a namespace with only lo is watched")
        stopped = true
        let outcome = try #require(serving.stop())
        #expect(outcome.standardError.isEmpty, "\(outcome.standardError)")
    }

    /// A node with 1,000 containers (each a process in a namespace of its own with a veth, in
    /// a kubelet cgroupfs-style cgroup): every one is watched and named by its pod. Then 500
    /// end and 500 others start: the ended leave, the new are named, nothing is said on
    /// stderr, and serve's resident memory after the churn is within 10% of before it.
    @Test func aThousandContainersAndTheirChurnKeepMemoryFlat() throws {
        let root = try #require(FakeContainer.cgroupRoot, "no cgroup file system mounted")
        let tag = getpid() % 10000, base = root + "/np-scale-\(getpid())"
        var running: [Int: Child] = [:]
        var directories: [String] = [base, base + "/kubepods", base + "/kubepods/besteffort"]
        for directory in directories { mkdir(directory, 0o755) }
        defer {
            for child in running.values { child.kill() }
            for directory in directories.reversed() { rmdir(directory) }
        }
        let serving = try Serving(["--all-namespaces"])
        var stopped = false
        defer { if !stopped { _ = serving.stop() } }
        /// Starts containers `indices`: their processes, their cgroups, then their veths at once.
        func start(_ indices: Range<Int>) throws {
            var started: [(Int, Child)] = []
            for index in indices { started.append((index, try Child("/usr/bin/unshare", ["--net", "--", "/bin/sleep", "1000"]))) }
            let ours = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")
            for (index, child) in started {
                running[index] = child
                while (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(child.pid)/ns/net")) == ours { HTTPExchange.pause() }
                let pod = base + "/kubepods/besteffort/pod\(NodeNamespaceTests.uid(index))"
                let container = pod + "/" + NodeNamespaceTests.id(index)
                for directory in [pod, container] { mkdir(directory, 0o755); directories.append(directory) }
                try "\(child.pid)\n".write(toFile: container + "/cgroup.procs", atomically: false, encoding: .utf8)
            }
            let links = started.map { "link add nk\(tag)x\($0.0) type veth peer name eth0 netns \($0.1.pid)" }
            try run(Kernel.ipPath, ["-batch", "-"], input: links.joined(separator: "\n") + "\n")
        }
        /// The page's lines, once every one of `lines` is on it (at most 180 s).
        func page(with lines: Set<String>, without gone: [String] = []) throws -> Set<Substring> {
            let deadline = Date().addingTimeInterval(180)
            while true {
                let text = try serving.metrics()
                let page = Set(text.split(separator: "\n").filter { $0.hasPrefix("netpath_namespace_") })
                let missing = lines.filter { !page.contains(Substring($0)) }
                let stayed = gone.filter { page.contains("netpath_namespace_up{netns=\"\($0)\"} 1") }
                if (missing.isEmpty && stayed.isEmpty) || Date() > deadline {
                    #expect(missing.isEmpty, "\(missing.count) containers not named, e.g. \(Array(missing.prefix(2)))")
                    #expect(stayed.isEmpty, "\(stayed.count) ended containers stayed, e.g. \(Array(stayed.prefix(2)))")
                    return page
                }
                for _ in 0..<5 { HTTPExchange.pause() }
            }
        }
        func info(_ index: Int) -> String {
            let label = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(running[index]!.pid)/ns/net")) ?? "?"
            return NodeNamespaceTests.infoLine(label, [("pod_uid", NodeNamespaceTests.uid(index)), ("container_id", NodeNamespaceTests.id(index))])
        }
        func residentKilobytes() -> Int {
            let status = (try? String(contentsOfFile: "/proc/\(serving.tool.processIdentifier)/status", encoding: .utf8)) ?? ""
            let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        try start(0..<1_000)
        _ = try page(with: Set((0..<1_000).map(info)))
        let before = residentKilobytes()
        // Half of them end, and as many others start.
        let ended = (0..<500).map { index in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(running[index]!.pid)/ns/net")) ?? "?"
        }
        for index in 0..<500 { running.removeValue(forKey: index)?.kill() }
        try start(1_000..<1_500)
        // The kernel gives new namespaces the numbers of ended ones: those labels stay, rightly.
        let reused = Set((1_000..<1_500).map { index in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(running[index]!.pid)/ns/net")) ?? "?"
        })
        _ = try page(with: Set((500..<1_500).map(info)), without: ended.filter { !reused.contains($0) })
        let after = residentKilobytes()
        #expect(before > 0 && after * 10 <= before * 11, "RSS \(before) kB with 1,000 containers, \(after) kB after 500 left and 500 came")
        stopped = true
        let outcome = try #require(serving.stop())
        #expect(outcome.standardError.isEmpty, "\(outcome.standardError.prefix(500))")
    }

    /// A container whose only link is made inside its namespace (rootless Podman's pasta or
    /// slirp4netns tap) gives the host no namespace event; its cgroup, made when it starts, is
    /// the sign: it is found, named by its pod, while serve runs.
    @Test func aContainerWithATapMadeInsideIsFoundByItsCgroup() throws {
        let root = try #require(FakeContainer.cgroupRoot, "no cgroup file system mounted")
        let serving = try Serving(["--all-namespaces"])
        var stopped = false
        defer { if !stopped { _ = serving.stop() } }
        _ = try serving.metrics()
        // The container: its namespace and the tap inside it first, then its cgroup, as a
        // runtime that makes the cgroup last would (the other order is found the same way).
        let process = try Child("/usr/bin/unshare", ["--net", "--", "/bin/sh", "-c", "ip tuntap add tap0 mode tap && ip link set tap0 up && exec sleep 1000"])
        defer { process.kill() }
        let ours = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/ns/net")
        var label = ours
        while label == ours || !((try? String(contentsOfFile: "/proc/\(process.pid)/net/dev", encoding: .utf8))?.contains("tap0:") ?? false) {
            HTTPExchange.pause()
            label = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(process.pid)/ns/net")) ?? ours
        }
        let base = root + "/np-tap-\(getpid())", pod = base + "/pod\(NodeNamespaceTests.uid(20))"
        let container = pod + "/" + NodeNamespaceTests.id(20)
        for directory in [base, pod, container] { mkdir(directory, 0o755) }
        defer { for directory in [container, pod, base] { rmdir(directory) } }
        try "\(process.pid)\n".write(toFile: container + "/cgroup.procs", atomically: false, encoding: .utf8)
        let line = NodeNamespaceTests.infoLine(label, [("pod_uid", NodeNamespaceTests.uid(20)), ("container_id", NodeNamespaceTests.id(20))])
        let text = try serving.metrics(until: { $0.contains(line) }, seconds: 20)
        #expect(text.contains(line), "the container with a tap made inside was not found")
        process.kill()
        stopped = true
        let outcome = try #require(serving.stop())
        #expect(outcome.standardError.isEmpty, "\(outcome.standardError)")
    }

    /// The cgroup hierarchy watched for new containers: the unified one, else cgroup v1's
    /// `pids`; mount points as the mount table escapes them.
    @Test func theHierarchyWatchedForContainers() {
        let v1 = "cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\ncgroup /sys/fs/cgroup/pids cgroup rw,nosuid,pids 0 0\n"
        #expect(CgroupWatch.hierarchy(mounts: v1) == "/sys/fs/cgroup/pids")
        #expect(CgroupWatch.hierarchy(mounts: v1 + "cgroup2 /sys/fs/cgroup/un\\040ified cgroup2 rw 0 0\n") == "/sys/fs/cgroup/un ified")
        #expect(CgroupWatch.hierarchy(mounts: "proc /proc proc rw 0 0\n") == nil)
        #expect(CgroupWatch.unescaped("a\\134b\\011c\\9") == "a\\b\tc\\9")
    }

    /// Prometheus scrapes serve and node_exporter (a textfile with kube-state-metrics'
    /// `kube_pod_info` for the pod), evaluates Deploy/netpath.rules.yml: the recording names
    /// the pod of the container's namespace.
    func expectPrometheusJoin(serving: Serving, container: FakeContainer, uid: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("netpath-nodes-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory + "/text", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let pod = "web-\(getpid())"
        try "kube_pod_info{uid=\"\(uid)\",namespace=\"shop\",pod=\"\(pod)\",node=\"n1\"} 1\n"
            .write(toFile: directory + "/text/ksm.prom", atomically: true, encoding: .utf8)
        let (nodePort, promPort) = (try freePort(), try freePort())
        let exporter = try Child(try requireProgram("/usr/bin/prometheus-node-exporter", package: "prometheus-node-exporter"), [
            "--collector.disable-defaults", "--collector.textfile", "--collector.textfile.directory=\(directory)/text",
            "--web.listen-address=127.0.0.1:\(nodePort)",
        ])
        defer { exporter.kill() }
        try FileManager.default.copyItem(atPath: MixinTests.deploy.appendingPathComponent("netpath.rules.yml").path, toPath: directory + "/rules.yml")
        try """
        global: {scrape_interval: 1s, evaluation_interval: 1s}
        rule_files: [rules.yml]
        scrape_configs:
          - job_name: netpath
            static_configs: [{targets: ["127.0.0.1:\(serving.port)"]}]
          - job_name: kube-state-metrics
            static_configs: [{targets: ["127.0.0.1:\(nodePort)"]}]
        """.write(toFile: directory + "/prometheus.yml", atomically: true, encoding: .utf8)
        let prometheus = try Child(try requireProgram("/usr/bin/prometheus", package: "prometheus"), [
            "--config.file=\(directory)/prometheus.yml", "--storage.tsdb.path=\(directory)/data", "--web.listen-address=127.0.0.1:\(promPort)",
        ])
        defer { prometheus.kill() }
        let expr = "netpath:namespace_pod_info{pod=\"\(pod)\"}"
        let encoded = expr.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? expr
        let deadline = Date().addingTimeInterval(40)
        var answer = ""
        while !answer.contains("\"namespace\":\"shop\"") && Date() < deadline {
            HTTPExchange.pause()
            answer = (try? HTTPExchange.send("GET /api/v1/query?query=\(encoded) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                                             port: promPort).body) ?? ""
        }
        #expect(answer.contains("\"netns\":\"\(container.label)\""), "Prometheus did not join the pod: \(answer)")
        #expect(answer.contains("\"pod_uid\":\"\(uid)\"") && answer.contains("\"namespace\":\"shop\""))
    }

    /// A namespace that only a mount in Docker's directory holds (as Docker keeps its
    /// containers' namespaces, `/var/run/docker/netns/ID`): watched under that path.
    @Test func aNamespaceDockerMountsIsWatchedUnderItsPath() throws {
        let mount = try requireProgram("/usr/bin/mount", package: "mount")
        let existed = FileManager.default.fileExists(atPath: "/var/run/docker")
        try FileManager.default.createDirectory(atPath: "/var/run/docker/netns", withIntermediateDirectories: true)
        defer { if !existed { try? FileManager.default.removeItem(atPath: "/var/run/docker") } }
        let file = "/var/run/docker/netns/np\(getpid())"
        #expect(FileManager.default.createFile(atPath: file, contents: nil))
        defer {
            _ = try? run("/usr/bin/umount", [file])
            try? FileManager.default.removeItem(atPath: file)
        }
        // Made by `ip netns add`, given a link, bound at Docker's path; then its name is
        // deleted: Docker's mount alone keeps it.
        let namespace = try TestNamespace("dkr")
        var named = true
        defer { if named { namespace.remove() } }
        try namespace.batch(["link add d0 type veth peer name d1", "link set d0 up", "link set d1 up",
                             "addr add 10.91.0.2/24 dev d0", "route add default via 10.91.0.1"])
        _ = try run(mount, ["--bind", "/run/netns/\(namespace.name)", file])
        namespace.remove()
        named = false

        let serving = try Serving(["--all-namespaces"])
        defer { _ = serving.stop() }
        let up = "netpath_namespace_up{netns=\"\(file)\"} 1"
        let satisfied = "netpath_path_status{netns=\"\(file)\",status=\"satisfied\"} 1"
        let text = try serving.metrics(until: { $0.contains(up) && $0.contains(satisfied) }, seconds: 20)
        #expect(text.contains(up) && text.contains(satisfied),
                "\(text.split(separator: "\n").filter { $0.contains("docker") }.prefix(5))")
    }

    /// What the DaemonSet's pod sees of the node's file systems, in a mount namespace of the
    /// tool's own: the root read-only (`readOnlyRootFilesystem`, and `/tmp` and `/run` with
    /// it where they are mounts of their own), the four host paths it mounts bound read-only onto
    /// themselves, and mounts the node makes later propagated into them (`HostToContainer`:
    /// a slave mount namespace). `"$@"` is the command.
    static let podMounts = """
    set -e
    for volume in /run/netns /var/run/docker/netns /var/lib/docker/containers /var/lib/containers/storage/overlay-containers; do
      if [ -d "$volume" ]; then mount --rbind "$volume" "$volume"; fi
    done
    for read_only in / /tmp /run /run/netns /var/run/docker/netns /var/lib/docker/containers /var/lib/containers/storage/overlay-containers; do
      if mountpoint -q "$read_only"; then mount -o remount,bind,ro "$read_only"; fi
    done
    exec "$@"
    """

    /// The DaemonSet's command and arguments (Deploy/kubernetes/daemonset.yaml), run as its
    /// pod runs it: its mounts (``podMounts``), root with every capability dropped but the
    /// two its securityContext adds (CAP_SYS_ADMIN, CAP_SYS_PTRACE), no new privileges; it
    /// finds a container made after it started, with its holder, and a namespace the node
    /// names in `/run/netns` after it started.
    @Test func theDaemonSetsCommandWithItsTwoCapabilitiesFindsTheContainers() throws {
        try requireProgram("/usr/bin/setpriv", package: "util-linux")
        let yaml = try String(contentsOf: MixinTests.deploy.appendingPathComponent("kubernetes/daemonset.yaml"), encoding: .utf8)
        let argsLine = try #require(yaml.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix("args:") })
        let args = argsLine.split(separator: "[")[1].split(separator: "]")[0].split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        #expect(args.first == "serve" && args.contains("--all-namespaces"), "\(args)")
        // Serving adds its own --listen on a free port; the DaemonSet's :9737 may be taken here.
        var rest = Array(args.dropFirst())
        if let listen = rest.firstIndex(of: "--listen") { rest.removeSubrange(listen...(listen + 1)) }
        let added = try #require(yaml.split(separator: "\n").first { $0.contains("add: [") })
        #expect(added.contains("\"SYS_ADMIN\", \"SYS_PTRACE\"]"), "\(added)")
        let launcher = ["/usr/bin/unshare", "--mount", "--propagation", "slave", "--", "/bin/sh", "-c", NodeNamespaceTests.podMounts, "sh",
                        "/usr/bin/setpriv", "--bounding-set=-all,+sys_admin,+sys_ptrace", "--inh-caps=-all", "--no-new-privs"]
        let serving = try Serving(rest, launcher: launcher)
        defer { _ = serving.stop() }
        let status = (try? String(contentsOfFile: "/proc/\(serving.tool.processIdentifier)/status", encoding: .utf8)) ?? ""
        #expect(status.contains("CapEff:\t0000000000280000"), "not CAP_SYS_ADMIN and CAP_SYS_PTRACE alone: \(status)")
        let uid = NodeNamespaceTests.uid(9)
        let container = try FakeContainer(cgroup: "kubepods/burstable/pod\(uid)/\(NodeNamespaceTests.id(9))", link: "npd\(getpid() % 10000)")
        defer { container.remove() }
        let line = NodeNamespaceTests.infoLine(container.label, [("pod_uid", uid), ("container_id", NodeNamespaceTests.id(9))])
        let text = try serving.metrics(until: { $0.contains(line) }, seconds: 20)
        #expect(text.contains(line), "\(text.split(separator: "\n").filter { $0.contains("namespace_info") })")
        // Its root is read-only, as the pod's; a namespace named on the node later is seen.
        let mounts = (try? String(contentsOfFile: "/proc/\(serving.tool.processIdentifier)/mounts", encoding: .utf8)) ?? ""
        let root = mounts.split(separator: "\n").map { $0.split(separator: " ") }.first { $0.count > 3 && $0[1] == "/" }
        #expect(root.map { $0[3].split(separator: ",").contains("ro") } == true, "the root is not read-only: \(root ?? [])")
        let named = try TestNamespace("dsnamed")
        defer { named.remove() }
        let up = "netpath_namespace_up{netns=\"\(named.name)\"} 1"
        let later = try serving.metrics(until: { $0.contains(up) }, seconds: 20)
        #expect(later.contains(up), "\(later.split(separator: "\n").filter { $0.contains("namespace_up") }.prefix(5))")
    }
}
