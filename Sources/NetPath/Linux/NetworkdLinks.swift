#if os(Linux) || os(Android)

/// The captive-portal URLs systemd-networkd recorded (`CAPTIVE_PORTAL=` in
/// `/run/systemd/netif/links/IFINDEX`: DHCP option 114 or the RA option of RFC 8910), read
/// as libsystemd's network API reads them and watched with inotify on an ``EventLoop``.
/// Without networkd the directory does not exist: its nearest existing ancestor is watched
/// until it appears. Idle, it never wakes. Used by one thread, the loop's.
final class NetworkdLinks {
    static let directory = "/run/systemd/netif/links"
    private let inotify: Inotify
    private let directory: String
    private var registration: EventLoop.Registration?
    private var watches: [Int32] = []
    /// The URLs by interface index.
    private(set) var captivePortals: [Int32: String] = [:]

    /// Names changing in a directory: networkd writes each file to a temporary name and
    /// renames it into place.
    private static let mask: Inotify.Mask = [.create, .movedTo, .movedFrom, .delete, .closeWrite,
                                             .deleteSelf, .moveSelf, .onlyDirectory]

    /// - Throws: The errno of `inotify_init1`.
    init(directory: String = NetworkdLinks.directory) throws(Errno) {
        inotify = try Inotify()
        self.directory = directory
    }

    /// Starts watching on `loop`; `changed` is called there when the URLs changed.
    func start(on loop: EventLoop, changed: @escaping ([Int32: String]) -> Void) {
        layWatch()
        captivePortals = read()
        registration = loop.register(inotify.descriptor, for: .readable) { [self] _ in
            guard !inotify.readEvents().isEmpty else { return }
            layWatch()
            let now = read()
            guard now != captivePortals else { return }
            captivePortals = now
            changed(now)
        }
    }

    /// Watches the directory, or its nearest existing ancestor until it exists.
    private func layWatch() {
        for watch in watches { inotify.removeWatch(watch) }
        watches = []
        var path = directory
        while !path.isEmpty {
            if case .success(let watch) = inotify.watch(path, mask: NetworkdLinks.mask) {
                watches.append(watch)
                return
            }
            path = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        }
    }

    private func read() -> [Int32: String] {
        NetworkdLinks.read(directory)
    }

    /// Every link file's URL in `directory`, by the index that names the file (a one-shot
    /// answer reads them so, without an inotify instance).
    static func read(_ directory: String = NetworkdLinks.directory) -> [Int32: String] {
        var portals: [Int32: String] = [:]
        for name in Syscall.directoryNames(directory) ?? [] {
            guard let index = Int32(name), index > 0,
                  let contents = Syscall.readFile(directory + "/" + name, limit: 64 * 1024),
                  let url = NetworkdLinkFile.captivePortal(in: contents) else { continue }
            portals[index] = url
        }
        return portals
    }

    /// Leaves the loop and closes the inotify instance. On the loop's thread.
    func stop(on loop: EventLoop) {
        if let registration { loop.deregister(registration) }
        registration = nil
        inotify.close()
    }
}
#endif
