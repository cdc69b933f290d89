import Foundation
import KernelTestSupport
import Testing

/// `netpath probe --interface NAME` with the real binary: each uplink of a client with two
/// judged as `curl --interface` finds it; a name that is no interface, or one that is down,
/// is a usage error (exit 2, one line).
@Suite(.enabled(if: Kernel.canRun, "needs root, iproute2, python3 and curl"))
struct InterfaceProbeCLITests {
    @Test func eachUplinkAsCurlThroughItFindsIt() throws {
        try requireProgram("/usr/bin/curl", package: "curl")
        let lab = try TwoUplinkLab()
        defer { lab.remove() }
        for interface in ["up0", "up1"] {
            let outcome = try #require(try RunningTool(["probe", "--interface", interface, "--netns", lab.client.name, "--json",
                                                        "--url", TwoUplinkLab.url, "--timeout", "2"]).finish())
            let object = try jsonObject(outcome.standardOutput.trimmingCharacters(in: .newlines))
            let reaches = lab.curlReaches(through: interface)
            #expect((object["connectivity"] as? String == "full") == reaches, "\(interface): \(outcome.standardOutput)")
            #expect(outcome.status == (reaches ? 0 : 1), "\(interface): \(outcome.standardError)")
            #expect((object["ipv6"] as? [String: Any])?["connectivity"] as? String == "unknown", "\(outcome.standardOutput)")
        }
    }

    /// `serve --probe-interfaces`: each uplink's series says what `curl --interface` finds
    /// through it, and an interface the kernel routes nowhere (no table entry for the
    /// Internet out of it: `ip route get fibmatch … oif`) has none.
    @Test func serveChecksEachUplinkAsCurlThroughItFindsIt() throws {
        try requireProgram("/usr/bin/curl", package: "curl")
        let lab = try TwoUplinkLab()
        defer { lab.remove() }
        try lab.client.batch(["link add lan0 type veth peer name lan1", "addr add 10.84.0.1/24 dev lan0",
                              "addr add 10.84.0.2/24 dev lan1", "link set lan0 up", "link set lan1 up"])
        let serving = try Serving(["--netns", lab.client.name, "--probe-interfaces", "--url", TwoUplinkLab.url, "--probe-timeout", "2"])
        defer { _ = serving.stop() }
        func verdict(_ text: String, _ interface: String) -> String? {
            let prefix = "netpath_interface_connectivity{netns=\"\(lab.client.name)\",interface=\"\(interface)\",connectivity=\""
            return text.split(separator: "\n").first { $0.hasPrefix(prefix) && $0.hasSuffix(" 1") }
                .map { String($0.dropFirst(prefix.count).prefix { $0 != "\"" }) }
        }
        let text = try serving.metrics { text in ["up0", "up1"].allSatisfy { verdict(text, $0) != nil } }
        for interface in ["up0", "up1"] {
            let reaches = lab.curlReaches(through: interface)
            #expect((verdict(text, interface) == "full") == reaches, "\(interface): \(text)")
            #expect(text.contains("netpath_interface_connectivity_family{netns=\"\(lab.client.name)\",interface=\"\(interface)\",family=\"ipv6\",connectivity=\"unknown\"} 1"))
        }
        #expect(verdict(text, "up0") == "full" && verdict(text, "up1") != "full", "the lab is not what it says: \(text)")
        for interface in ["lan0", "lan1"] {
            let entry = try? run(Kernel.ipPath, ["-n", lab.client.name, "route", "get", "fibmatch", "192.0.2.1", "oif", interface])
            #expect(entry == nil, "the kernel has a table entry out of \(interface): \(entry ?? "")")
            #expect(!text.split(separator: "\n").contains { $0.hasPrefix("netpath_interface_connectivity") && $0.contains("interface=\"\(interface)\"") },
                    "\(interface) was checked: \(text)")
            // It is on the path all the same: the series are absent because it was not checked.
            #expect(text.contains("netpath_path_interface_info{netns=\"\(lab.client.name)\",interface=\"\(interface)\""))
        }
    }

    @Test(arguments: [
        (["probe", "--interface", "nosuch"], "nosuch"),
        (["probe", "--interface", "dn0"], "dn0"),
        (["probe", "--interface", "a/b"], "a/b"),
        (["probe", "--interface", "averyveryverylongname"], "averyveryverylongname"),
    ])
    func badInterfacesAreAUsageError(arguments: [String], word: String) throws {
        let namespace = try TestNamespace("ifcli")
        defer { namespace.remove() }
        try namespace.addLinks("dn0")
        let outcome = try #require(try RunningTool(arguments + (arguments[0] == "probe" ? ["--netns", namespace.name] : [])).finish())
        #expect(outcome.status == 2 && outcome.standardError.contains(word) && outcome.standardError.split(separator: "\n").count == 1,
                "\(outcome.status) \(outcome.standardError)")
    }
}
