// libFuzzer target: rtnetlink datagrams → NetlinkParser → NetlinkEngine → PathDecision.path().
//
// The input is one datagram as recv(2) returns it. Every decoded message is fed to two
// engines: one in the middle of a dump (as at start-up, where dump replies and
// NLMSG_DONE/NLMSG_ERROR drive the links → addresses → routes protocol) and one that only
// sees events; the path is computed after every message, with and without a type filter,
// as the pure tests do. Any trap, overflow or ASan report is a bug: the parser promises
// that nothing can trap on any input.

@testable import NetPathCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let datagram = UnsafeRawBufferPointer(start: data, count: size)
    let classify: (LinkMessage) -> NetworkInterface.InterfaceType = { link in
        InterfaceClassifier.classify(hardwareType: link.hardwareType, kind: link.kind, name: link.name ?? "",
                                     isWireless: false, deviceType: nil)
    }
    var dumping = NetlinkEngine(classify: classify)
    var events = NetlinkEngine(classify: classify)
    var filtered = NetlinkEngine(filter: InterfaceFilter(required: nil, prohibited: [.other, .cellular]), classify: classify)
    _ = dumping.handle(.start, at: .zero)
    // Every message both as an event and, through the questions asked before it, as the
    // kernel's answer to one (the first round's lookups take the first sequences).
    func round(_ engine: inout NetlinkEngine, at now: Instant) {
        let number = now.nanoseconds
        let questions = engine.handle(.step, at: now).compactMap { action -> RouteLookup? in
            if case .ask(let question) = action { question } else { nil }
        }
        _ = engine.handle(.verdicts(questions.map { question in
            (question, number & 1 == 0 ? .connected(source: IPAddress(family: question.family, high: number, low: number)) : .refused(errno: LinuxErrno(Int32(number % 120))))
        }), at: now)
        _ = engine.handle(.step, at: now)
    }
    round(&events, at: .zero)
    round(&filtered, at: .zero)
    var neighbors = GatewayNeighbors()
    NetlinkParser.parse(datagram) { envelope in
        neighborStep(envelope, &neighbors)
        let now = Instant(nanoseconds: UInt64(envelope.sequence))
        dumping.handle(envelope, at: now)
        events.handle(envelope, at: now)
        filtered.handle(envelope, at: now)
        var answer = envelope
        answer.sequence = 1 + envelope.sequence % 3
        events.handle(answer, at: now)
        _ = dumping.handle(.resolverRead(servers: envelope.sequence & 1 == 0 ? ["192.0.2.53"] : []), at: now)
        _ = dumping.path()
        _ = events.path()
        _ = filtered.path()
        _ = events.nextExpiry()
        round(&events, at: now)
        _ = events.schedule(now: now)
        _ = dumping.handle(.step, at: Instant(nanoseconds: UInt64(envelope.port)))
    }
    let path = events.path()
    // The rules the path must keep whatever the bytes (SPEC §2.5): a reason exactly when
    // not satisfied, and no interface listed twice.
    if (path.status == .satisfied) != (path.diagnosis == nil) { fatalError("diagnosis does not match status") }
    if Set(path.availableInterfaces.map(\.index)).count != path.availableInterfaces.count {
        fatalError("an interface listed twice")
    }
    return 0
}

/// A neighbor message watched as a gateway's: the entries, the path they give, and the
/// socket filter for that gateway (every jump must land inside the program, and the
/// program must end in a return).
private func neighborStep(_ envelope: NetlinkEnvelope, _ neighbors: inout GatewayNeighbors) {
    let message: NeighborMessage, deleted: Bool
    switch envelope.message {
    case .newNeighbor(let neighbor): (message, deleted) = (neighbor, false)
    case .deleteNeighbor(let neighbor): (message, deleted) = (neighbor, true)
    default: return
    }
    let hop = GatewayHop(interfaceIndex: message.interfaceIndex, address: message.destination)
    let path = NetworkPath(status: .satisfied, gateways: [hop.address.description])
    _ = neighbors.decide(path, gateways: ([hop], [hop]))
    neighbors.readEnded()
    _ = neighbors.apply(message, deleted: deleted)
    let shown = neighbors.takePath(key: Array(message.linkLayerAddress ?? []))
    if let shown, !Set(shown.unresponsiveGateways).isSubset(of: shown.gateways) { fatalError("an unresponsive gateway not among the gateways") }
    if let network = shown?.network, network.count != 16 { fatalError("a network identifier of \(network.count) digits") }
    let program = NeighborFilter.program(for: [hop, hop])
    for (position, instruction) in program.enumerated() where instruction.code == SocketFilterInstruction.jumpIfEqual {
        let farthest = position + 1 + Int(max(instruction.jumpTrue, instruction.jumpFalse))
        if farthest >= program.count { fatalError("a filter jump past the end") }
    }
    if program.last?.code != SocketFilterInstruction.returnConstant { fatalError("the filter does not end in a return") }
    _ = NetlinkRequest.encodeNeighborGet([hop], firstSequence: envelope.sequence)
}
