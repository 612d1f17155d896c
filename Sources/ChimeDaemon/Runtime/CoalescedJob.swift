import ChimeCore
import Dispatch

/// A job run on a queue of its own whenever asked, with at most one run in flight and one more pending: asked a
/// thousand times while it runs, it runs once more, after, and that run sees every change that was announced.
/// For work a signal asks for that any client may send many times a second.
final class CoalescedJob: Sendable {
    private struct Runs {
        var running = false
        var again = false
    }

    private let queue: DispatchQueue
    private let runs = Locked(Runs())
    private let job: @Sendable () -> Void

    init(label: String, job: @escaping @Sendable () -> Void) {
        queue = DispatchQueue(label: label)
        self.job = job
    }

    /// Runs the job soon: now if none runs, else once after the run in flight.
    func ask() {
        let starts = runs.withLock { runs in
            if runs.running {
                runs.again = true
                return false
            }
            runs.running = true
            return true
        }
        if starts { queue.async { self.runUntilCurrent() } }
    }

    private func runUntilCurrent() {
        dispatchPrecondition(condition: .onQueue(queue))
        repeat {
            job()
        } while runs.withLock { runs in
            defer { runs.again = false }
            runs.running = runs.again
            return runs.again
        }
    }
}
