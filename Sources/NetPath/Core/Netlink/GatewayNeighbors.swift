/// The neighbor entries of the kernel's default gateways (SPEC §3, "Per network"): which
/// gateways are watched, what the kernel last said of each, and what that means for the
/// path (a gateway that does not answer; the network's identity). Pure.
package struct GatewayNeighbors: Sendable {
    /// What is known of one gateway's entry.
    package struct Entry: Hashable, Sendable {
        /// `ndm_state` of the last message; 0 when the entry was deleted or never seen.
        package var state: UInt16 = 0
        /// The last link-layer address the kernel reported. Kept when the entry is deleted
        /// or becomes incomplete: the network stays the one last seen until another router
        /// answers.
        package var linkLayerAddress: [UInt8]?
    }

    /// The gateways watched now (the last path's), sorted.
    package private(set) var watched: [GatewayHop] = []
    /// The gateways whose entries are followed: the last ones watched, kept while none is
    /// (the reader leaves its socket filter as it is). Their messages keep their entries
    /// current, so a default route that comes back through them needs no re-read (a
    /// flapping uplink pays no request and no wait: BENCHMARKS.md, "Latency").
    package private(set) var followed: [GatewayHop] = []
    package private(set) var entries: [GatewayHop: Entry] = [:]
    /// Whether the entries of a newly watched gateway are being read (the path waits).
    package private(set) var reading = false
    /// Neighbor messages handed in, about a watched gateway or not (the socket filter
    /// should keep the others away: tests count them).
    package private(set) var messagesSeen = 0
    /// The last path decided from the kernel's answers, before what the entries add, and
    /// the first gateway of each family in it.
    package private(set) var decided: (path: NetworkPath, primary: [GatewayHop])?
    /// Whether ``decided`` or an entry changed since the path was last handed out.
    package private(set) var pending = false

    package init() {}

    /// A path was decided from the kernel's answers, with these gateways.
    ///
    /// - Returns: Whether the gateways to watch changed (``watch(_:)``).
    package mutating func decide(_ path: NetworkPath, gateways: (all: [GatewayHop], primary: [GatewayHop])) -> Bool {
        decided = (path, gateways.primary)
        pending = true
        return watch(gateways.all)
    }

    /// The decided path with what the entries add, once the entries of every watched
    /// gateway were read and something changed since the last one; `nil` otherwise.
    package mutating func takePath(key: [UInt8]) -> NetworkPath? {
        guard pending, !reading, var path = decided?.path, let primary = decided?.primary else { return nil }
        pending = false
        path.unresponsiveGateways = unresponsive(in: path.gateways)
        path.network = identity(primary: primary, key: key)
        return path
    }

    /// The gateways to watch changed to `gateways`. None: the last ones' entries are still
    /// followed. Others than those followed: the entries of the rest are forgotten.
    ///
    /// - Returns: Whether the reader must attach its filter for `gateways` and read their
    ///   entries: they are neither the ones followed nor none.
    package mutating func watch(_ gateways: [GatewayHop]) -> Bool {
        // Sorted, each once, without a set: one gateway (the rule) is taken as it is.
        var sorted = gateways
        if gateways.count > 1 {
            sorted = []
            for hop in gateways.sorted() where sorted.last != hop { sorted.append(hop) }
        }
        guard sorted != watched else { return false }
        watched = sorted
        // None: kept if followed; nothing follows them otherwise (the reader lost them).
        if sorted.isEmpty, followed.isEmpty { entries = [:] }
        guard !sorted.isEmpty, sorted != followed else { return false }
        followed = sorted
        entries = entries.filter { sorted.contains($0.key) }
        reading = true
        return true
    }

    /// The reader read the current entries of the watched gateways (or could not).
    package mutating func readEnded() {
        reading = false
    }

    /// The reader may have missed messages of the gateways followed (its queue overflowed
    /// while none was watched) or has no socket to follow them with (it could not make
    /// one): their entries are read, and the socket tried again, when gateways are next
    /// watched. The entries of gateways watched now stay until then.
    package mutating func followingLost() {
        followed = []
        if watched.isEmpty { entries = [:] }
    }

    /// Applies a neighbor message.
    ///
    /// - Returns: Whether what the path shows may have changed.
    package mutating func apply(_ message: NeighborMessage, deleted: Bool) -> Bool {
        messagesSeen += 1
        let key = GatewayHop(interfaceIndex: message.interfaceIndex, address: message.destination)
        guard followed.contains(key) || watched.contains(key) else { return false }
        let before = entries[key]
        var entry = before ?? Entry()
        entry.state = deleted ? 0 : message.state
        if !deleted, let address = message.linkLayerAddress { entry.linkLayerAddress = address }
        entries[key] = entry
        // A followed gateway that is not watched now changes nothing shown.
        let changed = entry != before && watched.contains(key)
        if changed { pending = pending || decided != nil }
        return changed
    }

    /// The watched gateways whose entry is `FAILED`, as the path shows them, in the order
    /// of `gateways` (the path's).
    package func unresponsive(in gateways: [String]) -> [String] {
        // Usually none has failed: then no list is built (this runs on every path).
        var failed: [String] = []
        for (hop, entry) in entries where entry.state & Netlink.Neighbor.failed != 0 { failed.append(hop.address.description) }
        return failed.isEmpty ? [] : gateways.filter(failed.contains)
    }

    /// The identity of the network behind `primary` (the first gateway of each family of
    /// the kernel's answers), `nil` while no link-layer address is known.
    package func identity(primary: [GatewayHop], key: [UInt8]) -> String? {
        NetworkIdentity.identifier(linkLayerAddresses: primary.compactMap { entries[$0]?.linkLayerAddress }, key: key)
    }
}
