import Foundation

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
    let requestedDST: Int
    /// Whether the spec is read in the local zone, which systemd's process converts in repeatedly (and so
    /// remembers offsets across elapses), rather than in UTC or a named zone.
    let iteratesLocally: Bool
    /// The zone's only UTC offset and DST flag, if it has one offset and no leap seconds.
    let plainFixedOffset: Int?
    let plainFixedIsDST: Int
    var offsetHint = 0

    /// systemd gives up after this many rounds; so does the faithful run.
    static let iterationLimit = 1_000

    init(spec: CalendarSpec, zone: ZoneRules, requestedDST: Int, iteratesLocally: Bool = false) {
        self.spec = spec
        self.zone = zone
        self.requestedDST = requestedDST
        self.iteratesLocally = iteratesLocally
        let plain = zone.isFixedOffset && zone.leapSeconds.isEmpty
        plainFixedOffset = plain ? zone.utcOffset(at: 0) : nil
        plainFixedIsDST = zone.types[zone.typeIndex(at: 0)].isDST ? 1 : 0
    }

    /// The search for `spec`'s elapses, its wall-clock fields read in UTC, the zone it names, or `localZone`.
    init(spec: CalendarSpec, localZone: ZoneRules) {
        switch spec.zone {
        case .utc:
            // systemd converts with gmtime/timegm in a process whose zone is the one the spec names (an `@EPOCH`
            // spec may name one) or the local one; they count that zone's leap seconds.
            self.init(spec: spec, zone: (spec.namedZoneRules ?? localZone).universalTime, requestedDST: -1)
        case .named:
            self.init(spec: spec, zone: spec.namedZoneRules ?? .utc, requestedDST: -1)
        case .local(let isDST, _):
            self.init(spec: spec, zone: localZone, requestedDST: isDST, iteratesLocally: true)
        }
    }

    /// The first elapse strictly after `instant` (microseconds since the epoch), as
    /// `CalendarSpec.nextElapse(afterMicroseconds:localZone:)` answers.
    mutating func nextElapse(after instant: Int64) -> Int64? {
        // systemd refuses instants it could not print (after 9999-12-31).
        guard instant < 253_402_300_800_000_000 else { return nil }
        let start = instant + 1
        let (seconds, microsecond) = CivilTime.floorDivide64(start, 1_000_000)
        let from = zone.localFields(at: seconds).fields
        // Where a wall time occurs twice with the same DST flag (Moscow's 01:00..02:00 on 2014-10-26), mktime picks
        // the occurrence nearer the offset its previous conversion left. When systemd iterates, that is the offset
        // of the previous elapse, which is the base, so it stays in the base's occurrence; asked afresh, it has
        // converted nothing yet. (A named zone is computed in a forked child, which never has.)
        // (With one offset and no leap seconds no conversion depends on the remembered offset, so there is nothing
        // to find out.)
        let (baseSeconds, baseMicrosecond) = CivilTime.floorDivide64(instant, 1_000_000)
        if iteratesLocally && plainFixedOffset == nil
            && isElapse(zone.localFields(at: baseSeconds).fields, microsecond: Int(baseMicrosecond))
        {
            offsetHint = Int(from.localSeconds - seconds)
        } else {
            offsetHint = 0
        }
        switch run(from: from, microsecond: Int(microsecond), repairingStaleFlavour: false) {
        case .found(let next) where next > instant: return next
        case .never: return nil
        case .found, .exhausted:
            // systemd would give up ("Infinite loop in calendar calculation") or answer with a time that is not
            // after the base.
            guard requestedDST >= 0 else { return spec.plainElapse(after: instant, in: zone) }
            // With a flavour asked for (CET, EDT), search again without the DST flag that leads systemd astray.
            offsetHint = 0
            let repaired = run(from: from, microsecond: Int(microsecond), repairingStaleFlavour: true)
            if case .found(let next) = repaired, next > instant { return next }
            return nil
        }
    }

    /// `nil` where `mktime` fails; `time` is then unchanged, and each caller reacts as systemd does. systemd tests
    /// `mktime(...) < 0`, so where it checks, an instant before 1970 counts as a failure too.
    @inline(__always)
    private mutating func normalize(_ time: inout LocalDateTime.Fields) -> Int64? {
        // What `ZoneRules.makeTime` does in a zone with one offset for fields in range, without its general setup.
        if let plainFixedOffset, time.isInRange, time.isDST < 0 || time.isDST == plainFixedIsDST {
            let local = time.localSeconds
            time.weekday = CivilTime.weekday(days: Int(CivilTime.floorDivide64(local, 86_400).quotient))
            time.isDST = plainFixedIsDST
            time.utcOffset = plainFixedOffset
            offsetHint = plainFixedOffset
            return local - Int64(plainFixedOffset)
        }
        return zone.makeTime(&time, offsetHint: &offsetHint)
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
            // Where glibc cannot convert the fields, systemd carries on with them as they are.
            _ = normalize(&c)
            if !keepFlavour { c.isDST = requestedDST }

            var value = c.year
            var r = Self.match(spec.year, &value)
            c.year = value
            if r > 0 { resetBelowYear(&c, &usec) }
            if r < 0 || withinBounds(&c) <= 0 { return .never }

            value = c.month
            r = Self.match(spec.month, &value)
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
            r = matchDay(&value, in: c)
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
            r = Self.match(spec.hour, &value)
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
            r = Self.match(spec.minute, &value)
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
            r = Self.match(spec.microsecond, &value)
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
            // systemd reports an error if this conversion fails; like an endless search, that is worth a repair.
            guard let seconds = normalize(&c), seconds >= 0 else { return .exhausted }
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
            if let plainFixedOffset {
                if time.isDST < 0 || time.isDST == plainFixedIsDST {
                    // No offset reaches back a year, so only 1970 needs the instant to tell it is not before 1970.
                    if time.year > 1970 || time.localSeconds - Int64(plainFixedOffset) >= 0 {
                        offsetHint = plainFixedOffset
                        return 1
                    }
                }
            } else if let (instant, _) = zone.uniqueInstant(
                forLocal: time.localSeconds, offset: offsetHint, isDST: time.isDST), instant >= 0
            {
                return 1
            }
        }
        return withinBoundsNormalizing(&time)
    }

    /// `withinBounds` where normalising may change something.
    @inline(never)
    private mutating func withinBoundsNormalizing(_ time: inout LocalDateTime.Fields) -> Int {
        var t = time
        // A time glibc cannot convert counts as going backwards: the search moves on to the next larger unit.
        // So does one before 1970, which systemd cannot tell from a failure.
        guard let instant = normalize(&t), instant >= 0 else { return -1 }
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

    /// Whether the spec elapses at wall time `time` plus `microsecond` (which must be normalised).
    mutating func isElapse(_ time: LocalDateTime.Fields, microsecond: Int) -> Bool {
        var c = time
        func matches(_ components: [CalendarSpec.Component]?, _ value: Int) -> Bool {
            var value = value
            return Self.match(components, &value) == 0
        }
        c.isDST = requestedDST
        var day = c.day
        return matches(spec.year, c.year) && matches(spec.month, c.month) && matchDay(&day, in: c) == 0
            && matchesWeekday(c) && matches(spec.hour, c.hour) && matches(spec.minute, c.minute)
            && matches(spec.microsecond, c.second * CalendarSpec.microsecondsPerSecond + microsecond)
    }

    private mutating func matchesWeekday(_ time: LocalDateTime.Fields) -> Bool {
        guard spec.weekdays != CalendarSpec.allWeekdays else { return true }
        var t = time
        guard let instant = normalize(&t), instant >= 0 else { return false }
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
        if fromEnd >= -1 && fromEnd <= 31 && time.month >= 1 && time.month <= 12 && time.hour >= 0
            && time.hour < 24 && time.minute >= 0 && time.minute < 60 && time.second >= 0 && time.second < 60
        {
            let length = CivilTime.daysInMonth(year: time.year, month: time.month)
            let day = length + 1 - fromEnd
            let result = day >= 1 && day <= length ? day : -1
            if let plainFixedOffset, t.isDST < 0 || t.isDST == plainFixedIsDST {
                offsetHint = plainFixedOffset
                return time.year > 1970 || t.localSeconds - Int64(plainFixedOffset) >= 0 ? result : -1
            }
            if let (instant, _) = zone.uniqueInstant(forLocal: t.localSeconds, offset: offsetHint, isDST: t.isDST) {
                return instant >= 0 ? result : -1
            }
        }
        guard let instant = normalize(&t), instant >= 0 else { return -1 }
        return t.month == time.month ? t.day : -1
    }

    /// Sets `value` to the earliest value ≥ `value` that one of `components` allows. Returns 1 if `value`
    /// changed, 0 if it already matched (or any value is allowed), -1 if nothing matches.
    ///
    /// Static, so that the search hands it the spec's lists without retaining them for each call.
    private static func match(_ components: [CalendarSpec.Component]?, _ value: inout Int) -> Int {
        guard let components else { return 0 }
        var best = Int.max
        for component in components {
            consider(start: component.start, stop: component.stop, step: component.repeat, for: value, best: &best)
        }
        guard best != Int.max else { return -1 }
        defer { value = best }
        return value != best ? 1 : 0
    }

    /// `match` for the day of the month, counted from the month's end where the spec says `~`.
    private mutating func matchDay(_ value: inout Int, in time: LocalDateTime.Fields) -> Int {
        guard spec.endOfMonth, let components = spec.day else { return Self.match(spec.day, &value) }
        var best = Int.max
        for component in components {
            var start = dayFromEndOfMonth(time, component.start)
            var stop = dayFromEndOfMonth(time, component.stop)
            if stop > 0 { swap(&start, &stop) }
            Self.consider(start: start, stop: stop, step: component.repeat, for: value, best: &best)
        }
        guard best != Int.max else { return -1 }
        defer { value = best }
        return value != best ? 1 : 0
    }

    /// Lowers `best` to the earliest value ≥ `value` of `start`, `start..stop` or `start/step` (`stop` -1: no end).
    @inline(__always)
    private static func consider(start: Int, stop: Int, step: Int, for value: Int, best: inout Int) {
        if start >= value {
            best = min(best, start)
        } else if step > 0 {
            let steps = (value - start + step - 1) / step
            let candidate = start + step * steps
            if candidate < best && (stop < 0 || candidate <= stop) { best = candidate }
        }
    }
}
