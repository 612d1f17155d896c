import CICal

extension RecurrenceRule {
    /// How many instances one search looks at before it gives up: a rule whose instances all fall before `after`
    /// or past its end would otherwise be walked to the end of libical's calendar.
    static let searchLimit = 200_000

    /// The first instant of the rule strictly after `after` (µs since the epoch), the rule started at the wall
    /// time `start` (its DTSTART: seconds of the wall clock) in `zone`; `nil` when there is none.
    ///
    /// libical (or, for a rule that steps in seconds, minutes or hours, `SubdailyRecurrence`) expands the rule on the
    /// wall clock; each wall time becomes an instant as RFC 5545 §3.3.5 says (`ZoneRules.instantReadingRFC5545`).
    /// Without `COUNT` the search starts near `after` instead of at DTSTART.
    public func nextInstant(after: Int64, start: Int64, zone: ZoneRules) -> Int64? {
        if case .instant(let end) = until, end <= after { return nil }
        let (afterSeconds, _) = CivilTime.floorDivide64(after, 1_000_000)
        let afterWall = afterSeconds + Int64(zone.utcOffset(at: afterSeconds))
        // Two days before `after` on the wall clock is before it as an instant too, whatever the offset: a search
        // may begin there, and what comes earlier need not be read as an instant.
        let farBefore = afterWall - 2 * 86_400
        let search = Search(after: after, farBefore: farBefore, zone: zone, rule: self)
        if let subdaily { return nextInstant(of: subdaily, start: start, search: search) }
        let jump = count == nil && farBefore > start ? farBefore : nil
        guard let walk = RecurrenceWalk(self, start: start, from: jump) else { return nil }
        for _ in 0..<Self.searchLimit {
            guard let wall = walk.next() else { return nil }
            switch search.judge(wall) {
            case .before: continue
            case .end: return nil
            case .found(let instant): return instant
            }
        }
        return nil
    }

    /// What one wall time of the rule means to a search for the first instant after `after`.
    private struct Search {
        enum Verdict {
            case before
            case end
            case found(Int64)
        }

        let after: Int64
        let farBefore: Int64
        let zone: ZoneRules
        let rule: RecurrenceRule

        func judge(_ wall: Int64) -> Verdict {
            // Far before `after`, only an UNTIL on the wall clock can end the search (one in UTC is found at the
            // first instance near `after`).
            if wall < farBefore { return rule.isPastUntil(wall: wall, instant: .min) ? .end : .before }
            let instant = zone.instantReadingRFC5545(wallTime: wall) * 1_000_000
            if rule.isPastUntil(wall: wall, instant: instant) { return .end }
            return instant > after ? .found(instant) : .before
        }
    }

    /// `nextInstant` for a rule that steps in seconds, minutes or hours (`SubdailyRecurrence`): libical counts the
    /// INTERVAL of such rules wrongly, and loses its step when started anew near `after`.
    private func nextInstant(of rule: SubdailyRecurrence, start: Int64, search: Search) -> Int64? {
        let step = rule.interval * rule.unit
        // Without COUNT the walk may begin near `after`; with it, every instance from DTSTART on is counted.
        var k: Int64 = count == nil && search.farBefore > start ? (search.farBefore - start) / step : 0
        var counted = 0
        for _ in 0..<Self.searchLimit {
            k = rule.nextCandidate(from: k, start: start)
            for wall in rule.set(ofStep: k, start: start) where wall >= start {
                counted += 1
                if let count, counted > count { return nil }
                switch search.judge(wall) {
                case .before: continue
                case .end: return nil
                case .found(let instant): return instant
                }
            }
            k += 1
        }
        return nil
    }

    /// The first `limit` instants from the start, for listings and tests.
    public func instants(start: Int64, zone: ZoneRules, limit: Int) -> [Int64] {
        var result: [Int64] = []
        var after = Int64.min
        while result.count < limit, let next = nextInstant(after: after, start: start, zone: zone) {
            result.append(next)
            after = next
        }
        return result
    }

    fileprivate func isPastUntil(wall: Int64, instant: Int64) -> Bool {
        switch until {
        case nil: false
        case .instant(let end): instant > end
        case .wallTime(let end): wall > end
        case .date(let day): wall >= Int64(day + 1) * 86_400
        }
    }
}

/// libical's iterator over the wall times of a rule (`icalrecur_iterator_new`, `icalrecur_iterator_set_start`,
/// `icalrecur_iterator_next`, `icalrecur_iterator_free`), on floating times: no zone reaches libical.
final class RecurrenceWalk {
    private let iterator: OpaquePointer

    /// - Parameter from: where to begin, past the start (wall seconds); only for a rule without `COUNT`.
    init?(_ rule: RecurrenceRule, start: Int64, from: Int64?) {
        let recurrence = rule.expanded.withCString { icalrecurrencetype_from_string($0) }
        guard recurrence.freq != ICAL_NO_RECURRENCE,
            let iterator = icalrecur_iterator_new(recurrence, Self.time(wall: start))
        else { return nil }
        self.iterator = iterator
        if let from { _ = icalrecur_iterator_set_start(iterator, Self.time(wall: from)) }
    }

    deinit {
        icalrecur_iterator_free(iterator)
    }

    /// The next wall time (seconds of the wall clock), or `nil` at the end.
    func next() -> Int64? {
        let time = icalrecur_iterator_next(iterator)
        guard icaltime_is_null_time(time) == 0 else { return nil }
        let days = CivilTime.days(year: Int(time.year), month: Int(time.month), day: Int(time.day))
        return Int64(days) * 86_400 + Int64(time.hour) * 3_600 + Int64(time.minute) * 60 + Int64(time.second)
    }

    static func time(wall: Int64) -> icaltimetype {
        let (days, second) = CivilTime.floorDivide64(wall, 86_400)
        let date = CivilTime.date(days: Int(days))
        var time = icaltimetype()
        time.year = Int32(date.year)
        time.month = Int32(date.month)
        time.day = Int32(date.day)
        time.hour = Int32(second / 3_600)
        time.minute = Int32(second % 3_600 / 60)
        time.second = Int32(second % 60)
        return time
    }
}
