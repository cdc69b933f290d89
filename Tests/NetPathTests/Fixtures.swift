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
    /// An engine whose classifier uses only netlink facts (no ioctl, no sysfs), under a
    /// test's clock.
    static func pure(filter: InterfaceFilter = .none, port: UInt32 = 0) -> EngineDriver {
        EngineDriver(engine: NetlinkEngine(filter: filter, port: port) { link in
            InterfaceClassifier.classify(hardwareType: link.hardwareType, kind: link.kind, name: link.name ?? "",
                                         isWireless: false, deviceType: nil)
        })
    }
}

/// The engine under a test's manual clock, driven only through its events as the reader
/// drives it: `now` is the time of what the test feeds next; everything else of the engine
/// is read through it.
@dynamicMemberLookup
struct EngineDriver {
    private(set) var engine: NetlinkEngine
    /// The test's clock: when the next message is read, or the next step taken.
    var now = Instant.zero
    /// The gateways the engine last asked the reader to watch the neighbor entries of.
    var watchedNeighbors: [GatewayHop] = []

    init(engine: NetlinkEngine) { self.engine = engine }

    subscript<T>(dynamicMember keyPath: KeyPath<NetlinkEngine, T>) -> T { engine[keyPath: keyPath] }
    func path() -> NetworkPath { engine.path() }
    func nextExpiry() -> Instant? { engine.nextExpiry() }

    mutating func handle(_ event: NetlinkEngine.Event, at time: Instant) -> [NetlinkEngine.Action] {
        engine.handle(event, at: time)
    }

    mutating func schedule(now time: Instant) -> (wake: Instant?, paused: Bool) { engine.schedule(now: time) }

    /// A step at `time` (the clock moves there), its actions by kind.
    mutating func step(now time: Instant) -> (questions: [RouteLookup], requests: [[UInt8]], path: NetworkPath?) {
        now = time
        var result: (questions: [RouteLookup], requests: [[UInt8]], path: NetworkPath?) = ([], [], nil)
        var stepping = true
        while stepping {
            stepping = false
            for action in engine.handle(.step, at: time) {
                switch action {
                case .ask(let question): result.questions.append(question)
                case .send(let bytes): result.requests.append(bytes)
                case .deliver(let path): result.path = path
                case .stopReading: break
                case .watchNeighbors(let gateways):
                    // The reader reads the entries at once (none here), then steps again.
                    watchedNeighbors = gateways
                    _ = engine.handle(.neighborsRead, at: time)
                    stepping = true
                }
            }
        }
        return result
    }

    /// An overrun now: the dump it starts, or `nil` while a dump is running (the kernel
    /// runs one at a time: it starts over when that one ends).
    mutating func resynchronize() -> NetlinkEngine.Request? {
        let before = engine.dumps.dumpSequence
        _ = engine.handle(.overrun, at: now)
        _ = engine.handle(.batchEnded(full: true), at: now)  // the request goes out
        guard engine.dumps.dumpSequence != before, let dump = engine.dumping else { return nil }
        return NetlinkEngine.Request(dump: dump, sequence: engine.dumps.dumpSequence)
    }

    /// The clock moves past the expiry the answers depend on (and its margin): the next
    /// step asks again.
    mutating func passExpiry() {
        now = (engine.nextExpiry() ?? now) + EngineTimers.expiryMargin
    }

    /// Starts a round: steps, gives every socket question `verdict` (by default: connected,
    /// from the source the test's route answer will name, unknown here, so unspecified),
    /// which sends the route lookups. Returns the lookups in flight: for IPv6, the
    /// source-less one and the one from the source, each with its own sequence.
    mutating func startLookups(verdict: (RouteLookup) -> SocketVerdict = { .connected(source: IPAddress(family: $0.family, high: 0, low: 0)) })
        -> [(sequence: UInt32, lookup: RouteLookup)] {
        let questions = step(now: now).questions
        if !questions.isEmpty { _ = engine.handle(.verdicts(questions.map { ($0, verdict($0)) }), at: now) }
        return engine.round.pendingLookups.sorted { $0.key < $1.key }.map { ($0.key, $0.value.lookup) }
    }

    /// Answers the round of lookups the engine asks for with `answer` (the bytes of the
    /// kernel's reply to each, given its sequence; `nil`: network unreachable, as the socket
    /// says too), then steps to take the answers.
    mutating func ask(_ answer: (RouteLookup, UInt32) -> [UInt8]?) {
        let questions = step(now: now).questions
        // The socket's verdict: what the kernel's answer says.
        let verdicts = questions.map { question -> (RouteLookup, SocketVerdict) in
            switch answer(question, 0).map(NetlinkParser.parse)?.first?.message {
            case .newRoute(let route)?:
                if Netlink.RouteType.refuses(route.type) {
                    return (question, .refused(errno: route.type == Netlink.RouteType.unreachable ? LinuxErrno.hostUnreachable
                        : route.type == Netlink.RouteType.prohibit ? LinuxErrno.permissionDenied : LinuxErrno.invalidArgument))
                }
                return (question, .connected(source: route.source ?? IPAddress(family: question.family, high: 0, low: 0)))
            case .error(let code)?: return (question, .refused(errno: LinuxErrno(-code)))
            default: return (question, .refused(errno: LinuxErrno.networkUnreachable))
            }
        }
        if !verdicts.isEmpty { _ = engine.handle(.verdicts(verdicts), at: now) }
        for (sequence, pending) in engine.round.pendingLookups.sorted(by: { $0.key < $1.key }) {
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

    /// Feeds every message of `bytes`, read at `now`, as one batch; returns the dump
    /// requests it queued.
    @discardableResult
    mutating func feed(_ bytes: [UInt8]) -> [NetlinkEngine.Request] {
        var requests: [NetlinkEngine.Request] = []
        for envelope in NetlinkParser.parse(bytes) {
            let before = engine.dumps.dumpSequence
            engine.handle(envelope, at: now)
            if let dump = engine.dumping, engine.dumps.dumpSequence != before {
                requests.append(NetlinkEngine.Request(dump: dump, sequence: engine.dumps.dumpSequence))
            }
        }
        _ = engine.handle(.batchEnded(full: true), at: now)
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

extension Instant {
    /// The test clock's instant `seconds` after its origin. (Not named as `Duration`'s
    /// `.seconds(_:)`: `instant - .seconds(1)` would then read as the distance between two
    /// instants.)
    static func at(seconds: Int) -> Instant { .zero + .seconds(seconds) }
    /// The test clock's instant `milliseconds` after its origin.
    static func at(milliseconds: Int) -> Instant { .zero + .milliseconds(milliseconds) }
}
