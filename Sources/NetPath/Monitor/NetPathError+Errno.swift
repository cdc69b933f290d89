extension NetPathError {
    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong.
    ///   - message: A one-line description that names the object at fault.
    ///   - errno: The `errno` of the failed system call, if one failed; its text is read now.
    public init(_ code: Code, _ message: String, errno: Int32?) {
        self.init(code, message, errno: errno, errnoText: errno.map { Errno($0).description })
    }

    /// Creates an error from a failed system call: its errno, and the call's name (which the
    /// syscall layer put in `error`) before the system's words for it (`open: Permission
    /// denied`), as swift-nio's `IOError` names it.
    package init(_ code: Code, _ message: String, _ error: Errno) {
        self.init(code, message, errno: error.rawValue, errnoText: error.description)
    }
}
