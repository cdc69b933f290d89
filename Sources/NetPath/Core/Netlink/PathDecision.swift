/// One question the monitor asks the kernel (SPEC §2.1): a family, and for a filtered
/// monitor the interface the socket is bound to. It is asked as a socket asks: a UDP
/// `connect()` to the family's Internet destination (``SocketVerdict``), then a route lookup
/// from the source the kernel picked.
package struct RouteLookup: Hashable, Sendable {
    package var family: UInt8
    /// `SO_BINDTOIFINDEX` on the socket, `RTA_OIF` on the lookup: answer as for a socket
    /// bound to this interface.
    package var interfaceIndex: Int32?
    /// `RTM_F_FIB_MATCH`: answer with the table entry itself (with its lifetime), not the
    /// route an ordinary socket would get. Asked only when an expiry passed.
    package var tableEntry = false

    package init(family: UInt8, interfaceIndex: Int32? = nil, tableEntry: Bool = false) {
        self.family = family
        self.interfaceIndex = interfaceIndex
        self.tableEntry = tableEntry
    }
}

/// What a UDP socket's `connect()` to the Internet destination gave.
package enum SocketVerdict: Hashable, Sendable {
    /// Connected; the source address the kernel picked (`getsockname`).
    case connected(source: IPAddress)
    /// Refused with this errno (`ENETUNREACH`, `EHOSTUNREACH`, `EACCES`, `EPERM` from an
    /// IPsec policy, `EINVAL`, `EADDRNOTAVAIL`, …).
    case refused(errno: LinuxErrno)
}

/// The kernel's answer to a ``RouteLookup``.
package enum KernelAnswer: Hashable, Sendable {
    /// The route the socket's packets take (`ip route get DEST from SRC` prints it), with
    /// the socket's source address.
    case route(RouteMessage)
    /// The kernel refused: the socket's errno (`ENETUNREACH` no route or an unreachable
    /// rule, `EHOSTUNREACH` an unreachable route, `EACCES` prohibit, `EINVAL` blackhole,
    /// `EPERM` an IPsec block policy).
    case refused(errno: LinuxErrno)
}

/// The kernel's answers for one state of the tables, and the path they give.
///
/// Pure: the model and the answers in, a path out (SPEC §2.4, §2.5, §2.8).
package struct PathDecision {
    package var state: KernelState
    package var answers: SmallMap<RouteLookup, KernelAnswer>
    package var filter: InterfaceFilter
    /// The monitor's effective uid, for `uidrange` rules in the diagnosis.
    package var uid: UInt32 = 0

    /// The lookups a monitor with `filter` asks for on `state`: one per family, and for a
    /// filtered monitor one more per family for each admitted interface with carrier.
    package static func lookups(for state: KernelState, filter: InterfaceFilter) -> [RouteLookup] {
        var result = [RouteLookup(family: IPAddress.inet), RouteLookup(family: IPAddress.inet6)]
        guard !filter.admitsAll else { return result }
        for link in state.links.values.sorted(by: { $0.index < $1.index })
        where KernelState.hasCarrier(link) && filter.admits(link.type) {
            result.append(RouteLookup(family: IPAddress.inet, interfaceIndex: link.index))
            result.append(RouteLookup(family: IPAddress.inet6, interfaceIndex: link.index))
        }
        return result
    }

    /// A usable answer: the route leaves through a link with carrier, with a usable source.
    package struct Choice {
        package var family: UInt8
        package var link: LinkState
        package var gateway: IPAddress?
    }

    /// Why an answer is not usable, in the order SPEC 2.5 checks them.
    package enum Refusal: Int, Comparable {
        case noCarrier, noAddress, blocked, noRoute
        package static func < (a: Refusal, b: Refusal) -> Bool { a.rawValue < b.rawValue }
    }

    package func evaluate(_ answer: KernelAnswer, for lookup: RouteLookup) -> Result<Choice, RefusalBox> {
        let bound = lookup.interfaceIndex
        switch answer {
        case .refused(let code):
            switch code {
            case .networkUnreachable:
                // No route, or an `unreachable` rule: the rules walked for the socket's flow tell.
                return .failure(RefusalBox(ruleFlow(for: lookup).reachesUnreachableRule(state.rules) ? .blocked : .noRoute))
            case .addressNotAvailable:
                return .failure(RefusalBox(.noAddress))
            case .hostUnreachable, .permissionDenied, .invalidArgument, .notPermitted:
                return .failure(RefusalBox(.blocked))
            default:
                return .failure(RefusalBox(.noRoute))
            }
        case .route(let route):
            if Netlink.RouteType.refuses(route.type) { return .failure(RefusalBox(.blocked)) }
            // Bound to an interface, the kernel answers "on the link" when no route matched.
            if bound != nil && route.table == Netlink.Table.unspecified { return .failure(RefusalBox(.noRoute)) }
            guard route.type == Netlink.RouteType.unicast, let hop = route.nexthops.first,
                  let link = state.links[hop.interfaceIndex], !KernelState.isLoopback(link) else {
                return .failure(RefusalBox(.noRoute))
            }
            if let bound, bound != link.index { return .failure(RefusalBox(.noRoute)) }
            guard KernelState.hasCarrier(link) else { return .failure(RefusalBox(.noCarrier)) }
            // The source the socket picked is usable by definition (SPEC 2.3: the kernel
            // announces an optimistic address only once DAD ends, unless `use_optimistic`),
            // unless it is none at all: the socket connects from 0.0.0.0 with no IPv4
            // address, and from ::1 with only tentative or link-local IPv6 ones.
            // An address the monitor read as unusable (DAD failed, tentative) stays so.
            guard let source = route.source, !source.isUnspecified, !source.isLoopback, !source.isIPv6LinkLocal,
                  state.isUsableSource(source, preferring: link.index) || !state.hasAddress(source) else {
                return .failure(RefusalBox(.noAddress))
            }
            return .success(Choice(family: route.family, link: link, gateway: hop.gateway))
        }
    }

    /// The socket's flow for the rules (the diagnosis of "network unreachable"): IPv4 fails
    /// before a source is picked; IPv6 looks again with a source when the first lookup fails.
    package func ruleFlow(for lookup: RouteLookup) -> RuleFlow {
        let unspecified = IPAddress(family: lookup.family, high: 0, low: 0)
        var sources = [unspecified]
        if lookup.family == IPAddress.inet6 {
            for (_, entries) in state.addresses {
                for (key, usable) in entries where usable && key.address.family == IPAddress.inet6 { sources.append(key.address) }
            }
        }
        return RuleFlow(family: lookup.family, destination: Netlink.internetDestination(family: lookup.family),
                        sources: sources, outputInterface: lookup.interfaceIndex.flatMap { state.links[$0]?.name }, uid: uid)
    }

    /// Whether every answer agrees with the tables the monitor has read: it leaves through
    /// a link that is up, from an address the monitor knows, by a route in the table the
    /// kernel names. The kernel announces some changes just before it makes them (an IPv4
    /// route's deletion, an address's removal, a link going down flushes routes after its
    /// message), so an answer asked right after such a message can describe the state
    /// before it; such an answer is asked again instead of being believed.
    package func isConsistent() -> Bool {
        for (lookup, answer) in answers where !lookup.tableEntry {
            guard case .route(let route) = answer, route.type == Netlink.RouteType.unicast,
                  let hop = route.nexthops.first else { continue }
            guard let link = state.links[hop.interfaceIndex], link.flags & Netlink.Link.flagUp != 0 else { return false }
            // IPv4 only: IPv6 announces an optimistic address only when its DAD ends.
            if let source = route.source, source.family == IPAddress.inet, !source.isUnspecified, !state.hasAddress(source) {
                return false
            }
            guard route.table != Netlink.Table.unspecified else { continue }
            let known = state.routes.contains { key, entry in
                key.family == route.family && key.table == route.table && key.type == Netlink.RouteType.unicast
                    && state.hops(of: entry).contains { $0.interfaceIndex == hop.interfaceIndex && (hop.gateway == nil || $0.gateway == hop.gateway) }
            }
            if !known { return false }
        }
        return true
    }

    /// `Result` needs an `Error`.
    package struct RefusalBox: Error {
        package var refusal: Refusal
        package init(_ refusal: Refusal) { self.refusal = refusal }
    }

    /// The path (SPEC §2.5).
    package func path() -> NetworkPath {
        path(choices())
    }

    /// The path and its gateways from one evaluation of the kernel's answers (what a step
    /// needs both of).
    package func pathAndGatewayHops() -> (path: NetworkPath, gateways: (all: [GatewayHop], primary: [GatewayHop])) {
        let choices = choices()
        return (path(choices), gatewayHops(choices.chosen))
    }

    /// What sockets get: the unbound ones' answers, and with a filter the bound ones'.
    private func choices() -> (chosen: [Choice], refusals: [Refusal], usableElsewhere: Bool) {
        var (chosen, refusals, usableElsewhere) = unboundChoices()
        if !filter.admitsAll { addBoundChoices(to: &chosen, refusals: &refusals) }
        return (chosen, refusals, usableElsewhere)
    }

    private func path(_ choices: (chosen: [Choice], refusals: [Refusal], usableElsewhere: Bool)) -> NetworkPath {
        let (chosen, refusals, usableElsewhere) = choices
        let considered = state.links.values
            .filter { !KernelState.isLoopback($0) && filter.admits($0.type) }
            .sorted { $0.index < $1.index }
        let usable = considered.filter(KernelState.hasCarrier)
        let interfaces = orderedInterfaces(chosen: chosen, usable: usable)
        if !chosen.isEmpty { return satisfiedPath(chosen: chosen, usable: usable, interfaces: interfaces) }
        let dormant = considered.contains { KernelState.isUp($0) && $0.operationalState == Netlink.Link.operDormant }
        return NetworkPath(
            status: dormant ? .requiresConnection : .unsatisfied,
            unsatisfiedReason: .notAvailable,
            diagnosis: diagnosis(refusal: refusals.min(), usableElsewhere: usableElsewhere, considered: considered, usable: usable),
            availableInterfaces: interfaces
        )
    }

    /// The gateways of the kernel's usable answers with their links (what the path's
    /// `gateways` lists), and the first of each family: the primary gateways, which name
    /// the network (``NetworkPath/network``).
    private func gatewayHops(_ chosen: [Choice]) -> (all: [GatewayHop], primary: [GatewayHop]) {
        var all: [GatewayHop] = [], primary: [GatewayHop] = [], families: [UInt8] = []
        for choice in chosen {
            guard let gateway = choice.gateway else { continue }
            let hop = GatewayHop(interfaceIndex: choice.link.index, address: gateway)
            if !all.contains(hop) { all.append(hop) }
            if !families.contains(choice.family) {
                families.append(choice.family)
                primary.append(hop)
            }
        }
        return (all, primary)
    }

    /// What an unbound socket of each family gets: the choices the filter admits, the
    /// refusals, and whether a route exists only through an excluded interface type.
    private func unboundChoices() -> (chosen: [Choice], refusals: [Refusal], usableElsewhere: Bool) {
        var chosen: [Choice] = []
        var refusals: [Refusal] = []
        var usableElsewhere = false
        for family in [IPAddress.inet, IPAddress.inet6] {
            let lookup = RouteLookup(family: family)
            guard let answer = answers[lookup] else { continue }
            switch evaluate(answer, for: lookup) {
            case .success(let choice):
                if filter.admits(choice.link.type) { chosen.append(choice) } else { usableElsewhere = true }
            case .failure(let box):
                refusals.append(box.refusal)
            }
        }
        return (chosen, refusals, usableElsewhere)
    }

    /// With a filter: after the unbound answer (when admitted), what sockets bound to each
    /// admitted interface would get, best route metric first.
    private func addBoundChoices(to chosen: inout [Choice], refusals: inout [Refusal]) {
        let tables = tablesInUse()
        for family in [IPAddress.inet, IPAddress.inet6] {
            var bound: [(metric: UInt32, choice: Choice)] = []
            for (lookup, answer) in answers where lookup.family == family && lookup.interfaceIndex != nil {
                switch evaluate(answer, for: lookup) {
                case .success(let choice) where filter.admits(choice.link.type):
                    bound.append((bestMetric(through: choice.link.index, family: family, tables: tables) ?? .max, choice))
                case .failure(let box) where box.refusal != .noRoute:
                    refusals.append(box.refusal)
                default:
                    break
                }
            }
            bound.sort { ($0.metric, $0.choice.link.index) < ($1.metric, $1.choice.link.index) }
            for (_, choice) in bound where !chosen.contains(where: { $0.family == family && $0.link.index == choice.link.index }) {
                chosen.append(choice)
            }
        }
    }

    private func satisfiedPath(chosen: [Choice], usable: [LinkState], interfaces: [NetworkInterface]) -> NetworkPath {
        var gateways: [String] = []
        for case let gateway? in chosen.map(\.gateway) {
            let text = gateway.description
            if !gateways.contains(text) { gateways.append(text) }
        }
        let tunnel = tunnelBeneath(chosen: chosen, usable: usable)
        var path = NetworkPath(
            status: .satisfied,
            availableInterfaces: interfaces,
            tunnelInterface: tunnel.map { _ in interfaces[0] },
            underlyingInterface: tunnel,
            isExpensive: (tunnel ?? interfaces.first)?.type == .cellular,
            supportsIPv4: chosen.contains { $0.family == IPAddress.inet },
            supportsIPv6: chosen.contains { $0.family == IPAddress.inet6 },
            supportsDNS: state.hasDNSServer,
            gateways: gateways
        )
        path.dnsServers = state.dnsServers
        return path
    }

    /// Why no socket gets out (SPEC §2.6), first cause first.
    private func diagnosis(refusal: Refusal?, usableElsewhere: Bool, considered: [LinkState],
                           usable: [LinkState]) -> NetworkPath.Diagnosis {
        if usableElsewhere { return .filtered }
        if !considered.contains(where: KernelState.isUp) { return .noInterface }
        if usable.isEmpty || refusal == .noCarrier { return .noCarrier }
        if refusal == .noAddress || !usable.contains(where: { state.hasUsableAddress($0.index) }) && !state.hasUsableAddressAnywhere {
            return .noAddress
        }
        return refusal == .blocked ? .blocked : .noDefaultRoute
    }

    /// The physical interface beneath the tunnel that the kernel's first choice leaves
    /// through, if it is a tunnel (SPEC §1): the best non-tunnel link, in SPEC 2.8 order,
    /// that the kernel chose for the other family or that carries a usable route. `nil`
    /// when the first choice is no tunnel, or nothing lies beneath it (a PPP link alone).
    private func tunnelBeneath(chosen: [Choice], usable: [LinkState]) -> NetworkInterface? {
        guard let primary = chosen.first?.link, InterfaceClassifier.isTunnel(primary) else { return nil }
        let candidates = usable.filter { $0.index != primary.index && !InterfaceClassifier.isTunnel($0) }
        if let choice = chosen.first(where: { choice in candidates.contains { $0.index == choice.link.index } }) {
            return NetworkInterface(choice.link)
        }
        let tables = tablesInUse()
        let routed = candidates.compactMap { link in bestMetric(through: link.index, family: nil, tables: tables).map { (metric: $0, link: link) } }
        return routed.min { ($0.metric, $0.link.index) < ($1.metric, $1.link.index) }.map { NetworkInterface($0.link) }
    }

    /// SPEC 2.8: the kernel's choices, then the links of other usable routes to the Internet
    /// by best metric, then the other usable links by index.
    private func orderedInterfaces(chosen: [Choice], usable: [LinkState]) -> [NetworkInterface] {
        var interfaces: [NetworkInterface] = []
        var seen: [Int32] = []
        for choice in chosen where !seen.contains(choice.link.index) {
            seen.append(choice.link.index)
            interfaces.append(NetworkInterface(choice.link))
        }
        var routed: [(metric: UInt32, link: LinkState)] = []
        let others = usable.filter { !seen.contains($0.index) }
        let tables = others.isEmpty ? (nil, nil) : tablesInUse()
        for link in others {
            if let metric = bestMetric(through: link.index, family: nil, tables: tables) { routed.append((metric, link)) }
        }
        routed.sort { ($0.metric, $0.link.index) < ($1.metric, $1.link.index) }
        for (_, link) in routed {
            seen.append(link.index)
            interfaces.append(NetworkInterface(link))
        }
        for link in usable where !seen.contains(link.index) {
            interfaces.append(NetworkInterface(link))
        }
        return interfaces
    }

    /// The tables some rule of each family sends lookups to (`nil`: any table, while the
    /// rules are unknown or none is of the family): read once for all the links a decision
    /// ranks.
    private typealias TablesInUse = (inet: [UInt32]?, inet6: [UInt32]?)

    private func tablesInUse() -> TablesInUse {
        (state.tablesInUse(family: IPAddress.inet), state.tablesInUse(family: IPAddress.inet6))
    }

    /// `family`'s tables in use (`nil`: any table, as for a family with no rules).
    private static func tables(of family: UInt8, in tables: TablesInUse) -> [UInt32]? {
        switch family {
        case IPAddress.inet: tables.inet
        case IPAddress.inet6: tables.inet6
        default: nil
        }
    }

    /// The lowest metric of a unicast route to the Internet through `index`, in a table
    /// that some rule uses (`tables`), whose family has a usable address, if any.
    private func bestMetric(through index: Int32, family: UInt8?, tables: TablesInUse) -> UInt32? {
        var best: UInt32?
        for (key, entry) in state.routes
        where key.type == Netlink.RouteType.unicast && key.table != Netlink.Table.local
            && (family == nil || key.family == family) && state.hasUsableAddress(index, family: key.family)
            && (Self.tables(of: key.family, in: tables)?.contains(key.table) ?? true) {
            guard state.hops(of: entry).contains(where: { $0.interfaceIndex == index }) else { continue }
            best = min(best ?? .max, key.metric)
        }
        return best
    }

    /// When the kernel stops using a route that one of the answers came from (the earliest
    /// such expiry), if any does expire.
    package func earliestExpiry() -> Instant? {
        var earliest: Instant?
        for (lookup, answer) in answers where !lookup.tableEntry {
            guard case .route(let route) = answer, let hop = route.nexthops.first else { continue }
            func matches(_ candidate: Nexthop) -> Bool {
                candidate.interfaceIndex == hop.interfaceIndex
                    && (hop.gateway == nil || candidate.gateway == nil || candidate.gateway == hop.gateway)
            }
            for (key, entry) in state.routes where !entry.expiries.isEmpty && key.family == route.family {
                // IPv4 answers carry no metric; IPv6 answers carry the route's.
                guard key.table == route.table || route.table == Netlink.Table.unspecified,
                      route.family == IPAddress.inet || key.metric == route.metric
                else { continue }
                for (lifetimeHop, expiry) in entry.expiries {
                    // A hop of its own, or the whole route through a nexthop object.
                    let used = lifetimeHop.map(matches) ?? state.hops(of: entry).contains(where: matches)
                    if used { earliest = min(earliest ?? .never, expiry) }
                }
            }
        }
        return earliest
    }
}

extension KernelState {
    /// Whether `address` is a usable address (SPEC 2.3) of any link, looked for on
    /// `preferring` first (usually the one the traffic leaves by).
    package func isUsableSource(_ address: IPAddress, preferring index: Int32) -> Bool {
        func find(on link: Int32) -> Bool {
            guard let entries = addresses[link] else { return false }
            for (key, usable) in entries where key.address == address { return usable }
            return false
        }
        if find(on: index) { return true }
        for link in addresses.keys where link != index && find(on: link) { return true }
        return false
    }

    /// Whether any link holds `address`, usable or not.
    package func hasAddress(_ address: IPAddress) -> Bool {
        addresses.values.contains { entries in entries.keys.contains { $0.address == address } }
    }

    /// Whether any link, loopback included (unnumbered setups put the global address there),
    /// holds a usable address.
    package var hasUsableAddressAnywhere: Bool { !usableCounts.isEmpty }
}
