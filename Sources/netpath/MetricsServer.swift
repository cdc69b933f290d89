#if os(Linux)
import NetPath

/// Why the server could not start: one line naming the address; exit status 3.
struct ListenFailure: Error {
    var message: String
}

/// `netpath serve`'s HTTP server, on the tool's own sockets: one thread running one
/// ``EventLoop`` with the listening socket, every connection and a deadline for each
/// registered on it. Every connection is bounded:
/// 8 KiB of request head, 5 s from accept to the last byte of the answer (the TLS
/// handshake included), one request; at most 64 at once, and when a 65th arrives, the
/// oldest that has not finished sending its request is dropped for it. So a client that
/// sends nothing, sends slowly, or sends garbage never delays another, and idle (no
/// connection) the thread never wakes. With `--web-config`, TLS (OpenSSL, non-blocking) and
/// basic authentication apply as the ``WebSecurity`` of the moment says.
final class MetricsServer: Sendable {
    static let maximumConnections = 64
    static let connectionTimeout: Duration = .seconds(5)
    static let backlog: Int32 = 128

    private let listener: FileDescriptor
    /// Where it listens, with the port the kernel chose for port 0.
    let address: ListenAddress
    /// The server thread's loop; `stop()` stops it.
    private let loop: EventLoop
    private let render: @Sendable () -> String
    private let contentType: String
    /// Replaced by `reload`; each connection takes the one current when it is accepted.
    private let security: Locked<WebSecurity>
    /// The server thread, while it runs. (Its connections are the thread's own, in `run`.)
    private let thread = Locked<OwnThread.Handle?>(nil)

    private struct Connection {
        let fd: FileDescriptor
        let security: WebSecurity
        /// TLS, when the configuration has it, until the first byte shows plain HTTP.
        var tls: TLSSession?
        /// Whether the first byte was looked at (TLS only: a handshake begins with 0x16).
        var sniffed = false
        /// What the loop waits for: the last step wanted to read or to write.
        var interest = EventLoop.Events.readable
        var input: [UInt8] = []
        /// The answer, once the request is read; `sent` bytes of it are out.
        var output: [UInt8]?
        var sent = 0
    }

    /// The first byte of a TLS connection: a handshake record.
    static let handshakeRecord: UInt8 = 0x16

    /// Binds and listens on `address`.
    ///
    /// - Throws: ``ListenFailure`` naming the address and the reason (in use, not an
    ///   address of this machine, no permission).
    convenience init(_ address: ListenAddress, security: WebSecurity, contentType: String, render: @escaping @Sendable () -> String) throws {
        func failure(_ reason: String) -> ListenFailure { ListenFailure(message: "cannot listen on \(address): \(reason)") }
        guard let local = address.host.isEmpty ? SocketAddress.anyIPv6(port: address.port)
            : SocketAddress(text: address.host, port: address.port) else { throw failure("'\(address.host)' is not an IP address") }
        let fd: FileDescriptor
        switch MetricsServer.listen(at: local, everyAddress: address.host.isEmpty) {
        case .success(let listening): fd = listening
        case .failure(let error): throw failure(error.description)
        }
        // The port the kernel gave, for `:0`.
        let port = (try? Syscall.localAddress(fd).get())?.port ?? address.port
        try self.init(listening: fd, at: ListenAddress(host: address.host, port: port), security: security, contentType: contentType, render: render)
    }

    /// Serves on `fd`, a non-blocking socket that already listens at `address` (one that
    /// systemd passed, ``SocketActivation``); the server closes it when it stops.
    ///
    /// - Throws: ``ListenFailure`` when the event loop cannot be made (`fd` is closed).
    init(listening fd: FileDescriptor, at address: ListenAddress, security: WebSecurity, contentType: String,
         render: @escaping @Sendable () -> String) throws {
        self.render = render
        self.contentType = contentType
        self.security = Locked(security)
        listener = fd
        self.address = address
        do {
            loop = try EventLoop()
        } catch {
            Syscall.close(fd)
            throw ListenFailure(message: "cannot listen on \(address): cannot create an event loop: \(error)")
        }
    }

    /// A non-blocking socket listening at `local`; with `everyAddress` (`::`), IPv4 too.
    private static func listen(at local: SocketAddress, everyAddress: Bool) -> Result<FileDescriptor, Errno> {
        let opened = Syscall.socket(local.isIPv6 ? .ipv6 : .ipv4, .stream, nonBlocking: true)
        guard case .success(let fd) = opened else { return opened }
        _ = Syscall.setOption(fd, .reuseAddress, 1)
        // Every address: one IPv6 socket that takes IPv4 as well.
        if everyAddress { _ = Syscall.setOption(fd, .ipv6Only, 0) }
        let listening = Syscall.bind(fd, to: local).flatMap { _ in Syscall.listen(fd, backlog: MetricsServer.backlog) }
        if case .failure(let error) = listening {
            Syscall.close(fd)
            return .failure(error)
        }
        return .success(fd)
    }

    /// Where it can be reached: `https` with TLS.
    /// Where to fetch the metrics; for every address (`:PORT`), as `[::]` (which a client on
    /// this machine reaches).
    var url: String {
        let host = address.host.isEmpty ? "[::]:\(address.port)" : "\(address)"
        return "\(security.withLock { $0.context == nil ? "http" : "https" })://\(host)/metrics"
    }

    /// Applies `newSecurity` to the connections accepted from now on.
    func reload(_ newSecurity: WebSecurity) {
        security.withLock { $0 = newSecurity }
    }

    /// Starts the server thread.
    func start() -> Bool {
        let started = try? OwnThread.start(name: "netpath-http") { [self] in run() }.get()
        thread.withLock { $0 = started }
        return started != nil
    }

    /// Ends the server thread and closes every socket.
    func stop() {
        loop.stop()
        if let running = thread.withLock({ thread in defer { thread = nil }; return thread }) {
            running.join()
        } else {
            Syscall.close(listener)
            loop.close()
        }
    }

    /// The server thread's connections, by descriptor, with their registrations and
    /// deadlines, and the order they came in. Touched only on the server thread.
    private final class Serving {
        struct Entry {
            var connection: Connection
            let registration: EventLoop.Registration
            let timer: EventLoop.Timer
        }
        var entries: [FileDescriptor: Entry] = [:]
        var order: [FileDescriptor] = []
    }

    private func run() {
        let serving = Serving()
        let listening = loop.register(listener, for: .readable) { [self] _ in acceptAll(into: serving) }
        loop.run()
        for fd in serving.order { drop(fd, from: serving) }
        loop.deregister(listening)
        Syscall.close(listener)
        loop.close()
    }

    /// Takes a connection as far as it can go now; drops it when it is done.
    private func serve(_ fd: FileDescriptor, in serving: Serving) {
        guard var entry = serving.entries[fd] else { return }
        let keep = service(&entry.connection)
        serving.entries[fd] = entry
        if keep { loop.change(entry.registration, to: entry.connection.interest) } else { drop(fd, from: serving) }
    }

    private func drop(_ fd: FileDescriptor, from serving: Serving) {
        guard let entry = serving.entries.removeValue(forKey: fd) else { return }
        serving.order.removeAll { $0 == fd }
        loop.deregister(entry.registration)
        loop.cancel(entry.timer)
        Syscall.close(fd)
    }

    /// Accepts every pending connection, dropping the oldest that is still sending its
    /// request when the table is full.
    private func acceptAll(into serving: Serving) {
        while true {
            // EAGAIN: no more; other errors: try at the next wake-up.
            guard case .success(let fd) = Syscall.accept(listener) else { return }
            if serving.entries.count >= MetricsServer.maximumConnections {
                guard let oldest = serving.order.first(where: { serving.entries[$0]?.connection.output == nil }) else {
                    Syscall.close(fd)  // every slot is answering: this one waits for the next try
                    continue
                }
                drop(oldest, from: serving)
            }
            let current = security.withLock { $0 }
            let deadline = SystemClock.now() + MetricsServer.connectionTimeout
            var connection = Connection(fd: fd, security: current)
            if current.context != nil {
                // No session (out of memory): the connection is dropped rather than served in plain text.
                guard let session = current.session(for: fd) else {
                    Syscall.close(fd)
                    continue
                }
                connection.tls = session
            }
            let registration = loop.register(fd, for: connection.interest) { [self] _ in serve(fd, in: serving) }
            let timer = loop.schedule(at: deadline) { [self] in drop(fd, from: serving) }
            serving.entries[fd] = Serving.Entry(connection: connection, registration: registration, timer: timer)
            serving.order.append(fd)
        }
    }

    /// Takes the connection as far as it can go now: the TLS handshake, the request, the
    /// answer. Returns `false` when the connection is done.
    private func service(_ connection: inout Connection) -> Bool {
        if let tls = connection.tls, !tls.isHandshaken {
            if !connection.sniffed {
                guard let first = peekFirstByte(connection.fd) else { return true }
                guard first >= 0 else { return false }
                connection.sniffed = true
                if UInt8(first) != MetricsServer.handshakeRecord {
                    // Plain HTTP to the TLS port: answered in plain HTTP, as Go's servers do.
                    connection.tls = nil
                    connection.output = HTTPResponse.plainHTTPToTLS.bytes
                    return send(&connection)
                }
            }
            switch tls.handshake() {
            case .done: break
            case .wantRead: connection.interest = .readable; return true
            case .wantWrite: connection.interest = .writable; return true
            case .closed, .failed: return false
            }
        }
        if connection.output == nil {
            guard let keepGoing = read(&connection) else { return false }
            if !keepGoing { return true }
        }
        return send(&connection)
    }

    /// The first byte the client sent, without taking it; `nil` when none has come yet,
    /// -1 when the client left or the socket failed.
    private func peekFirstByte(_ fd: FileDescriptor) -> Int? {
        var byte: UInt8 = 0
        switch withUnsafeMutableBytes(of: &byte, { Syscall.receive(fd, into: $0, flags: .peek) }) {
        case .success(let count): return count == 1 ? Int(byte) : -1
        case .failure(let error): return error == .wouldBlock ? nil : -1
        }
    }

    /// Reads what has come of the request; when it is complete, sets the answer. Returns
    /// `true` when the answer is ready, `false` to wait for more, `nil` when the client left.
    private func read(_ connection: inout Connection) -> Bool? {
        var chunk = [UInt8](repeating: 0, count: 4096)
        while connection.output == nil {
            let room = HTTPRequest.maximumSize - connection.input.count
            let step = chunk.withUnsafeMutableBytes { receive(&connection, into: UnsafeMutableRawBufferPointer(rebasing: $0.prefix(min(room, $0.count)))) }
            switch step {
            case .done(let count):
                connection.input += chunk[..<count]
                let request = HTTPRequest.parse(connection.input)
                if request == .needMore && connection.input.count < HTTPRequest.maximumSize { continue }
                connection.output = answer(request, security: connection.security).bytes
            case .wantRead: connection.interest = .readable; return false
            case .wantWrite: connection.interest = .writable; return false
            case .closed, .failed: return nil  // the client left before its request was complete
            }
        }
        return true
    }

    /// The answer to `request` under `security`: 401 without valid credentials when users
    /// are configured, and the configured headers on every answer.
    private func answer(_ request: HTTPRequest, security: WebSecurity) -> HTTPResponse {
        var response: HTTPResponse
        if case .head(_, _, let authorization) = request, !security.authorizes(authorization) {
            response = HTTPResponse.unauthorized
        } else {
            response = HTTPResponse.answer(request, metricsContentType: contentType, metrics: render)
        }
        response.headers += security.configuration.headers.map { ($0.name, $0.value) }
        return response
    }

    /// Writes what it can of the answer. Returns `false` when it is all out (or cannot be).
    private func send(_ connection: inout Connection) -> Bool {
        guard let output = connection.output else { return true }
        while connection.sent < output.count {
            switch transmit(&connection, output[connection.sent...]) {
            case .done(let count): connection.sent += count
            case .wantRead: connection.interest = .readable; return true
            case .wantWrite: connection.interest = .writable; return true
            case .closed, .failed: return false
            }
        }
        connection.tls?.shutdown()
        Syscall.shutdownWrite(connection.fd)
        return false
    }

    private func receive(_ connection: inout Connection, into buffer: UnsafeMutableRawBufferPointer) -> TLSSession.Step {
        if let tls = connection.tls { return tls.read(into: buffer) }
        switch Syscall.receive(connection.fd, into: buffer) {
        case .success(let count): return count == 0 ? .closed("") : .done(count)
        case .failure(let error): return error == .wouldBlock ? .wantRead : .failed(error.description)
        }
    }

    private func transmit(_ connection: inout Connection, _ bytes: ArraySlice<UInt8>) -> TLSSession.Step {
        if let tls = connection.tls { return tls.write(bytes) }
        let sent = bytes.withUnsafeBytes { Syscall.send(connection.fd, $0, flags: .noSignal) }
        switch sent {
        case .success(let count): return .done(count)
        case .failure(let error): return error == .wouldBlock ? .wantWrite : .failed(error.description)
        }
    }
}
#endif
