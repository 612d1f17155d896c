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
    let days: DayLimits
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
        let list = { (name: String) in DayLimits.list(parts[name]) }
        interval = Int64(parts["INTERVAL"].flatMap { Int($0) } ?? 1)
        days = DayLimits(parts)
        hours = list("BYHOUR").map(Set.init)
        minutes = list("BYMINUTE")?.sorted()
        seconds = list("BYSECOND")?.sorted()
        positions = list("BYSETPOS")
    }

    /// The set of step `k` (wall seconds), ascending, limits and BYSETPOS applied.
    func set(ofStep k: Int64, start: Int64) -> [Int64] {
        let base = start + k * interval * unit
        let (day, second) = CivilTime.floorDivide64(base, 86_400)
        guard days.allows(day: Int(day)) else { return [] }
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
        return DayLimits.picking(positions, from: result)
    }

    /// The first step at or after `k` whose day and hour can pass the limits: the steps on a day (or in an hour)
    /// left out are jumped over.
    func nextCandidate(from k: Int64, start: Int64) -> Int64 {
        let step = interval * unit
        let base = start + k * step
        let (day, second) = CivilTime.floorDivide64(base, 86_400)
        if !days.allows(day: Int(day)) {
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
