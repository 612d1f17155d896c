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
