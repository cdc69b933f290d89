#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if os(Linux) || os(Android)
import CNetlink
#endif

/// Runs work on a thread of our own, never a Dispatch or Swift-concurrency pool thread:
/// `setns` switches only the calling thread (SPEC §2.10), a monitor's blocking read loop
/// must not hold a pool thread, and the tool takes its signals with `sigwait` on one.
package enum OwnThread {
    private final class Box {
        package let body: () -> Void
        package let name: String
        package init(_ body: @escaping () -> Void, name: String) {
            self.body = body
            self.name = name
        }
    }

    /// A started thread: joined or detached exactly once by its owner. The pthread handle
    /// stays inside the system target.
    package struct Handle: @unchecked Sendable {
        // `@unchecked`: a pthread_t is an integer (Linux) or a pointer (Darwin) naming the
        // thread; it is only passed to pthread calls, which are thread-safe.
        fileprivate let thread: pthread_t

        /// Whether the calling thread is this one (`pthread_equal` with `pthread_self`).
        package var isCurrent: Bool { pthread_equal(thread, pthread_self()) != 0 }

        /// Waits for the thread to end (`pthread_join`). Not from the thread itself.
        package func join() { pthread_join(thread, nil) }

        /// Lets the thread end on its own (`pthread_detach`).
        package func detach() { pthread_detach(thread) }

        /// Joins the thread, or detaches it when called on the thread itself (a thread cannot
        /// join itself) or when `waiting` is `false`.
        package func end(waiting: Bool = true) {
            if !waiting || isCurrent { detach() } else { join() }
        }
    }

    /// Starts `body` on a new joinable thread named `name` (at most 15 bytes show).
    ///
    /// - Returns: The thread, or `pthread_create`'s error (`EAGAIN`: too many threads, no
    ///   memory).
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Result<Handle, Errno> {
        let box = Unmanaged.passRetained(Box(body, name: String(name.prefix(15)))).toOpaque()
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread = pthread_t()
        #endif
        let result = pthread_create(&thread, nil, { context in
            #if canImport(Darwin)
            let box = Unmanaged<Box>.fromOpaque(context).takeRetainedValue()
            _ = pthread_setname_np(box.name)  // Darwin names only the calling thread
            #else
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            #endif
            box.body()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            return .failure(Errno(result, call: "pthread_create"))
        }
        #if os(Linux) || os(Android)
        _ = cnetlink_set_thread_name(thread, String(name.prefix(15)))
        #endif
        #if canImport(Darwin)
        guard let thread else { return .failure(Errno(EAGAIN, call: "pthread_create")) }
        #endif
        return .success(Handle(thread: thread))
    }

    /// Runs `body` on a short-lived thread of our own and returns its result.
    package static func run<T: Sendable>(name: String, _ body: @escaping @Sendable () -> T) -> T? {
        let result = ResultBox<T>()
        guard case .success(let thread) = start(name: name, { result.value = body() }) else { return nil }
        thread.join()
        return result.value
    }

    // Written by the short-lived thread before pthread_join returns, read after:
    // the join orders the two, so no lock is needed.
    private final class ResultBox<T>: @unchecked Sendable {
        package var value: T?
    }
}
