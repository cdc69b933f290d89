#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A mutex guarding a value: the package's one lock type, for the library, the tool and the
/// tests (`Synchronization.Mutex` needs macOS 15 / iOS 18; NetPath supports macOS 14 /
/// iOS 17).
///
/// The `pthread_mutex_t` lives on the heap: one stored in a struct or class property has no
/// stable address, and passing it as `&mutex` is undefined behaviour. A failed lock or
/// unlock is a programmer error (a corrupt or foreign mutex) and stops the process.
package final class Locked<Value> {
    // `value` is only touched between lock and unlock of `mutex`.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        let created = pthread_mutex_init(mutex, nil)
        precondition(created == 0, "pthread_mutex_init failed: \(created)")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock.
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        let locked = pthread_mutex_lock(mutex)
        precondition(locked == 0, "pthread_mutex_lock failed: \(locked)")
        defer {
            let unlocked = pthread_mutex_unlock(mutex)
            precondition(unlocked == 0, "pthread_mutex_unlock failed: \(unlocked)")
        }
        return try body(&value)
    }
}

// The value is reached only under the lock, so the lock may cross threads when the value may.
extension Locked: @unchecked Sendable where Value: Sendable {}
