import ChimeCore
import ChimeDaemon
import Foundation

/// A wall clock that only moves when told to, and the timers that run on it.
///
/// As with an embedded event loop, `advance(to:)` fires due timers in deadline order, setting "now" to each
/// deadline before calling its handler; a day of schedule runs in microseconds without sleeping.
public final class ManualClock: WallClock, Sendable {
    private let state: Locked<(current: Date, timers: [ManualTimer])>

    public init(_ start: Date) {
        state = Locked((start, []))
    }

    public func now() -> Date {
        state.withLock { $0.current }
    }

    /// A timer driven by this clock.
    public func makeTimer() -> ManualTimer {
        let timer = ManualTimer()
        state.withLock { $0.timers.append(timer) }
        return timer
    }

    /// Moves the clock forward to `target`, firing every timer that falls due on the way, in order.
    public func advance(to target: Date) {
        while let (timer, deadline) = nextDue(before: target) {
            state.withLock { $0.current = max($0.current, deadline) }
            timer.fire()
        }
        state.withLock { $0.current = max($0.current, target) }
    }

    public func advance(by duration: Duration) {
        advance(to: now().addingTimeInterval(duration.timeInterval))
    }

    /// Sets the clock to `instant` without firing anything: a clock step, forward or backward.
    public func jump(to instant: Date) {
        state.withLock { $0.current = instant }
    }

    private func nextDue(before target: Date) -> (ManualTimer, Date)? {
        let timers = state.withLock { $0.timers }
        let due = timers.compactMap { timer in timer.deadline.map { (timer, $0) } }.filter { $0.1 <= target }
        return due.min { $0.1 < $1.1 }
    }
}

/// A one-shot timer fired by `ManualClock.advance(to:)`; records how often it was armed.
public final class ManualTimer: WallTimer, Sendable {
    private let state = Locked<(handler: (@Sendable () -> Void)?, armed: Date?, armCount: Int)>((nil, nil, 0))

    /// How often it was armed.
    public var armCount: Int { state.withLock { $0.armCount } }

    public func setHandler(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.handler = handler }
    }

    public func arm(at deadline: Date) {
        state.withLock { state in
            state.armed = deadline
            state.armCount += 1
        }
    }

    public func cancel() {
        state.withLock { $0.armed = nil }
    }

    public var deadline: Date? { state.withLock { $0.armed } }

    /// Fires it now, as its deadline passing would: for a test that moved the clock with `jump(to:)`.
    public func fire() {
        let handler = state.withLock { state in
            state.armed = nil
            return state.handler
        }
        handler?()
    }
}
