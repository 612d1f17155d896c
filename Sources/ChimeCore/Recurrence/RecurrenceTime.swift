/// A time as RFC 5545 writes it in `UNTIL`, `RDATE` and `EXDATE`: `20261231T235959Z` (UTC), `20261231T235959`
/// (the wall clock of the trigger's zone) or `20261231` (a whole day of that wall clock).
public enum RecurrenceTime: Sendable, Hashable {
    /// `…Z`: microseconds since the epoch.
    case instant(Int64)
    /// Without `Z`: seconds of the wall clock (since 1970-01-01 00:00:00 of the wall clock).
    case wallTime(Int64)
    /// A date: the whole day, on the wall clock (days since 1970-01-01).
    case date(Int)

    /// Reads `YYYYMMDD`, `YYYYMMDDTHHMMSS` or `YYYYMMDDTHHMMSSZ`; `nil` for anything else.
    public init?(rfc5545 text: some StringProtocol) {
        let bytes = Array(text.utf8)
        func digits(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard let year = digits(0..<4), let month = digits(4..<6), let day = digits(6..<8), (1...12).contains(month),
            day >= 1, day <= CivilTime.daysInMonth(year: year, month: month)
        else { return nil }
        let days = CivilTime.days(year: year, month: month, day: day)
        if bytes.count == 8 {
            self = .date(days)
            return
        }
        guard bytes.count == 15 || (bytes.count == 16 && bytes[15] == UInt8(ascii: "Z")), bytes[8] == UInt8(ascii: "T"),
            let hour = digits(9..<11), let minute = digits(11..<13), let second = digits(13..<15), hour < 24,
            minute < 60, second < 61
        else { return nil }
        let wall = Int64(days) * 86_400 + Int64(hour * 3_600 + minute * 60 + second)
        self = bytes.count == 16 ? .instant(wall * 1_000_000) : .wallTime(wall)
    }

    /// As RFC 5545 writes it (an instant to the second, in UTC).
    public var rfc5545: String {
        func text(_ wall: Int64) -> String {
            let (days, second) = CivilTime.floorDivide64(wall, 86_400)
            let date = CivilTime.date(days: Int(days))
            let digits = [
                (date.year, 4), (date.month, 2), (date.day, 2), (Int(second / 3_600), 2), (Int(second % 3_600 / 60), 2),
                (Int(second % 60), 2),
            ].map { value, width in String(repeating: "0", count: max(0, width - String(value).count)) + String(value) }
            return digits[0...2].joined() + "T" + digits[3...5].joined()
        }
        switch self {
        case .instant(let instant): return text(CivilTime.floorDivide64(instant, 1_000_000).quotient) + "Z"
        case .wallTime(let wall): return text(wall)
        case .date(let day): return String(text(Int64(day) * 86_400).prefix(8))
        }
    }

    /// The instant it names in `zone` (µs): a wall time read as RFC 5545 §3.3.5 says, a date at its midnight.
    public func instant(in zone: ZoneRules) -> Int64 {
        switch self {
        case .instant(let instant): instant
        case .wallTime(let wall): zone.instantReadingRFC5545(wallTime: wall) * 1_000_000
        case .date(let day): zone.instantReadingRFC5545(wallTime: Int64(day) * 86_400) * 1_000_000
        }
    }

    /// Whether `instant` is this time as an exclusion (`ExDate=`) means it: the same instant, or for a date any
    /// instant of that day on `zone`'s wall clock.
    func excludes(_ instant: Int64, in zone: ZoneRules) -> Bool {
        switch self {
        case .instant, .wallTime: return self.instant(in: zone) == instant
        case .date(let day):
            let (seconds, _) = CivilTime.floorDivide64(instant, 1_000_000)
            let (wallDay, _) = CivilTime.floorDivide64(seconds + Int64(zone.utcOffset(at: seconds)), 86_400)
            return wallDay == Int64(day)
        }
    }
}
