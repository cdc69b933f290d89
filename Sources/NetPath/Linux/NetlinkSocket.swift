#if os(Linux) || os(Android)

/// A `NETLINK_ROUTE` socket subscribed to the monitor's groups, with the question sockets
/// beside it (one of which serves the wireless ioctl), all made in the monitored namespace
/// (SPEC §2.10), and the receive buffers of its batched reads. A monitor holds 4
/// descriptors: this socket, the two question sockets and the IPsec policy socket (and,
/// while its path has a gateway, a fifth: the ``NeighborWatcher``'s).
///
/// `@unchecked Sendable` without a lock: it is used by one thread at a time (made on the
/// namespace thread and handed over by its join, then the opening thread, then the
/// reader's).
final class NetlinkSocket: @unchecked Sendable {
    let descriptor: FileDescriptor
    /// A datagram socket in the same namespace for the wireless ioctl: a question socket.
    var ioctlDescriptor: FileDescriptor? { questions.anyDescriptor }
    /// The UDP sockets that ask the kernel a socket's question, made in the same namespace.
    let questions: QuestionSockets
    /// A `NETLINK_XFRM` socket subscribed to IPsec policy changes (`XFRMNLGRP_POLICY`),
    /// which no rtnetlink message announces; -1 without `CAP_NET_ADMIN`, which the
    /// subscription needs (policy changes are then seen with the next other change).
    let policyDescriptor: FileDescriptor?
    /// The port id the kernel gave the socket: answers to our requests carry it.
    let port: UInt32

    static let slotSize = 32 * 1024
    static let slotCount = 8
    /// The batch's slots: mapped memory of their own (pages the kernel never filled cost
    /// nothing, and all of it goes back at close), malloc's if mapping failed.
    private let buffer: UnsafeMutableRawBufferPointer
    private let bufferIsMapped: Bool
    /// Per-slot lengths and flags of the last batch (allocated once: the reader receives
    /// on every wake-up).
    private let lengths: UnsafeMutableBufferPointer<UInt32>
    private let flags: UnsafeMutableBufferPointer<Int32>
    /// The receive timeout in force (`SO_RCVTIMEO`); zero waits for ever.
    private var receiveTimeout: Duration = .zero

    private init(descriptor: FileDescriptor, questions: QuestionSockets, policyDescriptor: FileDescriptor?) {
        self.descriptor = descriptor
        self.questions = questions
        self.policyDescriptor = policyDescriptor
        port = (try? Syscall.netlinkPort(descriptor).get()) ?? 0
        let size = NetlinkSocket.slotSize * NetlinkSocket.slotCount
        if let mapped = Syscall.mapMemory(size) {
            (buffer, bufferIsMapped) = (mapped, true)
        } else {
            (buffer, bufferIsMapped) = (.allocate(byteCount: size, alignment: 16), false)
        }
        lengths = .allocate(capacity: NetlinkSocket.slotCount)
        lengths.initialize(repeating: 0)
        flags = .allocate(capacity: NetlinkSocket.slotCount)
        flags.initialize(repeating: 0)
    }

    deinit {
        if bufferIsMapped { Syscall.unmapMemory(buffer) } else { buffer.deallocate() }
        lengths.deallocate()
        flags.deallocate()
    }

    func close() {
        Syscall.close(descriptor)
        if let policyDescriptor { Syscall.close(policyDescriptor) }
        questions.close()
    }

    /// The bit of `XFRMNLGRP_POLICY` (4).
    static let xfrmPolicyGroup: UInt32 = 1 << (4 - 1)

    /// Empties the IPsec policy socket. Returns whether anything was queued (a policy
    /// changed, or so many did that the queue overflowed).
    func drainPolicies() -> Bool {
        guard let policyDescriptor else { return false }
        var changed = false
        var scratch = [UInt8](repeating: 0, count: 8192)
        while true {
            let result = scratch.withUnsafeMutableBytes { Syscall.receive(policyDescriptor, into: $0, flags: .dontWait) }
            switch result {
            case .success(let count) where count > 0: changed = true
            case .failure(.noBufferSpace): changed = true
            default: return changed
            }
        }
    }

    /// Opens the policy socket, on the thread in the namespace; `nil` when it cannot be.
    private static func openPolicySocket() -> FileDescriptor? {
        guard case .success(let fd) = Syscall.socket(.netlink, .raw, .netlinkXFRM) else { return nil }
        guard case .success = Syscall.bind(fd, netlinkGroups: xfrmPolicyGroup) else {
            Syscall.close(fd)
            return nil
        }
        return fd
    }

    // MARK: - Opening

    /// Opens the sockets in `namespace` (on a short-lived thread of our own), or in the
    /// caller's namespace.
    ///
    /// - Throws: ``NetPathError`` naming the namespace, or the failed call.
    /// - Parameter watchesPolicies: Also subscribe to IPsec policy changes (a monitor that
    ///   keeps running; a one-shot read needs no subscription).
    static func open(in namespace: NetworkNamespace?, receiveBufferSize: Int32, watchesPolicies: Bool) throws -> NetlinkSocket {
        guard let namespace else { return try create(receiveBufferSize: receiveBufferSize, watchesPolicies: watchesPolicies) }
        return try namespace.runInside(threadName: "netpath-netns") {
            try create(receiveBufferSize: receiveBufferSize, watchesPolicies: watchesPolicies)
        }
    }

    private static func create(receiveBufferSize: Int32, watchesPolicies: Bool) throws -> NetlinkSocket {
        // A blocking socket: the first dump waits in recvmmsg itself (bounded by the receive
        // timeout); every read on the reader's loop passes MSG_DONTWAIT.
        let netlink: FileDescriptor
        switch Syscall.socket(.netlink, .raw, .netlinkRoute) {
        case .success(let fd): netlink = fd
        case .failure(let error):
            throw NetPathError(error == .permissionDenied || error == .notPermitted ? .permissionDenied : .netlinkFailure,
                               "cannot open a NETLINK_ROUTE socket", error)
        }
        // SO_RCVBUFFORCE passes rmem_max when privileged; otherwise SO_RCVBUF (capped) does.
        if case .failure = Syscall.setOption(netlink, .receiveBufferForce, receiveBufferSize) {
            _ = Syscall.setOption(netlink, .receiveBuffer, receiveBufferSize)
        }
        if case .failure(let error) = Syscall.bind(netlink, netlinkGroups: Netlink.Group.monitor) {
            Syscall.close(netlink)
            throw NetPathError(.netlinkFailure, "cannot bind the NETLINK_ROUTE socket", error)
        }
        return NetlinkSocket(descriptor: netlink, questions: QuestionSockets(),
                             policyDescriptor: watchesPolicies ? openPolicySocket() : nil)
    }

    // MARK: - Sending and receiving

    /// Sends one datagram of requests to the kernel.
    ///
    /// - Throws: ``NetPathError`` with the errno of `sendto`.
    func send(_ bytes: [UInt8]) throws {
        if case .failure(let error) = Syscall.sendToKernel(descriptor, bytes) {
            throw NetPathError(.netlinkFailure, "cannot send a netlink request", error)
        }
    }

    /// What one batched read gave.
    enum Received {
        /// Datagrams are in the slots: call ``forEachDatagram(count:_:)``.
        case datagrams(Int)
        /// Nothing queued (or the receive timeout passed).
        case empty
        /// The kernel dropped events (`ENOBUFS`): the state may be stale.
        case overrun
    }

    /// Reads up to ``slotCount`` datagrams; with `blocking`, waits for the first (at most
    /// the receive timeout).
    ///
    /// - Throws: ``NetPathError`` for a failure other than an empty queue or an overrun.
    func receive(blocking: Bool) throws -> Received {
        let received = Syscall.receiveBatch(descriptor, into: buffer.baseAddress, slotSize: NetlinkSocket.slotSize,
                                            count: NetlinkSocket.slotCount, lengths: lengths.baseAddress,
                                            flags: flags.baseAddress, blocking: blocking)
        switch received {
        case .success(let count): return count == 0 ? .empty : .datagrams(Int(count))
        case .failure(.wouldBlock): return .empty
        case .failure(.noBufferSpace): return .overrun
        case .failure(let error): throw NetPathError(.netlinkFailure, "reading the netlink socket failed", error)
        }
    }

    /// Calls `body` with each datagram of the last batch that came whole from the kernel;
    /// `truncated` is called for a datagram larger than its slot (its tail is lost).
    func forEachDatagram(count: Int, truncated: () throws -> Void, _ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        for slot in 0..<count {
            let slotFlags = MessageFlags(rawValue: flags[slot])
            if slotFlags.contains(.notFromKernel) { continue }
            if slotFlags.contains(.truncated) {
                try truncated()
                continue
            }
            let start = slot * NetlinkSocket.slotSize
            let length = Int(min(lengths[slot], UInt32(NetlinkSocket.slotSize)))
            try body(UnsafeRawBufferPointer(rebasing: buffer[start..<(start + length)]))
        }
    }

    /// Bounds the next blocking receives to `timeout` (zero: wait for ever), the moment
    /// a route the answer depends on expires. A system call only when it changes.
    func setReceiveTimeout(_ timeout: Duration) {
        guard timeout != receiveTimeout else { return }
        receiveTimeout = timeout
        Syscall.setReceiveTimeout(descriptor, timeout)
    }
}

/// Two UDP sockets, IPv4 and IPv6, made in the monitored namespace, that ask the kernel
/// what an app's socket would get (SPEC §2.1): `connect()` to the family's Internet
/// destination (no packet is sent), then `getsockname` for the source it picked. A question
/// asks on a disconnected socket (a connected one keeps its source), bound to the question's
/// interface, or to none. The reader disconnects the sockets when its turn has delivered
/// (``disconnect()``), so that a turn's first question does not wait for it; a socket still
/// connected (a second question in a turn) is disconnected (`connect` to `AF_UNSPEC`) first.
///
/// Used by one thread at a time, like the ``NetlinkSocket`` that holds it.
final class QuestionSockets {
    private var ipv4: FileDescriptor?
    private var ipv6: FileDescriptor?
    /// The interface each socket is bound to now (0: none).
    private var bound: [FileDescriptor: Int32] = [:]
    /// Whether each socket is connected now (its last question connected it).
    private var connected = (ipv4: false, ipv6: false)

    /// Made on the thread that is in the namespace.
    init() {
        // nil: IPv6 disabled, or no memory; that family's question is refused.
        func make(_ domain: SocketDomain) -> FileDescriptor? { try? Syscall.socket(domain, .datagram).get() }
        ipv4 = make(.ipv4)
        ipv6 = make(.ipv6)
    }

    /// One of the sockets, for an ioctl that any socket of the namespace answers (the
    /// wireless one): a question's connect or bind does not change its answer.
    var anyDescriptor: FileDescriptor? { ipv4 ?? ipv6 }

    func close() {
        for case let descriptor? in [ipv4, ipv6] { Syscall.close(descriptor) }
        ipv4 = nil
        ipv6 = nil
    }

    /// Disconnects the sockets that a question connected, so that the next asks on a
    /// disconnected socket without a call first. After a turn's line, off its way.
    func disconnect() {
        if connected.ipv4, let ipv4 { Syscall.disconnect(ipv4) }
        if connected.ipv6, let ipv6 { Syscall.disconnect(ipv6) }
        connected = (false, false)
    }

    /// Asks the kernel as a socket connecting to the Internet would.
    func ask(_ lookup: RouteLookup) -> SocketVerdict {
        let isIPv4 = lookup.family == IPAddress.inet
        guard let descriptor = isIPv4 ? ipv4 : ipv6 else { return .refused(errno: .familyNotSupported) }
        if isIPv4 ? connected.ipv4 : connected.ipv6 { Syscall.disconnect(descriptor) }
        // Until it is known connected again (a connect that fails leaves it disconnected).
        if isIPv4 { connected.ipv4 = false } else { connected.ipv6 = false }
        let index = lookup.interfaceIndex ?? 0
        if bound[descriptor, default: 0] != index {
            switch Syscall.setOption(descriptor, .bindToInterfaceIndex, index) {
            case .success: bound[descriptor] = index
            case .failure(let error): return .refused(errno: LinuxErrno(error))
            }
        }
        let destination = SocketAddress(Netlink.internetDestination(family: lookup.family), port: Netlink.questionPort)
        if case .failure(let error) = Syscall.connect(descriptor, to: destination) { return .refused(errno: LinuxErrno(error)) }
        if isIPv4 { connected.ipv4 = true } else { connected.ipv6 = true }
        let source: IPAddress?
        switch Syscall.localAddress(descriptor) {
        case .success(let local): source = local.address
        case .failure(let error): return .refused(errno: LinuxErrno(error))
        }
        return .connected(source: source ?? IPAddress(family: lookup.family, high: 0, low: 0))
    }
}

extension NetworkNamespace {
    /// Opens the namespace file (read-only, close-on-exec).
    ///
    /// - Throws: ``NetPathError``: `permissionDenied`, or `namespaceNotFound`.
    func open() throws -> FileDescriptor {
        guard hasValidName else {
            throw NetPathError(.namespaceNotFound, "invalid network namespace name '\(name ?? "")'")
        }
        switch Syscall.open(path, .readOnly) {
        case .success(let fd):
            return fd
        case .failure(let error) where error == .permissionDenied || error == .notPermitted:
            throw NetPathError(.permissionDenied, "cannot open \(self)", error)
        case .failure(let error):
            throw NetPathError(.namespaceNotFound, "\(self) does not exist", error)
        }
    }

    /// Switches the calling thread into the namespace behind `descriptor` (from ``open()``).
    /// Only ever on a thread of our own: `setns` changes the calling thread alone.
    ///
    /// - Throws: ``NetPathError``: `permissionDenied` (needs `CAP_SYS_ADMIN`), or
    ///   `namespaceNotFound` when the file is not a network namespace.
    func enter(_ descriptor: FileDescriptor) throws {
        if case .failure(let error) = Syscall.enterNetworkNamespace(descriptor) {
            if error == .notPermitted {
                throw NetPathError(.permissionDenied, "no permission to enter \(self) (needs CAP_SYS_ADMIN)", error)
            }
            throw NetPathError(.namespaceNotFound, "\(self) is not a network namespace", error)
        }
    }

    /// Runs `body` on a short-lived thread of our own that entered this namespace (SPEC
    /// §2.10). Sockets made there stay in it.
    ///
    /// - Throws: ``NetPathError`` when the namespace cannot be opened or entered, or what
    ///   `body` throws.
    func runInside<T: Sendable>(threadName: String, _ body: @escaping @Sendable () throws -> T) throws -> T {
        let descriptor = try open()
        defer { Syscall.close(descriptor) }
        let namespace = self
        let outcome = OwnThread.run(name: threadName) { () -> Result<T, NetPathError> in
            Result {
                try namespace.enter(descriptor)
                return try body()
            }.mapError { $0 as? NetPathError ?? NetPathError(.netlinkFailure, "\($0)") }
        }
        guard let outcome else {
            throw NetPathError(.threadFailure, "cannot start a thread to enter \(self)")
        }
        return try outcome.get()
    }
}
#endif
