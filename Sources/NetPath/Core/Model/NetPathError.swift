/// The one error type NetPath throws: a code, a message in words, and the errno if any.
public struct NetPathError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, as an extensible set of codes.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name.
        public let name: String
        private init(_ name: String) { self.name = name }

        /// The network namespace does not exist or is not a namespace.
        public static let namespaceNotFound = Code("namespaceNotFound")
        /// The process may not enter the namespace or open a netlink socket.
        public static let permissionDenied = Code("permissionDenied")
        /// A netlink socket call failed.
        public static let netlinkFailure = Code("netlinkFailure")
        /// The system could not start a thread that NetPath needs (a monitor's reader, the
        /// thread that enters a namespace, a connectivity check's).
        public static let threadFailure = Code("threadFailure")
        /// An answer did not come within its time bound (Apple platforms: the first path of
        /// ``PathMonitor/snapshot(requiredInterfaceType:prohibitedInterfaceTypes:namespace:meteredInterfaces:constrainedInterfaces:ultraConstrainedInterfaces:)``).
        public static let timedOut = Code("timedOut")
        /// Input NetPath was given (a trace, a URL, an expectation) is malformed.
        public static let invalidInput = Code("invalidInput")
        /// No interface has the name given (``ConnectivityCheck/run(on:namespace:)``).
        public static let interfaceNotFound = Code("interfaceNotFound")
        /// The interface exists but routes neither address family to the Internet: it is
        /// down, has no address, or no route leaves through it.
        public static let interfaceNotRouted = Code("interfaceNotRouted")
        /// The feature does not exist on this platform.
        public static let unsupported = Code("unsupported")

        public var description: String { name }
    }

    /// What went wrong.
    public let code: Code
    /// A one-line description that names the object at fault.
    public let message: String
    /// The `errno` of the failed system call, when one failed.
    public let errno: Int32?
    /// The system's words for ``errno`` (`strerror`), read where the error was made.
    package var errnoText: String?

    /// Creates an error that no system call caused.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
        errno = nil
    }

    /// Creates an error with the errno of a failed system call and the system's words for
    /// it (the initializer with `errno:` alone, in NetPath, reads them).
    package init(_ code: Code, _ message: String, errno: Int32?, errnoText: String?) {
        self.code = code
        self.message = message
        self.errno = errno
        self.errnoText = errnoText
    }

    public var description: String {
        guard let errno else { return message }
        return "\(message): \(errnoText ?? "errno \(errno)")"
    }
}
