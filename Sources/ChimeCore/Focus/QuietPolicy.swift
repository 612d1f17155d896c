/// What quiet does with a delivery of each interruption level, and how what was held comes out when it ends:
/// chimed.conf's `[Focus]`.
public struct QuietPolicy: Sendable, Equatable {
    /// What happens to a delivery while it is quiet.
    public enum Handling: String, Sendable, CaseIterable {
        /// Kept, and delivered when quiet ends.
        case hold
        /// Recorded in the journal only, never shown.
        case journal
        /// Not delivered at all (the journal says so).
        case drop
        /// Delivered as if it were not quiet.
        case pass
    }

    /// How held deliveries come out when quiet ends.
    public enum Release: String, Sendable, CaseIterable {
        /// One delivery listing them all ("4 notifications while quiet: …"); a single one comes out as itself.
        case summary
        /// Each one, as it would have been delivered.
        case each
    }

    /// `Passive=`, `Active=`, `TimeSensitive=`; `critical` always passes.
    public var passive = Handling.hold
    public var active = Handling.hold
    public var timeSensitive = Handling.pass
    /// `Release=`.
    public var release = Release.summary

    public init() {}

    /// What quiet does with a delivery of `level`.
    public func handling(of level: ScheduledNotification.InterruptionLevel) -> Handling {
        switch level {
        case .passive: passive
        case .active: active
        case .timeSensitive: timeSensitive
        case .critical: .pass
        }
    }
}
