import Testing
@testable import NetPathCore

/// The dump protocol on its own: the order of a synchronisation, a start over after an
/// interruption, optional dumps refused for good or asked again alone.
@Suite struct DumpMachineTests {
    typealias End = DumpMachine.End

    /// Runs a synchronisation to its end, each dump answered by `answer` (nil: DONE).
    func synchronise(_ machine: inout DumpMachine, answer: (NetlinkEngine.Dump) -> LinuxErrno? = { _ in nil }) -> [NetlinkEngine.Dump] {
        var asked = [machine.start().dump]
        while let current = machine.current {
            let refusal = answer(current)
            guard case .next(let request)? = machine.finish(refusedWith: refusal, failed: false, now: .zero) else { break }
            asked.append(request.dump)
        }
        return asked
    }

    @Test func aSynchronisationDumpsEveryTableInOrderAndSkipsWhatTheKernelLacks() {
        var machine = DumpMachine()
        #expect(synchronise(&machine) == [.links, .addresses, .routes, .rules, .nexthops])
        #expect(machine.state == .idle && machine.resyncCount == 0)
        // A kernel without nexthop objects answers EOPNOTSUPP: never asked again.
        var old = DumpMachine()
        #expect(synchronise(&old) { $0 == .nexthops ? .notSupported : nil } == [.links, .addresses, .routes, .rules, .nexthops])
        #expect(old.optionalDumps[.nexthops]?.unsupported == true && old.nextRetry(now: .zero) == nil)
        #expect(synchronise(&old) == [.links, .addresses, .routes, .rules])
        #expect(old.resyncCount == 1)
    }

    @Test func anInterruptedDumpOrAnOverrunStartsOverWhenItEnds() {
        var machine = DumpMachine()
        let first = machine.start()
        #expect(machine.isReply(sequence: first.sequence) && !machine.isReply(sequence: first.sequence + 1))
        machine.interrupted()
        let interrupted = machine.finish(refusedWith: nil, failed: false, now: .zero)
        #expect(interrupted == .startOver && machine.state == .idle)
        _ = machine.start()
        let whileDumping = machine.startOverWhenFree()
        let overrun = machine.finish(refusedWith: nil, failed: false, now: .zero)
        let whenIdle = machine.startOverWhenFree()
        #expect(!whileDumping && overrun == .startOver && whenIdle)
    }

    /// logind's resume reaches the engine as `.resumed`: the tables are dumped again at once
    /// (the request is handed back to send), links first.
    @Test func aResumeDumpsEverythingAgain() {
        var driver = NetlinkEngine.pure()
        let actions = driver.handle(.resumed, at: .zero)
        #expect(actions.count == 1 && driver.dumping == .links)
        if case .send(let bytes)? = actions.first {
            #expect(bytes.count >= 16 && UInt16(bytes[4]) | UInt16(bytes[5]) << 8 == 18)  // RTM_GETLINK
        } else {
            Issue.record("no request: \(actions)")
        }
    }

    @Test func aFailedOptionalDumpIsAskedAgainAloneWithBackOff() {
        var machine = DumpMachine()
        _ = synchronise(&machine) { $0 == .rules ? LinuxErrno(16) : nil }
        let retry = Instant.zero + DumpMachine.dumpRetryDelay(afterFailures: 1)
        #expect(machine.nextRetry(now: .zero) == retry)
        let early = machine.dueOptionalDump(now: retry - .nanoseconds(1))
        let again = machine.dueOptionalDump(now: retry)
        #expect(early == nil && again?.dump == .rules)
        let refusedAgain = machine.finish(refusedWith: LinuxErrno(16), failed: false, now: retry)
        #expect(refusedAgain == .aloneEnded(refused: true))
        #expect(machine.nextRetry(now: retry) == retry + DumpMachine.dumpRetryDelay(afterFailures: 2))
        _ = machine.dueOptionalDump(now: .at(seconds: 10))
        let answered = machine.finish(refusedWith: nil, failed: false, now: .at(seconds: 10))
        #expect(answered == .aloneEnded(refused: false))
        #expect(machine.optionalDumps.isEmpty && machine.nextRetry(now: .zero) == nil)
    }
}
