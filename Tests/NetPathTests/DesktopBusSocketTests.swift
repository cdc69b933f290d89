#if os(Linux) || os(Android)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Testing
@testable import NetPathCore
@testable import NetPathSystem

/// `Syscall.connect(_:unixPath:abstract:)`, as the desktop watcher reaches a bus: a socket
/// file, and a name in the abstract namespace (`unix:abstract=`), with the errnos of both.
@Suite struct DesktopBusSocketTests {
    /// A listening Unix socket bound to `name` (abstract: a leading NUL byte).
    func listener(_ name: String, abstract: Bool) throws -> FileDescriptor {
        let socket = try Syscall.socket(.unix, .stream).get()
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = (abstract ? [0] : []) + Array(name.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Syscall.bind(socket, to: $0, length: length) }
        }
        _ = try bound.get()
        _ = try Syscall.listen(socket, backlog: 4).get()
        return socket
    }

    func client() throws -> FileDescriptor {
        try Syscall.socket(.unix, .stream, nonBlocking: true).get()
    }

    @Test func aSocketFileAndAnAbstractNameAreReached() throws {
        let name = "netpath-test-\(getpid())-abstract"
        let abstract = try listener(name, abstract: true)
        defer { Syscall.close(abstract) }
        let path = "/tmp/netpath-test-\(getpid()).socket"
        Syscall.unlink(path)
        let file = try listener(path, abstract: false)
        defer {
            Syscall.close(file)
            Syscall.unlink(path)
        }
        for (target, isAbstract) in [(name, true), (path, false)] {
            let socket = try client()
            defer { Syscall.close(socket) }
            #expect(Syscall.connect(socket, unixPath: target, abstract: isAbstract) == .success(0))
        }
        // The abstract name is not a file, and the file's path is no abstract name.
        for (target, isAbstract, errno) in [(name, false, ENOENT), (path, true, ECONNREFUSED), (name + "-none", true, ECONNREFUSED),
                                            (String(repeating: "x", count: 108), false, ENAMETOOLONG), ("/tmp/a\u{0}b", false, EINVAL)] {
            let socket = try client()
            defer { Syscall.close(socket) }
            #expect(Syscall.connect(socket, unixPath: target, abstract: isAbstract) == .failure(Errno(errno)), "\(target)")
        }
    }
}
#endif
