import Foundation

extension NotificationReader {
    /// `RRule=`, `RDate=` and `ExDate=` of `[Trigger]` (each repeatable): RFC 5545 rules, checked part by part, and
    /// times, each an RFC 5545 date or date and time (several separated by commas, as in an `.ics` file) or one
    /// absolute timestamp; a time without a zone is wall-clock time in `zone`. And `Offset=` (`TriggerOffset`).
    mutating func readRecurrence(into trigger: inout Trigger, zone: ZoneRules) {
        let ruleEntries = values(.rrule)
        let dateEntries = values(.rdate)
        let exclusionEntries = values(.exdate)
        var offset: TriggerOffset?
        if let entry = single(.offset) {
            offset = TriggerOffset(parsing: entry.value)
            if offset == nil {
                error(
                    valueLocation(of: entry),
                    "Invalid Offset= '\(entry.value)': give an RFC 5545 duration ('-PT15M', '-P1D') or a time span "
                        + "with a sign for earlier ('-15min'), of at most a year.")
            }
        }
        guard !ruleEntries.isEmpty || !dateEntries.isEmpty || !exclusionEntries.isEmpty || offset != nil else { return }
        var rules: [RecurrenceRule] = []
        for entry in ruleEntries {
            do {
                let rule = try RecurrenceRule(entry.value)
                if let bound = loader.maximumRecurrenceCount, let count = rule.count, count > bound {
                    error(
                        valueLocation(of: entry),
                        "RRule= '\(entry.value)' has COUNT=\(InputLimits.grouped(count)); at most "
                            + "\(InputLimits.grouped(bound)) are taken here. End a longer series with UNTIL.")
                    continue
                }
                rules.append(rule)
            } catch {
                self.error(valueLocation(of: entry), "Invalid RRule= '\(entry.value)': \(error).")
            }
        }
        trigger.recurrence = RecurrenceSet(
            rules: rules, dates: recurrenceTimes(dateEntries, zone: zone),
            exclusions: recurrenceTimes(exclusionEntries, zone: zone), start: rules.isEmpty ? nil : start(zone: zone),
            offset: offset)
    }

    /// `From=` as the wall clock of `zone` reads it (seconds). Read as though the zone were UTC, a time without a
    /// zone of its own gives its wall clock as written, also where `zone`'s clock skips it; one that names a zone
    /// (or is `@SECONDS`) gives its instant either way, and its wall time is that instant's in `zone`.
    private func start(zone: ZoneRules) -> Int64? {
        guard let entry = single(.from) else { return nil }
        let anyNow = Date(timeIntervalSince1970: 1_000_000_000)
        guard let instant = try? Timestamp.read(entry.value, now: anyNow, localZone: zone, zones: loader.zones),
            let written = try? Timestamp.read(entry.value, now: anyNow, localZone: .utc, zones: loader.zones)
        else { return nil }
        let (seconds, _) = CivilTime.floorDivide64(instant.date.epochMicroseconds, 1_000_000)
        let (wall, _) = CivilTime.floorDivide64(written.date.epochMicroseconds, 1_000_000)
        return wall != seconds ? wall : seconds + Int64(zone.utcOffset(at: seconds))
    }

    private mutating func recurrenceTimes(_ entries: [NotificationAssignment], zone: ZoneRules) -> [RecurrenceTime] {
        var times: [RecurrenceTime] = []
        for entry in entries {
            let pieces = entry.value.split(separator: ",", omittingEmptySubsequences: false)
            let read = pieces.compactMap { RecurrenceTime(rfc5545: $0.trimmingCharacters(in: .whitespaces)) }
            if read.count == pieces.count {
                times += read
            } else if pieces.count == 1 {
                if let date = timestamp(entry, zone: zone) { times.append(.instant(date.epochMicroseconds)) }
            } else {
                error(
                    valueLocation(of: entry),
                    "Invalid \(entry.name)= '\(entry.value)': give RFC 5545 dates or times separated by commas "
                        + "(20261224T180000,20261231), or one timestamp ('2026-12-24 18:00').")
            }
        }
        return times
    }
}
