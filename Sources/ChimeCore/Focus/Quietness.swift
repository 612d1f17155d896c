import Foundation

/// Whether it is quiet at an instant, why, and when to look again: decided from the quiet hours, the user's
/// switch and the desktop's do-not-disturb.
///
/// Pure: "now" and the zone come in as arguments.
public struct Quietness: Sendable, Equatable {
    /// One reason it is quiet.
    public enum Reason: Sendable, Equatable, CustomStringConvertible {
        /// A stretch of chimed.conf's quiet hours.
        case hours(Range<Date>)
        /// `chimectl quiet on`, until an instant or until switched off.
        case switchedOn(until: Date?)
        /// The desktop's do-not-disturb, named by what reported it (`dunst`, `the notification server`, `GNOME`).
        case desktop(String)

        public var description: String {
            switch self {
            case .hours: "quiet hours"
            case .switchedOn: "chimectl quiet on"
            case .desktop(let source): "do-not-disturb (\(source))"
            }
        }
    }

    /// Empty when it is not quiet.
    public var reasons: [Reason]
    /// The earliest instant after which the answer may differ with nothing else changing: a window beginning or
    /// ending, the switch running out. `nil` when only an outside change (the switch, the desktop) can alter it.
    public var nextChange: Date?

    public var isQuiet: Bool { !reasons.isEmpty }

    /// When quiet ends by itself, if it does: the latest end of the reasons, or `nil` when one of them has none.
    public var expectedEnd: Date? {
        var end: Date?
        for reason in reasons {
            switch reason {
            case .hours(let stretch): end = max(end ?? stretch.upperBound, stretch.upperBound)
            case .switchedOn(let until?): end = max(end ?? until, until)
            case .switchedOn(nil), .desktop: return nil
            }
        }
        return end
    }

    /// Decides for `now`.
    /// - Parameters:
    ///   - desktop: what reports the desktop's do-not-disturb as on, or `nil` when it is off (or not followed).
    public init(
        at now: Date, hours: QuietHours, quietSwitch: QuietSwitch?, desktop: String?, systemZone: ZoneRules
    ) {
        var reasons: [Reason] = []
        var changes: [Date] = []
        if let quietSwitch, quietSwitch.mode == .on {
            if let until = quietSwitch.until {
                if now < until {
                    reasons.append(.switchedOn(until: until))
                    changes.append(until)
                }
            } else {
                reasons.append(.switchedOn(until: nil))
            }
        }
        if let stretch = hours.stretch(containing: now, systemZone: systemZone) {
            // Switched off during this stretch: quiet again at the next one, not when this one would have ended.
            let isSwitchedOff = quietSwitch.map { $0.mode == .off && $0.setAt >= stretch.lowerBound } ?? false
            if !isSwitchedOff {
                reasons.append(.hours(stretch))
                changes.append(stretch.upperBound)
            } else if let start = hours.nextStart(after: stretch.upperBound, systemZone: systemZone) {
                changes.append(start)
            }
        } else if let start = hours.nextStart(after: now, systemZone: systemZone) {
            changes.append(start)
        }
        if let desktop { reasons.append(.desktop(desktop)) }
        self.reasons = reasons
        nextChange = changes.min()
    }
}
