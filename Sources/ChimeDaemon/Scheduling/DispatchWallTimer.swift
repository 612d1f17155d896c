import Dispatch
import Foundation

/// The real one-shot wall-clock timer: a `DispatchSourceTimer` scheduled on the wall clock (a `timerfd` on
/// CLOCK_REALTIME with an absolute deadline, so it follows clock changes).
public final class DispatchWallTimer: WallTimer, @unchecked Sendable {
    private let queue: DispatchQueue
    private let source: any DispatchSourceTimer
    private let lock = NSLock()
    private var armed: Date?
    private var handler: (@Sendable () -> Void)?

    /// - Parameter queue: where the handler runs (the scheduler's queue).
    public init(queue: DispatchQueue) {
        self.queue = queue
        source = DispatchSource.makeTimerSource(flags: [.strict], queue: queue)
        source.setEventHandler { [weak self] in self?.fired() }
        source.schedule(wallDeadline: .distantFuture)
        source.activate()
    }

    deinit {
        source.cancel()
    }

    public func setHandler(_ handler: @escaping @Sendable () -> Void) {
        lock.withLock { self.handler = handler }
    }

    public func arm(at deadline: Date) {
        lock.withLock { armed = deadline }
        source.schedule(wallDeadline: DispatchWallTime(date: deadline), leeway: .nanoseconds(0))
    }

    public func cancel() {
        lock.withLock { armed = nil }
        source.schedule(wallDeadline: .distantFuture)
    }

    public var deadline: Date? { lock.withLock { armed } }

    private func fired() {
        let handler = lock.withLock { () -> (@Sendable () -> Void)? in
            armed = nil
            return self.handler
        }
        handler?()
    }
}

extension DispatchWallTime {
    /// The wall-clock time of `date`.
    init(date: Date) {
        let interval = date.timeIntervalSince1970
        let seconds = interval.rounded(.down)
        let nanoseconds = Int((interval - seconds) * 1e9)
        self.init(timespec: timespec(tv_sec: Int(seconds), tv_nsec: nanoseconds))
    }
}
