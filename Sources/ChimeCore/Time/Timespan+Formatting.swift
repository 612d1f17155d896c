extension Timespan: CustomStringConvertible {
    /// The span as systemd's `format_timespan()` writes it with full accuracy, i.e. the "Human:" line of
    /// `systemd-analyze timespan`: `1h 30min`, `2d`, `500ms`, `1min 1.500000s`, `0`, `infinity`.
    ///
    /// Units go from years (365.25 days) and months (30.44 days) down to microseconds; once less than a minute
    /// is left, a remainder that is not whole in the current unit is written as a decimal fraction of it.
    public var description: String {
        if isInfinite { return "infinity" }
        if microseconds == 0 { return "0" }
        var rest = microseconds
        var parts: [String] = []
        for unit in Self.formattingUnits where rest >= unit.microseconds {
            let (whole, remainder) = rest.quotientAndRemainder(dividingBy: unit.microseconds)
            if rest < Self.minute && remainder > 0 && unit.fractionDigits > 0 {
                parts.append("\(whole).\(Self.zeroPadded(remainder, to: unit.fractionDigits))\(unit.suffix)")
                rest = 0
            } else {
                parts.append("\(whole)\(unit.suffix)")
                rest = remainder
            }
            if rest == 0 { break }
        }
        return parts.joined(separator: " ")
    }

    /// Units in the order `format_timespan()` tries them. `fractionDigits` is the width of a decimal fraction
    /// written in the unit (log10 of its microseconds); only units below a minute are ever written that way.
    private static let formattingUnits: [(suffix: String, microseconds: UInt64, fractionDigits: Int)] = [
        ("y", year, 0), ("month", month, 0), ("w", week, 0), ("d", day, 0), ("h", hour, 0), ("min", minute, 0),
        ("s", second, 6), ("ms", millisecond, 3), ("us", 1, 0),
    ]

    private static func zeroPadded(_ value: UInt64, to width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
