/// How rtnetlink messages change the tables: an event or a dump's object applied, or the
/// end of a dump (the ``NetlinkEngine``'s dump protocol decides what follows it).
extension KernelState {
    /// What a message was to the tables.
    package enum MessageEffect: Equatable, Sendable {
        /// An object applied (or a message that changes nothing).
        case applied
        /// `NLMSG_DONE`: a dump ended.
        case done
        /// `NLMSG_ERROR` with its (negative) errno, 0 for an acknowledgement.
        case error(Int32)
    }

    /// Applies one message. `replace`: a route event with `NLM_F_REPLACE` (never a dump's
    /// object), which takes the place of the route with the same key. `classify` names a link
    /// that appears, or whose name, kind or hardware type changed.
    package mutating func apply(_ message: NetlinkMessage, replace: Bool, now: Instant,
                                classify: (LinkMessage) -> NetworkInterface.InterfaceType) -> MessageEffect {
        switch message {
        case .newLink(let link):
            // Bridge-port news (AF_BRIDGE) are not a link of their own.
            if link.family != Netlink.familyBridge { updateLink(link, classify: classify) }
        case .deleteLink(let link):
            if link.family != Netlink.familyBridge { removeLink(index: link.index) }
        case .newAddress(let address):
            addAddress(address)
        case .deleteAddress(let address):
            removeAddress(address)
        case .newRoute(let route):
            addRoute(route, replace: replace, now: now)
        case .deleteRoute(let route):
            removeRoute(route)
        case .newRule(let rule):
            updateRule(rule, removed: false)
        case .deleteRule(let rule):
            updateRule(rule, removed: true)
        case .newNexthop(let nexthop):
            addNexthop(nexthop)
        case .deleteNexthop(let nexthop):
            removeNexthop(id: nexthop.id)
        case .localAddressRoute(let index):
            // An address the kernel may pick as a source, on a link where none is known: an
            // optimistic one, whose RTM_NEWADDR comes only after DAD. Beside a usable
            // address, another changes nothing (an IPv6 address storm stays O(1)).
            if !hasUsableAddress(index, family: IPAddress.inet6) { markStale(family: IPAddress.inet6) }
        case .netconf(let family):
            // A forwarding setting such as `ignore_routes_with_linkdown` changes the kernel's
            // choice without a route message.
            if family == IPAddress.inet || family == IPAddress.inet6 { markStale(family: family) }
        case .done:
            return .done
        case .error(let code):
            return .error(code)
        case .other, .newNeighbor, .deleteNeighbor:
            // Neighbor entries are the engine's (``GatewayNeighbors``), not the tables'.
            break
        }
        return .applied
    }

    /// A link appeared or changed: its facts, its type named again only when what names it changed.
    private mutating func updateLink(_ link: LinkMessage, classify: (LinkMessage) -> NetworkInterface.InterfaceType) {
        let previous = links[link.index]
        var updated = LinkState(
            index: link.index,
            name: link.name ?? previous?.name ?? "if\(link.index)",
            hardwareType: link.hardwareType,
            flags: link.flags,
            operationalState: link.operationalState ?? previous?.operationalState ?? Netlink.Link.operUnknown,
            kind: link.kind ?? previous?.kind,
            type: .other,
            group: link.group ?? previous?.group ?? 0
        )
        if let previous, previous.name == updated.name, previous.kind == updated.kind,
           previous.hardwareType == updated.hardwareType {
            updated.type = previous.type
        } else {
            updated.type = classify(link)
        }
        updateLink(updated)
    }
}
