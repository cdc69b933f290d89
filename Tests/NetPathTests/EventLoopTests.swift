#if os(Linux) || os(Android)
import Dispatch
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// The package's one wait: its timer heap on fixtures, and the loop itself on pipes (no
/// root). Waits are for events; a timer's deadline is either past (it must fire on the
/// next turn) or far off (it must not), never a race with the clock.
@Suite struct EventLoopTests {
    @Test func theHeapGivesDeadlinesInOrderAndSkipsCancelledOnes() {
        var heap = TimerHeap()
        for (deadline, id) in [(50, 1), (10, 2), (40, 3), (10, 4), (30, 5), (20, 6)] as [(Int, UInt64)] {
            heap.insert(deadline: .at(seconds: deadline), id: id)
        }
        #expect(heap.earliest(valid: { $0 != 2 && $0 != 4 }) == .at(seconds: 20))
        var fired: [UInt64] = []
        while let id = heap.popDue(at: .at(seconds: 40)) { fired.append(id) }
        #expect(fired == [6, 5, 3])
        #expect(heap.popDue(at: .at(seconds: 49)) == nil)
        #expect(heap.popDue(at: .at(seconds: 50)) == 1 && heap.isEmpty)
    }

    func pipe() throws -> (read: FileDescriptor, write: FileDescriptor) {
        try Syscall.pipe(nonBlocking: true).get()
    }

    func write(_ descriptor: FileDescriptor) {
        var byte: UInt8 = 1
        _ = withUnsafeBytes(of: &byte) { Syscall.write(descriptor, $0) }
    }

    @Test func aReadableDescriptorCallsItsHandlerUntilDeregistered() throws {
        let loop = try EventLoop()
        defer { loop.close() }
        let (read, write) = try pipe()
        defer { Syscall.close(read); Syscall.close(write) }
        var calls: [EventLoop.Events] = []
        let registration = loop.register(read, for: .readable) { calls.append($0) }
        let now = SystemClock.now()
        loop.runOnce(until: now)
        #expect(calls.isEmpty)
        self.write(write)
        loop.runOnce(until: nil)
        // Level-triggered: not drained, it reports again.
        loop.runOnce(until: nil)
        #expect(calls == [.readable, .readable])
        loop.change(registration, to: [])
        loop.runOnce(until: SystemClock.now())
        #expect(calls.count == 2)
        loop.deregister(registration)
        loop.runOnce(until: SystemClock.now())
        #expect(calls.count == 2)
    }

    @Test func aHandlerThatDeregistersAnotherDropsItsPendingEvent() throws {
        let loop = try EventLoop()
        defer { loop.close() }
        let first = try pipe(), second = try pipe()
        defer { for end in [first.read, first.write, second.read, second.write] { Syscall.close(end) } }
        var called: [String] = []
        var registrations: [EventLoop.Registration] = []
        registrations.append(loop.register(first.read, for: .readable) { _ in
            called.append("first")
            for registration in registrations { loop.deregister(registration) }
        })
        registrations.append(loop.register(second.read, for: .readable) { _ in
            called.append("second")
            for registration in registrations { loop.deregister(registration) }
        })
        write(first.write)
        write(second.write)
        loop.runOnce(until: nil)
        #expect(called.count == 1)
    }

    /// A re-check's timer on a monitor's loop (``LoopProbeClock``): scheduling and
    /// cancelling hop to the loop in order, so a timer cancelled before the loop's turn never
    /// fires; and a closed loop takes no more work (its wake descriptor is not written).
    @Test func loopClockTimersCancelInOrderAndAClosedLoopTakesNoWork() throws {
        let loop = try EventLoop()
        let clock = LoopProbeClock(loop: loop)
        let fired = Locked<[String]>([])
        let done = DispatchSemaphore(value: 0)
        clock.schedule(after: .zero) { fired.withLock { $0.append("cancelled") } }.cancel()
        _ = clock.schedule(after: .milliseconds(10)) {
            fired.withLock { $0.append("kept") }
            loop.stop()
            done.signal()
        }
        let thread = try? OwnThread.start(name: "test-loop") {
            loop.run()
            loop.close()
        }.get()
        #expect(done.wait(timeout: .now() + 10) == .success)
        thread?.join()
        #expect(fired.withLock { $0 } == ["kept"])
        loop.execute { Issue.record("work ran on a closed loop") }
        #expect(loop.pendingWork == 0)
        loop.wake()
        loop.stop()
    }

    @Test func dueTimersFireInDeadlineOrderAndCancelledOnesNever() throws {
        let loop = try EventLoop()
        defer { loop.close() }
        var fired: [String] = []
        let now = SystemClock.now()
        loop.schedule(at: now - .nanoseconds(1)) { fired.append("b") }
        loop.schedule(at: now - .nanoseconds(2)) { fired.append("a") }
        let cancelled = loop.schedule(at: now - .nanoseconds(3)) { fired.append("cancelled") }
        loop.schedule(at: now + .seconds(3_600)) { fired.append("in an hour") }
        loop.cancel(cancelled)
        loop.runOnce(until: nil)
        #expect(fired == ["a", "b"])
        loop.runOnce(until: SystemClock.now())
        #expect(fired == ["a", "b"])
    }

    /// A near deadline is the wait's own timeout; a far one is armed once on the timer that
    /// counts a suspend, and an idle loop leaves that timer disarmed.
    @Test func farDeadlinesAreWaitedOnTheClockThatCountsTheSleep() {
        let now = Instant.at(seconds: 100)
        #expect(LoopWait.plan(next: nil, now: now, armed: nil) == LoopWait(timeout: nil, arm: nil))
        #expect(LoopWait.plan(next: nil, now: now, armed: .at(seconds: 200)) == LoopWait(timeout: nil, arm: .some(nil)))
        #expect(LoopWait.plan(next: now + .milliseconds(300), now: now, armed: nil) == LoopWait(timeout: .milliseconds(300), arm: nil))
        #expect(LoopWait.plan(next: now - .seconds(1), now: now, armed: nil) == LoopWait(timeout: .zero, arm: nil))
        // A near deadline leaves an armed far one as it is.
        #expect(LoopWait.plan(next: now + .milliseconds(300), now: now, armed: .at(seconds: 200)).arm == nil)
        #expect(LoopWait.plan(next: .at(seconds: 400), now: now, armed: nil) == LoopWait(timeout: nil, arm: .some(.at(seconds: 400))))
        #expect(LoopWait.plan(next: .at(seconds: 400), now: now, armed: .at(seconds: 400)) == LoopWait(timeout: nil, arm: nil))
        #expect(LoopWait.plan(next: .at(seconds: 400), now: now, armed: .at(seconds: 300)) == LoopWait(timeout: nil, arm: .some(.at(seconds: 400))))
        #expect(LoopWait.plan(next: now + LoopWait.far, now: now, armed: nil).timeout == nil)
    }

    /// The loop waits for a far deadline on a `CLOCK_BOOTTIME` timerfd (the kernel's fdinfo
    /// says its clock), which wakes it when due, and is disarmed once the loop is idle.
    @Test func aFarDeadlineFiresFromABootTimeTimer() throws {
        let loop = try EventLoop()
        defer { loop.close() }
        var clock: String?
        var fired = false
        loop.schedule(at: SystemClock.now() + LoopWait.far + .milliseconds(50)) {
            fired = true
            clock = loop.farTimerDescriptor.flatMap { Self.fdinfo($0)["clockid"] }
        }
        while !fired { loop.runOnce(until: nil) }
        #expect(clock == "7", "CLOCK_BOOTTIME is clock 7")
        // A far deadline arms it (the turn is woken by work); cancelled, the idle turn disarms it.
        let far = loop.schedule(at: SystemClock.now() + .seconds(3_600)) {}
        loop.execute {}
        loop.runOnce(until: nil)
        var armed: String?, idle: String?
        loop.schedule(at: SystemClock.now()) { armed = loop.farTimerDescriptor.flatMap { Self.fdinfo($0)["it_value"] } }
        loop.runOnce(until: nil)
        loop.cancel(far)
        loop.execute {}
        loop.runOnce(until: nil)
        loop.schedule(at: SystemClock.now()) { idle = loop.farTimerDescriptor.flatMap { Self.fdinfo($0)["it_value"] } }
        loop.runOnce(until: nil)
        #expect(armed != nil && armed != "(0, 0)", "armed for the hour: \(armed ?? "no timer")")
        #expect(idle == "(0, 0)", "disarmed once idle: \(idle ?? "no timer")")
    }

    /// `/proc/self/fdinfo/FD`'s lines as key and value.
    private static func fdinfo(_ descriptor: FileDescriptor) -> [String: String] {
        let text = (try? String(contentsOfFile: "/proc/self/fdinfo/\(descriptor.rawValue)", encoding: .utf8)) ?? ""
        var fields: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return fields
    }

    @Test func cancelledFarDeadlinesDoNotPileUp() throws {
        let loop = try EventLoop()
        defer { loop.close() }
        let far = SystemClock.now() + .seconds(3_600)
        var timer = loop.schedule(at: far) {}
        for _ in 0..<1_000 {
            loop.cancel(timer)
            timer = loop.schedule(at: far) {}
        }
        var heap = TimerHeap()
        for id in 0..<100 as Range<UInt64> { heap.insert(deadline: Instant(nanoseconds: 1_000 - id), id: id) }
        heap.keepOnly { $0 % 10 == 0 }
        var order: [UInt64] = []
        while let id = heap.popDue(at: .never) { order.append(id) }
        #expect(order == [90, 80, 70, 60, 50, 40, 30, 20, 10, 0])
        #expect(loop.pendingDeadlines <= 2 * 1 + 16 + 1)
    }

    @Test func deferredWorkRunsAfterTheBatchOnce() throws {
        let loop = try EventLoop()
        defer { loop.close() }
        let first = try pipe(), second = try pipe()
        defer { for end in [first.read, first.write, second.read, second.write] { Syscall.close(end) } }
        var log: [String] = []
        var asked = false
        let handler: (EventLoop.Events) -> Void = { _ in
            log.append("event")
            guard !asked else { return }
            asked = true
            loop.deferred { log.append("turn") }
        }
        loop.register(first.read, for: .readable, handler)
        loop.register(second.read, for: .readable, handler)
        write(first.write)
        write(second.write)
        loop.runOnce(until: nil)
        #expect(log == ["event", "event", "turn"])
    }

    @Test func otherThreadsHandWorkToTheLoopAndStopIt() async throws {
        let loop = try EventLoop()
        let ran = Locked<[Int]>([])
        let ended = DispatchSemaphore(value: 0)
        let thread = try? OwnThread.start(name: "np-loop-test") {
            loop.run()
            loop.close()
            ended.signal()
        }.get()
        #expect(thread != nil)
        let done = DispatchSemaphore(value: 0)
        loop.execute { ran.withLock { $0.append(1) } }
        loop.execute {
            ran.withLock { $0.append(2) }
            done.signal()
        }
        done.wait()
        #expect(ran.withLock { $0 } == [1, 2])
        loop.execute { ran.withLock { $0.append(3) } }
        loop.stop()
        ended.wait()
        // Work handed over before the stop ran first.
        #expect(ran.withLock { $0 } == [1, 2, 3] && loop.isStopped)
        thread?.join()
    }
}
#endif
