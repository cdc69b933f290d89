import Foundation

/// A value shared between tasks and threads, behind a lock.
///
/// A pthread mutex (`NSLock`), not `Synchronization.Mutex`: on Linux that one parks on a
/// futex inside the uninstrumented standard library, so ThreadSanitizer cannot see its
/// ordering and reports races on the very state it guards.
public final class Shared<Value>: @unchecked Sendable {
    // `value` is only touched while `lock` is held.
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) { self.value = value }

    public func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// The first element of `sequence`, or `nil` when none comes within `seconds`.
public func first<Sequence: AsyncSequence & Sendable>(of sequence: Sequence, seconds: Double = 10) async -> Sequence.Element?
where Sequence.Element: Sendable {
    await withTaskGroup(of: Sequence.Element?.self) { group in
        group.addTask {
            var iterator = sequence.makeAsyncIterator()
            return try? await iterator.next()
        }
        group.addTask {
            try? await Task.sleep(for: .seconds(seconds))
            return nil
        }
        let winner = await group.next() ?? nil
        group.cancelAll()
        return winner
    }
}
