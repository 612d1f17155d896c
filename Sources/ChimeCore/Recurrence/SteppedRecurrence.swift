/// A rule that chime expands itself rather than libical, where libical is wrong and RFC 5545 clear: one that steps
/// in seconds, minutes or hours (`SubdailyRecurrence`), or a yearly one with `BYWEEKNO` (`WeekNumberRecurrence`).
/// Either is a sequence of steps from DTSTART, each with its set of wall times.
enum SteppedRecurrence: Sendable, Equatable {
    case subdaily(SubdailyRecurrence)
    case weekNumbered(WeekNumberRecurrence)

    /// `nil` for a rule that libical expands.
    init?(_ parts: [String: String], frequency: RecurrenceRule.Frequency) {
        if let rule = SubdailyRecurrence(parts, frequency: frequency) {
            self = .subdaily(rule)
        } else if let rule = WeekNumberRecurrence(parts, frequency: frequency) {
            self = .weekNumbered(rule)
        } else {
            return nil
        }
    }

    /// The wall times of step `k` (seconds of the wall clock), ascending.
    func set(ofStep k: Int64, start: Int64) -> [Int64] {
        switch self {
        case .subdaily(let rule): rule.set(ofStep: k, start: start)
        case .weekNumbered(let rule): rule.set(ofStep: k, start: start)
        }
    }

    /// The first step at or after `k` whose set may hold anything.
    func nextCandidate(from k: Int64, start: Int64) -> Int64 {
        switch self {
        case .subdaily(let rule): rule.nextCandidate(from: k, start: start)
        case .weekNumbered: k
        }
    }

    /// How many steps in a row may be empty before the rule is taken to have nothing more: the weekdays and dates
    /// of the Gregorian calendar repeat every 400 years, so a yearly rule empty for 400 steps is empty for ever.
    var emptyStepLimit: Int {
        switch self {
        case .subdaily: RecurrenceRule.searchLimit
        case .weekNumbered: 400
        }
    }

    /// A step whose set, and every later one's, holds nothing before `wall` (step 0 when `wall` is before DTSTART):
    /// where a search for what comes after `wall` may begin.
    func firstStep(notBefore wall: Int64, start: Int64) -> Int64 {
        switch self {
        case .subdaily(let rule):
            wall > start ? (wall - start) / (rule.interval * rule.unit) : 0
        case .weekNumbered(let rule): rule.firstStep(notBefore: wall, start: start)
        }
    }
}
