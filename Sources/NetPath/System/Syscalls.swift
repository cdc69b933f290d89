#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(CNetlink)
import CNetlink  // on Linux, timespec, timeval and sockaddr_nl come through the shim's headers
#endif

/// The one layer over the system calls the package and the `netpath` tool make (swift-nio's
/// `syscall(blocking:)`, swift-system's `valueOrErrno`): errno is read right after the call
/// and nowhere else, and kept with the call's name (``Errno/call``: a message says
/// `connect: Connection refused`), `EINTR` is retried, and `EBADF` or `EFAULT` — a
/// descriptor or pointer the package itself got wrong — stops the process rather than being
/// reported as a condition of the environment. `package`: the `netpath` tool uses it too,
/// with the values its calls take (``SocketDomain``, ``Signal``, …): no C library constant
/// crosses the target's boundary.
///
/// The first part is POSIX and builds on Apple platforms too (the tool's wait for signals
/// and its pipes); the Linux part follows.
package enum Syscall {
    /// Runs `body`, a call of the C function `call`, until it does not fail with `EINTR`;
    /// returns its result, or the errno with the call's name.
    @inline(__always)
    package static func retrying<T: BinaryInteger>(_ call: StaticString, _ body: () -> T) -> Result<T, Errno> {
        while true {
            let result = body()
            if result >= 0 { return .success(result) }
            let code = errno
            if code == EINTR { continue }
            checkProgrammerError(code, call)
            return .failure(Errno(code, call: call))
        }
    }

    /// Stops on an errno that only a bug in the package can cause.
    @inline(__always)
    package static func checkProgrammerError(_ code: Int32, _ call: StaticString) {
        precondition(code != EBADF && code != EFAULT, "\(call) failed with \(Errno(code).name): a bug in NetPath")
    }

    package static func close(_ descriptor: FileDescriptor) {
        // Linux closes the descriptor even when close fails with EINTR: never retry.
        if systemClose(descriptor.rawValue) != 0 {
            let code = errno
            if code != EINTR { checkProgrammerError(code, "close") }
        }
    }

    /// `read(2)`: the bytes read, 0 at end of file, or the errno (`EAGAIN` when a
    /// non-blocking descriptor has nothing).
    package static func read(_ descriptor: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer) -> Result<Int, Errno> {
        retrying("read") { systemRead(descriptor.rawValue, buffer.baseAddress, buffer.count) }
    }

    /// `write(2)`: the bytes written, or the errno.
    package static func write(_ descriptor: FileDescriptor, _ buffer: UnsafeRawBufferPointer) -> Result<Int, Errno> {
        retrying("write") { systemWrite(descriptor.rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Writes all of `buffer` unless the descriptor fails (`EPIPE`: its reader left). A
    /// standard stream (`standardStream`) may have been closed by the user (`>&-`): its
    /// `EBADF` is the environment's, not a bug.
    package static func writeAll(_ descriptor: FileDescriptor, _ buffer: UnsafeRawBufferPointer, standardStream: Bool = false) -> Result<Void, Errno> {
        guard let base = buffer.baseAddress else { return .success(()) }
        var offset = 0
        while offset < buffer.count {
            let written = systemWrite(descriptor.rawValue, base + offset, buffer.count - offset)
            if written < 0 {
                let code = errno
                if code == EINTR { continue }
                if !(standardStream && code == EBADF) { checkProgrammerError(code, "write") }
                return .failure(Errno(code, call: "write"))
            }
            offset += written
        }
        return .success(())
    }

    /// `poll(2)`: the number of ready descriptors (0 after `timeout`; `nil` waits for ever),
    /// or the errno.
    package static func poll(_ descriptors: inout [pollfd], timeout: Duration?) -> Result<Int32, Errno> {
        let count = nfds_t(descriptors.count)
        let milliseconds = timeoutMilliseconds(timeout)
        return descriptors.withUnsafeMutableBufferPointer { buffer in
            retrying("poll") { systemPoll(buffer.baseAddress, count, milliseconds) }
        }
    }

    /// A wait's timeout as `poll` and `epoll_wait` take it: whole milliseconds, rounded up so
    /// a deadline is never woken for early; -1 (for ever) for `nil`.
    private static func timeoutMilliseconds(_ timeout: Duration?) -> Int32 {
        guard let timeout else { return -1 }
        guard timeout > .zero else { return 0 }
        let (seconds, attoseconds) = timeout.components
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        guard !milliseconds.overflow else { return .max }
        return Int32(clamping: milliseconds.partialValue + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000)
    }

    /// One descriptor for `poll` as the tool polls: the events
    /// wanted (`POLLIN`, …) and, after the call, those that came. The tool polls with it, so
    /// no C library type crosses the package's boundary.
    package struct PollEntry: Sendable {
        package var descriptor: FileDescriptor
        package var events: Int16
        package var ready: Int16 = 0
        package init(_ descriptor: FileDescriptor, events: Int16) {
            self.descriptor = descriptor
            self.events = events
        }
    }

    /// `poll(2)` of ``PollEntry`` values; each one's `ready` is set.
    package static func poll(_ entries: inout [PollEntry], timeout: Duration?) -> Result<Int32, Errno> {
        var descriptors = entries.map { pollfd(fd: $0.descriptor.rawValue, events: $0.events, revents: 0) }
        let result = poll(&descriptors, timeout: timeout)
        for index in entries.indices { entries[index].ready = descriptors[index].revents }
        return result
    }

    /// A pipe, both ends close-on-exec and, with `nonBlocking`, non-blocking.
    package static func pipe(nonBlocking: Bool) -> Result<(read: FileDescriptor, write: FileDescriptor), Errno> {
        var ends: [Int32] = [-1, -1]
        if case .failure(let error) = retrying("pipe", { systemPipe(&ends) }) { return .failure(error) }
        for end in ends {
            _ = retrying("fcntl") { fcntl(end, F_SETFD, FD_CLOEXEC) }
            if nonBlocking { setNonBlocking(FileDescriptor(rawValue: end)) }
        }
        return .success((FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1])))
    }

    /// Sets `O_NONBLOCK` on a descriptor.
    package static func setNonBlocking(_ descriptor: FileDescriptor) {
        if case .success(let flags) = retrying("fcntl", { fcntl(descriptor.rawValue, F_GETFL) }) {
            _ = retrying("fcntl") { fcntl(descriptor.rawValue, F_SETFL, flags | O_NONBLOCK) }
        }
    }
}

extension Syscall {
    /// The value of the environment variable `name` (`getenv`), `nil` when it is not set.
    package static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// This process's id (`getpid`): what systemd's `LISTEN_PID` names.
    package static func processID() -> Int32 { getpid() }

    /// Ends the process at once with `status` (`_exit`): no exit handlers run, while other
    /// threads may still be inside the library. Output written unbuffered is not lost.
    package static func exitNow(_ status: Int32) -> Never { _exit(status) }

    /// Whether `descriptor` is a terminal (`isatty`).
    package static func isTerminal(_ descriptor: FileDescriptor) -> Bool { isatty(descriptor.rawValue) == 1 }

    /// Ignores `ignored` (``Signal/brokenPipe``: a write to a pipe whose reader left fails
    /// with `EPIPE` instead).
    package static func ignoreSignal(_ ignored: Signal) {
        signal(ignored.rawValue, SIG_IGN)
    }

    /// A set of signals (`sigset_t`, which differs between C libraries, kept inside).
    package struct SignalSet: @unchecked Sendable {
        // `@unchecked`: a plain value of the C library's, copied, never shared.
        fileprivate var set = sigset_t()
    }

    /// Blocks `blocked` in the calling thread (and the threads it starts); the set.
    package static func blockSignals(_ blocked: [Signal]) -> SignalSet {
        var signals = SignalSet()
        sigemptyset(&signals.set)
        for signal in blocked { sigaddset(&signals.set, signal.rawValue) }
        pthread_sigmask(SIG_BLOCK, &signals.set, nil)
        return signals
    }

    /// Unblocks the signals of `signals` in the calling thread.
    package static func unblockSignals(_ signals: SignalSet) {
        var signals = signals
        pthread_sigmask(SIG_UNBLOCK, &signals.set, nil)
    }

    /// `sigwait`: the next of the blocked signals in `signals`, or the errno.
    package static func waitForSignal(in signals: SignalSet) -> Result<Signal, Errno> {
        var signals = signals
        var received: Int32 = 0
        let code = sigwait(&signals.set, &received)
        return code == 0 ? .success(Signal(rawValue: received)) : .failure(Errno(code, call: "sigwait"))
    }
}

// At file scope, where `Syscall`'s members of the same names do not hide the C library's.
private func systemClose(_ descriptor: Int32) -> Int32 { close(descriptor) }
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
private func systemPoll(_ descriptors: UnsafeMutablePointer<pollfd>?, _ count: nfds_t, _ timeout: Int32) -> Int32 {
    poll(descriptors, count, timeout)
}
private func systemPipe(_ ends: UnsafeMutablePointer<Int32>) -> Int32 { pipe(ends) }

/// The package's one clock, read as an ``Instant`` (the state machines take it as a value,
/// so their tests use a manual clock) for deadlines and durations; `CLOCK_REALTIME` for
/// timestamps. On Linux the instant is `CLOCK_BOOTTIME`: monotonic, and counting the time the
/// machine slept, so a deadline set before a suspend has passed after a long one (SPEC §3:
/// no answer from before a sleep is current). Darwin's `CLOCK_MONOTONIC` counts the sleep too.
package enum SystemClock {
    /// Now, on the clock that counts the sleep.
    package static func now() -> Instant {
        #if os(Linux) || os(Android)
        let time = read(CLOCK_BOOTTIME)
        #else
        let time = read(CLOCK_MONOTONIC)
        #endif
        return Instant(nanoseconds: UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec))
    }

    /// Seconds since 1970 (the wall clock), and the milliseconds of the current second.
    package static func unixTime() -> (seconds: Int64, milliseconds: Int) {
        let time = read(CLOCK_REALTIME)
        return (Int64(time.tv_sec), Int(time.tv_nsec / 1_000_000))
    }

    /// Seconds since 1970, with their fraction.
    package static func unixSeconds() -> Double {
        let time = read(CLOCK_REALTIME)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// `clock_gettime`, which cannot fail for these clocks.
    private static func read(_ clock: clockid_t) -> timespec {
        var time = timespec()
        clock_gettime(clock, &time)
        return time
    }
}

// The Linux part. It needs the shim's headers; without them (the fuzz harnesses, which
// build only the pure files and this one) the POSIX part above is all there is.
#if (os(Linux) || os(Android)) && canImport(CNetlink)
extension Syscall {
    /// `socket(2)`, close-on-exec and, with `nonBlocking`, non-blocking (`SOCK_NONBLOCK`).
    package static func socket(_ domain: SocketDomain, _ type: SocketType, _ protocolNumber: SocketProtocol = .default,
                               nonBlocking: Bool = false) -> Result<FileDescriptor, Errno> {
        let flags = Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        return retrying("socket") { Glibc.socket(domain.rawValue, type.rawValue | flags, protocolNumber.rawValue) }.map(FileDescriptor.init)
    }

    /// `recv(2)`: the bytes read, 0 at end of stream, or the errno.
    package static func receive(_ descriptor: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, flags: MessageFlags = []) -> Result<Int, Errno> {
        retrying("recv") { recv(descriptor.rawValue, buffer.baseAddress, buffer.count, flags.rawValue) }
    }

    /// `connect(2)`. On a non-blocking socket `EINPROGRESS` is a failure here, for the
    /// caller to take as "in progress".
    package static func connect(_ descriptor: FileDescriptor, to address: UnsafePointer<sockaddr>, length: socklen_t) -> Result<Int32, Errno> {
        retrying("connect") { Glibc.connect(descriptor.rawValue, address, length) }
    }

    /// `connect(2)` to an IP address and port.
    package static func connect(_ descriptor: FileDescriptor, to address: SocketAddress) -> Result<Int32, Errno> {
        address.withPointer { connect(descriptor, to: $0, length: $1) }
    }

    /// `connect(2)` of a Unix stream socket (`AF_UNIX`) to the socket file at `path`, or,
    /// with `abstract`, to the name `path` in Linux's abstract namespace (`sun_path` starts
    /// with a NUL byte, and the name is not NUL-terminated). `ENAMETOOLONG` when it does
    /// not fit `sun_path`, `EINVAL` for a file path with a NUL byte; on a non-blocking socket
    /// `EAGAIN` means the listener's backlog is full.
    package static func connect(_ descriptor: FileDescriptor, unixPath path: String, abstract: Bool) -> Result<Int32, Errno> {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let name = (abstract ? [0] : []) + Array(path.utf8) + (abstract ? [] : [0])
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard abstract || !path.utf8.contains(0) else { return .failure(Errno(EINVAL, call: "connect")) }
        guard name.count <= capacity else { return .failure(Errno(ENAMETOOLONG, call: "connect")) }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: name) }
        // The address's length counts the name's bytes: an abstract name is exactly them.
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2) + socklen_t(name.count)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, to: $0, length: length) }
        }
    }

    /// Dissolves a datagram socket's association (`connect` to `AF_UNSPEC`).
    package static func disconnect(_ descriptor: FileDescriptor) {
        var unspecified = sockaddr()
        unspecified.sa_family = sa_family_t(AF_UNSPEC)
        _ = connect(descriptor, to: &unspecified, length: socklen_t(MemoryLayout<sockaddr>.size))
    }

    /// `bind(2)` to an address.
    package static func bind(_ descriptor: FileDescriptor, to address: UnsafePointer<sockaddr>, length: socklen_t) -> Result<Int32, Errno> {
        retrying("bind") { Glibc.bind(descriptor.rawValue, address, length) }
    }

    /// `bind(2)` to an IP address and port.
    package static func bind(_ descriptor: FileDescriptor, to address: SocketAddress) -> Result<Int32, Errno> {
        address.withPointer { bind(descriptor, to: $0, length: $1) }
    }

    /// `bind(2)` of a netlink socket to `groups` (its port id chosen by the kernel).
    package static func bind(_ descriptor: FileDescriptor, netlinkGroups groups: UInt32) -> Result<Int32, Errno> {
        var address = sockaddr_nl()
        address.nl_family = sa_family_t(AF_NETLINK)
        address.nl_groups = groups
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, to: $0, length: socklen_t(MemoryLayout<sockaddr_nl>.size)) }
        }
    }

    /// The port id the kernel gave a netlink socket (`getsockname`).
    package static func netlinkPort(_ descriptor: FileDescriptor) -> Result<UInt32, Errno> {
        var address = sockaddr_nl()
        var length = socklen_t(MemoryLayout<sockaddr_nl>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in retrying("getsockname") { getsockname(descriptor.rawValue, pointer, &length) } }
        }
        return named.map { _ in address.nl_pid }
    }

    /// `sendto(2)` to the kernel on a netlink socket.
    package static func sendToKernel(_ descriptor: FileDescriptor, _ bytes: [UInt8]) -> Result<Int, Errno> {
        var kernel = sockaddr_nl()
        kernel.nl_family = sa_family_t(AF_NETLINK)
        return bytes.withUnsafeBytes { payload in
            withUnsafePointer(to: &kernel) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    retrying("sendto") { sendto(descriptor.rawValue, payload.baseAddress, payload.count, 0, address, socklen_t(MemoryLayout<sockaddr_nl>.size)) }
                }
            }
        }
    }

    /// The address a socket is bound to (`getsockname`).
    package static func localAddress(_ descriptor: FileDescriptor) -> Result<SocketAddress, Errno> {
        var address = SocketAddress()
        let named = withUnsafeMutablePointer(to: &address.storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in retrying("getsockname") { getsockname(descriptor.rawValue, pointer, &address.length) } }
        }
        return named.map { _ in address }
    }

    /// `send(2)`: the bytes sent, or the errno.
    package static func send(_ descriptor: FileDescriptor, _ bytes: [UInt8], flags: MessageFlags = []) -> Result<Int, Errno> {
        bytes.withUnsafeBytes { send(descriptor, $0, flags: flags) }
    }

    /// `send(2)` from a buffer.
    package static func send(_ descriptor: FileDescriptor, _ buffer: UnsafeRawBufferPointer, flags: MessageFlags = []) -> Result<Int, Errno> {
        retrying("send") { Glibc.send(descriptor.rawValue, buffer.baseAddress, buffer.count, flags.rawValue) }
    }

    /// `listen(2)`.
    package static func listen(_ descriptor: FileDescriptor, backlog: Int32) -> Result<Int32, Errno> {
        retrying("listen") { Glibc.listen(descriptor.rawValue, backlog) }
    }

    /// `accept(2)`: the connection, close-on-exec and non-blocking, or the errno (`EAGAIN`
    /// when none is pending).
    package static func accept(_ descriptor: FileDescriptor) -> Result<FileDescriptor, Errno> {
        let accepted = retrying("accept") { Glibc.accept(descriptor.rawValue, nil, nil) }.map(FileDescriptor.init)
        if case .success(let connection) = accepted {
            _ = retrying("fcntl") { fcntl(connection.rawValue, F_SETFD, FD_CLOEXEC) }
            setNonBlocking(connection)
        }
        return accepted
    }

    /// `shutdown(2)` of the sending side.
    package static func shutdownWrite(_ descriptor: FileDescriptor) {
        _ = retrying("shutdown") { shutdown(descriptor.rawValue, Int32(SHUT_WR)) }
    }

    /// `setsockopt(2)` of an `int` option.
    package static func setOption(_ descriptor: FileDescriptor, _ option: SocketOption, _ value: Int32) -> Result<Int32, Errno> {
        var value = value
        return retrying("setsockopt") { setsockopt(descriptor.rawValue, option.level, option.name, &value, socklen_t(MemoryLayout<Int32>.size)) }
    }

    /// Attaches a classic BPF program to a socket (`SO_ATTACH_FILTER`), replacing the one
    /// attached before: the kernel then queues only what the program lets through.
    ///
    /// The corresponding C constants are `SOL_SOCKET`, `SO_ATTACH_FILTER`; the program is a
    /// `struct sock_fprog` of `struct sock_filter`.
    package static func attachFilter(_ descriptor: FileDescriptor, _ program: [SocketFilterInstruction]) -> Result<Int32, Errno> {
        var instructions = program.map { sock_filter(code: $0.code, jt: $0.jumpTrue, jf: $0.jumpFalse, k: $0.constant) }
        return instructions.withUnsafeMutableBufferPointer { buffer in
            var fprog = sock_fprog(len: UInt16(buffer.count), filter: buffer.baseAddress)
            return retrying("setsockopt") {
                setsockopt(descriptor.rawValue, SOL_SOCKET, SO_ATTACH_FILTER, &fprog, socklen_t(MemoryLayout<sock_fprog>.size))
            }
        }
    }

    /// `SO_RCVTIMEO`: bounds a blocking receive (zero waits for ever).
    package static func setReceiveTimeout(_ descriptor: FileDescriptor, _ timeout: Duration) {
        let (seconds, attoseconds) = max(timeout, .zero).components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        if timeout > .zero && value.tv_sec == 0 && value.tv_usec == 0 { value.tv_usec = 1 }
        _ = retrying("setsockopt") { setsockopt(descriptor.rawValue, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size)) }
    }

    /// How a non-blocking `connect` ended: the socket's pending error (`getsockopt` of
    /// `SO_ERROR`, which also clears it), `nil` when the connection is made.
    package static func pendingError(_ descriptor: FileDescriptor) -> Errno? {
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        switch retrying("getsockopt", { getsockopt(descriptor.rawValue, SOL_SOCKET, SO_ERROR, &code, &length) }) {
        case .success: return code == 0 ? nil : Errno(code, call: "connect")
        case .failure(let error): return error
        }
    }

    /// The index of the interface named `name` in the calling thread's network namespace
    /// (`if_nametoindex(3)`); `nil` when there is none of that name.
    package static func interfaceIndex(_ name: String) -> Int? {
        let index = name.withCString { if_nametoindex($0) }
        return index == 0 ? nil : Int(index)
    }

    /// Binds a socket to the interface named `name` (`SO_BINDTODEVICE`): its traffic then
    /// goes out there whatever the routes say.
    package static func bind(_ descriptor: FileDescriptor, toDevice name: String) -> Result<Int32, Errno> {
        name.withCString { pointer in
            retrying("setsockopt") { setsockopt(descriptor.rawValue, SOL_SOCKET, SO_BINDTODEVICE, pointer, socklen_t(name.utf8.count + 1)) }
        }
    }

    /// `open(2)`, close-on-exec; `permissions` for a file it creates.
    package static func open(_ path: String, _ mode: FileDescriptor.AccessMode, options: FileDescriptor.OpenOptions = [],
                             permissions: mode_t = 0o644) -> Result<FileDescriptor, Errno> {
        let flags = mode.rawValue | options.rawValue | O_CLOEXEC
        return withFileName(path) { path in retrying("open") { Glibc.open(path, flags, permissions) } }.map(FileDescriptor.init)
    }

    /// Moves a file's offset back to its start.
    package static func rewind(_ descriptor: FileDescriptor) {
        _ = retrying("lseek") { lseek(descriptor.rawValue, 0, SEEK_SET) }
    }

    /// Reads a whole small file (at most `limit` bytes); `nil` when it cannot be read.
    package static func readFile(_ path: String, limit: Int = 1024 * 1024) -> [UInt8]? {
        try? readWholeFile(path, limit: limit).get()
    }

    /// `path` split after a process's root, `/proc/PID/root` (a container's files), when it
    /// is under one: the rest is relative to it.
    package static func processRoot(of path: String) -> (root: String, rest: String)? {
        // Most paths are not under /proc: no split into characters for them (a one-shot
        // `status` reads three such files).
        guard path.utf8.starts(with: "/proc/".utf8) else { return nil }
        let parts = path.split(separator: "/", maxSplits: 4, omittingEmptySubsequences: false)
        guard parts.count == 5, parts[0].isEmpty, parts[1] == "proc", parts[3] == "root", !parts[4].isEmpty,
              parts[2] == "self" || (!parts[2].isEmpty && parts[2].allSatisfy(\.isASCII) && parts[2].allSatisfy(\.isNumber)) else { return nil }
        return ("/proc/\(parts[2])/root", String(parts[4]))
    }

    /// Opens `path`; under a process's root (``processRoot(of:)``), every symlink on the way
    /// resolved in that root, as the process itself would (`openat2` with `RESOLVE_IN_ROOT`):
    /// a container's `/etc/resolv.conf` that links to `/run/systemd/resolve/…` names the
    /// container's file, not ours. Where `openat2` is missing (before 5.6) or refused (a
    /// seccomp filter's `EPERM`), or a rename raced it (`EAGAIN`), a plain open.
    package static func openResolvingInRoot(_ path: String, _ mode: FileDescriptor.AccessMode) -> Result<FileDescriptor, Errno> {
        guard let (root, rest) = processRoot(of: path) else { return open(path, mode) }
        let directory = open(root, .readOnly, options: .directory)
        guard case .success(let rootDescriptor) = directory else { return directory }
        defer { close(rootDescriptor) }
        let opened = withFileName(rest) { rest in retrying("openat2") { cnetlink_open_in_root(rootDescriptor.rawValue, rest, mode.rawValue) } }
        // No openat2 (before 5.6: ENOSYS), or a seccomp filter that refuses it (EPERM, as
        // Docker's and nspawn's older profiles do): the plain open, as before.
        if case .failure(let error) = opened, [ENOSYS, EPERM, EINVAL, EAGAIN].contains(error.rawValue) { return open(path, mode) }
        return opened.map(FileDescriptor.init)
    }

    /// Reads a whole small file (at most `limit` bytes), or says why it cannot. A file under
    /// a process's root is opened in that root (``openResolvingInRoot(_:_:)``).
    package static func readWholeFile(_ path: String, limit: Int = 1024 * 1024) -> Result<[UInt8], Errno> {
        let opened = openResolvingInRoot(path, .readOnly)
        guard case .success(let descriptor) = opened else { return opened.map { _ in [] } }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, into: $0) }
            guard case .success(let read) = count else { return count.map { _ in [] } }
            if read == 0 { break }
            bytes.append(contentsOf: chunk[0..<min(read, limit - bytes.count)])
        }
        return .success(bytes)
    }

    /// `recvmmsg` of up to `count` datagrams into slots of `size` bytes from `buffer`, with
    /// each one's length and flags (the shim's `cnetlink_recv_batch`); with `blocking`,
    /// waits for the first (at most the socket's receive timeout).
    package static func receiveBatch(_ descriptor: FileDescriptor, into buffer: UnsafeMutableRawPointer?, slotSize: Int, count: Int,
                             lengths: UnsafeMutablePointer<UInt32>?, flags: UnsafeMutablePointer<Int32>?, blocking: Bool) -> Result<Int32, Errno> {
        retrying("recvmmsg") { cnetlink_recv_batch(descriptor.rawValue, buffer, slotSize, UInt32(count), lengths, flags, blocking ? 1 : 0) }
    }

    /// `setns(descriptor, CLONE_NEWNET)`: the calling thread enters the network namespace.
    package static func enterNetworkNamespace(_ descriptor: FileDescriptor) -> Result<Int32, Errno> {
        retrying("setns") { cnetlink_setns_net(descriptor.rawValue) }
    }

    /// Whether interface `name` answers the wireless-extensions ioctl on `socket` (in the
    /// socket's namespace).
    package static func isWireless(_ name: String, socket: FileDescriptor) -> Bool {
        cnetlink_is_wireless(socket.rawValue, name) != 0
    }

    /// A signalfd for the (blocked) signals of `signals`.
    package static func signalDescriptor(_ signals: SignalSet) -> Result<FileDescriptor, Errno> {
        var signals = signals
        return retrying("signalfd") { cnetlink_signalfd(&signals.set) }.map(FileDescriptor.init)
    }

    /// `size` bytes of zeroed private memory of their own (`mmap`, anonymous), given back
    /// whole by ``unmapMemory(_:)``; `nil` when none is left. For the large buffers of
    /// sockets that come and go: from malloc, freeing one raises glibc's mmap threshold, and
    /// the next ones then fragment the heap (a node's namespaces churning grew the process
    /// 2.9 KB per namespace).
    package static func mapMemory(_ size: Int) -> UnsafeMutableRawBufferPointer? {
        guard let address = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              address != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
        return UnsafeMutableRawBufferPointer(start: address, count: size)
    }

    package static func unmapMemory(_ memory: UnsafeMutableRawBufferPointer) {
        _ = munmap(memory.baseAddress, memory.count)
    }

    /// One malloc arena for the whole process (`mallopt(M_ARENA_MAX, 1)`).
    package static func useOneMallocArena() {
        _ = cnetlink_single_malloc_arena()
    }

    // Files, the pipe test and the uid: only the Linux code uses them.
    /// `unlink(2)`.
    @discardableResult
    package static func unlink(_ path: String) -> Result<Int32, Errno> {
        retrying("unlink") { Glibc.unlink(path) }
    }

    /// `rename(2)`: atomically replaces `destination`.
    package static func rename(_ source: String, to destination: String) -> Result<Int32, Errno> {
        retrying("rename") { Glibc.rename(source, destination) }
    }

    /// `mkdir(2)`.
    @discardableResult
    package static func makeDirectory(_ path: String, mode: mode_t = 0o755) -> Result<Int32, Errno> {
        retrying("mkdir") { mkdir(path, mode) }
    }

    /// The names in a directory (without `.` and `..`); `nil` when it cannot be opened.
    package static func directoryNames(_ path: String) -> [String]? {
        guard let directory = withFileName(path, { opendir($0) }) else { return nil }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in FileName.decode(Array(raw.prefix { $0 != 0 })) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Calls `body` with `path` as the kernel's bytes (``FileName``): a name read from the
    /// kernel that is not UTF-8 goes back as it came.
    static func withFileName<T>(_ path: String, _ body: (UnsafePointer<CChar>) -> T) -> T {
        guard FileName.hasEscapes(path) else { return path.withCString(body) }
        return (FileName.encode(path) + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }

    /// Whether `descriptor` is a pipe (`fstat`, `S_IFIFO`).
    package static func isPipe(_ descriptor: FileDescriptor) -> Bool {
        var info = stat()
        return fstat(descriptor.rawValue, &info) == 0 && info.st_mode & S_IFMT == S_IFIFO
    }

    /// The effective user id (`uidrange` rules select on it).
    package static func effectiveUserID() -> UInt32 { UInt32(geteuid()) }

    /// Raises the soft limit of open descriptors (`RLIMIT_NOFILE`) to the hard one, as a
    /// process that never uses `select` may (systemd's services get 1,024 soft and 524,288
    /// hard). The soft limit now, or the errno.
    @discardableResult
    package static func raiseDescriptorLimit() -> Result<UInt64, Errno> {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = Int32(RLIMIT_NOFILE)
        #endif
        if case .failure(let error) = retrying("getrlimit", { getrlimit(resource, &limit) }) { return .failure(error) }
        guard limit.rlim_cur < limit.rlim_max else { return .success(UInt64(limit.rlim_cur)) }
        limit.rlim_cur = limit.rlim_max
        return retrying("setrlimit") { setrlimit(resource, &limit) }.map { _ in UInt64(limit.rlim_max) }
    }

    /// Removes `name` from the environment (`unsetenv`), so that the programs this process
    /// starts do not take it as theirs (sd_listen_fds(3)'s `unset_environment`). Only
    /// before other threads exist: the C library's environment has no lock.
    package static func unsetEnvironment(_ name: String) { _ = unsetenv(name) }

    /// Takes over a socket this process inherited from systemd (socket activation,
    /// sd_listen_fds(3)): sets close-on-exec, then, if it is a stream socket that listens
    /// (`SO_TYPE` `SOCK_STREAM`, `SO_ACCEPTCONN`: sd_is_socket(3)'s test), non-blocking.
    /// Returns whether it is one. A descriptor that is not open is the mistake of whoever
    /// set `LISTEN_FDS`, not the package's: its `EBADF` is an answer here, not a stop.
    package static func adoptListeningSocket(_ descriptor: FileDescriptor) -> Bool {
        var flags: Int32
        repeat { flags = fcntl(descriptor.rawValue, F_GETFD) } while flags < 0 && errno == EINTR
        guard flags >= 0 else { return false }
        _ = retrying("fcntl") { fcntl(descriptor.rawValue, F_SETFD, flags | FD_CLOEXEC) }
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            // ENOTSOCK for a file or a pipe.
            guard case .success = retrying("getsockopt", { getsockopt(descriptor.rawValue, SOL_SOCKET, name, &value, &length) }) else { return nil }
            return value
        }
        guard option(SO_TYPE) == Int32(SOCK_STREAM.rawValue), option(SO_ACCEPTCONN) == 1 else { return false }
        setNonBlocking(descriptor)
        return true
    }

    /// `epoll_create1(EPOLL_CLOEXEC)`.
    package static func epollCreate() -> Result<FileDescriptor, Errno> {
        retrying("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }.map(FileDescriptor.init)
    }

    /// `epoll_ctl`: `operation` (`EPOLL_CTL_ADD`, `_MOD`, `_DEL`) of `descriptor`, whose
    /// events carry `id`.
    package static func epollControl(_ epoll: FileDescriptor, _ operation: Int32, _ descriptor: FileDescriptor, events: UInt32, id: UInt64) -> Result<Int32, Errno> {
        var event = epoll_event()
        event.events = events
        event.data.u64 = id
        return retrying("epoll_ctl") { epoll_ctl(epoll.rawValue, operation, descriptor.rawValue, &event) }
    }

    /// `epoll_wait` for at most `maximum` events and `timeout` (`nil`: no limit); `body`
    /// gets each ready event's id and mask. A failure (`ENOMEM`) reports nothing.
    package static func epollWait(_ epoll: FileDescriptor, maximum: Int, timeout: Duration?, _ body: (UInt64, UInt32) -> Void) {
        let milliseconds = timeoutMilliseconds(timeout)
        return withUnsafeTemporaryAllocation(of: epoll_event.self, capacity: maximum) { events in
            guard case .success(let count) = retrying("epoll_wait", { epoll_wait(epoll.rawValue, events.baseAddress, Int32(maximum), milliseconds) }) else { return }
            for index in 0..<Int(count) { body(events[index].data.u64, events[index].events) }
        }
    }

    /// Reads until the descriptor has nothing more (`EAGAIN`) or ends: what it held is
    /// not needed, only that it was emptied.
    package static func drain(_ descriptor: FileDescriptor) {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while case .success(let count) = scratch.withUnsafeMutableBytes({ read(descriptor, into: $0) }), count > 0 {}
    }

    /// The target of the symlink `path`; `nil` when it is not one.
    package static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        guard case .success(let count) = withFileName(path, { path in retrying("readlink") { readlink(path, &buffer, buffer.count - 1) } }), count > 0
        else { return nil }
        return FileName.decode(buffer[0..<count].map { UInt8(bitPattern: $0) })
    }

    /// `stat(2)`'s inode number of `path`: for a namespace file (`/proc/PID/ns/net`, a bind
    /// mount of one), the namespace's, as `net:[INODE]` names it.
    package static func inode(_ path: String) -> Result<UInt64, Errno> {
        var status = stat()
        return withFileName(path) { path in retrying("stat") { stat(path, &status) } }.map { _ in UInt64(status.st_ino) }
    }

    package static func exists(_ path: String) -> Bool {
        withFileName(path) { access($0, F_OK) } == 0
    }

    /// `pidfd_open(2)`, close-on-exec: readable once process `pid` has exited.
    package static func processDescriptor(_ pid: Int32) -> Result<FileDescriptor, Errno> {
        retrying("pidfd_open") { cnetlink_pidfd_open(pid) }.map(FileDescriptor.init)
    }

    /// Whether `path` is a namespace file (`statfs` says nsfs, `NSFS_MAGIC`): `ip netns add`
    /// makes an empty file that only its mount makes one. Needs no permission on the file.
    package static func isNamespaceFile(_ path: String) -> Bool {
        (try? fileSystemType(path).get()) == nsfsMagic
    }

    /// `statfs(2)`'s `f_type` for `path`, or the errno.
    package static func fileSystemType(_ path: String) -> Result<Int64, Errno> {
        withFileName(path) { path in retrying("statfs") { cnetlink_file_system_type(path) } }.map { Int64($0) }
    }

    /// `NSFS_MAGIC`: the file system of namespace files.
    package static let nsfsMagic: Int64 = 0x6E73_6673

    // MARK: inotify

    /// `inotify_init1(2)`, non-blocking and close-on-exec.
    package static func inotifyInit() -> Result<FileDescriptor, Errno> {
        retrying("inotify_init1") { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }.map(FileDescriptor.init)
    }

    /// `inotify_add_watch(2)`: the watch descriptor, or the errno.
    package static func inotifyAddWatch(_ descriptor: FileDescriptor, _ path: String, mask: Inotify.Mask) -> Result<Int32, Errno> {
        withFileName(path) { path in retrying("inotify_add_watch") { inotify_add_watch(descriptor.rawValue, path, mask.rawValue) } }
    }

    /// `inotify_rm_watch(2)`.
    package static func inotifyRemoveWatch(_ descriptor: FileDescriptor, _ watch: Int32) {
        _ = retrying("inotify_rm_watch") { inotify_rm_watch(descriptor.rawValue, watch) }
    }
}

/// An IPv4 or IPv6 socket address (`sockaddr_in`, `sockaddr_in6`), made from an
/// ``IPAddress``'s bytes: the one encoder of addresses for the system calls.
package struct SocketAddress {
    package var storage = sockaddr_storage()
    package var length = socklen_t(MemoryLayout<sockaddr_storage>.size)

    package init() {}

    /// `address` and `port`; `scopeID`, an IPv6 link-local address's interface.
    package init(_ address: IPAddress, port: UInt16, scopeID: UInt32 = 0) {
        let bytes = address.bytes
        if address.family == IPAddress.inet {
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { pointer in
                    pointer.pointee.sin_family = sa_family_t(AF_INET)
                    pointer.pointee.sin_port = port.bigEndian
                    withUnsafeMutableBytes(of: &pointer.pointee.sin_addr) { $0.copyBytes(from: bytes) }
                }
            }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else {
            withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                    pointer.pointee.sin6_family = sa_family_t(AF_INET6)
                    pointer.pointee.sin6_port = port.bigEndian
                    pointer.pointee.sin6_scope_id = scopeID
                    withUnsafeMutableBytes(of: &pointer.pointee.sin6_addr) { $0.copyBytes(from: bytes) }
                }
            }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        }
    }

    /// An address in text (`192.0.2.1`, `::1`: IPv6 when it has a colon), as the system
    /// reads it (`inet_pton`), and a port; `nil` when the text is not one.
    package init?(text: String, port: UInt16) {
        let family = text.contains(":") ? AF_INET6 : AF_INET
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = family == AF_INET ? 4 : 16
        guard inet_pton(family, text, &bytes) == 1,
              let address = bytes.withUnsafeBytes({ IPAddress(family: UInt8(family), bytes: UnsafeRawBufferPointer(rebasing: $0.prefix(count))) })
        else { return nil }
        self.init(address, port: port)
    }

    /// The wildcard IPv6 address `::` and `port` (with `IPV6_V6ONLY` off, every address).
    package static func anyIPv6(port: UInt16) -> SocketAddress {
        SocketAddress(IPAddress(family: IPAddress.inet6, high: 0, low: 0), port: port)
    }

    /// Whether it is IPv6.
    package var isIPv6: Bool { storage.ss_family == sa_family_t(AF_INET6) }

    /// The IP address (`getsockname`'s answer), `nil` for another family.
    package var address: IPAddress? {
        withUnsafeBytes(of: storage) { bytes in
            switch Int32(storage.ss_family) {
            case AF_INET: IPAddress(family: IPAddress.inet, bytes: UnsafeRawBufferPointer(rebasing: bytes[4..<8]))
            case AF_INET6: IPAddress(family: IPAddress.inet6, bytes: UnsafeRawBufferPointer(rebasing: bytes[8..<24]))
            default: nil
            }
        }
    }

    /// The port (`sin_port` and `sin6_port` sit at the same offset).
    package var port: UInt16 {
        withUnsafeBytes(of: storage) { UInt16(bigEndian: $0.loadUnaligned(fromByteOffset: 2, as: UInt16.self)) }
    }

    package func withPointer<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        withUnsafePointer(to: storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) } }
    }
}
#endif
