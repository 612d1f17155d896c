extension TimestampSyntax {
    /// A date and/or time read from text, before it is turned into an instant.
    struct Fields {
        /// The wall-clock time; fields not in the text come from today's date and midnight.
        var time: LocalDateTime
        /// The weekday of the date in the text (counted on from the month's start, so `2026-11-31` is a Tuesday
        /// like December 1st), or today's when the text has no date.
        var weekday: Int
        /// Microseconds from a fraction after the seconds.
        var microseconds: Int
        /// Whether the text has a date (otherwise `time` is on today's).
        var hasDate: Bool
    }

    /// Reads `text` with the `strptime(3)` layouts systemd tries, in its order; the first that consumes all of
    /// `text` (or stops at a fraction after the seconds) wins.
    static func dateTimeFields(
        in text: ArraySlice<UInt8>, today: LocalDateTime
    ) throws(TimeSyntaxFailure) -> Fields {
        var furthest = text.startIndex
        for layout in layouts {
            switch layout.match(text) {
            case .failure(let offset):
                furthest = max(furthest, offset)
            case .success(let match):
                var fields = Fields(time: today, weekday: today.weekday, microseconds: 0, hasDate: false)
                layout.apply(match.values, to: &fields)
                if match.end == text.endIndex { return fields }
                if layout.hasSeconds && text[match.end] == UInt8(ascii: ".") {
                    fields.microseconds = try fraction(in: text[(match.end + 1)...])
                    return fields
                }
                furthest = max(furthest, match.end)
            }
        }
        // Point at what follows the longest match, past any blank ("07:00 Z" points at "Z").
        while furthest < text.endIndex && TimespanSyntax.isCSpace(text[furthest]) { furthest += 1 }
        throw TimeSyntaxFailure(reason: .unrecognizedTimestamp, offset: furthest)
    }

    /// The layouts of `parse_timestamp()`: two-digit years before four-digit ones, longer forms before shorter.
    private static let layouts = [
        "%y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M:%S", "%y-%m-%d %H:%M", "%Y-%m-%d %H:%M", "%y-%m-%d", "%Y-%m-%d",
        "%H:%M:%S", "%H:%M",
    ].map(Layout.init)

    /// Microseconds of a fraction after the decimal point, which must run to the end of the text: six digits,
    /// rounded half up by the seventh, further digits ignored (so `.9999995` makes a whole second).
    static func fraction(in text: ArraySlice<UInt8>) throws(TimeSyntaxFailure) -> Int {
        var index = text.startIndex
        var value = 0
        while index < text.endIndex, TimespanSyntax.isDigit(text[index]) {
            let digit = Int(text[index] - UInt8(ascii: "0"))
            let position = index - text.startIndex
            if position < 6 { value = value * 10 + digit } else if position == 6 && digit >= 5 { value += 1 }
            index += 1
        }
        let digits = index - text.startIndex
        guard digits > 0 else { throw TimeSyntaxFailure(reason: .missingFractionDigits, offset: index) }
        guard index == text.endIndex else { throw TimeSyntaxFailure(reason: .unrecognizedTimestamp, offset: index) }
        for _ in digits..<max(digits, 6) { value *= 10 }
        return value
    }
}

/// One `strptime(3)` format, matched the way glibc does: a space matches any run of whitespace (or none), a
/// number skips leading whitespace and reads digits while they fit the field, anything else matches itself.
private struct Layout {
    enum Field {
        case shortYear, year, month, day, hour, minute, second

        /// Width and range as glibc's `strptime()` reads them.
        var limits: (digits: Int, range: ClosedRange<Int>) {
            switch self {
            case .shortYear: (2, 0...99)
            case .year: (4, 0...9999)
            case .month: (2, 1...12)
            case .day: (2, 1...31)
            case .hour: (2, 0...23)
            case .minute: (2, 0...59)
            // 60 and 61 allow for leap seconds; mktime() rolls them over.
            case .second: (2, 0...61)
            }
        }
    }

    enum Piece {
        case number(Field)
        case whitespace
        case literal(UInt8)
    }

    enum Outcome {
        case success((values: [(Field, Int)], end: Int))
        case failure(Int)
    }

    let pieces: [Piece]
    /// Whether the layout ends in seconds, which a fraction may follow.
    let hasSeconds: Bool
    private let hasDate: Bool

    init(_ format: String) {
        var pieces: [Piece] = []
        var bytes = format.utf8.makeIterator()
        while let byte = bytes.next() {
            switch byte {
            case UInt8(ascii: "%"):
                let fields: [UInt8: Field] = [
                    UInt8(ascii: "y"): .shortYear, UInt8(ascii: "Y"): .year, UInt8(ascii: "m"): .month,
                    UInt8(ascii: "d"): .day, UInt8(ascii: "H"): .hour, UInt8(ascii: "M"): .minute,
                    UInt8(ascii: "S"): .second,
                ]
                pieces.append(.number(fields[bytes.next()!]!))
            case UInt8(ascii: " "): pieces.append(.whitespace)
            default: pieces.append(.literal(byte))
            }
        }
        self.pieces = pieces
        hasSeconds = format.hasSuffix("%S")
        hasDate = format.contains("%d")
    }

    func match(_ text: ArraySlice<UInt8>) -> Outcome {
        var index = text.startIndex
        var values: [(Field, Int)] = []
        for piece in pieces {
            switch piece {
            case .whitespace:
                while index < text.endIndex && TimespanSyntax.isCSpace(text[index]) { index += 1 }
            case .literal(let byte):
                guard index < text.endIndex, text[index] == byte else { return .failure(index) }
                index += 1
            case .number(let field):
                while index < text.endIndex && TimespanSyntax.isCSpace(text[index]) { index += 1 }
                let start = index
                let (digits, range) = field.limits
                var value = 0
                // Like glibc, stop early once another digit would leave the range: "2026-1-1" reads month 1.
                while index < text.endIndex, TimespanSyntax.isDigit(text[index]), index - start < digits,
                    index == start || value * 10 <= range.upperBound
                {
                    value = value * 10 + Int(text[index] - UInt8(ascii: "0"))
                    index += 1
                }
                guard index > start, range.contains(value) else { return .failure(start) }
                // Made once at its size: grown by each of six fields, it was allocated again and again.
                if values.isEmpty { values.reserveCapacity(pieces.count) }
                values.append((field, value))
            }
        }
        return .success((values, index))
    }

    /// Stores matched values into `fields`; what the layout does not have is zero (seconds of `%H:%M`, the time of
    /// a date) or today's (the date of a time).
    func apply(_ values: [(Field, Int)], to fields: inout TimestampSyntax.Fields) {
        for (field, value) in values {
            switch field {
            case .shortYear: fields.time.year = value >= 69 ? 1900 + value : 2000 + value
            case .year: fields.time.year = value
            case .month: fields.time.month = value
            case .day: fields.time.day = value
            case .hour: fields.time.hour = value
            case .minute: fields.time.minute = value
            case .second: fields.time.second = value
            }
        }
        fields.hasDate = hasDate
        if hasDate {
            let days = CivilTime.days(year: fields.time.year, month: fields.time.month, day: fields.time.day)
            fields.weekday = CivilTime.weekday(days: days)
        }
    }
}
