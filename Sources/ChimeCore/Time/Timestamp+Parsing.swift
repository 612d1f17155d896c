import Foundation

extension Timestamp {
    /// Parses a timestamp the way systemd's `parse_timestamp()` does (`systemd-analyze timestamp`).
    ///
    /// Accepted forms, with an optional weekday (`Tue`, `tuesday`) before a date that must fall on it:
    /// - `2026-12-01 07:00:00`, `2026-12-01 07:00`, `2026-12-01` (midnight), also with a two-digit year (`26-12-01`;
    ///   69–99 are 1969–1999, 00–68 are 2000–2068) and, where there are seconds, a fraction (`07:00:00.5`, rounded
    ///   to microseconds);
    /// - `07:00:00`, `07:00` on today's date in the zone;
    /// - `now`, `today`, `yesterday`, `tomorrow` (midnight in the zone);
    /// - `+5min`, `-1h`, `5min left`, `5min ago` relative to `now`, with `Timespan` syntax;
    /// - `@1796108400.5`: seconds since the epoch (again `Timespan` syntax, so `@5min` is 300 s).
    ///
    /// A date or time may end in ` UTC`, or in one of `localZone`'s abbreviations (` CET`, ` CEST`, which pins
    /// standard or daylight time), or in an IANA zone name (` Asia/Tokyo`) to be read in that zone; relative
    /// forms and `@` cannot have a zone name. Out-of-range days and leap seconds roll over as `mktime(3)` does
    /// (`2026-02-30` is March 2nd, `23:59:60` is midnight). A wall-clock time that a DST change skips or repeats
    /// gets whatever `ZoneRules.makeTime` answers, as systemd gets glibc's `mktime()`.
    ///
    /// Rejected, as by systemd: anything else (there is no `T` separator and no numeric offset), instants before
    /// the epoch, and dates after 9999-12-30 23:59:59 UTC.
    ///
    /// - Parameters:
    ///   - now: the current time, for the relative forms and the current date.
    ///   - localZone: the zone for times without a zone name (the system zone or `TimeZone=`).
    ///   - zones: where IANA zone names are looked up.
    public static func parse(
        _ text: String, now: Date, localZone: ZoneRules, zones: ZoneDatabase
    ) throws(TimeParseError) -> Date {
        try read(text, now: now, localZone: localZone, zones: zones).date
    }

    /// Parses `text` as `parse(_:now:localZone:zones:)` does, and says whether the answer depends on `now`: a
    /// relative form (`now`, `+5min`, `5min ago`, `tomorrow`) or a time without a date (`07:00`, on today's). A
    /// date, with or without a time, and `@seconds` do not.
    public static func read(
        _ text: String, now: Date, localZone: ZoneRules, zones: ZoneDatabase
    ) throws(TimeParseError) -> (date: Date, dependsOnNow: Bool) {
        let syntax = TimestampSyntax(now: now.epochMicroseconds, zones: zones)
        do {
            return try syntax.parse(Array(text.utf8)[...], localZone: localZone)
        } catch {
            throw TimeParseError(input: text, reason: error.reason, byteOffset: error.offset)
        }
    }
}

/// The grammar of `parse_timestamp()`, on UTF-8 bytes as systemd reads it.
struct TimestampSyntax {
    /// "Now" in microseconds since the epoch.
    let now: Int64
    let zones: ZoneDatabase

    /// The instant `text` names, and whether it depends on `now`.
    func parse(
        _ text: ArraySlice<UInt8>, localZone: ZoneRules
    ) throws(TimeSyntaxFailure) -> (date: Date, dependsOnNow: Bool) {
        // A last word naming a zone selects the zone the rest is read in; " UTC" is left to the general rule.
        if let space = text.lastIndex(of: UInt8(ascii: " ")), !Self.equalsIgnoringCase(text[(space + 1)...], "UTC"),
            let name = String(validating: text[(space + 1)...], as: UTF8.self), zones.isValidName(name),
            let rules = try? zones.rules(named: name)
        {
            // systemd evaluates the text with TZ set to the zone. When the name is also one of that zone's own
            // abbreviations ("CET", "EST", "GMT"), it stays on as the suffix that pins standard or daylight time.
            if name == rules.standardAbbreviation || name == rules.daylightAbbreviation {
                return try parse(text, zone: rules, zoneNamed: false)
            }
            return try parse(text[..<space], zone: rules, zoneNamed: true)
        }
        return try parse(text, zone: localZone, zoneNamed: false)
    }

    /// Parses `text` in `zone`; with `zoneNamed` (the zone came from an IANA name after the text), the relative
    /// forms and the zone suffixes are not recognised, as in systemd.
    private func parse(
        _ text: ArraySlice<UInt8>, zone: ZoneRules, zoneNamed: Bool
    ) throws(TimeSyntaxFailure) -> (date: Date, dependsOnNow: Bool) {
        var body = text
        var utc = false
        var isDST = -1
        if !zoneNamed {
            if body.first == UInt8(ascii: "@") {
                let microseconds = try TimespanSyntax.microseconds(in: body.dropFirst())
                guard microseconds != .max else { throw TimeSyntaxFailure(reason: .infinite, offset: body.startIndex) }
                return (Date(systemdMicroseconds: microseconds), false)
            }
            if let relative = try relativeToNow(body) { return (relative, true) }
            if let stripped = Self.dropSuffixIgnoringCase(body, " UTC") {
                body = stripped
                utc = true
            } else {
                for (flag, abbreviation) in [zone.standardAbbreviation, zone.daylightAbbreviation].enumerated()
                where !abbreviation.isEmpty {
                    // The abbreviation must be a separate word after something.
                    guard let stripped = Self.dropSuffixIgnoringCase(body, " " + abbreviation), !stripped.isEmpty
                    else { continue }
                    body = stripped
                    isDST = flag
                    break
                }
            }
        }

        let rules = utc ? ZoneRules.utc : zone
        var today = rules.localTime(at: Int64(CivilTime.floorDivide(Int(now), 1_000_000).quotient))
        today.isDST = isDST
        today.hour = 0
        today.minute = 0
        today.second = 0
        for (word, dayOffset) in Self.relativeDays where body.elementsEqual(word.utf8) {
            var midnight = today
            midnight.day += dayOffset
            return (try convert(midnight, rules: rules, at: body.startIndex), true)
        }

        let (weekday, afterWeekday) = Self.weekdayPrefix(of: body)
        let fields = try Self.dateTimeFields(in: body[afterWeekday...], today: today)
        if let weekday, fields.weekday != weekday {
            throw TimeSyntaxFailure(reason: .weekdayMismatch, offset: body.startIndex)
        }
        let date = try convert(fields.time, rules: rules, at: body.startIndex, microseconds: fields.microseconds)
        return (date, !fields.hasDate)
    }

    /// `now`, `+SPAN`, `-SPAN`, `SPAN ago`, `SPAN left`; nil for any other text.
    private func relativeToNow(_ body: ArraySlice<UInt8>) throws(TimeSyntaxFailure) -> Date? {
        if body.elementsEqual("now".utf8) { return try finish(now, at: body.startIndex) }
        if body.first == UInt8(ascii: "+") {
            return try finish(now, plus: TimespanSyntax.microseconds(in: body.dropFirst()), at: body.startIndex)
        }
        if body.first == UInt8(ascii: "-") {
            return try finish(now, minus: TimespanSyntax.microseconds(in: body.dropFirst()), at: body.startIndex)
        }
        if body.reversed().starts(with: " ago".utf8.reversed()) {
            return try finish(now, minus: TimespanSyntax.microseconds(in: body.dropLast(4)), at: body.startIndex)
        }
        if body.reversed().starts(with: " left".utf8.reversed()) {
            return try finish(now, plus: TimespanSyntax.microseconds(in: body.dropLast(5)), at: body.startIndex)
        }
        return nil
    }

    private static let relativeDays = [("today", 0), ("yesterday", -1), ("tomorrow", 1)]

    /// Turns wall-clock fields into an instant; `offset` is where errors point.
    private func convert(
        _ time: LocalDateTime, rules: ZoneRules, at offset: Int, microseconds: Int = 0
    ) throws(TimeSyntaxFailure) -> Date {
        var time = time
        // systemd refuses a wall time mktime cannot convert (-1) like one before the epoch.
        guard let seconds = rules.makeTime(&time), seconds >= 0 else {
            throw TimeSyntaxFailure(reason: .beforeEpoch, offset: offset)
        }
        guard seconds <= Timestamp.latestFormattableMicroseconds / 1_000_000 else {
            throw TimeSyntaxFailure(reason: .tooLate, offset: offset)
        }
        let instant = seconds * 1_000_000 + Int64(microseconds)
        guard instant <= Timestamp.latestFormattableMicroseconds else {
            throw TimeSyntaxFailure(reason: .tooLate, offset: offset)
        }
        return try finish(instant, at: offset)
    }

    /// systemd's final checks: the sum may not pass 9999-12-30 23:59:59 UTC (checked before `minus` is taken
    /// off), nor the difference go before the epoch.
    private func finish(
        _ base: Int64, plus: UInt64 = 0, minus: UInt64 = 0, at offset: Int
    ) throws(TimeSyntaxFailure) -> Date {
        let latest = Timestamp.latestFormattableMicroseconds
        // Wrapping arithmetic is exact here: every true result lies between `base` and `latest`.
        guard base <= latest, plus <= UInt64(bitPattern: latest &- base) else {
            throw TimeSyntaxFailure(reason: .tooLate, offset: offset)
        }
        let sum = base &+ Int64(bitPattern: plus)
        guard sum >= 0, minus <= UInt64(sum) else { throw TimeSyntaxFailure(reason: .beforeEpoch, offset: offset) }
        return Date(epochMicroseconds: sum - Int64(minus))
    }
}

extension TimestampSyntax {
    /// Weekday names systemd accepts before a date, in the order it tries them, with `tm_wday` numbers.
    private static let weekdays: [(name: String, number: Int)] = [
        ("Sunday", 0), ("Sun", 0), ("Monday", 1), ("Mon", 1), ("Tuesday", 2), ("Tue", 2), ("Wednesday", 3),
        ("Wed", 3), ("Thursday", 4), ("Thu", 4), ("Friday", 5), ("Fri", 5), ("Saturday", 6), ("Sat", 6),
    ]

    /// A leading weekday name (any case) followed by one space, and where the rest begins.
    static func weekdayPrefix(of text: ArraySlice<UInt8>) -> (weekday: Int?, rest: Int) {
        for (name, number) in weekdays {
            let end = text.startIndex + name.utf8.count
            guard end < text.endIndex, text[end] == UInt8(ascii: " "),
                equalsIgnoringCase(text[..<end], name)
            else { continue }
            return (number, end + 1)
        }
        return (nil, text.startIndex)
    }

    static func equalsIgnoringCase(_ bytes: ArraySlice<UInt8>, _ word: String) -> Bool {
        bytes.elementsEqual(word.utf8) { lowercased($0) == lowercased($1) }
    }

    /// `text` without `suffix` at its end, compared ASCII-case-insensitively like `strcasecmp()`; nil if absent.
    static func dropSuffixIgnoringCase(_ text: ArraySlice<UInt8>, _ suffix: String) -> ArraySlice<UInt8>? {
        let count = suffix.utf8.count
        guard text.count >= count, equalsIgnoringCase(text.suffix(count), suffix) else { return nil }
        return text.dropLast(count)
    }

    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (0x41...0x5A).contains(byte) ? byte + 0x20 : byte
    }
}
