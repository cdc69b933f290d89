#if os(Linux) || os(Android)
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An inotify instance (non-blocking, close-on-exec): the one watcher of file names the
/// package and the `netpath` tool use (the resolver files, `/run/netns`). Its owner lays
/// and removes watches, polls ``descriptor`` and reads the events.
package final class Inotify: Sendable {
    /// The events a watch asks for and an event reports, and the flags of a watch
    /// (`inotify(7)`).
    package struct Mask: OptionSet, Hashable, Sendable {
        package let rawValue: UInt32
        package init(rawValue: UInt32) { self.rawValue = rawValue }

        /// A file was modified (a write).
        ///
        /// The corresponding C constant is `IN_MODIFY`.
        package static var modify: Mask { Mask(rawValue: UInt32(IN_MODIFY)) }

        /// Metadata changed: permissions, timestamps, links (a bind mount's file touched).
        ///
        /// The corresponding C constant is `IN_ATTRIB`.
        package static var attributes: Mask { Mask(rawValue: UInt32(IN_ATTRIB)) }

        /// A file opened for writing was closed.
        ///
        /// The corresponding C constant is `IN_CLOSE_WRITE`.
        package static var closeWrite: Mask { Mask(rawValue: UInt32(IN_CLOSE_WRITE)) }

        /// A name was moved out of the watched directory.
        ///
        /// The corresponding C constant is `IN_MOVED_FROM`.
        package static var movedFrom: Mask { Mask(rawValue: UInt32(IN_MOVED_FROM)) }

        /// A name was moved into the watched directory (a rename into place).
        ///
        /// The corresponding C constant is `IN_MOVED_TO`.
        package static var movedTo: Mask { Mask(rawValue: UInt32(IN_MOVED_TO)) }

        /// A name was created in the watched directory.
        ///
        /// The corresponding C constant is `IN_CREATE`.
        package static var create: Mask { Mask(rawValue: UInt32(IN_CREATE)) }

        /// A name was deleted from the watched directory.
        ///
        /// The corresponding C constant is `IN_DELETE`.
        package static var delete: Mask { Mask(rawValue: UInt32(IN_DELETE)) }

        /// The watched file or directory itself was deleted.
        ///
        /// The corresponding C constant is `IN_DELETE_SELF`.
        package static var deleteSelf: Mask { Mask(rawValue: UInt32(IN_DELETE_SELF)) }

        /// The watched file or directory itself was moved.
        ///
        /// The corresponding C constant is `IN_MOVE_SELF`.
        package static var moveSelf: Mask { Mask(rawValue: UInt32(IN_MOVE_SELF)) }

        /// Reported: the event queue overflowed, events were lost (watch descriptor -1).
        ///
        /// The corresponding C constant is `IN_Q_OVERFLOW`.
        package static var queueOverflow: Mask { Mask(rawValue: UInt32(IN_Q_OVERFLOW)) }

        /// Reported: the watch was removed (by `inotify_rm_watch`, or its inode is gone).
        ///
        /// The corresponding C constant is `IN_IGNORED`.
        package static var ignored: Mask { Mask(rawValue: UInt32(IN_IGNORED)) }

        /// A watch flag: watch the path only if it is a directory.
        ///
        /// The corresponding C constant is `IN_ONLYDIR`.
        package static var onlyDirectory: Mask { Mask(rawValue: UInt32(IN_ONLYDIR)) }

        /// A watch flag: add to the mask of the inode's existing watch rather than replace it.
        ///
        /// The corresponding C constant is `IN_MASK_ADD`.
        package static var maskAdd: Mask { Mask(rawValue: UInt32(IN_MASK_ADD)) }
    }

    /// One `struct inotify_event`.
    package struct Event: Equatable, Sendable {
        /// The watch descriptor it is about.
        package var watch: Int32
        package var mask: Mask
        /// The name in a watched directory; empty for the watched inode itself.
        package var name: String
    }

    package let descriptor: FileDescriptor

    /// - Throws: The errno of `inotify_init1`.
    package init() throws(Errno) {
        descriptor = try Syscall.inotifyInit().get()
    }

    /// Watches `path` for the events in `mask`; the watch descriptor, or the errno. A second
    /// watch of the same inode replaces the first one's mask (unless it has ``Mask/maskAdd``).
    @discardableResult
    package func watch(_ path: String, mask: Mask) -> Result<Int32, Errno> {
        Syscall.inotifyAddWatch(descriptor, path, mask: mask)
    }

    package func removeWatch(_ watch: Int32) {
        Syscall.inotifyRemoveWatch(descriptor, watch)
    }

    /// Reads every queued event (the queue is then empty).
    package func readEvents() -> [Event] {
        var events: [Event] = []
        var scratch = [UInt8](repeating: 0, count: 4096)
        while case .success(let count) = scratch.withUnsafeMutableBytes({ Syscall.read(descriptor, into: $0) }), count > 0 {
            events += Inotify.parse(scratch[..<count])
        }
        return events
    }

    /// The events in `bytes`: `struct inotify_event` — wd, mask, cookie, len (4 bytes each),
    /// then len bytes of NUL-padded name. A truncated event ends the list.
    package static func parse(_ bytes: ArraySlice<UInt8>) -> [Event] {
        let bytes = Array(bytes)
        var events: [Event] = []
        var offset = 0
        while offset + 16 <= bytes.count {
            let (watch, mask, length) = bytes.withUnsafeBytes {
                ($0.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                 $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                 Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
            }
            let end = min(offset + 16 + length, bytes.count)
            let name = FileName.decode(bytes[(offset + 16)..<end].prefix { $0 != 0 })
            events.append(Event(watch: watch, mask: Mask(rawValue: mask), name: name))
            offset = end
        }
        return events
    }

    package func close() {
        Syscall.close(descriptor)
    }
}
#endif
