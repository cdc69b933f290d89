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
    /// One `struct inotify_event`.
    package struct Event: Equatable, Sendable {
        /// The watch descriptor it is about.
        package var watch: Int32
        package var mask: UInt32
        /// The name in a watched directory; empty for the watched inode itself.
        package var name: String
    }

    package let descriptor: FileDescriptor

    /// - Throws: The errno of `inotify_init1`.
    package init() throws(Errno) {
        descriptor = try Syscall.inotifyInit().get()
    }

    /// Watches `path` for the events in `mask` (`IN_*`); the watch descriptor, or the errno.
    /// A second watch of the same inode replaces the first one's mask.
    @discardableResult
    package func watch(_ path: String, mask: UInt32) -> Result<Int32, Errno> {
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
            events.append(Event(watch: watch, mask: mask, name: name))
            offset = end
        }
        return events
    }

    package func close() {
        Syscall.close(descriptor)
    }
}
#endif
