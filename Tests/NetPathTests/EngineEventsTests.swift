import Testing
@testable import NetPath
@testable import NetPathCore

/// The engine as the reader drives it: events in, actions out.
@Suite struct EngineEventsTests {
    @Test func aStartSendsTheLinksDumpAndAnEmptiedBatchStopsTheRead() {
        var engine = NetlinkEngine.pure()
        #expect(engine.handle(.start, at: 0).isEmpty)
        let first = engine.handle(.step, at: 0)
        #expect(first.count == 1)
        guard case .send(let bytes)? = first.first else { return }
        #expect(NetlinkParser.parse(bytes).map(\.type) == [Netlink.MessageType.getLink])
        // While the dump runs, a short batch does not end the read: its reply is coming.
        #expect(engine.handle(.batchEnded(full: false), at: 0) == [])
        #expect(engine.schedule(now: 0).wake == EngineTimers.stallTimeout && !engine.schedule(now: 0).paused)
    }

    @Test func aDeletedNamespaceDeliversNoInterfaceOnceAndSocketErrorsPause() {
        var engine = NetlinkEngine.pure()
        let gone = engine.handle(.namespaceDeleted, at: 0)
        #expect(gone == [.deliver(NetworkPath(status: .unsatisfied, unsatisfiedReason: .notAvailable, diagnosis: .noInterface))])
        // The first error asks for a resynchronisation (the links dump); the second, with the
        // dump still running, asks for none more, and pauses the reader 1 ms.
        let first = engine.handle(.turnEnded(socketFailed: true), at: 0)
        let second = engine.handle(.turnEnded(socketFailed: true), at: 0)
        guard case .send(let bytes)? = first.first, first.count == 1 else {
            Issue.record("no resynchronisation asked for: \(first)")
            return
        }
        #expect(NetlinkParser.parse(bytes).map(\.type) == [Netlink.MessageType.getLink] && second.isEmpty)
        #expect(engine.schedule(now: 0).paused && engine.schedule(now: 0).wake == 1_000_000)
        _ = engine.handle(.turnEnded(socketFailed: false), at: 0)
        #expect(!engine.schedule(now: 0).paused)
        #expect(engine.dumps.resyncCount == 0)
    }
}
