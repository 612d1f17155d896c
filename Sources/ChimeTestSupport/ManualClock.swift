import ChimeCore
import ChimeDaemon
import Foundation

/// A wall clock that only moves when told to, and the timers that run on it.
///
/// As with an embedded event loop, `advance(to:)` fires due timers in deadline order, setting "now" to each
/// deadline before calling its handler; a day of schedule runs in microseconds without sleeping.
public final class ManualClock: WallClock, @unchecked Sendable {
    private let lock = NSRecursiveLock()
    private var current: Date
    private var timers: [ManualTimer] = []

    public init(_ start: Date) {
        current = start
    }

    public func now() -> Date {
        lock.lock()
        defer { lock.unlock() }
        return current
    }

    /// A timer driven by this clock.
    public func makeTimer() -> ManualTimer {
        let timer = ManualTimer()
        lock.lock()
        timers.append(timer)
        lock.unlock()
        return timer
    }

    /// Moves the clock forward to `target`, firing every timer that falls due on the way, in order.
    public func advance(to target: Date) {
        while let (timer, deadline) = nextDue(before: target) {
            lock.lock()
            current = max(current, deadline)
            lock.unlock()
            timer.fire()
        }
        lock.lock()
        current = max(current, target)
        lock.unlock()
    }

    public func advance(by duration: Duration) {
        advance(to: now().addingTimeInterval(duration.timeInterval))
    }

    /// Sets the clock to `instant` without firing anything: a clock step, forward or backward.
    public func jump(to instant: Date) {
        lock.lock()
        current = instant
        lock.unlock()
    }

    private func nextDue(before target: Date) -> (ManualTimer, Date)? {
        lock.lock()
        defer { lock.unlock() }
        let due = timers.compactMap { timer in timer.deadline.map { (timer, $0) } }.filter { $0.1 <= target }
        return due.min { $0.1 < $1.1 }
    }
}

/// A one-shot timer fired by `ManualClock.advance(to:)`; records how often it was armed.
public final class ManualTimer: WallTimer, @unchecked Sendable {
    private let lock = NSLock()
    private var handler: (@Sendable () -> Void)?
    private var armed: Date?
    public private(set) var armCount = 0

    public func setHandler(_ handler: @escaping @Sendable () -> Void) {
        lock.lock()
        self.handler = handler
        lock.unlock()
    }

    public func arm(at deadline: Date) {
        lock.lock()
        armed = deadline
        armCount += 1
        lock.unlock()
    }

    public func cancel() {
        lock.lock()
        armed = nil
        lock.unlock()
    }

    public var deadline: Date? {
        lock.lock()
        defer { lock.unlock() }
        return armed
    }

    func fire() {
        lock.lock()
        armed = nil
        let handler = self.handler
        lock.unlock()
        handler?()
    }
}
