/// A check in flight; ``cancel()`` ends it at its loop's next turn. It owns the check's
/// event loop, closed when both the caller and the check's thread have let go of it (so a
/// late `cancel` can never write to a reused descriptor).
final class ProbeHandle: Sendable {
    #if os(Linux) || os(Android)
    let loop: EventLoop
    init(loop: EventLoop) { self.loop = loop }
    #endif

    #if !(os(Linux) || os(Android)) && canImport(Network)
    private let probe: NWConnectionProbe
    init(probe: NWConnectionProbe) { self.probe = probe }
    #endif

    func cancel() {
        #if os(Linux) || os(Android)
        loop.stop()
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
        let box = ResultBox()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ConnectivityResult, Never>) in
                let handle = start(over: path, namespace: namespace) { continuation.resume(returning: $0) }
                box.handle.withLock { $0 = handle }
            }
        } onCancel: {
            box.handle.withLock { $0 }?.cancel()
        }
    }

    private final class ResultBox: Sendable {
        let handle = Locked<ProbeHandle?>(nil)
    }

    /// Starts a check on a thread of its own (which enters `namespace`); `completion` is
    /// called on that thread, exactly once. It goes through the path's primary interface;
    /// on an IPv6-only path it looks for the NAT64 prefix.
    func start(over path: NetworkPath?, namespace: NetworkNamespace?,
               completion: @escaping @Sendable (ConnectivityResult) -> Void) -> ProbeHandle? {
        let interface = path?.primaryInterface
        #if os(Linux) || os(Android)
        guard let loop = try? EventLoop() else {
            completion(ConnectivityResult(connectivity: .unknown, failure: .init(.systemFailure, "cannot create an event loop")))
            return nil
        }
        let handle = ProbeHandle(loop: loop)
        var resolved = self
        resolved.proxy = proxy.resolved
        let check = resolved
        let thread = OwnThread.start(name: "netpath-probe") {
            if let namespace {
                do {
                    let descriptor = try namespace.open()
                    defer { Syscall.close(descriptor) }
                    try namespace.enter(descriptor)
                } catch {
                    completion(ConnectivityResult(connectivity: .unknown, failure: .init(.systemFailure, "\(error)")))
                    return
                }
            }
            let probe = LinuxProbe(check: check, interface: interface,
                                   ipv4: path?.supportsIPv4 ?? true, ipv6: path?.supportsIPv6 ?? true,
                                   resolver: ResolverConfiguration.forNamespace(namespace), loop: handle.loop)
            completion(probe.run())
        }
        guard let thread else {
            completion(ConnectivityResult(connectivity: .unknown, failure: .init(.systemFailure, "cannot start a thread")))
            return nil
        }
        thread.detach()
        return handle
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
