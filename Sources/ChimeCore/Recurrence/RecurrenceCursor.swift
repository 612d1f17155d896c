/// Where the last search of a rule stopped, so that the next one, asked from there or later (as the scheduler
/// asks, after each fire), goes on from it instead of beginning a walk again; and, for a rule with `COUNT`, its last
/// instance, found once.
///
/// Shared by the copies of a trigger. A search from earlier than where the cursor stands, or from much later, begins
/// a walk anew near the instant asked about; one for another start or zone begins afresh.
public final class RecurrenceCursor: Sendable {
    /// A walk under way, for one start and zone.
    struct Position {
        var start: Int64
        /// Held, not just compared by name: an updated tzdata gives other rules under the same name.
        var zone: ZoneRules
        /// For a rule with `COUNT`: the wall time of its last instance, once found (`.some(nil)`: it has none).
        var countEnd: Int64??
        /// libical's iterator, for a rule libical expands.
        var walk: RecurrenceWalk?
        /// For one chime expands (`SteppedRecurrence`): the step reached, and how many of its set were taken.
        var isStepping = false
        var step: Int64 = 0
        var takenOfStep = 0
        /// The instant of the last instance taken (µs); a search from before it begins a walk anew.
        var reached = Int64.min
        /// The walk has no instance left.
        var isFinished = false

        init(start: Int64, zone: ZoneRules, countEnd: Int64?? = nil) {
            self.start = start
            self.zone = zone
            self.countEnd = countEnd
        }
    }

    private let position = Locked<Position?>(nil)
    /// How far past where the walk stopped a search may be asked from and still go on from there (µs).
    static let goOnWithin: Int64 = 2 * 86_400 * 1_000_000

    public init() {}

    /// Runs `body` on the position to go on from, or on a new one, and keeps where it stopped.
    func search(start: Int64, zone: ZoneRules, after: Int64, _ body: (inout Position) -> Int64?) -> Int64? {
        position.withLock { kept in
            var current: Position
            if let kept, kept.start == start, kept.zone.isSame(as: zone) {
                current = kept
                // Going on costs what lies between; a new walk, what lies in the two days a search begins before
                // the instant asked about.
                if after < current.reached || after - current.reached > Self.goOnWithin {
                    current = Position(start: start, zone: zone, countEnd: kept.countEnd)
                } else if current.isFinished {
                    return nil
                }
            } else {
                current = Position(start: start, zone: zone)
            }
            defer { kept = current }
            return body(&current)
        }
    }
}
