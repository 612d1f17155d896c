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
        var bytes: [UInt8] = []
        bytes.reserveCapacity(40)
        guard format(microseconds: date.epochMicroseconds, zone: zone, precision: precision, into: &bytes) else {
            return nil
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The instant as systemd writes it in UTC: `Tue 2026-12-01 06:00:00 UTC`, the "(in UTC):" line of
    /// `systemd-analyze timestamp`. `nil` and `unformattable` as for `format(_:zone:precision:)`.
    public static func formatUTC(_ date: Date, precision: Precision = .seconds) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(40)
        guard formatUTC(microseconds: date.epochMicroseconds, precision: precision, into: &bytes) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `format(_:zone:precision:)` of the instant `microseconds` after the epoch to `bytes` as UTF-8;
    /// returns `false`, appending nothing, where that is `nil`. For listings, which format hundreds of thousands.
    public static func format(
        microseconds: Int64, zone: ZoneRules, precision: Precision = .seconds, into bytes: inout [UInt8]
    ) -> Bool {
        guard microseconds > 0 else { return false }
        guard microseconds <= latestFormattableMicroseconds else {
            bytes.append(contentsOf: unformattable.utf8)
            return true
        }
        let seconds = microseconds / 1_000_000
        var text: ASCIIScratch
        let type: Int
        if zone.leapSeconds.isEmpty {
            type = zone.typeIndex(at: seconds)
            text = fields(
                localSeconds: seconds + Int64(zone.types[type].utcOffset), fraction: microseconds % 1_000_000,
                precision: precision)
        } else {
            // An inserted leap second reads as second 60, which no count of local seconds gives.
            let time: LocalDateTime.Fields
            (time, type) = zone.localFields(at: seconds)
            text = fields(
                localSeconds: time.localSeconds - Int64(time.second), fraction: microseconds % 1_000_000,
                precision: precision, second: time.second)
        }
        let start = type == 0 ? 0 : zone.abbreviationEnds[type - 1]
        let end = zone.abbreviationEnds[type]
        zone.abbreviationBytes.withUnsafeBufferPointer { all in
            let abbreviation = UnsafeBufferPointer(rebasing: all[start..<end])
            if abbreviation.count <= ASCIIScratch.capacity - text.count {
                text.append(contentsOf: abbreviation)
                text.write(to: &bytes)
            } else {
                text.write(to: &bytes)
                bytes.append(contentsOf: abbreviation)
            }
        }
        return true
    }

    /// Appends `formatUTC(_:precision:)` of the instant `microseconds` after the epoch to `bytes` as UTF-8;
    /// returns `false`, appending nothing, where that is `nil`.
    public static func formatUTC(microseconds: Int64, precision: Precision = .seconds, into bytes: inout [UInt8])
        -> Bool
    {
        guard microseconds > 0 else { return false }
        guard microseconds <= latestFormattableMicroseconds else {
            bytes.append(contentsOf: unformattable.utf8)
            return true
        }
        var text = fields(
            localSeconds: microseconds / 1_000_000, fraction: microseconds % 1_000_000, precision: precision)
        text.append("UTC")
        text.write(to: &bytes)
        return true
    }

    /// `Tue 2026-12-01 07:00:00 ` (with `.500000` before the space for `.microseconds`) for a wall clock
    /// `localSeconds` after 1970-01-01 00:00:00.
    /// `second` (0...61), where given, stands for the seconds of `localSeconds` (which then must have none).
    @inline(__always)
    private static func fields(
        localSeconds: Int64, fraction: Int64, precision: Precision, second: Int? = nil
    ) -> ASCIIScratch {
        let (days, secondOfDay) = CivilTime.floorDivide(Int(localSeconds), 86_400)
        let (year, month, day) = CivilTime.date(days: days)
        let weekday = CivilTime.weekday(days: days)
        var text = ASCIIScratch()
        text.append(weekdayLetters[3 * weekday])
        text.append(weekdayLetters[3 * weekday + 1])
        text.append(weekdayLetters[3 * weekday + 2])
        text.append(UInt8(ascii: " "))
        if year >= 1000 && year <= 9999 {
            text.appendTwoDigits(year / 100)
            text.appendTwoDigits(year % 100)
        } else {
            text.appendDigits(year, width: 4)
        }
        text.append(UInt8(ascii: "-"))
        text.appendTwoDigits(month)
        text.append(UInt8(ascii: "-"))
        text.appendTwoDigits(day)
        text.append(UInt8(ascii: " "))
        text.appendTwoDigits(secondOfDay / 3_600)
        text.append(UInt8(ascii: ":"))
        text.appendTwoDigits(secondOfDay / 60 % 60)
        text.append(UInt8(ascii: ":"))
        text.appendTwoDigits(second ?? secondOfDay % 60)
        if precision == .microseconds {
            text.append(UInt8(ascii: "."))
            text.appendDigits(Int(fraction), width: 6)
        }
        text.append(UInt8(ascii: " "))
        return text
    }

    /// The instant in ISO 8601 in UTC: `2026-12-01T06:00:00Z`, with six fractional digits as `fraction` says.
    public static func iso8601(_ date: Date, fraction: FractionDigits = .whenNonZero) -> String {
        iso8601(microseconds: date.epochMicroseconds, fraction: fraction)
    }

    /// `iso8601(_:fraction:)` of the instant `microseconds` after the epoch.
    public static func iso8601(microseconds: Int64, fraction: FractionDigits = .whenNonZero) -> String {
        let (seconds, micro) = CivilTime.floorDivide(Int(microseconds), 1_000_000)
        let (days, secondOfDay) = CivilTime.floorDivide(seconds, 86_400)
        let (year, month, day) = CivilTime.date(days: days)
        var text = ASCIIScratch()
        text.appendDigits(year, width: 4)
        text.append(UInt8(ascii: "-"))
        text.appendTwoDigits(month)
        text.append(UInt8(ascii: "-"))
        text.appendTwoDigits(day)
        text.append(UInt8(ascii: "T"))
        text.appendTwoDigits(secondOfDay / 3_600)
        text.append(UInt8(ascii: ":"))
        text.appendTwoDigits(secondOfDay / 60 % 60)
        text.append(UInt8(ascii: ":"))
        text.appendTwoDigits(secondOfDay % 60)
        if fraction == .microseconds || micro != 0 {
            text.append(UInt8(ascii: "."))
            text.appendDigits(micro, width: 6)
        }
        text.append(UInt8(ascii: "Z"))
        return text.string
    }

    /// `SunMonTue…`: the weekday names of `tm_wday` 0...6, three letters each.
    private static let weekdayLetters = Array("SunMonTueWedThuFriSat".utf8)
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
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        relativeDescription(ofMicroseconds: instant.epochMicroseconds, now: now.epochMicroseconds, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `relativeDescription(of:now:)` of two instants in microseconds since the epoch to `bytes` as UTF-8.
    public static func relativeDescription(
        ofMicroseconds target: Int64, now reference: Int64, into bytes: inout [UInt8]
    ) {
        // The wrapping difference read as unsigned is exact: both lie within Int64.
        let ago = reference > target
        let distance = ago ? UInt64(bitPattern: reference &- target) : UInt64(bitPattern: target &- reference)
        var text = ASCIIScratch()
        if appendRelativeAmount(distance, to: &text) {
            text.append(ago ? " ago" : " left")
        } else {
            text.append("now")
        }
        text.write(to: &bytes)
    }

    /// Appends the words for a distance in microseconds, without "left" or "ago"; `false` (nothing appended) for
    /// zero.
    private static func appendRelativeAmount(_ distance: UInt64, to text: inout ASCIIScratch) -> Bool {
        func number(_ value: UInt64, _ unit: StaticString) {
            text.appendDigits(value)
            text.append(unit)
        }
        func count(_ value: UInt64, _ singular: StaticString) {
            text.appendDigits(value)
            text.append(UInt8(ascii: " "))
            text.append(singular)
            if value != 1 { text.append(UInt8(ascii: "s")) }
        }
        let (second, minute, hour, day) = (Timespan.second, Timespan.minute, Timespan.hour, Timespan.day)
        let (week, month, year) = (Timespan.week, Timespan.month, Timespan.year)
        switch distance {
        case year...:
            count(distance / year, "year")
            text.append(UInt8(ascii: " "))
            count(distance % year / month, "month")
        case month...:
            count(distance / month, "month")
            text.append(UInt8(ascii: " "))
            count(distance % month / day, "day")
        case week...:
            count(distance / week, "week")
            text.append(UInt8(ascii: " "))
            count(distance % week / day, "day")
        case (2 * day)...:
            count(distance / day, "day")
        case (25 * hour)...:
            number(1, " day ")
            number((distance - day) / hour, "h")
        case (6 * hour)...:
            number(distance / hour, "h")
        case hour...:
            number(distance / hour, "h ")
            number(distance % hour / minute, "min")
        case (5 * minute)...:
            number(distance / minute, "min")
        case minute...:
            number(distance / minute, "min ")
            number(distance % minute / second, "s")
        case second...:
            number(distance / second, "s")
        case Timespan.millisecond...:
            number(distance / Timespan.millisecond, "ms")
        case 1...:
            number(distance, "us")
        default:
            return false
        }
        return true
    }
}

extension Timestamp {
    /// Reads back what `iso8601(_:fraction:)` writes: `2026-12-01T06:00:00Z` or `…:00.250000Z` (UTC only). The
    /// year has more than four digits after 9999, which `@` timestamps reach (`At=@2534022174400` is in 82269).
    public static func parseISO8601(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard let dash = bytes.firstIndex(of: UInt8(ascii: "-")), (4...6).contains(dash) else { return nil }
        // Everything after the year has fixed places, shifted by the year's extra digits.
        let shift = dash - 4
        guard bytes.count >= 20 + shift, bytes.last == UInt8(ascii: "Z"), bytes[10 + shift] == UInt8(ascii: "T") else {
            return nil
        }
        func number(_ range: Range<Int>) -> Int? {
            let range = (range.lowerBound + shift)..<(range.upperBound + shift)
            guard bytes[range].allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
            return Int(String(decoding: bytes[range], as: UTF8.self))
        }
        guard let year = number(-shift..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        var micro = 0
        if bytes.count > 20 + shift {
            let digits = bytes.count - 21 - shift
            guard bytes[19 + shift] == UInt8(ascii: "."), (1...6).contains(digits),
                let value = number(20..<(bytes.count - 1 - shift))
            else { return nil }
            micro = value
            for _ in digits..<6 { micro *= 10 }
        }
        let days = Int64(CivilTime.days(year: year, month: month, day: day))
        let seconds = days * 86_400 + Int64(hour * 3_600 + minute * 60 + second)
        // A six-digit year can lie past what a Date holds in microseconds.
        let (whole, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        guard !overflow, whole <= Int64.max - Int64(micro) else { return nil }
        return Date(epochMicroseconds: whole + Int64(micro))
    }
}
