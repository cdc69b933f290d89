#if os(Linux) || os(Android)
import CNetlink
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one layer over the system calls the Linux backend makes (swift-nio's
/// `syscall(blocking:)`, swift-system's `valueOrErrno`): errno is read right after the call
/// and nowhere else, `EINTR` is retried, and `EBADF` or `EFAULT` — a descriptor or pointer
/// the package itself got wrong — stops the process rather than being reported as a
/// condition of the environment. `package`: the `netpath` tool uses it too.
package enum Syscall {
    /// Runs `call` until it does not fail with `EINTR`; returns its result or the errno.
    @inline(__always)
    package static func retrying<T: BinaryInteger>(_ call: () -> T) -> Result<T, Errno> {
        while true {
            let result = call()
            if result >= 0 { return .success(result) }
            let code = errno
            if code == EINTR { continue }
            checkProgrammerError(code)
            return .failure(Errno(code))
        }
    }

    /// Stops on an errno that only a bug in the package can cause.
    @inline(__always)
    package static func checkProgrammerError(_ code: Int32) {
        precondition(code != EBADF && code != EFAULT, "a system call failed with \(Errno(code).name): a bug in NetPath")
    }

    package static func close(_ descriptor: Int32) {
        // Linux closes the descriptor even when close fails with EINTR: never retry.
        if Glibc.close(descriptor) != 0 {
            let code = errno
            if code != EINTR { checkProgrammerError(code) }
        }
    }

    /// `socket(2)`, close-on-exec.
    static func socket(_ domain: Int32, _ type: Int32, _ protocolNumber: Int32 = 0) -> Result<Int32, Errno> {
        retrying { Glibc.socket(domain, type | Int32(SOCK_CLOEXEC.rawValue), protocolNumber) }
    }

    /// `recv(2)`: the bytes read, 0 at end of stream, or the errno.
    static func receive(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer, flags: Int32 = 0) -> Result<Int, Errno> {
        retrying { recv(descriptor, buffer.baseAddress, buffer.count, flags) }
    }

    /// `connect(2)`. On a non-blocking socket `EINPROGRESS` is a failure here, for the
    /// caller to take as "in progress".
    static func connect(_ descriptor: Int32, to address: UnsafePointer<sockaddr>, length: socklen_t) -> Result<Int32, Errno> {
        retrying { Glibc.connect(descriptor, address, length) }
    }

    /// `bind(2)` to an address.
    static func bind(_ descriptor: Int32, to address: UnsafePointer<sockaddr>, length: socklen_t) -> Result<Int32, Errno> {
        retrying { Glibc.bind(descriptor, address, length) }
    }

    /// `send(2)`: the bytes sent, or the errno.
    static func send(_ descriptor: Int32, _ bytes: [UInt8], flags: Int32 = 0) -> Result<Int, Errno> {
        bytes.withUnsafeBytes { buffer in retrying { Glibc.send(descriptor, buffer.baseAddress, buffer.count, flags) } }
    }

    /// How a non-blocking `connect` ended: the socket's pending error (`getsockopt` of
    /// `SO_ERROR`, which also clears it), `nil` when the connection is made.
    static func pendingError(_ descriptor: Int32) -> Errno? {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        switch retrying({ getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length) }) {
        case .success: return code == 0 ? nil : Errno(code)
        case .failure(let error): return error
        }
    }

    /// Binds a socket to the interface named `name` (`SO_BINDTODEVICE`): its traffic then
    /// goes out there whatever the routes say.
    static func bind(_ descriptor: Int32, toDevice name: String) -> Result<Int32, Errno> {
        name.withCString { pointer in
            retrying { setsockopt(descriptor, SOL_SOCKET, SO_BINDTODEVICE, pointer, socklen_t(name.utf8.count + 1)) }
        }
    }

    /// `poll(2)`: the number of ready descriptors (0 after `milliseconds`), or the errno.
    static func poll(_ descriptors: inout [pollfd], milliseconds: Int32) -> Result<Int32, Errno> {
        retrying { Glibc.poll(&descriptors, nfds_t(descriptors.count), milliseconds) }
    }

    /// Reads a whole small file (at most `limit` bytes); `nil` when it cannot be read.
    static func readFile(_ path: String, limit: Int = 1024 * 1024) -> [UInt8]? {
        try? readWholeFile(path, limit: limit).get()
    }

    /// Reads a whole small file (at most `limit` bytes), or says why it cannot.
    package static func readWholeFile(_ path: String, limit: Int = 1024 * 1024) -> Result<[UInt8], Errno> {
        let opened = retrying { open(path, O_RDONLY | O_CLOEXEC) }
        guard case .success(let descriptor) = opened else { return opened.map { _ in [] } }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { buffer in
                retrying { read(descriptor, buffer.baseAddress, buffer.count) }
            }
            guard case .success(let read) = count else { return count.map { _ in [] } }
            if read == 0 { break }
            bytes.append(contentsOf: chunk[0..<min(read, limit - bytes.count)])
        }
        return .success(bytes)
    }

    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }
}

extension Errno: CustomStringConvertible {
    /// The system's words for it (`strerror`), as messages show it.
    package var description: String { String(cString: strerror(rawValue)) }

    /// `EBADF`, `EINTR`, …: the C name, for messages that must name it.
    var name: String {
        switch rawValue {
        case EBADF: "EBADF"
        case EFAULT: "EFAULT"
        case EINTR: "EINTR"
        case EAGAIN: "EAGAIN"
        default: "errno \(rawValue)"
        }
    }
}

#endif
