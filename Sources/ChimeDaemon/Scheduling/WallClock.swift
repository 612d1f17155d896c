import Foundation

/// The wall clock (CLOCK_REALTIME) the scheduler reads; tests substitute a manual one.
public protocol WallClock: Sendable {
    func now() -> Date
}

/// The system's real-time clock.
public struct SystemWallClock: WallClock {
    public init() {}

    public func now() -> Date { Date() }
}

/// A one-shot timer on the wall clock: fires once at an absolute instant, following clock changes.
///
/// The scheduler arms exactly one of these for the earliest due occurrence.
public protocol WallTimer: AnyObject, Sendable {
    /// Sets what runs when the timer fires.
    func setHandler(_ handler: @escaping @Sendable () -> Void)
    /// Arms the timer for `deadline`, replacing any earlier arming.
    func arm(at deadline: Date)
    /// Disarms the timer.
    func cancel()
    /// The instant the timer is armed for, if any.
    var deadline: Date? { get }
}
