import Testing
@testable import NetPath
@testable import NetPathCore
import NetPathPrometheus

/// A classic BPF interpreter for the instructions ``NeighborFilter`` emits (absolute loads,
/// equality jumps, constant returns), with the kernel's rule that a load past the end drops
/// the packet.
private func runFilter(_ program: [SocketFilterInstruction], on packet: [UInt8]) -> UInt32 {
    var accumulator: UInt32 = 0
    var pc = 0
    while pc < program.count {
        let instruction = program[pc]
        switch instruction.code {
        case SocketFilterInstruction.loadWord, SocketFilterInstruction.loadHalf:
            let width = instruction.code == SocketFilterInstruction.loadWord ? 4 : 2
            let offset = Int(instruction.constant)
            guard offset + width <= packet.count else { return 0 }
            accumulator = packet[offset..<(offset + width)].reduce(0) { $0 << 8 | UInt32($1) }
        case SocketFilterInstruction.jumpIfEqual:
            pc += Int(accumulator == instruction.constant ? instruction.jumpTrue : instruction.jumpFalse)
        case SocketFilterInstruction.returnConstant:
            return instruction.constant
        default:
            Issue.record("unknown instruction \(instruction)")
            return 0
        }
        pc += 1
    }
    Issue.record("the program ran off its end")
    return 0
}

/// A neighbor message as the kernel writes it: `nlmsghdr`, `ndmsg`, `NDA_DST` first, then
/// `NDA_LLADDR` when given.
private func neighborMessage(type: UInt16 = Netlink.Neighbor.newMessage, family: UInt8 = IPAddress.inet, index: Int32,
                             state: UInt16, destination: String, lladdr: [UInt8]? = nil) -> [UInt8] {
    var message = NetlinkRequest()
    message.begin(type: type, flags: 0, sequence: 0)
    message.append(contentsOf: [family, 0, 0, 0])
    message.append(index)
    message.append(state)
    message.append(contentsOf: [0, 1])
    message.attribute(Netlink.Neighbor.destinationAttribute, IPAddress(destination)!.bytes)
    if let lladdr { message.attribute(Netlink.Neighbor.linkLayerAttribute, lladdr) }
    message.end()
    return message.bytes
}

@Suite struct NeighborTests {
    let mac: [UInt8] = [0x36, 0xea, 0x41, 0x06, 0x69, 0x35]

    @Test func decodesTheKernelsAnswerToANeighborGet() {
        // `RTM_NEWNEIGH` as a 6.x kernel answered `RTM_GETNEIGH` for 192.0.2.1 on ifindex 2.
        let hex = "4c0000001c00000001000000bb08000002000000020000000200000108000100c00002010a00020036ea410669350000"
            + "080004000400000014000300ff020000ff020000ff02000002000000"
        let bytes = stride(from: 0, to: hex.count, by: 2).map { offset -> UInt8 in
            let start = hex.index(hex.startIndex, offsetBy: offset)
            return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
        }
        let messages = NetlinkParser.parse(bytes)
        guard case .newNeighbor(let neighbor)? = messages.first?.message else { Issue.record("\(messages)"); return }
        #expect(neighbor == NeighborMessage(family: IPAddress.inet, interfaceIndex: 2, state: Netlink.Neighbor.reachable,
                                            destination: IPAddress("192.0.2.1")!, linkLayerAddress: mac))
        #expect(!neighbor.isFailed)
    }

    @Test func decodesStatesAndIPv6AndRejectsMalformedMessages() {
        let failed = NetlinkParser.parse(neighborMessage(index: 3, state: Netlink.Neighbor.failed, destination: "192.0.2.1"))
        guard case .newNeighbor(let entry)? = failed.first?.message else { Issue.record("\(failed)"); return }
        #expect(entry.isFailed && entry.linkLayerAddress == nil)
        let v6 = NetlinkParser.parse(neighborMessage(type: Netlink.Neighbor.deleteMessage, family: IPAddress.inet6, index: 4,
                                                     state: Netlink.Neighbor.stale, destination: "fe80::1", lladdr: mac))
        guard case .deleteNeighbor(let gone)? = v6.first?.message else { Issue.record("\(v6)"); return }
        #expect(gone.destination == IPAddress("fe80::1") && gone.interfaceIndex == 4 && gone.linkLayerAddress == mac)
        // A destination of the wrong length, a bridge family, a too-short ndmsg, an oversized lladdr.
        var wrongLength = neighborMessage(index: 3, state: 2, destination: "192.0.2.1")
        wrongLength[28] = 7
        #expect(NetlinkParser.parse(wrongLength).first?.message == .other(type: Netlink.Neighbor.newMessage))
        #expect(NetlinkParser.parse(neighborMessage(family: 7, index: 3, state: 2, destination: "192.0.2.1")).first?.message
                == .other(type: Netlink.Neighbor.newMessage))
        var short = NetlinkRequest()
        short.begin(type: Netlink.Neighbor.newMessage, flags: 0, sequence: 0)
        short.append(contentsOf: [UInt8](repeating: 2, count: 11))
        short.end()
        #expect(NetlinkParser.parse(short.bytes).first?.message == .other(type: Netlink.Neighbor.newMessage))
        let long = NetlinkParser.parse(neighborMessage(index: 3, state: 2, destination: "192.0.2.1", lladdr: Array(repeating: 1, count: 40)))
        guard case .newNeighbor(let noAddress)? = long.first?.message else { Issue.record("\(long)"); return }
        #expect(noAddress.linkLayerAddress == nil)
        // Every truncation of a valid message decodes without trapping.
        let whole = neighborMessage(index: 3, state: 2, destination: "2001:db8::1", lladdr: mac)
        for length in 0..<whole.count { _ = NetlinkParser.parse(Array(whole[..<length])) }
    }

    @Test func filterPassesOnlyTheGatewaysMessages() {
        let gateways = [GatewayHop(interfaceIndex: 2, address: IPAddress("192.0.2.1")!),
                        GatewayHop(interfaceIndex: 5, address: IPAddress("fe80::1")!)]
        let program = NeighborFilter.program(for: gateways)
        func passes(_ bytes: [UInt8]) -> Bool { runFilter(program, on: bytes) != 0 }
        #expect(passes(neighborMessage(index: 2, state: Netlink.Neighbor.failed, destination: "192.0.2.1")))
        #expect(passes(neighborMessage(type: Netlink.Neighbor.deleteMessage, index: 2, state: 0, destination: "192.0.2.1")))
        #expect(passes(neighborMessage(family: IPAddress.inet6, index: 5, state: 2, destination: "fe80::1", lladdr: mac)))
        // Another neighbor, another link, another family's gateway, another message type.
        #expect(!passes(neighborMessage(index: 2, state: 2, destination: "192.0.2.50", lladdr: mac)))
        #expect(!passes(neighborMessage(index: 3, state: 2, destination: "192.0.2.1", lladdr: mac)))
        #expect(!passes(neighborMessage(family: IPAddress.inet6, index: 2, state: 2, destination: "fe80::1")))
        #expect(!passes(neighborMessage(family: IPAddress.inet6, index: 5, state: 2, destination: "fe80::2")))
        #expect(!passes(neighborMessage(type: Netlink.MessageType.newRoute, index: 2, state: 2, destination: "192.0.2.1")))
        // Short packets: a load past the end drops them.
        let whole = neighborMessage(index: 2, state: 2, destination: "192.0.2.1")
        for length in 0..<whole.count { #expect(!passes(Array(whole[..<length]))) }
        // No gateway: nothing passes.
        #expect(runFilter(NeighborFilter.program(for: []), on: whole) == 0)
    }

    @Test func sipHashMatchesThePublishedVectors() {
        // The reference implementation's vectors: key 00 01 … 0f, message 00 01 … (n - 1).
        let key = (0..<16).map(UInt8.init)
        let expected: [Int: UInt64] = [
            0: 0x726f_db47_dd0e_0e31, 1: 0x74f8_39c5_93dc_67fd, 2: 0x0d6c_8009_d9a9_4f5a,
            7: 0xab02_00f5_8b01_d137, 8: 0x93f5_f579_9a93_2462, 15: 0xa129_ca61_49be_45e5, 63: 0x958a_324c_eb06_4572,
        ]
        for (length, value) in expected {
            #expect(SipHash24.hash((0..<length).map(UInt8.init), key: key) == value, "length \(length)")
        }
        // Fed in pieces, the same hash.
        var pieces = SipHash24(key: key)
        pieces.combine([0, 1, 2])
        pieces.combine((3..<15).map(UInt8.init))
        let whole = pieces.finalize()
        #expect(whole == 0xa129_ca61_49be_45e5)
    }

    @Test func networkIdentityHidesTheAddressAndFollowsTheRouter() throws {
        let key = try #require(NetworkIdentity.key(machineID: Array("0123456789abcdef0123456789abcdef\n".utf8)))
        #expect(key.count == 16 && key != NetworkIdentity.fixedKey)
        #expect(NetworkIdentity.key(machineID: Array("not a machine id".utf8)) == nil)
        #expect(NetworkIdentity.key(machineID: Array(repeating: UInt8(ascii: "0"), count: 32)) == nil)
        let identifier = try #require(NetworkIdentity.identifier(linkLayerAddresses: [mac], key: key))
        #expect(identifier.count == 16 && identifier.allSatisfy(\.isHexDigit))
        #expect(!identifier.contains("36ea"))
        // The same router by both families is one network; another MAC, another key: another.
        #expect(NetworkIdentity.identifier(linkLayerAddresses: [mac, mac], key: key) == identifier)
        #expect(NetworkIdentity.identifier(linkLayerAddresses: [[0x36, 0xea, 0x41, 0x06, 0x69, 0x36]], key: key) != identifier)
        #expect(NetworkIdentity.identifier(linkLayerAddresses: [mac], key: NetworkIdentity.fixedKey) != identifier)
        #expect(NetworkIdentity.identifier(linkLayerAddresses: [], key: key) == nil)
        // The desktop's connection mixed in: another connection, another network.
        let home = NetworkIdentity.combining(identifier, with: "8c0e0b4c-1d3a-4c55-9e1f-2f0a6a1f0001", key: key)
        #expect(home != identifier && home != NetworkIdentity.combining(identifier, with: "another", key: key))
    }

    @Test func gatewayEntriesGiveUnresponsiveGatewaysAndTheNetwork() throws {
        var neighbors = GatewayNeighbors()
        let gateway = GatewayHop(interfaceIndex: 2, address: IPAddress("192.0.2.1")!)
        let path = NetworkPath(status: .satisfied, gateways: ["192.0.2.1"])
        let watches = neighbors.decide(path, gateways: ([gateway], [gateway]))
        #expect(watches)
        let waiting = neighbors.takePath(key: NetworkIdentity.fixedKey)
        #expect(waiting == nil, "the path waits for the entries")
        neighbors.readEnded()
        let unknownTaken = neighbors.takePath(key: NetworkIdentity.fixedKey)
        let unknown = try #require(unknownTaken)
        #expect(unknown.network == nil)
        func message(_ state: UInt16, _ lladdr: [UInt8]?, index: Int32 = 2) -> NeighborMessage {
            NeighborMessage(family: IPAddress.inet, interfaceIndex: index, state: state, destination: gateway.address, linkLayerAddress: lladdr)
        }
        let reachable = neighbors.apply(message(Netlink.Neighbor.reachable, mac), deleted: false)
        #expect(reachable)
        let knownTaken = neighbors.takePath(key: NetworkIdentity.fixedKey)
        let known = try #require(knownTaken)
        #expect(known.network == NetworkIdentity.identifier(linkLayerAddresses: [mac], key: NetworkIdentity.fixedKey))
        #expect(known.unresponsiveGateways.isEmpty)
        let other = neighbors.apply(message(Netlink.Neighbor.failed, nil, index: 9), deleted: false)
        #expect(!other, "not a gateway's")
        let failing = neighbors.apply(message(Netlink.Neighbor.failed, nil), deleted: false)
        #expect(failing)
        let failedTaken = neighbors.takePath(key: NetworkIdentity.fixedKey)
        let failed = try #require(failedTaken)
        #expect(failed.unresponsiveGateways == ["192.0.2.1"] && failed.network == known.network, "the network last seen")
        let deleted = neighbors.apply(message(0, nil), deleted: true)
        #expect(deleted)
        let answering = neighbors.takePath(key: NetworkIdentity.fixedKey)
        #expect(answering?.unresponsiveGateways == [])
        let same = neighbors.decide(path, gateways: ([gateway], [gateway]))
        #expect(!same, "the same gateways: nothing to re-read")
        // The default route goes: the entry is still followed (the reader's filter lets its
        // messages through), and nothing is shown of it.
        let none = neighbors.decide(NetworkPath(status: .unsatisfied), gateways: ([], []))
        #expect(!none, "nothing to read")
        let unshown = neighbors.apply(message(Netlink.Neighbor.failed, nil), deleted: false)
        #expect(!unshown && neighbors.entries[gateway]?.state == Netlink.Neighbor.failed)
        _ = neighbors.takePath(key: NetworkIdentity.fixedKey)
        // It comes back through the same gateway: the entry is current, no re-read, no wait.
        let back = neighbors.decide(path, gateways: ([gateway], [gateway]))
        #expect(!back && !neighbors.reading)
        let backTaken = neighbors.takePath(key: NetworkIdentity.fixedKey)
        #expect(backTaken?.unresponsiveGateways == ["192.0.2.1"] && backTaken?.network == known.network)
        // Gone again, and the reader's queue overflowed meanwhile: read again when it is back.
        _ = neighbors.decide(NetworkPath(status: .unsatisfied), gateways: ([], []))
        neighbors.followingLost()
        #expect(neighbors.entries.isEmpty)
        let reread = neighbors.decide(path, gateways: ([gateway], [gateway]))
        #expect(reread && neighbors.reading)
        // The reader has no socket for them (it could not make one): while they stay
        // watched their entries stay; gone and back, they are read again.
        neighbors.readEnded()
        _ = neighbors.apply(message(Netlink.Neighbor.reachable, mac), deleted: false)
        neighbors.followingLost()
        #expect(neighbors.followed.isEmpty && neighbors.entries[gateway] != nil)
        let stillApplied = neighbors.apply(message(Netlink.Neighbor.reachable, [2, 0, 0, 0, 0, 9]), deleted: false)
        #expect(stillApplied, "a watched gateway's message still counts")
        _ = neighbors.decide(NetworkPath(status: .unsatisfied), gateways: ([], []))
        #expect(neighbors.entries.isEmpty, "nothing followed them: not kept")
        let retried = neighbors.decide(path, gateways: ([gateway], [gateway]))
        #expect(retried && neighbors.reading)
        // Another gateway: the old one's entry is forgotten.
        let other2 = GatewayHop(interfaceIndex: 2, address: IPAddress("192.0.2.254")!)
        neighbors.readEnded()
        _ = neighbors.apply(message(Netlink.Neighbor.reachable, mac), deleted: false)
        let moved = neighbors.decide(path, gateways: ([other2], [other2]))
        #expect(moved && neighbors.entries[gateway] == nil)
    }

    @Test func jsonCarriesTheNewKeysAndReadsOldLines() throws {
        var path = NetworkPath(status: .satisfied, supportsIPv4: true, gateways: ["192.0.2.1", "fe80::1"])
        path.unresponsiveGateways = ["192.0.2.1"]
        path.network = "00112233aabbccdd"
        let line = path.jsonLine(at: "2026-01-01T00:00:00.000Z", includingConnectivity: false)
        #expect(line.contains(#""gateways":["192.0.2.1","fe80::1"],"unresponsiveGateways":["192.0.2.1"],"network":"00112233aabbccdd","expensiveSource""#))
        #expect(try NetworkPath(jsonLine: line) == path)
        let old = #"{"time":"2026-01-01T00:00:00.000Z","status":"satisfied","gateways":["192.0.2.1"]}"#
        let read = try NetworkPath(jsonLine: old)
        #expect(read.unresponsiveGateways.isEmpty && read.network == nil)
        #expect(path != { var other = path; other.network = "ffffffffffffffff"; return other }())
        #expect(path.description.contains("the router 192.0.2.1 does not answer (no ARP reply)"))
        #expect(NetworkPath.unresponsiveExplanation("fe80::1") == "the router fe80::1 does not answer (no neighbor advertisement)")
    }

    @Test func serveExposesEachGatewayUpOrNot() {
        var path = NetworkPath(status: .satisfied, supportsIPv4: true, gateways: ["192.0.2.1", "fe80::1"])
        path.unresponsiveGateways = ["fe80::1"]
        let text = PrometheusExposition.text(for: [.init(name: "lab", metrics: PathMetrics(), path: path)], version: "1", probe: false, at: 0)
        #expect(text.contains("# TYPE netpath_gateway_up gauge"))
        #expect(text.contains(#"netpath_gateway_up{netns="lab",gateway="192.0.2.1",family="ipv4"} 1"#))
        #expect(text.contains(#"netpath_gateway_up{netns="lab",gateway="fe80::1",family="ipv6"} 0"#))
    }
}
