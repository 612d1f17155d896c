/// The repeats of `Repeat=` waiting for their time, earliest first, as instants in microseconds since the epoch:
/// one chain per notification, until the user acknowledges it.
///
/// Like a snooze, a repeat never touches the history (it is not an occurrence of the trigger); the scheduler keeps
/// the list across restarts in a `RepeatStore`.
struct RepeatList {
    /// The next repeat of one notification.
    struct Pending: Sendable, Equatable {
        var id: String
        var due: Int64
        /// Which repeat it will be: 1 for the first.
        var number: Int
        /// The occurrence it repeats.
        var fireTime: Int64
    }

    private var pending: [Pending] = []

    var isEmpty: Bool { pending.isEmpty }

    /// Every pending repeat, earliest first.
    var all: [Pending] { pending }

    /// When the earliest is due.
    var firstDue: Int64? { pending.first?.due }

    func contains(_ id: String) -> Bool { pending.contains { $0.id == id } }

    /// Puts `repeat` in its place, replacing the one pending for its notification.
    mutating func insert(_ repeat: Pending) {
        pending.removeAll { $0.id == `repeat`.id }
        let index = pending.firstIndex { $0.due > `repeat`.due } ?? pending.endIndex
        pending.insert(`repeat`, at: index)
    }

    /// Removes and returns the repeats due by `now`, earliest first.
    mutating func takeDue(by now: Int64) -> [Pending] {
        let count = pending.prefix { $0.due <= now }.count
        defer { pending.removeFirst(count) }
        return Array(pending.prefix(count))
    }

    /// Drops the repeats of `ids`. Returns the ids that had one.
    mutating func drop(_ ids: Set<String>) -> Set<String> {
        let dropped = Set(pending.lazy.filter { ids.contains($0.id) }.map(\.id))
        if !dropped.isEmpty { pending.removeAll { ids.contains($0.id) } }
        return dropped
    }

    /// Drops the repeats of notifications not in `ids`. Returns whether any went.
    mutating func keepOnly(_ ids: Set<String>) -> Bool {
        let before = pending.count
        pending.removeAll { !ids.contains($0.id) }
        return pending.count != before
    }
}
