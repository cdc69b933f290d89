/// The monitor's state machine: decoded messages in, kernel state and dump requests out.
///
/// It owns the dump protocol of SPEC §2.1 and §2.9: links, then addresses, then routes;
/// a dump interrupted by a concurrent change (`NLM_F_DUMP_INTR`) or a receive-buffer overrun
/// (`ENOBUFS`) starts over from an empty state. Paths are only read while ``isSettled``, so
/// a half-done dump is never seen. It does no I/O, so it is tested with byte fixtures.
struct NetlinkEngine {
    /// The three dumps of a synchronisation, in order.
    enum Dump: UInt16, Sendable {
        case links = 18  // RTM_GETLINK
        case addresses = 22  // RTM_GETADDR
        case routes = 26  // RTM_GETROUTE

        var next: Dump? {
            switch self {
            case .links: .addresses
            case .addresses: .routes
            case .routes: nil
            }
        }
    }

    /// A dump request the caller must send.
    struct Request: Hashable, Sendable {
        var dump: Dump
        var sequence: UInt32
    }

    private(set) var state = KernelState()
    /// The dump in progress, or `nil` when the state is complete and current.
    private(set) var dumping: Dump?
    private(set) var dumpSequence: UInt32 = 0
    private var dumpInterrupted = false
    private var resyncPending = false
    private var lastSequence: UInt32 = 0
    /// How many times the state was thrown away and dumped again (overruns, interrupted dumps).
    private(set) var resyncCount = 0
    /// Names a link's type; called when a link appears, or its name, kind or hardware
    /// type changes.
    var classify: (LinkMessage) -> NetworkInterface.InterfaceType

    init(classify: @escaping (LinkMessage) -> NetworkInterface.InterfaceType) {
        self.classify = classify
    }

    /// Whether the state is complete (no dump in progress).
    var isSettled: Bool { dumping == nil }

    /// Whether anything that can change the path changed since the last call; clears it.
    mutating func takeChanges() -> Bool {
        defer { state.changed = false }
        return state.changed
    }

    /// Sets whether the resolver configuration names a server.
    mutating func setHasDNSServer(_ value: Bool) {
        state.hasDNSServer = value
    }

    /// Throws the state away and starts a full dump, or, while a dump is still running
    /// (the kernel allows one at a time), marks it to start over when that one ends.
    ///
    /// - Returns: The request to send now, if any.
    mutating func resynchronize() -> Request? {
        if dumping != nil {
            resyncPending = true
            return nil
        }
        return startDump()
    }

    private mutating func startDump() -> Request {
        if lastSequence != 0 { resyncCount += 1 }
        resyncPending = false
        dumpInterrupted = false
        state.removeAll()
        return request(.links)
    }

    private mutating func request(_ dump: Dump) -> Request {
        lastSequence &+= 1
        // 0 is the kernel's sequence for events; UInt32.max marks the reader's wake-ups.
        if lastSequence == 0 || lastSequence == UInt32.max { lastSequence = 1 }
        dumping = dump
        dumpSequence = lastSequence
        return Request(dump: dump, sequence: lastSequence)
    }

    /// Applies one message.
    ///
    /// - Returns: The dump request to send next, if the message ended a dump.
    mutating func handle(_ envelope: NetlinkEnvelope) -> Request? {
        let isDumpReply = dumping != nil && envelope.sequence == dumpSequence
        if isDumpReply && envelope.flags & NetlinkParser.flagDumpInterrupted != 0 {
            dumpInterrupted = true
        }
        switch envelope.message {
        case .newLink(let link):
            guard link.family != 7 else { return nil }  // AF_BRIDGE port news, not a link
            let previous = state.links[link.index]
            var updated = LinkState(
                index: link.index,
                name: link.name ?? previous?.name ?? "if\(link.index)",
                hardwareType: link.hardwareType,
                flags: link.flags,
                operationalState: link.operationalState ?? previous?.operationalState ?? KernelState.operUnknown,
                kind: link.kind ?? previous?.kind,
                type: .other
            )
            if let previous, previous.name == updated.name, previous.kind == updated.kind,
               previous.hardwareType == updated.hardwareType {
                updated.type = previous.type
            } else {
                updated.type = classify(link)
            }
            state.updateLink(updated)
        case .deleteLink(let link):
            guard link.family != 7 else { return nil }
            state.removeLink(index: link.index)
        case .newAddress(let address):
            state.addAddress(address)
        case .deleteAddress(let address):
            state.removeAddress(address)
        case .newRoute(let route):
            state.addRoute(route, replace: envelope.flags & NetlinkParser.flagReplace != 0 && !isDumpReply)
        case .deleteRoute(let route):
            state.removeRoute(route)
        case .done, .error:
            guard isDumpReply else { return nil }
            if case .error(let code) = envelope.message, code == 0 { return nil }  // an ACK
            return finishDump(failed: envelope.message != .done)
        case .other:
            break
        }
        return nil
    }

    private mutating func finishDump(failed: Bool) -> Request? {
        guard let current = dumping else { return nil }
        if failed || dumpInterrupted || resyncPending {
            dumping = nil
            return startDump()
        }
        if let next = current.next { return request(next) }
        dumping = nil
        return nil
    }

    /// The bytes of `request`: a netlink header and the family-neutral body of its type.
    static func encode(_ request: Request) -> [UInt8] {
        // ifinfomsg is 16 bytes, ifaddrmsg 8, rtmsg 12; all zero means AF_UNSPEC, no filter.
        let bodyLength = switch request.dump {
        case .links: 16
        case .addresses: 8
        case .routes: 12
        }
        let length = UInt32(NetlinkParser.headerLength + bodyLength)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(length))
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value) { bytes.append(contentsOf: $0) }
        }
        append(length)
        append(request.dump.rawValue)
        append(UInt16(0x1 | 0x300))  // NLM_F_REQUEST | NLM_F_DUMP
        append(request.sequence)
        append(UInt32(0))  // port id: the kernel fills it in
        bytes.append(contentsOf: repeatElement(0, count: bodyLength))
        return bytes
    }
}
