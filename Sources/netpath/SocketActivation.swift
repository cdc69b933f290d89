#if os(Linux)
import NetPath

/// `serve --systemd-socket`: the listening sockets systemd passes (socket activation), as
/// sd_listen_fds(3) finds them: `LISTEN_FDS` descriptors from 3 on, for the process
/// `LISTEN_PID` names. Both variables (and `LISTEN_FDNAMES`) are removed from the
/// environment once read, whatever they said, so that no program started later takes them.
enum SocketActivation {
    /// The first passed descriptor (`SD_LISTEN_FDS_START`).
    static let firstDescriptor: Int32 = 3
    /// The variables systemd sets, removed once read.
    static let variables = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]

    /// The descriptors passed to `processID`, from the values of `LISTEN_PID` and
    /// `LISTEN_FDS`. Pure: the environment is read by ``listeningSockets()``.
    ///
    /// - Returns: The descriptors, or why there are none for this process (one line).
    static func descriptors(listenPID: String?, listenFDs: String?, processID: Int32) -> Result<[FileDescriptor], ListenFailure> {
        func failure(_ reason: String) -> Result<[FileDescriptor], ListenFailure> {
            .failure(ListenFailure(message: "no socket from systemd: \(reason)"))
        }
        guard let listenFDs else {
            return failure("LISTEN_FDS is not set (start it from a .socket unit, or with systemd-socket-activate)")
        }
        guard let listenPID else { return failure("LISTEN_PID is not set") }
        guard let pid = decimal(listenPID), pid > 0 else { return failure("LISTEN_PID '\(listenPID)' is not a process id") }
        guard pid == processID else { return failure("LISTEN_PID is \(pid), not this process (\(processID))") }
        guard let count = decimal(listenFDs), count <= Int(Int32.max - firstDescriptor) else {
            return failure("LISTEN_FDS '\(listenFDs)' is not a number of sockets")
        }
        guard count > 0 else { return failure("LISTEN_FDS is 0") }
        return .success((0..<Int32(count)).map { FileDescriptor(rawValue: firstDescriptor + $0) })
    }

    /// A decimal number of at most 9 digits, as systemd writes them (no sign, no spaces).
    private static func decimal(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 9, text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int(text)
    }

    /// The passed sockets, each made close-on-exec and non-blocking, with the address it
    /// listens at. Called before any thread exists (it changes the environment).
    ///
    /// - Throws: ``ListenFailure``: nothing passed to this process, or a descriptor that
    ///   is not a listening TCP socket (systemd's `Accept=yes` passes connections: one
    ///   process per client, which `serve` is not made for).
    static func listeningSockets() throws(ListenFailure) -> [(FileDescriptor, ListenAddress)] {
        let passed = descriptors(listenPID: Syscall.environment("LISTEN_PID"), listenFDs: Syscall.environment("LISTEN_FDS"),
                                 processID: Syscall.processID())
        for name in variables { Syscall.unsetEnvironment(name) }
        var sockets: [(FileDescriptor, ListenAddress)] = []
        for fd in try passed.get() {
            guard Syscall.adoptListeningSocket(fd) else {
                throw ListenFailure(message: "descriptor \(fd.rawValue) from systemd is not a listening stream socket (ListenStream= with Accept=no)")
            }
            guard case .success(let local) = Syscall.localAddress(fd), let address = local.address else {
                throw ListenFailure(message: "descriptor \(fd.rawValue) from systemd is not a TCP socket (ListenStream=PORT or ADDRESS:PORT)")
            }
            sockets.append((fd, ListenAddress(host: address.description, port: local.port)))
        }
        return sockets
    }
}
#endif
