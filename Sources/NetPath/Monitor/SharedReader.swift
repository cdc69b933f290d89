/// One thread that reads the kernel for any number of ``PathMonitor``s: give the same
/// reader to every monitor of a service that watches many network namespaces, and the
/// service keeps one thread for all of them instead of two per monitor.
///
/// ```swift
/// let reader = SharedReader()
/// let monitors = ["blue", "green"].map { PathMonitor(configuration: .init(namespace: .named($0)), reader: reader) }
/// for monitor in monitors { try monitor.start() }
/// ```
///
/// On Linux the reader's thread polls the netlink socket and resolver-file watch of every
/// running monitor that shares it, and runs only while at least one does: it starts with
/// the first monitor's `start()` and ends after the last one's `cancel()`. Idle, it never
/// wakes. A monitor with a reader of its own (the default) reacts a little sooner, since
/// its thread waits in the receive call itself; a shared reader costs one `poll` more per
/// change, and a path handler that blocks delays the other monitors' changes.
///
/// On Apple platforms each monitor has its `NWPathMonitor`, and the reader does nothing.
public final class SharedReader: Sendable {
    #if os(Linux) || os(Android)
    let thread = SharedReaderThread()
    #endif

    /// Creates a reader; its thread starts with the first monitor that uses it.
    public init() {}
}
