#if os(Linux) || os(Android)
// TEMPORARY: replaced by the D-Bus watcher (branch desktop-bus).
final class DesktopWatcher: Sendable {
    static func system(onChange: @escaping @Sendable (DesktopKnowledge) -> Void) -> DesktopWatcher { DesktopWatcher() }
    var knowledge: DesktopKnowledge { DesktopKnowledge() }
    func waitForFirstAnswer(authenticatedBy: UInt64, answeredBy: UInt64) {}
    func stop() {}
}
#endif
