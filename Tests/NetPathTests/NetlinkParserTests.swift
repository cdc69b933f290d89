import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

@Suite struct NetlinkParserTests {
    @Test func decodesALinkWithNameOperstateAndKind() {
        let messages = NetlinkParser.parse(Fixture.link(index: 7, hardware: 0xFFFE, flags: upFlags, name: "wg0", operstate: 0, kind: "wireguard"))
        #expect(messages.count == 1)
        guard case .newLink(let link) = messages.first?.message else { Issue.record("not a link: \(messages)"); return }
        #expect(link == LinkMessage(family: 0, index: 7, hardwareType: 0xFFFE, flags: upFlags, name: "wg0", operationalState: 0, kind: "wireguard"))
    }

    @Test func decodesAddressesPreferringTheLocalAndTheLongFlags() {
        let v4 = NetlinkParser.parse(Fixture.address(index: 3, "192.0.2.10", prefix: 24))
        guard case .newAddress(let address) = v4.first?.message else { Issue.record("\(v4)"); return }
        #expect(address.address.description == "192.0.2.10" && address.prefixLength == 24 && address.index == 3)
        // IFA_F_TENTATIVE (0x40) and a flag above eight bits, only in IFA_FLAGS.
        let v6 = NetlinkParser.parse(Fixture.address(type: Netlink.MessageType.deleteAddress, index: 4, "2001:db8::1", prefix: 64, flags: 0x240))
        guard case .deleteAddress(let deleted) = v6.first?.message else { Issue.record("\(v6)"); return }
        #expect(deleted.flags == 0x240 && deleted.address.description == "2001:db8::1")
    }

    @Test func decodesRoutesWithTableMetricGatewayAndMultipath() {
        let single = NetlinkParser.parse(Fixture.route(table: 1000, metric: 600, oif: 2, gateway: "10.0.0.1"))
        guard case .newRoute(let route) = single.first?.message else { Issue.record("\(single)"); return }
        #expect(route.table == 1000 && route.metric == 600 && route.type == 1)
        #expect(route.nexthops == [Nexthop(interfaceIndex: 2, gateway: IPAddress("10.0.0.1"))])
        let multi = NetlinkParser.parse(Fixture.route(family: IPAddress.inet6, multipath: [(2, "fe80::1"), (3, nil)]))
        guard case .newRoute(let multipath) = multi.first?.message else { Issue.record("\(multi)"); return }
        #expect(multipath.nexthops == [Nexthop(interfaceIndex: 2, gateway: IPAddress("fe80::1")), Nexthop(interfaceIndex: 3, gateway: nil)])
    }

    @Test func decodesSeveralMessagesDoneAndErrorInOneDatagram() {
        let bytes = Fixture.link(index: 1, flags: upFlags, name: "a", sequence: 5)
            + Fixture.error(-16, sequence: 5) + Fixture.done(sequence: 5)
        let messages = NetlinkParser.parse(bytes)
        #expect(messages.map(\.sequence) == [5, 5, 5])
        #expect(messages[1].message == .error(code: -16))
        #expect(messages[2].message == .done)
    }

    @Test func unknownTypesAndAttributesAreSkipped() {
        let unknownType = Fixture.message(type: 99, body: [1, 2, 3, 4])
        let unknownAttribute = Fixture.link(index: 2, flags: upFlags, name: "eth0", extra: Fixture.attribute(999, [9, 9, 9]))
        let messages = NetlinkParser.parse(unknownType + unknownAttribute)
        #expect(messages.count == 2)
        #expect(messages[0].message == .other(type: 99))
        guard case .newLink(let link) = messages[1].message else { Issue.record("\(messages)"); return }
        #expect(link.name == "eth0")
    }

    @Test func truncatedAndOversizedMessagesEndTheDatagramSafely() {
        let good = Fixture.link(index: 2, flags: upFlags, name: "eth0")
        // A header that claims more bytes than there are.
        var oversized = good
        oversized.replaceSubrange(0..<4, with: Fixture.u32(4096))
        #expect(NetlinkParser.parse(oversized).isEmpty)
        // A length below the header size.
        var tiny = good
        tiny.replaceSubrange(0..<4, with: Fixture.u32(3))
        #expect(NetlinkParser.parse(tiny).isEmpty)
        // Every prefix of a valid datagram: no crash, and never a message that is not there.
        let two = good + Fixture.address(index: 2, "10.0.0.2")
        for cut in 0..<two.count {
            #expect(NetlinkParser.parse(Array(two[0..<cut])).count <= (cut >= good.count ? 2 : 1))
        }
        // A body too short for its type decodes as `.other`.
        #expect(NetlinkParser.parse(Fixture.message(type: Netlink.MessageType.newRoute, body: [2, 0])).first?.message == .other(type: 24))
        // An attribute whose length runs past the message stops attribute parsing only.
        var badAttribute = Fixture.link(index: 2, flags: upFlags, name: "eth0")
        badAttribute.replaceSubrange(32..<34, with: Fixture.u16(200))
        guard case .newLink(let link) = NetlinkParser.parse(badAttribute).first?.message else { Issue.record("no link"); return }
        #expect(link.index == 2 && link.name == nil)
    }

    @Test func randomAndMutatedBytesNeverCrash() {
        var generator = SplitMix(seed: 0x5EED)
        let seeds = [
            Fixture.link(index: 2, flags: upFlags, name: "eth0", kind: "veth"),
            Fixture.address(index: 2, "2001:db8::2", prefix: 64),
            Fixture.route(metric: 5, multipath: [(2, "10.0.0.1"), (3, "10.0.1.1")]),
            Fixture.done(sequence: 1),
        ]
        var decoded = 0
        for round in 0..<20_000 {
            var bytes: [UInt8]
            if round % 2 == 0 {
                bytes = (0..<Int(generator.next() % 200)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            } else {
                bytes = seeds[Int(generator.next() % UInt64(seeds.count))]
                for _ in 0..<(1 + generator.next() % 4) where !bytes.isEmpty {
                    bytes[Int(generator.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: generator.next())
                }
            }
            decoded += NetlinkParser.parse(bytes).count
            var engine = NetlinkEngine.pure()
            engine.feed(bytes)
            _ = engine.path()
        }
        #expect(decoded > 0)
    }
}

/// A small deterministic generator, so a failure reproduces.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The request builder computes what iproute2's `addattr_l` computes: lengths and padding.
@Suite struct NetlinkRequestTests {
    @Test func lengthsAndPaddingAreComputed() {
        var request = NetlinkRequest()
        request.begin(type: 26, flags: 1, sequence: 9)
        request.append(contentsOf: [2, 32, 0, 0, 0, 0, 0, 0])
        request.append(UInt32(0))
        request.attribute(27, [17])
        request.attribute(4, Int32(3))
        request.end()
        request.begin(type: 18, flags: 0x301, sequence: 10)
        request.append(contentsOf: repeatElement(0, count: 16))
        request.end()
        let bytes = request.bytes
        // 16 header + 12 rtmsg + 8 (5 padded) + 8; then 16 + 16.
        #expect(bytes.count == 44 + 32)
        #expect(Array(bytes[0..<4]) == Fixture.u32(44) && Array(bytes[44..<48]) == Fixture.u32(32))
        #expect(Array(bytes[28..<36]) == Fixture.u16(5) + Fixture.u16(27) + [17, 0, 0, 0])
        #expect(Array(bytes[36..<44]) == Fixture.u16(8) + Fixture.u16(4) + Fixture.i32(3))
        #expect(NetlinkParser.parse(bytes).map(\.sequence) == [9, 10])
    }
}
