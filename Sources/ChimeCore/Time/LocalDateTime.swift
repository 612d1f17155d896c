/// Broken-down wall-clock time, like C's `struct tm` but with `month` in 1...12.
///
/// Fields may hold out-of-range values (minute 75, day 0, hour 26) before `ZoneRules.makeTime(_:)` normalises
/// them, exactly as `mktime(3)` accepts them.
public struct LocalDateTime: Hashable, Sendable {
    public var year: Int
    /// 1...12 once normalised.
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// As `tm_isdst`: -1 (unknown, let the conversion decide), 0 (standard time) or 1 (daylight saving time).
    public var isDST: Int
    /// 0 = Sunday ... 6 = Saturday; filled in by conversions.
    public var weekday: Int
    /// Seconds east of UTC (`tm_gmtoff`); filled in by conversions.
    public var utcOffset: Int
    /// The zone abbreviation in effect (`tm_zone`, e.g. `CET`); filled in by conversions.
    public var abbreviation: String

    public init(
        year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, isDST: Int = -1
    ) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
        self.isDST = isDST
        self.weekday = 0
        self.utcOffset = 0
        self.abbreviation = ""
    }

    /// Seconds since 1970-01-01 00:00:00 of this wall clock, carrying out-of-range fields over as `mktime(3)` does
    /// (month first, into the year; everything else by plain arithmetic).
    public var localSeconds: Int64 {
        let (carry, month0) = CivilTime.floorDivide(month - 1, 12)
        let days = CivilTime.days(year: year + carry, month: month0 + 1, day: 1) + day - 1
        return Int64(days) * 86_400 + Int64(hour) * 3_600 + Int64(minute) * 60 + Int64(second)
    }

    /// Whether every field already lies in its normal range, so that normalising cannot change it.
    @inline(__always)
    var isInRange: Bool {
        month >= 1 && month <= 12 && day >= 1 && hour >= 0 && hour < 24 && minute >= 0 && minute < 60
            && second >= 0 && second < 60 && (day <= 28 || day <= CivilTime.daysInMonth(year: year, month: month))
    }

    /// The normalised fields of `localSeconds` (weekday included); zone fields are left as they are.
    mutating func setFields(localSeconds: Int64) {
        let (days, secondOfDay) = CivilTime.floorDivide(Int(localSeconds), 86_400)
        let date = CivilTime.date(days: days)
        year = date.year
        month = date.month
        day = date.day
        hour = secondOfDay / 3_600
        minute = secondOfDay / 60 % 60
        second = secondOfDay % 60
        weekday = CivilTime.weekday(days: days)
    }
}
