import Testing
@testable import NetPath
@testable import NetPathCore

/// The engine as the reader drives it: events in, actions out.
@Suite struct EngineEventsTests {
    @Test func aStartSendsTheLinksDumpAndAnEmptiedBatchStopsTheRead() {
        var engine = NetlinkEngine.pure()
        #expect(engine.handle(.start, at: .zero).isEmpty)
        let first = engine.handle(.step, at: .zero)
        #expect(first.count == 1)
        guard case .send(let bytes)? = first.first else { return }
        #expect(NetlinkParser.parse(bytes).map(\.type) == [Netlink.MessageType.getLink])
        // While the dump runs, a short batch does not end the read: its reply is coming.
        #expect(engine.handle(.batchEnded(full: false), at: .zero) == [])
        #expect(engine.schedule(now: .zero).wake == .zero + EngineTimers.stallTimeout && !engine.schedule(now: .zero).paused)
    }

    @Test func aDeletedNamespaceDeliversNoInterfaceOnceAndSocketErrorsPause() {
        var engine = NetlinkEngine.pure()
        let gone = engine.handle(.namespaceDeleted, at: .zero)
        #expect(gone == [.deliver(NetworkPath(status: .unsatisfied, unsatisfiedReason: .notAvailable, diagnosis: .noInterface))])
        // The first error asks for a resynchronisation (the links dump); the second, with the
        // dump still running, asks for none more, and pauses the reader 1 ms.
        let first = engine.handle(.turnEnded(socketFailed: true), at: .zero)
        let second = engine.handle(.turnEnded(socketFailed: true), at: .zero)
        guard case .send(let bytes)? = first.first, first.count == 1 else {
            Issue.record("no resynchronisation asked for: \(first)")
            return
        }
        #expect(NetlinkParser.parse(bytes).map(\.type) == [Netlink.MessageType.getLink] && second.isEmpty)
        #expect(engine.schedule(now: .zero).paused && engine.schedule(now: .zero).wake == .at(milliseconds: 1))
        _ = engine.handle(.turnEnded(socketFailed: false), at: .zero)
        #expect(!engine.schedule(now: .zero).paused)
        #expect(engine.dumps.resyncCount == 0)
    }
    @Test func eventsInQuickTurnsPauseTheReadUntilTheStormCalms() {
        var engine = NetlinkEngine.pure()
        let event = Fixture.address(index: 2, "10.9.0.1", prefix: 32)
        // The reader's own replies are not events: quick turns of them never pause it.
        let reply = Fixture.address(index: 2, "10.9.0.2", prefix: 32, sequence: 3)
        func turns(_ count: Int, of bytes: [UInt8], from start: Instant) -> Instant {
            engine.now = start
            for turn in 0..<count {
                if turn > 0 { engine.now += .microseconds(100) }
                engine.feed(bytes)
                _ = engine.handle(.turnEnded(socketFailed: false), at: engine.now)
            }
            return engine.now
        }
        let replied = turns(8, of: reply, from: .zero)
        #expect(!engine.schedule(now: replied).paused)
        // Nor are another socket's replies (the neighbor socket's errors: another port).
        var refusal = Fixture.error(-2, sequence: 9)
        refusal.replaceSubrange(12..<16, with: Fixture.u32(77))
        let refused = turns(8, of: refusal, from: .at(milliseconds: 500))
        #expect(!engine.schedule(now: refused).paused)
        let last = turns(5, of: event, from: .at(seconds: 1))
        #expect(engine.schedule(now: last).paused && engine.schedule(now: last).wake == last + StormPacer.pace)
        #expect(!engine.schedule(now: last + StormPacer.pace).paused)
        // The paced turn reads a single event: the storm is over.
        let calm = turns(1, of: event, from: last + StormPacer.pace)
        #expect(!engine.schedule(now: calm).paused && engine.schedule(now: calm).wake == nil)
    }
}
