import Foundation

/// When a notification fires: the `[Trigger]` section.
///
/// The occurrences are the union of the `At=` instants, the elapses of the `OnCalendar=` events and the
/// `From + k·Every` instants, limited to the window from `From=` (or the first time the notification was seen)
/// to `Until=` (inclusive), of which `Count=` keeps the first N.
public struct Trigger: Sendable, Equatable {
    /// `At=`: one-shot instants, kept in ascending order (the next one is found by halving).
    public var instants: [Date] = [] {
        didSet {
            if zip(instants, instants.dropFirst()).contains(where: { $0 > $1 }) { instants.sort() }
            resetCountLimit()
        }
    }
    /// `OnCalendar=`: calendar events, read in `timeZone` unless they name a zone.
    public var calendars: [CalendarSpec] = [] {
        didSet { resetCountLimit() }
    }
    /// `TimeZone=`: the zone of wall-clock times without a zone of their own; `nil` means the system zone.
    public var timeZone: ZoneRules?

    /// The keys most triggers leave unset, kept out of line: a schedule holds up to a million triggers, nearly all
    /// of them an `OnCalendar=` or an `At=` alone, and inline these would be some seventy bytes of each. Each unset
    /// value is told by a value the key cannot have rather than by an optional's tag (which would take eight bytes
    /// more for each): a generator's reminders often have `Count=`, and so a box each.
    private struct Rare: Sendable {
        /// `Every=` in microseconds; 0 for none (it is never zero).
        var intervalMicroseconds: UInt64 = 0
        /// `From=` and `Until=` as `Date`'s seconds; NaN for none.
        var fromSeconds = Double.nan
        var untilSeconds = Double.nan
        /// `Count=`; 0 for none (it is positive).
        var count = 0
        var isPersistent = false
        var recurrence: RecurrenceSet?
        var countLimit: CountLimit?
    }

    /// `Rare` behind a reference, copied on write; `nil` while every one is unset.
    private final class RareBox: @unchecked Sendable {
        // Mutated only while uniquely referenced (see `rare`), so sharing it between threads is safe.
        var value: Rare

        init(_ value: Rare) {
            self.value = value
        }
    }

    private var rareBox: RareBox?

    private var rare: Rare {
        get { rareBox?.value ?? Rare() }
        set {
            if isKnownUniquelyReferenced(&rareBox) {
                rareBox!.value = newValue
            } else {
                rareBox = RareBox(newValue)
            }
        }
    }

    // The getters read one field through the box, without copying the rest: the scheduler asks for them at
    // every occurrence.

    /// `Every=`: the repeat interval, in microseconds.
    public var interval: Timespan? {
        get {
            guard let microseconds = rareBox?.value.intervalMicroseconds, microseconds != 0 else { return nil }
            return Timespan(microseconds: microseconds)
        }
        set {
            rare.intervalMicroseconds = newValue?.microseconds ?? 0
            resetCountLimit()
        }
    }
    /// `From=`: the anchor of `Every=` and the start of the window.
    public var from: Date? {
        get { rareBox.flatMap { Self.date($0.value.fromSeconds) } }
        set { rare.fromSeconds = newValue?.timeIntervalSinceReferenceDate ?? .nan }
    }
    /// `Count=`: how many occurrences there are at most.
    public var count: Int? {
        get {
            guard let count = rareBox?.value.count, count != 0 else { return nil }
            return count
        }
        set {
            rare.count = newValue ?? 0
            resetCountLimit()
        }
    }
    /// `Until=`: no occurrence after this instant.
    public var until: Date? {
        get { rareBox.flatMap { Self.date($0.value.untilSeconds) } }
        set { rare.untilSeconds = newValue?.timeIntervalSinceReferenceDate ?? .nan }
    }

    private static func date(_ seconds: Double) -> Date? {
        seconds.isNaN ? nil : Date(timeIntervalSinceReferenceDate: seconds)
    }
    /// `Persistent=`: deliver once, late, what was missed while the daemon was not running.
    public var isPersistent: Bool {
        get { rareBox?.value.isPersistent ?? false }
        set { rare.isPersistent = newValue }
    }
    /// `RRule=`, `RDate=`, `ExDate=`: RFC 5545's recurrence set, started at `From=` (or the first sighting) on the
    /// wall clock of `timeZone`.
    public var recurrence: RecurrenceSet? {
        get { rareBox?.value.recurrence }
        set {
            rare.recurrence = newValue
            resetCountLimit()
        }
    }
    /// The last occurrence `Count=` allows, once found: only for a trigger whose occurrences merge several sources
    /// (where finding it means walking the sequence from its start); shared by copies, made anew on a change.
    var countLimit: CountLimit? {
        get { rareBox?.value.countLimit }
        set { rare.countLimit = newValue }
    }

    public init() {}

    private mutating func resetCountLimit() {
        // Without Count=, there is nothing to reset, and no box to make for it.
        guard count != nil || countLimit != nil else { return }
        countLimit = count != nil && !(calendars.isEmpty && instants.isEmpty && recurrence == nil) ? CountLimit() : nil
    }

    public static func == (a: Trigger, b: Trigger) -> Bool {
        a.instants == b.instants && a.calendars == b.calendars && a.interval == b.interval && a.from == b.from
            && a.count == b.count && a.until == b.until && a.timeZone?.name == b.timeZone?.name
            && a.isPersistent == b.isPersistent && a.recurrence == b.recurrence
    }

    /// Whether the triggers at `a` and `b` hold the very same storage, told from their bytes without touching it:
    /// they are equal then. `==` copies both first, retaining each of their parts: where an earlier load or another
    /// core made them, a cache miss each, for every notification of a rebuild.
    static func areIdentical(_ a: UnsafePointer<Trigger>, _ b: UnsafePointer<Trigger>) -> Bool {
        memcmp(a, b, MemoryLayout<Trigger>.size) == 0
    }

    /// Whether the trigger fires at most once in total.
    public var isOneShot: Bool {
        calendars.isEmpty && interval == nil && instants.count <= 1 && recurrence?.hasSources != true
    }
}
