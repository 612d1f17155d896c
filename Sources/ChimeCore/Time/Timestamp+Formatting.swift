import Foundation

extension Timestamp {
    /// How much of the second systemd's format shows.
    public enum Precision: Sendable {
        /// `07:00:00`, the fraction cut off (systemd's default style).
        case seconds
        /// `07:00:00.500000` (systemd's `us` style).
        case microseconds
    }

    /// When ISO 8601 output carries a fraction of the second.
    public enum FractionDigits: Sendable {
        /// Always six digits: `2026-12-01T06:00:00.000000Z` (journal fields such as `CHIME_FIRE_TIME=`).
        case microseconds
        /// Six digits only when the fraction is not zero: `2026-03-30T00:30:00Z`, `2026-06-15T10:20:30.250000Z`.
        case whenNonZero
    }

    /// The placeholder systemd prints for instants after `latestFormattable`.
    public static let unformattable = "--- XXXX-XX-XX XX:XX:XX"

    /// The instant as systemd's `format_timestamp()` writes it in `zone`: `Tue 2026-12-01 07:00:00 CET`, the way
    /// `systemd-analyze timestamp` prints its "Normalized form:".
    ///
    /// The weekday is always English, the zone is the abbreviation in effect at that instant (`-03` for zones
    /// without letters). Like systemd, returns `nil` for the epoch itself and anything before (systemd's "unset")
    /// and `unformattable` after `latestFormattable`.
    public static func format(_ date: Date, zone: ZoneRules, precision: Precision = .seconds) -> String? {
        format(date, precision: precision, rules: zone, zoneName: nil)
    }

    /// The instant as systemd writes it in UTC: `Tue 2026-12-01 06:00:00 UTC`, the "(in UTC):" line of
    /// `systemd-analyze timestamp`. `nil` and `unformattable` as for `format(_:zone:precision:)`.
    public static func formatUTC(_ date: Date, precision: Precision = .seconds) -> String? {
        format(date, precision: precision, rules: .utc, zoneName: "UTC")
    }

    /// Writes `date` in `rules`, followed by `zoneName` or else the abbreviation in effect.
    private static func format(_ date: Date, precision: Precision, rules: ZoneRules, zoneName: String?) -> String? {
        let microseconds = date.epochMicroseconds
        guard microseconds > 0 else { return nil }
        guard microseconds <= latestFormattableMicroseconds else { return unformattable }
        let (seconds, fraction) = microseconds.quotientAndRemainder(dividingBy: 1_000_000)
        let time = rules.localTime(at: seconds)
        // Built byte by byte: listings format hundreds of thousands of these.
        var bytes: [UInt8] = []
        bytes.reserveCapacity(40)
        bytes.append(contentsOf: weekdayNames[time.weekday].utf8)
        bytes.append(UInt8(ascii: " "))
        appendDigits(time.year, width: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(time.month, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(time.day, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: " "))
        appendDigits(time.hour, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(time.minute, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(time.second, width: 2, to: &bytes)
        if precision == .microseconds {
            bytes.append(UInt8(ascii: "."))
            appendDigits(Int(fraction), width: 6, to: &bytes)
        }
        bytes.append(UInt8(ascii: " "))
        bytes.append(contentsOf: (zoneName ?? time.abbreviation).utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value` in decimal, zero-padded to at least `width` digits.
    private static func appendDigits(_ value: Int, width: Int, to bytes: inout [UInt8]) {
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value < 0 ? -value : value
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            } while rest > 0 && count < buffer.count
            for _ in count..<max(width, count) { bytes.append(UInt8(ascii: "0")) }
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }

    /// The instant in ISO 8601 in UTC: `2026-12-01T06:00:00Z`, with six fractional digits as `fraction` says.
    public static func iso8601(_ date: Date, fraction: FractionDigits = .whenNonZero) -> String {
        let (seconds, micro) = CivilTime.floorDivide(Int(date.epochMicroseconds), 1_000_000)
        let (days, secondOfDay) = CivilTime.floorDivide(seconds, 86_400)
        let (year, month, day) = CivilTime.date(days: days)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(28)
        appendDigits(year, width: 4, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(month, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(day, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        appendDigits(secondOfDay / 3_600, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay / 60 % 60, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(secondOfDay % 60, width: 2, to: &bytes)
        if fraction == .microseconds || micro != 0 {
            bytes.append(UInt8(ascii: "."))
            appendDigits(micro, width: 6, to: &bytes)
        }
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
}

extension Timestamp {
    /// How far `instant` is from `now`, in the words of systemd's `format_timestamp_relative()`: the "From now:"
    /// line of `systemd-analyze timestamp` and `calendar`.
    ///
    /// Examples: `now`, `500us left`, `49s left`, `5min 3s ago`, `1h 30min left`, `23h left`, `1 day 23h left`,
    /// `3 days ago`, `1 week 2 days left`, `1 month 1 day left`, `2 years 5 months left`. The larger unit is
    /// written with the next smaller one only down to certain sizes (`5min` but `4min 59s`, `6h` but
    /// `5h 59min`), and every value is truncated, never rounded. Months are 30.44 days and years 365.25 days.
    /// systemd prints nothing for an instant at or before the epoch; this still describes it.
    public static func relativeDescription(of instant: Date, now: Date) -> String {
        let target = instant.epochMicroseconds
        let reference = now.epochMicroseconds
        // The wrapping difference read as unsigned is exact: both lie within Int64.
        let (distance, suffix) =
            reference > target
            ? (UInt64(bitPattern: reference &- target), "ago") : (UInt64(bitPattern: target &- reference), "left")
        guard let amount = relativeAmount(distance) else { return "now" }
        return "\(amount) \(suffix)"
    }

    /// The words for a distance in microseconds, without "left" or "ago"; `nil` for zero.
    private static func relativeAmount(_ distance: UInt64) -> String? {
        func count(_ value: UInt64, _ singular: String) -> String {
            "\(value) \(singular)\(value == 1 ? "" : "s")"
        }
        let (second, minute, hour, day) = (Timespan.second, Timespan.minute, Timespan.hour, Timespan.day)
        let (week, month, year) = (Timespan.week, Timespan.month, Timespan.year)
        switch distance {
        case year...:
            return count(distance / year, "year") + " " + count(distance % year / month, "month")
        case month...:
            return count(distance / month, "month") + " " + count(distance % month / day, "day")
        case week...:
            return count(distance / week, "week") + " " + count(distance % week / day, "day")
        case (2 * day)...:
            return count(distance / day, "day")
        case (25 * hour)...:
            return "1 day \((distance - day) / hour)h"
        case (6 * hour)...:
            return "\(distance / hour)h"
        case hour...:
            return "\(distance / hour)h \(distance % hour / minute)min"
        case (5 * minute)...:
            return "\(distance / minute)min"
        case minute...:
            return "\(distance / minute)min \(distance % minute / second)s"
        case second...:
            return "\(distance / second)s"
        case Timespan.millisecond...:
            return "\(distance / Timespan.millisecond)ms"
        case 1...:
            return "\(distance)us"
        default:
            return nil
        }
    }
}

extension Timestamp {
    /// Reads back what `iso8601(_:fraction:)` writes: `2026-12-01T06:00:00Z` or `…:00.250000Z` (UTC only).
    public static func parseISO8601(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.last == UInt8(ascii: "Z"), bytes[10] == UInt8(ascii: "T") else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            guard bytes[range].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
            return Int(String(decoding: bytes[range], as: UTF8.self))
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        var micro = 0
        if bytes.count > 20 {
            let digits = bytes.count - 21
            guard bytes[19] == UInt8(ascii: "."), (1...6).contains(digits), let value = number(20..<(bytes.count - 1))
            else { return nil }
            micro = value
            for _ in digits..<6 { micro *= 10 }
        } else if bytes.count != 20 {
            return nil
        }
        let days = Int64(CivilTime.days(year: year, month: month, day: day))
        let seconds = days * 86_400 + Int64(hour * 3_600 + minute * 60 + second)
        return Date(epochMicroseconds: seconds * 1_000_000 + Int64(micro))
    }
}
