#if os(Linux) || os(Android)
import CNetlink
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Settings of the Linux backend that tests change.
struct LinuxSourceOptions: Sendable {
    /// `SO_RCVBUF` of the netlink socket. Large by default, so that only a stalled reader
    /// overruns; tests make it small to provoke `ENOBUFS`.
    var receiveBufferSize: Int32 = 4 * 1024 * 1024
    /// Called on the reader thread before each wait for the kernel; tests block in it to let
    /// the kernel's queue overflow.
    var beforeRead: (@Sendable () -> Void)?
    /// Called on the opening thread before each read of the initial dump; tests flood the
    /// kernel from it to overrun the socket in the middle of the dump.
    var beforeDumpRead: (@Sendable () -> Void)?
    /// Resolver files to use instead of the system's (tests).
    var resolver: ResolverConfiguration?
    /// The reader thread's name (at most 15 bytes show); tests give theirs a unique one to
    /// count them.
    var threadName = "netpath-monitor"
    /// Watch the resolver files with inotify; off for a one-shot read (closing an inotify
    /// instance with watches costs the process about 10 ms at exit).
    var watchesResolverFiles = true
}

/// One running Linux monitor: a netlink socket, an inotify watch of the resolver files, a
/// reader thread of its own that blocks in `recvmmsg` on the socket, and a resolver-watch
/// thread that blocks in `poll` on the inotify descriptor and an eventfd (its stop signal)
/// — idle, neither wakes.
///
/// Lifecycle: ``open(namespace:filter:options:deliver:)`` makes the sockets (inside the
/// namespace, on a short-lived thread), dumps the tables synchronously and computes the
/// first path; ``startReading()`` starts both threads; ``stop()`` wakes the reader with a
/// request the kernel answers on the socket, and the reader ends the watcher and closes
/// every descriptor as it ends.
final class LinuxPathSource: @unchecked Sendable {
    // Until `startReading`, only the opening thread touches the engine, buffer and
    // `lastPath`; afterwards only the reader thread does. `control` guards the rest.
    private let netlinkFD: Int32
    private let ioctlFD: Int32
    private let inotifyFD: Int32
    private let wakeFD: Int32
    private var engine: NetlinkEngine
    private let filter: InterfaceFilter
    private let resolver: ResolverConfiguration
    private let options: LinuxSourceOptions
    private let deliver: @Sendable (NetworkPath) -> Void
    private let terminate: @Sendable (NetPathError) -> Void
    private let namespace: NetworkNamespace?
    private let buffer: UnsafeMutableRawBufferPointer
    /// Per-slot lengths and flags of the last batch (allocated once: `drainNetlink` runs on
    /// every wake-up).
    private let lengths: UnsafeMutableBufferPointer<UInt32>
    private let flags: UnsafeMutableBufferPointer<Int32>
    private var lastPath: NetworkPath
    private let control = Locked<(thread: pthread_t?, stopped: Bool)>((nil, false))
    /// Set by the resolver-watch thread when a watched directory changed; taken by the reader.
    private let resolverChanged = Locked(false)
    /// File names whose changes matter in the watched directories (resolver files, the
    /// namespace's name); set by `open` before any thread starts, read-only afterwards.
    private var watchedNames: Set<String> = []
    /// The sequence number of wake-up requests (``wakeReader()``); the engine never uses it.
    static let wakeSequence = UInt32.max

    static let slotSize = 32 * 1024
    static let slotCount = 8
    /// `RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_IFADDR | RTMGRP_IPV6_ROUTE`
    static let groups: UInt32 = 0x1 | 0x10 | 0x40 | 0x100 | 0x400

    /// The first path, computed by `open` before the reader thread exists.
    private(set) var initialPath: NetworkPath?

    private init(
        sockets: (netlink: Int32, ioctl: Int32), inotifyFD: Int32, wakeFD: Int32, foreign: Bool,
        filter: InterfaceFilter, resolver: ResolverConfiguration, options: LinuxSourceOptions,
        namespace: NetworkNamespace?,
        deliver: @escaping @Sendable (NetworkPath) -> Void, terminate: @escaping @Sendable (NetPathError) -> Void
    ) {
        netlinkFD = sockets.netlink
        ioctlFD = sockets.ioctl
        self.inotifyFD = inotifyFD
        self.wakeFD = wakeFD
        self.filter = filter
        self.resolver = resolver
        self.options = options
        self.deliver = deliver
        self.terminate = terminate
        self.namespace = namespace
        buffer = .allocate(byteCount: LinuxPathSource.slotSize * LinuxPathSource.slotCount, alignment: 16)
        lengths = .allocate(capacity: LinuxPathSource.slotCount)
        lengths.initialize(repeating: 0)
        flags = .allocate(capacity: LinuxPathSource.slotCount)
        flags.initialize(repeating: 0)
        lastPath = NetworkPath(status: .unsatisfied)
        let ioctlSocket = sockets.ioctl
        engine = NetlinkEngine { link in
            LinuxPathSource.classify(link, ioctlSocket: ioctlSocket, foreign: foreign)
        }
    }

    deinit {
        buffer.deallocate()
        lengths.deallocate()
        flags.deallocate()
    }

    // MARK: - Opening

    /// Opens the sockets (in `namespace` when given), dumps the kernel tables and computes
    /// the first path.
    ///
    /// - Throws: ``NetPathError`` naming the namespace, or the failed netlink call.
    static func open(
        namespace: NetworkNamespace?, filter: InterfaceFilter, options: LinuxSourceOptions,
        deliver: @escaping @Sendable (NetworkPath) -> Void,
        terminate: @escaping @Sendable (NetPathError) -> Void = { _ in }
    ) throws -> LinuxPathSource {
        let sockets = try makeSockets(in: namespace, receiveBufferSize: options.receiveBufferSize)
        let inotifyFD = options.watchesResolverFiles ? inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) : -1
        let wakeFD = cnetlink_eventfd()
        guard inotifyFD >= 0 || !options.watchesResolverFiles, wakeFD >= 0 else {
            let code = errno
            for fd in [sockets.netlink, sockets.ioctl, inotifyFD, wakeFD] where fd >= 0 { Syscall.close(fd) }
            throw NetPathError(.netlinkFailure, "cannot create the monitor's event descriptors", errno: code)
        }
        let resolver = options.resolver ?? ResolverConfiguration.forNamespace(namespace)
        let source = LinuxPathSource(
            sockets: sockets, inotifyFD: inotifyFD, wakeFD: wakeFD, foreign: namespace != nil,
            filter: filter, resolver: resolver, options: options, namespace: namespace, deliver: deliver, terminate: terminate
        )
        do {
            if inotifyFD >= 0 { source.watchResolverFiles() }
            source.engine.setHasDNSServer(resolver.hasServer(read: { Syscall.readFile($0) }))
            try source.synchronizeNow()
            _ = source.engine.takeChanges()
            source.lastPath = source.engine.state.path(filter: filter)
            source.initialPath = source.lastPath
            return source
        } catch {
            source.closeDescriptors()
            throw error
        }
    }

    private static func makeSockets(in namespace: NetworkNamespace?, receiveBufferSize: Int32) throws -> (netlink: Int32, ioctl: Int32) {
        guard let namespace else { return try createSockets(receiveBufferSize: receiveBufferSize) }
        guard namespace.hasValidName else {
            throw NetPathError(.namespaceNotFound, "invalid network namespace name '\(namespace.name ?? "")'")
        }
        let namespaceFD = Glibc.open(namespace.path, O_RDONLY | O_CLOEXEC)
        guard namespaceFD >= 0 else {
            let code = errno
            if code == EACCES || code == EPERM {
                throw NetPathError(.permissionDenied, "cannot open \(namespace)", errno: code)
            }
            throw NetPathError(.namespaceNotFound, "\(namespace) does not exist", errno: code)
        }
        defer { Syscall.close(namespaceFD) }
        // setns changes only the calling thread: do it on a short-lived thread of our own,
        // make the sockets there, and let the thread end. The sockets stay in the namespace.
        let outcome = OwnThread.run(name: "netpath-netns") { () -> Result<(Int32, Int32), NetPathError> in
            if cnetlink_setns_net(namespaceFD) != 0 {
                let code = errno
                if code == EPERM {
                    return .failure(NetPathError(.permissionDenied, "no permission to enter \(namespace) (needs CAP_SYS_ADMIN)", errno: code))
                }
                return .failure(NetPathError(.namespaceNotFound, "\(namespace) is not a network namespace", errno: code))
            }
            return Result { try createSockets(receiveBufferSize: receiveBufferSize) }
                .mapError { $0 as? NetPathError ?? NetPathError(.netlinkFailure, "\($0)") }
        }
        guard let outcome else {
            throw NetPathError(.netlinkFailure, "cannot start a thread to enter \(namespace)", errno: errno)
        }
        return try outcome.get()
    }

    private static func createSockets(receiveBufferSize: Int32) throws -> (netlink: Int32, ioctl: Int32) {
        // A blocking socket: the reader thread waits in recvmmsg itself; every read that
        // must not wait passes MSG_DONTWAIT.
        let netlink = socket(AF_NETLINK, Int32(SOCK_RAW.rawValue) | Int32(SOCK_CLOEXEC.rawValue), NETLINK_ROUTE)
        guard netlink >= 0 else {
            let code = errno
            throw NetPathError(code == EACCES || code == EPERM ? .permissionDenied : .netlinkFailure,
                               "cannot open a NETLINK_ROUTE socket", errno: code)
        }
        var size = receiveBufferSize
        // SO_RCVBUFFORCE passes rmem_max when privileged; otherwise SO_RCVBUF (capped) does.
        if setsockopt(netlink, SOL_SOCKET, SO_RCVBUFFORCE, &size, socklen_t(MemoryLayout<Int32>.size)) != 0 {
            _ = setsockopt(netlink, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = groups
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(netlink, $0, socklen_t(MemoryLayout<sockaddr_nl>.size))
            }
        }
        guard bound == 0 else {
            let code = errno
            Syscall.close(netlink)
            throw NetPathError(.netlinkFailure, "cannot bind the NETLINK_ROUTE socket", errno: code)
        }
        let ioctlSocket = socket(AF_INET, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        return (netlink, ioctlSocket)
    }

    /// SPEC 2.7, with the facts that hold in the monitored namespace: the ioctl runs on a
    /// socket made there; sysfs shows the caller's namespace, so it is read only for our own.
    private static func classify(_ link: LinkMessage, ioctlSocket: Int32, foreign: Bool) -> NetworkInterface.InterfaceType {
        let name = link.name ?? ""
        var isWireless = false
        var deviceType: String?
        if link.hardwareType == InterfaceClassifier.ether, !name.isEmpty {
            if ioctlSocket >= 0 { isWireless = cnetlink_is_wireless(ioctlSocket, name) != 0 }
            if !foreign && !name.contains("/") && !name.hasPrefix(".") {
                let base = "/sys/class/net/" + name
                isWireless = isWireless || Syscall.exists(base + "/phy80211") || Syscall.exists(base + "/wireless")
                if let uevent = Syscall.readFile(base + "/uevent", limit: 4096) {
                    for line in uevent.split(separator: UInt8(ascii: "\n")) where line.starts(with: Array("DEVTYPE=".utf8)) {
                        deviceType = String(decoding: line.dropFirst(8), as: UTF8.self)
                    }
                }
            }
        }
        return InterfaceClassifier.classify(
            hardwareType: link.hardwareType, kind: link.kind, name: name, isWireless: isWireless, deviceType: deviceType
        )
    }

    private func watchResolverFiles() {
        var files = resolver.watchedFiles
        // /etc/resolv.conf is often a symlink into /run: watch where it points too.
        for file in resolver.candidates {
            guard let real = realpath(file, nil) else { continue }
            files.append(String(cString: real))
            free(real)
        }
        // A named namespace can be deleted (`ip netns del`): watch its directory too.
        if let namespace { files.append(namespace.path) }
        let directories = files.map(ResolverConfiguration.directory(of:))
        // Only changes to these names wake the reader: /var/run/netns and /etc see other
        // files come and go all the time (every namespace a container runtime makes).
        watchedNames = Set(files.map { String($0.split(separator: "/").last ?? "") })
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB)
        for directory in Set(directories) {
            _ = inotify_add_watch(inotifyFD, directory, mask)
        }
    }

    // MARK: - Reading

    /// Dumps the tables on the calling thread, waiting at most 10 s for the kernel.
    private func synchronizeNow() throws {
        if let request = engine.resynchronize() { try send(request) }
        while !engine.isSettled {
            var descriptor = pollfd(fd: netlinkFD, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 10_000)
            if ready == 0 {
                throw NetPathError(.netlinkFailure, "the kernel did not answer the netlink dump within 10 s")
            }
            if ready < 0 && errno != EINTR {
                throw NetPathError(.netlinkFailure, "poll on the netlink socket failed", errno: errno)
            }
            options.beforeDumpRead?()
            try drainNetlink()
        }
    }

    private func send(_ request: NetlinkEngine.Request) throws {
        let bytes = NetlinkEngine.encode(request)
        var kernel = sockaddr_nl()
        kernel.nl_family = sa_family_t(AF_NETLINK)
        let result = bytes.withUnsafeBytes { payload in
            withUnsafePointer(to: &kernel) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    Syscall.retrying {
                        sendto(netlinkFD, payload.baseAddress, payload.count, 0, address, socklen_t(MemoryLayout<sockaddr_nl>.size))
                    }
                }
            }
        }
        if case .failure(let error) = result {
            throw NetPathError(.netlinkFailure, "cannot send a netlink dump request", errno: error.rawValue)
        }
    }

    /// Reads everything queued, in batches of datagrams, applying each message. Stops at
    /// `EAGAIN`, or after a bounded number of batches so a storm cannot hide the path forever.
    ///
    /// - Parameter blocking: Wait for the first datagram (the reader thread's only wait).
    private func drainNetlink(blocking: Bool = false) throws {
        for batch in 0..<256 {
            let received = cnetlink_recv_batch(netlinkFD, buffer.baseAddress, LinuxPathSource.slotSize,
                                               UInt32(LinuxPathSource.slotCount), lengths.baseAddress, flags.baseAddress,
                                               blocking && batch == 0 ? 1 : 0)
            if received < 0 {
                let code = errno
                if code == EAGAIN || code == EWOULDBLOCK { return }
                if code == ENOBUFS {
                    // Events were lost: the state may be stale. Dump everything again.
                    if let request = engine.resynchronize() { try send(request) }
                    continue
                }
                throw NetPathError(.netlinkFailure, "reading the netlink socket failed", errno: code)
            }
            for slot in 0..<Int(received) {
                let slotFlags = flags[slot]
                if slotFlags & 0x4000_0000 != 0 { continue }  // not from the kernel
                if slotFlags & Int32(MSG_TRUNC) != 0 {
                    // A datagram larger than the slot lost its tail: resynchronise.
                    if let request = engine.resynchronize() { try send(request) }
                    continue
                }
                let start = slot * LinuxPathSource.slotSize
                let datagram = UnsafeRawBufferPointer(rebasing: buffer[start..<(start + Int(min(lengths[slot], UInt32(LinuxPathSource.slotSize))))])
                var requests: [NetlinkEngine.Request] = []
                NetlinkParser.parse(datagram) { envelope in
                    if let request = engine.handle(envelope) { requests.append(request) }
                }
                for request in requests { try send(request) }
            }
            // A batch that did not fill every slot emptied the queue: back to waiting, without
            // a read that would only say EAGAIN (an event storm is mostly single events).
            if received < LinuxPathSource.slotCount && engine.isSettled { return }
        }
    }

    /// Empties the inotify queue (the resolver-watch thread's job). Returns whether an event
    /// named a watched file (or had no name, or the queue overflowed).
    private func drainInotify() -> Bool {
        var scratch = [UInt8](repeating: 0, count: 4096)
        var relevant = false
        while true {
            let count = scratch.withUnsafeMutableBytes { read(inotifyFD, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of
            // NUL-padded name.
            var offset = 0
            while offset + 16 <= count {
                let (mask, length) = scratch.withUnsafeBytes {
                    ($0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                     Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                let end = min(offset + 16 + length, count)
                let name = scratch[(offset + 16)..<end].prefix { $0 != 0 }
                if name.isEmpty || mask & UInt32(IN_Q_OVERFLOW) != 0
                    || watchedNames.contains(String(decoding: name, as: UTF8.self)) {
                    relevant = true
                }
                offset = end
            }
        }
        return relevant
    }

    /// Makes the kernel put a datagram on the socket, which ends the reader's blocking
    /// receive. Safe from any thread.
    private func wakeReader() {
        _ = cnetlink_request_wake(netlinkFD, LinuxPathSource.wakeSequence)
    }

    /// Starts the reader thread. Paths that differ from the last are passed to `deliver`.
    func startReading() -> Bool {
        control.withLock { control in
            guard control.thread == nil, !control.stopped else { return false }
            // Both threads exist when this returns (the watcher first: the reader joins it).
            let watcher = inotifyFD >= 0
                ? OwnThread.start(name: String(options.threadName.prefix(13)) + "-r") { [self] in watchResolverLoop() }
                : nil
            control.thread = OwnThread.start(name: options.threadName) { [self] in runLoop(watcher: watcher) }
            if control.thread == nil, let watcher { end(watcher) }
            return control.thread != nil
        }
    }

    /// The reader thread: blocks in `recvmmsg` on the netlink socket itself, so an event
    /// costs one system call (no readiness wait before the read). ``stop()`` and the
    /// resolver-watch thread wake it with a request the kernel answers on the socket.
    private func runLoop(watcher: pthread_t?) {
        defer {
            if let watcher { end(watcher) }
            closeDescriptors()
        }
        while true {
            if control.withLock({ $0.stopped }) { return }
            options.beforeRead?()
            do {
                try drainNetlink(blocking: true)
            } catch {
                // A socket error other than an overrun cannot be recovered: resynchronise
                // once, as after an overrun, and carry on.
                if let request = engine.resynchronize() { try? send(request) }
            }
            if control.withLock({ $0.stopped }) { return }
            if resolverChanged.withLock({ changed in defer { changed = false }; return changed }) {
                if let namespace, !Syscall.exists(namespace.path) {
                    // Deleted: its interfaces are gone for everyone else; a defined last
                    // path, then the reason, then this thread ends.
                    let gone = NetworkPath(status: .unsatisfied, unsatisfiedReason: .notAvailable, diagnosis: .noInterface)
                    if gone != lastPath { deliver(gone) }
                    terminate(NetPathError(.namespaceNotFound, "\(namespace) was deleted"))
                    return
                }
                engine.setHasDNSServer(resolver.hasServer(read: { Syscall.readFile($0) }))
            }
            guard engine.isSettled, engine.takeChanges() else { continue }
            let path = engine.state.path(filter: filter)
            if path != lastPath {
                lastPath = path
                deliver(path)
            }
        }
    }

    /// Ends the resolver-watch thread (through `wakeFD`) and waits for it.
    private func end(_ watcher: pthread_t) {
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
        pthread_join(watcher, nil)
    }

    /// The resolver-watch thread: waits on the inotify descriptor (and on `wakeFD`, which
    /// ends it), flags a change and wakes the reader. Idle, it never wakes.
    private func watchResolverLoop() {
        var descriptors = [pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&descriptors, 2, -1)
            if ready < 0 && errno == EINTR { continue }
            if ready < 0 || descriptors[1].revents != 0 { return }
            guard descriptors[0].revents != 0, drainInotify() else { continue }
            // One wake-up outstanding at most: the reader takes the flag when it runs.
            let pending = resolverChanged.withLock { changed in defer { changed = true }; return changed }
            if !pending { wakeReader() }
        }
    }

    /// How many full re-dumps happened (overruns, interrupted dumps). Read by tests after
    /// the reader settled on a path.
    var resyncCount: Int { engine.resyncCount }

    /// Wakes the reader thread and waits for it to end (unless called on it); the thread
    /// closes the descriptors. Without a reader thread, closes them here. Safe to call
    /// more than once.
    func stop() {
        let (thread, wasStopped): (pthread_t?, Bool) = control.withLock { control in
            defer { control.stopped = true }
            return (control.thread, control.stopped)
        }
        guard !wasStopped else { return }
        guard let thread else {
            closeDescriptors()
            return
        }
        wakeReader()
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }

    private func closeDescriptors() {
        for fd in [netlinkFD, ioctlFD, inotifyFD, wakeFD] where fd >= 0 { Syscall.close(fd) }
    }
}
#endif
