/// A check in flight; ``cancel()`` ends it at its loop's next turn. It owns the check's
/// event loop, closed when both the caller and the check's thread have let go of it (so a
/// late `cancel` can never write to a reused descriptor).
final class ProbeHandle: Sendable {
    #if os(Linux) || os(Android)
    /// One loop per family checked.
    let loops: [EventLoop]
    init(loops: [EventLoop]) { self.loops = loops }
    #endif

    #if !(os(Linux) || os(Android)) && canImport(Network)
    private let probe: NWConnectionProbe
    init(probe: NWConnectionProbe) { self.probe = probe }
    #endif

    func cancel() {
        #if os(Linux) || os(Android)
        for loop in loops { loop.stop() }
        #elseif canImport(Network)
        probe.cancel()
        #endif
    }
}

extension ConnectivityCheck {
    /// Runs one check now.
    ///
    /// - Parameters:
    ///   - path: The path to check over: its primary interface is used (`SO_BINDTODEVICE`),
    ///     and an unsatisfied path gives `offline` without sending anything. `nil`: unbound.
    ///   - namespace: On Linux, the network namespace to check from (its DNS servers too).
    /// - Returns: The verdict, within ``timeout``.
    public func run(over path: NetworkPath? = nil, namespace: NetworkNamespace? = nil) async -> ConnectivityResult {
        if let path, path.status != .satisfied {
            return ConnectivityResult(connectivity: .offline, failure: .init(.pathUnsatisfied, "the path is not satisfied"))
        }
        return await ConnectivityCheck.awaiting { start(over: path, namespace: namespace, completion: $0) }
    }

    /// The verdict of the check `start` begins (given its completion; it returns the check's
    /// handle), awaited; the task's cancellation cancels the check, also one that came before
    /// the check had started.
    private static func awaiting(_ start: (@escaping @Sendable (ConnectivityResult) -> Void) -> ProbeHandle?) async -> ConnectivityResult {
        let box = ResultBox()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ConnectivityResult, Never>) in
                box.hold(start { continuation.resume(returning: $0) })
            }
        } onCancel: {
            box.cancel()
        }
    }

    /// The running check's handle, for the task's cancellation, which may come first (a
    /// task cancelled before it asked): then the check is cancelled as soon as it starts.
    private final class ResultBox: Sendable {
        private let state = Locked<(handle: ProbeHandle?, cancelled: Bool)>((nil, false))

        func hold(_ handle: ProbeHandle?) {
            if state.withLock({ $0.handle = handle; return $0.cancelled }) { handle?.cancel() }
        }

        func cancel() {
            state.withLock { state -> ProbeHandle? in
                state.cancelled = true
                return state.handle
            }?.cancel()
        }
    }

    /// Starts a check, one thread per address family the path routes (each enters
    /// `namespace`, and decides its family over its own sockets); `completion` is called
    /// once, on the thread that ends last, with the families' verdicts combined
    /// (``ProbeVerdict/combine(ipv4:ipv6:gatewayUnresponsive:)``). It goes through the
    /// path's primary interface; on an IPv6-only path it looks for the NAT64 prefix.
    ///
    /// `early`, when given, hears the first family's `full` while the other is still being
    /// checked (``ProbeVerdict/early(_:family:gatewayUnresponsive:)``): a network whose IPv6 forwards nothing is
    /// `full` at once, not at the end of IPv6's timeout.
    func start(over path: NetworkPath?, namespace: NetworkNamespace?,
               early: (@Sendable (ConnectivityResult) -> Void)? = nil,
               completion: @escaping @Sendable (ConnectivityResult) -> Void) -> ProbeHandle? {
        let interface = path?.primaryInterface
        #if os(Linux) || os(Android)
        let gateways = path.map { path in IPFamily.allCases.filter { path.gatewayUnresponsive(for: $0) } } ?? []
        return start(through: interface, ipv4: path?.supportsIPv4 ?? true, ipv6: path?.supportsIPv6 ?? true,
                     unresponsiveGateways: gateways, namespace: namespace, early: early, completion: completion)
        #elseif canImport(Network)
        // Namespaces exist only on Linux; the interface is chosen by its type.
        let probe = NWConnectionProbe(check: self, interfaceType: interface?.type, completion: completion)
        probe.start()
        return ProbeHandle(probe: probe)
        #else
        completion(ConnectivityResult(connectivity: .unknown, failure: .init(.systemFailure, "the connectivity check is not available on this platform")))
        return nil
        #endif
    }

    #if os(Linux) || os(Android)
    /// Starts a check bound to `interface` (`SO_BINDTODEVICE`; `nil`: unbound) over the
    /// families `ipv4` and `ipv6` say it routes; `unresponsiveGateways`: the families whose
    /// gateway does not answer on the link, the first failing step of their failed checks.
    func start(through interface: NetworkInterface?, ipv4: Bool, ipv6: Bool, unresponsiveGateways gateways: [IPFamily],
               namespace: NetworkNamespace?, early: (@Sendable (ConnectivityResult) -> Void)? = nil,
               completion: @escaping @Sendable (ConnectivityResult) -> Void) -> ProbeHandle? {
        let routed = IPFamily.allCases.filter { $0 == .ipv4 ? ipv4 : ipv6 }
        // One family's check alone is the whole check, as it was before families (none:
        // one check that reaches nothing, as the path routes nothing).
        let families: [IPFamily?] = routed.count > 1 ? routed : [routed.first]
        guard let loops = try? families.map({ _ in try EventLoop() }) else {
            completion(ConnectivityResult(connectivity: .unknown, failure: .init(.systemFailure, "cannot create an event loop")))
            return nil
        }
        let handle = ProbeHandle(loops: loops)
        var resolved = self
        resolved.proxy = proxy.resolved
        let check = resolved
        var first: (@Sendable (IPFamily, ProbeVerdict.FamilyCheck) -> Void)?
        if let early {
            first = { @Sendable family, check in
                if let result = ProbeVerdict.early(check, family: family, gatewayUnresponsive: gateways.contains(family)) {
                    early(result)
                }
            }
        }
        let collected = FamilyChecks(expected: families.count, first: first) { checks in
            completion(ProbeVerdict.combine(ipv4: checks[.ipv4], ipv6: checks[.ipv6], gatewayUnresponsive: gateways.contains)
                       ?? checks[nil]?.result
                       ?? ConnectivityResult(connectivity: .unknown, failure: .init(.systemFailure, "no check ran")))
        }
        for (family, loop) in zip(families, loops) {
            let probe = LinuxProbe(check: check, interface: interface, ipv4: ipv4, ipv6: ipv6,
                                   family: routed.count > 1 ? family : nil,
                                   resolver: ResolverConfiguration.forNamespace(namespace), loop: loop)
            let thread = OwnThread.start(name: "netpath-probe") {
                if let namespace {
                    do {
                        let descriptor = try namespace.open()
                        defer { Syscall.close(descriptor) }
                        try namespace.enter(descriptor)
                    } catch {
                        collected.add(family, (ConnectivityResult(connectivity: .unknown, failure: .init(.systemFailure, "\(error)")), []))
                        return
                    }
                }
                collected.add(family, probe.run())
            }
            switch thread {
            case .success(let thread): thread.detach()
            case .failure(let error):
                collected.add(family, (ConnectivityResult(connectivity: .unknown, failure: .init(.systemFailure, "cannot start a thread: \(error)")), []))
            }
        }
        return handle
    }
    #endif

    /// Runs one check now over the interface named `interface`, whether or not it is the
    /// path's primary one: every socket of the check is bound to it (`SO_BINDTODEVICE`),
    /// so a host with two uplinks learns which one reaches the Internet.
    ///
    /// The families checked are those the interface routes, as the kernel tells a socket
    /// bound to it (a UDP `connect()` to the Internet, no packet sent); each is decided
    /// over its own sockets, as for the primary interface (``ConnectivityResult/ipv4``,
    /// ``ConnectivityResult/ipv6``).
    ///
    /// - Parameters:
    ///   - interface: The interface's name (`eth1`, `wwan0`).
    ///   - namespace: On Linux, the network namespace the interface is in (its DNS servers
    ///     are used); `nil`: the process's own.
    /// - Returns: The verdict, within ``timeout``.
    /// - Throws: ``NetPathError``: ``NetPathError/Code/interfaceNotFound`` when no interface
    ///   has that name, ``NetPathError/Code/interfaceNotRouted`` when it is down or routes
    ///   neither family to the Internet, the namespace's errors
    ///   (``NetPathError/Code/namespaceNotFound``, ``NetPathError/Code/permissionDenied``),
    ///   and ``NetPathError/Code/unsupported`` elsewhere than Linux.
    public func run(on interface: String, namespace: NetworkNamespace? = nil) async throws -> ConnectivityResult {
        #if os(Linux) || os(Android)
        let routes = try InterfaceRoutes.ask(interface, namespace: namespace)
        return await ConnectivityCheck.awaiting {
            start(through: routes.interface, ipv4: routes.ipv4, ipv6: routes.ipv6, unresponsiveGateways: [], namespace: namespace, completion: $0)
        }
        #else
        throw NetPathError(.unsupported, "a check over a named interface is available on Linux only")
        #endif
    }
}

#if os(Linux) || os(Android)
/// The families' checks of one run as they end, handed on together once the last has.
private final class FamilyChecks: Sendable {
    /// The checks ended, and how many have (one that had nothing to reach hands in none).
    private let state = Locked<(checks: [IPFamily?: ProbeVerdict.FamilyCheck], reported: Int)>(([:], 0))
    private let expected: Int
    /// Hears the first family's check to end while another is still running.
    private let first: (@Sendable (IPFamily, ProbeVerdict.FamilyCheck) -> Void)?
    private let done: @Sendable ([IPFamily?: ProbeVerdict.FamilyCheck]) -> Void

    init(expected: Int, first: (@Sendable (IPFamily, ProbeVerdict.FamilyCheck) -> Void)? = nil,
         done: @escaping @Sendable ([IPFamily?: ProbeVerdict.FamilyCheck]) -> Void) {
        self.expected = expected
        self.first = first
        self.done = done
    }

    func add(_ family: IPFamily?, _ check: ProbeVerdict.FamilyCheck?) {
        let (all, reported) = state.withLock { state -> ([IPFamily?: ProbeVerdict.FamilyCheck]?, Int) in
            state.checks[family] = check
            state.reported += 1
            return (state.reported == expected ? state.checks : nil, state.reported)
        }
        if let all { return done(all) }
        if reported == 1, let first, let family, let check { first(family, check) }
    }
}
#endif

extension NetworkPath {
    /// Whether one of `family`'s gateways does not answer on the link (its neighbor entry
    /// `FAILED`, ``unresponsiveGateways``): a failed check of that family then names the
    /// gateway as its first failing step.
    package func gatewayUnresponsive(for family: IPFamily) -> Bool {
        unresponsiveGateways.contains { IPAddress($0)?.family == (family == .ipv4 ? IPAddress.inet : IPAddress.inet6) }
    }
}

extension ConnectivityCheck.Proxy {
    /// The proxies the process's environment names (``environment``), read once: a process
    /// changes its environment only before its threads start, if at all.
    static let processEnvironment: ConnectivityCheck.Proxy = {
        let names = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY"]
        var variables: [String: String] = [:]
        #if os(Linux) || os(Android)
        for name in names { variables[name] = Syscall.environment(name) }
        #endif
        return ConnectivityCheck.Proxy(environment: variables)
    }()

    /// This setting with ``environment`` replaced by the proxies the environment names.
    var resolved: ConnectivityCheck.Proxy {
        source == .environment ? .processEnvironment : self
    }
}
