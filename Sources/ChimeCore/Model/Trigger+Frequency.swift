/// How often a trigger may fire at most, told from its rules without computing occurrences.
extension Trigger {
    /// The first of the trigger's values that can fire it twice less than `floor` apart: its key and its place
    /// among the key's values; `nil` when none can.
    ///
    /// Exact for the floors chime sets, which are at most a minute: `Every=` below the floor; `OnCalendar=` events
    /// at fractions of a second (below a floor of a second or less), or at more than one second of the minute among
    /// all of them (below a longer floor: two seconds of one minute are less than a minute apart); `RRule=` that is
    /// `SECONDLY` at an `INTERVAL` below the floor, or lists more than one `BYSECOND` below a longer floor. `At=`
    /// and `RDate=` are lists, bounded by `InputLimits.maximumRepeats`.
    func valueFiringMoreOftenThan(_ floor: Duration) -> (key: NotificationKey, index: Int)? {
        let floorMicroseconds = floor.wholeMicroseconds
        guard floorMicroseconds > 0 else { return nil }
        if let interval, interval.microseconds < UInt64(floorMicroseconds) { return (.every, 0) }
        let unit = CalendarSpec.microsecondsPerSecond
        var seconds = SecondsOfTheMinute()
        for (index, calendar) in calendars.enumerated()
        where !calendar.secondsAreApart(floor: floorMicroseconds, adding: &seconds)
            || (seconds.areSeveral && floorMicroseconds > Int64(unit))
        {
            return (.onCalendar, index)
        }
        if let index = recurrence?.rules.firstIndex(where: { $0.firesMoreOften(thanMicroseconds: floorMicroseconds) }) {
            return (.rrule, index)
        }
        return nil
    }
}

/// Whether the events seen so far elapse at one second of the minute or at several: asked once per notification
/// of a million loaded, so kept in two fields rather than a set.
private struct SecondsOfTheMinute {
    private var first: Int?
    private(set) var areSeveral = false

    mutating func insert(_ value: Int) {
        guard let first else {
            first = value
            return
        }
        if value != first { areSeveral = true }
    }
}

extension CalendarSpec {
    /// Adds the seconds of the minute (µs) the event elapses at to `seconds`, the first two of each component (they
    /// tell as much as all of them); `false` when one is a fraction of a second, or (for a floor above a second) `*`.
    fileprivate func secondsAreApart(floor: Int64, adding seconds: inout SecondsOfTheMinute) -> Bool {
        let unit = Self.microsecondsPerSecond
        let minute = 60 * unit
        guard let microsecond else { return floor <= Int64(unit) }
        for component in microsecond {
            let end = component.stop < 0 ? minute - 1 : min(component.stop, minute - 1)
            var value = component.start
            for _ in 0..<2 where value <= end {
                if value % unit != 0 { return false }
                seconds.insert(value)
                guard component.repeat > 0 else { break }
                value += component.repeat
            }
        }
        return true
    }
}

extension RecurrenceRule {
    /// Whether the rule can give two instants less than `floor` µs apart (for floors of at most a minute).
    func firesMoreOften(thanMicroseconds floor: Int64) -> Bool {
        let parts = Dictionary(
            expanded.split(separator: ";").compactMap { part -> (Substring, Substring)? in
                guard let equals = part.firstIndex(of: "=") else { return nil }
                return (part[..<equals], part[part.index(after: equals)...])
            }, uniquingKeysWith: { _, last in last })
        let second = Int64(CalendarSpec.microsecondsPerSecond)
        if frequency == .secondly {
            let interval = parts["INTERVAL"].flatMap { Int64($0) } ?? 1
            if interval * second < floor { return true }
        }
        let bySecond = parts["BYSECOND"]?.split(separator: ",").count ?? 0
        return floor > second && bySecond > 1
    }
}
