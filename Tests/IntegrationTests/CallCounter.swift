import ChimeCore
import Dispatch

/// Counts the calls of a handler and lets a test wait for the next one.
final class CallCounter: Sendable {
    private let calls = Locked(0)
    private let signal = DispatchSemaphore(value: 0)

    /// The number of calls so far.
    var count: Int {
        calls.withLock { $0 }
    }

    /// The handler to count.
    func record() {
        calls.withLock { $0 += 1 }
        signal.signal()
    }

    /// Waits up to `timeout` for a call not waited for yet; returns whether one came.
    func waitForCall(timeout: Duration) -> Bool {
        signal.wait(timeout: .now() + timeout.dispatchInterval) == .success
    }
}
