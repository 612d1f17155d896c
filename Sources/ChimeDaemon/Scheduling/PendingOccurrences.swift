import ChimeCore

/// The pending occurrences of the schedule a rebuild replaces, by entry, for the notifications that come through it
/// unchanged (`Scheduler.install(_:keepingPending:)`): a look-up instead of a calendar search each.
struct PendingOccurrences {
    private let items: [OccurrenceQueue.Item]
    /// For each entry of the replaced schedule, the position of its item in `items`, or -1.
    private var positions: [Int32]
    /// Per zone name: whether the zone read by this load has the rules of the one read before.
    private var sameRules: [String: Bool] = [:]

    init(_ queue: OccurrenceQueue, entries: Int) {
        items = queue.items
        positions = [Int32](repeating: -1, count: entries)
        for (position, item) in items.enumerated() { positions[item.entry] = Int32(position) }
    }

    /// The item the entry `previous` had, when it had one and the zones of its trigger (`now`, equal to `was`, the
    /// trigger it had) have the rules they had then.
    mutating func pending(of previous: Int, was: borrowing Trigger, now: borrowing Trigger) -> OccurrenceQueue.Item? {
        let position = Int(positions[previous])
        guard position >= 0, now.hasSameZoneRules(as: was, cache: &sameRules) else { return nil }
        return items[position]
    }

    /// The item the entry `previous` had, for the very notification installed again (its storage shared): its
    /// zones are the ones it had, with the rules they had.
    func pending(ofSame previous: Int) -> OccurrenceQueue.Item? {
        let position = Int(positions[previous])
        return position >= 0 ? items[position] : nil
    }
}
