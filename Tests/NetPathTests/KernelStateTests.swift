import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// SPEC §2.4–2.8 on states built from message fixtures and the kernel's answers to route
/// lookups, also fixtures: no kernel needed. (The kernel tests check the same rules against
/// the real kernel's answers.)
@Suite struct KernelStateTests {
    /// An engine with a finished (empty) dump, ready for events.
    func settled(filter: InterfaceFilter = .none) -> EngineDriver {
        var engine = NetlinkEngine.pure(filter: filter)
        var request = engine.resynchronize()
        while let current = request {
            request = engine.feed(Fixture.done(sequence: current.sequence)).first
        }
        #expect(engine.isSettled)
        return engine
    }

    /// A settled engine at 1 s with eth0 up and a global IPv6 address on it: ready for
    /// IPv6 default routes through fe80::1 or fe80::2.
    func eth0WithIPv6(filter: InterfaceFilter = .none) -> EngineDriver {
        var engine = settled(filter: filter)
        engine.now = .at(seconds: 1)
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.address(index: 2, "2001:db8::2", prefix: 64))
        return engine
    }

    /// The kernel's IPv6 answer through eth0's default via `gateway` (metric 1024).
    func ipv6Answer(via gateway: String, sequence: UInt32) -> [UInt8] {
        Fixture.answer(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: gateway, source: "2001:db8::2", sequence: sequence)
    }

    func summary(_ engine: EngineDriver) -> String {
        let path = engine.path()
        var text = path.status == .satisfied ? "satisfied" : "\(path.status.rawValue)/\(path.diagnosis!.rawValue)"
        text += " [" + path.availableInterfaces.map(\.name).joined(separator: ",") + "]"
        if !path.gateways.isEmpty { text += " gw " + path.gateways.joined(separator: ",") }
        return text
    }

    @Test func eachDiagnosisInOrder() {
        var engine = settled()
        engine.feed(Fixture.link(index: 1, hardware: 772, flags: upFlags | 0x8, name: "lo", operstate: 0))
        engine.feed(Fixture.address(index: 1, "127.0.0.1", prefix: 8, scope: 254))
        engine.ask()
        #expect(summary(engine) == "unsatisfied/noInterface []")
        engine.feed(Fixture.link(index: 2, flags: 0x1, name: "eth0", operstate: 2))
        engine.ask()
        #expect(summary(engine) == "unsatisfied/noCarrier []")
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0", operstate: 6))
        engine.ask()
        #expect(summary(engine) == "unsatisfied/noAddress [eth0]")
        engine.feed(Fixture.address(index: 2, "192.0.2.2"))
        engine.ask()
        #expect(summary(engine) == "unsatisfied/noDefaultRoute [eth0]")
        engine.feed(Fixture.route(metric: 100, oif: 2, gateway: "192.0.2.1"))
        engine.ask(v4: { Fixture.answer(oif: 2, gateway: "192.0.2.1", source: "192.0.2.2", sequence: $0) })
        #expect(summary(engine) == "satisfied [eth0] gw 192.0.2.1")
        let path = engine.path()
        #expect(path.supportsIPv4 && !path.supportsIPv6 && path.unsatisfiedReason == nil && path.diagnosis == nil)
    }

    @Test func theKernelsAnswerDecidesNotTheDefaultRoutes() {
        // A full-tunnel VPN as wg-quick sets it up: the default route through eth0 is in the
        // main table, and the kernel sends everything through tun0 (table 51820).
        var engine = settled()
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.link(index: 5, hardware: 0xFFFE, flags: upFlags, name: "tun0", operstate: 0, kind: "tun"))
        engine.feed(Fixture.address(index: 2, "10.0.0.2"))
        engine.feed(Fixture.address(index: 5, "10.64.0.2", prefix: 32))
        engine.feed(Fixture.route(metric: 100, oif: 2, gateway: "10.0.0.1"))
        engine.feed(Fixture.route(table: 51820, oif: 5))
        engine.ask(v4: { Fixture.answer(table: 51820, oif: 5, source: "10.64.0.2", sequence: $0) })
        #expect(summary(engine) == "satisfied [tun0,eth0]")
        #expect(engine.path().availableInterfaces.first?.type == .other)
        // No route at all in the model, yet the kernel answers (an OpenVPN /1 pair): it decides.
        engine.feed(Fixture.route(type: Netlink.MessageType.deleteRoute, table: 51820, oif: 5))
        engine.ask(v4: { Fixture.answer(oif: 5, source: "10.64.0.2", sequence: $0) })
        #expect(summary(engine) == "satisfied [tun0,eth0]")
    }

    @Test func unusableAddressesDoNotCount() {
        var engine = settled()
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.address(index: 2, "fe80::1", prefix: 64, scope: 253))
        engine.feed(Fixture.address(index: 2, "2001:db8::2", prefix: 64, flags: 0x40))  // tentative
        engine.feed(Fixture.address(index: 2, "2001:db8::3", prefix: 64, flags: 0x08))  // DAD failed
        engine.feed(Fixture.address(index: 2, "10.0.0.2", prefix: 8, scope: 253))  // scope link
        engine.feed(Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1"))
        let v6: (UInt32) -> [UInt8] = {
            ipv6Answer(via: "fe80::1", sequence: $0)
        }
        engine.ask(v6: v6)
        #expect(summary(engine) == "unsatisfied/noAddress [eth0]")
        engine.feed(Fixture.address(index: 2, "2001:db8::2", prefix: 64, flags: 0))  // DAD done
        engine.ask(v6: v6)
        #expect(summary(engine) == "satisfied [eth0] gw fe80::1")
        #expect(engine.path().supportsIPv6 && !engine.path().supportsIPv4)
    }

    @Test func aSourceOnAnotherInterfaceCounts() {
        // An unnumbered link: the global address sits on loopback.
        var engine = settled()
        engine.feed(Fixture.link(index: 1, hardware: 772, flags: upFlags | 0x8, name: "lo", operstate: 0))
        engine.feed(Fixture.address(index: 1, "192.0.2.1", prefix: 32))
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.ask()
        #expect(summary(engine) == "unsatisfied/noDefaultRoute [eth0]")
        engine.feed(Fixture.route(oif: 2, gateway: "10.0.0.1"))
        engine.ask(v4: { Fixture.answer(oif: 2, gateway: "10.0.0.1", source: "192.0.2.1", sequence: $0) })
        #expect(summary(engine) == "satisfied [eth0] gw 10.0.0.1")
    }

    @Test func carrierRules() {
        var engine = settled()
        engine.feed(Fixture.address(index: 5, "10.8.0.2"))
        engine.feed(Fixture.route(oif: 5))
        let answer: (UInt32) -> [UInt8] = { Fixture.answer(oif: 5, source: "10.8.0.2", sequence: $0) }
        // A tun device: operstate UNKNOWN counts only with IFF_LOWER_UP.
        engine.feed(Fixture.link(index: 5, hardware: 0xFFFE, flags: 0x1, name: "tun0", operstate: 0, kind: "tun"))
        engine.ask(v4: answer)
        #expect(summary(engine) == "unsatisfied/noCarrier []")
        engine.feed(Fixture.link(index: 5, hardware: 0xFFFE, flags: upFlags, name: "tun0", operstate: 0, kind: "tun"))
        engine.ask(v4: answer)
        #expect(summary(engine) == "satisfied [tun0]")
        #expect(engine.path().availableInterfaces.first?.type == .other)
        // DORMANT: requiresConnection.
        engine.feed(Fixture.link(index: 5, hardware: 0xFFFE, flags: upFlags, name: "tun0", operstate: 5, kind: "tun"))
        engine.ask(v4: answer)
        #expect(summary(engine) == "requiresConnection/noCarrier []")
        #expect(engine.path().unsatisfiedReason == .notAvailable)
    }

    @Test func anAnswerThroughALinkWithoutCarrierIsNoCarrier() {
        // The kernel keeps using a route through a link that lost carrier (linkdown), even
        // with another link up: the traffic is lost, so the path is not satisfied.
        var engine = settled()
        engine.feed(Fixture.link(index: 2, flags: 0x1, name: "eth0", operstate: 2))
        engine.feed(Fixture.link(index: 3, flags: upFlags, name: "eth1"))
        engine.feed(Fixture.address(index: 2, "10.0.0.2"))
        engine.feed(Fixture.address(index: 3, "10.1.0.2"))
        engine.ask(v4: { Fixture.answer(oif: 2, gateway: "10.0.0.1", source: "10.0.0.2", sequence: $0) })
        #expect(summary(engine) == "unsatisfied/noCarrier [eth1]")
    }

    @Test func refusalsAreBlocked() {
        var engine = settled()
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.address(index: 2, "10.0.0.2"))
        for errno: Int32 in [13, 22, 113] {  // prohibit, blackhole, unreachable route
            engine.feed(Fixture.route(metric: UInt32(errno), oif: 2, gateway: "10.0.0.1"))
            engine.ask(v4: { Fixture.error(-errno, sequence: $0) })
            #expect(summary(engine) == "unsatisfied/blocked [eth0]")
        }
        // "Network unreachable" is a kill switch only when a rule refuses every packet.
        engine.feed(Fixture.rule(action: 7, priority: 10, fwmark: 51820))
        engine.ask()
        #expect(summary(engine) == "unsatisfied/noDefaultRoute [eth0]")
        engine.feed(Fixture.rule(action: 7, priority: 20))
        engine.ask()
        #expect(summary(engine) == "unsatisfied/blocked [eth0]")
        engine.feed(Fixture.rule(type: 33, action: 7, priority: 20))
        engine.ask()
        #expect(summary(engine) == "unsatisfied/noDefaultRoute [eth0]")
    }

    @Test func orderByTheAnswerThenMetricThenIndexAndReplace() {
        var engine = settled()
        for index: Int32 in [2, 3, 4] {
            engine.feed(Fixture.link(index: index, flags: upFlags, name: "eth\(index)"))
            engine.feed(Fixture.address(index: index, "10.0.\(index).2"))
        }
        engine.feed(Fixture.route(metric: 300, oif: 2, gateway: "10.0.2.1"))
        engine.feed(Fixture.route(metric: 100, oif: 3, gateway: "10.0.3.1"))
        engine.ask(v4: { Fixture.answer(oif: 3, gateway: "10.0.3.1", source: "10.0.3.2", sequence: $0) })
        #expect(summary(engine) == "satisfied [eth3,eth2,eth4] gw 10.0.3.1")
        // NLM_F_REPLACE: the metric-100 route now goes through eth4; no DELROUTE comes.
        engine.feed(Fixture.route(metric: 100, oif: 4, gateway: "10.0.4.1", messageFlags: Netlink.HeaderFlag.replace))
        #expect(engine.state.routes.count == 2)
        engine.ask(v4: { Fixture.answer(oif: 4, gateway: "10.0.4.1", source: "10.0.4.2", sequence: $0) })
        #expect(summary(engine) == "satisfied [eth4,eth2,eth3] gw 10.0.4.1")
    }

    @Test func routesWithOneKeyAndDifferentTypesAreKeptApart() {
        // `ip route append blackhole default`, then its removal: the unicast route stays.
        var engine = settled()
        engine.feed(Fixture.route(oif: 2, gateway: "10.0.0.1"))
        engine.feed(Fixture.route(routeType: 6))
        #expect(engine.state.routes.count == 2)
        engine.feed(Fixture.route(type: Netlink.MessageType.deleteRoute, routeType: 6))
        #expect(engine.state.routes.count == 1 && engine.state.routes.keys.first?.type == 1)
    }

    @Test func multipathAndSilentRouteRemoval() {
        var engine = settled()
        for index: Int32 in [2, 3] {
            engine.feed(Fixture.link(index: index, flags: upFlags, name: "eth\(index)"))
            engine.feed(Fixture.address(index: index, "10.0.\(index).2"))
        }
        engine.feed(Fixture.route(multipath: [(2, "10.0.2.1"), (3, "10.0.3.1")]))
        #expect(engine.state.routes.values.first?.nexthops.count == 2)
        // eth2 goes administratively down: the kernel drops its nexthop without a message.
        engine.feed(Fixture.link(index: 2, flags: 0, name: "eth2", operstate: 2))
        #expect(engine.state.routes.values.first?.nexthops.map(\.interfaceIndex) == [3])
        // eth3 loses its last IPv4 address: the kernel flushes its IPv4 routes silently.
        engine.feed(Fixture.address(type: Netlink.MessageType.deleteAddress, index: 3, "10.0.3.2"))
        #expect(engine.state.routes.isEmpty)
    }

    @Test func nexthopObjectsAndTheirDeletion() {
        var engine = settled()
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.link(index: 3, flags: upFlags, name: "eth1"))
        engine.feed(Fixture.address(index: 3, "10.1.0.2"))
        engine.feed(Fixture.nexthop(id: 1, oif: 3, gateway: "10.1.0.1"))
        engine.feed(Fixture.nexthop(id: 2, oif: 2, gateway: "10.0.0.1"))
        engine.feed(Fixture.nexthop(id: 10, group: [1, 2]))
        engine.feed(Fixture.route(metric: 5, nexthopID: 10))
        engine.feed(Fixture.route(metric: 9, nexthopID: 1))
        // The routes carry only the id: the hops come from the objects (eth1 has the address).
        engine.ask()
        #expect(summary(engine) == "unsatisfied/noDefaultRoute [eth1,eth0]")
        // Deleting nexthop 1 drops the route that uses it, and shrinks the group.
        engine.feed(Fixture.nexthop(type: 105, id: 1))
        #expect(engine.state.routes.count == 1 && engine.state.nexthopObjects[10]?.group == [2])
        // Deleting the group's last member deletes the group and its routes, silently.
        engine.feed(Fixture.nexthop(type: 105, id: 2))
        #expect(engine.state.routes.isEmpty && engine.state.nexthopObjects.isEmpty)
    }

    @Test func filteredMonitorsAskPerInterface() {
        var engine = settled(filter: InterfaceFilter(required: nil, prohibited: [.wiredEthernet]))
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.link(index: 3, hardware: 0xFFFE, flags: upFlags, name: "wwan0", operstate: 0))
        engine.feed(Fixture.address(index: 2, "10.0.0.2"))
        engine.feed(Fixture.address(index: 3, "100.64.0.2"))
        engine.feed(Fixture.route(metric: 100, oif: 2, gateway: "10.0.0.1"))
        let lookups = engine.startLookups().map(\.lookup)
        // IPv4 from its source; IPv6 without and from it; then the same bound to wwan0.
        #expect(lookups.map(\.interfaceIndex) == [nil, nil, nil, 3, 3, 3])
        // Bound to wwan0 there is no route: the kernel guesses "on link" (table 0).
        engine.ask { lookup, sequence in
            guard lookup.family == IPAddress.inet else { return nil }
            if lookup.interfaceIndex == 3 { return Fixture.answer(table: 0, oif: 3, source: "100.64.0.2", sequence: sequence) }
            return Fixture.answer(oif: 2, gateway: "10.0.0.1", source: "10.0.0.2", sequence: sequence)
        }
        #expect(summary(engine) == "unsatisfied/filtered [wwan0]")
        engine.feed(Fixture.route(metric: 700, oif: 3))
        engine.ask { lookup, sequence in
            guard lookup.family == IPAddress.inet else { return nil }
            if lookup.interfaceIndex == 3 { return Fixture.answer(oif: 3, source: "100.64.0.2", sequence: sequence) }
            return Fixture.answer(oif: 2, gateway: "10.0.0.1", source: "10.0.0.2", sequence: sequence)
        }
        let cellular = engine.path()
        #expect(cellular.status == .satisfied && cellular.isExpensive && cellular.availableInterfaces.map(\.name) == ["wwan0"])
    }

    /// An optimistic IPv6 address announces itself only by its local route (RTM_NEWADDR
    /// comes when DAD ends): on a link without a usable IPv6 address, that route makes the
    /// kernel be asked again; a link-local address's (its DAD ending), an IPv4 address's or
    /// one beside a usable IPv6 address does not.
    @Test func anIPv6AddresssLocalRouteAsksAgainOnlyWhereItCanMatter() {
        func local(_ address: String, family: UInt8 = IPAddress.inet6) -> [UInt8] {
            Fixture.route(family: family, destinationLength: family == IPAddress.inet6 ? 128 : 32, table: 255, routeType: 2,
                          oif: 2, destination: address)
        }
        var engine = settled()
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.ask()
        #expect(engine.isAnswered)
        for quiet in [local("fe80::1"), local("10.0.0.9", family: IPAddress.inet)] {
            engine.feed(quiet)
            #expect(engine.step(now: engine.now).questions.isEmpty, "\(quiet)")
        }
        engine.feed(local("2001:db8::2"))
        #expect(engine.step(now: engine.now).questions.map(\.family) == [IPAddress.inet6])
        engine.ask()
        engine.feed(Fixture.address(index: 2, "2001:db8::3", prefix: 64))
        engine.ask()
        engine.feed(local("2001:db8::4"))
        #expect(engine.step(now: engine.now).questions.isEmpty)
    }

    @Test func dnsCountsOnlyOnASatisfiedPath() {
        var engine = settled()
        _ = engine.handle(.resolverRead(servers: ["10.0.0.1"]), at: engine.now)
        engine.ask()
        #expect(!engine.path().supportsDNS)
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.address(index: 2, "10.0.0.2"))
        engine.feed(Fixture.route(oif: 2, gateway: "10.0.0.1"))
        engine.ask(v4: { Fixture.answer(oif: 2, gateway: "10.0.0.1", source: "10.0.0.2", sequence: $0) })
        #expect(engine.path().supportsDNS)
        _ = engine.handle(.resolverRead(servers: []), at: engine.now)
        // A resolver change needs no lookup.
        let actions = engine.step(now: engine.now)
        #expect(actions.questions.isEmpty && actions.requests.isEmpty && actions.path?.supportsDNS == false)
    }

    /// Other DNS servers (a DHCP client rewriting resolv.conf after the routes came up):
    /// the engine hands out a path that equals the last for users, but is not identical to
    /// it, so a connectivity check in flight starts over; the same servers again hand out
    /// nothing.
    @Test func otherDNSServersMakeAPathEqualButNotIdentical() {
        var engine = settled()
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.address(index: 2, "10.0.0.2"))
        engine.feed(Fixture.route(oif: 2, gateway: "10.0.0.1"))
        _ = engine.handle(.resolverRead(servers: ["192.0.2.53"]), at: engine.now)
        engine.ask(v4: { Fixture.answer(oif: 2, gateway: "10.0.0.1", source: "10.0.0.2", sequence: $0) })
        let first = engine.path()
        #expect(first.status == .satisfied && first.dnsServers == ["192.0.2.53"])
        _ = engine.step(now: engine.now)
        _ = engine.handle(.resolverRead(servers: ["10.0.0.1", "192.0.2.53"]), at: engine.now)
        let changed = engine.handle(.step, at: engine.now)
        guard case .deliver(let path)? = changed.last else {
            Issue.record("no path for other servers: \(changed)")
            return
        }
        #expect(changed.count == 1 && path == first && !path.isIdentical(to: first) && path.dnsServers == ["10.0.0.1", "192.0.2.53"])
        #expect(path.hashValue == first.hashValue)
        _ = engine.handle(.resolverRead(servers: ["10.0.0.1", "192.0.2.53"]), at: engine.now)
        #expect(engine.handle(.step, at: engine.now).isEmpty)
    }

    @Test func lookupsAreAskedOnlyForChangesThatCanChangeTheAnswer() {
        var engine = settled()
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.address(index: 2, "10.0.0.2"))
        engine.ask()
        let rounds = engine.round.lookupRounds
        // An address beside others, a spurious NEWLINK, a route that does not hold the
        // Internet destination: no lookup.
        engine.feed(Fixture.address(index: 2, "10.0.0.3"))
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.route(destinationLength: 24, oif: 2, destination: "10.9.0.0"))
        #expect(engine.startLookups().isEmpty && engine.round.lookupRounds == rounds)
        // A route that holds it (OpenVPN's 0.0.0.0/1): IPv4 only is asked again.
        engine.feed(Fixture.route(destinationLength: 1, oif: 2, destination: "0.0.0.0"))
        let ipv4Only = engine.startLookups()
        #expect(ipv4Only.map(\.lookup.family) == [IPAddress.inet] && engine.round.lookupRounds == rounds + 1)
        for (sequence, _) in ipv4Only { engine.feed(Fixture.error(-101, sequence: sequence)) }
        #expect(engine.isAnswered && engine.round.answers.count == 2)
        // A rule and a nexthop object: one round for both families.
        engine.feed(Fixture.rule(action: 1, priority: 5, table: 7))
        engine.feed(Fixture.nexthop(id: 4, oif: 2))
        #expect(engine.startLookups().count == 3 && engine.round.lookupRounds == rounds + 2)
    }

    @Test func anExpiringRouteArmsOneTimer() {
        var engine = eth0WithIPv6()
        engine.feed(Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1", expiresTicks: 300))
        engine.feed(Fixture.route(family: IPAddress.inet6, metric: 2048, oif: 2, gateway: "fe80::2", expiresTicks: 100))
        engine.ask(v6: { ipv6Answer(via: "fe80::1", sequence: $0) })
        // Only the route the answer came from counts: 3 s after the message.
        #expect(engine.nextExpiry() == .at(seconds: 4))
        // When it passes, the lookup round also asks for the table entry (its lifetime now).
        engine.passExpiry()
        let lookups = engine.startLookups()
        #expect(lookups.contains { $0.lookup.tableEntry })
        engine.now = .at(milliseconds: 4_100)
        for (sequence, lookup) in lookups {
            if lookup.tableEntry {
                engine.feed(Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1", sequence: sequence, expiresTicks: 500))
            } else if lookup.family == IPAddress.inet6 {
                engine.feed(ipv6Answer(via: "fe80::1", sequence: sequence))
            } else {
                engine.feed(Fixture.error(-101, sequence: sequence))
            }
        }
        // A router advertisement renewed it without a message: the table entry says so.
        #expect(engine.isAnswered && engine.nextExpiry() == .at(milliseconds: 9_100))
        #expect(engine.path().supportsIPv6)
    }

    /// The kernel writes `rta_expires` 0 both for a route that does not expire and for one
    /// in the last tick of its lifetime, and a negative count once it has passed.
    @Test func lifetimesOfZeroAndBelowAreReadAsTheKernelMeansThem() {
        var engine = eth0WithIPv6()
        let replace = Netlink.HeaderFlag.replace
        let hop: Nexthop? = Nexthop(interfaceIndex: 2, gateway: IPAddress("fe80::1"))
        engine.feed(Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1", expiresTicks: 200))
        let key = engine.state.routes.keys.first { $0.family == IPAddress.inet6 }!
        // In the last tick: still the route about to expire, not a permanent one.
        engine.now = .at(milliseconds: 2_995)
        engine.feed(Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1", messageFlags: replace))
        #expect(engine.state.routes[key]?.expiries[hop] == .at(seconds: 3))
        // Past its known end by more than the margin, and the kernel still says 0: kept too
        // (the kernel's clock runs behind ours; a bounded number of asks, then forgotten).
        engine.now = .at(milliseconds: 3_100)
        engine.feed(Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1", messageFlags: replace))
        #expect(engine.state.routes[key]?.expiries[hop] == .at(seconds: 3))
        // Replaced by a route without a lifetime, far from the end of the old one.
        engine.feed(Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1", messageFlags: replace, expiresTicks: 500))
        engine.feed(Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1", messageFlags: replace))
        #expect(engine.state.routes[key]?.expiries[hop] == nil)
        // Passed 1.5 s ago: due now, not in 497 days (the count read unsigned).
        engine.feed(Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1", messageFlags: replace, expiresTicks: -150))
        #expect(engine.state.routes[key]?.expiries[hop] == .at(milliseconds: 3_100))
    }

    /// Two routers' IPv6 defaults share a key (same table and metric) but each has its own
    /// lifetime; the one the kernel's answer uses sets the timer, and its table entry
    /// renews it without dropping the other router.
    @Test func eachRoutersDefaultKeepsItsOwnLifetime() {
        var engine = eth0WithIPv6()
        engine.feed(Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1", expiresTicks: 300))
        engine.feed(Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::2", expiresTicks: 900))
        engine.ask(v6: { ipv6Answer(via: "fe80::1", sequence: $0) })
        // fe80::1 carries the traffic and ends first (the last message was fe80::2's).
        #expect(engine.nextExpiry() == .at(seconds: 4))
        engine.passExpiry()
        engine.now = .at(milliseconds: 4_100)
        engine.ask { lookup, sequence in
            if lookup.tableEntry {
                return Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1", sequence: sequence, expiresTicks: 1000)
            }
            return lookup.family == IPAddress.inet6
                ? ipv6Answer(via: "fe80::1", sequence: sequence)
                : nil
        }
        #expect(engine.nextExpiry() == .at(milliseconds: 14_100))
        let key = engine.state.routes.keys.first { $0.family == IPAddress.inet6 }!
        #expect(engine.state.routes[key]?.nexthops.count == 2)
        #expect(engine.state.routes[key]?.expiries[Nexthop(interfaceIndex: 2, gateway: IPAddress("fe80::2"))] == .at(seconds: 10))
        // The kernel moves to fe80::2: its own lifetime sets the timer.
        engine.feed(Fixture.route(type: Netlink.MessageType.deleteRoute, family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1"))
        engine.ask(v6: { ipv6Answer(via: "fe80::2", sequence: $0) })
        #expect(engine.nextExpiry() == .at(seconds: 10))
    }

    /// A filtered monitor asks bound questions; when a lifetime passes, it asks for the table
    /// entry behind each bound IPv6 answer, not only the unbound one.
    @Test func aFilteredMonitorRenewsTheLifetimesOfItsBoundAnswers() {
        var engine = eth0WithIPv6(filter: InterfaceFilter(required: nil, prohibited: [.other]))
        engine.feed(Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1", expiresTicks: 300))
        engine.ask { lookup, sequence in
            lookup.family == IPAddress.inet6 && lookup.interfaceIndex == 2
                ? ipv6Answer(via: "fe80::1", sequence: sequence)
                : nil
        }
        #expect(engine.nextExpiry() == .at(seconds: 4))
        engine.passExpiry()
        let entries = engine.startLookups().map(\.lookup).filter(\.tableEntry)
        // The unbound question (asked too: it tells `filtered` apart) and the bound one.
        #expect(Set(entries) == [RouteLookup(family: IPAddress.inet6, tableEntry: true),
                                 RouteLookup(family: IPAddress.inet6, interfaceIndex: 2, tableEntry: true)])
    }

    /// A lifetime the kernel keeps using past its end is forgotten, and the next one counts.
    @Test func aLifetimeForgottenLeavesTheNextOne() {
        var engine = eth0WithIPv6()
        engine.feed(Fixture.address(index: 2, "10.0.0.2"))
        engine.feed(Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1", expiresTicks: 100))
        engine.feed(Fixture.route(oif: 2, gateway: "10.0.0.1", expiresTicks: 500))
        engine.ask(
            v4: { Fixture.answer(oif: 2, gateway: "10.0.0.1", source: "10.0.0.2", sequence: $0) },
            v6: { ipv6Answer(via: "fe80::1", sequence: $0) })
        #expect(engine.nextExpiry() == .at(seconds: 2))
        var state = engine.state
        state.forgetExpiries(through: .at(seconds: 2))
        #expect(PathDecision(state: state, answers: engine.round.answers, filter: .none, uid: 0).earliestExpiry() == .at(seconds: 6))
    }

    /// A re-dump (after an overrun) that reads a hop's lifetime as 0 in its last tick still
    /// knows it, hop by hop, also when the other router's route came first in the dump.
    @Test func aReDumpKeepsLifetimesInTheirLastTick() {
        var engine = eth0WithIPv6()
        engine.feed(Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1", expiresTicks: 900))
        engine.feed(Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::2", expiresTicks: 200))
        var request = engine.resynchronize()
        engine.now = .at(milliseconds: 2_995)
        let replies: [NetlinkEngine.Dump: [[UInt8]]] = [
            .links: [Fixture.link(index: 2, flags: upFlags, name: "eth0")],
            .addresses: [Fixture.address(index: 2, "2001:db8::2", prefix: 64)],
            .routes: [Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1", expiresTicks: 700),
                      Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::2")],
        ]
        while let current = request {
            for var bytes in replies[current.dump] ?? [] {
                bytes.withUnsafeMutableBytes { $0.storeBytes(of: current.sequence, toByteOffset: 8, as: UInt32.self) }
                engine.feed(bytes)
            }
            request = engine.feed(Fixture.done(sequence: current.sequence)).first
        }
        engine.ask(v6: { ipv6Answer(via: "fe80::2", sequence: $0) })
        #expect(engine.isAnswered && engine.nextExpiry() == .at(seconds: 3))
        #expect(engine.state.formerExpiries.isEmpty)
    }

    @Test func deletedLinkForgetsItsAddressesAndRoutes() {
        var engine = settled()
        engine.feed(Fixture.link(index: 9, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.address(index: 9, "10.0.0.2"))
        engine.feed(Fixture.route(oif: 9, gateway: "10.0.0.1"))
        engine.feed(Fixture.link(type: Netlink.MessageType.deleteLink, index: 9, flags: 0, name: "eth0"))
        // Index 9 reused by a new link: nothing of the old one remains.
        engine.feed(Fixture.link(index: 9, flags: upFlags, name: "usb0"))
        engine.ask()
        #expect(summary(engine) == "unsatisfied/noAddress [usb0]")
        #expect(engine.state.routes.isEmpty)
    }

    @Test func bridgePortNewsIsNotALinkChange() {
        var engine = settled()
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.link(type: Netlink.MessageType.deleteLink, family: 7, index: 2, flags: upFlags, name: "eth0"))
        engine.ask()
        #expect(summary(engine) == "unsatisfied/noAddress [eth0]")
    }
}

@Suite struct NetlinkEngineTests {
    @Test func dumpsLinksAddressesRoutesRulesThenNexthops() {
        var engine = NetlinkEngine.pure()
        let first = engine.resynchronize()
        #expect(first?.dump == .links && !engine.isSettled)
        let second = engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0", messageFlags: 2, sequence: first!.sequence)
            + Fixture.done(sequence: first!.sequence))
        #expect(second.map(\.dump) == [.addresses])
        // An event (sequence 0) in the middle of a dump is applied too.
        let third = engine.feed(Fixture.address(index: 2, "10.0.0.2") + Fixture.done(sequence: second[0].sequence))
        #expect(third.map(\.dump) == [.routes])
        let fourth = engine.feed(Fixture.route(oif: 2, gateway: "10.0.0.1", sequence: third[0].sequence) + Fixture.done(sequence: third[0].sequence))
        #expect(fourth.map(\.dump) == [.rules])
        let fifth = engine.feed(Fixture.done(sequence: fourth[0].sequence))
        #expect(fifth.map(\.dump) == [.nexthops])
        // A kernel without nexthop objects refuses that dump: the tables are complete anyway.
        #expect(engine.feed(Fixture.error(-95, sequence: fifth[0].sequence)).isEmpty)
        #expect(engine.isSettled && !engine.isAnswered && engine.dumps.resyncCount == 0)
        engine.ask(v4: { Fixture.answer(oif: 2, gateway: "10.0.0.1", source: "10.0.0.2", sequence: $0) })
        #expect(engine.isAnswered && engine.path().status == .satisfied)
        // A stale DONE (another sequence) changes nothing.
        #expect(engine.feed(Fixture.done(sequence: 999)).isEmpty && engine.isSettled)
    }

    @Test func answersAreTakenOnlyFromOurPortAndSequence() {
        var engine = NetlinkEngine.pure(port: 4242)
        var request = engine.resynchronize()
        while let current = request {
            var done = Fixture.done(sequence: current.sequence)
            done.replaceSubrange(12..<16, with: Fixture.u32(4242))
            request = engine.feed(done).first
        }
        let lookups = engine.startLookups()
        // An event caused by another process's request, with the same sequence number: an
        // event, not our answer.
        var event = Fixture.route(oif: 2, gateway: "10.0.0.1", sequence: lookups[0].sequence)
        event.replaceSubrange(12..<16, with: Fixture.u32(777))
        engine.feed(event)
        #expect(engine.round.pendingLookups.count == 3 && engine.state.routes.count == 1)
    }

    @Test func interruptedDumpStartsOverFromAnEmptyState() {
        var engine = NetlinkEngine.pure()
        let first = engine.resynchronize()!
        let interrupted = Fixture.link(index: 2, flags: upFlags, name: "eth0", messageFlags: 2 | Netlink.HeaderFlag.dumpInterrupted, sequence: first.sequence)
        let next = engine.feed(interrupted + Fixture.done(sequence: first.sequence))
        #expect(next.map(\.dump) == [.links] && next[0].sequence != first.sequence)
        #expect(engine.state.links.isEmpty && engine.dumps.resyncCount == 1)
    }

    @Test func overrunDuringADumpRestartsWhenItEnds() {
        var engine = NetlinkEngine.pure()
        let first = engine.resynchronize()!
        // ENOBUFS while the kernel is still dumping: one dump at a time, so wait for DONE.
        #expect(engine.resynchronize() == nil)
        let next = engine.feed(Fixture.done(sequence: first.sequence))
        #expect(next.map(\.dump) == [.links])
        #expect(!engine.isSettled)
    }

    /// Dumps the tables up to `optional` (rules or nexthops), answering the others with DONE;
    /// returns the request for it.
    func dumped(upTo optional: NetlinkEngine.Dump, _ engine: inout EngineDriver) -> NetlinkEngine.Request {
        var request = engine.resynchronize()!
        while request.dump != optional { request = engine.feed(Fixture.done(sequence: request.sequence))[0] }
        return request
    }

    /// An error answer to the rules dump (EBUSY here) is not "not supported": the tables
    /// settle without the rules, and the dump is asked again alone, 0.1 s later, then 0.2 s
    /// after a second error; its success brings the rules, and the kernel is asked again.
    @Test func aFailedRulesDumpIsAskedAgainWithBackOff() {
        var engine = NetlinkEngine.pure()
        let rules = dumped(upTo: .rules, &engine)
        let nexthops = engine.feed(Fixture.error(-16, sequence: rules.sequence))
        #expect(nexthops.map(\.dump) == [.nexthops])
        #expect(engine.feed(Fixture.done(sequence: nexthops[0].sequence)).isEmpty)
        #expect(engine.isSettled && !engine.state.rulesKnown)
        #expect(engine.dumps.optionalDumps[.rules] == .init(failures: 1, retryAt: .at(milliseconds: 100)))
        #expect(engine.schedule(now: .zero).wake == .at(milliseconds: 100))
        #expect(engine.step(now: .at(milliseconds: 99)).requests.isEmpty && engine.dumping == nil)
        #expect(engine.step(now: .at(milliseconds: 100)).requests.count == 1 && engine.dumping == .rules)
        #expect(engine.feed(Fixture.error(-16, sequence: engine.dumps.dumpSequence)).isEmpty)
        #expect(engine.isSettled && engine.dumps.optionalDumps[.rules] == .init(failures: 2, retryAt: .at(milliseconds: 300)))
        #expect(engine.step(now: .at(milliseconds: 299)).requests.isEmpty)
        #expect(engine.step(now: .at(milliseconds: 300)).requests.count == 1 && engine.dumping == .rules)
        let sequence = engine.dumps.dumpSequence
        engine.feed(Fixture.rule(action: Netlink.Rule.toTable, priority: 0, table: 255, sequence: sequence) + Fixture.done(sequence: sequence))
        #expect(engine.isSettled && engine.state.rulesKnown && engine.state.rules.count == 1)
        #expect(engine.dumps.optionalDumps.isEmpty && engine.state.answerStale && engine.schedule(now: .at(milliseconds: 300)).wake == nil)
        #expect(engine.dumps.resyncCount == 0)
    }

    /// The same for nexthop objects: after an error, asked again alone, and they arrive.
    @Test func aFailedNexthopDumpIsAskedAgainAndGivesTheNexthops() {
        var engine = NetlinkEngine.pure()
        let nexthops = dumped(upTo: .nexthops, &engine)
        #expect(engine.feed(Fixture.error(-12, sequence: nexthops.sequence)).isEmpty)  // ENOMEM
        #expect(engine.isSettled && engine.state.rulesKnown && engine.state.nexthopObjects.isEmpty)
        #expect(engine.step(now: .at(milliseconds: 100)).requests.count == 1 && engine.dumping == .nexthops)
        let sequence = engine.dumps.dumpSequence
        engine.feed(Fixture.nexthop(id: 7, oif: 2, gateway: "10.0.0.1", sequence: sequence) + Fixture.done(sequence: sequence))
        #expect(engine.isSettled && engine.state.nexthopObjects[7] != nil && engine.dumps.optionalDumps.isEmpty)
    }

    /// EOPNOTSUPP — what a kernel without nexthop objects or policy routing answers — is
    /// recorded once: no wake-up to ask again, and no later synchronisation asks for it.
    @Test func aDumpTheKernelDoesNotSupportIsNeverAskedAgain() {
        var engine = NetlinkEngine.pure()
        let rules = dumped(upTo: .rules, &engine)
        let nexthops = engine.feed(Fixture.error(-95, sequence: rules.sequence))
        #expect(engine.feed(Fixture.error(-95, sequence: nexthops[0].sequence)).isEmpty)
        #expect(engine.isSettled && !engine.state.rulesKnown)
        #expect(engine.dumps.optionalDumps == [.rules: .init(unsupported: true), .nexthops: .init(unsupported: true)])
        #expect(engine.schedule(now: .zero).wake == nil)
        #expect(engine.step(now: .at(seconds: 3_600)).requests.isEmpty && engine.dumping == nil)
        var dumps: [NetlinkEngine.Dump] = []
        var request = engine.resynchronize()
        while let current = request {
            dumps.append(current.dump)
            request = engine.feed(Fixture.done(sequence: current.sequence)).first
        }
        #expect(dumps == [.links, .addresses, .routes] && engine.isSettled)
    }

    @Test func theDumpRetryDelayDoublesFromATenthToFiveSeconds() {
        let delays = (1...8).map { DumpMachine.dumpRetryDelay(afterFailures: $0) / .milliseconds(100) }
        #expect(delays == [1, 2, 4, 8, 16, 32, 50, 50])
        #expect(DumpMachine.dumpRetryDelay(afterFailures: 1000) == DumpMachine.maximumDumpRetry)
    }

    @Test func failedDumpIsRetriedAndAcksAreIgnored() {
        var engine = NetlinkEngine.pure()
        let first = engine.resynchronize()!
        #expect(engine.feed(Fixture.error(0, sequence: first.sequence)).isEmpty)
        let retry = engine.feed(Fixture.error(-16, sequence: first.sequence))  // EBUSY
        #expect(retry.map(\.dump) == [.links])
    }

    /// The first step, long after the monotonic clock's zero, sends the first dump once: a
    /// request not sent yet cannot be taken as lost (it was, and the dump began three times).
    @Test func theFirstDumpIsSentOnce() {
        var engine = NetlinkEngine.pure()
        _ = engine.handle(.start, at: engine.now)
        let actions = engine.step(now: .at(seconds: 5))
        #expect(actions.requests.count == 1 && engine.dumping == .links && engine.dumps.resyncCount == 0)
        #expect(engine.step(now: .at(milliseconds: 5_100)).requests.isEmpty)
        // Unanswered a second after it was sent: lost, dumped afresh.
        #expect(engine.step(now: Instant(nanoseconds: 6_000_000_001)).requests.count == 1 && engine.dumps.resyncCount == 1)
    }

    /// IPv6 switched off (or only tentative addresses): the socket has no source
    /// (`EADDRNOTAVAIL`); the source-less lookup tells a missing route from a missing address.
    @Test func noSourceIsNoAddressOnlyWhereARouteExists() {
        let states = KernelStateTests()
        var engine = states.settled()
        engine.feed(Fixture.link(index: 2, flags: upFlags, name: "eth0"))
        engine.feed(Fixture.address(index: 2, "10.0.0.2"))
        engine.feed(Fixture.route(oif: 2, gateway: "10.0.0.1"))
        let noSource: (RouteLookup) -> SocketVerdict = { lookup in
            lookup.family == IPAddress.inet ? .refused(errno: LinuxErrno.networkUnreachable) : .refused(errno: LinuxErrno.addressNotAvailable)
        }
        for (sequence, _) in engine.startLookups(verdict: noSource) { engine.feed(Fixture.error(-101, sequence: sequence)) }
        _ = engine.step(now: engine.now)
        #expect(states.summary(engine) == "unsatisfied/noDefaultRoute [eth0]")
        engine.feed(Fixture.route(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1"))
        for (sequence, _) in engine.startLookups(verdict: noSource) {
            engine.feed(Fixture.answer(family: IPAddress.inet6, metric: 1024, oif: 2, gateway: "fe80::1", source: "2001:db8::2", sequence: sequence))
        }
        _ = engine.step(now: engine.now)
        #expect(states.summary(engine) == "unsatisfied/noAddress [eth0]")
    }

    @Test func requestsEncodeAsDumpHeaders() {
        let bytes = NetlinkRequest.encode(.init(dump: .routes, sequence: 7))
        #expect(bytes.count == 28)
        #expect(Array(bytes[0..<4]) == Fixture.u32(28) && Array(bytes[4..<6]) == Fixture.u16(26))
        #expect(Array(bytes[6..<8]) == Fixture.u16(0x301) && Array(bytes[8..<12]) == Fixture.u32(7))
    }

    @Test func lookupsEncodeAsIPRouteGet() {
        // ip route get 1.1.1.1 from 192.0.2.2 oif 3 ipproto udp dport 53;
        // ip -6 route get 2606:4700:4700::1111 ipproto udp dport 53 — in one datagram.
        let bytes = NetlinkRequest.encode(lookups: [
            (5, RouteLookup(family: IPAddress.inet, interfaceIndex: 3), false, IPAddress("192.0.2.2")),
            (6, RouteLookup(family: IPAddress.inet6), false, nil),
        ])
        #expect(bytes.count == 68 + 64)
        #expect(Array(bytes[0..<12]) == Fixture.u32(68) + Fixture.u16(26) + Fixture.u16(1) + Fixture.u32(5))
        #expect(Array(bytes[16..<20]) == [2, 32, 32, 0] && Array(bytes[24..<28]) == Fixture.u32(0x1000))
        #expect(Array(bytes[28..<36]) == Fixture.u16(8) + Fixture.u16(1) + [1, 1, 1, 1])
        #expect(Array(bytes[36..<44]) == Fixture.u16(8) + Fixture.u16(2) + [192, 0, 2, 2])
        #expect(Array(bytes[44..<49]) == Fixture.u16(5) + Fixture.u16(27) + [17])
        #expect(Array(bytes[52..<58]) == Fixture.u16(6) + Fixture.u16(29) + [0, 53])
        #expect(Array(bytes[60..<68]) == Fixture.u16(8) + Fixture.u16(4) + Fixture.i32(3))
        #expect(Array(bytes[84..<88]) == [10, 128, 0, 0] && bytes[100..<102] == [0x26, 0x06] && bytes[114..<116] == [0x11, 0x11])
        #expect(NetlinkParser.parse(bytes).map(\.type) == [26, 26])
    }
}
