/// Proleptic Gregorian calendar arithmetic on plain integers, the way `timegm(3)` and `gmtime_r(3)` do it.
///
/// Everything here is in "local seconds": seconds since 1970-01-01 00:00:00 of some wall clock, without a zone.
/// Converting between local seconds and instants is the job of `ZoneRules`.
public enum CivilTime {
    /// Days since 1970-01-01 of the given proleptic Gregorian date. `month` is 1...12; `day` may lie outside the
    /// month (day 0 is the last day of the previous month), as in `mktime(3)` normalisation.
    @inline(__always)
    public static func days(year: Int, month: Int, day: Int) -> Int {
        // The same arithmetic on non-negative values that cannot overflow, unchecked: the calendar search converts
        // dates millions of times per listing.
        if year >= 1 && year <= 1_000_000 && month >= 1 && month <= 12 && day > -1_000_000 && day < 1_000_000 {
            let y = UInt(bitPattern: month <= 2 ? year &- 1 : year)
            let era = y / 400
            let yearOfEra = y &- era &* 400
            let shiftedMonth = UInt(bitPattern: month > 2 ? month &- 3 : month &+ 9)
            let dayOfYear = (153 &* shiftedMonth &+ 2) / 5
            let dayOfEra = yearOfEra &* 365 &+ yearOfEra / 4 &- yearOfEra / 100 &+ dayOfYear
            return Int(bitPattern: era &* 146_097 &+ dayOfEra) &- 719_468 &+ (day &- 1)
        }
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468 + (day - 1)
    }

    /// The date (`month` 1...12) of a day number counted from 1970-01-01.
    public static func date(days: Int) -> (year: Int, month: Int, day: Int) {
        if days >= -719_468 && days <= 365_000_000 {
            // As below, on non-negative values that cannot overflow, unchecked.
            let z = UInt(bitPattern: days &+ 719_468)
            let era = z / 146_097
            let dayOfEra = z &- era &* 146_097
            let yearOfEra = (dayOfEra &- dayOfEra / 1460 &+ dayOfEra / 36_524 &- dayOfEra / 146_096) / 365
            let dayOfYear = dayOfEra &- (365 &* yearOfEra &+ yearOfEra / 4 &- yearOfEra / 100)
            let shiftedMonth = (5 &* dayOfYear &+ 2) / 153
            let day = Int(bitPattern: dayOfYear &- (153 &* shiftedMonth &+ 2) / 5 &+ 1)
            let month = Int(bitPattern: shiftedMonth < 10 ? shiftedMonth &+ 3 : shiftedMonth &- 9)
            return (Int(bitPattern: yearOfEra &+ era &* 400) &+ (month <= 2 ? 1 : 0), month, day)
        }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// Day of the week of a day number, 0 = Sunday ... 6 = Saturday (as `tm_wday`).
    @inline(__always)
    public static func weekday(days: Int) -> Int {
        let w = (days + 4) % 7
        return w < 0 ? w + 7 : w
    }

    @inline(__always)
    public static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// Number of days in `month` (1...12) of `year`.
    @inline(__always)
    public static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// `floorDivide` on 64-bit values (microseconds since the epoch).
    @inline(__always)
    static func floorDivide64(_ a: Int64, _ b: Int64) -> (quotient: Int64, remainder: Int64) {
        let q = a / b
        let r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }

    /// Floor division and its non-negative remainder, which `/` and `%` do not give for negative numbers.
    @inline(__always)
    static func floorDivide(_ a: Int, _ b: Int) -> (quotient: Int, remainder: Int) {
        let q = a / b
        let r = a % b
        return r < 0 ? (q - 1, r + b) : (q, r)
    }
}
