import Testing
@testable import NetPath
@testable import NetPathCore

/// The Combine subscription's bookkeeping (``PathDemand``), driven by hand: Combine itself
/// exists only on Apple platforms.
@Suite struct PathDemandTests {
    static let wifi = NetworkPath(status: .satisfied, availableInterfaces: [NetworkInterface(name: "wlan0", index: 3, type: .wifi)],
                                  supportsIPv4: true)
    static let cellular = NetworkPath(status: .satisfied, availableInterfaces: [NetworkInterface(name: "wwan0", index: 4, type: .cellular)],
                                      supportsIPv4: true)
    static let down = NetworkPath(status: .unsatisfied, unsatisfiedReason: .notAvailable, diagnosis: .noCarrier)

    @Test func pathsWaitForDemandAndOnlyTheNewestIsKept() {
        var demand = PathDemand()
        demand.heard(Self.wifi)
        #expect(demand.next() == nil, "no demand yet")
        demand.heard(Self.down)
        demand.request(1)
        #expect(demand.next() == Self.down)
        demand.sent(more: 0)
        demand.heard(Self.wifi)
        #expect(demand.next() == nil, "the one path asked for was sent")
        demand.request(nil)  // unlimited
        #expect(demand.next() == Self.wifi)
        demand.sent(more: 0)
        demand.heard(Self.wifi)
        #expect(demand.next() == nil, "the same path twice in a row is sent once")
        demand.request(Int.max)
        #expect(demand.demand == nil, "unlimited stays unlimited")
        var huge = PathDemand()
        huge.request(Int.max)
        huge.request(Int.max)
        #expect(huge.demand == nil, "more than Int.max is unlimited, not an overflow")
    }

    /// One thread sends at a time: a path heard while another thread is in the subscriber's
    /// `receive` waits, and that thread sends it next.
    @Test func oneSenderAtATimeTakesWhatCameMeanwhile() {
        var demand = PathDemand()
        demand.request(nil)
        demand.heard(Self.wifi)
        #expect(demand.next() == Self.wifi && demand.isSending)
        demand.heard(Self.down)  // from the monitor's thread, while the first send runs
        #expect(demand.next() == nil, "another thread is sending")
        demand.sent(more: 0)
        #expect(demand.next() == Self.down)
    }

    /// The path current when the subscription began is the first, unless the monitor
    /// delivered a newer one before it was sent (the subscriber would end on the older).
    @Test func theCurrentPathIsFirstUnlessANewerOneCame() {
        var seeded = PathDemand()
        seeded.request(1)
        seeded.seed(Self.wifi)
        #expect(seeded.next() == Self.wifi)
        var overtaken = PathDemand()
        overtaken.heard(Self.cellular)
        overtaken.seed(Self.wifi)
        overtaken.request(nil)
        #expect(overtaken.next() == Self.cellular && overtaken.pending == nil)
    }
}
