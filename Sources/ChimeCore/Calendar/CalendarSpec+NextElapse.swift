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

    /// The answer where systemd's search goes astray across a DST change: the next wall time the spec matches,
    /// found as systemd finds it where there is no DST, read in `rules`. A wall time that does not exist is
    /// skipped; one that occurs twice elapses at its first occurrence after `instant`.
    func plainElapse(after instant: Int64, in rules: ZoneRules) -> Int64? {
        let (seconds, microsecond) = CivilTime.floorDivide64(instant, 1_000_000)
        var wall = rules.localTime(at: seconds).localSeconds * 1_000_000 + microsecond
        var wallClock = ElapseSearch(spec: self, zone: .utc, requestedDST: -1)
        // Each round moves past one gap or one repeated wall time: a handful in any real zone.
        for _ in 0..<1_000 {
            let (from, fraction) = CivilTime.floorDivide64(wall + 1, 1_000_000)
            let outcome = wallClock.run(
                from: ZoneRules.utc.localFields(at: from).fields, microsecond: Int(fraction),
                repairingStaleFlavour: false)
            guard case .found(let next) = outcome else { return nil }
            let (nextSeconds, nextMicrosecond) = CivilTime.floorDivide64(next, 1_000_000)
            let instants = rules.instants(atWallTime: nextSeconds)
            if let found = instants.first(where: { $0 * 1_000_000 + nextMicrosecond > instant }) {
                return found * 1_000_000 + nextMicrosecond
            }
            // Not after the base, or skipped: go on from there, or from the end of the gap.
            if instants.isEmpty, let end = rules.wallTimeEndingGap(containing: nextSeconds) {
                wall = end * 1_000_000 - 1
            } else {
                wall = next
            }
        }
        return nil
    }
}
