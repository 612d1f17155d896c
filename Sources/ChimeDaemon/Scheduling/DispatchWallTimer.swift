import ChimeCore
import Dispatch
import Foundation

/// The real one-shot wall-clock timer: a `DispatchSourceTimer` scheduled on the wall clock (a `timerfd` on
/// CLOCK_REALTIME with an absolute deadline, so it follows clock changes).
public final class DispatchWallTimer: WallTimer, @unchecked Sendable {
    private let queue: DispatchQueue
    private let source: any DispatchSourceTimer
    /// The deadline armed, and the handler.
    private let state = Locked<(armed: Date?, handler: (@Sendable () -> Void)?)>((nil, nil))

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
        state.withLock { $0.handler = handler }
    }

    public func arm(at deadline: Date) {
        state.withLock { $0.armed = deadline }
        source.schedule(wallDeadline: DispatchWallTime(date: deadline), leeway: .nanoseconds(0))
    }

    public func cancel() {
        state.withLock { $0.armed = nil }
        source.schedule(wallDeadline: .distantFuture)
    }

    public var deadline: Date? { state.withLock { $0.armed } }

    private func fired() {
        let handler = state.withLock { state in
            state.armed = nil
            return state.handler
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
