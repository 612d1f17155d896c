import ChimeCore
import Dispatch
import Foundation

/// Where chimed's tasks run: a serial dispatch queue of its own rather than Swift's cooperative pool.
///
/// On Linux the first thread of a global dispatch queue or of the cooperative pool starts libdispatch's workqueue
/// monitor, a timer on its manager queue that wakes the process every second from then on. chimed has to cost
/// nothing while nothing is due, so its tasks (deliveries, backends' work, start-up descriptions) run here: a serial
/// queue targets an overcommitting root queue, whose threads the monitor does not watch. Backends await I/O rather
/// than compute, so one queue is enough; what computes (loading) runs on threads of its own (`ParallelWork`).
public final class DaemonExecutor: TaskExecutor, Sendable {
    public static let shared = DaemonExecutor()

    let queue = DispatchQueue(label: "chimed.tasks", qos: .userInitiated)

    private init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Waits `duration`, or until the task is cancelled, with a timer on this executor's queue (`Task.sleep` would
    /// go through a global queue). Cancelling removes the timer, so a delivery's timeout that was not needed does not
    /// wake the process later.
    public func sleep(for duration: Duration) async {
        let nanoseconds = max(0, Int(duration.wholeNanoseconds))
        let resumed = Resumption()
        // A dispatch source may be cancelled from any thread.
        nonisolated(unsafe) let timer = DispatchSource.makeTimerSource(queue: queue)
        timer.schedule(deadline: .now() + .nanoseconds(nanoseconds))
        timer.setEventHandler {
            timer.cancel()
            resumed.resume()
        }
        // Active before anything can cancel it (an inactive source must not be cancelled and released); should it
        // fire before the continuation exists, `Resumption` resumes that at once.
        timer.activate()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                resumed.set(continuation)
            }
        } onCancel: {
            timer.cancel()
            resumed.resume()
        }
    }

    /// Resumes a continuation once, whichever comes first: the timer or the cancellation.
    private final class Resumption: Sendable {
        private let state = Locked<(continuation: CheckedContinuation<Void, Never>?, isDone: Bool)>((nil, false))

        func set(_ continuation: CheckedContinuation<Void, Never>) {
            let resumeNow = state.withLock { state in
                if state.isDone { return true }
                state.continuation = continuation
                return false
            }
            if resumeNow { continuation.resume() }
        }

        func resume() {
            let pending = state.withLock { state in
                state.isDone = true
                defer { state.continuation = nil }
                return state.continuation
            }
            pending?.resume()
        }
    }
}
