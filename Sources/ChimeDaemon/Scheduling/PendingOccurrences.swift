import ChimeCore

/// The pending occurrences of the schedule a rebuild replaces, by entry, for the notifications that come through it
/// unchanged (`Scheduler.install(_:keepingPending:)`): a look-up instead of a calendar search each.
struct PendingOccurrences {
    private let items: [OccurrenceQueue.Item]
    /// For each entry of the replaced schedule, the position of its item in `items`, or -1.
    private var positions: [Int32]

    init(_ queue: OccurrenceQueue, entries: Int) {
        items = queue.items
        positions = [Int32](repeating: -1, count: entries)
        for (position, item) in items.enumerated() { positions[item.entry] = Int32(position) }
    }

    /// The item the entry `previous` had, for a notification that comes through the rebuild firing alike, in zones
    /// of the rules they had (`PreviousEntries.Match.keepsPending`).
    func pending(of previous: Int) -> OccurrenceQueue.Item? {
        let position = Int(positions[previous])
        return position >= 0 ? items[position] : nil
    }
}
