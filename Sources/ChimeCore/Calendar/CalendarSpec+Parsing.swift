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
        // Compared in place: an array of the suffix's bytes would be an allocation per spec parsed.
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
