import Foundation

/// A value behind a lock, shared between threads: what `Synchronization.Mutex` offers, on a `pthread_mutex` (through
/// `NSLock`), which ThreadSanitizer understands. Under `make test`'s thread-sanitizer pass, `Mutex` on Linux showed
/// the writes it guards as racing, since the sanitizer does not see the ordering its lock word gives.
public final class Locked<Value>: @unchecked Sendable {
    // Every access to `value` is under `lock`.
    private let lock = NSLock()
    private var value: Value

    public init(_ value: Value) {
        self.value = value
    }

    public func withLock<Result, Failure: Error>(
        _ body: (inout Value) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }

    /// Reads without taking the lock: only for the one thread that makes every change (under the lock), which
    /// cannot race with itself; other threads' reads take the lock. What lets a table written on the scheduler's
    /// queue be read there at no cost, and from a rebuild's thread safely.
    public func readWithoutLockOnWritingThread<Result>(_ body: (Value) throws -> Result) rethrows -> Result {
        try body(value)
    }
}
