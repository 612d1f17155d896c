import Foundation

/// A value behind a lock, shared between threads: what `Synchronization.Mutex` offers, on a `pthread_mutex`, which
/// ThreadSanitizer understands. (Under `make test`'s thread-sanitizer pass, `Mutex` on Linux showed the writes it
/// guards as racing, since the sanitizer does not see the ordering its lock word gives.)
///
/// Copies share the value and the lock. The value and the mutex live in one allocation: a notification with
/// `Count=` or `RRule=` keeps one of these for the walk it remembers, and an `NSLock` would be four more.
public struct Locked<Value>: @unchecked Sendable {
    // Every access to the value is under the mutex (or by `readWithoutLockOnWritingThread`'s rule).
    private let storage: Storage

    public init(_ value: Value) {
        storage = Storage.make(value)
    }

    public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try storage.withLock(body)
    }

    /// Reads without taking the lock: only for the one thread that makes every change (under the lock), which
    /// cannot race with itself; other threads' reads take the lock. What lets a table written on the scheduler's
    /// queue be read there at no cost, and from a rebuild's thread safely.
    public func readWithoutLockOnWritingThread<Result>(_ body: (Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointerToHeader { try body($0.pointee) }
    }

    /// The value as the header and the mutex as the one element of a `ManagedBuffer`.
    private final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        static func make(_ value: Value) -> Storage {
            let buffer = create(minimumCapacity: 1) { _ in value }
            buffer.withUnsafeMutablePointerToElements { mutex in
                mutex.initialize(to: pthread_mutex_t())
                pthread_mutex_init(mutex, nil)
            }
            // `create` makes an instance of the class it is called on.
            return unsafeDowncast(buffer, to: Storage.self)
        }

        func withLock<Result, Failure: Error>(
            _ body: (inout Value) throws(Failure) -> Result
        ) throws(Failure) -> Result {
            try withUnsafeMutablePointers { (value, mutex) throws(Failure) -> Result in
                pthread_mutex_lock(mutex)
                defer { pthread_mutex_unlock(mutex) }
                return try body(&value.pointee)
            }
        }

        deinit {
            _ = withUnsafeMutablePointerToElements { pthread_mutex_destroy($0) }
        }
    }
}
