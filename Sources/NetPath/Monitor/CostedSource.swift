extension InterfaceCosts {
    /// Wraps a source factory so that every path its sources report, the first included,
    /// carries the configured costs: the one place a monitor applies them, before a
    /// connectivity check sees the path (it runs on no ultra-constrained path).
    ///
    /// - Parameter base: The factory of the backend's sources.
    /// - Returns: `base` itself when nothing is configured.
    func wrap(_ base: @escaping PathSourceFactory) -> PathSourceFactory {
        guard !isEmpty else { return base }
        return { [self] filter, deliver, terminate in
            let inner = try base(filter, { path in deliver(apply(to: path)) }, terminate)
            return CostedSource(inner: inner, initialPath: inner.initialPath.map(apply))
        }
    }
}

/// A source whose paths carry the configured costs (see ``InterfaceCosts/wrap(_:)``).
final class CostedSource: PathSource {
    let inner: any PathSource
    let initialPath: NetworkPath?
    var resyncCount: Int { inner.resyncCount }
    var loopClock: (any ProbeClock)? { inner.loopClock }

    init(inner: any PathSource, initialPath: NetworkPath?) {
        self.inner = inner
        self.initialPath = initialPath
    }

    func startReading() -> Bool { inner.startReading() }
    func stop() { inner.stop() }
    func refresh() { inner.refresh() }
}
