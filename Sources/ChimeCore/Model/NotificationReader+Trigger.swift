import Foundation

/// Reading `[Trigger]`: the zone, the instants and calendar events, the window, the timing.
extension NotificationReader {
    mutating func readTimeZone(into trigger: inout Trigger) -> ZoneRules {
        guard let entry = single(.timeZone) else { return loader.systemZone }
        guard loader.zones.isValidName(entry.value), let rules = try? loader.zones.rules(named: entry.value) else {
            error(
                valueLocation(of: entry),
                "Unknown time zone '\(entry.value)' in TimeZone=."
                    + Suggestion.didYouMean(entry.value, meant: loader.zones.suggestion(for: entry.value)))
            return loader.systemZone
        }
        trigger.timeZone = rules
        return rules
    }

    /// A timestamp in `zone`; relative forms ("now", "tomorrow", "+5min", "07:00") are refused, since a file is
    /// read again at every reload and they would move each time.
    mutating func timestamp(_ entry: NotificationAssignment, zone: ZoneRules) -> Date? {
        // Any "now" will do: a form that depends on it is refused whatever it gives.
        let anyNow = Date(timeIntervalSince1970: 1_000_000_000)
        do {
            let reading = try Timestamp.read(entry.value, now: anyNow, localZone: zone, zones: loader.zones)
            guard !reading.dependsOnNow else {
                error(
                    valueLocation(of: entry),
                    "\(entry.name)= must be an absolute time; '\(entry.value)' depends on when the file is read.")
                return nil
            }
            return reading.date
        } catch {
            self.error(valueLocation(of: entry), "Invalid \(entry.name)= '\(entry.value)': \(error).")
            return nil
        }
    }

    mutating func readInstants(into trigger: inout Trigger, zone: ZoneRules) {
        var instants: [Date] = []
        let entries = values(.at)
        instants.reserveCapacity(entries.count)
        for entry in entries {
            if let date = timestamp(entry, zone: zone) { instants.append(date) }
        }
        trigger.instants = instants
    }

    mutating func readCalendars(into trigger: inout Trigger, zone: ZoneRules) {
        // The cache is asked with the texts as they stand: an array of the assignments is made only to parse them.
        let texts = assignments.texts(.onCalendar)
        guard !texts.isEmpty else { return }
        let key = loader.calendarCache.map { _ in CalendarCache.Key(texts, zone: zone) }
        if let key, let shared = loader.calendarCache?.calendars(for: key) {
            trigger.calendars = shared
            return
        }
        let entries = values(.onCalendar)
        for entry in entries {
            do {
                trigger.calendars.append(try CalendarSpec(entry.value, localZone: zone, zones: loader.zones))
            } catch {
                var location = valueLocation(of: entry)
                if let column = location.column { location.column = column + error.column - 1 }
                self.error(location, "Invalid OnCalendar= '\(entry.value)': \(error.reason)".endingSentence)
            }
        }
        if let key, trigger.calendars.count == entries.count, let cache = loader.calendarCache {
            trigger.calendars = cache.keep(trigger.calendars, for: key)
        }
    }

    mutating func readWindow(into trigger: inout Trigger, zone: ZoneRules) {
        if let entry = single(.every) {
            do {
                let span = try Timespan.parse(entry.value)
                if span.microseconds == 0 || span.isInfinite {
                    error(
                        valueLocation(of: entry),
                        "Every= must be a finite interval greater than zero, not '\(entry.value)'."
                    )
                } else {
                    trigger.interval = span
                }
            } catch {
                self.error(valueLocation(of: entry), "Invalid Every= '\(entry.value)': \(error).")
            }
        }
        if let entry = single(.from) { trigger.from = timestamp(entry, zone: zone) }
        if let entry = single(.until) { trigger.until = timestamp(entry, zone: zone) }
        if let entry = single(.count) {
            if let count = Int(entry.value), count > 0 {
                let events = trigger.calendars.count
                let bound = InputLimits.maximumSteppedCount / max(1, events)
                if count > bound
                    && !(trigger.calendars.isEmpty && trigger.instants.isEmpty && trigger.recurrence == nil)
                {
                    let with = events > 1 ? "\(events) OnCalendar= events" : "OnCalendar=, At=, RRule= or RDate="
                    error(
                        valueLocation(of: entry),
                        "Count= may be at most \(InputLimits.grouped(bound)) with \(with), not "
                            + "\(InputLimits.grouped(count)): the occurrences are counted one by one. End a longer "
                            + "series with Until=.")
                } else {
                    trigger.count = count
                }
            } else {
                error(valueLocation(of: entry), "Count= must be a positive whole number, not '\(entry.value)'.")
            }
        }
        if let from = trigger.from, let until = trigger.until, until < from,
            let entry = single(.until)
        {
            error(location(of: entry), "Until= (\(entry.value)) is before From=; nothing could fire.")
        }
        warnOfInstantsOutsideTheWindow(trigger, zone: zone)
    }

    /// `At=` times before `From=` or after `Until=` never fire: a mistake (an `At=` meant as the first of an
    /// `Every=` series), said once for the file.
    mutating func warnOfInstantsOutsideTheWindow(_ trigger: Trigger, zone: ZoneRules) {
        guard trigger.from != nil || trigger.until != nil, let entry = values(.at).first,
            let earliest = trigger.instants.min(), let latest = trigger.instants.max()
        else { return }
        // In the file's zone, as its times were written.
        func local(_ date: Date) -> String { Timestamp.format(date, zone: zone) ?? Timestamp.iso8601(date) }
        if let from = trigger.from, earliest < from {
            warning(
                location(of: entry),
                "At= \(local(earliest)) is before From= \(local(from)): it never fires (From= starts the series; to "
                    + "fire first at At=, make it From=).")
        } else if let until = trigger.until, latest > until {
            warning(location(of: entry), "At= \(local(latest)) is after Until= \(local(until)): it never fires.")
        }
    }

    /// `RandomizedDelaySec=`, `FixedRandomDelay=`, `AccuracySec=`, `WakeSystem=`, as systemd.timer(5) has them.
    mutating func readTiming(into notification: inout ScheduledNotification) {
        var timing = DeliveryTiming()
        if let delay = delaySpan(.randomizedDelaySec) { timing.randomizedDelay = delay }
        if let accuracy = delaySpan(.accuracySec) { timing.accuracy = accuracy }
        if let entry = single(.fixedRandomDelay) {
            timing.isFixedRandomDelay = boolean(entry) ?? false
            if timing.isFixedRandomDelay && timing.randomizedDelay == .zero {
                warning(location(of: entry), "FixedRandomDelay=yes without RandomizedDelaySec= delays nothing.")
            }
        }
        if let entry = single(.wakeSystem), boolean(entry) == true {
            if let refusal = loader.wakeSystemRefusal {
                error(valueLocation(of: entry), "WakeSystem=yes cannot be honoured: \(refusal)")
            } else {
                timing.wakesSystem = true
            }
        }
        if !timing.isExact || timing.isFixedRandomDelay || timing.wakesSystem { notification.timing = timing }
    }

    /// `RandomizedDelaySec=` or `AccuracySec=`, when set and valid.
    mutating func delaySpan(_ key: NotificationKey) -> Duration? {
        guard let entry = single(key) else { return nil }
        guard let span = try? Timespan.parse(entry.value), span <= DeliveryTiming.longest else {
            error(
                valueLocation(of: entry),
                "Invalid \(key.rawValue)= '\(entry.value)': expected a time span of at most 49 days, such as '5min'.")
            return nil
        }
        return span.duration
    }
}
