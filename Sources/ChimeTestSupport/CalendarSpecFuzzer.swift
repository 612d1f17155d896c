/// Generates calendar event strings for fuzzing the calendar engine, reproducibly from a seed.
///
/// Most strings follow the grammar of systemd.time(7) closely enough to be worth parsing: weekday lists and
/// ranges in any case, dates with `*`, lists, ranges, repetitions and `~`, two-digit and out-of-range years,
/// times with fractional seconds, shorthands, `@EPOCH`, and zone suffixes (UTC, IANA names, local abbreviations,
/// names that do not exist). A share of them is then mutated: characters inserted, deleted, replaced or doubled,
/// spaces added, numbers replaced by out-of-range or huge ones, case changed, non-ASCII text spliced in, the string
/// cut short or joined to another.
public struct CalendarSpecFuzzer: Sendable {
    public var random: SeededRandomNumberGenerator

    public init(seed: UInt64) {
        random = SeededRandomNumberGenerator(seed: seed)
    }

    static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    static let longWeekdays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    static let shorthands = [
        "minutely", "hourly", "daily", "weekly", "monthly", "yearly", "annually", "anually", "quarterly",
        "semiannually", "semi-annually", "biannually", "bi-annually",
    ]
    static let zoneNames = [
        "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "Asia/Tokyo", "Pacific/Chatham",
        "Etc/GMT+5", "Etc/GMT-14", "CET", "EST", "GMT", "Zulu", "posix/Europe/Berlin", "right/UTC", "Europe/Dublin",
        "Africa/Casablanca", "Pacific/Apia", "Pacific/Kiritimati", "Europe/Nowhere", "europe/berlin",
        "Europe//Berlin", "/Europe/Berlin", "Europe/Berlin/", "Europe", "iso3166.tab", "Etc/../UTC",
    ]
    static let abbreviations = ["CET", "CEST", "cet", "Cest", "EST", "EDT", "edt", "+1030", "+11", "IST", "GMT"]
    static let foreignText = [
        "é", "ü", "\u{00A0}", "\u{2009}", "１", "٣", "…", "−", "–", "日", "😀", "\u{0301}", "ß", "İ", "ı", "\u{200B}",
        "\u{FEFF}", "K", "ſ", "\0", "\n", "\t",
    ]
    static let asciiText = Array("0123456789-:.,~/*@ +_abcdefghijklmnopqrstuvwxyzACEMNSTUWXZ!#$%&()=?[]{}|;'\"<>^`\\")
    static let hugeNumbers = [
        "99", "100", "255", "256", "1000", "65535", "2147483647", "2147483648", "4294967295", "4294967296",
        "9223372036854775807", "9223372036854775808", "18446744073709551616", "99999999999999999999999999",
    ]

    /// The next string: a grammar-aware spec, mutated with probability 0.4.
    public mutating func next() -> String {
        let spec = grammarAwareSpec()
        return random.chance(0.4) ? mutate(spec) : spec
    }

    /// A spec built from the grammar, with values mostly (not always) in range.
    public mutating func grammarAwareSpec() -> String {
        if random.chance(0.07) {
            return anyCase(random.pick(Self.shorthands)) + zoneSuffix()
        }
        var parts: [String] = []
        if random.chance(0.3) { parts.append(weekdayList()) }
        let hasDate = random.chance(0.75)
        if hasDate { parts.append(date()) }
        if random.chance(0.75) && !(parts.last?.hasPrefix("@") ?? false) || parts.isEmpty {
            parts.append(time())
        }
        let separator = random.chance(0.9) ? " " : random.pick(["  ", "   "])
        return parts.joined(separator: separator) + zoneSuffix()
    }

    private mutating func anyCase(_ word: String) -> String {
        switch random.below(10) {
        case 0..<4: return word.prefix(1).uppercased() + word.dropFirst()
        case 4..<6: return word
        case 6..<8: return word.uppercased()
        default: return String(word.map { random.chance(0.5) ? Character($0.uppercased()) : $0 })
        }
    }

    private mutating func weekdayName() -> String {
        let day = random.below(7)
        return anyCase(random.chance(0.25) ? Self.longWeekdays[day] : Self.weekdays[day])
    }

    private mutating func weekdayList() -> String {
        var items: [String] = []
        for _ in 0..<random.pick([1, 1, 1, 2, 2, 3, 4]) {
            if random.chance(0.5) {
                items.append(weekdayName())
            } else {
                items.append(weekdayName() + (random.chance(0.7) ? ".." : "-") + weekdayName())
            }
        }
        return items.joined(separator: ",") + (random.chance(0.05) ? "," : "")
    }

    private enum Field {
        case year, month, day, hour, minute, second

        var range: ClosedRange<Int> {
            switch self {
            case .year: 1970...2199
            case .month: 1...12
            case .day: 1...31
            case .hour: 0...23
            case .minute, .second: 0...59
            }
        }
    }

    private mutating func number(_ field: Field) -> String {
        var range = field.range
        if field == .year {
            range = random.pick([2024...2032, 2024...2032, 0...99, 1970...2199, 1960...2210])
        }
        let value: Int
        switch random.below(100) {
        case 0..<92: value = random.number(in: range)
        case 92..<96: value = max(0, random.pick([range.lowerBound - 1, range.upperBound + 1, 0]))
        case 96..<98: return random.pick(Self.hugeNumbers)
        default: value = random.below(100)
        }
        switch random.below(100) {
        case 0..<40 where field != .year: return value < 10 ? "0\(value)" : "\(value)"
        case 40..<45: return "0\(value)"
        case 45..<48: return "00\(value)"
        default: return "\(value)"
        }
    }

    private mutating func fraction() -> String {
        let digits = random.pick([1, 1, 2, 3, 6, 6, 7, 8, 9])
        return "." + String((0..<digits).map { _ in Character(String(random.below(10))) })
    }

    private mutating func value(_ field: Field) -> String {
        let text = number(field)
        return field == .second && random.chance(0.3) ? text + fraction() : text
    }

    private mutating func repetition(_ field: Field) -> String {
        if field == .second {
            let whole = "\(random.pick([1, 2, 3, 5, 7, 10, 15, 20, 30, 45, 59, 60, 61, 0]))"
            return random.chance(0.3) ? whole + fraction() : whole
        }
        return "\(random.pick([1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 13, 15, 20, 30, 1, 2, 3, 5, 0, 100, 230, 2147483647]))"
    }

    private mutating func range(_ field: Field) -> String {
        var first = value(field)
        var second = value(field)
        if let a = Double(first), let b = Double(second), a > b, random.chance(0.85) { swap(&first, &second) }
        return first + ".." + second
    }

    private mutating func component(_ field: Field) -> String {
        switch random.below(1000) {
        case 0..<600: return value(field)
        case 600..<750: return range(field)
        case 750..<860: return value(field) + "/" + repetition(field)
        case 860..<960: return range(field) + "/" + repetition(field)
        case 960..<970: return "*/" + repetition(field)
        case 970..<985: return range(field) + ".." + value(field)
        default: return value(field) + "/" + repetition(field) + "/" + repetition(field)
        }
    }

    private mutating func chain(_ field: Field) -> String {
        if random.chance(0.4) { return "*" }
        let count = random.chance(0.7) ? 1 : random.pick([2, 2, 2, 3, 5])
        return (0..<count).map { _ in component(field) }.joined(separator: ",")
    }

    private mutating func date() -> String {
        let daySeparator = random.chance(0.2) ? "~" : "-"
        switch random.below(100) {
        case 0..<55: return chain(.year) + "-" + chain(.month) + daySeparator + chain(.day)
        case 55..<85: return chain(.month) + daySeparator + chain(.day)
        case 85..<95:
            let seconds = random.pick([
                "0", "1", "86399", "1774728000", "1798761600", "7258118399", "7258118400", "253402300800",
                "\(random.number(in: 0...7_300_000_000))", "9223372036854775808", "18446744073709551616",
            ])
            return "@" + random.pick(["", "", "", "", " ", "+", "-", "0", "0x", "00"]) + seconds
        default: return chain(.year) + "-" + chain(.month)
        }
    }

    private mutating func time() -> String {
        let hourAndMinute = chain(.hour) + ":" + chain(.minute)
        return random.chance(0.7) ? hourAndMinute + ":" + chain(.second) : hourAndMinute
    }

    private mutating func zoneSuffix() -> String {
        switch random.below(100) {
        case 0..<55: return ""
        case 55..<70: return " " + random.pick(["UTC", "utc", "UTC", "Utc"])
        case 70..<85: return " " + random.pick(Self.abbreviations)
        default: return " " + random.pick(Self.zoneNames)
        }
    }

    /// `text` with one to three random edits.
    public mutating func mutate(_ text: String) -> String {
        var scalars = Array(text.unicodeScalars)
        for _ in 0..<random.pick([1, 1, 1, 2, 3]) {
            let position = random.below(scalars.count + 1)
            switch random.below(100) {
            case 0..<20:
                scalars.insert(contentsOf: randomText().unicodeScalars, at: position)
            case 20..<35 where !scalars.isEmpty:
                scalars.remove(at: random.below(scalars.count))
            case 35..<50 where !scalars.isEmpty:
                let index = random.below(scalars.count)
                scalars.replaceSubrange(index...index, with: randomText().unicodeScalars)
            case 50..<60 where !scalars.isEmpty:
                let index = random.below(scalars.count)
                scalars.insert(contentsOf: repeatElement(scalars[index], count: random.pick([1, 2])), at: index)
            case 60..<68:
                scalars.insert(" ", at: position)
            case 68..<78:
                replaceNumber(in: &scalars)
            case 78..<84:
                let text = String(String.UnicodeScalarView(scalars))
                scalars = Array((random.chance(0.5) ? text.uppercased() : text.lowercased()).unicodeScalars)
            case 84..<90:
                scalars.removeSubrange(position...)
            case 90..<95:
                let blank = random.pick([" ", "  ", "\t"]).unicodeScalars
                if random.chance(0.5) { scalars.insert(contentsOf: blank, at: 0) } else { scalars += blank }
            default:
                let other = Array(grammarAwareSpec().unicodeScalars)
                scalars = Array(scalars[..<position]) + other[random.below(other.count + 1)...]
            }
        }
        return String(String.UnicodeScalarView(scalars))
    }

    private mutating func randomText() -> String {
        random.chance(0.15) ? random.pick(Self.foreignText) : String(random.pick(Self.asciiText))
    }

    /// Replaces one run of digits by a boundary value or a huge number.
    private mutating func replaceNumber(in scalars: inout [Unicode.Scalar]) {
        var runs: [Range<Int>] = []
        var index = 0
        while index < scalars.count {
            guard scalars[index].properties.numericType == .decimal, scalars[index].isASCII else {
                index += 1
                continue
            }
            let start = index
            while index < scalars.count && scalars[index].isASCII && scalars[index].properties.numericType == .decimal {
                index += 1
            }
            runs.append(start..<index)
        }
        guard !runs.isEmpty else { return }
        let replacement = random.pick(
            ["0", "00", "60", "61", "24", "32", "13", "1969", "2200", "2199"] + Self.hugeNumbers
                + ["\(random.below(1_000_000_000_000))"])
        scalars.replaceSubrange(random.pick(runs), with: replacement.unicodeScalars)
    }
}
