/// The parts of a rule that limit which days it may fall on (`BYMONTH`, `BYMONTHDAY`, `BYYEARDAY`, `BYDAY` without a
/// number), for the rules chime expands itself.
struct DayLimits: Sendable, Equatable {
    let months: Set<Int>?
    let monthDays: [Int]?
    let yearDays: [Int]?
    /// 0 is Sunday, as `CivilTime.weekday(days:)` counts.
    let weekdays: Set<Int>?

    init(_ parts: [String: String]) {
        months = Self.list(parts["BYMONTH"]).map(Set.init)
        monthDays = Self.list(parts["BYMONTHDAY"])
        yearDays = Self.list(parts["BYYEARDAY"])
        weekdays = parts["BYDAY"].map { text in
            Set(text.split(separator: ",").compactMap { RecurrenceRule.weekdays.firstIndex(of: String($0.suffix(2))) })
        }
    }

    /// A checked list of whole numbers (`1,-1,+3`).
    static func list(_ text: String?) -> [Int]? {
        text.map {
            $0.split(separator: ",").compactMap { Int($0.hasPrefix("+") ? String($0.dropFirst()) : String($0)) }
        }
    }

    /// Whether the day (days since 1970-01-01) passes the limits.
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

    /// `BYSETPOS`: the members of `set` (ascending) at those positions, counted from 1, or back from the end when
    /// negative; all of it without positions.
    static func picking(_ positions: [Int]?, from set: [Int64]) -> [Int64] {
        guard let positions else { return set }
        return Set(
            positions.compactMap { position in
                let index = position > 0 ? position - 1 : set.count + position
                return set.indices.contains(index) ? set[index] : nil
            }
        ).sorted()
    }
}
