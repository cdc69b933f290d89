#if os(Linux) || os(Android)
extension EndpointRun {
    /// What the resolution of a run's name found.
    struct Lookup {
        var resolved = false
        var addresses: [IPAddress] = []
        /// Queries asked for and neither answered nor given up on.
        var pendingQueries = 0
        /// The record types a server answered definitively (``DNSMessage/Answer/isDefinitive``):
        /// the other servers' queries for them are dropped.
        var settled: Set<UInt16> = []
        /// An IPv4 literal on an IPv6-only path, waiting for the NAT64 prefix.
        var awaitsPrefix = false
        /// IPv4 addresses the name resolved to on an IPv6-only path while the NAT64 prefix
        /// is still looked for.
        var awaitingPrefix: [IPAddress] = []
        /// An address the name resolved to in a family the path does not route.
        var unroutable: IPAddress?
        /// A loopback or unspecified address the name resolved to: a filtering resolver's
        /// answer, never connected to.
        var filtered: IPAddress?
        /// A server said the name has no address (NXDOMAIN, or no data).
        var notFound = false
        /// Why the last query that was no answer ended (a server's failure, a read error).
        var failure: String?
    }

    /// A literal address (the endpoint's, or its proxy's) is connected to at once, an IPv4
    /// one on an IPv6-only path once the NAT64 prefix is known.
    mutating func reach(_ address: IPAddress, routes: ProbeRoutes, at now: Instant) -> [Action] {
        lookup.resolved = true
        if address.isLoopback || routes.routes(address) { return startConnecting(to: address) }
        guard address.family == IPAddress.inet && routes.needsNAT64 else { return finish(routes.unroutable(address), at: now) }
        lookup.awaitsPrefix = true
        return reachThroughNAT64(routes: routes, at: now)
    }

    /// One of the run's queries ended: the addresses it found are tried; a definitive
    /// answer settles its record type (the caller then drops the other servers' queries
    /// for it, then asks ``lookupEnded(routes:timedOut:at:)``).
    mutating func queryEnded(_ ended: DNSQueries.Ended, routes: ProbeRoutes) -> [Action] {
        lookup.pendingQueries -= 1
        guard !isFinished else { return [] }
        var actions: [Action] = []
        if case .addresses(let found) = ended.answer {
            lookup.resolved = true
            for address in found { actions += resolved(address, routes: routes) }
        }
        if ended.answer.isDefinitive {
            // glibc's rule: one server's definitive answer is the name's; the others are not waited for.
            lookup.settled.insert(ended.query.type)
            if case .noAddress = ended.answer { lookup.notFound = true }
        } else if let failure = ended.failure {
            lookup.failure = failure
        }
        return actions
    }

    /// An address the name resolved to: connected to, unless it is loopback or unspecified
    /// (a filtering resolver's answer for a public name), or of a family the path does not
    /// route (through NAT64 when its prefix is known, once it is when it is looked for).
    private mutating func resolved(_ address: IPAddress, routes: ProbeRoutes) -> [Action] {
        // A proxy's name may well stand for this machine (a local proxy such as cntlm).
        if (address.isLoopback || address.isUnspecified) && !endpoint.target.isLocalhostName && proxy == nil {
            lookup.filtered = lookup.filtered ?? address
            return []
        }
        guard !routes.routes(address) else { return tryAddress(address) }
        if address.family == IPAddress.inet {
            switch routes.discovery {
            case .found(let prefix): return tryAddress(prefix.synthesize(address))
            case .asking:
                if !lookup.awaitingPrefix.contains(address) { lookup.awaitingPrefix.append(address) }
                return []
            case .notNeeded, .failed: break
            }
        }
        // A bound socket would wait out the timeout on it.
        lookup.unroutable = lookup.unroutable ?? address
        return []
    }

    /// Connects to a new address, unless a connection already won.
    private mutating func tryAddress(_ address: IPAddress) -> [Action] {
        guard !lookup.addresses.contains(address) else { return [] }
        lookup.addresses.append(address)
        return winner == nil ? startConnecting(to: address) : []
    }

    /// Connects an IPv4 literal through the NAT64 prefix once it is known; ends the run when
    /// there is none. Nothing while the prefix is still being looked for.
    private mutating func reachThroughNAT64(routes: ProbeRoutes, at now: Instant) -> [Action] {
        guard lookup.awaitsPrefix, !isFinished, let address else { return [] }
        switch routes.discovery {
        case .asking, .notNeeded:
            return []
        case .found(let prefix):
            lookup.awaitsPrefix = false
            return startConnecting(to: prefix.synthesize(address))
        case .failed(let reason):
            lookup.awaitsPrefix = false
            return finish(routes.unroutable(address, why: reason), at: now)
        }
    }

    /// The NAT64 prefix's discovery ended (`routes` tells how): the IPv4 literal and the
    /// answers that waited for it are reached through it, or not at all.
    mutating func discoveryEnded(routes: ProbeRoutes, at now: Instant) -> [Action] {
        var actions = reachThroughNAT64(routes: routes, at: now)
        let waiting = lookup.awaitingPrefix
        guard !waiting.isEmpty, !isFinished else { return actions }
        lookup.awaitingPrefix = []
        if case .found(let prefix) = routes.discovery {
            for address in waiting { actions += tryAddress(prefix.synthesize(address)) }
        } else {
            lookup.unroutable = lookup.unroutable ?? waiting[0]
        }
        return actions + lookupEnded(routes: routes, at: now)
    }

    /// Ends a run whose resolution is over with nothing to connect to, or whose connections
    /// all failed; `timedOut`: its queries were given up at the resolution deadline.
    mutating func lookupEnded(routes: ProbeRoutes, timedOut: Bool = false, at now: Instant) -> [Action] {
        guard !isFinished, lookup.pendingQueries == 0, lookup.awaitingPrefix.isEmpty else { return [] }
        guard lookup.addresses.isEmpty else { return finishIfNothingLeft(at: now) }
        let name = proxy.map { "the name of \($0.named), '\(host)'," } ?? "the name '\(host)'"
        let reason: ConnectivityFailure = if let address = lookup.filtered {
            .init(.filteredAnswer, "the name '\(host)' resolved to \(address): the network's DNS filters it")
        } else if let address = lookup.unroutable { routes.unroutable(address) }
        else if lookup.notFound || lookup.resolved { .init(.nameNotResolved, "\(name) did not resolve") }
        else if timedOut { .init(.resolutionTimedOut, "name resolution timed out") }
        else if let failure = lookup.failure { .init(.dnsFailure, failure) }
        else { .init(.nameNotResolved, "\(name) did not resolve") }
        return finish(reason, at: now)
    }
}
#endif
