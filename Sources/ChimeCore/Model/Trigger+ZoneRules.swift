extension Trigger {
    /// The zones the occurrences depend on beyond the system zone: `TimeZone=` and those named in `OnCalendar=`.
    var namedZones: [ZoneRules] {
        (timeZone.map { [$0] } ?? []) + calendars.compactMap(\.namedZoneRules)
    }

    /// Whether every zone this trigger depends on has the rules it has in `other`, an equal trigger read before:
    /// what a rebuild needs to know before it keeps the occurrences computed then. `cache` remembers the answer per
    /// zone name, so that each zone is compared once per rebuild.
    public func hasSameZoneRules(as other: borrowing Trigger, cache: inout [String: Bool]) -> Bool {
        // Most triggers name no zone: asked for every notification of a rebuild, this answers without an array.
        if timeZone == nil && !calendars.indices.contains(where: { calendars[$0].namedZoneRules != nil }) {
            return true
        }
        let mine = namedZones
        let theirs = other.namedZones
        guard mine.count == theirs.count else { return false }
        for (zone, earlier) in zip(mine, theirs) {
            if let known = cache[zone.name] {
                if !known { return false }
                continue
            }
            let same = zone.hasSameRules(as: earlier)
            cache[zone.name] = same
            if !same { return false }
        }
        return true
    }
}
