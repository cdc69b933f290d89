// libFuzzer target: rtnetlink datagrams → NetlinkParser → NetlinkEngine → KernelState.path().
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
    var request = dumping.resynchronize()
    let filtered = InterfaceFilter(required: nil, prohibited: [.other, .cellular])
    NetlinkParser.parse(datagram) { envelope in
        if let next = dumping.handle(envelope) { request = next }
        _ = events.handle(envelope)
        dumping.setHasDNSServer(envelope.sequence & 1 == 0)
        _ = dumping.state.path()
        _ = events.state.path()
        _ = events.state.path(filter: filtered)
    }
    if let request { _ = NetlinkEngine.encode(request) }
    let path = events.state.path()
    // The rules the path must keep whatever the bytes (SPEC §2.5): a reason exactly when
    // not satisfied, and no interface listed twice.
    if (path.status == .satisfied) != (path.diagnosis == nil) { fatalError("diagnosis does not match status") }
    if Set(path.availableInterfaces.map(\.index)).count != path.availableInterfaces.count {
        fatalError("an interface listed twice")
    }
    return 0
}
