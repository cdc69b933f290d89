import Foundation
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem
import NetPathTestKit

@Suite struct ValueTests {
    @Test(arguments: [
        ("192.0.2.1", "192.0.2.1"), ("2001:db8::1", "2001:db8::1"), ("2001:0db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"),
        ("::", "::"), ("::1", "::1"), ("fe80::1%eth0", "fe80::1"), ("::ffff:192.0.2.1", "::ffff:192.0.2.1"),
        ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"), ("1:0:3:4:5:6:7:8", "1:0:3:4:5:6:7:8"),
        ("0.0.0.0", "0.0.0.0"), ("255.255.255.255", "255.255.255.255"), ("10.0.100.9", "10.0.100.9"),
        ("1:0:0:2:0:0:0:3", "1:0:0:2::3"), ("1:0:0:2:0:0:3:4", "1::2:0:0:3:4"), ("fe80::", "fe80::"),
        ("ABCD:EF01:0:0:0:0:0:0", "abcd:ef01::"), ("0:0:0:0:0:ffff:0.0.0.0", "::ffff:0.0.0.0"), ("::10:fff", "::10:fff"),
    ])
    func addressesRoundTripInCanonicalForm(input: String, canonical: String) throws {
        #expect(try #require(IPAddress(input)).description == canonical)
    }

    /// Every text the formatter writes parses back to the same address: IPv6 addresses
    /// whose groups are zero or not in every pattern, and IPv4 ones across each byte's range.
    @Test func everyFormattedAddressParsesBack() throws {
        for pattern in 0..<256 {
            var high: UInt64 = 0, low: UInt64 = 0
            for index in 0..<8 where pattern & (1 << index) != 0 {
                let group = UInt64(0x1F << index | index)
                if index < 4 { high |= group << (48 - 16 * UInt64(index)) } else { low |= group << (48 - 16 * UInt64(index - 4)) }
            }
            let address = IPAddress(family: IPAddress.inet6, high: high, low: low)
            #expect(IPAddress(address.description) == address, "\(address.description)")
        }
        for byte in [UInt64(0), 9, 10, 99, 100, 199, 255] {
            let address = IPAddress(family: IPAddress.inet, high: (byte << 24 | 7 << 16 | byte << 8 | 200) << 32, low: 0)
            #expect(IPAddress(address.description) == address, "\(address.description)")
        }
    }

    @Test(arguments: ["", "1.2.3", "1.2.3.256", "1..2.3", "::1::2", "1:2:3:4:5:6:7:8:9", "12345::", "g::1", "1.2.3.4.5", "::+1", "+1.2.3.4", "1.2.3.+4", "::1:-1"])
    func invalidAddressesAreRejected(_ input: String) {
        #expect(IPAddress(input) == nil)
    }

    @Test func linkLocalIsRecognised() {
        #expect(IPAddress("fe80::1")!.isIPv6LinkLocal && IPAddress("febf::1")!.isIPv6LinkLocal)
        #expect(!IPAddress("fec0::1")!.isIPv6LinkLocal && !IPAddress("2001:db8::1")!.isIPv6LinkLocal)
    }

    @Test func interfaceTypesFollowSpecOrder() {
        func type(_ hardware: UInt16, _ kind: String? = nil, _ name: String = "x", wireless: Bool = false, devtype: String? = nil) -> NetworkInterface.InterfaceType {
            InterfaceClassifier.classify(hardwareType: hardware, kind: kind, name: name, isWireless: wireless, deviceType: devtype)
        }
        #expect(type(772, nil, "lo") == .loopback)
        #expect(type(1, nil, "wlan0", wireless: true) == .wifi)
        #expect(type(1, nil, "wlp2s0", devtype: "wlan") == .wifi)
        #expect(type(1, nil, "usb0", devtype: "wwan") == .cellular)
        #expect(type(519, nil, "mhi0") == .cellular)
        #expect(type(1, nil, "rmnet_data0") == .cellular && type(0xFFFE, nil, "wwan0") == .cellular && type(1, nil, "ccmni1") == .cellular)
        #expect(type(0xFFFE, "tun", "tun0") == .other && type(1, "tun", "tap0") == .other)
        #expect(type(0xFFFE, "wireguard", "wg0") == .other && type(512, nil, "ppp0") == .other && type(776, "sit") == .other)
        #expect(type(1, "veth", "veth0") == .wiredEthernet && type(1, "bridge", "br0") == .wiredEthernet && type(1, nil, "eth0") == .wiredEthernet)
        #expect(type(32, nil, "ib0") == .other)
    }

    @Test func resolverFiles() {
        let text = Array("# comment\nsearch example.org\nnameserver 10.0.0.53\nnameserver\tfd00::53\nnameserver bogus\noptions edns0\n".utf8)
        #expect(ResolverConfiguration.nameservers(in: text) == ["10.0.0.53", "fd00::53"])
        let files: [String: String] = [
            "/stub": "nameserver 127.0.0.53\n", "/upstream": "nameserver 192.0.2.53\n", "/empty": "# nothing\n",
        ]
        func read(_ path: String) -> [UInt8]? { files[path].map { Array($0.utf8) } }
        #expect(ResolverConfiguration(candidates: ["/stub"], upstreamFile: "/upstream").hasServer(read: read))
        #expect(!ResolverConfiguration(candidates: ["/stub"], upstreamFile: "/missing").hasServer(read: read))
        #expect(!ResolverConfiguration(candidates: ["/empty", "/stub"]).hasServer(read: read))
        #expect(ResolverConfiguration(candidates: ["/missing", "/upstream"]).hasServer(read: read))
        #expect(ResolverConfiguration.forNamespace(.named("blue")).candidates == ["/etc/netns/blue/resolv.conf", "/etc/resolv.conf"])
    }

    @Test func pathsAreCodableValues() throws {
        let path = NetworkPath(status: .satisfied, availableInterfaces: [NetworkInterface(name: "eth0", index: 2, type: .wiredEthernet)],
                               supportsIPv4: true, gateways: ["10.0.0.1"])
        #expect(path.usesInterfaceType(.wiredEthernet) && !path.usesInterfaceType(.wifi))
        #expect(path.primaryInterface?.name == "eth0")
        #expect(Set([path, path]).count == 1)
        #expect(!NetworkPath(status: .unsatisfied, availableInterfaces: path.availableInterfaces).usesInterfaceType(.wiredEthernet))
    }

    /// A check's time as a `Duration` at the public edge, the same as its milliseconds.
    @Test func aChecksLatencyIsADurationToo() {
        var result = ConnectivityResult(connectivity: .full, latencyMilliseconds: 12.5)
        #expect(result.latency == .microseconds(12_500))
        result.latency = .milliseconds(40)
        #expect(result.latencyMilliseconds == 40)
        var family = FamilyConnectivity(connectivity: .limited, latencyMilliseconds: 0.001)
        #expect(family.latency == .nanoseconds(1_000))
        family.latencyMilliseconds = .nan
        #expect(family.latency == .zero && ConnectivityResult(connectivity: .unknown).latency == nil)
    }

    /// One codec: `JSONEncoder`/`JSONDecoder`, the tool's line writer and the trace reader
    /// agree on every key, so a path survives every pairing of writer and reader.
    @Test func jsonRoundTripsThroughEveryWriterAndReader() throws {
        let paths = [
            NetworkPath(status: .satisfied, availableInterfaces: [NetworkInterface(name: "wg0", index: 7, type: .other),
                                                                  NetworkInterface(name: "eth\"0", index: 2, type: .wiredEthernet)],
                        tunnelInterface: NetworkInterface(name: "wg0", index: 7, type: .other),
                        underlyingInterface: NetworkInterface(name: "eth\"0", index: 2, type: .wiredEthernet),
                        isExpensive: true, isConstrained: true, isUltraConstrained: true, linkQuality: .minimal,
                        supportsIPv4: true, supportsIPv6: true, supportsDNS: true,
                        gateways: ["10.0.0.1", "fe80::1"], connectivity: .portal, portalURL: "http://portal.test/login"),
            NetworkPath(status: .unsatisfied, unsatisfiedReason: .notAvailable, diagnosis: .blocked),
            .online(.cellular), .offline(.noCarrier), .vpn(over: .cellular),
            NetworkPath(status: .satisfied, availableInterfaces: [NetworkInterface(name: "a\\b\n\t\u{01}\u{1F}é", index: 3, type: .wifi)],
                        supportsIPv4: true, gateways: ["192.0.2.1"]),
        ]
        // A caller's time is a JSON string whatever it holds.
        let odd = try JSONSerialization.jsonObject(with: Data(NetworkPath.online(.wifi).jsonLine(time: "a\"b\\").utf8)) as? [String: Any]
        #expect(odd?["time"] as? String == "a\"b\\")
        // Escaped where JSON asks (a name is any bytes but `/`), copied whole elsewhere.
        #expect(paths.last!.jsonLine(time: "t").contains(#""name":"a\\b\n\t\u0001\u001fé""#))
        for path in paths {
            let encoded = String(decoding: try JSONEncoder().encode(path), as: UTF8.self)
            #expect(try NetworkPath(jsonLine: encoded) == path, "\(encoded)")
            #expect(try JSONDecoder().decode(NetworkPath.self, from: Data(encoded.utf8)) == path)
            let line = path.jsonLine(time: "2026-12-01T00:00:00.000Z")
            #expect(try NetworkPath(jsonLine: line) == path)
            #expect(try JSONDecoder().decode(NetworkPath.self, from: Data(line.utf8)) == path)
            // The writer's keys are the codec's, in its order.
            let keys = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]).keys
            #expect(Set(keys) == Set(NetworkPath.JSONKey.allCases.map(\.rawValue)))
            #expect(line.hasPrefix("{\"time\":\"2026-12-01T00:00:00.000Z\",\"status\":"))
        }
    }

    /// A trace recorded before the tunnel, ultra-constrained and link-quality keys existed
    /// reads as it did: no tunnel, `false`, `unknown`; a wrong value names its key.
    @Test func olderTracesReadWithoutTheNewKeys() throws {
        let old = #"{"time":"2026-11-30T05:02:47.070Z","status":"satisfied","unsatisfiedReason":null,"diagnosis":null,"#
            + #""interfaces":[{"name":"eth0","index":2,"type":"wiredEthernet"}],"isExpensive":false,"isConstrained":false,"#
            + #""supportsIPv4":true,"supportsIPv6":false,"supportsDNS":true,"gateways":["10.0.0.1"]}"#
        let path = try NetworkPath(jsonLine: old)
        #expect(path.tunnelInterface == nil && path.underlyingInterface == nil && !path.usesVPN)
        #expect(!path.isUltraConstrained && path.linkQuality == .unknown)
        #expect(try JSONDecoder().decode(NetworkPath.self, from: Data(old.utf8)) == path)
        for (key, value) in [("linkQuality", #""great""#), ("tunnelInterface", #""wg0""#), ("isUltraConstrained", "1"),
                             ("underlyingInterface", #"{"name":"eth0"}"#)] {
            let wrong = old.replacingOccurrences(of: #""supportsIPv4""#, with: "\"\(key)\":\(value),\"supportsIPv4\"")
            #expect { try NetworkPath(jsonLine: wrong) } throws: { ($0 as? NetPathError)?.message.contains(key) == true }
        }
    }

    /// A VPN as `NWPath` reports one: it uses the tunnel's type and the physical one's, and
    /// its physical interface is the one beneath.
    @Test func aVPNPathUsesBothTypesAndNamesThePhysicalInterface() {
        let vpn = NetworkPath.vpn(over: .wifi, tunnel: "utun3")
        #expect(vpn.usesVPN && vpn.primaryInterface?.name == "utun3" && vpn.physicalInterface?.name == "wlan0")
        #expect(vpn.usesInterfaceType(.other) && vpn.usesInterfaceType(.wifi) && !vpn.usesInterfaceType(.cellular))
        #expect(vpn.description.contains("via utun3 (other)  VPN over wlan0 (wifi)"))
        #expect(NetworkPath.vpn(over: .cellular).isExpensive)
        var quality = NetworkPath.online(.wifi)
        quality.linkQuality = .good
        quality.isUltraConstrained = true
        #expect(quality.description.hasSuffix("ultra-constrained  link quality good"))
    }

    /// A container node's 1,000 veths: the line names the first eight and counts the rest,
    /// offline and online; JSON keeps every one.
    @Test func aLineOnAThousandInterfacesStaysShort() throws {
        let interfaces = (0..<1000).map { NetworkInterface(name: "veth\($0)abcdef", index: 10 + $0, type: .wiredEthernet) }
        var offline = NetworkPath(status: .unsatisfied, availableInterfaces: interfaces)
        offline.diagnosis = .noDefaultRoute
        #expect(offline.description.utf8.count <= 4096)
        #expect(offline.description.hasSuffix("veth7abcdef (wiredEthernet) and 992 more"), "\(offline.description)")
        var online = NetworkPath.online(.wiredEthernet)
        online.availableInterfaces += interfaces
        #expect(online.description.utf8.count <= 4096)
        #expect(online.description.hasSuffix("veth7abcdef (wiredEthernet) and 992 more"), "\(online.description)")
        #expect(try NetworkPath(jsonLine: offline.jsonLine(at: "2026-12-05T00:00:00Z", includingConnectivity: false)).availableInterfaces.count == 1000)
        var three = NetworkPath(status: .unsatisfied, availableInterfaces: Array(interfaces.prefix(8)))
        three.diagnosis = .noDefaultRoute
        #expect(three.description.hasSuffix("veth7abcdef (wiredEthernet)"))
    }

    /// File names are bytes: any of them survives a trip through `String` and back, UTF-8
    /// stays as it is, and an invalid byte shows as `\xNN`.
    @Test func fileNamesKeepTheirBytes() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<64 {
            for _ in 0..<50 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 1...255, using: &generator) }
                #expect(FileName.encode(FileName.decode(bytes)) == bytes, "\(bytes)")
                #expect(FileName.isValidUTF8(bytes[...]) == (String(validating: bytes, as: UTF8.self) != nil), "\(bytes)")
            }
        }
        #expect(FileName.decode(Array("blue-é-😀".utf8)) == "blue-é-😀")
        for sequence: [UInt8] in [[0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF0, 0x9F, 0x98], [0xE2, 0x82, 0xAC]] {
            #expect(FileName.isValidUTF8(sequence[...]) == (String(validating: sequence, as: UTF8.self) != nil), "\(sequence)")
        }
        let odd = FileName.decode([0x6E, 0x70, 0xFF, 0xC3, 0x28, 0xED, 0xA0, 0x80])
        #expect(FileName.visible(odd) == "np\\xff\\xc3(\\xed\\xa0\\x80")
        #expect(NetworkNamespace.named(odd).description == "network namespace 'np\\xff\\xc3(\\xed\\xa0\\x80'")
    }

    @Test func namespaceNames() {
        #expect(NetworkNamespace.named("blue").path == "/var/run/netns/blue")
        #expect(NetworkNamespace.path("/proc/42/ns/net").processIdentifier == 42)
        #expect(NetworkNamespace.path("/proc/self/ns/net").processIdentifier == nil)
        #expect(NetworkNamespace.path("/run/netns/42").processIdentifier == nil)
        #expect(!NetworkNamespace.named("../x").hasValidName && !NetworkNamespace.named("").hasValidName)
        #expect(NetworkNamespace.path("/proc/1/ns/net").hasValidName)
    }
}

@Suite struct JSONValueTests {
    @Test func readsEveryKindOfValue() throws {
        let value = try JSONValue.parse(#" {"a":[1,-2.5e3,true,false,null],"s":"x\"\\\/\n\u00e9\ud83d\ude00","o":{}} "#)
        #expect(value["a"] == .array([.number(1), .number(-2500), .bool(true), .bool(false), .null]))
        #expect(value["s"] == .string("x\"\\/\né😀"))
        #expect(value["o"] == .object([:]))
    }

    @Test(arguments: ["", "{", "[1,]", "{\"a\" 1}", "\"\u{01}\"", "\"\\x\"", "01x", "1e999", "[1] 2", "\"\\ud83d\\u0041\"", "tru"])
    func rejectsMalformedText(_ text: String) {
        #expect(throws: JSONValue.SyntaxError.self) { try JSONValue.parse(text) }
    }

    @Test func boundsNesting() {
        #expect(throws: JSONValue.SyntaxError.self) { try JSONValue.parse(String(repeating: "[", count: 10_000)) }
        #expect((try? JSONValue.parse(String(repeating: "[", count: 20) + String(repeating: "]", count: 20))) != nil)
    }
}
