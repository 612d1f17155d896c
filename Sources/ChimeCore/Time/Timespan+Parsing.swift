extension Timespan {
    /// Parses a time span the way systemd's `parse_sec()` does (`systemd-analyze timespan`).
    ///
    /// Accepts a sum of numbers, each optionally followed by a unit (`1h 30min`, `1h30min`, `1.5h`, `500ms`),
    /// with whitespace allowed between and around them; a number without a unit is in seconds. Units are those of
    /// systemd.time(7), case-sensitive: `usec us µs μs`, `msec ms`, `seconds second sec s`,
    /// `minutes minute min m`, `hours hour hr h`, `days day d`, `weeks week w`, `months month M` (30.44 days),
    /// `years year y` (365.25 days). A fraction is truncated to whole microseconds digit by digit, as systemd
    /// does (`1.5us` is 1 µs). `infinity` alone gives `.infinity`.
    public static func parse(_ text: String) throws(TimeParseError) -> Timespan {
        let bytes = Array(text.utf8)
        do {
            return Timespan(microseconds: try TimespanSyntax.microseconds(in: bytes[...]))
        } catch {
            throw TimeParseError(input: text, reason: error.reason, byteOffset: error.offset)
        }
    }
}

/// A parse failure at a UTF-8 byte offset, turned into a `TimeParseError` by the public entry points.
struct TimeSyntaxFailure: Error {
    let reason: TimeParseError.Reason
    let offset: Int
}

/// The grammar of systemd time spans, on UTF-8 bytes because systemd's parser works on bytes.
enum TimespanSyntax {
    /// Unit names with their length in microseconds, longest name first so that a prefix match picks `msec`
    /// rather than `ms` or `m`.
    static let units: [(name: [UInt8], microseconds: UInt64)] = {
        let table: [(String, UInt64)] = [
            ("usec", 1), ("us", 1), ("µs", 1), ("μs", 1),
            ("msec", Timespan.millisecond), ("ms", Timespan.millisecond),
            ("seconds", Timespan.second), ("second", Timespan.second), ("sec", Timespan.second),
            ("s", Timespan.second),
            ("minutes", Timespan.minute), ("minute", Timespan.minute), ("min", Timespan.minute),
            ("m", Timespan.minute),
            ("hours", Timespan.hour), ("hour", Timespan.hour), ("hr", Timespan.hour), ("h", Timespan.hour),
            ("days", Timespan.day), ("day", Timespan.day), ("d", Timespan.day),
            ("weeks", Timespan.week), ("week", Timespan.week), ("w", Timespan.week),
            ("months", Timespan.month), ("month", Timespan.month), ("M", Timespan.month),
            ("years", Timespan.year), ("year", Timespan.year), ("y", Timespan.year),
        ]
        return table.map { (Array($0.0.utf8), $0.1) }.sorted { $0.name.count > $1.name.count }
    }()

    private static let infinityWord = Array("infinity".utf8)

    /// systemd's `WHITESPACE`: what it skips between the parts of a span.
    static func isSeparator(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// C's `isspace()` in the C locale, which `strtoll()` skips before a number; it also takes `\v` and `\f`.
    static func isCSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (0x09...0x0D).contains(byte)
    }

    /// An ASCII letter, or any byte of a non-ASCII character (such as the `µ` of `µs`).
    static func isLetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte >= 0x80
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte)
    }

    /// The number of microseconds `text` denotes, `UInt64.max` for infinity; offsets in failures are indices of
    /// `text`'s base array.
    static func microseconds(in text: ArraySlice<UInt8>) throws(TimeSyntaxFailure) -> UInt64 {
        var position = skipSeparators(text, from: text.startIndex)
        if text[position...].starts(with: infinityWord) {
            let after = skipSeparators(text, from: position + infinityWord.count)
            guard after == text.endIndex else { throw TimeSyntaxFailure(reason: .trailingText, offset: after) }
            return .max
        }

        var total: UInt64 = 0
        var previous: (end: Int, unitStart: Int?)? = nil
        while true {
            position = skipSeparators(text, from: position)
            guard position < text.endIndex else {
                guard previous != nil else { throw TimeSyntaxFailure(reason: .empty, offset: position) }
                return total
            }
            // systemd refuses a leading minus outright, so that "-0" is not a valid span.
            if text[position] == UInt8(ascii: "-") { throw TimeSyntaxFailure(reason: .negative, offset: position) }
            do {
                let part = try addPart(of: text, at: position, to: &total)
                previous = part
                position = part.end
            } catch {
                // systemd sees "5mins" as "5min" followed by a part "s" without a number; a reader sees an
                // unknown unit "mins".
                guard error.reason == .expectedNumber, let previous, isLetter(text[position]) else { throw error }
                let glued = previous.end == position ? previous.unitStart : nil
                throw TimeSyntaxFailure(reason: .unknownUnit, offset: glued ?? position)
            }
        }
    }

    /// Parses one "number [unit]" part starting at `start`, adds it to `total` and returns where it ended and
    /// where its unit began, if it had one.
    private static func addPart(
        of text: ArraySlice<UInt8>, at start: Int, to total: inout UInt64
    ) throws(TimeSyntaxFailure) -> (end: Int, unitStart: Int?) {
        let integer = try scanInteger(text, from: start)
        let hasFraction = integer.end < text.endIndex && text[integer.end] == UInt8(ascii: ".")
        var afterNumber = integer.end
        if hasFraction {
            afterNumber += 1
            while afterNumber < text.endIndex && isDigit(text[afterNumber]) { afterNumber += 1 }
        } else if integer.end == start {
            throw TimeSyntaxFailure(reason: .expectedNumber, offset: start)
        }
        let fractionDigits = hasFraction ? (integer.end + 1)..<afterNumber : afterNumber..<afterNumber
        let missingFraction = TimeSyntaxFailure(reason: .missingFractionDigits, offset: afterNumber)

        // The unit may follow after whitespace; without a unit, whitespace or the end must follow ("1 2" is 3 s,
        // "12.34.56" is an error).
        let unitStart = skipSeparators(text, from: afterNumber)
        let unit = self.unit(in: text, at: unitStart)
        let multiplier = unit?.microseconds ?? Timespan.second
        let end = unit.map { unitStart + $0.length } ?? unitStart
        if end == afterNumber && end < text.endIndex {
            throw hasFraction && fractionDigits.isEmpty
                ? missingFraction : TimeSyntaxFailure(reason: .unknownUnit, offset: afterNumber)
        }

        let overflow = TimeSyntaxFailure(reason: .overflow, offset: start)
        guard integer.value < UInt64.max / multiplier else { throw overflow }
        let whole = integer.value * multiplier
        guard whole < UInt64.max - total else { throw overflow }
        total += whole

        if hasFraction {
            // Each digit counts a tenth of the previous one, truncated: "1.5us" is 1 µs, as in systemd.
            var scale = multiplier / 10
            for index in fractionDigits {
                let part = UInt64(text[index] - UInt8(ascii: "0")) * scale
                guard part < UInt64.max - total else { throw overflow }
                total += part
                scale /= 10
            }
            // Checked only now, after the overflow checks, so that the error kind is systemd's ("1000000y." is
            // out of range, "5." is invalid).
            if fractionDigits.isEmpty { throw missingFraction }
        }
        return (end, unit == nil ? nil : unitStart)
    }

    /// What `strtoll()` reads at `start`: `end == start` when there is no number. Throws for what systemd turns
    /// into `ERANGE`: a number beyond `Int64.max`, or a negative one (reachable behind `\v` or `\f`, which
    /// `strtoll()` skips but systemd does not).
    private static func scanInteger(
        _ text: ArraySlice<UInt8>, from start: Int
    ) throws(TimeSyntaxFailure) -> (value: UInt64, end: Int) {
        var index = start
        while index < text.endIndex && isCSpace(text[index]) { index += 1 }
        var negative = false
        if index < text.endIndex && (text[index] == UInt8(ascii: "+") || text[index] == UInt8(ascii: "-")) {
            negative = text[index] == UInt8(ascii: "-")
            index += 1
        }
        guard index < text.endIndex && isDigit(text[index]) else { return (0, start) }
        var value: UInt64 = 0
        var tooLarge = false
        while index < text.endIndex && isDigit(text[index]) {
            let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = shifted.addingReportingOverflow(UInt64(text[index] - UInt8(ascii: "0")))
            if o1 || o2 || sum > UInt64(Int64.max) + (negative ? 1 : 0) { tooLarge = true } else { value = sum }
            index += 1
        }
        if tooLarge { throw TimeSyntaxFailure(reason: .overflow, offset: start) }
        if negative && value > 0 { throw TimeSyntaxFailure(reason: .negative, offset: start) }
        return (value, index)
    }

    /// The longest unit name at `index`, with its length in bytes.
    private static func unit(
        in text: ArraySlice<UInt8>, at index: Int
    ) -> (microseconds: UInt64, length: Int)? {
        let rest = text[index...]
        return units.first { rest.starts(with: $0.name) }.map { ($0.microseconds, $0.name.count) }
    }

    static func skipSeparators(_ text: ArraySlice<UInt8>, from start: Int) -> Int {
        var index = start
        while index < text.endIndex && isSeparator(text[index]) { index += 1 }
        return index
    }
}
