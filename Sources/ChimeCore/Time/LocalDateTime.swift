/// Broken-down wall-clock time, like C's `struct tm` but with `month` in 1...12.
///
/// Fields may hold out-of-range values (minute 75, day 0, hour 26) before `ZoneRules.makeTime(_:)` normalises
/// them, exactly as `mktime(3)` accepts them.
public struct LocalDateTime: Hashable, Sendable {
    /// Every field but the abbreviation: plain integers, which the calendar search copies and normalises many times
    /// per elapse without touching reference-counted storage.
    struct Fields: Hashable, Sendable {
        var year: Int
        var month: Int
        var day: Int
        var hour = 0
        var minute = 0
        var second = 0
        var isDST = -1
        var weekday = 0
        var utcOffset = 0

        /// Seconds since 1970-01-01 00:00:00 of this wall clock, carrying out-of-range fields over as `mktime(3)`
        /// does (month first, into the year; everything else by plain arithmetic).
        @inline(__always)
        var localSeconds: Int64 {
            let days: Int
            if month >= 1 && month <= 12 {
                days = CivilTime.days(year: year, month: month, day: day)
            } else {
                let (carry, month0) = CivilTime.floorDivide(month - 1, 12)
                days = CivilTime.days(year: year + carry, month: month0 + 1, day: day)
            }
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

    var fields: Fields
    /// The zone abbreviation in effect (`tm_zone`, e.g. `CET`); filled in by conversions.
    public var abbreviation: String

    public init(
        year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, isDST: Int = -1
    ) {
        fields = Fields(year: year, month: month, day: day, hour: hour, minute: minute, second: second, isDST: isDST)
        abbreviation = ""
    }

    init(fields: Fields, abbreviation: String) {
        self.fields = fields
        self.abbreviation = abbreviation
    }

    public var year: Int {
        get { fields.year }
        set { fields.year = newValue }
    }
    /// 1...12 once normalised.
    public var month: Int {
        get { fields.month }
        set { fields.month = newValue }
    }
    public var day: Int {
        get { fields.day }
        set { fields.day = newValue }
    }
    public var hour: Int {
        get { fields.hour }
        set { fields.hour = newValue }
    }
    public var minute: Int {
        get { fields.minute }
        set { fields.minute = newValue }
    }
    public var second: Int {
        get { fields.second }
        set { fields.second = newValue }
    }
    /// As `tm_isdst`: -1 (unknown, let the conversion decide), 0 (standard time) or 1 (daylight saving time).
    public var isDST: Int {
        get { fields.isDST }
        set { fields.isDST = newValue }
    }
    /// 0 = Sunday ... 6 = Saturday; filled in by conversions.
    public var weekday: Int {
        get { fields.weekday }
        set { fields.weekday = newValue }
    }
    /// Seconds east of UTC (`tm_gmtoff`); filled in by conversions.
    public var utcOffset: Int {
        get { fields.utcOffset }
        set { fields.utcOffset = newValue }
    }

    /// Seconds since 1970-01-01 00:00:00 of this wall clock, carrying out-of-range fields over as `mktime(3)` does
    /// (month first, into the year; everything else by plain arithmetic).
    public var localSeconds: Int64 { fields.localSeconds }

    /// Whether every field already lies in its normal range, so that normalising cannot change it.
    var isInRange: Bool { fields.isInRange }

    /// The normalised fields of `localSeconds` (weekday included); zone fields are left as they are.
    mutating func setFields(localSeconds: Int64) {
        fields.setFields(localSeconds: localSeconds)
    }
}
