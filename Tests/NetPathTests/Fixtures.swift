@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// Builds rtnetlink messages byte by byte, as the kernel lays them out.
struct Fixture {
    var bytes: [UInt8] = []

    static func u16(_ value: UInt16) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }
    static func u32(_ value: UInt32) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }
    static func i32(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: value) { Array($0) } }

    static func padded(_ bytes: [UInt8]) -> [UInt8] {
        bytes + Array(repeating: 0, count: (4 - bytes.count % 4) % 4)
    }

    /// One attribute: length, type, payload, padding.
    static func attribute(_ type: UInt16, _ payload: [UInt8]) -> [UInt8] {
        padded(u16(UInt16(4 + payload.count)) + u16(type) + payload)
    }

    static func string(_ text: String) -> [UInt8] { Array(text.utf8) + [0] }

    /// A whole message: header and body.
    static func message(type: UInt16, flags: UInt16 = 0, sequence: UInt32 = 0, body: [UInt8]) -> [UInt8] {
        u32(UInt32(16 + body.count)) + u16(type) + u16(flags) + u32(sequence) + u32(0) + body
    }

    static func link(
        type: UInt16 = Netlink.MessageType.newLink, family: UInt8 = 0, index: Int32, hardware: UInt16 = 1,
        flags: UInt32, name: String?, operstate: UInt8? = 6, kind: String? = nil,
        messageFlags: UInt16 = 0, sequence: UInt32 = 0, extra: [UInt8] = []
    ) -> [UInt8] {
        var body: [UInt8] = [family, 0] + u16(hardware) + i32(index) + u32(flags) + u32(0xFFFF_FFFF)
        if let name { body += attribute(3, string(name)) }
        if let operstate { body += attribute(16, [operstate]) }
        if let kind { body += attribute(18, attribute(1, string(kind))) }
        body += extra
        return message(type: type, flags: messageFlags, sequence: sequence, body: body)
    }

    static func address(
        type: UInt16 = Netlink.MessageType.newAddress, index: Int32, _ text: String, prefix: UInt8 = 24,
        flags: UInt32 = 0, scope: UInt8 = 0, sequence: UInt32 = 0
    ) -> [UInt8] {
        let address = IPAddress(text)!
        let bytes = addressBytes(address)
        var body: [UInt8] = [address.family, prefix, UInt8(truncatingIfNeeded: flags), scope] + i32(index)
        body += attribute(1, bytes)
        if address.family == IPAddress.inet { body += attribute(2, bytes) }
        body += attribute(8, u32(flags))
        return message(type: type, sequence: sequence, body: body)
    }

    static func addressBytes(_ address: IPAddress) -> [UInt8] {
        address.bytes
    }

    static func route(
        type: UInt16 = Netlink.MessageType.newRoute, family: UInt8 = IPAddress.inet, destinationLength: UInt8 = 0,
        table: UInt32 = 254, routeType: UInt8 = 1, metric: UInt32? = nil, oif: Int32? = nil, gateway: String? = nil,
        multipath: [(Int32, String?)] = [], messageFlags: UInt16 = 0, sequence: UInt32 = 0,
        destination: String? = nil, source: String? = nil, nexthopID: UInt32? = nil, expiresTicks: Int32? = nil,
        routeFlags: UInt32 = 0
    ) -> [UInt8] {
        var body: [UInt8] = [family, destinationLength, 0, 0, UInt8(min(table, 252)), 3, 0, routeType] + u32(routeFlags)
        body += attribute(15, u32(table))
        if let destination { body += attribute(1, addressBytes(IPAddress(destination)!)) }
        if let source { body += attribute(7, addressBytes(IPAddress(source)!)) }
        if let nexthopID { body += attribute(30, u32(nexthopID)) }
        if let expiresTicks { body += attribute(12, u32(0) + u32(0) + u32(UInt32(bitPattern: expiresTicks)) + Array(repeating: 0, count: 20)) }
        if let metric { body += attribute(6, u32(metric)) }
        if let oif { body += attribute(4, i32(oif)) }
        if let gateway { body += attribute(5, addressBytes(IPAddress(gateway)!)) }
        if !multipath.isEmpty {
            var hops: [UInt8] = []
            for (index, hopGateway) in multipath {
                let attributes = hopGateway.map { attribute(5, addressBytes(IPAddress($0)!)) } ?? []
                hops += u16(UInt16(8 + attributes.count)) + [0, 0] + i32(index) + attributes
            }
            body += attribute(9, hops)
        }
        return message(type: type, flags: messageFlags, sequence: sequence, body: body)
    }

    /// The kernel's answer to a route lookup: the route, as `ip route get` prints it.
    static func answer(
        family: UInt8 = IPAddress.inet, routeType: UInt8 = 1, table: UInt32 = 254, metric: UInt32? = nil,
        oif: Int32, gateway: String? = nil, source: String?, sequence: UInt32
    ) -> [UInt8] {
        let destination = family == IPAddress.inet ? "1.1.1.1" : "2606:4700:4700::1111"
        return route(family: family, destinationLength: family == IPAddress.inet ? 32 : 128, table: table, routeType: routeType,
                     metric: metric, oif: oif, gateway: gateway, sequence: sequence, destination: destination, source: source,
                     routeFlags: family == IPAddress.inet ? 0x200 : 0)
    }

    /// A policy-routing rule (`fib_rule_hdr` and `FRA_*`).
    static func rule(
        type: UInt16 = 32, family: UInt8 = IPAddress.inet, action: UInt8, priority: UInt32, table: UInt32 = 0,
        fwmark: UInt32? = nil, invert: Bool = false, sequence: UInt32 = 0
    ) -> [UInt8] {
        var body: [UInt8] = [family, 0, 0, 0, UInt8(min(table, 252)), 0, 0, action] + u32(invert ? 0x2 : 0)
        body += attribute(6, u32(priority))
        if table != 0 { body += attribute(15, u32(table)) }
        if let fwmark { body += attribute(10, u32(fwmark)) }
        return message(type: type, sequence: sequence, body: body)
    }

    /// A nexthop object (`nhmsg` and `NHA_*`).
    static func nexthop(
        type: UInt16 = 104, id: UInt32, family: UInt8 = IPAddress.inet, oif: Int32? = nil, gateway: String? = nil,
        group: [UInt32] = [], sequence: UInt32 = 0
    ) -> [UInt8] {
        var body: [UInt8] = [family, 0, 0, 0] + u32(0)
        body += attribute(1, u32(id))
        if !group.isEmpty { body += attribute(2, group.flatMap { u32($0) + [1, 0, 0, 0] }) }
        if let oif { body += attribute(5, i32(oif)) }
        if let gateway { body += attribute(6, addressBytes(IPAddress(gateway)!)) }
        return message(type: type, sequence: sequence, body: body)
    }

    static func done(sequence: UInt32, flags: UInt16 = 2) -> [UInt8] {
        message(type: Netlink.MessageType.done, flags: flags, sequence: sequence, body: i32(0))
    }

    static func error(_ code: Int32, sequence: UInt32) -> [UInt8] {
        message(type: Netlink.MessageType.error, sequence: sequence, body: i32(code) + Array(repeating: 0, count: 16))
    }
}

/// IFF_UP | IFF_RUNNING | IFF_LOWER_UP
let upFlags: UInt32 = 0x1 | 0x40 | 0x10000

extension NetlinkEngine {
    /// An engine whose classifier uses only netlink facts (no ioctl, no sysfs).
    static func pure(filter: InterfaceFilter = .none) -> NetlinkEngine {
        NetlinkEngine(filter: filter) { link in
            InterfaceClassifier.classify(hardwareType: link.hardwareType, kind: link.kind, name: link.name ?? "",
                                         isWireless: false, deviceType: nil)
        }
    }

    /// Starts a round: steps, gives every socket question `verdict` (by default: connected,
    /// from the source the test's route answer will name, unknown here, so unspecified), and
    /// steps again to send the route lookups. Returns the lookups in flight: for IPv6, the
    /// source-less one and the one from the source, each with its own sequence.
    mutating func startLookups(verdict: (RouteLookup) -> SocketVerdict = { .connected(source: IPAddress(family: $0.family, high: 0, low: 0)) })
        -> [(sequence: UInt32, lookup: RouteLookup)] {
        let actions = step(now: now)
        for question in actions.questions { answer(question, verdict(question)) }
        if !actions.questions.isEmpty { _ = step(now: now) }
        return round.pendingLookups.sorted { $0.key < $1.key }.map { ($0.key, $0.value.lookup) }
    }

    /// Answers the round of lookups the engine asks for with `answer` (the bytes of the
    /// kernel's reply to each, given its sequence; `nil`: network unreachable, as the socket
    /// says too), then steps to take the answers.
    mutating func ask(_ answer: (RouteLookup, UInt32) -> [UInt8]?) {
        let actions = step(now: now)
        for question in actions.questions {
            // The socket's verdict: what the kernel's answer says.
            let reply = answer(question, 0).map(NetlinkParser.parse)?.first?.message
            switch reply {
            case .newRoute(let route)?:
                if Netlink.RouteType.refuses(route.type) {
                    self.answer(question, .refused(errno: route.type == Netlink.RouteType.unreachable ? LinuxErrno.hostUnreachable
                        : route.type == Netlink.RouteType.prohibit ? LinuxErrno.permissionDenied : LinuxErrno.invalidArgument))
                } else {
                    self.answer(question, .connected(source: route.source ?? IPAddress(family: question.family, high: 0, low: 0)))
                }
            case .error(let code)?: self.answer(question, .refused(errno: LinuxErrno(-code)))
            default: self.answer(question, .refused(errno: LinuxErrno.networkUnreachable))
            }
        }
        if !actions.questions.isEmpty { _ = step(now: now) }
        for (sequence, pending) in round.pendingLookups.sorted(by: { $0.key < $1.key }) {
            feed(answer(pending.lookup, sequence) ?? Fixture.error(-101, sequence: sequence))
        }
        _ = step(now: now)
    }

    /// Answers the unbound lookups: IPv4's with `v4`, IPv6's with `v6` (built with the
    /// sequence); bound lookups get "network unreachable".
    mutating func ask(v4: ((UInt32) -> [UInt8])? = nil, v6: ((UInt32) -> [UInt8])? = nil) {
        ask { lookup, sequence in
            guard lookup.interfaceIndex == nil else { return nil }
            return lookup.family == IPAddress.inet ? v4?(sequence) : v6?(sequence)
        }
    }

    /// Feeds every message of `bytes`; returns the dump requests it queued.
    @discardableResult
    mutating func feed(_ bytes: [UInt8]) -> [Request] {
        var requests: [Request] = []
        for envelope in NetlinkParser.parse(bytes) {
            let before = dumps.dumpSequence
            handle(envelope, at: now)
            if let dump = dumping, dumps.dumpSequence != before { requests.append(Request(dump: dump, sequence: dumps.dumpSequence)) }
        }
        _ = takeRequests(now: now)
        return requests
    }
}

/// Descriptors written as numbers in the tests of pure code (the probe's state machine
/// never reads them, only names them).
extension FileDescriptor: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int32) {
        self.init(rawValue: value)
    }
}
