// libFuzzer target: rtnetlink datagrams → NetlinkParser → NetlinkEngine → PathDecision.path().
//
// The input is one datagram as recv(2) returns it. Every decoded message is fed to two
// engines: one in the middle of a dump (as at start-up, where dump replies and
// NLMSG_DONE/NLMSG_ERROR drive the links → addresses → routes protocol) and one that only
// sees events; the path is computed after every message, with and without a type filter,
// as the pure tests do. Any trap, overflow or ASan report is a bug: the parser promises
// that nothing can trap on any input.

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
    var request = dumping.resynchronize()
    // Every message both as an event and, through the lookups asked before it, as the
    // kernel's answer to one (sequences 1 and 2 are the first round's).
    _ = events.startLookups()
    _ = filtered.startLookups()
    NetlinkParser.parse(datagram) { envelope in
        if let next = dumping.handle(envelope) { request = next }
        _ = events.handle(envelope)
        _ = filtered.handle(envelope)
        var answer = envelope
        answer.sequence = 1 + envelope.sequence % 2
        _ = events.handle(answer)
        dumping.setHasDNSServer(envelope.sequence & 1 == 0)
        _ = dumping.path()
        _ = events.path()
        _ = filtered.path()
        _ = events.nextExpiry()
        let lookups = events.startLookups()
        _ = NetlinkEngine.encode(lookups: lookups)
    }
    if let request { _ = NetlinkEngine.encode(request) }
    let path = events.path()
    // The rules the path must keep whatever the bytes (SPEC §2.5): a reason exactly when
    // not satisfied, and no interface listed twice.
    if (path.status == .satisfied) != (path.diagnosis == nil) { fatalError("diagnosis does not match status") }
    if Set(path.availableInterfaces.map(\.index)).count != path.availableInterfaces.count {
        fatalError("an interface listed twice")
    }
    return 0
}
