import CICal
import ChimeCore
import Foundation

/// Reads the events of an iCalendar text (RFC 5545) with libical's parser: what `CalendarEvent` holds, each time with
/// the IANA zone its `TZID` names.
///
/// A `TZID` is taken as an IANA name when it is one, or ends in one (`/freeassociation.sourceforge.net/Europe/Berlin`,
/// as Evolution writes them), or its `VTIMEZONE` says which one in `X-LIC-LOCATION` (as Google's exports do). An
/// event whose zone is none of these, or whose times cannot be read, is left out with a problem that says why.
public struct ICalendarReader {
    public struct Problem: Error, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Whether a name is a zone chime knows (`ZoneDatabase.isValidName`).
    let isZone: (String) -> Bool

    public init(isZone: @escaping (String) -> Bool) {
        self.isZone = isZone
    }

    /// The events of `text`, read from `path`, and the problems of those left out.
    public func events(in text: String, path: String) -> (events: [CalendarEvent], problems: [Problem]) {
        guard let root = text.withCString({ icalparser_parse_string($0) }) else {
            return ([], [Problem(description: "\(path): not an iCalendar file")])
        }
        defer { icalcomponent_free(root) }
        var calendars: [OpaquePointer] = []
        switch icalcomponent_isa(root) {
        case ICAL_VCALENDAR_COMPONENT, ICAL_VEVENT_COMPONENT: calendars = [root]
        default: calendars = children(of: root, ICAL_VCALENDAR_COMPONENT)
        }
        guard !calendars.isEmpty else { return ([], [Problem(description: "\(path): no VCALENDAR")]) }
        var events: [CalendarEvent] = []
        var problems: [Problem] = []
        for calendar in calendars {
            let zones = zoneLocations(in: calendar)
            let vevents =
                icalcomponent_isa(calendar) == ICAL_VEVENT_COMPONENT
                ? [calendar] : children(of: calendar, ICAL_VEVENT_COMPONENT)
            for vevent in vevents {
                do {
                    events.append(try event(vevent, zones: zones, path: path))
                } catch {
                    problems.append(error)
                }
            }
        }
        return (events, problems)
    }

    private func event(
        _ vevent: OpaquePointer, zones: [String: String], path: String
    ) throws(Problem) -> CalendarEvent {
        let uid = string(icalcomponent_get_uid(vevent))
        let name = uid.isEmpty ? "an event without UID" : "event \(uid)"
        func problem(_ text: String) -> Problem { Problem(description: "\(path): \(name): \(text)") }
        guard let startProperty = icalcomponent_get_first_property(vevent, ICAL_DTSTART_PROPERTY) else {
            throw problem("no DTSTART")
        }
        let start = try time(startProperty, zones: zones, problem: problem)
        var event = CalendarEvent(
            uid: uid, summary: string(icalcomponent_get_summary(vevent)), start: start)
        event.location = string(icalcomponent_get_location(vevent))
        event.description = string(icalcomponent_get_description(vevent))
        event.isCancelled = icalcomponent_get_status(vevent) == ICAL_STATUS_CANCELLED
        if let end = icalcomponent_get_first_property(vevent, ICAL_DTEND_PROPERTY) {
            event.length = length(from: start, to: try time(end, zones: zones, problem: problem))
        } else if let duration = icalcomponent_get_first_property(vevent, ICAL_DURATION_PROPERTY) {
            let text = value(duration)
            guard let length = TriggerOffset(parsing: text) else {
                throw problem("DURATION '\(text)' is not a duration")
            }
            event.length = length
        } else if case .date = start.value {
            // RFC 5545 §3.6.1: an event on a date without an end lasts the day.
            event.length = TriggerOffset(days: 1, microseconds: 0, description: "P1D")
        }
        for property in properties(of: vevent, ICAL_RRULE_PROPERTY) { event.rules.append(value(property)) }
        for property in properties(of: vevent, ICAL_RDATE_PROPERTY) {
            event.dates += try times(property, zones: zones, problem: problem)
        }
        for property in properties(of: vevent, ICAL_EXDATE_PROPERTY) {
            event.exclusions += try times(property, zones: zones, problem: problem)
        }
        if let replaced = icalcomponent_get_first_property(vevent, ICAL_RECURRENCEID_PROPERTY) {
            event.replaces = try time(replaced, zones: zones, problem: problem)
        }
        for valarm in children(of: vevent, ICAL_VALARM_COMPONENT) {
            if let alarm = try alarm(valarm, problem: problem) { event.alarms.append(alarm) }
        }
        return event
    }

    /// A `VALARM`, or `nil` for one that does not notify (`EMAIL`, `PROCEDURE`).
    private func alarm(_ valarm: OpaquePointer, problem: (String) -> Problem) throws(Problem) -> CalendarEvent.Alarm? {
        let action = icalcomponent_get_first_property(valarm, ICAL_ACTION_PROPERTY).map(value) ?? "DISPLAY"
        guard action == "DISPLAY" || action == "AUDIO" else { return nil }
        guard let trigger = icalcomponent_get_first_property(valarm, ICAL_TRIGGER_PROPERTY) else {
            throw problem("a VALARM without TRIGGER")
        }
        let text = value(trigger)
        var alarm: CalendarEvent.Alarm
        if let offset = TriggerOffset(parsing: text) {
            alarm = CalendarEvent.Alarm(.relative(offset, toEnd: parameter(trigger, "RELATED") == "END"))
        } else if case .instant(let instant) = RecurrenceTime(rfc5545: text) {
            alarm = CalendarEvent.Alarm(.absolute(instant))
        } else {
            throw problem("TRIGGER '\(text)' is neither a duration nor a UTC time")
        }
        alarm.isAudio = action == "AUDIO"
        if alarm.isAudio, let attach = icalcomponent_get_first_property(valarm, ICAL_ATTACH_PROPERTY),
            parameter(attach, "VALUE") != "BINARY", parameter(attach, "ENCODING") == nil
        {
            alarm.soundFile = Self.localFile(value(attach))
        }
        if let repeats = icalcomponent_get_first_property(valarm, ICAL_REPEAT_PROPERTY),
            let count = Int(value(repeats)), count > 0,
            let duration = icalcomponent_get_first_property(valarm, ICAL_DURATION_PROPERTY),
            let interval = TriggerOffset(parsing: value(duration))
        {
            alarm.repeats = min(count, 100)
            alarm.interval = interval
        }
        return alarm
    }

    /// A `DTSTART`-like property: its value and the zone of its `TZID`.
    private func time(
        _ property: OpaquePointer, zones: [String: String], problem: (String) -> Problem
    ) throws(Problem) -> CalendarEvent.Time {
        guard let time = try times(property, zones: zones, problem: problem).first else {
            throw problem("an empty \(propertyName(property))")
        }
        return time
    }

    /// The values of an `RDATE`-like property (a comma list; a period counts by its start).
    private func times(
        _ property: OpaquePointer, zones: [String: String], problem: (String) -> Problem
    ) throws(Problem) -> [CalendarEvent.Time] {
        var zone: String?
        if let tzid = parameter(property, "TZID") {
            guard let name = ianaName(tzid, zones: zones) else {
                throw problem("TZID '\(tzid)' names no time zone chime knows (nor does its VTIMEZONE)")
            }
            zone = name
        }
        let text = value(property)
        var result: [CalendarEvent.Time] = []
        for piece in text.split(separator: ",") {
            let start = piece.split(separator: "/").first ?? piece
            guard let value = RecurrenceTime(rfc5545: start) else {
                throw problem("\(propertyName(property)) '\(text)' is not an RFC 5545 date or time")
            }
            if case .wallTime = value {
                result.append(CalendarEvent.Time(value, zone: zone))
            } else {
                result.append(CalendarEvent.Time(value))
            }
        }
        return result
    }

    private func length(from start: CalendarEvent.Time, to end: CalendarEvent.Time) -> TriggerOffset? {
        switch (start.value, end.value) {
        case (.date(let first), .date(let last)):
            return TriggerOffset(days: last - first, microseconds: 0, description: "P\(last - first)D")
        case (.wallTime(let first), .wallTime(let last)) where start.zone == end.zone:
            return TriggerOffset(
                days: 0, microseconds: (last - first) * 1_000_000, description: "PT\(last - first)S")
        case (.instant(let first), .instant(let last)):
            return TriggerOffset(days: 0, microseconds: last - first, description: "PT\((last - first) / 1_000_000)S")
        default:
            return nil
        }
    }

    /// `tzid` as an IANA name: itself, its longest tail that is one, or its `VTIMEZONE`'s `X-LIC-LOCATION`.
    private func ianaName(_ tzid: String, zones: [String: String]) -> String? {
        let parts = tzid.split(separator: "/")
        for index in parts.indices {
            let tail = parts[index...].joined(separator: "/")
            if isZone(tail) { return tail }
        }
        if let location = zones[tzid], isZone(location) { return location }
        return nil
    }

    /// `TZID` → `X-LIC-LOCATION` of each `VTIMEZONE`.
    private func zoneLocations(in calendar: OpaquePointer) -> [String: String] {
        var result: [String: String] = [:]
        for zone in children(of: calendar, ICAL_VTIMEZONE_COMPONENT) {
            guard let tzid = icalcomponent_get_first_property(zone, ICAL_TZID_PROPERTY).map(value) else { continue }
            for property in properties(of: zone, ICAL_X_PROPERTY)
            where string(icalproperty_get_x_name(property)) == "X-LIC-LOCATION" {
                result[tzid] = value(property)
            }
        }
        return result
    }

    private func children(of component: OpaquePointer, _ kind: icalcomponent_kind) -> [OpaquePointer] {
        var result: [OpaquePointer] = []
        var child = icalcomponent_get_first_component(component, kind)
        while let current = child {
            result.append(current)
            child = icalcomponent_get_next_component(component, kind)
        }
        return result
    }

    private func properties(of component: OpaquePointer, _ kind: icalproperty_kind) -> [OpaquePointer] {
        var result: [OpaquePointer] = []
        var property = icalcomponent_get_first_property(component, kind)
        while let current = property {
            result.append(current)
            property = icalcomponent_get_next_property(component, kind)
        }
        return result
    }

    /// The path of a `file:` URI naming a local file (`file:///usr/share/sounds/bell.oga`, `file://localhost/…`);
    /// `nil` for any other: a sound on the web is not fetched, and the alarm plays the theme's.
    static func localFile(_ uri: String) -> String? {
        guard let url = URL(string: uri), url.scheme?.lowercased() == "file",
            url.host == nil || url.host == "" || url.host == "localhost"
        else { return nil }
        let path = url.path
        guard path.hasPrefix("/"), !path.utf8.contains(0), path.utf8.count <= 4096 else { return nil }
        return path
    }

    private func value(_ property: OpaquePointer) -> String {
        string(icalproperty_get_value_as_string(property))
    }

    private func parameter(_ property: OpaquePointer, _ name: String) -> String? {
        name.withCString { icalproperty_get_parameter_as_string(property, $0) }.map { String(cString: $0) }
    }

    private func propertyName(_ property: OpaquePointer) -> String {
        string(icalproperty_get_property_name(property))
    }

    private func string(_ pointer: UnsafePointer<CChar>?) -> String {
        pointer.map { String(cString: $0) } ?? ""
    }
}
