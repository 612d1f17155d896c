import Foundation

/// The `OnCalendar=` events already parsed during one load, so that notifications with the same events share one
/// copy: a generator printing a million reminders at a hundred thousand distinct times of day parses each time once
/// and keeps it once (a list of one event is some 140 bytes). Thread-safe (a load validates on all cores).
/// `capacity` bounds its table (about 100 bytes a list beyond the lists) while loading a schedule whose events are
/// all different.
///
/// A load may carry the cache of the load before (read in zones that read alike, `CalendarReuse`): what it does
/// not know yet it takes from there before parsing. A rebuild then holds the very lists the installed schedule
/// holds, so that a notification read again shares them, and its trigger is told unchanged from its bytes
/// (`Trigger.areIdentical`) instead of being compared. The previous load's cache is let go of when the load ends
/// (`letGoOfPrevious()`), and with it the events this load did not ask for, which its schedule no longer holds;
/// unless it asked for none: a load that took every notification as it was (the same output, or its lines in
/// another order) keeps the events of the load before whole, for a rebuild after it to read its lines again.
public final class CalendarCache: Sendable {
    /// Locks of their own for parts of the table, chosen by a key's hash: the threads of a load ask about every
    /// notification, and behind one lock they mostly waited for each other.
    private let shards: [Locked<State>]
    private let previous: Locked<CalendarCache?>
    private static let shardCount = 16

    public init(capacity: Int = 262_144, previous: CalendarCache? = nil) {
        shards = (0..<Self.shardCount).map { _ in Locked(State(capacity: max(1, capacity / Self.shardCount))) }
        self.previous = Locked(previous)
    }

    /// Ends the use of the previous load's cache, once this load is over.
    public func letGoOfPrevious() {
        guard let previous = previous.withLock({ $0.take() }) else { return }
        guard !shards.contains(where: { $0.withLock(\.wasAsked) }) else { return }
        for (shard, carried) in zip(shards, previous.shards) {
            let state = carried.withLock { $0 }
            shard.withLock { $0 = state }
        }
    }

    /// A notification's events: their texts, and the zone they are read in when that changes what they parse to.
    ///
    /// Most texts parse alike in every zone (their wall-clock fields are read in the zone only when an elapse is
    /// computed), so notifications at the same time of day in different `TimeZone=`s share one parse and one copy.
    /// The zone is part of the key when a text may end in one of its abbreviations (`09:00 CET`, `09:00 +03`) or
    /// holds an `@` timestamp, which is broken down counting the zone's leap seconds.
    struct Key: Hashable, Sendable {
        /// The zone's name, or empty when the texts read alike in every zone.
        let zone: String
        /// The first text, and the others: nearly every notification has one event, and no array of its own.
        let first: String
        let others: [String]
        /// The texts hashed once, for the shard and the table both: every notification of a load asks.
        let hash: Int

        init(_ texts: some Collection<String>, zone: ZoneRules) {
            self.zone = texts.contains(where: Self.mayReadTheZone) ? zone.name : ""
            first = texts.first ?? ""
            others = texts.count > 1 ? Array(texts.dropFirst()) : []
            var hasher = Hasher()
            hasher.combine(self.zone)
            hasher.combine(first)
            hasher.combine(others)
            hash = hasher.finalize()
        }

        /// Whether `text` may parse otherwise in another zone: it holds an `@`, or its last word, after a space,
        /// could be a zone abbreviation (letters, digits, `+` and `-` only).
        static func mayReadTheZone(_ text: String) -> Bool {
            var lastWordCouldBeAbbreviation = false
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "@"):
                    return true
                case UInt8(ascii: " "):
                    lastWordCouldBeAbbreviation = true
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "-"):
                    break
                default:
                    lastWordCouldBeAbbreviation = false
                }
            }
            return lastWordCouldBeAbbreviation
        }

        static func == (a: Key, b: Key) -> Bool {
            a.hash == b.hash && a.first == b.first && a.zone == b.zone && a.others == b.others
        }

        func hash(into hasher: inout Hasher) {
            hasher.combine(hash)
        }
    }

    private func shard(for key: Key) -> Locked<State> {
        shards[Int(UInt(bitPattern: key.hash) % UInt(Self.shardCount))]
    }

    func calendars(for key: Key) -> [CalendarSpec]? {
        let shard = shard(for: key)
        let known = shard.withLock { state in
            state.wasAsked = true
            return state.calendars[key]
        }
        if let known { return known }
        guard let carried = previous.withLock({ $0 })?.shard(for: key).withLock({ $0.calendars[key] }) else {
            return nil
        }
        return shard.withLock { $0.keepCarried(carried, for: key) }
    }

    /// Keeps `list` for notifications with the same events, and returns it with its component lists shared with
    /// those of events kept before.
    func keep(_ list: [CalendarSpec], for key: Key) -> [CalendarSpec] {
        shard(for: key).withLock { $0.keep(list, for: key) }
    }

    private struct State {
        let capacity: Int
        var calendars: [Key: [CalendarSpec]] = [:]
        /// Whether a notification's events were looked up here during the load.
        var wasAsked = false
        /// One copy of each one-element component list seen (`[5]` for the hour of every event at 05:MM): events
        /// that differ only in the minute still share their hour, day, month… lists.
        var components: [CalendarSpec.Component: [CalendarSpec.Component]] = [:]

        init(capacity: Int) {
            self.capacity = capacity
        }

        mutating func keepCarried(_ list: [CalendarSpec], for key: Key) -> [CalendarSpec] {
            if calendars.count < capacity { calendars[key] = list }
            return list
        }

        mutating func keep(_ list: [CalendarSpec], for key: Key) -> [CalendarSpec] {
            let shared = list.map { sharingComponents($0) }
            if calendars.count < capacity { calendars[key] = shared }
            return shared
        }

        private mutating func sharingComponents(_ spec: CalendarSpec) -> CalendarSpec {
            var spec = spec
            spec.year = spec.year.map { share($0) }
            spec.month = spec.month.map { share($0) }
            spec.day = spec.day.map { share($0) }
            spec.hour = spec.hour.map { share($0) }
            spec.minute = spec.minute.map { share($0) }
            spec.microsecond = spec.microsecond.map { share($0) }
            return spec
        }

        private mutating func share(_ list: [CalendarSpec.Component]) -> [CalendarSpec.Component] {
            guard list.count == 1 else { return list }
            if let known = components[list[0]] { return known }
            if components.count < capacity { components[list[0]] = list }
            return list
        }
    }
}
