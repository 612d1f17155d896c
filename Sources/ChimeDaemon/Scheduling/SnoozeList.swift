import Foundation

/// A re-delivery the user asked for with `snooze`: notification `id` once more at `due`.
public struct Snooze: Sendable, Equatable {
    public var id: String
    public var due: Date

    public init(id: String, due: Date) {
        self.id = id
        self.due = due
    }
}

/// The snoozes pending, earliest first.
///
/// It never touches the history (a snooze is not an occurrence of the trigger); the scheduler keeps it across
/// restarts in a `SnoozeStore`.
struct SnoozeList {
    private var snoozes: [Snooze] = []

    var isEmpty: Bool { snoozes.isEmpty }

    /// Every pending snooze, earliest first.
    var all: [Snooze] { snoozes }

    /// When the earliest is due.
    var firstDue: Date? { snoozes.first?.due }

    /// Whether a snooze of `id` is pending.
    func contains(_ id: String) -> Bool { snoozes.contains { $0.id == id } }

    /// Adds `snooze`, after those due at the same time.
    mutating func insert(_ snooze: Snooze) {
        let index = snoozes.firstIndex { $0.due > snooze.due } ?? snoozes.endIndex
        snoozes.insert(snooze, at: index)
    }

    /// Removes and returns the snoozes due by `now`, earliest first.
    mutating func takeDue(by now: Date) -> [Snooze] {
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
