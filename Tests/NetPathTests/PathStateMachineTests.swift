import Dispatch
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// The monitor's state machine, driven by hand: each event's returned actions. The waiters
/// are plain strings, so no task and no continuation is involved.
@Suite struct PathStateMachineTests {
    typealias Machine = PathStateMachine<String>

    static let wifi = NetworkPath(status: .satisfied, availableInterfaces: [NetworkInterface(name: "wlan0", index: 3, type: .wifi)],
                                  supportsIPv4: true)
    static let down = NetworkPath(status: .unsatisfied, unsatisfiedReason: .notAvailable, diagnosis: .noCarrier)

    /// A machine with a running source; returns its run's generation.
    static func running(_ machine: inout Machine, queue: DispatchQueue? = nil) -> (UInt64, ManualSource) {
        let generation = machine.start(queue: queue)!
        let source = ManualSource(initialPath: nil, deliver: { _ in })
        machine.opened(source)
        return (generation, source)
    }

    @Test func aSecondStartWhileRunningDoesNothing() {
        var machine = Machine()
        let (generation, _) = Self.running(&machine)
        #expect(machine.start(queue: nil) == nil)
        #expect(machine.generation == generation && machine.isRunning)
    }

    @Test func aDeliveryResumesWaitersAndTellsObserversAndTheHandler() throws {
        var machine = Machine()
        let (generation, _) = Self.running(&machine)
        machine.handler = { _ in }
        _ = machine.addObserver { _ in }
        let waiting = machine.subscribe(), idle = machine.subscribe()
        guard case .wait = machine.next(waiting, waiter: "waiting", cancelled: false) else {
            Issue.record("a new subscriber of a run without a path waits")
            return
        }
        let delivered = machine.deliver(Self.wifi, generation: generation, force: true)
        let delivery = try #require(delivered)
        #expect(delivery.resume == ["waiting"])
        #expect(delivery.observers.count == 1)
        guard case .inline = delivery.handler else {
            Issue.record("without a queue the handler is called on the delivering thread")
            return
        }
        #expect(machine.current == Self.wifi)
        // The subscriber that was not waiting finds the path pending, once.
        guard case .resume(Self.wifi) = machine.next(idle, waiter: "idle", cancelled: false),
              case .wait = machine.next(idle, waiter: "idle", cancelled: false) else {
            Issue.record("the pending path is handed over once")
            return
        }
    }

    @Test func anUnchangedPathOrOneFromAnEndedRunDeliversNothing() {
        var machine = Machine()
        let (generation, _) = Self.running(&machine)
        #expect(machine.deliver(Self.wifi, generation: generation, force: false) != nil)
        #expect(machine.deliver(Self.wifi, generation: generation, force: false) == nil)
        #expect(machine.deliver(Self.wifi, generation: generation, force: true) != nil)
        _ = machine.stop()
        #expect(machine.deliver(Self.down, generation: generation, force: true) == nil)
        #expect(machine.current == Self.wifi)
    }

    @Test func withAQueueTheHandlerIsLookedUpWhenItRuns() {
        var machine = Machine()
        let (generation, _) = Self.running(&machine, queue: DispatchQueue(label: "test"))
        machine.handler = { _ in }
        guard case .enqueued = machine.deliver(Self.wifi, generation: generation, force: true)?.handler else {
            Issue.record("with a queue the call is enqueued")
            return
        }
        #expect(machine.handler(of: generation) != nil)
        _ = machine.stop()
        #expect(machine.handler(of: generation) == nil, "a cancelled run's queued call finds no handler")
    }

    @Test func stopReturnsTheSourceAndEndsEveryWaitingSubscriber() {
        var machine = Machine()
        let (generation, source) = Self.running(&machine)
        let first = machine.subscribe(), second = machine.subscribe()
        _ = machine.next(first, waiter: "first", cancelled: false)
        _ = machine.next(second, waiter: "second", cancelled: false)
        let stop = machine.stop()
        #expect(stop.source === source)
        #expect(Set(stop.waiters) == ["first", "second"])
        #expect(!machine.isRunning && machine.subscriberCount == 0 && machine.generation != generation)
        guard case .resume(nil) = machine.next(first, waiter: "again", cancelled: false) else {
            Issue.record("an ended subscription returns nil at once")
            return
        }
        #expect(machine.stop().source == nil, "a second stop has nothing to stop")
    }

    @Test func terminationOfTheCurrentRunStopsItOnceAndNamesTheHandler() {
        var machine = Machine()
        let (generation, source) = Self.running(&machine)
        machine.terminationHandler = { _ in }
        let error = NetPathError(.namespaceNotFound, "gone")
        let termination = machine.terminate(error, generation: generation)
        #expect(termination?.stop.source === source && termination?.handler != nil)
        #expect(machine.terminationError == error && !machine.isRunning)
        #expect(machine.terminate(error, generation: generation) == nil, "a run ends once")
        #expect(machine.start(queue: nil) != nil && machine.terminationError == nil, "a start clears the reason")
    }

    /// A source that ends by itself (its namespace deleted) delivers a last path first: a
    /// subscriber that had not taken it yet gets it, then the end; the handler's call queued
    /// for it still runs. A cancel (``stop()``) drops both, and a new start forgets the run.
    @Test func aRunThatEndsByItselfStillHandsOverItsLastPath() {
        var machine = Machine()
        let (generation, _) = Self.running(&machine, queue: DispatchQueue(label: "test"))
        machine.handler = { _ in }
        _ = machine.deliver(Self.wifi, generation: generation, force: true)
        let busy = machine.subscribe(), waiting = machine.subscribe()
        guard case .resume(Self.wifi) = machine.next(busy, waiter: "busy", cancelled: false),
              case .resume(Self.wifi) = machine.next(waiting, waiter: "waiting", cancelled: false),
              case .wait = machine.next(waiting, waiter: "waiting", cancelled: false) else {
            Issue.record("both subscribers take the first path, then one waits")
            return
        }
        // The last path: the waiting subscriber is resumed with it, the busy one finds it pending.
        #expect(machine.deliver(Self.down, generation: generation, force: false)?.resume == ["waiting"])
        let termination = machine.terminate(NetPathError(.namespaceNotFound, "gone"), generation: generation)
        #expect(termination?.stop.waiters == [])
        #expect(machine.handler(of: generation) != nil, "the last path's queued handler call runs")
        guard case .resume(Self.down) = machine.next(busy, waiter: "busy", cancelled: false),
              case .resume(nil) = machine.next(busy, waiter: "busy", cancelled: false),
              case .resume(nil) = machine.next(waiting, waiter: "waiting", cancelled: false) else {
            Issue.record("the busy subscriber gets the last path, then the end; the other the end")
            return
        }
        #expect(machine.subscriberCount == 0)
        _ = machine.start(queue: nil)
        #expect(machine.handler(of: generation) == nil, "a new run: the old run's calls find no handler")
    }

    /// A restarted monitor has no path until its new source's first: the last run's is not
    /// handed to a new subscriber as current (on Apple platforms the first path comes later).
    @Test func aRestartHasNoPathUntilItsSourcesFirst() {
        var machine = Machine()
        let (generation, _) = Self.running(&machine)
        _ = machine.deliver(Self.wifi, generation: generation, force: true)
        _ = machine.stop()
        #expect(machine.current == Self.wifi, "a stopped monitor keeps its last path")
        let (restarted, _) = Self.running(&machine)
        #expect(machine.current == nil)
        let subscriber = machine.subscribe()
        guard case .wait = machine.next(subscriber, waiter: "new", cancelled: false) else {
            Issue.record("a subscriber of the new run waits for its first path")
            return
        }
        #expect(machine.deliver(Self.down, generation: restarted, force: true)?.resume == ["new"])
    }

    @Test func aSubscriberOfARunningMonitorStartsWithTheCurrentPath() {
        var machine = Machine()
        let (generation, _) = Self.running(&machine)
        _ = machine.deliver(Self.wifi, generation: generation, force: true)
        let late = machine.subscribe()
        guard case .resume(Self.wifi) = machine.next(late, waiter: "late", cancelled: false) else {
            Issue.record("a late subscriber gets the current path first")
            return
        }
        #expect(machine.unsubscribe(late) == nil)
        let waiting = machine.subscribe()
        _ = machine.next(waiting, waiter: "waiting", cancelled: false)
        #expect(machine.unsubscribe(waiting) == nil, "the current path was pending: it did not wait")
    }

    @Test func unsubscribingReturnsTheWaiterToEndAndACancelledTaskEndsAtOnce() {
        var machine = Machine()
        _ = Self.running(&machine)
        let id = machine.subscribe()
        _ = machine.next(id, waiter: "waiter", cancelled: false)
        #expect(machine.unsubscribe(id) == "waiter")
        let cancelled = machine.subscribe()
        guard case .resume(nil) = machine.next(cancelled, waiter: "cancelled", cancelled: true) else {
            Issue.record("a cancelled task's subscription ends")
            return
        }
    }
}
