/// What RFC 5545 calls a recurrence set, as a trigger has it: the instances of its `RRule=` rules and its `RDate=`
/// times, less those of its `ExDate=` (which removes occurrences of every source of the trigger, so that
/// `ExDate=20261225` takes Christmas out of an `OnCalendar=` too); and `Offset=`, which moves the trigger's
/// occurrences as an iCalendar alarm is set relative to its event.
///
/// Few notifications have any of these, so a trigger holds them by reference; they do not change once read.
public final class RecurrenceSet: Sendable, Equatable {
    public let rules: [RecurrenceRule]
    public let dates: [RecurrenceTime]
    public let exclusions: [RecurrenceTime]
    /// DTSTART: `From=` as its wall clock reads (seconds), kept as written even where the clock skips that time,
    /// which the instant of `From=` cannot tell; `nil` without `From=`.
    public let start: Int64?
    /// `Offset=`: how far each occurrence of the trigger moves, as an alarm is set relative to its event.
    public let offset: TriggerOffset?
    /// Where the last search of each rule stopped.
    let cursors: [RecurrenceCursor]

    public init(
        rules: [RecurrenceRule] = [], dates: [RecurrenceTime] = [], exclusions: [RecurrenceTime] = [],
        start: Int64? = nil, offset: TriggerOffset? = nil
    ) {
        self.rules = rules
        self.start = start
        self.offset = offset
        cursors = rules.map { _ in RecurrenceCursor() }
        self.dates = dates
        self.exclusions = exclusions
    }

    public static func == (a: RecurrenceSet, b: RecurrenceSet) -> Bool {
        a === b
            || (a.rules == b.rules && a.dates == b.dates && a.exclusions == b.exclusions && a.start == b.start
                && a.offset == b.offset)
    }

    /// Whether it has anything to fire (`ExDate=` alone only takes away).
    var hasSources: Bool { !rules.isEmpty || !dates.isEmpty }

    /// The first `RDate=` instant at or after `start` (µs), in `zone`.
    func firstDate(atOrAfter start: Int64, zone: ZoneRules) -> Int64? {
        var best: Int64?
        for date in dates {
            let instant = date.instant(in: zone)
            if instant >= start && instant < (best ?? .max) { best = instant }
        }
        return best
    }

    /// When `instant` is excluded by `ExDate=`: the first instant after all that the exclusions covering it take
    /// away (the next microsecond, or the next day for an excluded date); `nil` when it is not excluded.
    func exclusionEnd(covering instant: Int64, zone: ZoneRules) -> Int64? {
        var end: Int64?
        for exclusion in exclusions where exclusion.excludes(instant, in: zone) {
            var next = instant + 1
            if case .date(let day) = exclusion { next = max(next, RecurrenceTime.date(day + 1).instant(in: zone)) }
            end = max(end ?? next, next)
        }
        return end
    }
}
