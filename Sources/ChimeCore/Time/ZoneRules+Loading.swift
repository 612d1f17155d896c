import Foundation

/// Why time zone rules could not be had.
public enum ZoneError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The name is not a valid zone name, or no such zone is installed.
    case unknownZone(String)
    /// The TZif data is truncated or inconsistent.
    case malformedData(String)
    /// A POSIX TZ string could not be parsed.
    case malformedRule(String)

    public var description: String {
        switch self {
        case .unknownZone(let name): return "Unknown time zone '\(name)'"
        case .malformedData(let reason): return "Malformed time zone data: \(reason)"
        case .malformedRule(let rule): return "Malformed TZ rule '\(rule)'"
        }
    }
}

extension ZoneRules {
    /// Reads TZif data (tzfile(5), versions 1 to 4). The transitions and leap seconds of the 64-bit block are used,
    /// and the footer's POSIX rule is tabulated up to `lastTabulatedYear`.
    public init(tzif data: [UInt8], name: String) throws(ZoneError) {
        let (block, footer) = try TZifReader.read(data)

        var types = block.types
        var transitions = block.transitions
        var transitionTypes = block.transitionTypes
        // tzset(3) names the zone after the latest transition to each flavour in the file's table, not after the
        // footer's rule: Asia/Kolkata is IST/+0630 (DST of 1942-45), Asia/Tokyo JST/JDT, Casablanca +01/+00.
        var latest: [Bool: String] = [:]
        for type in block.transitionTypes.reversed() where latest[block.types[type].isDST] == nil {
            latest[block.types[type].isDST] = block.types[type].abbreviation
            if latest.count == 2 { break }
        }
        let standard = latest[false] ?? block.types[0].abbreviation
        let daylight = latest[true] ?? standard

        if let footer, !footer.isEmpty {
            let rule = try PosixZoneRule(parsing: footer)
            let after = transitions.last ?? Int64.min
            let firstYear = after == Int64.min ? 1970 : CivilTime.date(days: Int(after / 86_400)).year
            rule.appendTransitions(
                after: after, years: firstYear...ZoneRules.lastTabulatedYear, types: &types,
                transitions: &transitions, transitionTypes: &transitionTypes)
            if transitions.isEmpty {
                // A fixed-offset rule: it is the only type.
                types = [rule.standard]
            }
        }
        if transitions.isEmpty {
            // Without transitions, the first type is in force at every instant.
            types = [types[0]]
        }
        self.init(
            name: name, transitions: transitions, transitionTypes: transitionTypes, types: types, initialType: 0,
            standardAbbreviation: standard, daylightAbbreviation: daylight, leapSeconds: block.leapSeconds)
    }

    /// Builds rules from a POSIX TZ string such as `CET-1CEST,M3.5.0,M10.5.0/3` (as the `TZ` variable may hold).
    ///
    /// A rule that names daylight time without saying when it starts and ends (`CET-1CEST`) gets glibc's default:
    /// the transitions of the zone file `posixrules` in `zones` (New York's), each to the rule's standard or
    /// daylight time as the file's was, moved as glibc moves them, and after the file's table its footer rule,
    /// with that rule's offsets and names (so `GMT0BST` follows New York's EST and EDT after 2037). Without that
    /// file, daylight time runs from the second Sunday in March to the first in November.
    public init(posixRule text: String, zones: ZoneDatabase) throws(ZoneError) {
        let rule = try PosixZoneRule(parsing: text)
        var types: [LocalTimeType] = [rule.standard]
        var transitions: [Int64] = []
        var transitionTypes: [Int] = []
        if let daylight = rule.daylight, !rule.hasChangeDates, let data = zones.contents(of: "posixrules"),
            let (block, footer) = try? TZifReader.read(data), block.types.count >= 2
        {
            types.append(daylight)
            // glibc moves a transition given in wall-clock standard time by the difference between the rule's
            // standard offset and the file's latest one (GMT0BST starts BST at 12:00 UTC, five hours after New
            // York's 07:00 UTC). One given in daylight time it moves by the rule's daylight offset less the one it
            // last applied — the same, once glibc has re-read the file, which every mktime call makes it do — so
            // not at all (BST ends at New York's 06:00 UTC).
            let fileStandardOffset =
                block.transitionTypes.reversed().lazy.map { block.types[$0] }.first { !$0.isDST }?.utcOffset ?? 0
            var wasDaylight = false
            for (instant, index) in zip(block.transitions, block.transitionTypes) {
                var moved = instant
                if !block.isUniversalTime[index] && !(wasDaylight && !block.isStandardTime[index]) {
                    moved += Int64(rule.standard.utcOffset - fileStandardOffset)
                }
                transitions.append(moved)
                transitionTypes.append(block.types[index].isDST ? 1 : 0)
                wasDaylight = block.types[index].isDST
            }
            if let footer, let footerRule = try? PosixZoneRule(parsing: footer) {
                let after = transitions.last ?? Int64.min
                let firstYear = after == Int64.min ? 1970 : CivilTime.date(days: Int(after / 86_400)).year
                footerRule.appendTransitions(
                    after: after, years: firstYear...ZoneRules.lastTabulatedYear, types: &types,
                    transitions: &transitions, transitionTypes: &transitionTypes)
            }
        } else {
            rule.appendTransitions(
                after: Int64.min, years: 1970...ZoneRules.lastTabulatedYear, types: &types, transitions: &transitions,
                transitionTypes: &transitionTypes)
        }
        self.init(
            name: text, transitions: transitions, transitionTypes: transitionTypes, types: types, initialType: 0,
            standardAbbreviation: rule.standard.abbreviation,
            daylightAbbreviation: rule.daylight?.abbreviation ?? rule.standard.abbreviation)
    }
}

/// Reads the big-endian blocks of a TZif file.
private struct TZifReader {
    struct Block {
        var transitions: [Int64] = []
        var transitionTypes: [Int] = []
        var types: [ZoneRules.LocalTimeType] = []
        var leapSeconds: [ZoneRules.LeapSecond] = []
        /// Per type: whether its transitions were given in standard time, or in UT (tzfile(5) indicators).
        var isStandardTime: [Bool] = []
        var isUniversalTime: [Bool] = []
    }

    let bytes: [UInt8]
    var position = 0
    var counts = (isUT: 0, isStandard: 0, leap: 0, time: 0, type: 0, characters: 0)

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The data block glibc uses (the 64-bit one from version 2 on) and the footer's POSIX rule, if any.
    static func read(_ data: [UInt8]) throws(ZoneError) -> (block: Block, footer: String?) {
        var reader = TZifReader(bytes: data)
        let version = try reader.header()
        var block = try reader.block(timeSize: 4)
        var footer: String?
        if version >= 2 {
            block = try reader.block(timeSize: 8)
            footer = reader.footer()
        }
        guard !block.types.isEmpty else { throw .malformedData("no local time types") }
        return (block, footer)
    }

    mutating func header() throws(ZoneError) -> Int {
        guard bytes.count - position >= 44, bytes[position..<position + 4].elementsEqual("TZif".utf8) else {
            throw .malformedData("missing TZif header")
        }
        let versionByte = bytes[position + 4]
        let version = versionByte == 0 ? 1 : Int(versionByte) - 0x30
        position += 20
        counts.isUT = try int32()
        counts.isStandard = try int32()
        counts.leap = try int32()
        counts.time = try int32()
        counts.type = try int32()
        counts.characters = try int32()
        return version
    }

    mutating func block(timeSize: Int) throws(ZoneError) -> Block {
        if timeSize == 8 {
            _ = try header()
        }
        var block = Block()
        for _ in 0..<counts.time {
            block.transitions.append(timeSize == 8 ? try int64() : Int64(try int32()))
        }
        for _ in 0..<counts.time {
            block.transitionTypes.append(Int(try byte()))
        }
        var raw: [(offset: Int, isDST: Bool, index: Int)] = []
        for _ in 0..<counts.type {
            raw.append((try int32(), try byte() != 0, Int(try byte())))
        }
        guard bytes.count - position >= counts.characters else { throw .malformedData("truncated abbreviations") }
        let characters = Array(bytes[position..<position + counts.characters])
        position += counts.characters
        for entry in raw {
            guard entry.index < max(characters.count, 1) else { throw .malformedData("abbreviation out of range") }
            let tail = characters[min(entry.index, characters.count)...]
            let name = tail.prefix { $0 != 0 }
            block.types.append(
                .init(utcOffset: entry.offset, isDST: entry.isDST, abbreviation: String(decoding: name, as: UTF8.self)))
        }
        guard block.transitionTypes.allSatisfy({ $0 < block.types.count }) else {
            throw .malformedData("transition type out of range")
        }
        for _ in 0..<counts.leap {
            let instant = timeSize == 8 ? try int64() : Int64(try int32())
            block.leapSeconds.append(.init(instant: instant, correction: try int32()))
        }
        guard bytes.count - position >= counts.isStandard + counts.isUT else {
            throw .malformedData("truncated data block")
        }
        block.isStandardTime = (0..<counts.type).map { $0 < counts.isStandard && bytes[position + $0] != 0 }
        position += counts.isStandard
        block.isUniversalTime = (0..<counts.type).map { $0 < counts.isUT && bytes[position + $0] != 0 }
        position += counts.isUT
        return block
    }

    /// The POSIX TZ string between the newlines that end a version 2+ file.
    mutating func footer() -> String? {
        guard position < bytes.count, bytes[position] == 0x0A else { return nil }
        let rest = bytes[(position + 1)...]
        guard let end = rest.firstIndex(of: 0x0A) else { return nil }
        return String(decoding: bytes[(position + 1)..<end], as: UTF8.self)
    }

    private mutating func byte() throws(ZoneError) -> UInt8 {
        guard position < bytes.count else { throw .malformedData("truncated") }
        defer { position += 1 }
        return bytes[position]
    }

    private mutating func int32() throws(ZoneError) -> Int {
        guard bytes.count - position >= 4 else { throw .malformedData("truncated") }
        var value: UInt32 = 0
        for i in 0..<4 { value = value << 8 | UInt32(bytes[position + i]) }
        position += 4
        return Int(Int32(bitPattern: value))
    }

    private mutating func int64() throws(ZoneError) -> Int64 {
        guard bytes.count - position >= 8 else { throw .malformedData("truncated") }
        var value: UInt64 = 0
        for i in 0..<8 { value = value << 8 | UInt64(bytes[position + i]) }
        position += 8
        return Int64(bitPattern: value)
    }
}

/// A POSIX TZ rule (`std offset [dst [offset] [,start[/time],end[/time]]]`), as in a TZif footer or `$TZ`.
struct PosixZoneRule {
    enum Day {
        /// `Jn`: day 1...365, February 29 never counted.
        case julianWithoutLeapDay(Int)
        /// `n`: day 0...365, February 29 counted.
        case zeroBased(Int)
        /// `Mm.w.d`: weekday `d` (0 = Sunday) of week `w` (5 = last) of month `m`.
        case monthWeekDay(month: Int, week: Int, weekday: Int)
    }

    var standard: ZoneRules.LocalTimeType
    var daylight: ZoneRules.LocalTimeType?
    var start: (day: Day, time: Int) = (.monthWeekDay(month: 3, week: 2, weekday: 0), 7_200)
    var end: (day: Day, time: Int) = (.monthWeekDay(month: 11, week: 1, weekday: 0), 7_200)
    /// Whether the text said when daylight time starts and ends (otherwise `start` and `end` are defaults).
    var hasChangeDates = false

    init(parsing text: String) throws(ZoneError) {
        var scanner = Scanner(Array(text.utf8))
        guard let standardName = scanner.name(), let standardOffset = scanner.offset() else {
            throw .malformedRule(text)
        }
        standard = .init(utcOffset: -standardOffset, isDST: false, abbreviation: standardName)
        if scanner.atEnd { return }
        guard let daylightName = scanner.name() else { throw .malformedRule(text) }
        let daylightOffset = scanner.offset() ?? standardOffset - 3_600
        daylight = .init(utcOffset: -daylightOffset, isDST: true, abbreviation: daylightName)
        if scanner.atEnd { return }
        guard scanner.take(UInt8(ascii: ",")), let startDay = scanner.day() else { throw .malformedRule(text) }
        var startTime = 7_200
        if scanner.take(UInt8(ascii: "/")) {
            guard let time = scanner.offset() else { throw .malformedRule(text) }
            startTime = time
        }
        guard scanner.take(UInt8(ascii: ",")), let endDay = scanner.day() else { throw .malformedRule(text) }
        var endTime = 7_200
        if scanner.take(UInt8(ascii: "/")) {
            guard let time = scanner.offset() else { throw .malformedRule(text) }
            endTime = time
        }
        guard scanner.atEnd else { throw .malformedRule(text) }
        start = (startDay, startTime)
        end = (endDay, endTime)
        hasChangeDates = true
    }

    /// Appends the transitions of this rule for the UTC years `years`, those after `after` only, adding its types to
    /// `types` as needed.
    ///
    /// glibc computes the two change instants for the UTC year of the instant it converts, and has daylight time
    /// between them (or, where the start comes later in the year than the end, outside them). A rule whose change
    /// spills over New Year (`J365/25`) therefore also switches at 00:00 UTC on January 1.
    func appendTransitions(
        after: Int64, years: ClosedRange<Int>, types: inout [ZoneRules.LocalTimeType], transitions: inout [Int64],
        transitionTypes: inout [Int]
    ) {
        // Without daylight saving the footer's type is the one the table ends with: nothing to add.
        guard let daylight else { return }
        let standardIndex = Self.index(of: standard, in: &types)
        let daylightIndex = Self.index(of: daylight, in: &types)
        for year in years {
            let yearStart = Int64(CivilTime.days(year: year, month: 1, day: 1)) * 86_400
            let nextYearStart = Int64(CivilTime.days(year: year + 1, month: 1, day: 1)) * 86_400
            // The start is given in standard time, the end in daylight time.
            let startInstant =
                Int64(Self.dayNumber(start.day, year: year)) * 86_400 + Int64(start.time) - Int64(standard.utcOffset)
            let endInstant =
                Int64(Self.dayNumber(end.day, year: year)) * 86_400 + Int64(end.time) - Int64(daylight.utcOffset)
            func type(at instant: Int64) -> Int {
                let isDaylight =
                    startInstant > endInstant
                    ? instant < endInstant || instant >= startInstant
                    : instant >= startInstant && instant < endInstant
                return isDaylight ? daylightIndex : standardIndex
            }
            if yearStart <= after && after < nextYearStart, let last = transitionTypes.indices.last {
                // From the table's last transition on, the rule decides.
                transitionTypes[last] = type(at: after)
            }
            for instant in [yearStart, min(startInstant, endInstant), max(startInstant, endInstant)]
            where instant > after && instant >= yearStart && instant < nextYearStart {
                let next = type(at: instant)
                if let last = transitionTypes.last, last == next { continue }
                transitions.append(instant)
                transitionTypes.append(next)
            }
        }
    }

    private static func index(of type: ZoneRules.LocalTimeType, in types: inout [ZoneRules.LocalTimeType]) -> Int {
        if let existing = types.firstIndex(of: type) { return existing }
        types.append(type)
        return types.count - 1
    }

    /// Days since the epoch of a rule day in `year`.
    static func dayNumber(_ day: Day, year: Int) -> Int {
        let january1 = CivilTime.days(year: year, month: 1, day: 1)
        switch day {
        case .julianWithoutLeapDay(let n):
            return january1 + n - 1 + (CivilTime.isLeapYear(year) && n >= 60 ? 1 : 0)
        case .zeroBased(let n):
            return january1 + n
        case .monthWeekDay(let month, let week, let weekday):
            let first = CivilTime.days(year: year, month: month, day: 1)
            var day = first + (weekday - CivilTime.weekday(days: first) + 7) % 7 + (week - 1) * 7
            while day >= first + CivilTime.daysInMonth(year: year, month: month) { day -= 7 }
            return day
        }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var position = 0

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { position >= bytes.count }

        private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func take(_ byte: UInt8) -> Bool {
            guard current == byte else { return false }
            position += 1
            return true
        }

        /// A zone abbreviation: three or more letters, or anything between `<` and `>`.
        mutating func name() -> String? {
            if take(UInt8(ascii: "<")) {
                let start = position
                while let c = current, c != UInt8(ascii: ">") { position += 1 }
                guard take(UInt8(ascii: ">")), position - start >= 2 else { return nil }
                return String(decoding: bytes[start..<position - 1], as: UTF8.self)
            }
            let start = position
            while let c = current, (c | 0x20) >= UInt8(ascii: "a"), (c | 0x20) <= UInt8(ascii: "z") { position += 1 }
            guard position - start >= 3 else { return nil }
            return String(decoding: bytes[start..<position], as: UTF8.self)
        }

        /// `[+-]hh[:mm[:ss]]` in seconds; positive means west of Greenwich (as in TZ strings), or a rule time.
        mutating func offset() -> Int? {
            var sign = 1
            if take(UInt8(ascii: "-")) { sign = -1 } else { _ = take(UInt8(ascii: "+")) }
            guard let hours = number() else { return nil }
            var seconds = hours * 3_600
            if take(UInt8(ascii: ":")) {
                guard let minutes = number() else { return nil }
                seconds += minutes * 60
                if take(UInt8(ascii: ":")) {
                    guard let secs = number() else { return nil }
                    seconds += secs
                }
            }
            return sign * seconds
        }

        mutating func day() -> Day? {
            if take(UInt8(ascii: "J")) {
                guard let n = number(), (1...365).contains(n) else { return nil }
                return .julianWithoutLeapDay(n)
            }
            if take(UInt8(ascii: "M")) {
                guard let month = number(), take(UInt8(ascii: ".")), let week = number(), take(UInt8(ascii: ".")),
                    let weekday = number(), (1...12).contains(month), (1...5).contains(week), (0...6).contains(weekday)
                else { return nil }
                return .monthWeekDay(month: month, week: week, weekday: weekday)
            }
            guard let n = number(), (0...365).contains(n) else { return nil }
            return .zeroBased(n)
        }

        private mutating func number() -> Int? {
            let start = position
            var value = 0
            while let c = current, c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9"), position - start < 4 {
                value = value * 10 + Int(c - UInt8(ascii: "0"))
                position += 1
            }
            return position > start ? value : nil
        }
    }
}
