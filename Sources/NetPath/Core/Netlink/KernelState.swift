/// What the monitor knows of one link.
package struct LinkState: Hashable, Sendable {
    package var index: Int32
    package var name: String
    package var hardwareType: UInt16
    package var flags: UInt32
    package var operationalState: UInt8
    package var kind: String?
    package var type: NetworkInterface.InterfaceType
    /// `IFLA_GROUP` (`ip link set … group N`), which rules can select on.
    package var group: UInt32 = 0
}

/// The interface-type filter of a monitor (`requiredInterfaceType`, `prohibitedInterfaceTypes`).
package struct InterfaceFilter: Hashable, Sendable {
    package var required: NetworkInterface.InterfaceType?
    package var prohibited: Set<NetworkInterface.InterfaceType>

    package static let none = InterfaceFilter(required: nil, prohibited: [])

    package init(required: NetworkInterface.InterfaceType?, prohibited: Set<NetworkInterface.InterfaceType>) {
        self.required = required
        self.prohibited = prohibited
    }

    /// No requirement and nothing prohibited: every interface type is admitted.
    package var admitsAll: Bool { required == nil && prohibited.isEmpty }

    package func admits(_ type: NetworkInterface.InterfaceType) -> Bool {
        if let required, required != type { return false }
        // Most monitors prohibit nothing: no hashing per link and decision then.
        return prohibited.isEmpty || !prohibited.contains(type)
    }
}

/// NetPath's own copy of the kernel's tables, for what the kernel's routing decision does
/// not say (SPEC §2): links and their carrier, which addresses are usable, the routes that
/// cover the Internet (for the order of the other interfaces and for expiries), the rules
/// and nexthop objects (for the `blocked` diagnosis and for routes that name a nexthop).
///
/// Pure value: the engine feeds it decoded messages; ``path(answers:filter:)`` applies the
/// rules of SPEC §2.4–2.8 to the kernel's answers.
package struct KernelState: Hashable, Sendable {
    /// A route's identity as the kernel keys a FIB entry: several routes of different
    /// types may share a prefix, table, TOS and metric (`ip route append`).
    package struct RouteKey: Hashable, Sendable {
        package var family: UInt8
        package var table: UInt32
        package var tos: UInt8
        package var metric: UInt32
        package var type: UInt8
        package var destinationLength: UInt8
        package var destination: IPAddress?
        /// A source-specific route's source prefix (IPv6 `from …`).
        package var sourceLength: UInt8 = 0
        package var source: IPAddress?
    }

    package struct RouteEntry: Hashable, Sendable {
        package var nexthops: [Nexthop]
        /// The nexthop object the route uses (its hops come from ``nexthopObjects``).
        package var nexthopID: UInt32?
        /// When each hop stops being used, for those that
        /// expire: IPv6 defaults learned from several routers share a key, and each has a
        /// lifetime of its own. A route through a nexthop object keeps its lifetime under `nil`.
        package var expiries: [Nexthop?: Instant] = [:]

        /// Takes the lifetime `route` reports for each of its hops that the entry has (see
        /// ``KernelState/lifetime(reported:previous:now:)``); `earlier` holds lifetimes known
        /// before this entry was made.
        package mutating func takeLifetimes(of route: RouteMessage, now: Instant, earlier: [Nexthop?: Instant] = [:]) {
            // Most routes never expire: nothing reported, nothing known, nothing to write.
            if route.expiresTicks == nil, expiries.isEmpty, earlier.isEmpty { return }
            let reported = route.expiresTicks.map { now + KernelState.tick * max($0, 0) }
            let hops: [Nexthop?] = route.nexthopID != nil || route.nexthops.isEmpty ? [nil] : route.nexthops.map { $0 }
            for hop in hops where hop.map(nexthops.contains) ?? true {
                expiries[hop] = KernelState.lifetime(reported: reported, previous: expiries[hop] ?? earlier[hop], now: now)
            }
        }
    }

    /// A nexthop object (`ip nexthop`): one hop, a group of other objects, or a blackhole.
    package struct NexthopObject: Hashable, Sendable {
        package var hop: Nexthop?
        package var group: [UInt32]
        package var isBlackhole: Bool
    }

    package struct AddressKey: Hashable, Sendable {
        package var address: IPAddress
        package var prefixLength: UInt8

        // Two words instead of four fields: address storms hash thousands of these.
        package func hash(into hasher: inout Hasher) {
            hasher.combine(address.high)
            hasher.combine(address.low ^ UInt64(address.family) << 8 ^ UInt64(prefixLength))
        }
    }

    package var links: [Int32: LinkState] = [:]
    /// Every address per link, with whether it is usable (SPEC 2.3): only that is needed,
    /// and address storms store thousands of these.
    package var addresses: [Int32: [AddressKey: Bool]] = [:]
    /// The routes whose prefix holds the Internet destination of their family.
    package var routes: [RouteKey: RouteEntry] = [:]
    /// The lifetimes known before the state was last thrown away, until the dump that
    /// follows ends: a route dumped in the last tick of its lifetime reads 0 (see
    /// ``lifetime(reported:previous:now:)``).
    package var formerExpiries: [RouteKey: [Nexthop?: Instant]] = [:]
    package var nexthopObjects: [UInt32: NexthopObject] = [:]
    /// Every policy-routing rule, as the kernel reports it (the `blocked` diagnosis of an
    /// answer that says only "network unreachable", and which tables some rule uses).
    package var rules: Set<RuleMessage> = []
    /// Whether a rules dump completed: kernels without one leave every table counted as used.
    package var rulesKnown = false
    /// The DNS servers the resolver files name, in order.
    package var dnsServers: [String] = [] {
        didSet { if dnsServers != oldValue { changed = true } }
    }
    package var hasDNSServer: Bool { !dnsServers.isEmpty }
    /// Usable addresses per link and family, kept as addresses
    /// come and go, so an address storm costs O(1) per message and leaves the path alone.
    package private(set) var usableCounts: [Int32: UsableCounts] = [:]

    package struct UsableCounts: Hashable, Sendable {
        package var ipv4 = 0
        package var ipv6 = 0
    }
    /// What changed since the engine last looked: the reader recomputes the path and asks
    /// the kernel again only then.
    package struct ChangeMarks: Hashable, Sendable {
        /// Set by every update that can change the path (a spurious NEWLINK or the
        /// thousandth address on a link changes nothing).
        package var changed = true
        /// The families whose routing decision an update may have changed (``familyBit(_:)``):
        /// only those are asked again (an IPv4 route cannot change the IPv6 answer).
        package var staleFamilies: UInt8 = KernelState.bothFamilies
    }
    package var marks = ChangeMarks()
    package var changed: Bool {
        get { marks.changed }
        set { marks.changed = newValue }
    }
    /// Setting a family stale implies ``changed``.
    package var staleFamilies: UInt8 {
        get { marks.staleFamilies }
        set {
            marks.staleFamilies = newValue
            if newValue != 0 { marks.changed = true }
        }
    }
    package static let bothFamilies: UInt8 = 0b11

    /// Whether some family's answer may have changed; setting it marks both.
    package var answerStale: Bool {
        get { staleFamilies != 0 }
        set { staleFamilies = newValue ? KernelState.bothFamilies : 0 }
    }

    package static func familyBit(_ family: UInt8) -> UInt8 {
        family == IPAddress.inet ? 0b01 : family == IPAddress.inet6 ? 0b10 : bothFamilies
    }

    package mutating func markStale(family: UInt8) {
        staleFamilies |= KernelState.familyBit(family)
    }

    package mutating func removeAll() {
        for (key, entry) in routes where !entry.expiries.isEmpty {
            formerExpiries[key, default: [:]].merge(entry.expiries) { _, new in new }
        }
        links.removeAll(keepingCapacity: true)
        addresses.removeAll(keepingCapacity: true)
        routes.removeAll(keepingCapacity: true)
        nexthopObjects.removeAll(keepingCapacity: true)
        rules.removeAll(keepingCapacity: true)
        rulesKnown = false
        usableCounts.removeAll(keepingCapacity: true)
        answerStale = true
    }

    private mutating func count(_ index: Int32, _ key: AddressKey, usable: Bool, _ delta: Int) {
        guard usable else { return }
        var counts = usableCounts[index] ?? UsableCounts()
        let isIPv4 = key.address.family == IPAddress.inet
        let before = isIPv4 ? counts.ipv4 : counts.ipv6
        if isIPv4 { counts.ipv4 += delta } else { counts.ipv6 += delta }
        let after = isIPv4 ? counts.ipv4 : counts.ipv6
        usableCounts[index] = counts == UsableCounts() ? nil : counts
        // A family's first usable address on a link, or its last: the kernel's choice of
        // source (and the routes it flushes) can change. Another address beside others cannot
        // change whether a usable source exists.
        if (before == 0) != (after == 0) { markStale(family: key.address.family) }
    }

    // MARK: - Applying messages

    /// Records a link. The kernel removes routes through a link that goes down without
    /// telling anyone, so they are dropped here too.
    package mutating func updateLink(_ link: LinkState) {
        let previous = links.updateValue(link, forKey: link.index)
        // Only what the rules read: flags, operstate, name, type, and the group that
        // `suppress_ifgroup` rules select on.
        if previous?.flags != link.flags || previous?.operationalState != link.operationalState
            || previous?.name != link.name || previous?.type != link.type || previous?.group != link.group {
            answerStale = true
        }
        if link.flags & Netlink.Link.flagUp == 0 {
            removeNexthops { $0.interfaceIndex == link.index }
        }
    }

    package mutating func removeLink(index: Int32) {
        if links.removeValue(forKey: index) != nil { answerStale = true }
        addresses[index] = nil
        if usableCounts.removeValue(forKey: index) != nil { answerStale = true }
        removeNexthops { $0.interfaceIndex == index }
    }

    package mutating func addAddress(_ message: AddressMessage) {
        let key = AddressKey(address: message.address, prefixLength: message.prefixLength)
        let usable = KernelState.isUsable(message)
        if let previous = addresses[message.index, default: [:]].updateValue(usable, forKey: key) {
            count(message.index, key, usable: previous, -1)
        }
        count(message.index, key, usable: usable, +1)
    }

    /// Forgets an address. When a link loses its last IPv4 address the kernel silently
    /// flushes the IPv4 routes through it (`fib_disable_ip`); so does this.
    package mutating func removeAddress(_ message: AddressMessage) {
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

    package static func key(of route: RouteMessage) -> RouteKey {
        RouteKey(family: route.family, table: route.table, tos: route.tos, metric: route.metric, type: route.type,
                 destinationLength: route.destinationLength, destination: route.destination,
                 sourceLength: route.sourcePrefixLength, source: route.sourcePrefix)
    }

    /// Records a route (only routes that cover the Internet reach here; cached clones do
    /// not count). `replace` is `NLM_F_REPLACE`; `now` is when the message was read.
    package mutating func addRoute(_ route: RouteMessage, replace: Bool, now: Instant) {
        guard route.flags & Netlink.RouteFlag.cloned == 0 else { return }
        let key = KernelState.key(of: route)
        markStale(family: route.family)
        var earlier = routes[key]?.expiries ?? [:]
        if !formerExpiries.isEmpty, let former = formerExpiries[key] {
            earlier = former.merging(earlier) { _, known in known }
        }
        if replace {
            // The kernel replaced the first route with this prefix, table, TOS and metric,
            // whatever its type.
            for other in routes.keys where other != key && KernelState.sameSlot(other, key) {
                routes[other] = nil
            }
        }
        var entry = RouteEntry(nexthops: route.nexthops, nexthopID: route.nexthopID)
        if !replace, let existing = routes[key], route.nexthopID == nil, existing.nexthopID == nil {
            // IPv6 appends each next hop of a multipath route, and each router's default,
            // as its own message.
            entry = existing
            for hop in route.nexthops where !entry.nexthops.contains(hop) {
                entry.nexthops.append(hop)
            }
        }
        entry.takeLifetimes(of: route, now: now, earlier: earlier)
        routes[key] = entry
    }

    /// Takes the lifetime in force now from the kernel's own table entry (an answer to a
    /// lookup with `RTM_F_FIB_MATCH`), for the hops it names only: routers renew their
    /// routes' lifetimes without a message. Not a change of the tables.
    package mutating func refreshLifetime(_ route: RouteMessage, now: Instant) {
        let key = KernelState.key(of: route)
        routes[key]?.takeLifetimes(of: route, now: now)
    }

    /// Forgets every lifetime that ends at or before `deadline`: the kernel went on using
    /// the route after it (a clock that disagrees, or a route that took its place without
    /// a message), so it is no longer a reason to ask.
    package mutating func forgetExpiries(through deadline: Instant) {
        for (key, entry) in routes where entry.expiries.values.contains(where: { $0 <= deadline }) {
            routes[key]?.expiries = entry.expiries.filter { $0.value > deadline }
        }
    }

    private static func sameSlot(_ a: RouteKey, _ b: RouteKey) -> Bool {
        a.family == b.family && a.table == b.table && a.tos == b.tos && a.metric == b.metric
            && a.destinationLength == b.destinationLength && a.destination == b.destination
            && a.sourceLength == b.sourceLength && a.source == b.source
    }

    package mutating func removeRoute(_ route: RouteMessage) {
        guard route.flags & Netlink.RouteFlag.cloned == 0 else { return }
        let key = KernelState.key(of: route)
        guard var entry = routes[key] else { return }
        markStale(family: route.family)
        if route.nexthops.isEmpty || route.nexthopID != nil {
            routes[key] = nil
            return
        }
        entry.nexthops.removeAll { route.nexthops.contains($0) }
        if !entry.expiries.isEmpty {
            entry.expiries = entry.expiries.filter { $0.key.map(entry.nexthops.contains) ?? true }
        }
        routes[key] = entry.nexthops.isEmpty ? nil : entry
    }

    /// Records a rule, or forgets it (a `RTM_DELRULE` describes the rule as its
    /// `RTM_NEWRULE` did).
    package mutating func updateRule(_ rule: RuleMessage, removed: Bool) {
        markStale(family: rule.family)
        if removed { rules.remove(rule) } else { rules.insert(rule) }
    }

    /// The tables that some rule of `family` looks up (SPEC 2.8: a route in any other
    /// table is never used); `nil` when the rules are not known (no rules dump, or none of
    /// the family at all: a kernel always has some).
    package func tablesInUse(family: UInt8) -> [UInt32]? {
        guard rulesKnown else { return nil }
        // A handful of tables (local, main, default, a VPN's): an array, no hashing.
        var tables: [UInt32] = []
        var any = false
        for rule in rules where rule.family == family {
            any = true
            if rule.action == Netlink.Rule.toTable, !tables.contains(rule.table) { tables.append(rule.table) }
        }
        return any ? tables : nil
    }

    package mutating func addNexthop(_ message: NexthopMessage) {
        answerStale = true
        nexthopObjects[message.id] = NexthopObject(hop: message.hop, group: message.group, isBlackhole: message.isBlackhole)
    }

    /// Forgets a nexthop object. The kernel deletes the routes that use it, and removes it
    /// from its groups (deleting a group left empty), without a route message.
    package mutating func removeNexthop(id: UInt32) {
        answerStale = true
        guard nexthopObjects.removeValue(forKey: id) != nil else { return }
        for (key, entry) in routes where entry.nexthopID == id { routes[key] = nil }
        for (groupID, object) in nexthopObjects where object.group.contains(id) {
            let members = object.group.filter { $0 != id }
            if members.isEmpty {
                removeNexthop(id: groupID)
            } else {
                nexthopObjects[groupID]?.group = members
            }
        }
    }

    private mutating func removeNexthops(family: UInt8? = nil, where shouldRemove: (Nexthop) -> Bool) {
        for (key, entry) in routes where family == nil || key.family == family {
            guard entry.nexthops.contains(where: shouldRemove) else { continue }
            markStale(family: key.family)
            let kept = entry.nexthops.filter { !shouldRemove($0) }
            routes[key] = kept.isEmpty && entry.nexthopID == nil ? nil : RouteEntry(
                nexthops: kept, nexthopID: entry.nexthopID, expiries: entry.expiries.filter { $0.key.map(kept.contains) ?? true })
        }
        // Nexthop objects through the link go too (and, with them, their routes).
        for (id, object) in nexthopObjects where object.hop.map(shouldRemove) == true {
            removeNexthop(id: id)
        }
    }

    /// The next hops a route uses: its own, or those of its nexthop object (groups resolved).
    package func hops(of entry: RouteEntry) -> [Nexthop] {
        guard let id = entry.nexthopID else { return entry.nexthops }
        var result: [Nexthop] = []
        var pending = [id], visited: [UInt32] = []
        while let next = pending.popLast(), visited.count < 64 {
            guard !visited.contains(next), let object = nexthopObjects[next] else { continue }
            visited.append(next)
            if let hop = object.hop { result.append(hop) }
            pending.append(contentsOf: object.group.reversed())
        }
        return result
    }

    /// A clock tick (`USER_HZ`, 100 per second), the unit of a route's reported lifetime.
    package static let tick: Duration = .milliseconds(10)

    /// A hop's lifetime from what a message reports (`nil`: the kernel wrote 0) and what
    /// was known before. The kernel writes 0 both for "does not expire" and for "expires
    /// within this tick" (its remaining lifetime is truncated to whole ticks): a hop known
    /// to expire within two ticks, or already past its known end, keeps that end. (Past its
    /// end and still in use, it is asked about a bounded number of times, then forgotten:
    /// ``forgetExpiries(through:)``.)
    package static func lifetime(reported: Instant?, previous: Instant?, now: Instant) -> Instant? {
        if let reported { return reported }
        guard let previous, previous <= now + tick * 2 else { return nil }
        return previous
    }

    // MARK: - State to path (SPEC §2.2–2.8)

    /// SPEC 2.2: up, not loopback, and with carrier (operstate UP, or UNKNOWN with LOWER_UP).
    package static func hasCarrier(_ link: LinkState) -> Bool {
        guard isUp(link) else { return false }
        return link.operationalState == Netlink.Link.operUp
            || (link.operationalState == Netlink.Link.operUnknown && link.flags & Netlink.Link.flagLowerUp != 0)
    }

    package static func isUp(_ link: LinkState) -> Bool {
        link.flags & Netlink.Link.flagUp != 0 && !isLoopback(link)
    }

    package static func isLoopback(_ link: LinkState) -> Bool {
        link.flags & Netlink.Link.flagLoopback != 0 || link.hardwareType == Netlink.HardwareType.loopback
    }

    /// SPEC 2.3: not DAD-failed, not tentative unless optimistic (the kernel already sends
    /// from an optimistic address), not IPv6 link-local, global scope.
    package static func isUsable(_ address: AddressMessage) -> Bool {
        let tentative = address.flags & Netlink.AddressAttribute.tentative != 0
            && address.flags & Netlink.AddressAttribute.optimistic == 0
        return !tentative && address.flags & Netlink.AddressAttribute.dadFailed == 0
            && !address.address.isIPv6LinkLocal
            && address.scope == Netlink.Link.scopeUniverse
    }

    package func hasUsableAddress(_ index: Int32, family: UInt8? = nil) -> Bool {
        guard let counts = usableCounts[index] else { return false }
        switch family {
        case IPAddress.inet?: return counts.ipv4 > 0
        case IPAddress.inet6?: return counts.ipv6 > 0
        default: return counts.ipv4 + counts.ipv6 > 0
        }
    }

}

extension NetworkInterface {
    package init(_ link: LinkState) {
        self.init(name: link.name, index: Int(link.index), type: link.type)
    }
}
