#if os(Linux) || os(Android)
import CNetlink
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Thin wrappers over the system calls the Linux backend makes: `EINTR` is retried, and
/// failures come back as the errno.
enum Syscall {
    /// Runs `call` until it does not fail with `EINTR`; returns its result or the errno.
    @inline(__always)
    static func retrying<T: BinaryInteger>(_ call: () -> T) -> Result<T, Errno> {
        while true {
            let result = call()
            if result >= 0 { return .success(result) }
            let code = errno
            if code != EINTR { return .failure(Errno(code)) }
        }
    }

    static func close(_ descriptor: Int32) {
        // Linux closes the descriptor even when close fails with EINTR: never retry.
        _ = Glibc.close(descriptor)
    }

    /// Reads a whole small file (at most `limit` bytes); `nil` when it cannot be read.
    static func readFile(_ path: String, limit: Int = 64 * 1024) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { buffer in
                retrying { read(descriptor, buffer.baseAddress, buffer.count) }
            }
            guard case .success(let read) = count else { return nil }
            if read == 0 { break }
            bytes.append(contentsOf: chunk[0..<min(read, limit - bytes.count)])
        }
        return bytes
    }

    static func exists(_ path: String) -> Bool {
        access(path, F_OK) == 0
    }
}

/// An errno value.
struct Errno: Error, Hashable, Sendable {
    var rawValue: Int32
    init(_ rawValue: Int32) { self.rawValue = rawValue }
}

/// Runs work on a thread of our own, never a Dispatch or Swift-concurrency pool thread:
/// `setns` switches only the calling thread (SPEC §2.10), and a monitor's blocking read
/// loop must not hold a pool thread.
enum OwnThread {
    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a new joinable thread named `name`.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) -> pthread_t? {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            return nil
        }
        _ = cnetlink_set_thread_name(thread, String(name.prefix(15)))
        return thread
    }

    /// Runs `body` on a short-lived thread of our own and returns its result.
    static func run<T: Sendable>(name: String, _ body: @escaping @Sendable () -> T) -> T? {
        let result = ResultBox<T>()
        guard let thread = start(name: name, { result.value = body() }) else { return nil }
        pthread_join(thread, nil)
        return result.value
    }

    // Written by the short-lived thread before pthread_join returns, read after:
    // the join orders the two, so no lock is needed.
    private final class ResultBox<T>: @unchecked Sendable {
        var value: T?
    }
}
#endif
