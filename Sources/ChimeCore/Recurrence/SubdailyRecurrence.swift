/// The instances of a rule that steps in seconds, minutes or hours, computed by chime: libical 3.0.16 counts the
/// INTERVAL of such a rule from each hour BYHOUR lets through rather than from DTSTART.
///
/// RFC 5545 §3.3.10: the rule steps `INTERVAL` units of its frequency from DTSTART on the wall clock; BYMINUTE and
/// BYSECOND of an HOURLY rule (BYSECOND of a MINUTELY one) expand each step into a set, every other BYxxx part
/// limits, BYSETPOS picks from each step's set, and COUNT counts what is left from DTSTART on. Steps on days (and
/// hours) the limits leave out are jumped over, not walked.
struct SubdailyRecurrence: Sendable, Equatable {
    let unit: Int64
    let interval: Int64
    let months: Set<Int>?
    let monthDays: [Int]?
    let yearDays: [Int]?
    let weekdays: Set<Int>?
    let hours: Set<Int>?
    let minutes: [Int]?
    let seconds: [Int]?
    let positions: [Int]?
    let frequency: RecurrenceRule.Frequency

    /// `nil` for a rule that does not step in seconds, minutes or hours.
    init?(_ parts: [String: String], frequency: RecurrenceRule.Frequency) {
        switch frequency {
        case .secondly: unit = 1
        case .minutely: unit = 60
        case .hourly: unit = 3_600
        default: return nil
        }
        self.frequency = frequency
        func list(_ name: String) -> [Int]? {
            parts[name].map {
                $0.split(separator: ",").compactMap { Int($0.hasPrefix("+") ? String($0.dropFirst()) : String($0)) }
            }
        }
        interval = Int64(parts["INTERVAL"].flatMap { Int($0) } ?? 1)
        months = list("BYMONTH").map(Set.init)
        monthDays = list("BYMONTHDAY")
        yearDays = list("BYYEARDAY")
        weekdays = parts["BYDAY"].map { text in
            Set(text.split(separator: ",").compactMap { RecurrenceRule.weekdays.firstIndex(of: String($0.suffix(2))) })
        }
        hours = list("BYHOUR").map(Set.init)
        minutes = list("BYMINUTE")?.sorted()
        seconds = list("BYSECOND")?.sorted()
        positions = list("BYSETPOS")
    }

    /// Whether the day (days since 1970-01-01) passes the date limits.
    func allows(day: Int) -> Bool {
        let date = CivilTime.date(days: day)
        if let months, !months.contains(date.month) { return false }
        if let weekdays, !weekdays.contains(CivilTime.weekday(days: day)) { return false }
        if let monthDays {
            let length = CivilTime.daysInMonth(year: date.year, month: date.month)
            guard monthDays.contains(where: { $0 > 0 ? $0 == date.day : length + $0 + 1 == date.day }) else {
                return false
            }
        }
        if let yearDays {
            let first = CivilTime.days(year: date.year, month: 1, day: 1)
            let length = CivilTime.isLeapYear(date.year) ? 366 : 365
            let ordinal = day - first + 1
            guard yearDays.contains(where: { $0 > 0 ? $0 == ordinal : length + $0 + 1 == ordinal }) else {
                return false
            }
        }
        return true
    }

    /// The set of step `k` (wall seconds), ascending, limits and BYSETPOS applied.
    func set(ofStep k: Int64, start: Int64) -> [Int64] {
        let base = start + k * interval * unit
        let (day, second) = CivilTime.floorDivide64(base, 86_400)
        guard allows(day: Int(day)) else { return [] }
        let hour = Int(second / 3_600)
        if let hours, !hours.contains(hour) { return [] }
        var minuteChoices = [Int(second % 3_600 / 60)]
        var secondChoices = [Int(second % 60)]
        if let minutes {
            if frequency == .hourly {
                minuteChoices = minutes
            } else if !minutes.contains(minuteChoices[0]) {
                return []
            }
        }
        if let seconds {
            if frequency == .secondly {
                if !seconds.contains(secondChoices[0]) { return [] }
            } else {
                secondChoices = seconds
            }
        }
        let hourStart = day * 86_400 + Int64(hour) * 3_600
        var result: [Int64] = []
        for minute in minuteChoices {
            for second in secondChoices {
                result.append(hourStart + Int64(minute * 60 + second))
            }
        }
        guard let positions else { return result }
        return positions.compactMap { position in
            let index = position > 0 ? position - 1 : result.count + position
            return result.indices.contains(index) ? result[index] : nil
        }.sorted()
    }

    /// The first step at or after `k` whose day and hour can pass the limits: the steps on a day (or in an hour)
    /// left out are jumped over.
    func nextCandidate(from k: Int64, start: Int64) -> Int64 {
        let step = interval * unit
        let base = start + k * step
        let (day, second) = CivilTime.floorDivide64(base, 86_400)
        if !allows(day: Int(day)) {
            return max(k + 1, ceilingDivide((day + 1) * 86_400 - start, step))
        }
        if let hours, !hours.contains(Int(second / 3_600)) {
            let hourEnd = day * 86_400 + (second / 3_600 + 1) * 3_600
            return max(k + 1, ceilingDivide(hourEnd - start, step))
        }
        return k
    }

    private func ceilingDivide(_ a: Int64, _ b: Int64) -> Int64 {
        a <= 0 ? 0 : (a + b - 1) / b
    }
}
