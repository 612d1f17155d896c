import Foundation

/// What comes after a delivery besides the trigger's own occurrences: the snoozes the user asked for, and the
/// repeats of `Repeat=` until acknowledged. Neither is an occurrence (the history does not see them); both are
/// kept across restarts in their stores, each written when it changes.
///
/// A value the scheduler holds, used on its queue.
struct FollowUps {
    /// One follow-up that fell due.
    enum Due {
        /// The user snoozed notification `id` until `due`.
        case snooze(Snooze)
        /// A repeat of an occurrence, which the scheduler follows with the next (`repeatAgain`).
        case repeated(PendingRepeat)
    }

    private var snoozes = SnoozeList()
    private var repeats = RepeatList()
    private let snoozeStore: (any SnoozeStore)?
    private let repeatStore: (any RepeatStore)?

    /// Starts from what the stores kept: the first install drops what belongs to notifications gone meanwhile,
    /// and what fell due while chimed was down is delivered at once, late.
    init(snoozeStore: (any SnoozeStore)?, repeatStore: (any RepeatStore)?) {
        self.snoozeStore = snoozeStore
        self.repeatStore = repeatStore
        for kept in snoozeStore?.load() ?? [] { snoozes.insert(kept) }
        for kept in repeatStore?.load() ?? [] { repeats.insert(kept) }
    }

    var isEmpty: Bool { snoozes.isEmpty && repeats.isEmpty }

    /// When the earliest is due.
    var firstDue: Date? { [snoozes.firstDue, repeats.firstDue].compactMap { $0 }.min() }

    /// Whether notification `id` has a snooze or a repeat pending.
    func contains(_ id: String) -> Bool { snoozes.contains(id) || repeats.contains(id) }

    /// The repeats pending, earliest first.
    var pendingRepeats: [PendingRepeat] { repeats.all }

    /// Snoozes `id` until `due`; a notification snoozed repeats again from the snooze's delivery on.
    mutating func snooze(_ id: String, due: Date) {
        snoozes.insert(Snooze(id: id, due: due))
        saveSnoozes()
        if !repeats.drop([id]).isEmpty { saveRepeats() }
    }

    /// The first repeat of the occurrence of `id` at `fireTime`, due at `due`.
    mutating func startRepeats(of id: String, due: Date, fireTime: Date) {
        repeats.insert(.init(id: id, due: due, number: 1, fireTime: fireTime))
        saveRepeats()
    }

    /// Takes what is due by `now`, the snoozes first, each list earliest first. The snoozes are written without
    /// them at once, before they are handed off, so that a restart does not deliver them again; the repeats are
    /// written once the next of each is in (`repeatAgain`, then `saveRepeats`), so that a restart in between
    /// delivers a repeat again rather than losing its chain.
    mutating func takeDue(by now: Date) -> [Due] {
        let dueSnoozes = snoozes.takeDue(by: now)
        if !dueSnoozes.isEmpty { saveSnoozes() }
        return dueSnoozes.map { .snooze($0) } + repeats.takeDue(by: now).map { .repeated($0) }
    }

    /// After `pending` was delivered: the repeat after it, due at `due`.
    mutating func repeatAgain(_ pending: PendingRepeat, due: Date) {
        repeats.insert(.init(id: pending.id, due: due, number: pending.number + 1, fireTime: pending.fireTime))
    }

    /// Stops the repeats of `ids` (acknowledged); returns the ids that were repeating.
    mutating func stopRepeats(_ ids: Set<String>) -> Set<String> {
        let stopped = repeats.drop(ids)
        if !stopped.isEmpty { saveRepeats() }
        return stopped
    }

    /// Drops everything of `ids` (requests withdrawn).
    mutating func drop(_ ids: Set<String>) {
        if snoozes.drop(ids) { saveSnoozes() }
        if !repeats.drop(ids).isEmpty { saveRepeats() }
    }

    /// Keeps the snoozes of enabled notifications and the repeats of those that repeat, of a schedule just
    /// installed; the sets are asked for only when there is something to keep.
    mutating func keepOnly(enabled: () -> Set<String>, repeating: () -> Set<String>) {
        if !snoozes.isEmpty, snoozes.keepOnly(enabled()) { saveSnoozes() }
        if !repeats.isEmpty, repeats.keepOnly(repeating()) { saveRepeats() }
    }

    mutating func saveRepeats() {
        repeatStore?.save(repeats.all)
    }

    private func saveSnoozes() {
        snoozeStore?.save(snoozes.all)
    }
}
