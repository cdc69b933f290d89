// What the tool and the syscall layer use of Apple's libc (Darwin), as Swift imports it from the iOS 17.4 SDK: a Glibc-only call fails against it.
public typealias sigset_t = UInt32
public typealias sig_t = @convention(c) (Int32) -> Void
public typealias mode_t = UInt16
public typealias nfds_t = UInt32

public var SIGHUP: Int32 { 1 }
public var SIGINT: Int32 { 2 }
public var SIGPIPE: Int32 { 13 }
public var SIGTERM: Int32 { 15 }
public var SIG_BLOCK: Int32 { 1 }
public var SIG_IGN: sig_t { fatalError() }
public var EPERM: Int32 { 1 }
public var ENOENT: Int32 { 2 }
public var EINTR: Int32 { 4 }
public var EBADF: Int32 { 9 }
public var EACCES: Int32 { 13 }
public var EFAULT: Int32 { 14 }
public var EINVAL: Int32 { 22 }
public var EPIPE: Int32 { 32 }
public var EAGAIN: Int32 { 35 }
public var EINPROGRESS: Int32 { 36 }
public var EAFNOSUPPORT: Int32 { 47 }
public var EADDRNOTAVAIL: Int32 { 49 }
public var ENETDOWN: Int32 { 50 }
public var ENETUNREACH: Int32 { 51 }
public var ENOBUFS: Int32 { 55 }
public var EHOSTUNREACH: Int32 { 65 }
public var EOPNOTSUPP: Int32 { 102 }
public var F_GETFL: Int32 { 3 }
public var F_SETFL: Int32 { 4 }
public var F_SETFD: Int32 { 2 }
public var FD_CLOEXEC: Int32 { 1 }
public var O_NONBLOCK: Int32 { 4 }
public var POLLIN: Int32 { 1 }
public var POLLPRI: Int32 { 2 }
public var POLLOUT: Int32 { 4 }
public var POLLERR: Int32 { 8 }
public var POLLHUP: Int32 { 16 }
public var SIG_UNBLOCK: Int32 { 2 }
public var errno: Int32 { get { fatalError() } set { fatalError() } }

@discardableResult public func sigemptyset(_ set: UnsafeMutablePointer<sigset_t>!) -> Int32 { fatalError() }
@discardableResult public func sigaddset(_ set: UnsafeMutablePointer<sigset_t>!, _ signal: Int32) -> Int32 { fatalError() }
@discardableResult public func pthread_sigmask(_ how: Int32, _ set: UnsafePointer<sigset_t>?, _ old: UnsafeMutablePointer<sigset_t>?) -> Int32 { fatalError() }
@discardableResult public func sigwait(_ set: UnsafePointer<sigset_t>!, _ signal: UnsafeMutablePointer<Int32>!) -> Int32 { fatalError() }
@discardableResult public func signal(_ signal: Int32, _ handler: sig_t!) -> sig_t! { fatalError() }
@discardableResult public func write(_ descriptor: Int32, _ buffer: UnsafeRawPointer!, _ count: Int) -> Int { fatalError() }
@discardableResult public func read(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer!, _ count: Int) -> Int { fatalError() }
@discardableResult public func close(_ descriptor: Int32) -> Int32 { fatalError() }
@discardableResult public func strerror(_ code: Int32) -> UnsafeMutablePointer<CChar>! { fatalError() }
@discardableResult public func pipe(_ descriptors: UnsafeMutablePointer<Int32>!) -> Int32 { fatalError() }
@discardableResult public func fcntl(_ fd: Int32, _ cmd: Int32) -> Int32 { fatalError() }
@discardableResult public func fcntl(_ fd: Int32, _ cmd: Int32, _ value: Int32) -> Int32 { fatalError() }
@discardableResult public func poll(_ descriptors: UnsafeMutablePointer<pollfd>!, _ count: nfds_t, _ timeout: Int32) -> Int32 { fatalError() }
@discardableResult public func isatty(_ descriptor: Int32) -> Int32 { fatalError() }
@discardableResult public func getenv(_ name: UnsafePointer<CChar>!) -> UnsafeMutablePointer<CChar>! { fatalError() }
@discardableResult public func clock_gettime(_ clock: clockid_t, _ time: UnsafeMutablePointer<timespec>!) -> Int32 { fatalError() }
public func _exit(_ status: Int32) -> Never { fatalError() }
public func getpid() -> Int32 { fatalError() }
public func pthread_mutex_init(_ mutex: UnsafeMutablePointer<pthread_mutex_t>!, _ attributes: UnsafePointer<pthread_mutexattr_t>!) -> Int32 { fatalError() }
public func pthread_mutex_lock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>!) -> Int32 { fatalError() }
public func pthread_mutex_unlock(_ mutex: UnsafeMutablePointer<pthread_mutex_t>!) -> Int32 { fatalError() }
@discardableResult public func pthread_mutex_destroy(_ mutex: UnsafeMutablePointer<pthread_mutex_t>!) -> Int32 { fatalError() }

public struct pollfd {
    public var fd: Int32
    public var events: Int16
    public var revents: Int16
    public init(fd: Int32, events: Int16, revents: Int16) { self.fd = fd; self.events = events; self.revents = revents }
}
public struct pthread_mutex_t { public init() {} }
public struct pthread_mutexattr_t { public init() {} }
public struct timespec {
    public var tv_sec: Int
    public var tv_nsec: Int
    public init() { tv_sec = 0; tv_nsec = 0 }
}
public struct clockid_t: Equatable, RawRepresentable {
    public var rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
}
public var CLOCK_REALTIME: clockid_t { clockid_t(rawValue: 0) }
public var CLOCK_MONOTONIC: clockid_t { clockid_t(rawValue: 6) }
