import Foundation

/// Runs independent pieces of work side by side on threads of its own, as `DispatchQueue.concurrentPerform` would.
///
/// Not on dispatch's global queues: on Linux the first thread of one starts libdispatch's workqueue monitor, a timer
/// that wakes the process every second from then on, and the daemon must cost nothing while nothing is due.
public enum ParallelWork {
    /// Calls `body` once for each index in `0..<iterations`, on the calling thread and on up to `threads - 1` more
    /// (by default one per active core), and returns when every call has returned.
    public static func perform(iterations: Int, threads: Int? = nil, _ body: (Int) -> Void) {
        let width = Swift.min(iterations, threads ?? ProcessInfo.processInfo.activeProcessorCount)
        guard width > 1 else {
            for index in 0..<iterations { body(index) }
            return
        }
        let counter = Counter()
        withoutActuallyEscaping(body) { body in
            nonisolated(unsafe) let body = body
            @Sendable func work() {
                while let index = counter.next(below: iterations) { body(index) }
            }
            let finished = DispatchGroup()
            for _ in 1..<width {
                finished.enter()
                // The thread object outlives the work: it gets the work through a job that lets go of it once done,
                // before `finished` says so, so that `body` does not escape this call.
                let job = Job(work)
                let thread = Thread {
                    job.run()
                    finished.leave()
                }
                thread.name = "chime-work"
                thread.start()
            }
            work()
            finished.wait()
        }
    }

    /// Work handed to a thread, dropped as soon as it has run.
    private final class Job: @unchecked Sendable {
        private var work: (@Sendable () -> Void)?

        init(_ work: @escaping @Sendable () -> Void) {
            self.work = work
        }

        func run() {
            let work = self.work
            self.work = nil
            work?()
        }
    }

    /// Hands out indices, each once.
    private final class Counter: Sendable {
        private let value = Locked(0)

        func next(below limit: Int) -> Int? {
            value.withLock { value in
                guard value < limit else { return nil }
                defer { value += 1 }
                return value
            }
        }
    }
}
