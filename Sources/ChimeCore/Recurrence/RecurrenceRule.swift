/// Why a recurrence rule was refused: names the part that is wrong (`BYSETPOS needs another BYxxx part`).
public struct RecurrenceRuleError: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String

    public init(_ reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}

/// An RFC 5545 recurrence rule (`RRule=FREQ=MONTHLY;BYDAY=-1FR`), checked part by part as RFC 5545 §3.3.10 says,
/// then expanded by libical (`RecurrenceRule+Expansion`).
///
/// `UNTIL` is kept out of the rule libical sees and applied by chime to the instants (UTC, as RFC 5545 requires
/// beside a zoned start; a date or a time without `Z` is wall-clock time in the trigger's zone).
public struct RecurrenceRule: Sendable, Equatable {
    public enum Frequency: String, Sendable, CaseIterable {
        case secondly = "SECONDLY", minutely = "MINUTELY", hourly = "HOURLY", daily = "DAILY", weekly = "WEEKLY"
        case monthly = "MONTHLY", yearly = "YEARLY"
    }

    /// The rule as written.
    public let text: String
    public let frequency: Frequency
    /// `COUNT`: how many instances the rule has.
    public let count: Int?
    /// `UNTIL`: the end of the rule, inclusive.
    public let until: RecurrenceTime?
    /// The parts libical expands: everything but `UNTIL`, in upper case.
    let expanded: String
    /// The same without `COUNT`, for a walk begun near an instant (libical begins one with `COUNT` only at DTSTART).
    let uncounted: String
    /// A rule that chime expands itself.
    let stepped: SteppedRecurrence?

    static let weekdays = ["SU", "MO", "TU", "WE", "TH", "FR", "SA"]
    static let parts: Set<String> = [
        "FREQ", "UNTIL", "COUNT", "INTERVAL", "BYSECOND", "BYMINUTE", "BYHOUR", "BYDAY", "BYMONTHDAY", "BYYEARDAY",
        "BYWEEKNO", "BYMONTH", "BYSETPOS", "WKST",
    ]

    /// Reads and checks `text`.
    public init(_ text: String) throws(RecurrenceRuleError) {
        var values: [String: String] = [:]
        var order: [String] = []
        let trimmed = text.hasPrefix("RRULE:") ? String(text.dropFirst(6)) : text
        for piece in trimmed.split(separator: ";", omittingEmptySubsequences: false) {
            guard let equals = piece.firstIndex(of: "=") else {
                throw RecurrenceRuleError("'\(piece)' is not NAME=VALUE")
            }
            let name = piece[..<equals].uppercased()
            let value = piece[piece.index(after: equals)...].uppercased()
            guard Self.parts.contains(name) else {
                throw RecurrenceRuleError("unknown part '\(piece[..<equals])'")
            }
            guard values[name] == nil else { throw RecurrenceRuleError("\(name) is given twice") }
            guard !value.isEmpty else { throw RecurrenceRuleError("\(name) has no value") }
            values[name] = value
            order.append(name)
        }
        guard let frequencyText = values["FREQ"] else { throw RecurrenceRuleError("FREQ is required") }
        guard let frequency = Frequency(rawValue: frequencyText) else {
            throw RecurrenceRuleError(
                "FREQ=\(frequencyText) is not one of SECONDLY, MINUTELY, HOURLY, DAILY, WEEKLY, MONTHLY, YEARLY")
        }
        if values["COUNT"] != nil && values["UNTIL"] != nil {
            throw RecurrenceRuleError("COUNT and UNTIL cannot both be given")
        }
        count = try values["COUNT"].map { text throws(RecurrenceRuleError) in
            try Self.number(text, part: "COUNT", range: 1...1_000_000)
        }
        if let interval = values["INTERVAL"] { _ = try Self.number(interval, part: "INTERVAL", range: 1...10_000) }
        let ranges: [(String, ClosedRange<Int>, Bool)] = [
            ("BYSECOND", 0...60, false), ("BYMINUTE", 0...59, false), ("BYHOUR", 0...23, false),
            ("BYMONTHDAY", 1...31, true), ("BYYEARDAY", 1...366, true), ("BYWEEKNO", 1...53, true),
            ("BYMONTH", 1...12, false), ("BYSETPOS", 1...366, true),
        ]
        for (part, range, signed) in ranges {
            guard let list = values[part] else { continue }
            for item in list.split(separator: ",", omittingEmptySubsequences: false) {
                var digits = Substring(item)
                if signed, let sign = digits.first, sign == "+" || sign == "-" { digits = digits.dropFirst() }
                _ = try Self.number(String(digits), part: part, range: range, shown: String(item))
            }
        }
        if let days = values["BYDAY"] {
            for item in days.split(separator: ",", omittingEmptySubsequences: false) {
                let day = String(item.suffix(2))
                guard item.count >= 2, Self.weekdays.contains(day) else {
                    throw RecurrenceRuleError("BYDAY: '\(item)' is not a weekday such as MO, -1FR or 2TU")
                }
                let ordinal = item.dropLast(2)
                guard !ordinal.isEmpty else { continue }
                var digits = ordinal
                if let sign = digits.first, sign == "+" || sign == "-" { digits = digits.dropFirst() }
                _ = try Self.number(String(digits), part: "BYDAY", range: 1...53, shown: String(item))
                guard frequency == .monthly || frequency == .yearly else {
                    throw RecurrenceRuleError("BYDAY: '\(item)' has a number, which only FREQ=MONTHLY or YEARLY allows")
                }
                if frequency == .yearly && values["BYWEEKNO"] != nil {
                    throw RecurrenceRuleError("BYDAY: '\(item)' has a number, which BYWEEKNO does not allow")
                }
            }
        }
        if let start = values["WKST"], !Self.weekdays.contains(start) {
            throw RecurrenceRuleError("WKST=\(start) is not a weekday (MO, TU, WE, TH, FR, SA, SU)")
        }
        if values["BYWEEKNO"] != nil && frequency != .yearly {
            throw RecurrenceRuleError("BYWEEKNO is allowed with FREQ=YEARLY only")
        }
        if values["BYYEARDAY"] != nil && [.daily, .weekly, .monthly].contains(frequency) {
            throw RecurrenceRuleError("BYYEARDAY is not allowed with FREQ=\(frequency.rawValue)")
        }
        if values["BYMONTHDAY"] != nil && frequency == .weekly {
            throw RecurrenceRuleError("BYMONTHDAY is not allowed with FREQ=WEEKLY")
        }
        if values["BYSETPOS"] != nil && !values.keys.contains(where: { $0.hasPrefix("BY") && $0 != "BYSETPOS" }) {
            throw RecurrenceRuleError("BYSETPOS needs another BYxxx part")
        }
        until = try values["UNTIL"].map { text throws(RecurrenceRuleError) in try Self.until(text) }
        self.text = text
        self.frequency = frequency
        expanded = order.filter { $0 != "UNTIL" }.map { "\($0)=\(values[$0]!)" }.joined(separator: ";")
        uncounted = order.filter { $0 != "UNTIL" && $0 != "COUNT" }.map { "\($0)=\(values[$0]!)" }.joined(
            separator: ";")
        stepped = SteppedRecurrence(values, frequency: frequency)
    }

    private static func number(
        _ text: String, part: String, range: ClosedRange<Int>, shown: String? = nil
    ) throws(RecurrenceRuleError) -> Int {
        guard !text.isEmpty, text.utf8.count <= 9, text.allSatisfy(\.isASCIIDigit), let value = Int(text),
            range.contains(value)
        else {
            throw RecurrenceRuleError(
                "\(part): '\(shown ?? text)' is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    private static func until(_ text: String) throws(RecurrenceRuleError) -> RecurrenceTime {
        guard let time = RecurrenceTime(rfc5545: text) else {
            throw RecurrenceRuleError(
                "UNTIL=\(text) is not a date (20261231) or a date and time (20261231T235959Z, or without Z in the zone)"
            )
        }
        return time
    }
}
