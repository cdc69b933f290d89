// How ``Syscall/open(_:_:options:permissions:)`` opens a file (swift-system's
// `FileDescriptor.AccessMode` and `OpenOptions`), each named once from the C library's
// constant.
#if (os(Linux) || os(Android)) && canImport(CNetlink)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension FileDescriptor {
    /// What a descriptor is opened for: reading, writing or both.
    package struct AccessMode: RawRepresentable, Hashable, Sendable {
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }

        /// Reading only.
        ///
        /// The corresponding C constant is `O_RDONLY`.
        package static var readOnly: AccessMode { AccessMode(rawValue: O_RDONLY) }

        /// Writing only.
        ///
        /// The corresponding C constant is `O_WRONLY`.
        package static var writeOnly: AccessMode { AccessMode(rawValue: O_WRONLY) }

        /// Reading and writing.
        ///
        /// The corresponding C constant is `O_RDWR`.
        package static var readWrite: AccessMode { AccessMode(rawValue: O_RDWR) }
    }

    /// How a file is opened beside its access mode (close-on-exec always is).
    package struct OpenOptions: OptionSet, Hashable, Sendable {
        package let rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }

        /// The file is created if it does not exist.
        ///
        /// The corresponding C constant is `O_CREAT`.
        package static var create: OpenOptions { OpenOptions(rawValue: O_CREAT) }

        /// An existing file is emptied.
        ///
        /// The corresponding C constant is `O_TRUNC`.
        package static var truncate: OpenOptions { OpenOptions(rawValue: O_TRUNC) }

        /// The open fails unless the path is a directory.
        ///
        /// The corresponding C constant is `O_DIRECTORY`.
        package static var directory: OpenOptions { OpenOptions(rawValue: O_DIRECTORY) }
    }
}
#endif
