/// A running backend that produces paths: the Linux netlink source, Apple's
/// `NWPathMonitor`, or a simulation (NetPathTestKit). Package-wide, not public: users pick
/// one through ``PathMonitor``'s initialisers.
package protocol PathSource: AnyObject, Sendable {
    /// The path at the moment the source opened, or `nil` when it comes later.
    var initialPath: NetworkPath? { get }
    /// Begins delivering changes. Returns `false` when it could not.
    func startReading() -> Bool
    /// Stops delivering and releases every resource. Safe to call more than once.
    func stop()
    /// How many times the source lost events and read the whole state again (an overrun
    /// of the kernel's queue, an interrupted dump). Safe to read from any thread.
    var resyncCount: Int { get }
    /// A clock whose timers run on the source's own event loop, while it reads (Linux:
    /// its reader's); `nil` where it has none.
    var loopClock: (any ProbeClock)? { get }
    /// The machine woke from sleep: read the state afresh (Linux: dump the kernel's tables
    /// again). From any thread; sources with nothing to read again do nothing.
    func refresh()
}

extension PathSource {
    package var resyncCount: Int { 0 }
    package var loopClock: (any ProbeClock)? { nil }
    package func refresh() {}
}

/// Opens a source for a filter; `deliver` receives each path that differs from the last,
/// `terminate` the reason when the source ends by itself (its namespace was deleted).
package typealias PathSourceFactory = @Sendable (
    _ filter: InterfaceFilter,
    _ deliver: @escaping @Sendable (NetworkPath) -> Void,
    _ terminate: @escaping @Sendable (NetPathError) -> Void
) throws -> any PathSource

#if os(Linux) || os(Android)
extension LinuxPathSource: PathSource {}
#endif
