import Foundation

import NetPath
import NetPathSystem

/// A value shared between tasks and threads, behind the package's one lock type (a heap
/// pthread mutex, which ThreadSanitizer sees; `Synchronization.Mutex` parks on a futex in
/// the uninstrumented standard library, so TSan would report races on what it guards).
package typealias Shared<Value> = Locked<Value>

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
