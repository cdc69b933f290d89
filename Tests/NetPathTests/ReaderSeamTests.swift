#if os(Linux) || os(Android)
import Testing
@testable import NetPath
@testable import NetPathCore
@testable import NetPathSystem

/// The reader through an overrun in the middle of its first dump, without root: a monitor of
/// the process's own namespace, whose second read is an `ENOBUFS` (the kernel's answer when
/// events were dropped; the dump itself goes on).
@Suite struct ReaderSeamTests {
    func open(_ options: LinuxSourceOptions) throws -> LinuxPathSource {
        try LinuxPathSource.open(namespace: nil, filter: .none, options: options, deliver: { _ in })
    }

    @Test func anOverrunInTheMiddleOfTheFirstDumpEndsOnTheTruePathAfterOneRedump() throws {
        var plain = LinuxSourceOptions()
        plain.keepsWatching = false
        let reads = Locked(0)
        var injected = plain
        injected.receive = { read in
            let count = reads.withLock { count in
                count += 1
                return count
            }
            return count == 2 ? .overrun : try read()
        }
        let truth = try open(plain)
        defer { truth.stop() }
        let source = try open(injected)
        defer { source.stop() }
        #expect(reads.withLock { $0 } > 2)
        #expect(source.initialPath == truth.initialPath)
        #expect(source.initialPath != nil)
        // The overrun threw the tables away once; the plain source never did.
        #expect(source.startReading() && truth.startReading())
        #expect(source.resyncCount == 1 && truth.resyncCount == 0)
    }
}
#endif
