#if os(Linux) || os(Android)

/// Watches the resolver files (SPEC §2.6) with inotify, on the reader's ``EventLoop``, and
/// tells when one may have changed, however it changed:
///
/// - the file itself is watched (its inode, through symlinks and bind mounts), so a write
///   in place is seen even where the directory's watch cannot see it (Docker and `ip netns
///   exec` bind-mount `/etc/resolv.conf`; dhclient-script then rewrites it in place);
/// - its directory is watched for its name, so a replacement by rename, a deletion or a
///   symlink retargeted is seen;
/// - a path that does not exist yet is watched at its nearest existing ancestor, for the
///   next name on the way (`/run/systemd/resolve/` at boot, `/etc/netns/NAME/`);
/// - every symlink on the way, at any step of the path or of a link's target (a link to a
///   directory swapped by rename, as NixOS switches `/etc/static`), is watched by its
///   directory for its name, and its target is followed.
///
/// After each relevant event the watches are laid again, so paths that appear, vanish and
/// come back stay watched. Idle, it never wakes. The inotify instance is its reader's
/// ``InotifyHub``, shared with every other watcher there.
final class ResolverWatcher: @unchecked Sendable {
    // `watches` is touched only by the thread that opened the watcher until its source is
    // attached to a reader, then only by the reader's thread.
    private let hub: InotifyHub
    private let paths: [String]
    private let contentPaths: [String]
    /// The watch descriptors laid, with what each is for.
    private var watches: [Int32: Watch] = [:]

    /// What one watch descriptor stands for.
    struct Watch: Equatable {
        /// Changes to the inode itself matter (a resolver file's content).
        var content = false
        /// Names in a watched directory whose changes matter.
        var names: [String] = []
    }

    /// What to watch for `paths`, as pure data (tested without inotify).
    struct Plan: Equatable {
        /// Path → what to watch there. Every path is a real one (no symlink in it).
        var watches: [String: Watch] = [:]

        /// The most symlinks one path goes through (the kernel's `MAXSYMLINKS`): a loop
        /// ends there.
        static let symlinkLimit = 40

        /// Resolves each path with `exists` and `readLink` (the target of a symlink, `nil`
        /// when the path is not one); `contentOf` says for which of `paths` the file's
        /// content matters.
        init(paths: [String], exists: (String) -> Bool, readLink: (String) -> String?, contentOf: (String) -> Bool = { _ in true }) {
            for path in paths where path.hasPrefix("/") {
                walk(path, content: contentOf(path), exists: exists, readLink: readLink)
            }
        }

        /// Resolves `path` one component at a time, as the kernel's path walk does, and
        /// adds what to watch on the way:
        ///
        /// - each symlink met, at any step (a file's, or a directory's: NixOS's
        ///   `/etc/static`, the `..data` of Kubernetes' atomic writer), by its directory
        ///   for its name, so that retargeting it or renaming another link over it is
        ///   seen; its target is resolved on from that directory;
        /// - the first component that does not exist, by its directory (the nearest
        ///   existing ancestor) for its name;
        /// - the file reached, by its directory for its name (a rename over it, its
        ///   removal) and, when `content`, itself (a write in place, also through a bind
        ///   mount).
        ///
        /// A path under a process's root (`/proc/PID/root/…`, a container's files) is walked
        /// from that root: the magic link is not followed (its target, `/`, names our own root),
        /// and an absolute link met on the way starts again there, as in the container.
        private mutating func walk(_ path: String, content: Bool, exists: (String) -> Bool, readLink: (String) -> String?) {
            let root = Plan.processRoot(of: path) ?? "/"
            var directory = root
            // The components still to walk, the next one last.
            var pending = Array(path.dropFirst(root == "/" ? 0 : root.count).split(separator: "/").reversed())
            var links = 0
            while let component = pending.popLast() {
                if component == "." { continue }
                if component == ".." {
                    // `directory` holds no symlink, so its parent is the real one.
                    if directory != root { directory = ResolverConfiguration.directory(of: directory) }
                    continue
                }
                let name = String(component)
                let candidate = directory == "/" ? "/" + name : directory + "/" + name
                if let target = readLink(candidate) {
                    watch(name, in: directory)
                    links += 1
                    guard links <= Plan.symlinkLimit else { return }
                    if target.hasPrefix("/") { directory = root }
                    pending.append(contentsOf: target.split(separator: "/").reversed())
                    continue
                }
                guard exists(candidate) else {
                    watch(name, in: directory)
                    return
                }
                if pending.isEmpty {
                    watch(name, in: directory)
                    if content { watches[candidate, default: Watch()].content = true }
                }
                directory = candidate
            }
        }

        /// `/proc/PID/root` (or `/proc/self/root`) when `path` is under it.
        static func processRoot(of path: String) -> String? {
            let parts = path.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
            guard parts.count == 4, parts[0].isEmpty, parts[1] == "proc", parts[3].hasPrefix("root"),
                  parts[2] == "self" || (!parts[2].isEmpty && parts[2].allSatisfy { $0.isASCII && $0.isNumber }) else { return nil }
            let rest = parts[3].dropFirst(4)
            guard rest.isEmpty || rest.hasPrefix("/") else { return nil }
            return "/proc/\(parts[2])/root"
        }

        private mutating func watch(_ name: String, in directory: String) {
            if !(watches[directory]?.names.contains(name) ?? false) {
                watches[directory, default: Watch()].names.append(name)
            }
        }
    }

    /// - Parameters:
    ///   - paths: The resolver files, and any other file whose appearance or removal
    ///     matters (a named namespace's file: only its directory is watched).
    ///   - contentPaths: Those of `paths` whose content matters.
    ///   - hub: The reader's inotify instance.
    init(paths: [String], contentPaths: [String], hub: InotifyHub) {
        self.hub = hub
        self.paths = paths
        self.contentPaths = contentPaths
        hub.subscribe(ObjectIdentifier(self))
        layWatches()
    }

    static let contentMask: Inotify.Mask = [.closeWrite, .modify, .attributes, .deleteSelf, .moveSelf]
    static let directoryMask: Inotify.Mask = [.closeWrite, .movedTo, .movedFrom, .create, .delete, .attributes,
                                              .deleteSelf, .moveSelf]

    /// Lays the watches the paths need now, and removes those no longer needed. A change
    /// made while they were laid may have come before the watch that would see it: the
    /// plan is made again afterwards, and laid again until it holds still.
    private func layWatches() {
        var plan = currentPlan()
        for _ in 0..<4 {
            lay(plan)
            let again = currentPlan()
            if again == plan { return }
            plan = again
        }
    }

    private func currentPlan() -> Plan {
        let contentPaths = self.contentPaths
        return Plan(paths: paths, exists: { Syscall.exists($0) }, readLink: Syscall.readLink, contentOf: contentPaths.contains)
    }

    private func lay(_ plan: Plan) {
        var laid: [Int32: Watch] = [:]
        var masks: [Int32: Inotify.Mask] = [:]
        for (path, watch) in plan.watches {
            let mask = (watch.content ? ResolverWatcher.contentMask : []).union(watch.names.isEmpty ? [] : ResolverWatcher.directoryMask)
            guard case .success(let descriptor) = hub.watch(path, mask: mask, for: ObjectIdentifier(self)) else { continue }
            // Two paths can name one inode (a bind mount of a file beside it): the second
            // watch replaced the first one's mask, so it gets both.
            if let earlier = masks[descriptor], !mask.isSuperset(of: earlier) {
                hub.watch(path, mask: earlier.union(mask), for: ObjectIdentifier(self))
            }
            masks[descriptor, default: []].formUnion(mask)
            var merged = laid[descriptor] ?? Watch()
            merged.content = merged.content || watch.content
            merged.names += watch.names.filter { !merged.names.contains($0) }
            laid[descriptor] = merged
        }
        for descriptor in watches.keys where laid[descriptor] == nil {
            hub.unwatch(descriptor, for: ObjectIdentifier(self))
        }
        watches = laid
    }


    /// Removes its watches from the hub (those no other watcher needs).
    func close() {
        hub.unsubscribe(ObjectIdentifier(self))
    }

    /// On the reader's thread: `onChange` is called there when a watched file may have
    /// changed (events that came before are handed over now).
    func join(onChange: @escaping () -> Void) {
        nonisolated(unsafe) let onChange = onChange
        hub.attach(ObjectIdentifier(self)) { [self] events in
            // Events for other names in a watched directory (every `ip netns add` in
            // /run/netns) cost no turn.
            if handle(events) { onChange() }
        }
    }

    /// Takes the events of its watch descriptors; when one matters, lays the watches again.
    ///
    /// - Returns: Whether a watched file may have changed.
    func handle(_ events: [Inotify.Event]) -> Bool {
        guard isRelevant(events) else { return false }
        layWatches()
        return true
    }

    /// Whether an event matters: a watched file's content, a watched name in a directory,
    /// a watch gone (its inode was removed), or an overflowed queue.
    private func isRelevant(_ events: [Inotify.Event]) -> Bool {
        var relevant = false
        for event in events {
            // A watch removed when the watches were last laid still reports its
            // `IN_IGNORED`: it is no longer in `watches`, and does not matter.
            if event.mask.contains(.queueOverflow) {
                relevant = true
            } else if let watch = watches[event.watch] {
                if !event.mask.isDisjoint(with: [.ignored, .deleteSelf, .moveSelf])
                    || (event.name.isEmpty && watch.content)
                    || (!event.name.isEmpty && watch.names.contains(event.name)) {
                    relevant = true
                }
            }
        }
        return relevant
    }
}
#endif
