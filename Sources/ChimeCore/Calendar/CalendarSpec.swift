/// A calendar event in systemd.time(7) syntax, such as `Mon..Fri *-*-* 09:55:00` or `*-02~03 Europe/Berlin`.
///
/// Parsing, the normalised form (`description`) and the next elapse follow systemd's calendar engine exactly,
/// including its time zone and DST behaviour; see `CalendarSpec+Parsing.swift` and `CalendarSpec+NextElapse.swift`.
public struct CalendarSpec: Sendable, Hashable, CustomStringConvertible {
    /// One element of a component list: `start`, `start..stop`, `start/repeat` or `start..stop/repeat`.
    ///
    /// For the seconds list the values are microseconds.
    public struct Component: Sendable, Hashable, Comparable {
        public var start: Int
        /// -1 when there is no upper bound.
        public var stop: Int
        /// 0 when the value does not repeat.
        public var `repeat`: Int

        public init(start: Int, stop: Int = -1, repeat: Int = 0) {
            self.start = start
            self.stop = stop
            self.repeat = `repeat`
        }

        public static func < (a: Component, b: Component) -> Bool {
            (a.start, a.stop, a.repeat) < (b.start, b.stop, b.repeat)
        }
    }

    /// Which clock the wall-clock fields are read in.
    public enum Zone: Sendable, Hashable {
        /// The local zone given at computation time; `isDST` is -1 unless the spec named the local standard (0) or
        /// daylight (1) abbreviation, whose text is kept for printing.
        case local(isDST: Int, abbreviation: String?)
        case utc
        /// An IANA zone named in the spec.
        case named(String)
    }

    /// Bit 0 = Monday ... bit 6 = Sunday; `allWeekdays` when the spec does not restrict weekdays.
    public internal(set) var weekdays: UInt8 = CalendarSpec.allWeekdays
    /// `nil` stands for `*` (any value).
    public internal(set) var year: [Component]?
    public internal(set) var month: [Component]?
    public internal(set) var day: [Component]?
    public internal(set) var hour: [Component]?
    public internal(set) var minute: [Component]?
    /// Seconds in microseconds; `nil` stands for `*`.
    public internal(set) var microsecond: [Component]?
    /// Days count back from the end of the month (`~`).
    public internal(set) var endOfMonth = false
    public internal(set) var zone: Zone = .local(isDST: -1, abbreviation: nil)
    /// The rules of a zone named in the spec, loaded when it was parsed.
    let namedZoneRules: ZoneRules?

    static let allWeekdays: UInt8 = 0x7F
    static let microsecondsPerSecond = 1_000_000
    static let minimumYear = 1970
    static let maximumYear = 2199

    init(namedZoneRules: ZoneRules?) {
        self.namedZoneRules = namedZoneRules
    }

    public static func == (a: CalendarSpec, b: CalendarSpec) -> Bool {
        a.weekdays == b.weekdays && a.year == b.year && a.month == b.month && a.day == b.day && a.hour == b.hour
            && a.minute == b.minute && a.microsecond == b.microsecond && a.endOfMonth == b.endOfMonth
            && a.zone == b.zone
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(weekdays)
        hasher.combine(year)
        hasher.combine(month)
        hasher.combine(day)
        hasher.combine(hour)
        hasher.combine(minute)
        hasher.combine(microsecond)
        hasher.combine(endOfMonth)
        hasher.combine(zone)
    }

    /// The normalised form, character for character as `systemd-analyze calendar` prints it.
    public var description: String {
        var text = ""
        if weekdays != Self.allWeekdays {
            text += Self.format(weekdays: weekdays)
            text += " "
        }
        Self.format(year, width: 4, into: &text)
        text += "-"
        Self.format(month, width: 2, into: &text)
        text += endOfMonth ? "~" : "-"
        Self.format(day, width: 2, into: &text)
        text += " "
        Self.format(hour, width: 2, into: &text)
        text += ":"
        Self.format(minute, width: 2, into: &text)
        text += ":"
        Self.formatSeconds(microsecond, into: &text)
        switch zone {
        case .utc: text += " UTC"
        case .named(let name): text += " " + name
        case .local(_, let abbreviation?): text += " " + abbreviation
        case .local(_, nil): break
        }
        return text
    }

    private static let weekdayNames = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]

    /// Runs of three or more days print as `Mon..Wed`, pairs as `Sat,Sun`.
    static func format(weekdays: UInt8) -> String {
        var parts: [String] = []
        var day = 0
        while day < 7 {
            guard weekdays & (1 << day) != 0 else {
                day += 1
                continue
            }
            var last = day
            while last + 1 < 7 && weekdays & (1 << (last + 1)) != 0 { last += 1 }
            switch last - day {
            case 0: parts.append(weekdayNames[day])
            case 1: parts.append(weekdayNames[day] + "," + weekdayNames[last])
            default: parts.append(weekdayNames[day] + ".." + weekdayNames[last])
            }
            day = last + 1
        }
        return parts.joined(separator: ",")
    }

    private static func padded(_ value: Int, width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    static func format(_ components: [Component]?, width: Int, into text: inout String) {
        guard let components else {
            text += "*"
            return
        }
        for index in components.indices {
            let component = components[index]
            if index > 0 { text += "," }
            text += padded(component.start, width: width)
            if component.stop > 0 { text += ".." + padded(component.stop, width: width) }
            if component.repeat > 0 && !(component.stop > 0 && component.repeat == 1) {
                text += "/" + String(component.repeat)
            }
        }
    }

    /// Seconds print with six fractional digits where the microseconds are not whole seconds.
    static func formatSeconds(_ components: [Component]?, into text: inout String) {
        let unit = microsecondsPerSecond
        // Any element stepping through every whole second from 0 covers them all.
        guard let components, !components.contains(Component(start: 0, repeat: unit)) else {
            text += "*"
            return
        }
        func fraction(_ value: Int) -> String {
            value % unit > 0 ? "." + padded(value % unit, width: 6) : ""
        }
        for index in components.indices {
            let component = components[index]
            if index > 0 { text += "," }
            text += padded(component.start / unit, width: 2) + fraction(component.start)
            if component.stop > 0 {
                text += ".." + padded(component.stop / unit, width: 2) + fraction(component.stop)
            }
            let step = component.repeat
            if step > 0 && !(component.stop > 0 && step == unit) {
                text += "/" + String(step / unit) + fraction(step)
            }
        }
    }
}
