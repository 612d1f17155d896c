import Foundation

/// The rules of one time zone: which UTC offset, daylight-saving flag and abbreviation apply at each instant.
///
/// Read from TZif files (tzfile(5)) as glibc reads them — the transition table, then the POSIX TZ rule of the
/// file's footer for later years — or built from a POSIX `TZ` string. Conversions work on whole seconds since the
/// epoch and never consult the process's time zone, so they are pure and thread-safe.
public struct ZoneRules: Sendable, CustomStringConvertible {
    struct LocalTimeType: Hashable, Sendable {
        var utcOffset: Int
        var isDST: Bool
        var abbreviation: String
    }

    /// The abbreviation of each of `types` as UTF-8, ready to copy into formatted timestamps.
    let abbreviationBytes: [[UInt8]]

    /// The name this zone was loaded by (`Europe/Berlin`, `UTC`, or a POSIX TZ string).
    public let name: String
    /// Instants (seconds since the epoch) at which the local time type changes, ascending.
    let transitions: [Int64]
    /// For each transition, the index into `types` that applies from it on.
    let transitionTypes: [Int]
    let types: [LocalTimeType]
    /// The type in force before the first transition.
    let initialType: Int
    /// The standard-time abbreviation (`tzname[0]`), e.g. `CET`.
    public let standardAbbreviation: String
    /// The daylight-saving abbreviation (`tzname[1]`), e.g. `CEST`; the standard one for zones without DST.
    public let daylightAbbreviation: String
    /// Where lookups start: for each span of `2^lookupShift` seconds from `lookupBase` on, the index of the last
    /// transition at or before the span's start. The calendar search looks up thousands of instants per elapse
    /// listed; bisecting hundreds of transitions for each was a quarter of its time.
    private let lookupStarts: [Int32]
    private let lookupBase: Int64
    private static let lookupShift: Int64 = 23
    /// 8,192 spans of 97 days: 2,100 years.
    private static let lookupSpans = 8_192

    /// Coordinated Universal Time.
    public static let utc = ZoneRules(
        name: "UTC", transitions: [], transitionTypes: [],
        types: [LocalTimeType(utcOffset: 0, isDST: false, abbreviation: "UTC")], initialType: 0,
        standardAbbreviation: "UTC", daylightAbbreviation: "UTC")

    /// Rules are tabulated up to this year; the calendar engine never looks further (systemd's limit is 2199).
    static let lastTabulatedYear = 2200

    init(
        name: String, transitions: [Int64], transitionTypes: [Int], types: [LocalTimeType], initialType: Int,
        standardAbbreviation: String, daylightAbbreviation: String
    ) {
        self.name = name
        self.transitions = transitions
        self.transitionTypes = transitionTypes
        self.types = types
        self.initialType = initialType
        self.standardAbbreviation = standardAbbreviation
        self.daylightAbbreviation = daylightAbbreviation
        abbreviationBytes = types.map { Array($0.abbreviation.utf8) }
        // From 1900 on: some files start with a "big bang" transition billions of years back.
        lookupBase = max(transitions.first ?? 0, -2_208_988_800)
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
        lookupStarts = starts
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

    /// The UTC offset in seconds (east positive) in force at `instant`.
    @inline(__always)
    public func utcOffset(at instant: Int64) -> Int {
        types[typeIndex(at: instant)].utcOffset
    }

    /// Broken-down local time of `instant` (seconds since the epoch), like `localtime_r(3)`.
    public func localTime(at instant: Int64) -> LocalDateTime {
        let type = typeIndex(at: instant)
        return LocalDateTime(fields: fields(at: instant, type: type), abbreviation: types[type].abbreviation)
    }

    /// `localTime(at:)` without the abbreviation, and the index into `types` in force.
    @inline(__always)
    func localFields(at instant: Int64) -> (fields: LocalDateTime.Fields, type: Int) {
        let type = typeIndex(at: instant)
        return (fields(at: instant, type: type), type)
    }

    /// The fields of `instant` read with `types[type]`.
    @inline(__always)
    private func fields(at instant: Int64, type: Int) -> LocalDateTime.Fields {
        var time = LocalDateTime.Fields(year: 1970, month: 1, day: 1)
        time.setFields(localSeconds: instant + Int64(types[type].utcOffset))
        time.isDST = types[type].isDST ? 1 : 0
        time.utcOffset = types[type].utcOffset
        return time
    }

    /// Converts wall-clock time to an instant like `mktime(3)`: normalises out-of-range fields of `time` in place
    /// (filling in weekday, offset and abbreviation) and returns seconds since the epoch.
    ///
    /// DST: a wall time that does not exist (spring-forward gap) is moved forward by the gap with
    /// `isDST == -1`; with an explicit `isDST` it is read with that flavour's offset. A wall time that occurs twice
    /// resolves to the flavour `isDST` asks for; with `isDST == -1`, to the one the search from `offsetHint`
    /// reaches first (glibc remembers the offset of its previous conversion the same way).
    /// `offsetHint` is updated to the offset this conversion used.
    public func makeTime(_ time: inout LocalDateTime, offsetHint: inout Int) -> Int64 {
        let (instant, type) = makeTime(&time.fields, offsetHint: &offsetHint)
        time.abbreviation = types[type].abbreviation
        return instant
    }

    /// `makeTime(_:offsetHint:)` on the fields without the abbreviation; also answers the index into `types` of
    /// the local time type the instant is in.
    @inline(__always)
    func makeTime(_ time: inout LocalDateTime.Fields, offsetHint: inout Int) -> (instant: Int64, type: Int) {
        let local = time.localSeconds
        let type: Int
        let instant: Int64
        if transitions.isEmpty {
            // One offset at every instant.
            type = initialType
            instant = local - Int64(types[type].utcOffset)
            offsetHint = types[type].utcOffset
        } else if let (unique, uniqueType) = uniqueInstant(forLocal: local, offset: offsetHint, isDST: time.isDST) {
            type = uniqueType
            instant = unique
        } else {
            instant = resolve(local: local, isDST: time.isDST, offsetHint: offsetHint)
            offsetHint = Int(local - instant)
            (time, type) = localFields(at: instant)
            return (instant, type)
        }
        // The wall time stands as it is: its fields only need carrying over, which in-range fields do not.
        if time.isInRange {
            time.weekday = CivilTime.weekday(days: Int(CivilTime.floorDivide64(local, 86_400).quotient))
        } else {
            time.setFields(localSeconds: local)
        }
        time.isDST = types[type].isDST ? 1 : 0
        time.utcOffset = types[type].utcOffset
        return (instant, type)
    }

    /// The common case, with one lookup: `local` read with `offset` lands in a period of that offset, of the
    /// requested flavour, at least a day from either end of it — so no other reading exists. Answers the instant
    /// and the index into `types` of its local time type.
    @inline(__always)
    func uniqueInstant(forLocal local: Int64, offset: Int, isDST: Int) -> (Int64, Int)? {
        guard !transitions.isEmpty else { return nil }
        let guess = local - Int64(offset)
        let index = transitionIndex(atOrBefore: guess)
        let type = index < 0 ? initialType : transitionTypes[index]
        guard types[type].utcOffset == offset, isDST < 0 || types[type].isDST == (isDST > 0) else { return nil }
        let margin: Int64 = 26 * 3_600
        if index >= 0 && guess - transitions[index] <= margin { return nil }
        if index + 1 < transitions.count && transitions[index + 1] - guess <= margin { return nil }
        return (guess, type)
    }

    /// `makeTime(_:offsetHint:)` without a remembered offset.
    public func makeTime(_ time: inout LocalDateTime) -> Int64 {
        var hint = 0
        return makeTime(&time, offsetHint: &hint)
    }

    /// Every instant whose wall-clock time is `local`, ascending: none in a gap, two in a repeated hour.
    func instants(forLocal local: Int64) -> (count: Int, first: Int64, second: Int64) {
        // No zone is further than 26 hours from UTC, so only segments overlapping that window can hold a match.
        let window: Int64 = 26 * 3_600
        var index = transitionIndex(atOrBefore: local - window)
        var count = 0
        var found: (Int64, Int64) = (0, 0)
        while true {
            let start = index < 0 ? Int64.min : transitions[index]
            let end = index + 1 < transitions.count ? transitions[index + 1] : Int64.max
            let type = index < 0 ? initialType : transitionTypes[index]
            let candidate = local - Int64(types[type].utcOffset)
            if candidate >= start && candidate < end {
                if count == 0 { found.0 = candidate } else if count == 1 { found.1 = candidate }
                count += 1
            }
            if end == Int64.max || end > local + window { break }
            index += 1
        }
        return (count, found.0, found.1)
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

    private func resolve(local: Int64, isDST: Int, offsetHint: Int) -> Int64 {
        let found = instants(forLocal: local)
        switch found.count {
        case 0:
            return resolveGap(local: local, isDST: isDST)
        case 1:
            let type = types[typeIndex(at: found.first)]
            if isDST >= 0 && type.isDST != (isDST > 0) {
                return probeFlavour(local: local, near: found.first, isDST: isDST > 0) ?? found.first
            }
            return found.first
        default:
            let firstType = types[typeIndex(at: found.first)]
            let secondType = types[typeIndex(at: found.second)]
            if isDST >= 0 && firstType.isDST != secondType.isDST {
                return firstType.isDST == (isDST > 0) ? found.first : found.second
            }
            return converge(local: local, from: local - Int64(offsetHint)) ?? found.first
        }
    }

    /// A wall time inside a gap: read it with the standard-time offset (so it moves forward by the gap's length),
    /// or with the offset of the flavour asked for.
    private func resolveGap(local: Int64, isDST: Int) -> Int64 {
        let window: Int64 = 26 * 3_600
        var index = max(transitionIndex(atOrBefore: local - window), 0)
        while index < transitions.count {
            let before = types[index == 0 ? initialType : transitionTypes[index - 1]]
            let after = types[transitionTypes[index]]
            let boundary = transitions[index]
            if after.utcOffset > before.utcOffset && local >= boundary + Int64(before.utcOffset)
                && local < boundary + Int64(after.utcOffset)
            {
                if isDST >= 0 {
                    let wanted = isDST > 0
                    if before.isDST != wanted && after.isDST == wanted { return local - Int64(after.utcOffset) }
                    return local - Int64(before.utcOffset)
                }
                // Unasked, glibc reads the wall time with the standard-time offset (Berlin: forward by the gap),
                // and with the later offset where both sides are standard time.
                if before.isDST == after.isDST || before.isDST { return local - Int64(after.utcOffset) }
                return local - Int64(before.utcOffset)
            }
            index += 1
        }
        return local - Int64(utcOffset(at: local))
    }

    /// Looks for the nearest instant, stepping by about a week in both directions for up to about 7.3 years,
    /// whose flavour is `isDST`, and reads `local` with that instant's offset. Where there is none, daylight time
    /// is taken to be one hour ahead of standard time. This is how glibc gives a wall time an explicitly
    /// requested flavour that is not in force at that date.
    private func probeFlavour(local: Int64, near instant: Int64, isDST: Bool) -> Int64? {
        let stride: Int64 = 601_200
        var delta = stride
        while delta <= 229_222_800 {
            for direction: Int64 in [-1, 1] {
                let probe = instant + direction * delta
                let type = types[typeIndex(at: probe)]
                if type.isDST == isDST {
                    return local - Int64(type.utcOffset)
                }
            }
            delta += stride
        }
        let offset = Int64(utcOffset(at: instant))
        return local - (isDST ? offset + 3_600 : offset - 3_600)
    }

    /// Newton-style search from a first guess: adjust by the difference between the wanted and the obtained wall
    /// time until they agree. Of two valid answers it reaches the one nearer the guess's offset.
    private func converge(local: Int64, from guess: Int64) -> Int64? {
        var instant = guess
        for _ in 0..<8 {
            let obtained = instant + Int64(utcOffset(at: instant))
            if obtained == local { return instant }
            instant += local - obtained
        }
        return nil
    }
}
