import Foundation

/// chimed.conf's quiet windows (`[Quiet]`): each begins at every elapse of a calendar event and lasts a fixed
/// length. Windows that overlap or touch make one stretch of quiet time.
///
/// Pure: the system zone comes in as an argument. Instants are microseconds since the epoch.
public struct QuietHours: Sendable, Equatable {
    /// One `OnCalendar=` of a `[Quiet]` section, with that section's `LengthSec=` and `TimeZone=`.
    public struct Window: Sendable, Equatable {
        public var calendar: CalendarSpec
        /// How long each window lasts, in microseconds (above zero).
        public var length: Int64
        /// `TimeZone=`: the zone of wall times without one; `nil` for the system zone.
        public var zone: ZoneRules?
        /// The value as written, for status and logs.
        public var text: String

        public init(calendar: CalendarSpec, length: Int64, zone: ZoneRules?, text: String) {
            self.calendar = calendar
            self.length = length
            self.zone = zone
            self.text = text
        }

        public static func == (a: Window, b: Window) -> Bool {
            a.calendar == b.calendar && a.length == b.length && a.text == b.text
                && a.zone?.name == b.zone?.name && (a.zone.map { z in b.zone.map(z.hasSameRules) ?? false } ?? true)
        }

        /// The earliest start of this window that is still going on at `instant`.
        func earliestStart(covering instant: Int64, systemZone: ZoneRules) -> Int64? {
            guard let start = calendar.nextElapse(afterMicroseconds: instant - length, localZone: zone ?? systemZone),
                start <= instant
            else { return nil }
            return start
        }

        /// The latest end of this window's instances that cover `instant`.
        func latestEnd(covering instant: Int64, systemZone: ZoneRules) -> Int64? {
            var end: Int64?
            for start in calendar.elapses(afterMicroseconds: instant - length, localZone: zone ?? systemZone).prefix(
                Self.searchLimit)
            {
                guard start <= instant else { break }
                end = start + length
            }
            return end
        }

        /// How many elapses a search looks at before it settles for what it has: a window that recurs every
        /// second and lasts a day would otherwise be walked for ever.
        static let searchLimit = 500
    }

    public var windows: [Window]

    public init(_ windows: [Window] = []) {
        self.windows = windows
    }

    public var isEmpty: Bool { windows.isEmpty }

    /// The stretch of quiet time `instant` falls in, `start..<end`, or `nil` when no window covers it.
    public func stretch(containing instant: Date, systemZone: ZoneRules) -> Range<Date>? {
        let now = instant.epochMicroseconds
        guard var start = earliestStart(covering: now, systemZone: systemZone) else { return nil }
        for _ in 0..<Window.searchLimit {
            guard let earlier = earliestStart(covering: start - 1, systemZone: systemZone) else { break }
            start = earlier
        }
        var end = now
        for _ in 0..<Window.searchLimit {
            let later = windows.compactMap { $0.latestEnd(covering: end, systemZone: systemZone) }.max()
            guard let later, later > end else { break }
            end = later
        }
        return Date(epochMicroseconds: start)..<Date(epochMicroseconds: end)
    }

    /// The first instant after `instant` at which a window begins.
    public func nextStart(after instant: Date, systemZone: ZoneRules) -> Date? {
        windows.compactMap {
            $0.calendar.nextElapse(afterMicroseconds: instant.epochMicroseconds, localZone: $0.zone ?? systemZone)
        }.min().map(Date.init(epochMicroseconds:))
    }

    private func earliestStart(covering instant: Int64, systemZone: ZoneRules) -> Int64? {
        windows.compactMap { $0.earliestStart(covering: instant, systemZone: systemZone) }.min()
    }
}
