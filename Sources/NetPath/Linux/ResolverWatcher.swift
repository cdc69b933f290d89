#if os(Linux) || os(Android)
import CNetlink
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Watches the resolver files (SPEC §2.6) with inotify on a thread of its own, and calls
/// `onChange` when one may have changed, however it changed:
///
/// - the file itself is watched (its inode, through symlinks and bind mounts), so a write
///   in place is seen even where the directory's watch cannot see it (Docker and `ip netns
///   exec` bind-mount `/etc/resolv.conf`; dhclient-script then rewrites it in place);
/// - its directory is watched for its name, so a replacement by rename, a deletion or a
///   symlink retargeted is seen;
/// - a path that does not exist yet is watched at its nearest existing ancestor, for the
///   next name on the way (`/run/systemd/resolve/` at boot, `/etc/netns/NAME/`);
/// - a symlink's target is watched too, link by link.
///
/// After each relevant event the watches are laid again, so paths that appear, vanish and
/// come back stay watched. The thread blocks in `poll` on the inotify descriptor and an
/// eventfd (its stop signal): idle, it never wakes.
final class ResolverWatcher: @unchecked Sendable {
    // `watches` is touched only by the thread that opened the watcher until `start`, then
    // only by the watch thread (or, shared, the reader thread); `thread` only by the owner
    // (start, stop).
    private let inotifyFD: Int32
    private let wakeFD: Int32
    private let paths: [String]
    private let contentPaths: [String]
    private let onChange: @Sendable () -> Void
    /// The watch descriptors laid, with what each is for.
    private var watches: [Int32: Watch] = [:]
    private var thread: pthread_t?

    /// What one watch descriptor stands for.
    struct Watch: Equatable {
        /// Changes to the inode itself matter (a resolver file's content).
        var content = false
        /// Names in a watched directory whose changes matter.
        var names: [String] = []
    }

    /// What to watch for `paths`, as pure data (tested without inotify).
    struct Plan: Equatable {
        /// Path → what to watch there.
        var watches: [String: Watch] = [:]

        /// Resolves each path with `exists` and `readLink` (the target of a symlink, `nil`
        /// when the path is not one).
        init(paths: [String], exists: (String) -> Bool, readLink: (String) -> String?, contentOf: (String) -> Bool = { _ in true }) {
            var pending = paths.map { ($0, 0) }
            var seen: [String] = []
            while let (path, depth) = pending.popLast() {
                guard path.hasPrefix("/"), !seen.contains(path) else { continue }
                seen.append(path)
                if exists(path) && contentOf(path) { watches[path, default: Watch()].content = true }
                // The nearest existing ancestor, for the next name on the way down.
                var child = path
                var parent = ResolverConfiguration.directory(of: child)
                while !exists(parent) && parent != "/" {
                    child = parent
                    parent = ResolverConfiguration.directory(of: parent)
                }
                let name = String(child.split(separator: "/").last ?? "")
                if !name.isEmpty && !(watches[parent]?.names.contains(name) ?? false) {
                    watches[parent, default: Watch()].names.append(name)
                }
                if depth < 8, let target = readLink(path) {
                    let absolute = target.hasPrefix("/") ? target : ResolverConfiguration.directory(of: path) + "/" + target
                    pending.append((Plan.normalized(absolute), depth + 1))
                }
            }
        }

        /// `path` with `.` and `..` resolved lexically (a symlink's relative target).
        static func normalized(_ path: String) -> String {
            var parts: [Substring] = []
            for part in path.split(separator: "/") where part != "." {
                if part == ".." { _ = parts.popLast() } else { parts.append(part) }
            }
            return "/" + parts.joined(separator: "/")
        }
    }

    /// - Parameters:
    ///   - paths: The resolver files, and any other file whose appearance or removal
    ///     matters (a named namespace's file: only its directory is watched).
    ///   - contentPaths: Those of `paths` whose content matters.
    /// - Throws: ``NetPathError`` when the inotify instance or the eventfd cannot be made.
    init(paths: [String], contentPaths: [String], onChange: @escaping @Sendable () -> Void) throws {
        let inotify = Syscall.retrying { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) }
        let wake = Syscall.retrying { cnetlink_eventfd() }
        switch (inotify, wake) {
        case (.success(let inotifyFD), .success(let wakeFD)):
            self.inotifyFD = inotifyFD
            self.wakeFD = wakeFD
        case (.failure(let error), let other), (let other, .failure(let error)):
            if case .success(let fd) = other { Syscall.close(fd) }
            throw NetPathError(.netlinkFailure, "cannot create the monitor's resolver watch", errno: error.rawValue)
        }
        self.paths = paths
        self.contentPaths = contentPaths
        self.onChange = onChange
        layWatches()
    }

    static let contentMask = UInt32(IN_CLOSE_WRITE | IN_MODIFY | IN_ATTRIB | IN_DELETE_SELF | IN_MOVE_SELF)
    static let directoryMask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_ATTRIB
                                      | IN_DELETE_SELF | IN_MOVE_SELF)

    /// Lays the watches the paths need now, and removes those no longer needed.
    private func layWatches() {
        let contentPaths = self.contentPaths
        let plan = Plan(
            paths: paths,
            exists: { Syscall.exists($0) },
            readLink: ResolverWatcher.readLink,
            contentOf: { path in contentPaths.contains(path) || !paths.contains(path) }
        )
        var laid: [Int32: Watch] = [:]
        for (path, watch) in plan.watches {
            let mask = (watch.content ? ResolverWatcher.contentMask : 0) | (watch.names.isEmpty ? 0 : ResolverWatcher.directoryMask)
            let descriptor = inotify_add_watch(inotifyFD, path, mask)
            guard descriptor >= 0 else { continue }
            // Two paths can name one inode (a symlink's target in the same directory).
            var merged = laid[descriptor] ?? Watch()
            merged.content = merged.content || watch.content
            merged.names += watch.names.filter { !merged.names.contains($0) }
            laid[descriptor] = merged
        }
        for descriptor in watches.keys where laid[descriptor] == nil {
            _ = inotify_rm_watch(inotifyFD, descriptor)
        }
        watches = laid
    }

    private static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink(path, &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Starts the watch thread.
    func start(name: String) -> Bool {
        thread = OwnThread.start(name: name) { [self] in run() }
        return thread != nil
    }

    /// Ends the watch thread (through the eventfd), waits for it, closes the descriptors.
    func stop() {
        if let thread {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
            pthread_join(thread, nil)
            self.thread = nil
        }
        Syscall.close(inotifyFD)
        Syscall.close(wakeFD)
    }

    private func run() {
        var descriptors = [pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0),
                           pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = Syscall.retrying { poll(&descriptors, 2, -1) }
            guard case .success = ready, descriptors[1].revents == 0 else { return }
            if descriptors[0].revents != 0 { handleReadable() }
        }
    }

    /// The inotify descriptor, for a ``SharedReader`` that polls it instead of a watch
    /// thread of the watcher's own.
    var descriptor: Int32 { inotifyFD }

    /// Reads the queued events; when one matters, lays the watches again and calls
    /// `onChange`. Called by the watch thread, or by the shared reader when
    /// ``descriptor`` is readable (never both: a shared watcher is never started).
    func handleReadable() {
        guard drain() else { return }
        layWatches()
        onChange()
    }

    /// Empties the inotify queue. Returns whether an event matters: a watched file's
    /// content, a watched name in a directory, a watch gone (its inode was removed), or an
    /// overflowed queue.
    private func drain() -> Bool {
        var scratch = [UInt8](repeating: 0, count: 4096)
        var relevant = false
        while true {
            let count = scratch.withUnsafeMutableBytes { read(inotifyFD, $0.baseAddress, $0.count) }
            if count <= 0 { break }
            // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of
            // NUL-padded name.
            var offset = 0
            while offset + 16 <= count {
                let (descriptor, mask, length) = scratch.withUnsafeBytes {
                    ($0.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                     $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                     Int($0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self)))
                }
                let end = min(offset + 16 + length, count)
                let name = String(decoding: scratch[(offset + 16)..<end].prefix { $0 != 0 }, as: UTF8.self)
                let watch = watches[descriptor]
                if mask & UInt32(IN_Q_OVERFLOW | IN_IGNORED | IN_DELETE_SELF | IN_MOVE_SELF) != 0
                    || (name.isEmpty && watch?.content == true)
                    || (!name.isEmpty && watch?.names.contains(name) == true) {
                    relevant = true
                }
                offset = end
            }
        }
        return relevant
    }
}
#endif
