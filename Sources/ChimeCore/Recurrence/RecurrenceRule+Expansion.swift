import CICal

extension RecurrenceRule {
    /// How many instances one search looks at before it gives up: a rule whose instances all fall before `after`
    /// or past its end would otherwise be walked to the end of libical's calendar.
    static let searchLimit = 200_000

    /// The first instant of the rule strictly after `after` (µs since the epoch), the rule started at the wall
    /// time `start` (its DTSTART: seconds of the wall clock) in `zone`; `nil` when there is none.
    ///
    /// libical (or, where libical is wrong, chime's own `SteppedRecurrence`) expands the rule on the
    /// wall clock; each wall time becomes an instant as RFC 5545 §3.3.5 says (`ZoneRules.instantReadingRFC5545`).
    /// The search begins near `after`, not at DTSTART: a rule with `COUNT` is walked from DTSTART once, to find its
    /// last instance, and is then searched as though that were its `UNTIL`. With `cursor`, a search from where the
    /// one before it stopped (as the scheduler asks, after each fire) goes on from there.
    public func nextInstant(after: Int64, start: Int64, zone: ZoneRules, cursor: RecurrenceCursor? = nil) -> Int64? {
        if case .instant(let end) = until, end <= after { return nil }
        let (afterSeconds, _) = CivilTime.floorDivide64(after, 1_000_000)
        let afterWall = afterSeconds + Int64(zone.utcOffset(at: afterSeconds))
        // Two days before `after` on the wall clock is before it as an instant too, whatever the offset: a search
        // may begin there, and what comes earlier need not be read as an instant.
        let search = Search(after: after, farBefore: afterWall - 2 * 86_400, zone: zone, rule: self)
        guard let cursor else {
            var position = RecurrenceCursor.Position(start: start, zone: zone)
            return next(from: &position, search: search)
        }
        return cursor.search(start: start, zone: zone, after: after) { next(from: &$0, search: search) }
    }

    /// The next instance after the search's instant, from `position` (or near that instant, when the position has
    /// not begun a walk), keeping where it stopped.
    private func next(from position: inout RecurrenceCursor.Position, search: Search) -> Int64? {
        if count != nil && position.countEnd == nil { position.countEnd = .some(lastWall(start: position.start)) }
        if case .some(nil) = position.countEnd { return nil }
        let end = position.countEnd ?? nil
        let found =
            if let stepped { next(of: stepped, from: &position, end: end, search: search) } else {
                nextOfWalk(from: &position, end: end, search: search)
            }
        position.reached = max(position.reached, found ?? search.after)
        return found
    }

    /// The next instance libical gives after the search's instant, from the walk `position` holds or a new one
    /// begun near that instant (libical cannot begin a rule with `COUNT` anywhere but at DTSTART, so its COUNT is
    /// left out and `end`, its last instance, ends the walk).
    private func nextOfWalk(from position: inout RecurrenceCursor.Position, end: Int64?, search: Search) -> Int64? {
        if position.walk == nil {
            let jump = search.farBefore > position.start ? search.farBefore : nil
            position.walk = RecurrenceWalk(uncounted, start: position.start, from: jump)
        }
        guard let walk = position.walk else { return nil }
        for _ in 0..<Self.searchLimit {
            switch search.take(walk.next(), end: end) {
            case .before: continue
            case .found(let instant): return instant
            case .end:
                position.isFinished = true
                return nil
            }
        }
        return nil
    }

    /// `next` for a rule that chime expands itself (`SteppedRecurrence`).
    private func next(
        of rule: SteppedRecurrence, from position: inout RecurrenceCursor.Position, end: Int64?, search: Search
    ) -> Int64? {
        let start = position.start
        if !position.isStepping {
            position.step = rule.firstStep(notBefore: search.farBefore, start: start)
            position.isStepping = true
        }
        var emptySteps = 0
        for _ in 0..<Self.searchLimit {
            if position.takenOfStep == 0 { position.step = rule.nextCandidate(from: position.step, start: start) }
            let set = rule.set(ofStep: position.step, start: start)
            emptySteps = set.isEmpty ? emptySteps + 1 : 0
            guard emptySteps < rule.emptyStepLimit else {
                position.isFinished = true
                return nil
            }
            while position.takenOfStep < set.count {
                let wall = set[position.takenOfStep]
                position.takenOfStep += 1
                guard wall >= start else { continue }
                switch search.take(wall, end: end) {
                case .before: continue
                case .found(let instant): return instant
                case .end:
                    position.isFinished = true
                    return nil
                }
            }
            position.step += 1
            position.takenOfStep = 0
        }
        return nil
    }

    /// The wall time of the last of the `COUNT` instances from `start`, counted from DTSTART; `nil` when there are
    /// none.
    private func lastWall(start: Int64) -> Int64? {
        guard let count else { return nil }
        var last: Int64?
        if let stepped {
            var counted = 0
            var k: Int64 = 0
            var emptySteps = 0
            while counted < count && emptySteps < stepped.emptyStepLimit {
                k = stepped.nextCandidate(from: k, start: start)
                let set = stepped.set(ofStep: k, start: start)
                emptySteps = set.isEmpty ? emptySteps + 1 : 0
                for wall in set where wall >= start && counted < count {
                    last = wall
                    counted += 1
                }
                k += 1
            }
            return last
        }
        // libical stops after COUNT instances.
        guard let walk = RecurrenceWalk(expanded, start: start, from: nil) else { return nil }
        while let wall = walk.next() { last = wall }
        return last
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

        /// What the next wall time of a walk means (`nil`: the walk has ended), with `end` the last instance of a rule
        /// with `COUNT`.
        func take(_ wall: Int64?, end: Int64?) -> Verdict {
            guard let wall, wall <= end ?? .max else { return .end }
            return judge(wall)
        }

        func judge(_ wall: Int64) -> Verdict {
            // Far before `after`, only an UNTIL on the wall clock can end the search (one in UTC is found at the
            // first instance near `after`).
            if wall < farBefore { return rule.isPastUntil(wall: wall, instant: .min) ? .end : .before }
            let instant = zone.instantReadingRFC5545(wallTime: wall) * 1_000_000
            if rule.isPastUntil(wall: wall, instant: instant) { return .end }
            return instant > after ? .found(instant) : .before
        }
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

    /// - Parameters:
    ///   - rule: the rule's parts as libical reads them.
    ///   - from: where to begin, past the start (wall seconds); only for a rule without `COUNT`.
    init?(_ rule: String, start: Int64, from: Int64?) {
        let recurrence = rule.withCString { icalrecurrencetype_from_string($0) }
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
