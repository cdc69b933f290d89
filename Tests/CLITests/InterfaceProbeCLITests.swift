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
