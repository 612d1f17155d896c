import ChimeCore
import Foundation

extension NotificationRequest {
    /// Where `--rrule` without `--from` starts (its `DTSTART`), at or after `now`.
    ///
    /// A rule takes the parts of the time of day it does not give from its start: started at the moment of adding,
    /// `FREQ=DAILY;BYHOUR=9` would fire at 09 and the minutes and seconds of that moment. So the parts finer than
    /// the finest one the rules give are zero, on the wall clock of `zone`: `BYHOUR` starts at the next full hour
    /// (09:00:00), `BYMINUTE` at the next full minute; a rule that gives no time of day starts at `now`, as
    /// `--every` does.
    static func ruleStart(for rules: [String], now: Date, zone: ZoneRules) -> Date {
        let given = Set(rules.flatMap(partNames))
        let unit: Int64
        if given.contains("BYSECOND") {
            return now
        } else if given.contains("BYMINUTE") {
            unit = 60
        } else if given.contains("BYHOUR") {
            unit = 3600
        } else {
            return now
        }
        let microseconds = now.epochMicroseconds
        let seconds = microseconds / 1_000_000 + (microseconds % 1_000_000 > 0 ? 1 : 0)
        let wall = seconds + Int64(zone.utcOffset(at: seconds))
        let rounded = (wall + unit - 1) / unit * unit
        let start = zone.instantReadingRFC5545(wallTime: rounded)
        return Date(epochMicroseconds: max(start, seconds) * 1_000_000)
    }

    /// The names of the parts of an RRULE value (`FREQ`, `BYHOUR`), upper-cased, without an `RRULE:` in front.
    private static func partNames(_ rule: String) -> [String] {
        var text = Substring(rule)
        if text.uppercased().hasPrefix("RRULE:") { text = text.dropFirst("RRULE:".count) }
        return text.split(separator: ";").map { $0.prefix { $0 != "=" }.uppercased() }
    }
}
