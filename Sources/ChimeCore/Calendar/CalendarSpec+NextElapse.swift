import Foundation

extension CalendarSpec {
    /// The first instant strictly after `instant` at which the event elapses, or `nil` if it never will again.
    ///
    /// Wall-clock fields are read in the spec's zone: UTC, the zone it names, or `localZone`. The search walks the
    /// fields from year down to second as systemd does, so DST behaves as with systemd: a wall time that does not
    /// exist is skipped, a wall time that occurs twice elapses once. Where systemd's search would not terminate
    /// ("Infinite loop in calendar calculation"), the answer is still computed. Precision is one microsecond.
    public func nextElapse(after instant: Date, localZone: ZoneRules) -> Date? {
        nextElapse(afterMicroseconds: instant.epochMicroseconds, localZone: localZone).map(
            Date.init(epochMicroseconds:))
    }

    /// `nextElapse(after:localZone:)` on microseconds since the epoch.
    public func nextElapse(afterMicroseconds instant: Int64, localZone: ZoneRules) -> Int64? {
        var search = ElapseSearch(spec: self, localZone: localZone)
        return search.nextElapse(after: instant)
    }

    /// The successive elapses after `instant` (microseconds since the epoch), each the `nextElapse` after the one
    /// before; the search is set up once for all of them.
    public func elapses(afterMicroseconds instant: Int64, localZone: ZoneRules) -> Elapses {
        Elapses(search: ElapseSearch(spec: self, localZone: localZone), after: instant)
    }

    /// Successive elapses in microseconds since the epoch, ending where the event never elapses again.
    public struct Elapses: Sequence, IteratorProtocol, Sendable {
        var search: ElapseSearch
        var after: Int64?

        public mutating func next() -> Int64? {
            guard let instant = after else { return nil }
            after = search.nextElapse(after: instant)
            return after
        }
    }
}

/// One run of the field-by-field search for the next elapse.
///
/// All wall-clock normalisation goes through `ZoneRules.makeTime`, which carries glibc's remembered offset in
/// `offsetHint`, so that every conversion resolves DST exactly as systemd's `mktime` calls do.
struct ElapseSearch {
    enum Outcome {
        case found(Int64)
        case never
        /// The iteration budget ran out: the systemd algorithm would loop forever on this input.
        case exhausted
    }

    let spec: CalendarSpec
    let zone: ZoneRules
    /// The zone's only UTC offset, if it never changes, and its DST flag (as `tm_isdst`).
    let fixedOffset: Int?
    let fixedIsDST: Int
    let requestedDST: Int
    var offsetHint = 0

    /// systemd gives up after this many rounds; so does the faithful run.
    static let iterationLimit = 1_000

    init(spec: CalendarSpec, zone: ZoneRules, requestedDST: Int) {
        self.spec = spec
        self.zone = zone
        self.fixedOffset = zone.isFixedOffset ? zone.utcOffset(at: 0) : nil
        self.fixedIsDST = zone.types[zone.typeIndex(at: 0)].isDST ? 1 : 0
        self.requestedDST = requestedDST
    }

    /// The search for `spec`'s elapses, its wall-clock fields read in UTC, the zone it names, or `localZone`.
    init(spec: CalendarSpec, localZone: ZoneRules) {
        switch spec.zone {
        case .utc: self.init(spec: spec, zone: .utc, requestedDST: -1)
        case .named: self.init(spec: spec, zone: spec.namedZoneRules ?? .utc, requestedDST: -1)
        case .local(let isDST, _): self.init(spec: spec, zone: localZone, requestedDST: isDST)
        }
    }

    /// The first elapse strictly after `instant` (microseconds since the epoch), as
    /// `CalendarSpec.nextElapse(afterMicroseconds:localZone:)` answers. Each call starts without a remembered offset.
    mutating func nextElapse(after instant: Int64) -> Int64? {
        // systemd refuses instants it could not print (after 9999-12-31).
        guard instant < 253_402_300_800_000_000 else { return nil }
        let start = instant + 1
        let (seconds, microsecond) = CivilTime.floorDivide64(start, 1_000_000)
        let from = zone.localFields(at: seconds).fields
        offsetHint = 0
        switch run(from: from, microsecond: Int(microsecond), repairingStaleFlavour: false) {
        case .found(let next) where next > instant: return next
        case .never: return nil
        case .found, .exhausted:
            // systemd would give up ("Infinite loop in calendar calculation") or answer with a time that is not
            // after the base; search again without the DST flag that leads it astray.
            offsetHint = 0
            let repaired = run(from: from, microsecond: Int(microsecond), repairingStaleFlavour: true)
            if case .found(let next) = repaired, next > instant { return next }
            return nil
        }
    }

    @inline(__always)
    private mutating func normalize(_ time: inout LocalDateTime.Fields) -> Int64 {
        // What `ZoneRules.makeTime` does in a zone with one offset for fields in range, without its general setup.
        if let fixedOffset, time.isInRange {
            let local = time.localSeconds
            time.weekday = CivilTime.weekday(days: Int(CivilTime.floorDivide64(local, 86_400).quotient))
            time.isDST = fixedIsDST
            time.utcOffset = fixedOffset
            offsetHint = fixedOffset
            return local - Int64(fixedOffset)
        }
        return zone.makeTime(&time, offsetHint: &offsetHint).instant
    }

    /// Searches from wall time `time` (plus `microsecond`). With `repairingStaleFlavour`, the DST flag a
    /// normalisation left behind is dropped before the next round; systemd keeps it, which makes midnight after a
    /// spring-forward read as the previous day's 23:00 and the search circle forever.
    mutating func run(from time: LocalDateTime.Fields, microsecond: Int, repairingStaleFlavour: Bool) -> Outcome {
        var c = time
        var usec = microsecond
        // Once the search is stuck on a repeated wall time, the DST flag normalisation yields is kept, so that the
        // next round lands on the other side of the transition.
        var keepFlavour = false
        let limit = repairingStaleFlavour ? Self.iterationLimit * 10 : Self.iterationLimit
        for round in 0..<limit {
            if repairingStaleFlavour && round > 0 && !keepFlavour { c.isDST = requestedDST }
            _ = normalize(&c)
            if !keepFlavour { c.isDST = requestedDST }

            var value = c.year
            var r = match(spec.year, &value, in: c)
            c.year = value
            if r > 0 { resetBelowYear(&c, &usec) }
            if r < 0 || withinBounds(&c) <= 0 { return .never }

            value = c.month
            r = match(spec.month, &value, in: c)
            c.month = value
            if r > 0 { resetBelowMonth(&c, &usec) }
            if r >= 0 { r = withinBounds(&c) }
            if r < 0 {
                c.year += 1
                resetBelowYear(&c, &usec)
                continue
            }
            if r == 0 { continue }

            value = c.day
            r = match(spec.day, &value, in: c, endOfMonth: spec.endOfMonth)
            c.day = value
            if r > 0 { resetBelowDay(&c, &usec) }
            if r >= 0 { r = withinBounds(&c) }
            if r < 0 {
                c.month += 1
                resetBelowMonth(&c, &usec)
                continue
            }
            if r == 0 { continue }

            if !matchesWeekday(c) {
                c.day += 1
                resetBelowDay(&c, &usec)
                continue
            }

            value = c.hour
            r = match(spec.hour, &value, in: c)
            c.hour = value
            if r > 0 { resetBelowHour(&c, &usec) }
            if r >= 0 { r = withinBounds(&c) }
            if r < 0 {
                c.day += 1
                resetBelowDay(&c, &usec)
                continue
            }
            // The hour just set may not exist on this day (DST); start again from the normalised time.
            if r == 0 { continue }

            value = c.minute
            r = match(spec.minute, &value, in: c)
            c.minute = value
            if r > 0 {
                c.second = 0
                usec = 0
            }
            if r >= 0 { r = withinBounds(&c) }
            if r < 0 {
                c.hour += 1
                resetBelowHour(&c, &usec)
                continue
            }
            if r == 0 { continue }

            value = c.second * CalendarSpec.microsecondsPerSecond + usec
            r = match(spec.microsecond, &value, in: c)
            usec = value % CalendarSpec.microsecondsPerSecond
            c.second = value / CalendarSpec.microsecondsPerSecond
            if r >= 0 { r = withinBounds(&c) }
            if r < 0 {
                c.minute += 1
                c.second = 0
                usec = 0
                continue
            }
            if r == 0 { continue }

            // Not past the starting point (a repeated wall time read on the wrong side): move on by an hour.
            if !Self.precedes(
                (time.year, time.month, time.day, time.hour), (time.minute, time.second, microsecond),
                (c.year, c.month, c.day, c.hour), (c.minute, c.second, usec + 1))
            {
                keepFlavour = true
                c.hour += 1
                continue
            }
            let seconds = normalize(&c)
            return .found(seconds * 1_000_000 + Int64(usec))
        }
        return .exhausted
    }

    /// Whether the fields `a` (date and hour, then minute, second and microsecond) come strictly before `b`.
    @inline(__always)
    private static func precedes(
        _ aDate: (Int, Int, Int, Int), _ aTime: (Int, Int, Int), _ bDate: (Int, Int, Int, Int), _ bTime: (Int, Int, Int)
    ) -> Bool {
        aDate < bDate || (aDate == bDate && aTime < bTime)
    }

    private func resetBelowYear(_ c: inout LocalDateTime.Fields, _ usec: inout Int) {
        c.month = 1
        resetBelowMonth(&c, &usec)
    }

    private func resetBelowMonth(_ c: inout LocalDateTime.Fields, _ usec: inout Int) {
        c.day = 1
        resetBelowDay(&c, &usec)
    }

    private func resetBelowDay(_ c: inout LocalDateTime.Fields, _ usec: inout Int) {
        c.hour = 0
        resetBelowHour(&c, &usec)
    }

    private func resetBelowHour(_ c: inout LocalDateTime.Fields, _ usec: inout Int) {
        c.minute = 0
        c.second = 0
        usec = 0
    }

    /// 1 if `time` survives normalisation unchanged; 0 if normalisation moved it forward (then `time` takes the
    /// normalised value, the unit below the first changed one reset); -1 if it moved backward or left the range
    /// of years systemd computes.
    @inline(__always)
    private mutating func withinBounds(_ time: inout LocalDateTime.Fields) -> Int {
        if time.year > CalendarSpec.maximumYear { return -1 }
        // Fields in range, far from any transition, read with the remembered offset: normalising would change
        // nothing (and leave the remembered offset as it is).
        if time.isInRange {
            if let fixedOffset {
                offsetHint = fixedOffset
                return 1
            }
            if zone.uniqueInstant(forLocal: time.localSeconds, offset: offsetHint, isDST: time.isDST) != nil {
                return 1
            }
        }
        return withinBoundsNormalizing(&time)
    }

    /// `withinBounds` where normalising may change something.
    @inline(never)
    private mutating func withinBoundsNormalizing(_ time: inout LocalDateTime.Fields) -> Int {
        var t = time
        _ = normalize(&t)
        var order: Int
        if t.year != time.year {
            order = t.year < time.year ? -1 : 1
            t.month = 1
        } else if t.month != time.month {
            order = t.month < time.month ? -1 : 1
            t.day = 1
        } else if t.day != time.day {
            order = t.day < time.day ? -1 : 1
            t.hour = 0
        } else if t.hour != time.hour {
            order = t.hour < time.hour ? -1 : 1
            t.minute = 0
        } else if t.minute != time.minute {
            order = t.minute < time.minute ? -1 : 1
            t.second = 0
        } else {
            order = t.second == time.second ? 0 : (t.second < time.second ? -1 : 1)
        }
        if order < 0 { return -1 }
        if order > 0 {
            time = t
            return 0
        }
        return 1
    }

    private mutating func matchesWeekday(_ time: LocalDateTime.Fields) -> Bool {
        guard spec.weekdays != CalendarSpec.allWeekdays else { return true }
        var t = time
        _ = normalize(&t)
        let mondayBased = t.weekday == 0 ? 6 : t.weekday - 1
        return spec.weekdays & (1 << mondayBased) != 0
    }

    /// The day of month that is `fromEnd` days counted back from the end of `time`'s month (1 = last day),
    /// or -1 if that is not in the month.
    private mutating func dayFromEndOfMonth(_ time: LocalDateTime.Fields, _ fromEnd: Int) -> Int {
        var t = time
        t.month += 1
        t.day = 1 - fromEnd
        // Where normalising would only carry the fields over (as in `ZoneRules.makeTime`), the day is plain
        // calendar arithmetic; the remembered offset is updated as normalising would. (Within a month of the end,
        // the normalised date cannot land in another year's month of the same number.)
        if fromEnd >= -1 && fromEnd <= 31 && time.month >= 1 && time.month <= 12 && time.hour >= 0 && time.hour < 24
            && time.minute >= 0
            && time.minute < 60 && time.second >= 0 && time.second < 60
        {
            let length = CivilTime.daysInMonth(year: time.year, month: time.month)
            let day = length + 1 - fromEnd
            let result = day >= 1 && day <= length ? day : -1
            if let fixedOffset {
                offsetHint = fixedOffset
                return result
            }
            if zone.uniqueInstant(forLocal: t.localSeconds, offset: offsetHint, isDST: t.isDST) != nil {
                return result
            }
        }
        _ = normalize(&t)
        return t.month == time.month ? t.day : -1
    }

    /// Sets `value` to the earliest value ≥ `value` that one of `components` allows. Returns 1 if `value`
    /// changed, 0 if it already matched (or any value is allowed), -1 if nothing matches.
    private mutating func match(
        _ components: [CalendarSpec.Component]?, _ value: inout Int, in time: LocalDateTime.Fields,
        endOfMonth: Bool = false
    ) -> Int {
        guard let components else { return 0 }
        var best = Int.max
        for component in components {
            var start = component.start
            var stop = component.stop
            if endOfMonth {
                start = dayFromEndOfMonth(time, component.start)
                stop = dayFromEndOfMonth(time, component.stop)
                if stop > 0 { swap(&start, &stop) }
            }
            if start >= value {
                best = min(best, start)
            } else if component.repeat > 0 {
                let steps = (value - start + component.repeat - 1) / component.repeat
                let candidate = start + component.repeat * steps
                if candidate < best && (stop < 0 || candidate <= stop) { best = candidate }
            }
        }
        guard best != Int.max else { return -1 }
        defer { value = best }
        return value != best ? 1 : 0
    }
}
