/// An open file descriptor: the kernel's number for a socket, file, pipe, epoll or inotify
/// instance (swift-system's `FileDescriptor`). A value never holds -1: a descriptor that may
/// be missing is an optional. Only the syscall layer reads ``rawValue``; the pure core names
/// the descriptors its actions are about (the connectivity check's sockets) with it.
package struct FileDescriptor: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    package let rawValue: Int32

    package init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    package static let standardInput = FileDescriptor(rawValue: 0)
    package static let standardOutput = FileDescriptor(rawValue: 1)
    package static let standardError = FileDescriptor(rawValue: 2)

    package static func < (lhs: FileDescriptor, rhs: FileDescriptor) -> Bool { lhs.rawValue < rhs.rawValue }

    package var description: String { "fd \(rawValue)" }
}
