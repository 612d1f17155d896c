import Foundation

/// Occurrences that fell due while nobody could deliver them — chimed was stopped, the clock jumped forward, the
/// machine slept — collapsed into one: one `missed` event, or, with `Persistent=yes`, one late delivery that stands
/// for all of them. A skipped occurrence is not made up later one by one.
public struct MissedOccurrences: Sendable, Equatable {
    /// The first and the last of them.
    public var first: Date
    public var last: Date
    /// How many, at most `limit` of `collapsing`.
    public var count: Int
    /// Whether one late delivery stands for them (`Persistent=yes`); otherwise they are only reported.
    public var deliversLate: Bool

    public init(first: Date, last: Date, count: Int, deliversLate: Bool) {
        self.first = first
        self.last = last
        self.count = count
        self.deliversLate = deliversLate
    }

    /// Whether an occurrence due at `fireTime` and handled at `now` (both in microseconds since the epoch) counts
    /// as missed rather than late: it is overdue by more than `threshold`.
    public static func isMissed(fireTime: Int64, now: Int64, threshold: Duration) -> Bool {
        fireTime < now - threshold.wholeMicroseconds
    }

    /// The occurrences of `trigger` from `first` (the first one missed) through `now`, counting at most `limit` of
    /// them: a trigger that fires every millisecond is not walked through a year of suspend.
    public static func collapsing(
        _ trigger: Trigger, from first: Date, through now: Date, history: DeliveryHistory, systemZone: ZoneRules,
        limit: Int = 100_000
    ) -> MissedOccurrences {
        var count = 1
        var last = first
        while count < limit, let next = trigger.nextOccurrence(after: last, history: history, systemZone: systemZone),
            next <= now
        {
            count += 1
            last = next
        }
        return MissedOccurrences(first: first, last: last, count: count, deliversLate: trigger.isPersistent)
    }
}
