/// Re-deliveries the user asked for with `snooze`, earliest first, as instants in microseconds since the epoch.
///
/// It never touches the history (a snooze is not an occurrence of the trigger); the scheduler keeps it across
/// restarts in a `SnoozeStore`.
struct SnoozeList {
    private var snoozes: [(due: Int64, id: String)] = []

    var isEmpty: Bool { snoozes.isEmpty }

    /// Every pending snooze, earliest first.
    var all: [(due: Int64, id: String)] { snoozes }

    /// When the earliest is due.
    var firstDue: Int64? { snoozes.first?.due }

    /// Whether a snooze of `id` is pending.
    func contains(_ id: String) -> Bool { snoozes.contains { $0.id == id } }

    /// Adds a snooze of `id` due at `due`, after those due at the same time.
    mutating func insert(_ id: String, due: Int64) {
        let index = snoozes.firstIndex { $0.due > due } ?? snoozes.endIndex
        snoozes.insert((due, id), at: index)
    }

    /// Removes and returns the snoozes due by `now`, earliest first.
    mutating func takeDue(by now: Int64) -> [(due: Int64, id: String)] {
        let count = snoozes.prefix { $0.due <= now }.count
        defer { snoozes.removeFirst(count) }
        return Array(snoozes.prefix(count))
    }

    /// Drops the snoozes of the notifications `ids` (taken out of the schedule). Returns whether any went.
    mutating func drop(_ ids: Set<String>) -> Bool {
        let before = snoozes.count
        snoozes.removeAll { ids.contains($0.id) }
        return snoozes.count != before
    }

    /// Drops the snoozes of notifications not in `ids` (removed or disabled by a rebuild). Returns whether any went.
    mutating func keepOnly(_ ids: Set<String>) -> Bool {
        let before = snoozes.count
        snoozes.removeAll { !ids.contains($0.id) }
        return snoozes.count != before
    }
}
