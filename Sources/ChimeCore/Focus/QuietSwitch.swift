import Foundation

/// The user's runtime switch (`chimectl quiet on|off`), kept across restarts.
///
/// `on` makes it quiet from when it was set until `until` (or until switched off); `off` ends the stretch of quiet
/// hours going on when it was set (the next window is quiet again) and ends an earlier `on`.
public struct QuietSwitch: Sendable, Equatable {
    public enum Mode: String, Sendable {
        case on, off
    }

    public var mode: Mode
    /// When it was set.
    public var setAt: Date
    /// `on`: when it ends by itself; `nil` for "until switched off".
    public var until: Date?

    public init(_ mode: Mode, setAt: Date, until: Date? = nil) {
        self.mode = mode
        self.setAt = setAt
        self.until = until
    }
}
