/// Why a calendar event could not be parsed.
public struct CalendarSpecError: Error, Equatable, Sendable, CustomStringConvertible {
    /// 1-based column in the spec where the problem was found.
    public let column: Int
    public let reason: String

    public init(column: Int, reason: String) {
        self.column = column
        self.reason = reason
    }

    public var description: String { "\(reason) (column \(column))" }
}

extension CalendarSpec {
    /// Parses `text` as systemd.time(7) reads a calendar event.
    ///
    /// - Parameters:
    ///   - localZone: the zone whose abbreviations (`CET`, `CEST`) may end the spec; times without a zone are
    ///     read in the local zone given to `nextElapse`, which should be the same.
    ///   - zones: where zone names ending the spec (`Asia/Tokyo`) are looked up.
    public init(_ text: String, localZone: ZoneRules, zones: ZoneDatabase) throws(CalendarSpecError) {
        var body = Array(text.utf8)
        var zone = Zone.local(isDST: -1, abbreviation: nil)
        var rules: ZoneRules?

        if Self.hasSuffixIgnoringCase(body, " UTC") {
            zone = .utc
            body.removeLast(4)
        } else if let (isDST, length) = Self.localAbbreviationSuffix(body, localZone: localZone) {
            let abbreviation = isDST == 0 ? localZone.standardAbbreviation : localZone.daylightAbbreviation
            zone = .local(isDST: isDST, abbreviation: abbreviation)
            body.removeLast(length + 1)
        } else if let space = body.lastIndex(of: UInt8(ascii: " ")) {
            let name = String(decoding: body[(space + 1)...], as: UTF8.self)
            if zones.isValidName(name) {
                if name == "UTC" {
                    zone = .utc
                } else {
                    guard let loaded = try? zones.rules(named: name) else {
                        throw CalendarSpecError(column: space + 2, reason: "Unreadable time zone '\(name)'")
                    }
                    zone = .named(name)
                    rules = loaded
                }
                body.removeSubrange(space...)
            }
        }

        self.init(namedZoneRules: rules)
        self.zone = zone
        guard !body.isEmpty else { throw CalendarSpecError(column: 1, reason: "Empty calendar specification") }

        if let shorthand = Self.shorthand(String(decoding: body, as: UTF8.self)) {
            weekdays = shorthand.weekdays
            month = shorthand.month
            day = shorthand.day
            hour = shorthand.hour
            minute = shorthand.minute
            microsecond = [Component(start: 0)]
        } else {
            var parser = CalendarSpecParser(bytes: body)
            do {
                try parser.parse(into: &self)
            } catch {
                throw Self.explaining(error, in: body, zones: zones)
            }
            if let timestamp = parser.timestamp {
                // gmtime breaks `@EPOCH` down counting the leap seconds of the process's (local) zone.
                fix(at: timestamp, universalTime: localZone.universalTime)
            }
        }
        normalize()
        if let problem = validationProblem() {
            throw CalendarSpecError(column: 1, reason: problem)
        }
    }

    private static func hasSuffixIgnoringCase(_ bytes: [UInt8], _ suffix: String) -> Bool {
        // Compared in place: an array of the suffix's bytes was a third of the allocations of parsing a spec.
        var index = bytes.count - suffix.utf8.count
        guard index >= 0 else { return false }
        for byte in suffix.utf8 {
            guard lowercased(bytes[index]) == lowercased(byte) else { return false }
            index += 1
        }
        return true
    }

    /// Whether `bytes` holds `word` at `index` (ASCII letters compared without case if asked).
    ///
    /// A plain loop: this runs for every spec, and generic sequence algorithms are slow in debug builds.
    static func matches(_ bytes: [UInt8], at index: Int, _ word: [UInt8], ignoringCase: Bool) -> Bool {
        guard index >= 0 && index + word.count <= bytes.count else { return false }
        for offset in 0..<word.count {
            let a = bytes[index + offset]
            let b = word[offset]
            guard ignoringCase ? lowercased(a) == lowercased(b) : a == b else { return false }
        }
        return true
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }

    /// The local zone's standard (0) or daylight (1) abbreviation ending the spec after a space.
    private static func localAbbreviationSuffix(_ bytes: [UInt8], localZone: ZoneRules) -> (Int, Int)? {
        func ends(with name: String) -> Int? {
            let length = name.utf8.count
            guard length > 0, bytes.count > length, hasSuffixIgnoringCase(bytes, name) else { return nil }
            return bytes[bytes.count - length - 1] == UInt8(ascii: " ") ? length : nil
        }
        if let length = ends(with: localZone.standardAbbreviation) { return (0, length) }
        if let length = ends(with: localZone.daylightAbbreviation) { return (1, length) }
        return nil
    }

    private struct Shorthand {
        var weekdays = CalendarSpec.allWeekdays
        var month: [Component]?
        var day: [Component]?
        var hour: [Component]? = [Component(start: 0)]
        var minute: [Component]? = [Component(start: 0)]
    }

    private static func shorthand(_ word: String) -> Shorthand? {
        let one = [Component(start: 1)]
        switch word.lowercased() {
        case "minutely": return Shorthand(hour: nil, minute: nil)
        case "hourly": return Shorthand(hour: nil)
        case "daily": return Shorthand()
        case "monthly": return Shorthand(day: one)
        case "weekly": return Shorthand(weekdays: 1)
        case "yearly", "annually", "anually": return Shorthand(month: one, day: one)
        case "quarterly": return Shorthand(month: [1, 4, 7, 10].map { Component(start: $0) }, day: one)
        case "semiannually", "semi-annually", "biannually", "bi-annually":
            return Shorthand(month: [1, 7].map { Component(start: $0) }, day: one)
        default: return nil
        }
    }

    /// Sets every field to the broken-down `instant` (seconds since the epoch), in UTC.
    private mutating func fix(at instant: Int, universalTime: ZoneRules) {
        let time = universalTime.localTime(at: Int64(instant))
        year = [.init(start: time.year)]
        month = [.init(start: time.month)]
        day = [.init(start: time.day)]
        hour = [.init(start: time.hour)]
        minute = [.init(start: time.minute)]
        microsecond = [.init(start: time.second * CalendarSpec.microsecondsPerSecond)]
        zone = .utc
    }

    /// Turns two-digit years into 19xx/20xx, trims ranges to their last repetition, sorts and deduplicates.
    mutating func normalize() {
        if weekdays == 0 || weekdays >= Self.allWeekdays { weekdays = Self.allWeekdays }
        if day == nil { endOfMonth = false }
        if var years = year {
            for index in years.indices {
                years[index].start = Self.fullYear(years[index].start)
                years[index].stop = Self.fullYear(years[index].stop)
            }
            year = years
        }
        year = Self.normalize(year)
        month = Self.normalize(month)
        day = Self.normalize(day)
        hour = Self.normalize(hour)
        minute = Self.normalize(minute)
        microsecond = Self.normalize(microsecond)
    }

    private static func fullYear(_ value: Int) -> Int {
        switch value {
        case 0..<70: return value + 2000
        case 70..<100: return value + 1900
        default: return value
        }
    }

    private static func normalize(_ components: [Component]?) -> [Component]? {
        guard var list = components else { return nil }
        for index in list.indices {
            var c = list[index]
            if c.stop > c.start && c.repeat > 0 {
                c.stop -= (c.stop - c.start) % c.repeat
            }
            // A repetition that cannot fire twice, or an empty range, is a single value.
            if (c.stop > c.start && c.start + c.repeat > c.stop) || c.start == c.stop {
                c.repeat = 0
                c.stop = -1
            }
            list[index] = c
        }
        list.sort()
        var unique: [Component] = []
        for c in list where unique.last != c { unique.append(c) }
        return unique
    }

    private func validationProblem() -> String? {
        if let problem = Self.problem(year, "year", from: Self.minimumYear, to: Self.maximumYear) { return problem }
        if let problem = Self.problem(month, "month", from: 1, to: 12) { return problem }
        if let problem = Self.problem(day, "day", from: 1, to: 31, endOfMonth: endOfMonth) { return problem }
        if let problem = Self.problem(hour, "hour", from: 0, to: 23) { return problem }
        if let problem = Self.problem(minute, "minute", from: 0, to: 59) { return problem }
        let lastMicrosecond = 60 * Self.microsecondsPerSecond - 1
        if let problem = Self.problem(microsecond, "second", from: 0, to: lastMicrosecond) { return problem }
        return nil
    }

    /// What makes `components` invalid for a field ranging `from...to`, if anything.
    ///
    /// Counting from the end of the month (`~`), days may lie at most 28 back; like systemd, that bound shrinks by
    /// three more for each further list element.
    private static func problem(
        _ components: [Component]?, _ field: String, from: Int, to: Int, endOfMonth: Bool = false
    ) -> String? {
        var to = to
        for c in components ?? [] {
            if endOfMonth { to -= 3 }
            if c.start < from || c.start > to { return "The \(field) \(c.start) is out of range" }
            if c.repeat > to - from { return "The \(field) repetition /\(c.repeat) is too large" }
            if c.stop >= 0 {
                if c.stop < from || c.stop > to { return "The \(field) range end \(c.stop) is out of range" }
                if c.start + c.repeat > c.stop { return "The \(field) range \(c.start)..\(c.stop) is empty" }
            } else if endOfMonth ? c.start - c.repeat < from : c.start + c.repeat > to {
                return "The \(field) repetition \(c.start)/\(c.repeat) never repeats within range"
            }
        }
        return nil
    }
}

/// Reads the weekday, date and time parts of a calendar event (without zone suffix or shorthand).
struct CalendarSpecParser {
    let bytes: [UInt8]
    var position = 0

    /// The seconds of an `@EPOCH` spec, for the caller to break down.
    private(set) var timestamp: Int?

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var current: UInt8 { position < bytes.count ? bytes[position] : 0 }

    private func byte(at index: Int) -> UInt8 { index < bytes.count ? bytes[index] : 0 }

    private func fail(_ reason: String) -> CalendarSpecError {
        CalendarSpecError(column: position + 1, reason: reason)
    }

    private mutating func skipSpaces() {
        while current == UInt8(ascii: " ") { position += 1 }
    }

    mutating func parse(into spec: inout CalendarSpec) throws(CalendarSpecError) {
        try parseWeekdays(into: &spec)
        let dateWasTimestamp = try parseDate(into: &spec)
        if !dateWasTimestamp {
            try parseTime(into: &spec)
        }
        guard position >= bytes.count else { throw fail("Unexpected text") }
    }

    private static let weekdayNames: [(name: [UInt8], day: Int)] = [
        ("monday", 0), ("mon", 0), ("tuesday", 1), ("tue", 1), ("wednesday", 2), ("wed", 2), ("thursday", 3),
        ("thu", 3), ("friday", 4), ("fri", 4), ("saturday", 5), ("sat", 5), ("sunday", 6), ("sun", 6),
    ].map { (Array($0.utf8), $1) }

    private func weekdayName(at index: Int) -> (day: Int, length: Int)? {
        for (name, day) in Self.weekdayNames
        where CalendarSpec.matches(bytes, at: index, name, ignoringCase: true) {
            return (day, name.count)
        }
        return nil
    }

    private mutating func parseWeekdays(into spec: inout CalendarSpec) throws(CalendarSpecError) {
        var bits: UInt8 = 0
        var rangeStart = -1
        var first = true
        while true {
            guard let (day, length) = weekdayName(at: position) else {
                if first { return }
                throw fail("Expected a weekday name")
            }
            switch byte(at: position + length) {
            case 0, UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: ","), UInt8(ascii: " "): break
            default: throw fail("Unknown weekday name")
            }
            bits |= 1 << day
            if rangeStart >= 0 {
                guard rangeStart <= day else { throw fail("Weekday range runs backwards") }
                for inner in (rangeStart + 1)..<max(day, rangeStart + 1) { bits |= 1 << inner }
            }
            position += length
            spec.weekdays = bits
            if current == 0 { return }
            if current == UInt8(ascii: " ") {
                skipSpaces()
                return
            }
            if current == UInt8(ascii: ".") {
                guard rangeStart < 0, byte(at: position + 1) == UInt8(ascii: ".") else {
                    throw fail("Expected '..' in weekday range")
                }
                rangeStart = day
                position += 2
            } else if current == UInt8(ascii: "-") {
                guard rangeStart < 0 else { throw fail("Weekday range has two ends") }
                rangeStart = day
                position += 1
            } else if current == UInt8(ascii: ",") {
                rangeStart = -1
                position += 1
            }
            // A trailing comma is allowed, an open range is not.
            if current == 0 || current == UInt8(ascii: " ") {
                skipSpaces()
                if rangeStart >= 0 { throw fail("Weekday range has no end") }
                return
            }
            first = false
        }
    }

    /// Parses `[[year-]month-day]`, or `@EPOCH`. Returns true for `@EPOCH`, which also fixes the time.
    private mutating func parseDate(into spec: inout CalendarSpec) throws(CalendarSpecError) -> Bool {
        if current == 0 { return false }
        if current == UInt8(ascii: "@") {
            try parseEpoch()
            return true
        }
        let start = position
        let first = try parseChain(microseconds: false)
        // A ':' right after the first list means this was the time.
        if current == 0 || current == UInt8(ascii: ":") {
            position = start
            return false
        }
        if current == UInt8(ascii: "~") {
            spec.endOfMonth = true
        } else if current != UInt8(ascii: "-") {
            throw fail("Expected '-' or '~' in date")
        }
        position += 1
        let second = try parseChain(microseconds: false)
        if current == 0 || current == UInt8(ascii: " ") {
            skipSpaces()
            spec.month = first
            spec.day = second
            return false
        }
        if spec.endOfMonth { throw fail("'~' must separate month and day") }
        if current == UInt8(ascii: "~") {
            spec.endOfMonth = true
        } else if current != UInt8(ascii: "-") {
            throw fail("Expected '-' or '~' in date")
        }
        position += 1
        let third = try parseChain(microseconds: false)
        guard current == 0 || current == UInt8(ascii: " ") else { throw fail("Unexpected text after date") }
        skipSpaces()
        spec.year = first
        spec.month = second
        spec.day = third
        return false
    }

    /// `@SECONDS`: one instant, to the second, left in `timestamp`. The number is read as `strtoul(3)` reads it:
    /// leading blanks and a sign are allowed, and a negative number wraps to an instant before 1970 (which is
    /// invalid).
    private mutating func parseEpoch() throws(CalendarSpecError) {
        position += 1
        while current == UInt8(ascii: " ") || (0x09...0x0D).contains(current) { position += 1 }
        var negative = false
        if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") {
            negative = current == UInt8(ascii: "-")
            position += 1
        }
        let digitsStart = position
        var value = 0
        while current >= UInt8(ascii: "0") && current <= UInt8(ascii: "9") {
            let (product, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = product.addingReportingOverflow(Int(current - UInt8(ascii: "0")))
            guard !overflow1 && !overflow2 else { throw fail("Timestamp out of range") }
            value = sum
            position += 1
        }
        guard position > digitsStart, current == 0 else { throw fail("Expected seconds since the epoch") }
        timestamp = negative ? -value : value
    }

    /// Parses `hour:minute[:second]`; an empty time means 00:00:00.
    private mutating func parseTime(into spec: inout CalendarSpec) throws(CalendarSpecError) {
        guard current != 0 else {
            spec.hour = [.init(start: 0)]
            spec.minute = [.init(start: 0)]
            spec.microsecond = [.init(start: 0)]
            return
        }
        spec.hour = try parseChain(microseconds: false)
        guard current == UInt8(ascii: ":") else { throw fail("Expected ':' after the hour") }
        position += 1
        spec.minute = try parseChain(microseconds: false)
        guard current != 0 else {
            spec.microsecond = [.init(start: 0)]
            return
        }
        guard current == UInt8(ascii: ":") else { throw fail("Expected ':' after the minute") }
        position += 1
        spec.microsecond = try parseChain(microseconds: true)
        guard current == 0 else { throw fail("Unexpected text after the seconds") }
    }

    /// `*` or a comma-separated list of components. `*` is `nil`, except for seconds (every whole second).
    private mutating func parseChain(microseconds: Bool) throws(CalendarSpecError) -> [CalendarSpec.Component]? {
        if current == UInt8(ascii: "*") {
            position += 1
            return microseconds ? [.init(start: 0, repeat: CalendarSpec.microsecondsPerSecond)] : nil
        }
        var list: [CalendarSpec.Component] = []
        while true {
            guard list.count <= 240 else { throw fail("Too many list elements") }
            list.append(try parseComponent(microseconds: microseconds))
            guard current == UInt8(ascii: ",") else { return list }
            position += 1
        }
    }

    private mutating func parseComponent(microseconds: Bool) throws(CalendarSpecError) -> CalendarSpec.Component {
        let unit = microseconds ? CalendarSpec.microsecondsPerSecond : 1
        var component = CalendarSpec.Component(start: try parseValue(microseconds: microseconds))
        if current == UInt8(ascii: "."), byte(at: position + 1) == UInt8(ascii: ".") {
            position += 2
            component.stop = try parseValue(microseconds: microseconds)
            component.repeat = unit
        }
        if current == UInt8(ascii: "/") {
            position += 1
            component.repeat = try parseValue(microseconds: microseconds)
            guard component.repeat != 0 else { throw fail("Repetition must not be zero") }
        } else {
            guard component.start <= Int(Int32.max) - component.repeat else { throw fail("Value out of range") }
            // Without an explicit step, a seconds range shorter than one second cannot be stepped through.
            if microseconds && component.stop >= 0 && component.start + component.repeat > component.stop {
                throw fail("Range is shorter than its step")
            }
        }
        switch current {
        case 0, UInt8(ascii: " "), UInt8(ascii: ","), UInt8(ascii: "-"), UInt8(ascii: "~"), UInt8(ascii: ":"):
            return component
        default:
            throw fail("Unexpected character")
        }
    }

    /// A decimal number; for seconds also a fraction of up to six digits (the seventh rounds).
    private mutating func parseValue(microseconds: Bool) throws(CalendarSpecError) -> Int {
        guard current >= UInt8(ascii: "0") && current <= UInt8(ascii: "9") else { throw fail("Expected a number") }
        var value = 0
        while current >= UInt8(ascii: "0") && current <= UInt8(ascii: "9") {
            value = value * 10 + Int(current - UInt8(ascii: "0"))
            guard value <= Int(Int32.max) else { throw fail("Value out of range") }
            position += 1
        }
        if microseconds {
            value *= CalendarSpec.microsecondsPerSecond
            // One '.' is a decimal point, two are a range.
            if current == UInt8(ascii: "."), byte(at: position + 1) != UInt8(ascii: ".") {
                position += 1
                value += try parseFraction()
            }
        }
        guard value <= Int(Int32.max) else { throw fail("Value out of range") }
        return value
    }

    private mutating func parseFraction() throws(CalendarSpecError) -> Int {
        var fraction = 0
        var digits = 0
        while digits < 6 {
            guard current >= UInt8(ascii: "0") && current <= UInt8(ascii: "9") else {
                guard digits > 0 else { throw fail("Expected digits after the decimal point") }
                break
            }
            fraction = fraction * 10 + Int(current - UInt8(ascii: "0"))
            digits += 1
            position += 1
        }
        for _ in digits..<6 { fraction *= 10 }
        if current >= UInt8(ascii: "5") && current <= UInt8(ascii: "9") { fraction += 1 }
        while current >= UInt8(ascii: "0") && current <= UInt8(ascii: "9") { position += 1 }
        return fraction
    }
}
