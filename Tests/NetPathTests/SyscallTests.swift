#if os(Linux) || os(Android)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
@testable import NetPath

/// The syscall layer: errno taken at the call and nowhere else, `EINTR` retried, and real
/// calls reporting the errno they failed with.
@Suite struct SyscallTests {
    @Test func eintrIsRetriedAndTheCallsOwnErrnoIsKept() {
        var calls = 0
        let interrupted = Syscall.retrying { () -> Int32 in
            calls += 1
            guard calls < 3 else { return 7 }
            errno = EINTR
            return -1
        }
        #expect(interrupted == .success(7) && calls == 3)
        // The errno is the failing call's, even when code after the call (here, in the same
        // closure) would have changed it had it been read later.
        let failed = Syscall.retrying { () -> Int32 in
            errno = ENOENT
            return -1
        }
        errno = EPERM
        #expect(failed == .failure(Errno(ENOENT)))
    }

    @Test func realCallsReportTheirErrno() throws {
        // A refused non-blocking connection: SO_ERROR says ECONNREFUSED once, then nothing.
        let listener = try #require(try? Syscall.socket(AF_INET, Int32(SOCK_STREAM.rawValue)).get())
        defer { Syscall.close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let port: UInt16 = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw in
                _ = Syscall.bind(listener, to: raw, length: length)
                _ = getsockname(listener, raw, &length)
            }
            return pointer.pointee.sin_port
        }
        // Bound but not listening: a connection to it is refused.
        let client = try #require(try? Syscall.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue)).get())
        defer { Syscall.close(client) }
        address.sin_port = port
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Syscall.connect(client, to: $0, length: length) }
        }
        if connected == .failure(Errno(EINPROGRESS)) {
            var descriptors = [pollfd(fd: client, events: Int16(POLLOUT), revents: 0)]
            #expect(Syscall.poll(&descriptors, milliseconds: 5_000) == .success(1))
            #expect(Syscall.pendingError(client) == Errno(ECONNREFUSED))
            #expect(Syscall.pendingError(client) == nil)
        } else {
            #expect(connected == .failure(Errno(ECONNREFUSED)))
        }
        // Receiving on an unconnected stream socket: ENOTCONN, from the call itself.
        var byte: UInt8 = 0
        let received = withUnsafeMutableBytes(of: &byte) { Syscall.receive(listener, into: $0, flags: Int32(MSG_DONTWAIT)) }
        #expect(received == .failure(Errno(ENOTCONN)))
        #expect(Syscall.readFile("/nonexistent/netpath") == nil)
        #expect(Syscall.readFile("/proc/self/stat", limit: 5)?.count == 5)
    }
}
#endif
