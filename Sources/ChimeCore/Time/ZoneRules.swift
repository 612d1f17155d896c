import Foundation

/// The rules of one time zone: which UTC offset, daylight-saving flag and abbreviation apply at each instant.
///
/// Read from TZif files (tzfile(5)) as glibc reads them — the transition table, then the POSIX TZ rule of the
/// file's footer for later years — or built from a POSIX `TZ` string. Conversions work on whole seconds since the
/// epoch and never consult the process's time zone, so they are pure and thread-safe.
public struct ZoneRules: Sendable, CustomStringConvertible {
    /// The tables, shared by every copy: a zone is copied into each trigger and calendar event that uses it, and a
    /// reference is one word and one retain where the tables inline were some 150 bytes and ten retains.
    private final class Storage: Sendable {
        let name: String
        let transitions: [Int64]
        let transitionTypes: [Int]
        let types: [LocalTimeType]
        let initialType: Int
        let standardAbbreviation: String
        let daylightAbbreviation: String
        let leapSeconds: [LeapSecond]
        let abbreviationBytes: [UInt8]
        let abbreviationEnds: [Int]
        let lookupStarts: [Int32]
        let lookupBase: Int64

        init(
            name: String, transitions: [Int64], transitionTypes: [Int], types: [LocalTimeType], initialType: Int,
            standardAbbreviation: String, daylightAbbreviation: String, leapSeconds: [LeapSecond],
            abbreviationBytes: [UInt8], abbreviationEnds: [Int], lookupStarts: [Int32], lookupBase: Int64
        ) {
            self.name = name
            self.transitions = transitions
            self.transitionTypes = transitionTypes
            self.types = types
            self.initialType = initialType
            self.standardAbbreviation = standardAbbreviation
            self.daylightAbbreviation = daylightAbbreviation
            self.leapSeconds = leapSeconds
            self.abbreviationBytes = abbreviationBytes
            self.abbreviationEnds = abbreviationEnds
            self.lookupStarts = lookupStarts
            self.lookupBase = lookupBase
        }
    }

    private let storage: Storage

    private init(storage: Storage) {
        self.storage = storage
    }

    /// The same rules behind an object of its own (its tables still shared): for a thread that reads the zone a
    /// million times while another does too, so that the two do not both write the one object's reference count at
    /// every read. Not `isSame(as:)` this one.
    public func unshared() -> ZoneRules {
        let shared = storage
        return ZoneRules(
            storage: Storage(
                name: shared.name, transitions: shared.transitions, transitionTypes: shared.transitionTypes,
                types: shared.types, initialType: shared.initialType,
                standardAbbreviation: shared.standardAbbreviation, daylightAbbreviation: shared.daylightAbbreviation,
                leapSeconds: shared.leapSeconds, abbreviationBytes: shared.abbreviationBytes,
                abbreviationEnds: shared.abbreviationEnds, lookupStarts: shared.lookupStarts,
                lookupBase: shared.lookupBase))
    }

    struct LocalTimeType: Hashable, Sendable {
        var utcOffset: Int
        var isDST: Bool
        var abbreviation: String
    }

    /// Whether `other` is this very zone as loaded (a copy of it), not merely one of the same name.
    func isSame(as other: ZoneRules) -> Bool {
        storage === other.storage
    }

    /// Whether `other` has the same name and gives every instant the same offset, flag and abbreviation: the same
    /// zone, possibly read again from an unchanged file.
    public func hasSameRules(as other: ZoneRules) -> Bool {
        let a = storage
        let b = other.storage
        return a === b
            || (a.name == b.name && a.transitions == b.transitions && a.transitionTypes == b.transitionTypes
                && a.types == b.types && a.initialType == b.initialType
                && a.standardAbbreviation == b.standardAbbreviation
                && a.daylightAbbreviation == b.daylightAbbreviation && a.leapSeconds == b.leapSeconds)
    }

    /// The name this zone was loaded by (`Europe/Berlin`, `UTC`, or a POSIX TZ string).
    public var name: String { storage.name }
    /// Instants (seconds since the epoch) at which the local time type changes, ascending.
    var transitions: [Int64] { storage.transitions }
    /// For each transition, the index into `types` that applies from it on.
    var transitionTypes: [Int] { storage.transitionTypes }
    var types: [LocalTimeType] { storage.types }
    /// The type in force before the first transition.
    var initialType: Int { storage.initialType }
    /// The standard-time abbreviation (`tzname[0]`), e.g. `CET`.
    public var standardAbbreviation: String { storage.standardAbbreviation }
    /// The daylight-saving abbreviation (`tzname[1]`), e.g. `CEST`; the standard one for zones without DST.
    public var daylightAbbreviation: String { storage.daylightAbbreviation }
    /// Leap seconds (only the `right/` zones have them): from each instant on, wall time lags by the correction.
    /// Instants in such a zone count leap seconds, so `12:00 right/UTC` is 27 seconds after 12:00 UTC.
    var leapSeconds: [LeapSecond] { storage.leapSeconds }
    /// The abbreviations of `types` as UTF-8, one after the other, ready to copy into formatted timestamps; type
    /// `i`'s are `abbreviationBytes[abbreviationEnds[i - 1]..<abbreviationEnds[i]]` (from 0 for the first).
    var abbreviationBytes: [UInt8] { storage.abbreviationBytes }
    var abbreviationEnds: [Int] { storage.abbreviationEnds }
    /// Where lookups start: for each span of `2^lookupShift` seconds from `lookupBase` on, the index of the last
    /// transition at or before the span's start. The calendar search looks up thousands of instants per elapse
    /// listed, and bisecting hundreds of transitions for each would cost more than the search itself.
    private var lookupStarts: [Int32] { storage.lookupStarts }
    private var lookupBase: Int64 { storage.lookupBase }
    private static let lookupShift: Int64 = 23
    /// 8,192 spans of 97 days: 2,100 years.
    private static let lookupSpans = 8_192

    struct LeapSecond: Hashable, Sendable {
        /// The instant the correction takes effect, on the zone's own (leap-second counting) scale.
        var instant: Int64
        /// Total leap seconds inserted so far (negative for removed ones).
        var correction: Int
    }

    /// Coordinated Universal Time.
    public static let utc = ZoneRules(
        name: "UTC", transitions: [], transitionTypes: [],
        types: [LocalTimeType(utcOffset: 0, isDST: false, abbreviation: "UTC")], initialType: 0,
        standardAbbreviation: "UTC", daylightAbbreviation: "UTC")

    /// UTC as glibc's `gmtime(3)` and `timegm(3)` see it while this is the process's zone: with this zone's leap
    /// seconds, if any (under `right/Europe/Berlin`, 2026-01-01 12:00:00 "UTC" is 27 seconds after the UTC noon).
    public var universalTime: ZoneRules {
        guard !leapSeconds.isEmpty else { return .utc }
        let utc = Self.utc
        return ZoneRules(
            name: utc.name, transitions: [], transitionTypes: [], types: utc.types, initialType: 0,
            standardAbbreviation: utc.standardAbbreviation, daylightAbbreviation: utc.daylightAbbreviation,
            leapSeconds: leapSeconds)
    }

    /// Rules are tabulated up to this year; the calendar engine never looks further (systemd's limit is 2199).
    static let lastTabulatedYear = 2200

    init(
        name: String, transitions: [Int64], transitionTypes: [Int], types: [LocalTimeType], initialType: Int,
        standardAbbreviation: String, daylightAbbreviation: String, leapSeconds: [LeapSecond] = []
    ) {
        let abbreviationBytes = types.flatMap { Array($0.abbreviation.utf8) }
        var end = 0
        let abbreviationEnds = types.map {
            end += $0.abbreviation.utf8.count
            return end
        }
        // From 1900 on: some files start with a "big bang" transition billions of years back.
        let lookupBase = max(transitions.first ?? 0, -2_208_988_800)
        var starts: [Int32] = []
        if let last = transitions.last, last >= lookupBase {
            let count = min(Int((last - lookupBase) >> Self.lookupShift) + 1, Self.lookupSpans)
            starts.reserveCapacity(count)
            var index = 0
            for span in 0..<count {
                let start = lookupBase + Int64(span) << Self.lookupShift
                while index + 1 < transitions.count && transitions[index + 1] <= start { index += 1 }
                starts.append(Int32(truncatingIfNeeded: index))
            }
        }
        storage = Storage(
            name: name, transitions: transitions, transitionTypes: transitionTypes, types: types,
            initialType: initialType, standardAbbreviation: standardAbbreviation,
            daylightAbbreviation: daylightAbbreviation, leapSeconds: leapSeconds, abbreviationBytes: abbreviationBytes,
            abbreviationEnds: abbreviationEnds, lookupStarts: starts, lookupBase: lookupBase)
    }

    public var description: String { name }

    /// Whether this zone ever changes its offset.
    public var isFixedOffset: Bool { transitions.isEmpty }

    /// Whether local time is UTC at every instant (as glibc's `timezone == 0 && !daylight`).
    public var isUniversal: Bool { types.allSatisfy { $0.utcOffset == 0 && !$0.isDST } }

    /// The index into `types` in force at `instant`.
    @inline(__always)
    func typeIndex(at instant: Int64) -> Int {
        let index = transitionIndex(atOrBefore: instant)
        return index < 0 ? initialType : transitionTypes[index]
    }

    /// Index of the last transition at or before `instant`, or -1 before the first.
    func transitionIndex(atOrBefore instant: Int64) -> Int {
        guard let first = transitions.first, instant >= first else { return -1 }
        let span = (instant &- lookupBase) >> Self.lookupShift
        if instant >= lookupBase && span < lookupStarts.count {
            var index = Int(lookupStarts[Int(span)])
            while index + 1 < transitions.count && transitions[index + 1] <= instant { index += 1 }
            return index
        }
        var low = 0
        var high = transitions.count - 1
        while low < high {
            let mid = (low + high + 1) >> 1
            if transitions[mid] <= instant { low = mid } else { high = mid - 1 }
        }
        return low
    }

    /// Every instant whose wall-clock reading is `local` (seconds since 1970-01-01 00:00:00 of the wall clock),
    /// ascending: none in a gap, two or more where wall time repeats.
    func instants(atWallTime local: Int64) -> [Int64] {
        // Offsets stay within a day and a half of UTC, so only the types in force in that window can match.
        let window: Int64 = 36 * 3_600
        var offsets: Set<Int> = [types[typeIndex(at: local - window)].utcOffset]
        var index = firstTransition(after: local - window)
        while index < transitions.count && transitions[index] <= local + window {
            offsets.insert(types[transitionTypes[index]].utcOffset)
            index += 1
        }
        var found: [Int64] = []
        for offset in offsets {
            var candidate = local - Int64(offset)
            if !leapSeconds.isEmpty { candidate += Int64(leapCorrection(at: candidate).correction) }
            let reading = localTime(at: candidate)
            if reading.localSeconds == local && reading.second < 60 { found.append(candidate) }
        }
        return found.sorted()
    }

    /// Index of the first transition after `instant` (`transitions.count` if none).
    @inline(__always)
    private func firstTransition(after instant: Int64) -> Int {
        transitionIndex(atOrBefore: instant) + 1
    }

    /// Where `local` falls into a gap (a wall time skipped when the offset grows), the first wall time after it.
    func wallTimeEndingGap(containing local: Int64) -> Int64? {
        let window: Int64 = 36 * 3_600
        var index = firstTransition(after: local - window)
        while index < transitions.count && transitions[index] <= local + window {
            let before = types[index == 0 ? initialType : transitionTypes[index - 1]].utcOffset
            let after = types[transitionTypes[index]].utcOffset
            let start = transitions[index] + Int64(before)
            let end = transitions[index] + Int64(after)
            if start <= local && local < end { return end }
            index += 1
        }
        return nil
    }

    /// The instant (seconds) of the wall time `local` as RFC 5545 §3.3.5 reads a local time: where the wall time
    /// occurs twice, its first occurrence; where it does not occur (a gap), with the UTC offset in force before the
    /// gap (02:30 on a spring-forward night at 02:00 is 03:30 summer time).
    public func instantReadingRFC5545(wallTime local: Int64) -> Int64 {
        if let first = instants(atWallTime: local).first { return first }
        let window: Int64 = 36 * 3_600
        var index = firstTransition(after: local - window)
        while index < transitions.count && transitions[index] <= local + window {
            let before = types[index == 0 ? initialType : transitionTypes[index - 1]].utcOffset
            let after = types[transitionTypes[index]].utcOffset
            if transitions[index] + Int64(before) <= local && local < transitions[index] + Int64(after) {
                return local - Int64(before)
            }
            index += 1
        }
        return local - Int64(utcOffset(at: local))
    }

    /// The UTC offset in seconds (east positive) in force at `instant`.
    @inline(__always)
    public func utcOffset(at instant: Int64) -> Int {
        types[typeIndex(at: instant)].utcOffset
    }

    /// Broken-down local time of `instant` (seconds since the epoch), like `localtime_r(3)`.
    ///
    /// In a zone with leap seconds, an inserted leap second reads as second 60.
    public func localTime(at instant: Int64) -> LocalDateTime {
        let (fields, type) = localFields(at: instant)
        return LocalDateTime(fields: fields, abbreviation: types[type].abbreviation)
    }

    /// `localTime(at:)` without the abbreviation, and the index into `types` in force.
    @inline(__always)
    func localFields(at instant: Int64) -> (fields: LocalDateTime.Fields, type: Int) {
        let type = typeIndex(at: instant)
        var time = LocalDateTime.Fields(year: 1970, month: 1, day: 1)
        if leapSeconds.isEmpty {
            time.setFields(localSeconds: instant + Int64(types[type].utcOffset))
        } else {
            let (correction, extraSeconds) = leapCorrection(at: instant)
            time.setFields(localSeconds: instant + Int64(types[type].utcOffset) - Int64(correction))
            time.second += extraSeconds
        }
        time.isDST = types[type].isDST ? 1 : 0
        time.utcOffset = types[type].utcOffset
        return (time, type)
    }

    /// The leap-second correction in force at `instant`, and how many inserted leap seconds begin exactly there
    /// (they show as second 60 of the minute before, as glibc shows them).
    private func leapCorrection(at instant: Int64) -> (correction: Int, extraSeconds: Int) {
        guard var index = leapSeconds.lastIndex(where: { $0.instant <= instant }) else { return (0, 0) }
        let correction = leapSeconds[index].correction
        let previous = index > 0 ? leapSeconds[index - 1].correction : 0
        guard instant == leapSeconds[index].instant && correction > previous else { return (correction, 0) }
        var extra = 1
        // Consecutive insertions a second apart show as 60, 61, ...
        while index > 0 && leapSeconds[index].instant == leapSeconds[index - 1].instant + 1
            && leapSeconds[index].correction == leapSeconds[index - 1].correction + 1
        {
            extra += 1
            index -= 1
        }
        return (correction, extra)
    }
}
