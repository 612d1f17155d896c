/// The instances of a yearly rule with `BYWEEKNO`, computed by chime: libical 3.0.16 numbers the weeks from Monday
/// whatever `WKST` says, so that `BYWEEKNO=1,53;BYDAY=SU;WKST=SU` gives Mondays and misses Sundays.
///
/// RFC 5545 §3.3.10: weeks begin on `WKST`; week 1 of a year is the first with at least four of its days in that
/// year (so the one holding 4 January), and a year has 52 or 53 weeks; a negative number counts back from its last
/// week. Each step is one calendar year (`INTERVAL` years from DTSTART's): the days of that year whose week has a
/// number asked for (a week that straddles the new year belongs to one year but lends its days to both), that pass
/// the other day limits (every day of the week without `BYDAY`), at each time of `BYHOUR`, `BYMINUTE`, `BYSECOND`
/// (DTSTART's where a part is missing), `BYSETPOS` picking from the year's set.
struct WeekNumberRecurrence: Sendable, Equatable {
    let interval: Int
    let weekNumbers: [Int]
    /// 0 is Sunday.
    let weekStart: Int
    let days: DayLimits
    let hours: [Int]?
    let minutes: [Int]?
    let seconds: [Int]?
    let positions: [Int]?

    /// `nil` for a rule that is not yearly or has no `BYWEEKNO`.
    init?(_ parts: [String: String], frequency: RecurrenceRule.Frequency) {
        guard frequency == .yearly, let weekNumbers = DayLimits.list(parts["BYWEEKNO"]) else { return nil }
        self.weekNumbers = weekNumbers
        interval = parts["INTERVAL"].flatMap { Int($0) } ?? 1
        weekStart = parts["WKST"].flatMap { RecurrenceRule.weekdays.firstIndex(of: $0) } ?? 1
        days = DayLimits(parts)
        hours = DayLimits.list(parts["BYHOUR"])
        minutes = DayLimits.list(parts["BYMINUTE"])
        seconds = DayLimits.list(parts["BYSECOND"])
        positions = DayLimits.list(parts["BYSETPOS"])
    }

    /// The set of step `k`, the year `k`·`INTERVAL` after DTSTART's (wall seconds), ascending.
    func set(ofStep k: Int64, start: Int64) -> [Int64] {
        let (startDay, startSecond) = CivilTime.floorDivide64(start, 86_400)
        let year = CivilTime.date(days: Int(startDay)).year + Int(k) * interval
        var times: [Int64] = []
        for hour in (hours ?? [Int(startSecond / 3_600)]).sorted() {
            for minute in (minutes ?? [Int(startSecond % 3_600 / 60)]).sorted() {
                for second in (seconds ?? [Int(startSecond % 60)]).sorted() {
                    times.append(Int64(hour * 3_600 + minute * 60 + second))
                }
            }
        }
        let first = CivilTime.days(year: year, month: 1, day: 1)
        let length = CivilTime.isLeapYear(year) ? 366 : 365
        var set: [Int64] = []
        for day in first..<(first + length) where isInWeekAskedFor(day) && days.allows(day: day) {
            for time in times { set.append(Int64(day) * 86_400 + time) }
        }
        return DayLimits.picking(positions, from: set)
    }

    /// The first step whose year is not before that of `wall`'s.
    func firstStep(notBefore wall: Int64, start: Int64) -> Int64 {
        let year = CivilTime.date(days: Int(CivilTime.floorDivide64(wall, 86_400).quotient)).year
        let startYear = CivilTime.date(days: Int(CivilTime.floorDivide64(start, 86_400).quotient)).year
        return max(0, Int64(CivilTime.floorDivide(year - startYear, interval).quotient))
    }

    /// Whether the week of `day` has one of the numbers asked for, counted in the year the week belongs to.
    private func isInWeekAskedFor(_ day: Int) -> Bool {
        let begins = weekBeginning(of: day)
        // A week belongs to the year that holds its fourth day.
        let year = CivilTime.date(days: begins + 3).year
        let firstWeek = weekBeginning(of: CivilTime.days(year: year, month: 1, day: 4))
        let weeks = (weekBeginning(of: CivilTime.days(year: year + 1, month: 1, day: 4)) - firstWeek) / 7
        let number = (begins - firstWeek) / 7 + 1
        return weekNumbers.contains { $0 == number || $0 == number - weeks - 1 }
    }

    private func weekBeginning(of day: Int) -> Int {
        day - (CivilTime.weekday(days: day) - weekStart + 7) % 7
    }
}
