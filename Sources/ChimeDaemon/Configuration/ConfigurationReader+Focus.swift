import ChimeCore
import ChimePlatform

extension ConfigurationReader {
    /// `[Focus]` (the last value of each key wins) and every `[Quiet]` section, each a window per `OnCalendar=`.
    mutating func focus(_ unit: UnitFile, into settings: inout FocusSettings, systemZone: ZoneRules) {
        for section in unit.sections where section.name == "Focus" {
            for (key, level) in [
                ("Passive", \QuietPolicy.passive), ("Active", \QuietPolicy.active),
                ("TimeSensitive", \QuietPolicy.timeSensitive),
            ] {
                guard let entry = single(key, in: section) else { continue }
                guard let handling = QuietPolicy.Handling(rawValue: entry.value) else {
                    error(
                        entry.valueLocation,
                        "Invalid \(key)= '\(entry.value)': expected hold, journal, drop or pass; ignoring.")
                    continue
                }
                settings.policy[keyPath: level] = handling
            }
            if let entry = single("Release", in: section) {
                if let release = QuietPolicy.Release(rawValue: entry.value) {
                    settings.policy.release = release
                } else {
                    error(entry.valueLocation, "Invalid Release= '\(entry.value)': expected summary or each; ignoring.")
                }
            }
            if let entry = single("FollowDesktop", in: section), let value = boolean(entry) {
                settings.followsDesktop = value
            }
        }
        for section in unit.sections where section.name == "Quiet" {
            settings.hours.windows += quietWindows(section, systemZone: systemZone)
        }
    }

    /// The windows of one `[Quiet]` section; none (and an error) when it lacks what a window needs.
    private mutating func quietWindows(_ section: UnitFileSection, systemZone: ZoneRules) -> [QuietHours.Window] {
        var zone: ZoneRules?
        if let entry = single("TimeZone", in: section) {
            let zones = ZoneDatabase.system
            guard zones.isValidName(entry.value), let rules = try? zones.rules(named: entry.value) else {
                error(
                    entry.valueLocation,
                    "Unknown time zone '\(entry.value)' in TimeZone=; ignoring this [Quiet]."
                        + Suggestion.didYouMean(entry.value, meant: zones.suggestion(for: entry.value)))
                return []
            }
            zone = rules
        }
        guard let lengthEntry = single("LengthSec", in: section) else {
            error(section.location, "[Quiet] needs LengthSec=, how long each window lasts; ignoring this [Quiet].")
            return []
        }
        guard let span = try? Timespan.parse(lengthEntry.value), span.microseconds > 0,
            span.microseconds < UInt64(Int64.max / 4)
        else {
            error(
                lengthEntry.valueLocation,
                "Invalid LengthSec= '\(lengthEntry.value)': expected a time span above zero such as 8h or 30min; "
                    + "ignoring this [Quiet].")
            return []
        }
        var windows: [QuietHours.Window] = []
        for entry in section.entries where entry.key == "OnCalendar" {
            if entry.value.isEmpty {
                windows = []
                continue
            }
            do {
                let calendar = try CalendarSpec(entry.value, localZone: zone ?? systemZone, zones: .system)
                windows.append(
                    QuietHours.Window(
                        calendar: calendar, length: Int64(span.microseconds), zone: zone, text: entry.value))
            } catch {
                var location = entry.valueLocation
                if let column = location.column { location.column = column + error.column - 1 }
                self.error(
                    location, "Invalid OnCalendar= '\(entry.value)': \(error.reason)".endingSentence + " Ignoring it.")
            }
        }
        if windows.isEmpty && !section.entries.contains(where: { $0.key == "OnCalendar" }) {
            error(section.location, "[Quiet] needs OnCalendar=, when each window begins; ignoring this [Quiet].")
        }
        return windows
    }
}
