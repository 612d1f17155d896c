import ChimeCore

/// chimed.conf's `[Quiet]` windows and `[Focus]` policy: when it is quiet, what quiet holds back, and whether the
/// desktop's do-not-disturb counts.
public struct FocusSettings: Sendable, Equatable, CustomStringConvertible {
    public var hours = QuietHours()
    public var policy = QuietPolicy()
    /// `[Focus] FollowDesktop=`: the user instance treats the desktop's do-not-disturb as quiet.
    public var followsDesktop = true

    public init() {}

    public var description: String {
        let windows = hours.windows.map { "\($0.text) for \(Timespan(microseconds: UInt64($0.length)))" }
        return "quiet hours: \(windows.isEmpty ? "none" : windows.joined(separator: ", ")); while quiet, "
            + "passive: \(policy.passive.rawValue), active: \(policy.active.rawValue), "
            + "time-sensitive: \(policy.timeSensitive.rawValue), critical: pass; release: \(policy.release.rawValue)"
            + (followsDesktop ? "" : "; the desktop's do-not-disturb is not followed")
    }
}
