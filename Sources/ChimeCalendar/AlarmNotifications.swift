import ChimeCore
import ChimePlatform
import Foundation

/// Turns the events of a calendar into notifications, one per alarm (and per repetition of an alarm with `REPEAT`),
/// as the JSON lines a generator prints (chime.notification(5)).
///
/// Each keeps the event's recurrence as chime's own keys, so that chimed computes every instance, in the event's
/// zone and across restarts: `RRule=`, `RDate=`, `ExDate=`, `From=` (DTSTART), `TimeZone=`, and `Offset=` for the
/// alarm's distance from the start (or the end). An instance replaced by another event (`RECURRENCE-ID`) is taken out
/// of its series and has the alarms of the event that replaces it; a cancelled event, or instance, has none. The id
/// of each notification follows from the event's `UID`, the instance it replaces, and the alarm's place, so that a
/// rebuild replaces what the calendar still holds instead of adding it again.
public struct AlarmNotifications {
    public struct Options: Sendable {
        /// The alarm of events that have none (`-PT15M`: fifteen minutes before); `nil`: no notification for them.
        public var defaultAlarm: TriggerOffset?
        /// What a one-time alarm before this instant (µs) is left out as past.
        public var pastBefore: Int64
        /// `Persistent=yes` on each: an alarm missed while chimed was not running comes late, once.
        public var isPersistent = false

        public init(defaultAlarm: TriggerOffset? = nil, pastBefore: Int64 = .min, isPersistent: Bool = false) {
            self.defaultAlarm = defaultAlarm
            self.pastBefore = pastBefore
            self.isPersistent = isPersistent
        }
    }

    let options: Options

    public init(options: Options) {
        self.options = options
    }

    /// The most notifications one event (a series, or one replaced instance) gives: its alarms and their
    /// repetitions. A calendar's own events have a few; one invitation with thousands would otherwise crowd out
    /// every other alarm of the person.
    public static let maximumPerEvent = 32

    /// The notifications of `events` (those of one calendar, which names them in `Info=calendar=`); `warn` is told
    /// of each event whose alarms were cut to `maximumPerEvent`.
    public func lines(
        for events: [CalendarEvent], calendar: String, warn: (String) -> Void = { _ in }
    ) -> [JSONValue] {
        var byUID: [String: [CalendarEvent]] = [:]
        var order: [String] = []
        for event in events {
            if byUID[event.uid] == nil { order.append(event.uid) }
            byUID[event.uid, default: []].append(event)
        }
        var lines: [JSONValue] = []
        for uid in order {
            let group = byUID[uid] ?? []
            guard let master = group.first(where: { $0.replaces == nil }) ?? group.first, !master.isCancelled else {
                continue
            }
            let overrides = group.filter { $0.replaces != nil && $0 != master }
            var series = master
            series.exclusions += overrides.compactMap(\.replaces)
            lines += notifications(of: series, instance: nil, calendar: calendar, warn: warn)
            for replacement in overrides where !replacement.isCancelled {
                var single = replacement
                single.rules = []
                single.dates = []
                single.exclusions = []
                lines += notifications(of: single, instance: replacement.replaces, calendar: calendar, warn: warn)
            }
        }
        return lines
    }

    private func notifications(
        of event: CalendarEvent, instance: CalendarEvent.Time?, calendar: String, warn: (String) -> Void
    ) -> [JSONValue] {
        var alarms = event.alarms
        if alarms.isEmpty, let defaultAlarm = options.defaultAlarm {
            alarms = [CalendarEvent.Alarm(.relative(defaultAlarm, toEnd: false))]
        }
        var result: [JSONValue] = []
        let given = alarms.reduce(0) { $0 + 1 + max(0, $1.repeats) }
        if given > Self.maximumPerEvent {
            warn(
                "event \(event.uid) has \(given) alarms and repetitions; keeping the first \(Self.maximumPerEvent)")
        }
        for (index, alarm) in alarms.enumerated() where result.count < Self.maximumPerEvent {
            for repetition in 0...max(0, alarm.repeats) where result.count < Self.maximumPerEvent {
                let key = [event.uid, instance?.value.rfc5545 ?? "", String(index), String(repetition)]
                guard let line = notification(of: event, alarm: alarm, repetition: repetition, calendar: calendar)
                else { continue }
                result.append(.object([("Id", .string(Self.id(key)))] + line))
            }
        }
        return result
    }

    /// The keys of one alarm's notification (without `Id`), or `nil` when it is a one-time alarm already past.
    private func notification(
        of event: CalendarEvent, alarm: CalendarEvent.Alarm, repetition: Int, calendar: String
    ) -> [(String, JSONValue)]? {
        var members: [(String, JSONValue)] = [
            ("Title", .string(Self.oneLine(event.summary.isEmpty ? "(untitled event)" : event.summary, limit: 200)))
        ]
        let body = [event.location, event.description].map { Self.oneLine($0, limit: 500) }.filter { !$0.isEmpty }
        if !body.isEmpty { members.append(("Body", .string(body.joined(separator: " — ")))) }
        // An AUDIO alarm rings its attached file, or the sound theme's alarm clock.
        if alarm.isAudio { members.append(("Sound", .string(alarm.soundFile ?? "alarm-clock-elapsed"))) }
        members.append(("Info", .array([.string("calendar=\(calendar)"), .string("uid=\(event.uid)")])))
        let repeated = alarm.interval.map { $0.times(repetition) }
        switch alarm.when {
        case .absolute(let instant):
            let moved = instant + (repeated?.elapsedMicroseconds ?? 0)
            guard moved >= options.pastBefore else { return nil }
            members.append(("At", .string("@\(Self.seconds(moved))")))
        case .relative(var offset, let toEnd):
            if toEnd, let length = event.length { offset = length + offset }
            if let repeated { offset = offset + repeated }
            if event.rules.isEmpty && event.dates.isEmpty,
                Self.roughInstant(event.start) + offset.elapsedMicroseconds < options.pastBefore
            {
                return nil
            }
            members += trigger(of: event, offset: offset)
        }
        if options.isPersistent { members.append(("Persistent", .bool(true))) }
        return members
    }

    /// The `[Trigger]` keys of an event: its instances, moved by `offset`.
    private func trigger(of event: CalendarEvent, offset: TriggerOffset) -> [(String, JSONValue)] {
        var members: [(String, JSONValue)] = []
        let zone = event.start.zone
        if event.rules.isEmpty {
            members.append(
                ("RDate", .array(([event.start] + event.dates).map { .string(Self.text($0, eventZone: zone)) })))
        } else {
            members.append(("RRule", .array(event.rules.map(JSONValue.string))))
            if !event.dates.isEmpty {
                members.append(("RDate", .array(event.dates.map { .string(Self.text($0, eventZone: zone)) })))
            }
            members.append(("From", .string(Self.timestamp(event.start))))
        }
        if !event.exclusions.isEmpty {
            members.append(
                ("ExDate", .array(event.exclusions.map { .string(Self.text($0, eventZone: event.start.zone)) })))
        }
        if let zone = event.start.zone {
            members.append(("TimeZone", .string(zone)))
        } else if case .instant = event.start.value {
            members.append(("TimeZone", .string("UTC")))
        }
        if offset.days != 0 || offset.microseconds != 0 { members.append(("Offset", .string(Self.duration(offset)))) }
        return members
    }

    // MARK: Writing times and durations

    /// A time as `RDate=`/`ExDate=` take it. A wall time in a zone other than the event's is written as the instant
    /// it names, in UTC, which means the same in any zone.
    static func text(_ time: CalendarEvent.Time, eventZone: String? = nil) -> String {
        guard case .wallTime = time.value, let zone = time.zone, zone != eventZone,
            let rules = try? ZoneDatabase.system.rules(named: zone)
        else { return time.value.rfc5545 }
        return RecurrenceTime.instant(time.value.instant(in: rules)).rfc5545
    }

    /// DTSTART as `From=` takes it: the wall clock as written (`2026-12-24 18:00:00`), a date, or an instant in UTC.
    static func timestamp(_ time: CalendarEvent.Time) -> String {
        let text = time.value.rfc5545
        let date = "\(text.prefix(4))-\(text.dropFirst(4).prefix(2))-\(text.dropFirst(6).prefix(2))"
        guard text.count > 8 else { return date }
        let clock = "\(text.dropFirst(9).prefix(2)):\(text.dropFirst(11).prefix(2)):\(text.dropFirst(13).prefix(2))"
        if case .instant = time.value { return "\(date) \(clock) UTC" }
        return "\(date) \(clock)"
    }

    /// An RFC 5545 duration for `Offset=`; days are written as nominal days only when they go the same way as the
    /// rest (one sign for the whole), else the whole is exact.
    static func duration(_ offset: TriggerOffset) -> String {
        let seconds = offset.microseconds / 1_000_000
        let sameWay = (offset.days >= 0 && seconds >= 0) || (offset.days <= 0 && seconds <= 0)
        let days = sameWay ? offset.days : 0
        let rest = sameWay ? seconds : seconds + Int64(offset.days) * 86_400
        let negative = days < 0 || rest < 0
        var text = negative ? "-P" : "P"
        if days != 0 { text += "\(abs(days))D" }
        let (hours, minutes, remainder) = (abs(rest) / 3_600, abs(rest) % 3_600 / 60, abs(rest) % 60)
        if rest != 0 || days == 0 {
            text += "T"
            if hours != 0 { text += "\(hours)H" }
            if minutes != 0 { text += "\(minutes)M" }
            if remainder != 0 || rest == 0 { text += "\(remainder)S" }
        }
        return text
    }

    /// The instant of a time, roughly (a wall time read as UTC: within a day of the truth), to leave out what is
    /// long past.
    static func roughInstant(_ time: CalendarEvent.Time) -> Int64 {
        switch time.value {
        case .instant(let instant): instant
        case .wallTime(let wall): (wall - 86_400) * 1_000_000
        case .date(let day): (Int64(day) - 1) * 86_400 * 1_000_000
        }
    }

    static func seconds(_ microseconds: Int64) -> Int64 {
        microseconds >= 0 ? microseconds / 1_000_000 : (microseconds - 999_999) / 1_000_000
    }

    /// Text for one line: line breaks and tabs become spaces, runs of white space one, cut at `limit` characters.
    static func oneLine(_ text: String, limit: Int) -> String {
        let words = text.split(whereSeparator: { $0.isWhitespace })
        let joined = words.joined(separator: " ")
        return joined.count <= limit ? joined : String(joined.prefix(limit - 1)) + "…"
    }

    /// `cal-` and 16 hex digits of a 64-bit FNV-1a hash of the parts: stable across runs and machines.
    static func id(_ parts: [String]) -> String {
        var hash = StableHash()
        hash.combine(parts.joined(separator: "\u{0}"))
        let hex = String(hash.value, radix: 16)
        return "cal-" + String(repeating: "0", count: 16 - hex.count) + hex
    }
}
