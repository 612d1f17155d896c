/// `Offset=`: how far each occurrence of a trigger moves once everything else is decided, as an iCalendar alarm
/// is set relative to its event (`TRIGGER:-PT15M`, fifteen minutes before each instance).
///
/// Written as an RFC 5545 duration (`-PT15M`, `-P1D`, `P1W`, `-P1DT2H`), whose days and weeks are nominal (the same
/// time of day on the wall clock, one day earlier, whatever daylight saving time does in between) and whose hours,
/// minutes and seconds are exact; or as a time span of systemd.time(7), with a sign in front for earlier
/// (`-15min`, `-1d`), which is exact throughout.
public struct TriggerOffset: Sendable, Equatable, CustomStringConvertible {
    /// Nominal days (a week is seven).
    public let days: Int
    /// Exact microseconds.
    public let microseconds: Int64
    public let description: String

    public init(days: Int, microseconds: Int64, description: String) {
        self.days = days
        self.microseconds = microseconds
        self.description = description
    }

    /// Reads `text`; `nil` when it is neither form, or out of bounds (a year either way).
    public init?(parsing text: String) {
        var body = Substring(text)
        var sign: Int64 = 1
        if let first = body.first, first == "-" || first == "+" {
            if first == "-" { sign = -1 }
            body = body.dropFirst()
        }
        var days = 0
        var microseconds: Int64 = 0
        if body.first == "P" {
            guard let duration = Self.rfc5545(body.dropFirst()) else { return nil }
            (days, microseconds) = duration
        } else {
            guard let span = try? Timespan.parse(String(body)), !span.isInfinite else { return nil }
            microseconds = Int64(clamping: span.microseconds)
        }
        let year: Int64 = 366 * 86_400 * 1_000_000
        guard days <= 366, microseconds <= year, Int64(days) * 86_400 * 1_000_000 + microseconds <= year else {
            return nil
        }
        self.init(days: Int(sign) * days, microseconds: sign * microseconds, description: text)
    }

    /// `nW`, or `[nD][T[nH][nM][nS]]`, after the `P`.
    private static func rfc5545(_ text: Substring) -> (days: Int, microseconds: Int64)? {
        var days = 0
        var seconds: Int64 = 0
        var number: Int64?
        var inTime = false
        var sawUnit = false
        for character in text {
            if let digit = character.wholeNumberValue, character.isASCII {
                guard (number ?? 0) < 1_000_000 else { return nil }
                number = (number ?? 0) * 10 + Int64(digit)
                continue
            }
            if character == "T" && !inTime && number == nil {
                inTime = true
                continue
            }
            guard let value = number else { return nil }
            switch (character, inTime) {
            case ("W", false): days += Int(value) * 7
            case ("D", false): days += Int(value)
            case ("H", true): seconds += value * 3_600
            case ("M", true): seconds += value * 60
            case ("S", true): seconds += value
            default: return nil
            }
            number = nil
            sawUnit = true
        }
        guard sawUnit, number == nil, days <= 366 else { return nil }
        return (days, seconds * 1_000_000)
    }

    /// Both moves, one after the other (written as RFC 5545 when it is shown).
    public static func + (a: TriggerOffset, b: TriggerOffset) -> TriggerOffset {
        TriggerOffset(days: a.days + b.days, microseconds: a.microseconds + b.microseconds, description: "")
    }

    /// The move `factor` times over.
    public func times(_ factor: Int) -> TriggerOffset {
        TriggerOffset(days: days * factor, microseconds: microseconds * Int64(factor), description: "")
    }

    /// The move in elapsed time, each day taken as 24 hours: for an instant without a wall clock to read days on.
    public var elapsedMicroseconds: Int64 {
        microseconds + Int64(days) * 86_400_000_000
    }

    /// `instant` (µs) moved: its wall time in `zone` by the days (read back as RFC 5545 §3.3.5 says), then by the
    /// exact part.
    public func apply(to instant: Int64, zone: ZoneRules) -> Int64 {
        guard days != 0 else { return instant + microseconds }
        let (seconds, fraction) = CivilTime.floorDivide64(instant, 1_000_000)
        let wall = seconds + Int64(zone.utcOffset(at: seconds)) + Int64(days) * 86_400
        return zone.instantReadingRFC5545(wallTime: wall) * 1_000_000 + fraction + microseconds
    }

    /// An instant at or before every unmoved occurrence whose moved time is after `instant`.
    func earliestUnmoved(movedAfter instant: Int64) -> Int64 {
        // A nominal day is a day of elapsed time give or take what the clock changes by, at most a day (Samoa
        // skipped one in 2011).
        let slack: Int64 = days == 0 ? 0 : 86_400 * 1_000_000
        let (earliest, overflow) = instant.subtractingReportingOverflow(
            microseconds + Int64(days) * 86_400 * 1_000_000 + slack)
        return overflow ? (instant < 0 ? .min : .max) : earliest
    }
}
