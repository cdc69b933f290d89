#if os(Linux) || os(Android)
import CNetlink
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One connectivity check on Linux, on the package's own non-blocking sockets: names
/// resolved over UDP to the path's DNS servers, every endpoint and address tried at once,
/// every socket bound to the primary interface (`SO_BINDTODEVICE`), one `poll` loop, and
/// every wait bounded. Runs on the calling thread, which must be a thread of our own when
/// a namespace is given (it enters it).
struct LinuxProbe {
    let check: ConnectivityCheck
    let interface: NetworkInterface?
    let resolver: ResolverConfiguration
    /// Readable when the check must stop (an eventfd).
    let cancelFD: Int32

    private enum Phase { case resolving, connecting, reading, done }

    private final class EndpointRun {
        let endpoint: ConnectivityCheck.Endpoint
        let classifier: HTTPResponseClassifier
        var phase: Phase = .resolving
        var resolved = false
        var addresses: [IPAddress] = []
        var pendingQueries = 0
        var connecting: [Int32] = []
        var active: Int32 = -1
        var buffer: [UInt8] = []
        var verdict: HTTPResponseClassifier.Verdict?
        var error: String?
        var finishedAt: Double?

        init(_ endpoint: ConnectivityCheck.Endpoint, limit: Int) {
            self.endpoint = endpoint
            classifier = HTTPResponseClassifier(expectation: endpoint.expectation, limit: limit)
        }
    }

    private enum Role {
        case query(run: Int, id: UInt16, type: UInt16)
        case connect(run: Int, address: IPAddress)
        case read(run: Int)
    }

    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Runs the check to its verdict, the timeout, or cancellation.
    func run() -> ConnectivityResult {
        let start = LinuxProbe.now()
        let deadline = start + check.timeout
        let resolutionDeadline = start + check.resolutionTimeout
        let runs = check.endpoints.map { EndpointRun($0, limit: check.maximumResponseSize) }
        var roles: [Int32: Role] = [:]
        defer { for fd in roles.keys { Syscall.close(fd) } }
        let servers = resolver.servers(read: { Syscall.readFile($0) }).compactMap(IPAddress.init)
        var nextID = UInt16.random(in: 0...UInt16.max)

        func finish(_ index: Int, _ error: String) {
            let run = runs[index]
            guard run.phase != .done else { return }
            run.phase = .done
            run.error = run.error ?? error
            run.finishedAt = LinuxProbe.now()
            for fd in run.connecting where roles.removeValue(forKey: fd) != nil { Syscall.close(fd) }
            run.connecting.removeAll()
            if run.active >= 0, roles.removeValue(forKey: run.active) != nil { Syscall.close(run.active) }
            run.active = -1
        }

        func connect(_ index: Int, to address: IPAddress) {
            let opened = Syscall.socket(address.family == IPAddress.inet ? AF_INET : AF_INET6,
                                        Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
            guard case .success(let fd) = opened else {
                if case .failure(let error) = opened { runs[index].error = "cannot open a socket: \(error)" }
                return
            }
            bindToInterface(fd)
            let connected = withSocketAddress(address, port: runs[index].endpoint.target.port) { address, length in
                Syscall.retrying { Glibc.connect(fd, address, length) }
            }
            if case .failure(let error) = connected, error.rawValue != EINPROGRESS {
                runs[index].error = "cannot connect to \(address): \(error)"
                Syscall.close(fd)
                return
            }
            roles[fd] = .connect(run: index, address: address)
            runs[index].connecting.append(fd)
            runs[index].phase = .connecting
        }

        // Start: literal addresses connect at once; names are resolved.
        for (index, run) in runs.enumerated() {
            if let address = run.endpoint.target.address {
                run.resolved = true
                connect(index, to: address)
                if run.connecting.isEmpty { finish(index, run.error ?? "cannot connect") }
                continue
            }
            guard !servers.isEmpty else { finish(index, "no DNS server is configured"); continue }
            for server in servers.prefix(3) {
                for type in [DNSMessage.typeA, DNSMessage.typeAAAA] {
                    nextID &+= 1
                    guard let query = DNSMessage.query(id: nextID, name: run.endpoint.target.host, type: type) else { continue }
                    guard case .success(let fd) = Syscall.socket(server.family == IPAddress.inet ? AF_INET : AF_INET6,
                                                                 Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue))
                    else { continue }
                    if !server.isLoopback { bindToInterface(fd) }
                    // Connected: the kernel then only lets answers from that server through.
                    let sent = withSocketAddress(server, port: 53) { address, length in
                        Glibc.connect(fd, address, length) == 0
                            ? query.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) } : -1
                    }
                    guard sent == query.count else { Syscall.close(fd); continue }
                    roles[fd] = .query(run: index, id: nextID, type: type)
                    run.pendingQueries += 1
                }
            }
            if run.pendingQueries == 0 { finish(index, "the DNS servers cannot be reached") }
        }

        var cancelled = false
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !cancelled && runs.contains(where: { $0.phase != .done }) && !runs.contains(where: { if case .pass = $0.verdict { true } else { false } }) {
            let now = LinuxProbe.now()
            if now >= deadline { break }
            if now >= resolutionDeadline {
                var closed = false
                for (fd, role) in roles {
                    guard case .query(let index, _, _) = role else { continue }
                    roles[fd] = nil
                    Syscall.close(fd)
                    closed = true
                    runs[index].pendingQueries -= 1
                    if runs[index].pendingQueries == 0 && runs[index].addresses.isEmpty {
                        finish(index, "name resolution timed out")
                    }
                }
                // The runs just finished may have been the last: look again before waiting
                // (otherwise the loop waits on the cancel descriptor alone until `deadline`).
                if closed { continue }
            }
            var descriptors = [pollfd(fd: cancelFD, events: Int16(POLLIN), revents: 0)]
            var order: [Int32] = []
            for (fd, role) in roles {
                let events: Int16
                if case .connect = role { events = Int16(POLLOUT) } else { events = Int16(POLLIN) }
                descriptors.append(pollfd(fd: fd, events: events, revents: 0))
                order.append(fd)
            }
            let wake = min(deadline, roles.values.contains { if case .query = $0 { true } else { false } } ? resolutionDeadline : deadline)
            guard case .success(let ready) = Syscall.poll(&descriptors, milliseconds: Int32(max(0, (wake - now) * 1000).rounded(.up)))
            else { break }
            if ready == 0 { continue }
            if descriptors[0].revents != 0 { cancelled = true; break }
            for (slot, fd) in order.enumerated() where descriptors[slot + 1].revents != 0 {
                guard let role = roles[fd] else { continue }
                switch role {
                case .query(let index, let id, let type):
                    let received = buffer.withUnsafeMutableBytes { Syscall.receive(fd, into: $0) }
                    if case .failure(let error) = received, error.rawValue == EAGAIN { continue }
                    // The errno, taken at the call: the closes below would overwrite it.
                    let count: Int, failure: Errno?
                    switch received {
                    case .success(let read): (count, failure) = (read, nil)
                    case .failure(let error): (count, failure) = (-1, error)
                    }
                    let answer = count > 0 ? DNSMessage.parse(Array(buffer[0..<count]), id: id, type: type) : .invalid
                    if answer == .invalid && count > 0 { continue }  // not our answer: keep waiting
                    roles[fd] = nil
                    Syscall.close(fd)
                    let run = runs[index]
                    run.pendingQueries -= 1
                    guard run.phase != .done else { continue }
                    if case .addresses(let found) = answer {
                        run.resolved = true
                        for address in found where !run.addresses.contains(address) {
                            run.addresses.append(address)
                            if run.active < 0 { connect(index, to: address) }
                        }
                    }
                    if run.pendingQueries == 0 && run.addresses.isEmpty {
                        finish(index, failure.map { "the DNS server did not answer: \($0)" } ?? "the name '\(run.endpoint.target.host)' did not resolve")
                    } else if run.pendingQueries == 0 && run.connecting.isEmpty && run.active < 0 {
                        finish(index, run.error ?? "cannot connect")
                    }
                case .connect(let index, let address):
                    let run = runs[index]
                    var code: Int32 = 0
                    var length = socklen_t(MemoryLayout<Int32>.size)
                    getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
                    run.connecting.removeAll { $0 == fd }
                    if code != 0 || run.active >= 0 {
                        if code != 0 { run.error = "cannot connect to \(address) port \(run.endpoint.target.port): \(Errno(code))" }
                        roles[fd] = nil
                        Syscall.close(fd)
                        if run.connecting.isEmpty && run.active < 0 && run.pendingQueries == 0 { finish(index, run.error ?? "cannot connect") }
                        continue
                    }
                    // The first connection wins; the others for this endpoint are dropped.
                    for other in run.connecting where roles.removeValue(forKey: other) != nil { Syscall.close(other) }
                    run.connecting.removeAll()
                    let request = run.endpoint.target.request
                    let sent = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    guard sent == request.count else {
                        roles[fd] = nil
                        Syscall.close(fd)
                        finish(index, "cannot send the request to \(address)")
                        continue
                    }
                    run.active = fd
                    run.phase = .reading
                    roles[fd] = .read(run: index)
                case .read(let index):
                    let run = runs[index]
                    let room = min(buffer.count, check.maximumResponseSize - run.buffer.count)
                    let received: Result<Int, Errno> = room > 0
                        ? buffer.withUnsafeMutableBytes { Syscall.receive(fd, into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<room])) }
                        : .success(0)
                    if case .failure(let error) = received, error.rawValue == EAGAIN { continue }
                    let count: Int, failure: Errno?
                    switch received {
                    case .success(let read): (count, failure) = (read, nil)
                    case .failure(let error): (count, failure) = (-1, error)
                    }
                    if count > 0 { run.buffer.append(contentsOf: buffer[0..<count]) }
                    let finished = count <= 0 || run.buffer.count >= check.maximumResponseSize
                    let verdict = run.classifier.verdict(run.buffer, finished: finished)
                    if verdict != .needMore {
                        run.verdict = verdict
                        if case .malformed(let reason) = verdict { run.error = reason }
                        finish(index, failure.map { "reading failed: \($0)" } ?? "")
                    } else if finished {
                        finish(index, "the connection closed early")
                    }
                }
            }
        }
        for index in runs.indices where runs[index].phase != .done {
            let run = runs[index]
            finish(index, run.phase == .resolving ? "name resolution timed out"
                : run.phase == .connecting ? "no connection within \(check.timeout) s" : "no answer within \(check.timeout) s")
        }
        let elapsed = (LinuxProbe.now() - start) * 1000
        if cancelled { return ConnectivityResult(connectivity: .unknown, error: "the check was cancelled") }
        return ProbeVerdict.of(runs.map { ($0.endpoint, $0.resolved, $0.verdict, $0.error, $0.finishedAt.map { ($0 - start) * 1000 }) },
                                  elapsed: elapsed)
    }

    private func bindToInterface(_ fd: Int32) {
        guard let name = interface?.name, !name.isEmpty else { return }
        // Needs CAP_NET_RAW on older kernels; without it the socket stays unbound.
        _ = name.withCString { setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, $0, socklen_t(name.utf8.count + 1)) }
    }

    private func withSocketAddress<T>(_ address: IPAddress, port: UInt16, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        if address.family == IPAddress.inet {
            var storage = sockaddr_in()
            storage.sin_family = sa_family_t(AF_INET)
            storage.sin_port = port.bigEndian
            storage.sin_addr.s_addr = UInt32(truncatingIfNeeded: address.high >> 32).bigEndian
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
        }
        var storage = sockaddr_in6()
        storage.sin6_family = sa_family_t(AF_INET6)
        storage.sin6_port = port.bigEndian
        withUnsafeMutableBytes(of: &storage.sin6_addr) { raw in
            for index in 0..<16 {
                let word = index < 8 ? address.high : address.low
                raw[index] = UInt8(truncatingIfNeeded: word >> (56 - 8 * UInt64(index % 8)))
            }
        }
        if address.isIPv6LinkLocal, let index = interface?.index { storage.sin6_scope_id = UInt32(index) }
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
        }
    }
}

extension Errno: CustomStringConvertible {
    var description: String { String(cString: strerror(rawValue)) }
}
#endif
