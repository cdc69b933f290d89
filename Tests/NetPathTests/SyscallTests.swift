#if os(Linux) || os(Android)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// The syscall layer: errno taken at the call and nowhere else, `EINTR` retried, and real
/// calls reporting the errno they failed with.
@Suite struct SyscallTests {
    @Test func eintrIsRetriedAndTheCallsOwnErrnoIsKept() {
        var calls = 0
        let interrupted = Syscall.retrying("test") { () -> Int32 in
            calls += 1
            guard calls < 3 else { return 7 }
            errno = EINTR
            return -1
        }
        #expect(interrupted == .success(7) && calls == 3)
        // The errno is the failing call's, even when code after the call (here, in the same
        // closure) would have changed it had it been read later.
        let failed = Syscall.retrying("test") { () -> Int32 in
            errno = ENOENT
            return -1
        }
        errno = EPERM
        #expect(failed == .failure(Errno(ENOENT)))
    }

    @Test func realCallsReportTheirErrno() throws {
        // A refused non-blocking connection: SO_ERROR says ECONNREFUSED once, then nothing.
        let listener = try #require(try? Syscall.socket(.ipv4, .stream).get())
        defer { Syscall.close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let port: UInt16 = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                _ = Syscall.bind(listener, to: raw, length: length)
                _ = getsockname(listener.rawValue, raw, &length)
            }
            return pointer.pointee.sin_port
        }
        // Bound but not listening: a connection to it is refused.
        let client = try #require(try? Syscall.socket(.ipv4, .stream, nonBlocking: true).get())
        defer { Syscall.close(client) }
        address.sin_port = port
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Syscall.connect(client, to: $0, length: length) }
        }
        if connected == .failure(Errno(EINPROGRESS)) {
            var descriptors = [pollfd(fd: client.rawValue, events: Int16(POLLOUT), revents: 0)]
            #expect(Syscall.poll(&descriptors, timeout: .seconds(5)) == .success(1))
            #expect(Syscall.pendingError(client) == Errno(ECONNREFUSED))
            #expect(Syscall.pendingError(client) == nil)
        } else {
            #expect(connected == .failure(Errno(ECONNREFUSED)))
        }
        // Receiving on an unconnected stream socket: ENOTCONN, from the call itself.
        var byte: UInt8 = 0
        let received = withUnsafeMutableBytes(of: &byte) { Syscall.receive(listener, into: $0, flags: .dontWait) }
        #expect(received == .failure(Errno(ENOTCONN)))
        #expect(Syscall.readFile("/nonexistent/netpath") == nil)
        #expect(Syscall.readFile("/proc/self/stat", limit: 5)?.count == 5)
    }

    /// An error of the layer names the call that failed before the system's words, as
    /// messages show it; it equals the named value of its number whichever call met it.
    @Test func errorsNameTheCallThatFailed() throws {
        guard case .failure(let opened) = Syscall.open("/nonexistent/netpath", .readOnly) else {
            Issue.record("opened /nonexistent/netpath")
            return
        }
        #expect("\(opened)" == "open: No such file or directory" && opened == .noSuchFile)
        let inotify = try Inotify()
        defer { inotify.close() }
        guard case .failure(let watched) = inotify.watch("/nonexistent/netpath", mask: .create) else {
            Issue.record("watched /nonexistent/netpath")
            return
        }
        #expect("\(watched)" == "inotify_add_watch: No such file or directory" && watched == opened)
        // Made by the layer's caller without a call (a named value): the words alone.
        #expect("\(Errno.brokenPipe)" == "Broken pipe")
        let error = NetPathError(.namespaceNotFound, "network namespace 'x' does not exist", opened)
        #expect(error.description == "network namespace 'x' does not exist: open: No such file or directory" && error.errno == ENOENT)
    }

    /// The one address encoder: IPAddress.bytes in a sockaddr, read back the same.
    @Test func socketAddressesCarryTheAddressBytesAndPort() throws {
        let v4 = SocketAddress(try #require(IPAddress("192.0.2.1")), port: 53)
        #expect(v4.address == IPAddress("192.0.2.1") && v4.port == 53 && !v4.isIPv6)
        #expect(v4.length == socklen_t(MemoryLayout<sockaddr_in>.size))
        let v6 = SocketAddress(try #require(IPAddress("fe80::1")), port: 443, scopeID: 3)
        #expect(v6.address == IPAddress("fe80::1") && v6.port == 443 && v6.isIPv6)
        let scope = withUnsafeBytes(of: v6.storage) { $0.loadUnaligned(fromByteOffset: 24, as: UInt32.self) }
        #expect(scope == 3)
        #expect(SocketAddress(text: "::1", port: 9)?.address == IPAddress("::1"))
        #expect(SocketAddress(text: "127.0.0.1", port: 9)?.address == IPAddress("127.0.0.1"))
        #expect(SocketAddress(text: "localhost", port: 9) == nil && SocketAddress(text: "1.2.3", port: 9) == nil)
        // Bound to port 0, the socket reports the address and the port the kernel chose.
        let socket = try #require(try? Syscall.socket(.ipv4, .datagram).get())
        defer { Syscall.close(socket) }
        #expect(Syscall.bind(socket, to: SocketAddress(try #require(IPAddress("127.0.0.1")), port: 0)) == .success(0))
        let local = try #require(try? Syscall.localAddress(socket).get())
        #expect(local.address == IPAddress("127.0.0.1") && local.port != 0)
    }

    /// struct inotify_event, one after another, names NUL-padded; a truncated one ends them.
    @Test func inotifyEventsAreParsed() {
        func event(_ watch: Int32, _ mask: UInt32, _ name: String) -> [UInt8] {
            let padded = name.isEmpty ? [] : Array(name.utf8) + [UInt8](repeating: 0, count: 16 - name.utf8.count % 16)
            return withUnsafeBytes(of: watch) { Array($0) } + withUnsafeBytes(of: mask) { Array($0) } + [0, 0, 0, 0]
                + withUnsafeBytes(of: UInt32(padded.count)) { Array($0) } + padded
        }
        let bytes = event(1, UInt32(IN_CREATE), "resolv.conf") + event(2, UInt32(IN_DELETE_SELF), "") + [1, 2, 3]
        #expect(Inotify.parse(bytes[...]) == [Inotify.Event(watch: 1, mask: .create, name: "resolv.conf"),
                                             Inotify.Event(watch: 2, mask: .deleteSelf, name: "")])
    }

    /// A signal makes the descriptor readable until it is cleared.
    @Test func anEventSignalWakesAPollUntilCleared() throws {
        let wake = try EventSignal()
        defer { wake.close() }
        var entries = [Syscall.PollEntry(wake.descriptor, events: Int16(POLLIN))]
        #expect(Syscall.poll(&entries, timeout: .zero) == .success(0))
        wake.signal()
        wake.signal()
        #expect(Syscall.poll(&entries, timeout: .zero) == .success(1) && entries[0].ready == Int16(POLLIN))
        wake.clear()
        #expect(Syscall.poll(&entries, timeout: .zero) == .success(0) && entries[0].ready == 0)
    }

    /// A pipe whose reader left: the write's own EPIPE comes back.
    @Test func aWriteToAPipeWithoutReaderSaysEPIPE() throws {
        let ends = try Syscall.pipe(nonBlocking: true).get()
        Syscall.close(ends.read)
        defer { Syscall.close(ends.write) }
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        let written = [UInt8](repeating: 1, count: 10).withUnsafeBytes { Syscall.writeAll(ends.write, $0) }
        #expect(written.map { true } == .failure(Errno(EPIPE)))
    }
}
#endif
