#if os(Linux) || os(Android)

/// The default gateways' neighbor entries, watched on the reader's loop (SPEC §3, "Per
/// network"): a second `NETLINK_ROUTE` socket subscribed to `RTNLGRP_NEIGH` alone, with a
/// socket filter (``NeighborFilter``) that lets through only the gateways' messages, so no
/// other neighbor's change wakes the monitor. There is no socket until the first gateway
/// appears; it is made then, in the monitored namespace, and kept while the source runs. A
/// default route that goes leaves the filter as it was (the old gateway's messages keep its
/// entry current upstream, ``GatewayNeighbors/followed``), so a route that comes and goes (a
/// flapping uplink) costs neither a socket, which in another namespace takes a thread of its
/// own to make, nor a filter, which the kernel compiles each time, nor a request for the
/// entry (BENCHMARKS.md, "Latency").
///
/// For a one-shot read the socket only asks: no group, no filter (``init(namespace:follows:)``).
///
/// `@unchecked Sendable` without a lock: used by one thread at a time, as the
/// ``LinuxPathSource`` that holds it (the opening thread, then the reader's).
final class NeighborWatcher: @unchecked Sendable {
    private let namespace: NetworkNamespace?
    /// Whether the socket follows changes (a running monitor) or only asks (one read).
    private let follows: Bool
    private var descriptor: FileDescriptor?
    /// The gateways last asked for: those the attached filter lets through, when following.
    private var watched: [GatewayHop] = []
    /// The loop the source joined, and what a readable socket does there.
    private var joined: (loop: EventLoop, readable: () -> Void)?
    private var registration: EventLoop.Registration?
    private var sequence: UInt32 = 1
    /// Whether the queue overflowed since the entries were last read in full.
    private(set) var overrun = false

    /// - Parameter follows: Subscribe to neighbor changes, filtered to the gateways'; `false`
    ///   for a one-shot read, whose socket only receives the answers to its requests.
    init(namespace: NetworkNamespace?, follows: Bool = true) {
        self.namespace = namespace
        self.follows = follows
    }

    /// Whether a socket is open (a gateway was watched since the source started).
    var isOpen: Bool { descriptor != nil }

    /// On the reader's thread: registers the socket (now, and when it is made later).
    func join(_ loop: EventLoop, readable: @escaping () -> Void) {
        joined = (loop, readable)
        register()
    }

    private func register() {
        guard let joined, let descriptor, registration == nil else { return }
        registration = joined.loop.register(descriptor, for: .readable) { _ in joined.readable() }
    }

    /// Watches `gateways` only: re-attaches the filter if they changed, then asks for the
    /// current entry of each (a change that lands in between is queued after the answer).
    /// None leaves the socket and its filter as they are. The answers are left queued for
    /// ``read(_:)``.
    ///
    /// - Returns: Whether the request went out on a socket that follows `gateways` (not: no
    ///   socket could be made, its filter failed, or the kernel refused the request).
    func watch(_ gateways: [GatewayHop]) -> Bool {
        guard !gateways.isEmpty else { return true }
        if descriptor == nil { descriptor = open() }
        guard let descriptor else { return false }
        register()
        if gateways != watched && follows {
            if case .failure = Syscall.attachFilter(descriptor, NeighborFilter.program(for: gateways)) {
                // Without the filter, every neighbor's change would wake the monitor.
                close()
                return false
            }
        }
        watched = gateways
        overrun = false
        defer { sequence &+= UInt32(gateways.count) }
        if case .failure = Syscall.sendToKernel(descriptor, NetlinkRequest.encodeNeighborGet(gateways, firstSequence: sequence)) {
            return false
        }
        return true
    }

    /// Opens and subscribes the socket, in the namespace; `nil` when it cannot be (the
    /// namespace is gone, or no memory): the path then shows no neighbor facts.
    private func open() -> FileDescriptor? {
        let follows = follows
        let make: @Sendable () throws -> FileDescriptor = {
            let fd = try Syscall.socket(.netlink, .raw, .netlinkRoute).get()
            guard follows else { return fd }
            // Nothing passes until the first filter: a filter that drops everything, first.
            guard case .success = Syscall.attachFilter(fd, NeighborFilter.program(for: [])),
                  case .success = Syscall.bind(fd, netlinkGroups: Netlink.Neighbor.group) else {
                Syscall.close(fd)
                throw NetPathError(.netlinkFailure, "cannot subscribe to neighbor changes")
            }
            return fd
        }
        watched = []
        guard let namespace else { return try? make() }
        return try? namespace.runInside(threadName: "netpath-netns", make)
    }

    /// Reads everything queued, handing each message to `body`.
    ///
    /// - Returns: `false` when the kernel dropped messages (`ENOBUFS`): the entries must
    ///   be read again (``watch(_:)`` with the same gateways).
    func read(_ body: (NetlinkEnvelope) -> Void) -> Bool {
        guard let descriptor else { return true }
        // Not zeroed: the kernel writes what is read.
        var scratch = [UInt8](unsafeUninitializedCapacity: 8192) { _, count in count = 8192 }
        while true {
            let result = scratch.withUnsafeMutableBytes { Syscall.receive(descriptor, into: $0, flags: .dontWait) }
            switch result {
            case .success(let count) where count > 0:
                scratch.withUnsafeBytes { NetlinkParser.parse(UnsafeRawBufferPointer(rebasing: $0[0..<count]), body) }
            case .failure(.noBufferSpace):
                overrun = true
            default:
                return !overrun
            }
        }
    }

    /// Closes the socket (the source ends, or its namespace is gone).
    func close() {
        if let registration, let joined { joined.loop.deregister(registration) }
        registration = nil
        if let descriptor { Syscall.close(descriptor) }
        descriptor = nil
        watched = []
    }

    /// The source left its loop: closes the socket and forgets the loop.
    func leave() {
        close()
        joined = nil
    }
}
#endif
