import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathPrometheus

/// Who holds a namespace, read from `/proc/PID/cgroup` as each runtime writes its cgroups.
struct NamespaceHolderTests {
    static let id = String(repeating: "0123456789abcdef", count: 4)
    static let uid = "0b4b1c2d-1111-2222-3333-444455556666"
    static let systemdUID = "0b4b1c2d_1111_2222_3333_444455556666"

    static func holder(_ file: String) -> NamespaceHolder? { NamespaceHolder.parse(cgroup: Array(file.utf8)) }

    @Test(arguments: [
        // kubelet's systemd driver with containerd, cgroup v2.
        ("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod\(systemdUID).slice/cri-containerd-\(id).scope\n",
         NamespaceHolder(podUID: uid, containerID: id, runtime: "containerd")),
        // Guaranteed QoS (no class slice), CRI-O, read from inside a cgroup namespace.
        ("0::/../../kubepods.slice/kubepods-pod\(systemdUID).slice/crio-\(id).scope\n",
         NamespaceHolder(podUID: uid, containerID: id, runtime: "cri-o")),
        // kubelet's cgroupfs driver, cgroup v1: the runtime is not in the path.
        ("12:pids:/kubepods/besteffort/pod\(uid)/\(id)\n11:cpu,cpuacct:/kubepods/besteffort/pod\(uid)/\(id)\n",
         NamespaceHolder(podUID: uid, containerID: id)),
        ("0::/system.slice/docker-\(id).scope\n", NamespaceHolder(containerID: id, runtime: "docker")),
        ("4:memory:/docker/\(id)\n", NamespaceHolder(containerID: id, runtime: "docker")),
        ("0::/machine.slice/libpod-\(id).scope/container\n", NamespaceHolder(containerID: id, runtime: "podman")),
        ("0::/machine.slice/machine-web\\x2d1.scope/payload\n", NamespaceHolder(containerName: "web-1", runtime: "systemd-nspawn")),
        ("0::/lxc.payload.db1/init.scope\n", NamespaceHolder(containerName: "db1", runtime: "lxc")),
        ("3:pids:/lxc/db2\n", NamespaceHolder(containerName: "db2", runtime: "lxc")),
    ])
    func eachRuntimesCgroupNamesItsHolder(file: String, expected: NamespaceHolder) {
        #expect(NamespaceHolderTests.holder(file) == expected)
    }

    /// v2's line wins over v1's; a v1 line names the holder when v2's does not.
    @Test func theUnifiedLineComesFirst() {
        let both = "5:pids:/docker/\(NamespaceHolderTests.id)\n0::/lxc.payload.one\n"
        #expect(NamespaceHolderTests.holder(both) == NamespaceHolder(containerName: "one", runtime: "lxc"))
        let v1Only = "0::/user.slice/session-2.scope\n5:pids:/docker/\(NamespaceHolderTests.id)\n"
        #expect(NamespaceHolderTests.holder(v1Only)?.runtime == "docker")
    }

    /// Nothing is guessed: near misses name no one.
    @Test(arguments: [
        "0::/user.slice/user-1000.slice/session-2.scope\n",
        "0::/system.slice/docker-\(String(id.prefix(63))).scope\n",           // 63 digits
        "0::/system.slice/docker-\(id.uppercased()).scope\n",                  // upper case
        "0::/machine.slice/libpod-conmon-\(id).scope\n",                        // Podman's monitor
        "0::/kubepods.slice/kubepods-burstable.slice\n",                        // no pod yet
        "0::/kubepods/podnot-a-uid/\(id)\n",
        "0::/machine.slice/machine-.scope\n",
        "",
        "0::relative/docker-\(id).scope\n",
    ])
    func nearMissesNameNoOne(file: String) {
        #expect(NamespaceHolderTests.holder(file) == nil)
    }

    /// Odd bytes (not UTF-8, NUL, colons, CR) never crash and name no one unless a line
    /// is of a known form.
    @Test func oddBytesNeverCrash() {
        var bytes: [UInt8] = [0xFF, 0xFE, 0x00, 0x3A, 0x3A, 0x2F, 0x0D, 0x0A, 0xC3]
        #expect(NamespaceHolder.parse(cgroup: bytes) == nil)
        bytes += Array("\n0::/system.slice/docker-\(NamespaceHolderTests.id).scope\n".utf8)
        #expect(NamespaceHolder.parse(cgroup: bytes)?.containerID == NamespaceHolderTests.id)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let random = (0..<Int.random(in: 0..<200, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            _ = NamespaceHolder.parse(cgroup: random)
            _ = NamespaceHolder.interfaces(netDev: random)
            _ = NamespaceHolder.dockerName(configuration: random)
            _ = NamespaceHolder.podmanNames(containers: random)
        }
    }

    @Test func dockersNameAndTheInterfacesOfANamespace() {
        #expect(NamespaceHolder.dockerName(configuration: Array(#"{"ID":"x","Name":"/web"}"#.utf8)) == "web")
        #expect(NamespaceHolder.dockerName(configuration: Array(#"{"Name":""}"#.utf8)) == nil)
        #expect(NamespaceHolder.dockerName(configuration: Array("{".utf8)) == nil)
        let store = #"[{"id":"aa","names":["web","alias"],"layer":"x"},{"id":"bb","names":[]},{"names":["no-id"]},{"id":"cc","names":["db"]}]"#
        #expect(NamespaceHolder.podmanNames(containers: Array(store.utf8)) == ["aa": "web", "cc": "db"])
        #expect(NamespaceHolder.podmanNames(containers: Array(#"{"id":"aa"}"#.utf8)) == [:])
        let netDev = """
        Inter-|   Receive                                                |  Transmit
         face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
            lo:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0
          eth0:       0       0    0    0    0     0          0         0        0       0    0    0    0     0       0          0

        """
        #expect(NamespaceHolder.interfaces(netDev: Array(netDev.utf8)) == ["lo", "eth0"])
    }

    /// `netpath_namespace_info`: one series per namespace with a holder, the labels it has.
    @Test func theInfoMetricNamesTheHolder() {
        var pod = PrometheusExposition.Namespace(name: "net:[4026532374]", failure: "no path yet")
        pod.holder = NamespaceHolder(podUID: NamespaceHolderTests.uid, containerID: NamespaceHolderTests.id, runtime: "containerd")
        var machine = PrometheusExposition.Namespace(name: "m", failure: "no path yet")
        machine.holder = NamespaceHolder(containerName: "we\"b", runtime: "systemd-nspawn")
        let plain = PrometheusExposition.Namespace(name: "plain", failure: "no path yet")
        let text = PrometheusExposition.text(for: [plain, pod, machine], version: "1", probe: false, at: 0)
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("netpath_namespace_info") }
        #expect(lines == [
            #"netpath_namespace_info{netns="m",container_name="we\"b",runtime="systemd-nspawn"} 1"#,
            "netpath_namespace_info{netns=\"net:[4026532374]\",pod_uid=\"\(NamespaceHolderTests.uid)\",container_id=\"\(NamespaceHolderTests.id)\",runtime=\"containerd\"} 1",
        ][...].map { Substring($0) })
        #expect(text.contains("# TYPE netpath_namespace_info gauge\n"))
        #expect(!PrometheusExposition.text(for: [plain], version: "1", probe: false, at: 0).contains("netpath_namespace_info"))
    }
}
