import Foundation

/// The next repeat of one notification's `Repeat=`.
public struct PendingRepeat: Sendable, Equatable {
    public var id: String
    public var due: Date
    /// Which repeat it will be: 1 for the first.
    public var number: Int
    /// The occurrence it repeats.
    public var fireTime: Date

    public init(id: String, due: Date, number: Int, fireTime: Date) {
        self.id = id
        self.due = due
        self.number = number
        self.fireTime = fireTime
    }
}

/// The repeats of `Repeat=` waiting for their time, earliest first: one chain per notification, until the user
/// acknowledges it.
///
/// Like a snooze, a repeat never touches the history (it is not an occurrence of the trigger); the scheduler keeps
/// the list across restarts in a `RepeatStore`.
struct RepeatList {
    typealias Pending = PendingRepeat

    private var pending: [Pending] = []

    var isEmpty: Bool { pending.isEmpty }

    /// Every pending repeat, earliest first.
    var all: [Pending] { pending }

    /// When the earliest is due.
    var firstDue: Date? { pending.first?.due }

    func contains(_ id: String) -> Bool { pending.contains { $0.id == id } }

    /// Puts `repeat` in its place, replacing the one pending for its notification.
    mutating func insert(_ repeat: Pending) {
        pending.removeAll { $0.id == `repeat`.id }
        let index = pending.firstIndex { $0.due > `repeat`.due } ?? pending.endIndex
        pending.insert(`repeat`, at: index)
    }

    /// Removes and returns the repeats due by `now`, earliest first.
    mutating func takeDue(by now: Date) -> [Pending] {
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
