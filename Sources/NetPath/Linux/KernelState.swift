/// What the monitor knows of one link.
struct LinkState: Hashable, Sendable {
    var index: Int32
    var name: String
    var hardwareType: UInt16
    var flags: UInt32
    var operationalState: UInt8
    var kind: String?
    var type: NetworkInterface.InterfaceType
}

/// The interface-type filter of a monitor (`requiredInterfaceType`, `prohibitedInterfaceTypes`).
struct InterfaceFilter: Hashable, Sendable {
    var required: NetworkInterface.InterfaceType?
    var prohibited: Set<NetworkInterface.InterfaceType>

    static let none = InterfaceFilter(required: nil, prohibited: [])

    func admits(_ type: NetworkInterface.InterfaceType) -> Bool {
        if let required, required != type { return false }
        return !prohibited.contains(type)
    }
}

/// The kernel's tables as far as the path depends on them: links, their addresses, and
/// default routes (no other route can make a path satisfied, so no other is kept).
///
/// Pure value: the engine feeds it decoded messages, ``path(filter:)`` applies SPEC §2.
struct KernelState: Hashable, Sendable {
    /// A default route's identity apart from its next hops, as the kernel keys a FIB entry.
    struct RouteKey: Hashable, Sendable {
        var family: UInt8
        var table: UInt32
        var tos: UInt8
        var metric: UInt32
    }

    struct RouteEntry: Hashable, Sendable {
        var type: UInt8
        var nexthops: [Nexthop]
    }

    struct AddressKey: Hashable, Sendable {
        var address: IPAddress
        var prefixLength: UInt8

        // Two words instead of four fields: address storms hash thousands of these.
        func hash(into hasher: inout Hasher) {
            hasher.combine(address.high)
            hasher.combine(address.low ^ UInt64(address.family) << 8 ^ UInt64(prefixLength))
        }
    }

    var links: [Int32: LinkState] = [:]
    /// Every address per link, with whether it is usable (SPEC 2.3): only that is needed,
    /// and address storms store thousands of these.
    var addresses: [Int32: [AddressKey: Bool]] = [:]
    var defaultRoutes: [RouteKey: RouteEntry] = [:]
    var hasDNSServer = false {
        didSet { if hasDNSServer != oldValue { changed = true } }
    }
    /// Usable addresses per link and family, kept as addresses
    /// come and go, so an address storm costs O(1) per message and leaves the path alone.
    private(set) var usableCounts: [Int32: UsableCounts] = [:]

    struct UsableCounts: Hashable, Sendable {
        var ipv4 = 0
        var ipv6 = 0
    }
    /// Set by every update that can change the path; the reader recomputes the path only
    /// then (a spurious NEWLINK or the thousandth address on a link changes nothing).
    var changed = true

    // RFC 2863 operational states (IF_OPER_*), route types (RTN_*) and flags.
    static let operUnknown: UInt8 = 0, operDormant: UInt8 = 5, operUp: UInt8 = 6
    static let routeUnicast: UInt8 = 1
    static let tableLocal: UInt32 = 255
    static let routeCloned: UInt32 = 0x200  // RTM_F_CLONED
    static let addressTentative: UInt32 = 0x40, addressDADFailed: UInt32 = 0x08  // IFA_F_*
    static let scopeUniverse: UInt8 = 0
    static let flagUp: UInt32 = 0x1, flagLoopback: UInt32 = 0x8, flagLowerUp: UInt32 = 0x10000
    static let hardwareLoopback: UInt16 = 772  // ARPHRD_LOOPBACK

    mutating func removeAll() {
        links.removeAll(keepingCapacity: true)
        addresses.removeAll(keepingCapacity: true)
        defaultRoutes.removeAll(keepingCapacity: true)
        usableCounts.removeAll(keepingCapacity: true)
        changed = true
    }

    private mutating func count(_ index: Int32, _ key: AddressKey, usable: Bool, _ delta: Int) {
        guard usable else { return }
        var counts = usableCounts[index] ?? UsableCounts()
        let isIPv4 = key.address.family == IPAddress.inet
        let before = isIPv4 ? counts.ipv4 : counts.ipv6
        if isIPv4 { counts.ipv4 += delta } else { counts.ipv6 += delta }
        let after = isIPv4 ? counts.ipv4 : counts.ipv6
        usableCounts[index] = counts == UsableCounts() ? nil : counts
        if (before == 0) != (after == 0) { changed = true }
    }

    // MARK: - Applying messages

    /// Records a link. The kernel removes routes through a link that goes down without
    /// telling anyone, so they are dropped here too.
    mutating func updateLink(_ link: LinkState) {
        let previous = links.updateValue(link, forKey: link.index)
        // Only what the rules read: flags, operstate, name, type.
        if previous?.flags != link.flags || previous?.operationalState != link.operationalState
            || previous?.name != link.name || previous?.type != link.type {
            changed = true
        }
        if link.flags & KernelState.flagUp == 0 {
            removeNexthops { $0.interfaceIndex == link.index }
        }
    }

    mutating func removeLink(index: Int32) {
        if links.removeValue(forKey: index) != nil { changed = true }
        addresses[index] = nil
        if usableCounts.removeValue(forKey: index) != nil { changed = true }
        removeNexthops { $0.interfaceIndex == index }
    }

    mutating func addAddress(_ message: AddressMessage) {
        let key = AddressKey(address: message.address, prefixLength: message.prefixLength)
        let usable = KernelState.isUsable(message)
        if let previous = addresses[message.index, default: [:]].updateValue(usable, forKey: key) {
            count(message.index, key, usable: previous, -1)
        }
        count(message.index, key, usable: usable, +1)
    }

    /// Forgets an address. When a link loses its last IPv4 address the kernel silently
    /// flushes the IPv4 routes through it (`fib_disable_ip`); so does this.
    mutating func removeAddress(_ message: AddressMessage) {
        let key = AddressKey(address: message.address, prefixLength: message.prefixLength)
        guard let removed = addresses[message.index]?.removeValue(forKey: key) else { return }
        count(message.index, key, usable: removed, -1)
        if message.address.family == IPAddress.inet,
           !(addresses[message.index]?.keys.contains { $0.address.family == IPAddress.inet } ?? false) {
            let index = message.index
            removeNexthops(family: IPAddress.inet) { $0.interfaceIndex == index }
        }
        if addresses[message.index]?.isEmpty == true { addresses[message.index] = nil }
    }

    /// Records a route (only default routes are kept). `replace` is `NLM_F_REPLACE`.
    mutating func addRoute(_ route: RouteMessage, replace: Bool) {
        guard route.destinationLength == 0, route.flags & KernelState.routeCloned == 0 else { return }
        let key = RouteKey(family: route.family, table: route.table, tos: route.tos, metric: route.metric)
        changed = true
        if replace || defaultRoutes[key]?.type != route.type {
            defaultRoutes[key] = RouteEntry(type: route.type, nexthops: route.nexthops)
            return
        }
        for hop in route.nexthops where !(defaultRoutes[key]?.nexthops.contains(hop) ?? false) {
            defaultRoutes[key]?.nexthops.append(hop)
        }
    }

    mutating func removeRoute(_ route: RouteMessage) {
        guard route.destinationLength == 0, route.flags & KernelState.routeCloned == 0 else { return }
        let key = RouteKey(family: route.family, table: route.table, tos: route.tos, metric: route.metric)
        guard var entry = defaultRoutes[key] else { return }
        changed = true
        if route.nexthops.isEmpty {
            defaultRoutes[key] = nil
            return
        }
        entry.nexthops.removeAll { route.nexthops.contains($0) }
        defaultRoutes[key] = entry.nexthops.isEmpty ? nil : entry
    }

    private mutating func removeNexthops(family: UInt8? = nil, where shouldRemove: (Nexthop) -> Bool) {
        for (key, entry) in defaultRoutes where family == nil || key.family == family {
            guard entry.nexthops.contains(where: shouldRemove) else { continue }
            changed = true
            let kept = entry.nexthops.filter { !shouldRemove($0) }
            defaultRoutes[key] = kept.isEmpty ? nil : RouteEntry(type: entry.type, nexthops: kept)
        }
    }

    // MARK: - State to path (SPEC §2.2–2.8)

    /// SPEC 2.2: up, not loopback, and with carrier (operstate UP, or UNKNOWN with LOWER_UP).
    static func hasCarrier(_ link: LinkState) -> Bool {
        guard isUp(link) else { return false }
        return link.operationalState == operUp
            || (link.operationalState == operUnknown && link.flags & flagLowerUp != 0)
    }

    static func isUp(_ link: LinkState) -> Bool {
        link.flags & flagUp != 0 && !isLoopback(link)
    }

    static func isLoopback(_ link: LinkState) -> Bool {
        link.flags & flagLoopback != 0 || link.hardwareType == hardwareLoopback
    }

    /// SPEC 2.3: not tentative, not DAD-failed, not IPv6 link-local, global scope.
    static func isUsable(_ address: AddressMessage) -> Bool {
        address.flags & (addressTentative | addressDADFailed) == 0
            && !address.address.isIPv6LinkLocal
            && address.scope == scopeUniverse
    }

    func hasUsableAddress(_ index: Int32, family: UInt8? = nil) -> Bool {
        guard let counts = usableCounts[index] else { return false }
        switch family {
        case IPAddress.inet?: return counts.ipv4 > 0
        case IPAddress.inet6?: return counts.ipv6 > 0
        default: return counts.ipv4 + counts.ipv6 > 0
        }
    }

    /// A usable default route's next hop.
    private struct Candidate {
        var metric: UInt32
        var family: UInt8
        var link: LinkState
        var gateway: IPAddress?
    }

    /// SPEC 2.4: the usable next hops of all default routes, best first.
    private func candidates() -> [Candidate] {
        var result: [Candidate] = []
        for (key, entry) in defaultRoutes
        where entry.type == KernelState.routeUnicast && key.table != KernelState.tableLocal {
            for hop in entry.nexthops {
                guard let link = links[hop.interfaceIndex], KernelState.hasCarrier(link),
                      hasUsableAddress(hop.interfaceIndex, family: key.family) else { continue }
                result.append(Candidate(metric: key.metric, family: key.family, link: link, gateway: hop.gateway))
            }
        }
        result.sort {
            ($0.metric, $0.family, $0.link.index, $0.gateway?.high ?? 0, $0.gateway?.low ?? 0)
                < ($1.metric, $1.family, $1.link.index, $1.gateway?.high ?? 0, $1.gateway?.low ?? 0)
        }
        return result
    }

    /// The path these tables give a monitor with `filter` (SPEC §2.5).
    func path(filter: InterfaceFilter = .none) -> NetworkPath {
        let all = candidates()
        let routes = all.filter { filter.admits($0.link.type) }
        let considered = links.values
            .filter { !KernelState.isLoopback($0) && filter.admits($0.type) }
            .sorted { $0.index < $1.index }
        let usable = considered.filter(KernelState.hasCarrier)

        var interfaces: [NetworkInterface] = []
        var seen = Set<Int32>()
        for candidate in routes where seen.insert(candidate.link.index).inserted {
            interfaces.append(NetworkInterface(candidate.link))
        }
        for link in usable where seen.insert(link.index).inserted {
            interfaces.append(NetworkInterface(link))
        }

        if !routes.isEmpty {
            var gateways: [String] = []
            for case let gateway? in routes.map(\.gateway) {
                let text = gateway.description
                if !gateways.contains(text) { gateways.append(text) }
            }
            return NetworkPath(
                status: .satisfied,
                availableInterfaces: interfaces,
                isExpensive: interfaces.first?.type == .cellular,
                supportsIPv4: routes.contains { $0.family == IPAddress.inet },
                supportsIPv6: routes.contains { $0.family == IPAddress.inet6 },
                supportsDNS: hasDNSServer,
                gateways: gateways
            )
        }

        let diagnosis: NetworkPath.Diagnosis
        if !all.isEmpty {
            diagnosis = .filtered
        } else if !considered.contains(where: KernelState.isUp) {
            diagnosis = .noInterface
        } else if usable.isEmpty {
            diagnosis = .noCarrier
        } else if !usable.contains(where: { hasUsableAddress($0.index) }) {
            diagnosis = .noAddress
        } else {
            diagnosis = .noDefaultRoute
        }
        let dormant = considered.contains { KernelState.isUp($0) && $0.operationalState == KernelState.operDormant }
        return NetworkPath(
            status: dormant ? .requiresConnection : .unsatisfied,
            unsatisfiedReason: .notAvailable,
            diagnosis: diagnosis,
            availableInterfaces: interfaces
        )
    }
}

extension NetworkInterface {
    init(_ link: LinkState) {
        self.init(name: link.name, index: Int(link.index), type: link.type)
    }
}
